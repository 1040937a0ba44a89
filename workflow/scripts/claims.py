from mixlib.analysis.claims_table import claims_and_readings
from mixlib.pipeline.io import read_tables, write_table
from mixlib.pipeline.provenance import stamp
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    params = snakemake.params
    tables = {name: read_tables(paths) for name, paths in snakemake.input.items()}
    claims, readings = claims_and_readings(tables, problems=params.problems, seed=params.seed,
                                           rule=params.rule, em=params.em, min_n=params.min_n,
                                           timing_tolerance=params.timing_tolerance)
    log.info("%d claims: %s; %d rows over the readings", len(claims),
             claims["verdict"].value_counts().to_dict(), len(readings))
    write_table(stamp(claims), snakemake.output.claims)
    write_table(stamp(readings), snakemake.output.readings)

from mixlib.analysis.claims_suite import suite_claims
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.provenance import stamp
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake) as log:
    params = snakemake.params
    claims = suite_claims(read_table(snakemake.input[0]), rope=params.rope,
                          prior_strength=params.prior_strength, n_samples=params.n_samples,
                          seed=params.seed)
    log.info("%d suite claims: %s", len(claims), claims["verdict"].value_counts().to_dict())
    write_table(stamp(claims), snakemake.output[0])

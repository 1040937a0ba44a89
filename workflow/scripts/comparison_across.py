from mixlib.analysis.comparison_across import comparison_bayes, comparison_wilcoxon
from mixlib.pipeline.io import read_table, write_table
from mixlib.pipeline.provenance import stamp
from mixlib.pipeline.workflow import logged_job

with logged_job(snakemake):
    params = snakemake.params
    table = read_table(snakemake.input[0])
    write_table(stamp(comparison_wilcoxon(table)), snakemake.output.wilcoxon)
    pairs, posterior = comparison_bayes(table, rope=params.rope,
                                        prior_strength=params.prior_strength,
                                        n_samples=params.n_samples, seed=params.seed)
    write_table(stamp(pairs), snakemake.output.bayes)
    write_table(posterior, snakemake.output.posterior)

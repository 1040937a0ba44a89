from mixlib.experiments.semisupervised_sweep import kernel_sweep_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import logged_job, splits_and_replicates

with logged_job(snakemake):
    params = snakemake.params
    for split, repeats, output in splits_and_replicates(snakemake, params.standardise,
                                                        params.repeats):
        table = kernel_sweep_job(repeats, seed=params.seed, split=split, dataset=params.dataset,
                                 methods=list(params.methods), kernel_counts=params.kernel_counts,
                                 em=params.em, settings=params.settings)
        write_table(table, output)

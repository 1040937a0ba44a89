from mixlib.experiments.semisupervised import rounds_job
from mixlib.pipeline.io import write_table
from mixlib.pipeline.workflow import logged_job, splits_and_replicates

with logged_job(snakemake):
    params = snakemake.params
    for split, repeats, output in splits_and_replicates(snakemake, params.standardise):
        table = rounds_job(repeats, seed=params.seed, split=split, dataset=params.dataset,
                           methods=list(params.methods), n_components=params.n_components,
                           em=params.em, settings=params.settings, first=params.repeats,
                           needed=params.min_n)
        write_table(table, output)

"""One EM section for every mixture: changing an EM setting reruns exactly the jobs that fit a
mixture, and the jobs that read their outputs, and no other."""

import re
import shutil

import pandas as pd
import pytest
import yaml

from mixlib.pipeline.replicates import with_replicate_splits

from .conftest import snakemake

pytestmark = pytest.mark.pipeline

#: Rules whose every job fits a mixture classifier.
MIXTURE_RULES = {"em_trace", "kernel_map", "semisupervised_rounds", "kernel_sweep_curve",
                 "dna_kernel_curve", "semisupervised_sensitivity", "imputation_study_point",
                 "em_trace_sensitivity", "kernel_sweep_sensitivity"}


def job_key(rule: str, wildcards: dict[str, str]) -> tuple[str, frozenset]:
    return rule, frozenset(wildcards.items())


def planned_jobs(dry_run_output: str) -> dict[tuple[str, frozenset], dict[str, object]]:
    """Job key -> its ``reason``, ``input`` and ``output`` files, for every job a dry run plans."""
    jobs = {}
    for block in re.split(r"\n(?=(?:local)?rule \w+:)", dry_run_output):
        rule = re.match(r"(?:local)?rule (\w+):", block)
        if rule is None:
            continue
        fields = dict(re.findall(r"^\s+(wildcards|reason|input|output): (.*)$", block, flags=re.M))
        pairs = dict(pair.split("=", 1) for pair in fields["wildcards"].split(", ")) \
            if "wildcards" in fields else {}
        jobs[job_key(rule.group(1), pairs)] = {
            "reason": fields.get("reason", ""),
            "input": set(fields.get("input", "").split(", ")) - {""},
            "output": set(fields.get("output", "").split(", ")) - {""},
        }
    return jobs


def test_changing_one_em_setting_reruns_exactly_the_mixture_jobs(test_run, tmp_path):
    workdir = tmp_path / "run"
    shutil.copytree(test_run, workdir, symlinks=True)  # keeps modification times
    config = yaml.safe_load((workdir / "config" / "test.yaml").read_text())
    config["em"]["tol"] = config["em"]["tol"] * 10
    # Key order kept: Snakemake compares dict parameters with their order.
    (workdir / "config" / "em_changed.yaml").write_text(yaml.safe_dump(config, sort_keys=False))

    unchanged = snakemake(workdir, "-n", "--quiet", "host", "--cores", "1", "--configfile", "config/test.yaml")
    assert "Nothing to be done" in unchanged.stdout + unchanged.stderr

    # Which data sets have missing cells, read from the run's own prepared tables.
    missing = {path.name.split(".")[0] for path in (workdir / "results" / "data").glob("*.prepared.tsv")
               if pd.read_csv(path, sep="\t").isna().to_numpy().any()}
    assert missing == {"heart_cleveland"}
    # The replicate splits of the claims (claims.replicate) draw from their original's data set.
    splits = with_replicate_splits(config)

    def fits_mixture(rule: str, wildcards: dict[str, str]) -> bool:
        if rule in MIXTURE_RULES:
            return True
        if rule == "impute":  # the kernel-mode imputer fits mixtures where cells are missing
            return splits[wildcards["split"]]["dataset"] in missing
        if rule == "ensemble_curve":
            return wildcards["method"] == "bagging_base"
        if rule == "comparison_point":
            return wildcards["model"] == "mixture" or wildcards["dataset"] in missing
        if rule == "comparison_holdout_point":  # imputed already: only the mixture model fits one
            return wildcards["model"] == "mixture"
        return False

    every_job = planned_jobs(snakemake(workdir, "-n", "--quiet", "host", "-F", "--cores", "1", "--configfile",
                                       "config/em_changed.yaml").stdout)
    fitting = {key for key in every_job if fits_mixture(key[0], dict(key[1]))}
    assert {rule for rule, _ in fitting} == MIXTURE_RULES | {"impute", "ensemble_curve",
                                                             "comparison_point",
                                                             "comparison_holdout_point"}

    dry = snakemake(workdir, "-n", "--quiet", "host", "--cores", "1", "--configfile", "config/em_changed.yaml")
    planned = planned_jobs(dry.stdout)
    assert fitting <= set(planned), f"mixture jobs not rerun: {sorted(fitting - set(planned))}"
    # The provenance record holds the resolved config: it is rewritten on any config change,
    # by its parameter, and no job reads it.
    (provenance,) = [key for key in planned if key[0] == "provenance"]
    assert planned.pop(provenance)["reason"].startswith("Params have changed")
    rewritten = set().union(*(job["output"] for job in planned.values()))
    assert not any("results/provenance.json" in job["input"]
                   for key, job in planned.items() if key[0] != "all")  # only the target rule
    for key, job in planned.items():
        reads_rewritten = bool(job["input"] & rewritten)
        # every other job rerun reads a rerun job's output, so each chain starts at a mixture job
        assert key in fitting or reads_rewritten, f"{key} is rerun but fits no mixture: {job}"
        if key in fitting and not reads_rewritten:  # only its parameters can have changed
            assert job["reason"].startswith("Params have changed"), (key, job["reason"])
    for rule in ("mlp_sweep_point", "svm_grid_level", "fetch", "prepare", "split"):
        rerun = [key for key in planned if key[0] == rule
                 and not planned[key]["input"] & rewritten]
        assert not rerun, f"{rule} jobs rerun with unchanged inputs: {rerun}"
    assert len(planned) < len(every_job)

"""The Snakemake DAG on config/test.yaml: outputs, determinism, config errors, lint, user CSV."""

import base64
import json
import re
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

import matplotlib.image
import pandas as pd
import pytest
import yaml

from mixlib.pipeline.io import read_table
from mixlib.pipeline.replicates import repeats_of
from mixlib.report.summary import verdict_counts_text
from tests.pipeline.conftest import (
    assert_dry_run_stops_before_any_job,
    copy_workflow,
    snakemake,
    without_timings,
)
from tests.test_bad_inputs import CASES

pytestmark = pytest.mark.pipeline


def _outputs(workdir: Path) -> list[Path]:
    """Result files, minus logs and Snakemake's per-job benchmark files (machine timings)."""
    return sorted(p for p in (workdir / "results").rglob("*")
                  if p.is_file() and "logs" not in p.parts and "benchmarks" not in p.parts)


def test_every_target_exists_and_parses(test_run):
    outputs = _outputs(test_run)
    tables = [p for p in outputs if p.suffix == ".tsv"]
    figures = [p for p in outputs if p.suffix == ".png"]
    assert (test_run / "results/tables/data_summary.tsv") in tables
    assert (test_run / "results/figures/data_summary.png") in figures
    for split in ("bacteria", "dna_mixture", "dna_mlp", "wine_holdout"):
        assert (test_run / f"results/splits/{split}.split.tsv") in tables
    for path in tables:
        frame = read_table(path)
        assert frame.shape[1] > 1, path
        # Only a split of a data set without missing cells has an empty table of substitutes.
        assert len(frame) > 0 or (path.parent.name == "impute" and not path.name.startswith(
            ("bacteria", "heart"))), path
    # heart_cleveland's 6 missing cells, in every repeat of the claim split bacteria
    config = yaml.safe_load((test_run / "config" / "test.yaml").read_text())
    substitutes = read_table(test_run / "results/impute/bacteria.substitutes.tsv")
    assert len(substitutes) == repeats_of(config, "bacteria") * 6
    for path in figures:
        image = matplotlib.image.imread(path)
        assert image.shape[0] > 100 and image.shape[1] > 100, path
        ElementTree.parse(path.with_suffix(".svg"))
    assert not list((test_run / "results").rglob("*.tmp")), "a temporary file was left behind"


def test_every_job_wrote_its_log(test_run):
    logs = sorted((test_run / "results/logs").rglob("*.log"))
    assert logs
    for log in logs:
        assert re.search(r"rule \w+ done in", log.read_text()), log


#: Figures that draw a timing: the claims figure shows the verdict of
#: ``mixture_vs_mlp_fit_cpu_seconds`` (a ratio of fit times), which another run may move. The
#: claims table they are drawn from is compared, its timed claims aside.
TIMED_FIGURES = {"claims.png", "claims.svg"}
#: A report page renders one table (``results/report/X.html`` the table ``X.tsv``; the landing
#: page's summary the claims). The table is compared, timings aside; the page of a table that
#: holds timings shows them, and is compared only through its table.
REPORT_PAGE_TABLES = {"summary.html": "claims.tsv"}


def _page_of_a_timed_table(name: Path, run: Path) -> bool:
    if name.parts[:2] != ("results", "report") or name.suffix != ".html":
        return False
    table = REPORT_PAGE_TABLES.get(name.name, name.with_suffix(".tsv").name)
    return "_seconds" in (run / "results" / "tables" / table).read_text()


def _assert_same_outputs(run: Path, other: Path) -> None:
    """Both runs wrote the same files with the same bytes, wall-clock timings aside."""
    first = {p.relative_to(run): p for p in _outputs(run)}
    second = {p.relative_to(other): p for p in _outputs(other)}
    assert first.keys() == second.keys()
    differing = []
    for name, path in first.items():
        if path.read_bytes() == second[name].read_bytes() or name.name in TIMED_FIGURES \
                or _page_of_a_timed_table(name, run):
            continue
        if path.name.endswith(".tsv.manifest.json"):
            # A timed table's content hash differs with its timings; the table itself is
            # compared below, so its manifest must agree on everything else.
            mine, theirs = (json.loads(p.read_text()) for p in (path, second[name]))
            table = name.with_name(name.name.removesuffix(".manifest.json"))
            if mine.pop("sha256") != theirs.pop("sha256") and "_seconds" not in first[table].read_text():
                differing.append(str(name))
            elif mine != theirs:
                differing.append(str(name))
            continue
        timed = path.suffix == ".tsv" and "_seconds" in path.read_text()
        if not timed:
            differing.append(str(name))
            continue
        # Timings are measurements of the machine; every other value must be identical.
        pd.testing.assert_frame_equal(without_timings(path), without_timings(second[name]),
                                      check_exact=True)
    assert differing == []


@dataclass(frozen=True)
class InterruptedRun:
    """A run of config/test.yaml stopped by Ctrl-C, then resumed with the two-thread rule on one
    thread."""

    workdir: Path
    interrupted_returncode: int
    claims_before_resuming: bool


@pytest.fixture(scope="module")
def interrupted_run(tmp_path_factory) -> InterruptedRun:
    """config/test.yaml's DAG, interrupted by Ctrl-C once its data stages are done, then resumed
    on two cores with the two-thread rule given one thread (``--set-threads``): the run checks
    both the resumption and that the tables do not depend on a job's threads, for the price of
    one run of the DAG."""
    workdir = copy_workflow(tmp_path_factory.mktemp("interrupted"))
    with open(workdir / "first_attempt.log", "w") as log:
        # Snakemake as started from a terminal, where Ctrl-C is delivered: a test run launched
        # in the background by a non-interactive shell inherits SIGINT ignored, and so would
        # Snakemake (a run went on to the end in such a CI launch).
        process = subprocess.Popen(
            [sys.executable, "-m", "snakemake", "--cores", "2", "--configfile", "config/test.yaml"],
            cwd=workdir, stdout=log, stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )
        # Mid-way: once the data stages are done and some experiments have written tables.
        deadline = time.monotonic() + 300
        while len(_outputs(workdir)) < 12 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        process.send_signal(signal.SIGINT)
        process.wait(timeout=120)
    claims = (workdir / "results/tables/claims.tsv").exists()
    snakemake(workdir, "--cores", "2", "--set-threads", "svm_grid_level=1", "--configfile",
              "config/test.yaml", "--rerun-incomplete")
    return InterruptedRun(workdir, process.returncode, claims)


def _threads_of(run: Path, rule: str) -> dict[str, int]:
    """Job log name -> the threads the job had, from the first line of each log of ``rule``."""
    threads = {}
    for log in sorted((run / "results/logs" / rule).glob("*.log")):
        found = re.search(r"rule \w+ .*?, (\d+) thread\(s\)", log.read_text())
        assert found, log
        threads[log.name] = int(found.group(1))
    return threads


def test_run_interrupted_by_ctrl_c_resumes_to_the_same_tables(test_run, interrupted_run):
    assert interrupted_run.interrupted_returncode != 0, "the run finished before it could be interrupted"
    assert not interrupted_run.claims_before_resuming
    _assert_same_outputs(test_run, interrupted_run.workdir)


def test_same_config_gives_identical_results_whatever_the_cores(test_run, interrupted_run):
    # The two-thread rule ran on two threads in the test run and on one in the resumed run.
    on_two_cores = _threads_of(test_run, "svm_grid_level")
    on_one_core = _threads_of(interrupted_run.workdir, "svm_grid_level")
    assert on_two_cores and on_two_cores.keys() == on_one_core.keys()
    assert set(on_two_cores.values()) == {2}
    assert 1 in on_one_core.values(), on_one_core
    _assert_same_outputs(test_run, interrupted_run.workdir)


def test_another_seed_gives_other_splits(test_run, tmp_path):
    workdir = copy_workflow(tmp_path / "seed")
    snakemake(workdir, "results/splits/bacteria.split.tsv", "--cores", "2",
              "--configfile", "config/test.yaml", "--config", "seed=8")
    assert (workdir / "results/splits/bacteria.split.tsv").read_bytes() != \
        (test_run / "results/splits/bacteria.split.tsv").read_bytes()


def test_misspelt_key_fails_before_any_job(tmp_path):
    workdir = copy_workflow(tmp_path / "bad")
    config = yaml.safe_load((workdir / "config/test.yaml").read_text())
    config["seeed"] = config.pop("seed")
    (workdir / "config/bad.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(workdir, "--cores", "1", "--configfile", "config/bad.yaml", check=False)
    assert result.returncode != 0
    assert "seeed" in result.stdout + result.stderr
    assert not (workdir / "results").exists() and not (workdir / "resources").exists()


def test_split_larger_than_its_data_set_fails_before_any_job(tmp_path):
    workdir = copy_workflow(tmp_path / "big")
    config = yaml.safe_load((workdir / "config/test.yaml").read_text())
    config["splits"]["w"] = {"dataset": "wine", "roles": {"train": 500}}
    (workdir / "config/big.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(workdir, "--cores", "1", "--configfile", "config/big.yaml", check=False)
    assert result.returncode != 0
    assert "splits.w.roles: the roles ask for 500 rows" in result.stdout + result.stderr
    assert not (workdir / "results").exists()


def test_user_csv_flows_through_fetch_prepare_split_and_summary(tmp_path):
    workdir = copy_workflow(tmp_path / "csv")
    rows = ["sample,height,weight,kind"]
    for i in range(40):
        height = "" if i % 7 == 3 else f"{150 + i * 0.7:.1f}"
        rows.append(f"s{i},{height},{50 + (i * 13) % 30},{'tall' if i % 3 else 'short'}")
    (workdir / "data").mkdir()
    (workdir / "data/people.csv").write_text("\n".join(rows) + "\n")
    config = yaml.safe_load((workdir / "config/test.yaml").read_text())
    config["datasets"]["people"] = {
        "source": "csv", "path": "data/people.csv", "class_column": "kind", "drop_columns": ["sample"],
    }
    config["splits"]["people_holdout"] = {
        "dataset": "people", "roles": {"train": 30, "test": "rest"}, "stratify": True,
    }
    (workdir / "config/people.yaml").write_text(yaml.safe_dump(config))
    snakemake(workdir, "results/splits/people_holdout.split.tsv", "results/figures/data_summary.png",
              "--cores", "2", "--configfile", "config/people.yaml")
    summary = read_table(workdir / "results/tables/data_summary.tsv")
    people = summary[summary["dataset"] == "people"].set_index(["quantity", "item"])["value"]
    assert people[("rows", "all")] == 40 and people[("features", "all")] == 2
    assert people[("missing_cells", "height")] == 6 and people[("missing_cells", "weight")] == 0
    assert people[("class_count", "tall")] == 26
    split = read_table(workdir / "results/splits/people_holdout.split.tsv")
    assert split.groupby("repeat")["role"].value_counts().unstack().to_dict("list") == {
        "test": [10, 10], "train": [30, 30]}


def test_claims_follow_from_their_rows_and_from_the_tables(test_run):
    from mixlib.analysis.claims_replicate import REPLICATE_COLUMNS, row_replicate_verdict, stability
    from mixlib.analysis.claims_table import CLAIM_COLUMNS, ROBUSTNESS_COLUMNS
    from mixlib.analysis.verdicts import row_verdict

    claims = read_table(test_run / "results/tables/claims.tsv")
    readings = read_table(test_run / "results/tables/claims_readings.tsv")
    assert list(claims.columns) == CLAIM_COLUMNS + ROBUSTNESS_COLUMNS + REPLICATE_COLUMNS + ["provenance"]
    # the replicate of chapters 3 and 5 (claims.replicate): its verdict and flag from the row
    for _, row in claims.iterrows():
        assert row_replicate_verdict(row) == (row["replicate_verdict"] if isinstance(row["replicate_verdict"], str)
                                              else "")
        assert stability(row["verdict"], row["replicate_verdict"]) == (
            row["stability"] if isinstance(row["stability"], str) else "")
    chapter35 = claims[claims["chapter"].astype(str).isin(["3", "5"])]
    assert chapter35["replicate_verdict"].notna().all()
    # claims.repeats (3 in the test config) for the chapter-3/5 splits, the study's repeats
    # elsewhere; em_trace and the rounds run on until claims.min_n (3) count, at most
    # claims.max_repeats (6): the iterative method's every repeat counts, so 3
    rounds = read_table(test_run / "results/tables/semisupervised_rounds.tsv")
    per_method = rounds.groupby(["split", "method"])["repeat"].nunique()
    assert (per_method.xs("iterative", level="method") == 3).all()
    assert per_method.between(3, 6).all()
    assert read_table(test_run / "results/tables/kernel_sweep.tsv")["repeat"].nunique() == 3
    assert read_table(test_run / "results/tables/em_trace.tsv").groupby("split")["repeat"].nunique().between(3, 6).all()
    assert claims.loc[claims["id"] == "iterative_hard_error", "n"].tolist() == [3]
    short = chapter35[chapter35["n"] < 3]
    assert short["detail"].str.contains("below claims.min_n = 3").all()
    for table in (claims, readings):
        assert [row_verdict(row) for _, row in table.iterrows()] == table["verdict"].tolist()
        holds = table[table["verdict"] == "holds"]
        assert ((holds["band_low"] < holds["measured"]) & (holds["measured"] < holds["band_high"])).all()
    assert set(claims["kind"]) <= {"absolute", "qualitative", "beyond the report"}
    # the absolute numbers of chapters 3 and 5 only on the report's problem (bacteria)
    assert set(claims.loc[(claims["kind"] == "absolute") & claims["chapter"].astype(str).isin(["3", "5"]), "data"]) == {"bacteria"}
    # EM iterations: the median over the bacteria split's own class fits
    trace = read_table(test_run / "results/tables/em_trace.tsv")
    fits = trace[trace["split"] == "bacteria"].drop_duplicates(["repeat", "class"])
    row = claims[(claims["id"] == "em_iterations") & (claims["data"] == "bacteria")].iloc[0]
    assert row["measured"] == fits["n_iter"].median() and row["n"] == len(fits)
    # every chapter-5 claim under restart x finish x rule (at the default threshold)
    chapter5 = readings[readings["chapter"].astype(str) == "5"]
    both = chapter5[chapter5["id"] == "prior_vs_iterative_hard_error"]["reading"]
    assert both.str.contains("restart=fresh").any() and both.str.contains("finish=stop").any()
    assert both.str.contains("unclassifiable=underflow").any()
    assert {"sweep_best_kernels", "sweep_prior_not_above_iterative", "sweep_test_equivalent"} <= set(chapter5["id"])
    assert (claims["readings"] > 0).sum() > 0


def test_report_bundles_every_figure_and_the_claims(test_run):
    result = snakemake(test_run, "--report", "results/report.html", "--configfile",
                       "config/test.yaml")
    assert "RuntimeWarning" not in result.stdout + result.stderr
    html = (test_run / "results/report.html").read_text(errors="replace")
    figures = sorted(p.name for p in (test_run / "results/figures").glob("*.png"))
    assert figures
    missing = [name for name in figures if name not in html]
    assert missing == []
    assert "Methods" in html and "System Message" not in html  # no docutils error: no dangling reference
    record = json.loads((test_run / "results/provenance.json").read_text())
    assert "provenance.json" in html and record["hash"] in html  # the caption shows the record
    # the landing page: the claims' verdicts, the key figures; the rule graph one click away
    claims = read_table(test_run / "results/tables/claims.tsv")
    assert verdict_counts_text(claims) in html and "Verdicts of the study" in html
    assert "Key figures" in html
    for figure in ("claims", "comparison"):  # drawn inline, from their SVG
        svg = (test_run / f"results/figures/{figure}.svg").read_text()
        (view_box,) = re.findall(r'viewBox="([^"]+)"', svg)
        assert view_box in html
    # metadata makes Snakemake open on this page, not on the rule graph ("Workflow" in the menu)
    seed = yaml.safe_load((test_run / "config/test.yaml").read_text())["seed"]
    assert f'var metadata = {{"seed": {seed}, ' in html
    # the landing page's links open the table or figure itself, not its side panel
    for target in ("results/report/claims.html", "results/figures/comparison.png"):
        kind = "img" if target.endswith(".png") else "html"
        assert (f"javascript:app.setView({{content:'{kind}',contentPath:results['{target}']"
                f".data_uri,resultPath:'{target}'}})") in html, target


def test_report_shows_its_tables_as_rounded_sortable_html(test_run):
    html = (test_run / "results/report.html")
    if not html.exists():
        snakemake(test_run, "--report", "results/report.html", "--configfile", "config/test.yaml")
    report = html.read_text(errors="replace")
    names = ["claims", "claims_readings", "comparison_summary", "comparison_ranks"]
    # the tests across data sets, with two or more cross-validated data sets in the config
    names += [name for name in ("comparison_wilcoxon", "comparison_bayes")
              if (test_run / f"results/tables/{name}.tsv").exists()]
    # the pairs per data set: a figure, not a page of one row per pair
    assert '"results/figures/comparison_pairs.png": {' in report
    assert '"results/report/comparison_pairs.html": {' not in report
    for name in names:
        page_path = test_run / f"results/report/{name}.html"
        # shown inline as an HTML page (not a TSV to download), the page itself
        (encoded,) = re.findall(
            rf'"results/report/{name}.html": {{.*?"data_uri": "data:text/html;[^"]*?base64,([^"]+)"',
            report)
        assert base64.b64decode(encoded) == page_path.read_bytes()
        assert f'"results/tables/{name}.tsv": {{' not in report  # no TSV to download
        page = page_path.read_text()
        table = read_table(test_run / f"results/tables/{name}.tsv")
        headers = re.findall(r'<th scope="col">([^<]*)</th>', page)
        assert 'class="sortable"' in page
        cells = re.findall(r'<td data-value="([^"]*)">([^<]*)</td>', page)
        assert cells
        if name == "comparison_summary":  # data set x model, "error ± half-width" in %
            columns = [c for c in pd.unique(table["dataset"].where(table["protocol"] == "cv",
                                                                   table["split"] + " (hold-out)"))]
            assert headers == ["model", "family", "approach", "mean rank", *columns]
            assert len(re.findall("<tr>", page)) == table["model"].nunique() + 1
            for full, shown in cells:
                if "±" in shown:
                    error = float(shown.split(" ± ")[0])
                    assert abs(float(full) - error) <= 0.5 * 10 ** -len(shown.split(" ± ")[0].partition(".")[2]) + 1e-4
            continue
        # every column shown, or named in the note as the same on every row (of one claim)
        note = re.search(r'<p class="note">(.*?)</p>', page).group(1)
        assert set(headers) <= set(table.columns)
        assert all(column in note for column in set(table.columns) - set(headers)), name
        for full, shown in cells:  # rounded: a few significant digits, not the float's 17
            if shown in ("", "∞", "−∞"):
                continue
            digits = shown.lstrip("-").split("e")[0].replace(".", "").lstrip("0")
            assert len(digits) <= 4 or float(full).is_integer(), (name, full, shown)
            # ... and they are the value rounded to the last digit shown (the sort key itself
            # keeps 6 significant digits)
            mantissa, _, exponent = shown.partition("e")
            last_digit = 10.0 ** (int(exponent or 0) - len(mantissa.partition(".")[2]))
            assert abs(float(full) - float(shown)) <= 0.5 * last_digit * (1 + 1e-9) + 1e-5 * abs(float(full)), (name, full, shown)


def test_provenance_is_recorded_stamped_and_reruns_nothing(test_run):
    record = json.loads((test_run / "results/provenance.json").read_text())
    assert record["config"]["seed"] == yaml.safe_load(
        (test_run / "config/test.yaml").read_text())["seed"]
    assert record["packages"]["snakemake"] and record["blas"]["blas"]["name"]
    kept = test_run / "results/provenance" / f"{record['hash']}.json"
    assert json.loads(kept.read_text()) == record
    for name in ("claims", "comparison_summary", "comparison_pairs", "comparison_ranks"):
        table = read_table(test_run / f"results/tables/{name}.tsv")
        assert table.columns[-1] == "provenance" and set(table["provenance"]) == {record["hash"]}
    # The same checkout, config and environment: the record is the same and nothing reruns.
    result = snakemake(test_run, "-n", "--cores", "2", "--configfile", "config/test.yaml")
    assert "Nothing to be done" in result.stdout + result.stderr


def test_config_override_of_a_nested_list_plans_its_values(tmp_path):
    # Snakemake reads the inside of a --config mapping as strings: the schema's types apply.
    workdir = copy_workflow(tmp_path / "override")
    result = snakemake(workdir, "-n", "--quiet", "host", "--configfile", "config/test.yaml",
                       "--config", 'mlp={"hidden_sizes": [1, 3]}')
    outputs = set(re.findall(r"output: (results/mlp/\S+)", result.stdout))
    assert {re.search(r"\.h(\d+)\.tsv", path).group(1) for path in outputs} == {"1", "3"}
    assert len(outputs) == 12  # the three regimes and two splits of config/test.yaml are kept


def test_a_configfile_stands_on_its_own(tmp_path):
    # A user's copy of the test config without wine: wine must not come back from config.yaml.
    workdir = copy_workflow(tmp_path / "own")
    config = yaml.safe_load((workdir / "config/test.yaml").read_text())
    del config["datasets"]["wine"], config["splits"]["wine_holdout"], config["splits"]["wine_semisupervised"]
    config["comparison"]["datasets"] = ["heart_cleveland"]
    for stage in ("mixture", "semisupervised"):
        config[stage]["splits"] = ["bacteria"]
    (workdir / "config/mine.yaml").write_text(yaml.safe_dump(config))
    result = snakemake(workdir, "results/tables/data_summary.tsv", "--cores", "2",
                       "--configfile", "config/mine.yaml")
    summary = read_table(workdir / "results/tables/data_summary.tsv")
    assert set(summary["dataset"]) == {"splice", "splice_ordinal", "heart_cleveland"}
    assert not (workdir / "resources/data/wine.csv").exists()
    assert "config/config.yaml is not read" in result.stdout + result.stderr


def test_yaml_syntax_error_in_the_study_config_names_file_line_and_column(tmp_path):
    workdir = copy_workflow(tmp_path / "syntax")
    text = (workdir / "config/config.yaml").read_text()
    (workdir / "config/config.yaml").write_text(text.replace("repeats: 10", "repeats: [10"))
    line = text[:text.index("repeats: 10")].count("\n") + 1
    result = snakemake(workdir, "-n", check=False)
    assert result.returncode != 0
    # The parser notices at the next key (`datasets:`) and says where the open list began.
    after = text[:text.index("\ndatasets:")].count("\n") + 2
    assert re.search(rf"config/config.yaml, line {after}, column 1: YAML syntax error: .* began "
                     rf"at line {line}, column 10\)", result.stdout + result.stderr), result.stdout[-2000:]


DRY_RUN_CASES = ["cell of 1e308", "cell 'inf'", "all-empty column", "class with one example",
                 "fewer rows per class than comparison.n_folds", "empty class cell after a blank line",
                 "class of 2 rows, 2 folds, the comparison's MLP with early stopping",
                 "MLP stage split with a class of 1 training row"]


@pytest.mark.parametrize("case", [c for c in CASES if c.name in DRY_RUN_CASES], ids=DRY_RUN_CASES)
def test_bad_csv_stops_a_dry_run_before_any_job_naming_the_culprit(case, tmp_path):
    assert_dry_run_stops_before_any_job(case, copy_workflow(tmp_path / "bad_csv"))

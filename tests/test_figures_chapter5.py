"""The chapter-3/5 figures on small synthetic tables of the new contracts (two splits each)."""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Circle

from mixlib.figures.fig3_3 import fig3_3
from mixlib.figures.fig3_4 import fig3_4
from mixlib.figures.kernel_sweep import fig5_4, fig5_5, fig6_1
from mixlib.figures.semisupervised_rounds import fig5_1, fig5_3
from mixlib.figures.semisupervised_sensitivity import semisupervised_sensitivity
from tests.test_experiments_semisupervised import tiny_problem

SPLITS = {"bacteria": "heart", "wine_semisupervised": "wine"}
#: The interval level the figures are drawn at (the config's ``figures.confidence_level``).
LEVEL = 0.95
RULES = ("confidence", "underflow")
RULE_METRICS = ("hard_error", "unknown_error", "test_hard_error", "test_unknown_error", "test_error")
ROUND_SETTINGS = (("iterative", "any", "argmax"), ("iterative", "any", "stop"),
                  ("prior", "fresh", "any"), ("prior", "warm", "any"))


def _labels(ax) -> list[str]:
    return [line.get_label() for line in ax.get_lines()]


def _renders(fig: Figure) -> None:
    fig.savefig(io.BytesIO(), format="png")


def _round_rows(rng, settings, n_repeats: int = 3, **extra) -> list[dict]:
    """Rows of the rounds contract for every split, setting and repeat; repeat r stops at round 1 + r."""
    rows = []
    for split, dataset in SPLITS.items():
        for method, restart, finish in settings:
            for repeat in range(n_repeats):
                last = 1 + repeat
                base = dict(split=split, dataset=dataset, method=method, n_components=4, restart=restart,
                            finish=finish, threshold=0.9, repeat=repeat, **extra)
                for rnd in range(last + 1):
                    for metric in RULE_METRICS:
                        for rule in RULES:
                            rows.append(dict(base, round=rnd, metric=metric, unclassifiable=rule,
                                             value=rng.uniform(0, 0.3)))
                    free = {"unknown": rng.uniform(0, 0.5), "pseudo_label_error": rng.uniform(0, 0.2)}
                    if method == "prior" and rnd >= 1:
                        free["flips"] = rng.uniform(0, 0.1)
                    if rnd == last:
                        free["n_rounds"] = float(last)
                        if method == "iterative":
                            free["n_argmax"] = 2.0
                            free["unassigned_by_margin"] = rng.uniform(0, 0.1)
                    if method == "prior":
                        del free["unknown"]
                    rows.extend(dict(base, round=rnd, metric=m, unclassifiable="any", value=v)
                                for m, v in free.items())
    return rows


@pytest.fixture
def rounds() -> pd.DataFrame:
    return pd.DataFrame(_round_rows(np.random.default_rng(0), ROUND_SETTINGS))


def test_rounds_figures_draw_one_panel_per_split(rounds):
    fig = fig5_1(rounds, confidence_level=LEVEL)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    for ax, (split, dataset) in zip(fig.axes, sorted(SPLITS.items())):
        data = [line for line in ax.get_lines() if not line.get_label().startswith("report")]
        assert [line.get_label() for line in data] == [
            "hard error (confidence)", "hard error (underflow)", "unknown error (confidence)",
            "unknown error (underflow)", "unknown"]
        assert [line.get_linestyle() for line in data] == ["-", "--", "-", "--", "-"]
        # the report's values as dotted reference lines, in each counter's colour
        reference = {line.get_label(): (line.get_ydata()[0], line.get_color())
                     for line in ax.get_lines() if line.get_label().startswith("report")}
        assert {label: y for label, (y, _) in reference.items()} == {
            "report: hard error 5 %": 5.0, "report: unknown error 3 %": 3.0, "report: unknown 0 %": 0.0}
        assert reference["report: hard error 5 %"][1] == data[0].get_color()
        assert f"{split} ({dataset})" in ax.get_title() and "finish argmax" in ax.get_title()
        assert [t.get_text() for t in ax.get_legend().get_texts()] == _labels(ax)
    # Round 0 of the hard error (confidence) in the first split: mean over repeats in %, argmax only.
    chosen = rounds[(rounds["split"] == "bacteria") & (rounds["method"] == "iterative")
                    & (rounds["finish"] == "argmax") & (rounds["metric"] == "hard_error")
                    & (rounds["unclassifiable"] == "confidence")]
    line = fig.axes[0].get_lines()[0]
    assert line.get_ydata()[0] == pytest.approx(100 * chosen[chosen["round"] == 0]["value"].mean())
    # The last round holds every repeat at its final value.
    finals = chosen.sort_values("round").groupby("repeat")["value"].last()
    assert line.get_ydata()[-1] == pytest.approx(100 * finals.mean())

    fig = fig5_3(rounds, confidence_level=LEVEL)
    assert len(fig.axes) == 2
    for ax in fig.axes:
        assert _labels(ax)[-2:] == ["flips", "report: flips 2 %"] and "restart warm" in ax.get_title()
        assert ax.get_lines()[-2].get_xdata()[0] == 1   # flips from round 1
        assert "report: hard error 4 %" in _labels(ax)
    fresh_only = rounds[rounds["restart"] != "warm"]
    assert all("restart fresh" in ax.get_title() for ax in fig5_3(fresh_only, confidence_level=LEVEL).axes)
    _renders(fig)


def test_rounds_figures_name_what_is_missing(rounds):
    with pytest.raises(ValueError, match="'flips'"):
        fig5_3(rounds[rounds["metric"] != "flips"], confidence_level=LEVEL)
    with pytest.raises(ValueError, match="'unknown_error'.*'wine_semisupervised'"):
        fig5_1(rounds[~((rounds["metric"] == "unknown_error") & (rounds["split"] == "wine_semisupervised"))], confidence_level=LEVEL)
    with pytest.raises(ValueError, match="unclassifiable"):
        fig5_1(rounds.drop(columns="unclassifiable"), confidence_level=LEVEL)
    with pytest.raises(ValueError, match="no rows of method 'prior'"):
        fig5_3(rounds[rounds["method"] == "iterative"], confidence_level=LEVEL)


def test_rounds_figure_with_one_rule():
    table = pd.DataFrame(_round_rows(np.random.default_rng(1), ROUND_SETTINGS))
    table = table[table["unclassifiable"] != "underflow"]
    drawn = [label for label in _labels(fig5_1(table, confidence_level=LEVEL).axes[1]) if not label.startswith("report")]
    assert drawn == ["hard error (confidence)", "unknown error (confidence)", "unknown"]


@pytest.fixture
def sweep() -> pd.DataFrame:
    rng = np.random.default_rng(2)
    rows = []
    settings = (("labelled_only", "any", "any"), ("iterative", "any", "argmax"), ("iterative", "any", "stop"),
                ("prior", "warm", "any"), ("prior", "fresh", "any"))
    for split, dataset in SPLITS.items():
        for method, restart, finish in settings:
            for k in (1, 2, 4, 8):
                for repeat in range(3):
                    base = dict(split=split, dataset=dataset, method=method, n_components=k, restart=restart,
                                finish=finish, threshold=0.9, repeat=repeat)
                    for metric in ("train_error", "train_hard_error", "train_unknown_error", "test_error",
                                   "test_hard_error", "test_unknown_error"):
                        rows.extend(dict(base, metric=metric, unclassifiable=rule, value=rng.uniform(0, 0.4))
                                    for rule in RULES)
                    for metric, value in (("effective_components", k), ("collapsed_kernels", k / 4 * rng.uniform()),
                                          ("n_rounds", 3.0), ("pseudo_label_error", 0.1)):
                        rows.append(dict(base, metric=metric, unclassifiable="any", value=value))
    return pd.DataFrame(rows)


def _labelled(ax) -> list[str]:
    return [label for label in _labels(ax) if not label.startswith("_")]


METHODS = ("labelled only", "iterative", "prior probabilities")


def _sweep_panels(fig: Figure, s: int, i: int):
    """The error and kernel panels of split ``s`` (sorted) and method ``i``: rows of three."""
    return fig.axes[6 * s + i], fig.axes[6 * s + 3 + i]


def test_kernel_sweep_figures_are_small_multiples_per_split_and_method(sweep):
    for function, metric in ((fig5_4, "train_error"), (fig5_5, "test_error")):
        fig = function(sweep, confidence_level=LEVEL)
        # per split: a row of error panels and a row of kernel panels, one column per method
        assert isinstance(fig, Figure) and len(fig.axes) == 12
        for s, (split, dataset) in enumerate(sorted(SPLITS.items())):
            for i, method in enumerate(METHODS):
                ax, ax_kernels = _sweep_panels(fig, s, i)
                assert _labels(ax) == [f"{method} ({r})" for r in RULES]
                assert [line.get_linestyle() for line in ax.get_lines()] == ["-", "--"]
                assert len(ax.collections) == 2           # one band per rule, the method's colour
                assert _labelled(ax_kernels) == [method, "as asked"]
                assert ax_kernels.get_xscale() == "log"
                assert ax.get_title().count("\n") <= 1      # titles of at most two lines
            assert f"{split} ({dataset})" in _sweep_panels(fig, s, 0)[0].get_ylabel()
            titles = [_sweep_panels(fig, s, i)[0].get_title() for i in range(3)]
            assert titles == ["labelled only", "iterative\nfinish argmax",
                              "prior probabilities\nrestart warm"]
            ax, ax_kernels = _sweep_panels(fig, s, 2)
            chosen = sweep[(sweep["split"] == split) & (sweep["method"] == "prior") & (sweep["restart"] == "warm")]
            expected = chosen[(chosen["metric"] == metric) & (chosen["unclassifiable"] == "underflow")]
            np.testing.assert_allclose(ax.get_lines()[1].get_ydata(),
                                       100 * expected.groupby("n_components")["value"].mean().to_numpy())
            # the kernels fit (solid), then the collapsed ones (dotted)
            np.testing.assert_allclose(ax_kernels.get_lines()[0].get_ydata(), [1, 2, 4, 8])
            collapsed = chosen[chosen["metric"] == "collapsed_kernels"].groupby("n_components")["value"].mean()
            np.testing.assert_allclose(ax_kernels.get_lines()[1].get_ydata(), collapsed.to_numpy())
            assert ax_kernels.get_lines()[1].get_linestyle() == ":"
        assert fig.axes[-1].get_xlabel() == "kernels per class"
        # one key for the figure: no shading where every method fits the kernels asked
        (key,) = fig.legends
        texts = [text.get_text() for text in key.get_texts()]
        assert texts[:2] == ["error, confidence rule", "error, underflow rule"]
        assert "methods fit unequal kernel counts" not in texts
        _renders(fig)


def test_kernel_sweep_figures_show_kernels_fit_per_class_and_unequal_counts(sweep):
    """A cap at 2 distinct rows for one class of the prior method: its mean fitted count falls
    below the others' at 4 and 8 kernels, which the figure shades in every panel of the split."""
    per_class = []
    for label in ("a", "b"):
        rows = sweep[sweep["metric"] == "effective_components"].copy()
        capped = (rows["method"] == "prior") & (label == "b")
        rows.loc[capped, "value"] = np.minimum(rows.loc[capped, "value"], 2.0)
        per_class.append(rows.assign(metric=f"effective_components:{label}"))
    fig = fig5_4(pd.concat([sweep, *per_class], ignore_index=True), confidence_level=LEVEL)
    ax, ax_kernels = _sweep_panels(fig, 0, 2)
    prior = [ln for ln in ax_kernels.get_lines() if ln.get_label() == "prior probabilities"][0]
    np.testing.assert_allclose(prior.get_ydata(), [1, 2, 3, 5])   # mean of the two classes
    for panel in fig.axes[:6]:                                     # shaded at 4 and 8
        spans = [patch.get_x() for patch in panel.patches]
        np.testing.assert_allclose(sorted(spans), [4 / 2 ** 0.5, 8 / 2 ** 0.5])
    assert "methods fit unequal kernel counts" in [t.get_text() for t in fig.legends[0].get_texts()]
    assert len(ax_kernels.collections) >= 1   # a band (classes' lowest to highest)
    with pytest.raises(ValueError, match="'collapsed_kernels'"):
        fig5_4(sweep[sweep["metric"] != "collapsed_kernels"], confidence_level=LEVEL)
    with pytest.raises(ValueError, match="'test_error'"):
        fig5_5(sweep[sweep["metric"] != "test_error"], confidence_level=LEVEL)


def test_fig6_1_adds_collapsed_kernels():
    rows = []
    for k in (1, 2):
        for repeat in range(2):
            base = dict(split="splice", encoding="onehot", n_components=k, repeat=repeat)
            rows += [dict(base, **{"class": "all"}, metric=m, value=0.2) for m in ("test_error", "train_error")]
            for label in ("EI", "IE"):
                rows += [dict(base, **{"class": label}, metric="live_kernels", value=float(k)),
                         dict(base, **{"class": label}, metric="collapsed_kernels", value=1.0)]
    fig = fig6_1(pd.DataFrame(rows), confidence_level=0.95)
    lower = fig.axes[2]   # its own panel, with a linear axis (a mean of 0 shows)
    collapsed = [line for line in lower.get_lines() if line.get_label().endswith("collapsed")]
    assert [line.get_label() for line in collapsed] == ["class EI (onehot) collapsed", "class IE (onehot) collapsed"]
    assert all(line.get_marker() == "x" for line in collapsed)


@pytest.fixture
def trace() -> pd.DataFrame:
    rows = []
    classes = {"bacteria": ("absent", "present"), "wine_semisupervised": ("1", "2", "3")}
    for split, dataset in SPLITS.items():
        for repeat in range(3):
            for c, label in enumerate(classes[split]):
                n_iter = 3 + repeat + c
                collapsed = 1 if (split == "bacteria" and repeat == 1 and label == "absent") else 0
                for it in range(n_iter + 1):
                    rows.append(dict(split=split, dataset=dataset, repeat=repeat, **{"class": label},
                                     n_components=4, n_labelled=36, iteration=it,
                                     mean_log_likelihood=-5.0 + 2.0 * (1 - 0.5 ** it) + 0.1 * c,
                                     n_iter=n_iter, converged=True, collapsed=collapsed))
    return pd.DataFrame(rows)


def test_fig3_3_marks_collapsed_fits_per_split(trace):
    fig = fig3_3(trace, confidence_level=0.95)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    first, second = fig.axes
    assert first.get_title().startswith("bacteria (heart): 1 of 6 class fits have a collapsed kernel")
    assert second.get_title().startswith("wine_semisupervised (wine): 0 of 9 class fits have a collapsed kernel")
    crosses = [line for line in first.get_lines() if line.get_marker() == "x"]
    assert len(crosses) == 1 and crosses[0].get_xdata()[0] == 4   # repeat 1, class 0 stops at 4
    assert not [line for line in second.get_lines() if line.get_marker() == "x"]
    assert [t.get_text() for t in second.get_legend().get_texts()] == ["class 1", "class 2", "class 3"]
    _renders(fig)
    with pytest.raises(ValueError, match="collapsed"):
        fig3_3(trace.drop(columns="collapsed"), confidence_level=0.95)


@pytest.fixture
def kernels() -> pd.DataFrame:
    rng = np.random.default_rng(3)
    rows = []
    for split, dataset in SPLITS.items():
        for label in ("a", "b"):
            rows += [dict(split=split, dataset=dataset, kind="point", **{"class": label}, kernel=-1,
                          pc1=rng.normal(), pc2=rng.normal(), sigma=np.nan, weight=np.nan, n_iter=-1, collapsed=False)
                     for _ in range(10)]
            for j in range(2):
                rows.append(dict(split=split, dataset=dataset, kind="kernel", **{"class": label}, kernel=j,
                                 pc1=rng.normal(), pc2=rng.normal(), sigma=0.5, weight=0.5, n_iter=7,
                                 collapsed=(split == "bacteria" and label == "b" and j == 0)))
    return pd.DataFrame(rows)


def test_fig3_4_marks_collapsed_kernels_per_split(kernels):
    fig = fig3_4(kernels)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    first, second = fig.axes
    assert first.get_title() == "bacteria (heart): 1 of 4 kernels at the variance floor"
    assert second.get_title() == "wine_semisupervised (wine): 0 of 4 kernels at the variance floor"
    assert all(len([p for p in ax.patches if isinstance(p, Circle)]) == 4 for ax in fig.axes)
    marked = [line for line in first.get_lines() if line.get_label() == "collapsed kernel"]
    assert len(marked) == 1 and marked[0].get_color() == "black" and len(marked[0].get_xdata()) == 1
    assert not [line for line in second.get_lines() if line.get_label() == "collapsed kernel"]
    # Read back from a TSV the flag may be text.
    assert fig3_4(kernels.assign(collapsed=kernels["collapsed"].astype(str))).axes[0].get_title().startswith(
        "bacteria (heart): 1 of 4")
    _renders(fig)
    with pytest.raises(ValueError, match="collapsed"):
        fig3_4(kernels.drop(columns="collapsed"))


THRESHOLDS = (0.5, 0.6, 0.75, 0.9, 0.95)
FLOORS = (1e-6, 1e-3, 1e-2)


@pytest.fixture
def sensitivity() -> pd.DataFrame:
    rng = np.random.default_rng(4)
    frames = []
    for threshold in THRESHOLDS:
        for floor in FLOORS:
            rows = _round_rows(rng, (("iterative", "any", "argmax"), ("prior", "warm", "any"),
                                     ("prior", "fresh", "any")), relative_min_variance=floor)
            frames.append(pd.DataFrame(rows).assign(threshold=threshold).drop(columns="n_components"))
    return pd.concat(frames, ignore_index=True)


def test_sensitivity_small_multiples_lines_reference_and_legend(sensitivity):
    fig = semisupervised_sensitivity(sensitivity, confidence_level=LEVEL)
    assert isinstance(fig, Figure)
    panels = [ax for ax in fig.axes if ax.axison]
    # 2 splits x 3 variants (iterative argmax, prior fresh, prior warm) x 4 panels, less the
    # prior rows' unassigned-share panel; a legend row
    assert len(panels) == 2 * 3 * 4 - 2 * 2
    width, height = fig.get_size_inches()
    assert width <= 13
    for s, (split, dataset) in enumerate(sorted(SPLITS.items())):
        own = [ax for ax in panels if f"{split} ({dataset})" in ax.get_title()]
        hard_iterative = next(ax for ax in own if "iterative (argmax):\nfinal hard error" in ax.get_title())
        data = [ln for ln in hard_iterative.get_lines() if ln.get_label() != "report"]
        assert len(data) == 3 * 2   # floors x rules: at most six series a panel
        assert [ln.get_label() for ln in data[:2]] == ["floor 1e-06 (confidence)", "floor 1e-06 (underflow)"]
        reference = [ln for ln in hard_iterative.get_lines() if ln.get_label() == "report"]
        assert [ln.get_ydata()[0] for ln in reference] == [5.0]
        hard_prior = next(ax for ax in own if "prior (warm):\nfinal hard error" in ax.get_title())
        assert [ln.get_ydata()[0] for ln in hard_prior.get_lines() if ln.get_label() == "report"] == [4.0]
        rounds = next(ax for ax in own if "iterative (argmax):\nrounds" in ax.get_title())
        assert sorted(ln.get_ydata()[0] for ln in rounds.get_lines() if ln.get_label() == "report") == [2.0, 3.0]
        # Mean over repeats of each repeat's last round, per threshold.
        rows = sensitivity[(sensitivity["split"] == split) & (sensitivity["method"] == "prior")
                           & (sensitivity["restart"] == "warm") & (sensitivity["relative_min_variance"] == 1e-3)
                           & (sensitivity["metric"] == "hard_error") & (sensitivity["unclassifiable"] == "underflow")]
        finals = rows.sort_values("round").groupby(["threshold", "repeat"])["value"].last().groupby("threshold").mean()
        line = next(ln for ln in hard_prior.get_lines() if ln.get_label() == "floor 0.001 (underflow)")
        np.testing.assert_allclose(line.get_ydata(), 100 * finals.to_numpy())
        assert line.get_linestyle() == "--" and line.get_marker() == "s"
        assert np.allclose(sorted(rounds.get_xticks()), THRESHOLDS)
    legend = next(ax.get_legend() for ax in fig.axes if ax.get_legend() is not None)
    assert [t.get_text() for t in legend.get_texts()] == (
        [f"floor {f:g} (relative min. variance)" for f in FLOORS] + ["rule: confidence", "rule: underflow",
                                                                    "the report's value (bacteria)"])
    assert not [t for ax in fig.axes for t in ax.texts]   # no panel is all zero here
    _renders(fig)


def test_sensitivity_says_when_a_panel_is_zero_everywhere(sensitivity):
    zero = sensitivity.copy()
    zero.loc[zero["metric"] == "unassigned_by_margin", "value"] = 0.0
    fig = semisupervised_sensitivity(zero, confidence_level=LEVEL)
    notes = [(ax, t.get_text()) for ax in fig.axes for t in ax.texts]
    assert len(notes) == 2 and all(text == "0 at every setting" for _, text in notes)
    assert all("margin never assigns" in ax.get_title() for ax, _ in notes)


def test_sensitivity_names_what_is_missing(sensitivity):
    with pytest.raises(ValueError, match="'n_rounds'"):
        semisupervised_sensitivity(sensitivity[sensitivity["metric"] != "n_rounds"], confidence_level=LEVEL)
    with pytest.raises(ValueError, match="relative_min_variance"):
        semisupervised_sensitivity(sensitivity.drop(columns="relative_min_variance"), confidence_level=LEVEL)
    with pytest.raises(ValueError, match="'unassigned_by_margin'"):
        semisupervised_sensitivity(sensitivity[sensitivity["metric"] != "unassigned_by_margin"], confidence_level=LEVEL)


def test_figures_draw_the_tables_of_the_experiments():
    """End to end: the experiment functions' rows (plus split, dataset, repeat) draw without error."""
    import warnings

    from mixlib.experiments.semisupervised import semisupervised_rounds
    from mixlib.experiments.semisupervised_sweep import kernel_sweep_point
    from mixlib.catalogue.settings import EMSettings, SemiSupervisedSettings

    em, settings = EMSettings(tol=1e-4), SemiSupervisedSettings(threshold=0.8, max_rounds=4)
    rounds, sweep, grid = [], [], []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for s, split in enumerate(SPLITS):
            for repeat in range(2):
                problem = tiny_problem(10 * s + repeat)
                extra = dict(split=split, dataset=SPLITS[split], repeat=repeat)
                for method in ("iterative", "prior"):
                    rounds.append(semisupervised_rounds(problem, method=method, n_components=2, em=em,
                                                        settings=settings, rng=repeat).assign(**extra))
                    for threshold in (0.6, 0.9):
                        for floor in (1e-6, 1e-2):
                            grid.append(semisupervised_rounds(problem, method=method, n_components=2,
                                                              em=em.with_relative_floor(floor),
                                                              settings=settings.replaced(threshold=threshold),
                                                              rng=repeat)
                                        .assign(relative_min_variance=floor, **extra))
                for method in ("labelled_only", "iterative", "prior"):
                    for k in (1, 2):
                        sweep.append(kernel_sweep_point(problem, method=method, n_components=k, em=em,
                                                        settings=settings, rng=repeat).assign(**extra))
    rounds, sweep, grid = (pd.concat(t, ignore_index=True) for t in (rounds, sweep, grid))
    for fig in (fig5_1(rounds, confidence_level=LEVEL), fig5_3(rounds, confidence_level=LEVEL)):
        assert len(fig.axes) == 2
        assert all("(confidence)" in _labels(ax)[0] for ax in fig.axes)
    for fig in (fig5_4(sweep, confidence_level=LEVEL), fig5_5(sweep, confidence_level=LEVEL)):
        assert len(fig.axes) == 12   # two splits x (errors, kernels) x three methods
    fig = semisupervised_sensitivity(grid, confidence_level=LEVEL)
    # a row of panels per split and method setting; the prior rows have no unassigned-share panel
    variants = grid.assign(**{c: grid[c].astype(str) for c in ("restart", "finish") if c in grid.columns}) \
        .drop_duplicates([c for c in ("split", "method", "restart", "finish") if c in grid.columns])
    expected = sum(4 if method == "iterative" else 3 for method in variants["method"])
    assert len([ax for ax in fig.axes if ax.axison]) == expected
    _renders(fig)


def test_chapter5_figures_draw_their_bands_at_the_level_given(rounds):
    """A lower level narrows every band and the title names it."""
    def band_widths(fig):
        return np.concatenate([np.ravel(np.diff(collection.get_paths()[0].vertices[:, 1]))
                               for ax in fig.axes for collection in ax.collections])

    wide, narrow = fig5_1(rounds, confidence_level=0.99), fig5_1(rounds, confidence_level=0.5)
    assert "99 % Student-t interval" in wide._suptitle.get_text()
    assert "50 % Student-t interval" in narrow._suptitle.get_text()
    assert np.abs(band_widths(wide)).sum() > np.abs(band_widths(narrow)).sum()

"""The claims of the report, each a hypothesis with a band, judged by an interval.

**The band rule.** Every numeric claim is a statement about a quantity ``theta`` and has an
open band, fixed from the report's words and precision before anything is measured:

1. A number the report states is read at its precision ``u``: ``v`` gives ``(v - u, v + u)``
   and a range "``a`` à ``b``" gives ``(a - u, b + u)``.
2. ``u`` of a count (iterations, rounds) is one unit of the last digit written: "4
   itérations" is 4 +/- 1 round, "une vingtaine" and "environ 30" are +/- 10 iterations.
   ``u`` of a kernel count on the report's doubling grid is one grid step (8: 4 to 16,
   excluded). ``u`` of a rate read from a figure is the larger of the reading precision, one
   percentage point, and one example of the set the report measured it on when it gives
   that set's size (its 36 labelled examples: 2.8 points; about 100 unlabelled examples or
   100 DNA test sequences: 1 point; 300 test sequences: 1/3 point).
3. A claim that something happens or differs ("grows", "lower", "slower", "migrate") is a
   direction: ``(0, inf)`` or ``(-inf, 0)`` on the paired difference, so a measured 0 never
   holds. "Equal" and "equivalent" claims are ``(-u, u)`` on the paired difference, "at
   most" claims ``(-inf, u)``, ``u`` by rule 2; "pas de grandes améliorations" is a gain
   below 1 point, the gap (4 % against 5 %) the report calls slight. "Souvent" (often) is a
   share above one half.

**The verdict** (:mod:`mixlib.analysis.verdicts`): ``holds`` when the ``1 - alpha``
interval of ``theta`` (``significance_level`` = :data:`~mixlib.core.statistics.STUDY_SIGNIFICANCE_LEVEL`) lies inside
the band, ``contradicted`` when it lies entirely outside, ``inconclusive`` otherwise: two
one-sided tests at ``alpha / 2``. The interval is the Student-t interval over repeats, the
corrected interval over cross-validation folds, the t-interval of the paired differences for a
comparison, the order-statistic interval of a median, the Nemenyi interval of a rank gap, or a
seeded bootstrap for a kernel count. A claim over every kernel count holds when it holds at
each (intervals at ``alpha / m`` over the ``m`` counts) and is contradicted when it is
contradicted at one; its row shows the deciding count's interval. A test that gives p-values
instead decides by them (``p_holds``, ``p_contradicted``). Each row's verdict follows from its
own columns (:func:`~mixlib.analysis.verdicts.row_verdict`).

**Kinds.** ``absolute`` claims state a number of the report's own problem (5 %, 4
iterations, 20 % on DNA); they are tested only on the splits or data sets that stand for it
(the config's ``claims.report_problems``, per chapter). ``qualitative`` claims (directions,
shapes, equality) are tested on every split and data set, and so are the rows marked ``beyond
the report``: questions the report's words suggest but do not state. This module holds the catalogue,
:data:`CLAIMS`; :mod:`mixlib.analysis.claims_table` evaluates every claim whose table the
run produced, under the run's own reading and under every reading of the sensitivity grid
(:mod:`mixlib.experiments.semisupervised_readings`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from mixlib.analysis import claims_comparison as ch6
from mixlib.analysis import claims_em as em
from mixlib.analysis import claims_measures as m

ABSOLUTE, QUALITATIVE, BEYOND = "absolute", "qualitative", "beyond the report"

POINT = 0.01                   # a percentage point: the reading precision of a figure
ONE_LABELLED = 1 / 36          # one of the report's 36 labelled bacteria
ONE_UNLABELLED = 1 / 100       # one of its "centaine" of unlabelled bacteria


@dataclass(frozen=True)
class Band:
    """An open band ``(low, high)`` and the rule that gives it from the report's words.

    ``report_low`` and ``report_high`` are the value (or range) the report states, before its
    precision widens it: the single run of the report that the prediction interval of one run
    is read against (NaN for a direction).
    """

    low: float
    high: float
    rule: str
    report_low: float = math.nan
    report_high: float = math.nan


def about(value: float, example: float, words: str) -> Band:
    """Rule 1-2 for a rate: ``value`` +/- max(1 point, one example of the report's set)."""
    u = max(POINT, example)
    return Band(value - u, value + u, f"{words} +/- {100 * u:.2g} points (max of 1 point and one example)",
                value, value)


def counted(low: float, high: float, unit: float, words: str) -> Band:
    """Rule 1-2 for a count: the range ``[low, high]`` widened by one unit of the last digit."""
    return Band(low - unit, high + unit, f"{words} +/- {unit:g}", low, high)


HIGHER = Band(0.0, math.inf, "a direction: above 0")
LOWER = Band(-math.inf, 0.0, "a direction: below 0")


@dataclass(frozen=True)
class Claim:
    """One statement of the report, its band and how it is measured.

    Attributes
    ----------
    id, chapter, figure, statement : str
        A stable identifier, the report's chapter (``"3"`` to ``"6"``) and figure, and the
        report's words (in English) with what is measured.
    kind : {"absolute", "qualitative"}
    band : Band
    table : str or tuple of str
        The pipeline table(s) measured; with several, ``measure`` receives a dict.
    measure : callable
        ``measure(rows, context) -> Evidence | None`` (:mod:`~mixlib.analysis.claims_measures`).
    unit : str or None
        The column whose values are measured apart (``split`` or ``dataset``; None: the
        table as a whole, e.g. ranks across data sets).
    readings : tuple of str
        The setting columns the claim depends on; one row per combination of their values.
    """

    id: str
    chapter: str
    figure: str
    kind: str
    statement: str
    band: Band
    table: str | tuple[str, ...]
    measure: Callable
    unit: str | None = "split"
    readings: tuple[str, ...] = ()

    @property
    def tables(self) -> tuple[str, ...]:
        return (self.table,) if isinstance(self.table, str) else self.table


ITERATIVE = ("finish", "threshold")
PRIOR = ("restart", "threshold")
BOTH = ("restart", "finish", "threshold")
RULE = ("unclassifiable",)
SWEEP_HIGH = 32  # the report's large kernel count (fig. 5.4)


def _claim(id, chapter, figure, kind, statement, band, table, measure, unit="split", readings=()):
    return Claim(id, chapter, figure, kind, statement, band, table, measure, unit, readings)


CLAIMS: list[Claim] = [
    _claim("em_iterations", "3", "fig3_3", ABSOLUTE,
           "EM reaches a maximum in 'une vingtaine d'itérations': median over class fits of the "
           "EM iterations at the run's tolerance (em_tol; the readings add 1e-3, read off the trace).", counted(20, 20, 10, "'une vingtaine' (20)"), "em_trace", em.median_em_iterations),
    _claim("em_global_maximum", "3", "fig3_3", QUALITATIVE,
           "The maximum EM reaches is 'souvent global': share of class fits without a collapsed "
           "kernel whose maximum is the best such maximum found over their random restarts (the "
           "share of collapsed fits is in the detail).",
           Band(0.5, math.inf, "'souvent' (often): more than half"), "em_trace", em.em_global_share),
    _claim("kernel_map_iterations", "3", "fig3_4", ABSOLUTE,
           "With 4 kernels per class and 36 labelled examples, EM runs 'environ 30 itérations': "
           "median over the class fits of fig. 3.3, which have fig. 3.4's settings on every repeat.",
           counted(30, 30, 10, "'environ 30'"), "em_trace", em.median_em_iterations),
    _claim("kernel_mode_beats_mean_imputation", "4", "imputation", QUALITATIVE,
           "Kernel-mode imputation (per class) fills values closer to the truth than the mean: "
           "kernel-mode minus mean absolute error on values hidden at random in training rows.",
           LOWER, "imputation_study", m.kernel_mode_minus_mean_mae, unit="dataset"),
    _claim("iterative_hard_error", "5", "fig5_1", ABSOLUTE,
           "Iterative classification: the hard error settles at 5 %.",
           about(0.05, ONE_LABELLED, "5 %"), "semisupervised_rounds",
           m.final_value("iterative", "hard_error"), readings=ITERATIVE + RULE),
    _claim("iterative_unknown_error", "5", "fig5_1", ABSOLUTE,
           "Iterative classification: the unknown error settles at 3 %.",
           about(0.03, ONE_LABELLED, "3 %"), "semisupervised_rounds",
           m.final_value("iterative", "unknown_error"), readings=ITERATIVE + RULE),
    _claim("iterative_unknown", "5", "fig5_1", QUALITATIVE,
           "Iterative classification: the unknown share falls to 0 %: share of the unlabelled "
           "examples the confidence margin never assigns (a forced argmax round does not count).",
           Band(-ONE_UNLABELLED, ONE_UNLABELLED, "0 % +/- one of about 100 unlabelled examples"),
           "semisupervised_rounds", m.final_value("iterative", "unassigned_by_margin"), readings=ITERATIVE),
    _claim("iterative_rounds", "5", "fig5_1", ABSOLUTE,
           "Iterative classification settles 'après 2 à 3 itérations': rounds after the "
           "labelled-only start, counted until the three rates settle (our reading; the reading "
           "rounds_counted=every round run counts the forced argmax round too).",
           counted(2, 3, 1, "'2 à 3'"), "semisupervised_rounds", m.iterative_rounds, readings=ITERATIVE),
    _claim("iterative_no_large_test_gain", "5", "fig5_1", QUALITATIVE,
           "The iterative method 'n'apporte pas forcément de grandes améliorations' in "
           "generalisation: test error of the labelled-only start minus the final test error.",
           Band(-math.inf, POINT, "a gain below 1 point, the gap the report calls slight (4 % vs 5 %)"),
           "semisupervised_rounds", m.change_from_round_0("iterative", "test_error", sign=-1.0),
           readings=ITERATIVE + RULE),
    _claim("prior_rounds", "5", "fig5_3", ABSOLUTE,
           "The prior-probability method needs 'quatre itérations' to reach constant rates.",
           counted(4, 4, 1, "'quatre'"), "semisupervised_rounds", m.final_value("prior", "n_rounds"),
           readings=PRIOR),
    _claim("prior_more_rounds", "5", "fig5_3", QUALITATIVE,
           "The prior method 'converge légèrement plus lentement' than the iterative one: rounds "
           "of the prior method minus rounds of the iterative one, paired by repeat.",
           HIGHER, "semisupervised_rounds", m.final_gap("n_rounds", "prior", "iterative"), readings=BOTH),
    _claim("prior_hard_error", "5", "fig5_3", ABSOLUTE,
           "The prior method's hard error settles at 4 %.", about(0.04, ONE_LABELLED, "4 %"),
           "semisupervised_rounds", m.final_value("prior", "hard_error"), readings=PRIOR + RULE),
    _claim("prior_vs_iterative_hard_error", "5", "fig5_3", QUALITATIVE,
           "The prior method's hard error is 'légèrement inférieur' to the iterative one's: "
           "prior minus iterative final hard error, paired by repeat.",
           LOWER, "semisupervised_rounds", m.final_gap("hard_error", "prior", "iterative"),
           readings=BOTH + RULE),
    _claim("prior_early_flips", "5", "fig5_3", ABSOLUTE,
           "'Durant les 3 premières itérations environ 2 % des données changent de classe': "
           "mean share of unlabelled examples flipping in rounds 1-3.",
           about(0.02, ONE_UNLABELLED, "2 %"), "semisupervised_rounds", m.early_flips, readings=PRIOR),
    _claim("prior_late_flips", "5", "fig5_3", ABSOLUTE,
           "'À partir de la quatrième itération, les migrations cessent': share of unlabelled "
           "examples flipping in rounds 4 and later, summed.",
           Band(-ONE_UNLABELLED, ONE_UNLABELLED, "0 +/- one of about 100 unlabelled examples", 0.0, 0.0),
           "semisupervised_rounds", m.late_flips, readings=PRIOR),
    _claim("prior_unknown_error", "5", "fig5_3", ABSOLUTE,
           "The prior method's unknown error grows to 3 %.", about(0.03, ONE_LABELLED, "3 %"),
           "semisupervised_rounds", m.final_value("prior", "unknown_error"), readings=PRIOR + RULE),
    _claim("prior_unknown_error_grows", "5", "fig5_3", QUALITATIVE,
           "The prior method's unknown error grows ('croissance ... de 0 à 3 %'): final minus "
           "round-0 unknown error, paired by repeat.",
           HIGHER, "semisupervised_rounds", m.change_from_round_0("prior", "unknown_error"),
           readings=PRIOR + RULE),
    _claim("migrants_near_boundary", "5", "fig5_3", QUALITATIVE,
           "The examples that migrate 'sont essentiellement situées sur les zones frontières': "
           "posterior margin (top minus runner-up, final model) of migrants minus that of the others.",
           LOWER, "semisupervised_rounds", m.migrants_margin_gap, readings=PRIOR),
    _claim("sweep_best_kernels", "5", "fig5_4", ABSOLUTE,
           "'Avec 8 kernels le taux d'erreur d'apprentissage est minimal': kernel count of the "
           "lowest training error, both methods averaged.",
           Band(4, 16, "8 +/- one step of the report's doubling grid", 8, 8), "kernel_sweep",
           m.argmin_training_error, readings=BOTH + RULE),
    _claim("sweep_equal_at_8", "5", "fig5_4", QUALITATIVE,
           "At 8 kernels the training errors of the two methods are 'égal': iterative minus prior, "
           "paired by repeat.", Band(-ONE_LABELLED, ONE_LABELLED, "equal within one of 36 labelled examples"),
           "kernel_sweep", m.sweep_gap_at("train_error", 8), readings=BOTH + RULE),
    _claim("sweep_prior_not_above_iterative", "5", "fig5_4", QUALITATIVE,
           "Prior probabilities give 'des résultats d'apprentissage légèrement supérieurs': prior "
           "minus iterative training error at every kernel count, paired by repeat.",
           Band(-math.inf, ONE_LABELLED, "at most one of 36 labelled examples above"), "kernel_sweep",
           m.sweep_gap_every_count("train_error", "prior", "iterative"), readings=BOTH + RULE),
    _claim("sweep_iterative_32", "5", "fig5_4", ABSOLUTE,
           "At 32 kernels the iterative method's training error is 'avoisinant les 18 %'.",
           about(0.18, ONE_LABELLED, "18 %"), "kernel_sweep",
           m.sweep_value("iterative", "train_error", SWEEP_HIGH), readings=ITERATIVE + RULE),
    _claim("sweep_prior_32", "5", "fig5_4", ABSOLUTE,
           "At 32 kernels the prior method's training error 'plafonne à 6 %'.",
           about(0.06, ONE_LABELLED, "6 %"), "kernel_sweep",
           m.sweep_value("prior", "train_error", SWEEP_HIGH), readings=PRIOR + RULE),
    _claim("sweep_test_equivalent", "5", "fig5_5", QUALITATIVE,
           "'Au niveau des performances de généralisation, les deux méthodes sont équivalentes': "
           "iterative minus prior test error at every kernel count, paired by repeat.",
           Band(-POINT, POINT, "equivalent within 1 point (the report gives no test set size)"),
           "kernel_sweep", m.sweep_gap_every_count("test_error", "iterative", "prior"),
           readings=BOTH + RULE),
    _claim("dna_mixture_error", "6", "fig6_1", ABSOLUTE,
           "The mixture classifier's mean test error on DNA is 20 % (mean over kernel counts).",
           about(0.20, 1 / 100, "20 %"), "dna_kernel_sweep", ch6.dna_mean_test_error, readings=("encoding",)),
    _claim("mlp_mean_test_error", "6", "fig6_2", ABSOLUTE,
           "The MLP's mean test error on DNA is 8.5 % (mean over regimes and hidden sizes), on each "
           "coding (ordinal: our reading; one-hot: the alternative).",
           about(0.085, 1 / 300, "8.5 %"), "mlp_sweep", ch6.mlp_mean_test_error, readings=("encoding",)),
    _claim("dna_mixture_worse_than_mlp", "6", "fig6_1 vs fig6_2", QUALITATIVE,
           "On DNA the mixture generalises 'nettement' worse than the MLP (20 % vs 8.5 %): mixture "
           "mean test error minus the MLP's, both on the same coding (ch6.paired_by_coding).", HIGHER, ("dna_kernel_sweep", "mlp_sweep"),
           ch6.mixture_minus_mlp_test_error, readings=("encoding",)),
    _claim("mixture_vs_mlp_fit_cpu_seconds", "6", "conclusion", QUALITATIVE,
           "The mixture's 'temps calcul' to build the classifier is 'passablement court': mean CPU "
           "time of the DNA mixtures' fits over the MLPs' on the same coding (a measurement of "
           "this machine; the interval widened by claims.timing_tolerance, as far apart as the same "
           "fits' CPU times come out in different jobs).",
           Band(-math.inf, 1.0, "faster: a ratio below 1"), ("dna_kernel_sweep", "mlp_sweep"),
           ch6.mixture_over_mlp_fit_cpu_seconds, readings=("encoding",)),
    _claim("mixture_accuracy", "5", "conclusion", ABSOLUTE,
           "The mixture is '60 %, 70 %' correct on 'les différents problèmes de test', the bacteria "
           "among them: accuracy on the test rows of the mixture fit on the 36 labelled examples "
           "(round 0 of the iterative method, 4 kernels per class).",
           counted(0.60, 0.70, POINT, "'60 %, 70 %'"), "semisupervised_rounds", m.labelled_start_accuracy),
    _claim("mixture_accuracy_dna", "6", "conclusion", ABSOLUTE,
           "The mixture is '60 %, 70 %' correct on its test problems, DNA among them (the report's "
           "own fig. 6.1 gives 80 %): test accuracy of the DNA mixture, mean over kernel counts.",
           counted(0.60, 0.70, POINT, "'60 %, 70 %'"), "dna_kernel_sweep", ch6.dna_mean_accuracy,
           readings=("encoding",)),
    _claim("mixture_worse_than_mlp", "6", "ch6", QUALITATIVE,
           "The mixture generalises worse than the MLP: mixture minus MLP fold error on each "
           "cross-validated data set.", HIGHER, "comparison", ch6.mixture_minus_mlp_folds, unit="dataset"),
    _claim("mixture_worse_than_mlp_ranks", "6", "ch6", QUALITATIVE,
           "The mixture generalises worse than the MLP across data sets: mean rank of the mixture "
           "minus the MLP's.", HIGHER, "comparison_ranks", ch6.mixture_minus_mlp_rank, unit=None),
    _claim("probabilistic_worse", "6", "beyond the report", BEYOND,
           "Beyond the report (whose 'méthodes déterministes' is its MLP, the row "
           "mixture_worse_than_mlp): density models of the classes generalise worse than decision "
           "functions. Mean rank of the generative models minus the discriminant ones', models "
           "chosen by ch6.FAMILY_RULE.", HIGHER, "comparison_ranks",
           ch6.probabilistic_minus_deterministic_rank, unit=None),
]
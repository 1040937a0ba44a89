"""How the canonical file of each shipped suite data set is laid out, and where it is.

One :class:`FileLayout` per data set says which field of a line is which column, which fields
are not features (identifiers, split markers), which features are categorical, the delimiter
and the missing marker: enough for :func:`mixlib.datasets.parsers.parse_layout` to turn the
original file into the normalised raw table that the shipped copy holds (features in the
file's order, categorical ones as text, then ``class``). :data:`ORIGINS` gives the address of
each original file, for the ``url`` source. ``PROVENANCE.md`` (beside the shipped copies) says
where each copy came from and what was changed.
"""

from __future__ import annotations

from dataclasses import dataclass

UCI = "https://archive.ics.uci.edu/ml/machine-learning-databases"
"""The classic address of the UCI Machine Learning Repository's files."""


@dataclass(frozen=True)
class FileLayout:
    """The layout of a delimited data file with one example per line.

    Attributes
    ----------
    columns : tuple of str
        A name for every field of a line, in order (the class field included).
    class_column : str
        The field holding the class label.
    ignored : tuple of str
        Fields that are not features (identifiers, train/test markers): left out.
    categorical : tuple of str
        Features whose values are categories (kept as text, encoded by the ``prepare`` stage).
    delimiter : str or None
        Field separator; ``None`` splits on runs of white space.
    missing : tuple of str
        Cells that mark a missing value.
    header : bool
        Whether the first non-blank line names the fields (it is skipped).
    """

    columns: tuple[str, ...]
    class_column: str
    ignored: tuple[str, ...] = ()
    categorical: tuple[str, ...] = ()
    delimiter: str | None = ","
    missing: tuple[str, ...] = ("?",)
    header: bool = False

    @property
    def features(self) -> tuple[str, ...]:
        """The feature columns, in file order."""
        dropped = {self.class_column, *self.ignored}
        return tuple(column for column in self.columns if column not in dropped)


@dataclass(frozen=True)
class Origin:
    """Where the original of a shipped data set can be downloaded.

    ``urls`` are read in order and their lines joined (UCI splits some data sets into a
    training and a test file); ``sha256`` holds the digest of each file when it was verified,
    else ``None``: then the user gives it (``datasets.<name>.sha256``).
    """

    urls: tuple[str, ...]
    format: str
    sha256: tuple[str, ...] | None = None


def _numbered(prefix: str, n: int, width: int = 2) -> tuple[str, ...]:
    return tuple(f"{prefix}{j:0{width}d}" for j in range(1, n + 1))


WDBC_MEASURES = ("radius", "texture", "perimeter", "area", "smoothness", "compactness",
                 "concavity", "concave_points", "symmetry", "fractal_dimension")
WDBC = (*(f"mean_{m}" for m in WDBC_MEASURES), *(f"{m}_error" for m in WDBC_MEASURES),
        *(f"worst_{m}" for m in WDBC_MEASURES))
GLASS = ("RI", "Na", "Mg", "Al", "Si", "K", "Ca", "Ba", "Fe")
VEHICLE = ("compactness", "circularity", "distance_circularity", "radius_ratio",
           "pr_axis_aspect_ratio", "max_length_aspect_ratio", "scatter_ratio", "elongatedness",
           "pr_axis_rectangularity", "max_length_rectangularity",
           "scaled_variance_major_axis", "scaled_variance_minor_axis",
           "scaled_radius_of_gyration", "skewness_major_axis", "skewness_minor_axis",
           "kurtosis_minor_axis", "kurtosis_major_axis", "hollows_ratio")
VOTES = ("handicapped_infants", "water_project_cost_sharing",
         "adoption_of_the_budget_resolution", "physician_fee_freeze", "el_salvador_aid",
         "religious_groups_in_schools", "anti_satellite_test_ban", "aid_to_nicaraguan_contras",
         "mx_missile", "immigration", "synfuels_corporation_cutback", "education_spending",
         "superfund_right_to_sue", "crime", "duty_free_exports",
         "export_administration_act_south_africa")
SOYBEAN = ("date", "plant_stand", "precip", "temp", "hail", "crop_hist", "area_damaged",
           "severity", "seed_tmt", "germination", "plant_growth", "leaves", "leafspots_halo",
           "leafspots_marg", "leafspot_size", "leaf_shread", "leaf_malf", "leaf_mild", "stem",
           "lodging", "stem_cankers", "canker_lesion", "fruiting_bodies", "external_decay",
           "mycelium", "int_discolor", "sclerotia", "fruit_pods", "fruit_spots", "seed",
           "mold_growth", "seed_discolor", "seed_size", "shriveling", "roots")
WISCONSIN = ("clump_thickness", "uniformity_of_cell_size", "uniformity_of_cell_shape",
             "marginal_adhesion", "single_epithelial_cell_size", "bare_nuclei",
             "bland_chromatin", "normal_nucleoli", "mitoses")
LETTER = ("x_box", "y_box", "width", "high", "onpix", "x_bar", "y_bar", "x2bar", "y2bar",
          "xybar", "x2ybr", "xy2br", "x_ege", "xegvy", "y_ege", "yegvx")
SATELLITE = tuple(f"p{pixel}_b{band}" for pixel in range(1, 10) for band in range(1, 5))
ZOO = ("hair", "feathers", "eggs", "milk", "airborne", "aquatic", "predator", "toothed",
       "backbone", "breathes", "venomous", "fins", "legs", "tail", "domestic", "catsize")
SPAM_WORDS = ("make", "address", "all", "3d", "our", "over", "remove", "internet", "order",
              "mail", "receive", "will", "people", "report", "addresses", "free", "business",
              "email", "you", "credit", "your", "font", "000", "money", "hp", "hpl", "george",
              "650", "lab", "labs", "telnet", "857", "data", "415", "85", "technology", "1999",
              "parts", "pm", "direct", "cs", "meeting", "original", "project", "re", "edu",
              "table", "conference")
SPAMBASE = (tuple(f"word_freq_{word}" for word in SPAM_WORDS)
            + tuple(f"char_freq_{char}" for char in ("semicolon", "parenthesis", "bracket",
                                                     "exclamation", "dollar", "hash"))
            + ("capital_run_length_average", "capital_run_length_longest",
               "capital_run_length_total"))
VOWEL = ("sex", *(f"f{j}" for j in range(10)))
GERMAN = ("checking_status", "duration", "credit_history", "purpose", "credit_amount",
          "savings", "employment_since", "installment_rate", "personal_status_sex",
          "other_debtors", "residence_since", "property", "age", "other_installment_plans",
          "housing", "existing_credits", "job", "people_liable", "telephone",
          "foreign_worker")
GERMAN_CATEGORICAL = ("checking_status", "credit_history", "purpose", "savings",
                      "employment_since", "personal_status_sex", "other_debtors", "property",
                      "other_installment_plans", "housing", "job", "telephone",
                      "foreign_worker")
KR_VS_KP = ("bkblk", "bknwy", "bkon8", "bkona", "bkspr", "bkxbq", "bkxcr", "bkxwp", "blxwp",
            "bxqsq", "cntxt", "dsopp", "dwipd", "hdchk", "katri", "mulch", "qxmsq", "r2ar8",
            "reskd", "reskr", "rimmx", "rkxwp", "rxmsq", "simpl", "skach", "skewr", "skrxp",
            "spcop", "stlmt", "thrsk", "wkcti", "wkna8", "wknck", "wkovl", "wkpos", "wtoeg")
PENGUINS = ("island", "bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g",
            "sex")

LAYOUTS: dict[str, FileLayout] = {
    "iris": FileLayout(("sepal_length", "sepal_width", "petal_length", "petal_width", "class"),
                       "class"),
    "breast_cancer_wdbc": FileLayout(("id", "diagnosis", *WDBC), "diagnosis", ignored=("id",)),
    "optdigits": FileLayout((*(f"pixel_{i}_{j}" for i in range(8) for j in range(8)), "class"),
                            "class"),
    "glass": FileLayout(("id", *GLASS, "type"), "type", ignored=("id",)),
    "ionosphere": FileLayout((*_numbered("a", 34), "class"), "class"),
    "sonar": FileLayout((*_numbered("band_", 60), "class"), "class"),
    "vehicle": FileLayout((*VEHICLE, "class"), "class", delimiter=None),
    "house_votes": FileLayout(("party", *VOTES), "party", categorical=VOTES),
    "soybean": FileLayout(("class", *SOYBEAN), "class", categorical=SOYBEAN),
    "breast_cancer_wisconsin": FileLayout(("sample_code_number", *WISCONSIN, "class"), "class",
                                          ignored=("sample_code_number",)),
    "letter": FileLayout(("lettr", *LETTER), "lettr"),
    "satellite": FileLayout((*SATELLITE, "class"), "class", delimiter=None),
    "zoo": FileLayout(("animal_name", *ZOO, "type"), "type", ignored=("animal_name",)),
    "spambase": FileLayout((*SPAMBASE, "spam"), "spam"),
    "vowel": FileLayout(("train_or_test", "speaker", *VOWEL, "class"), "class",
                        ignored=("train_or_test", "speaker"), delimiter=None),
    "german_credit": FileLayout((*GERMAN, "class"), "class", categorical=GERMAN_CATEGORICAL,
                                delimiter=None),
    "kr_vs_kp": FileLayout((*KR_VS_KP, "class"), "class", categorical=KR_VS_KP),
    "penguins": FileLayout(("species", *PENGUINS, "year"), "species", ignored=("year",),
                           categorical=("island", "sex"), missing=("NA",), header=True),
}
"""The layout of each suite data set's original file, by data set name."""

ORIGINS: dict[str, Origin] = {name: Origin(urls, name) for name, urls in {
    "iris": (f"{UCI}/iris/bezdekIris.data",),
    "breast_cancer_wdbc": (f"{UCI}/breast-cancer-wisconsin/wdbc.data",),
    "optdigits": (f"{UCI}/optdigits/optdigits.tes",),
    "glass": (f"{UCI}/glass/glass.data",),
    "ionosphere": (f"{UCI}/ionosphere/ionosphere.data",),
    "sonar": (f"{UCI}/undocumented/connectionist-bench/sonar/sonar.all-data",),
    "vehicle": tuple(f"{UCI}/statlog/vehicle/xa{part}.dat" for part in "abcdefghi"),
    "house_votes": (f"{UCI}/voting-records/house-votes-84.data",),
    "soybean": (f"{UCI}/soybean/soybean-large.data", f"{UCI}/soybean/soybean-large.test"),
    "breast_cancer_wisconsin": (f"{UCI}/breast-cancer-wisconsin/breast-cancer-wisconsin.data",),
    "letter": (f"{UCI}/letter-recognition/letter-recognition.data",),
    "satellite": (f"{UCI}/statlog/satimage/sat.trn", f"{UCI}/statlog/satimage/sat.tst"),
    "zoo": (f"{UCI}/zoo/zoo.data",),
    "spambase": (f"{UCI}/spambase/spambase.data",),
    "vowel": (f"{UCI}/undocumented/connectionist-bench/vowel/vowel-context.data",),
    "german_credit": (f"{UCI}/statlog/german/german.data",),
    "kr_vs_kp": (f"{UCI}/chess/king-rook-vs-king-pawn/kr-vs-kp.data",),
    "penguins": ("https://raw.githubusercontent.com/allisonhorst/palmerpenguins/main/inst/"
                 "extdata/penguins.csv",),
}.items()}
"""Where each suite data set's original file(s) can be downloaded (``source: url``)."""

"""How a figure is found: a rule names its drawing function by dotted path for the one figure
script; figures read tables only."""

import ast
import re
from pathlib import Path

import pytest

from tests.test_architecture import DYNAMIC_IMPORT

ROOT = Path(__file__).resolve().parents[1]
FIGURES = ROOT / "mixlib" / "figures"
SCRIPT = ROOT / "workflow" / "scripts" / "figure.py"
RULES = ROOT / "workflow" / "rules"
#: What a figure module may import from mixlib: the figures package itself, core's statistics
#: and the tables' vocabulary.
ALLOWED = ("mixlib.figures", "mixlib.core.statistics", "mixlib.core.vocabulary")


def _imports(path: Path) -> list[str]:
    names = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.append(node.module)
    return names


@pytest.mark.parametrize("module", sorted(FIGURES.glob("*.py")), ids=lambda path: path.name)
def test_figure_modules_import_no_experiment_or_estimator(module):
    own = [name for name in _imports(module) if name.startswith("mixlib")]
    assert [name for name in own if not name.startswith(ALLOWED)] == []


def test_no_importlib_in_the_figure_path():
    files = [*FIGURES.glob("*.py"), *(ROOT / "mixlib" / "pipeline").glob("*.py"), *(ROOT / "workflow").rglob("*.py"),
             *(ROOT / "workflow").rglob("*.smk"), ROOT / "Snakefile"]
    assert [str(path) for path in files if re.search(DYNAMIC_IMPORT, path.read_text())] == []


def _figure_rules() -> dict[str, list[str]]:
    """Dotted path of the drawing function a rule's ``params: figure`` names -> names of the
    rules that draw it (each must give its module to its code fingerprint)."""
    found: dict[str, list[str]] = {}
    for rules in sorted(RULES.glob("*.smk")):
        for name, body in re.findall(r"^rule (\w+):\n((?:(?: {4}.*)?\n)+)", rules.read_text(), flags=re.MULTILINE):
            if '"../scripts/figure.py"' in body:
                drawn = re.findall(r'^ {8}figure="(mixlib\.figures\.\w+)\.(\w+)",$', body, flags=re.MULTILINE)
                assert len(drawn) == 1, f"rule {name} runs the figure script without one params: figure"
                module, function = drawn[0]
                assert f'code=fingerprint_of("figure.py", "{module}"),' in body, \
                    f"rule {name}: its code fingerprint must name {module}, the module its script imports"
                found.setdefault(f"{module}.{function}", []).append(name)
    return found


FIGURE_FUNCTIONS = sorted(_figure_rules())


def _drawing(path: str):
    module, _, name = path.rpartition(".")
    return getattr(__import__(module, fromlist=[name]), name)


def test_the_figure_script_imports_the_function_its_rule_names():
    text = SCRIPT.read_text()
    assert "snakemake.params.figure.rpartition" in text and "__import__(module, fromlist=[name])" in text


@pytest.mark.parametrize("path", FIGURE_FUNCTIONS)
def test_each_figure_rule_names_a_figure_module_s_function_and_draws_it_once(path):
    drawn = _drawing(path)
    assert callable(drawn) and f"{drawn.__module__}.{drawn.__name__}" == path
    assert len(_figure_rules()[path]) == 1, f"{path} is drawn by several rules"


def test_the_figure_job_fingerprint_covers_the_drawing_module():
    from mixlib.pipeline.fingerprint import PACKAGE_DIR, job_files

    files = job_files(SCRIPT, None, ("mixlib.figures.kernel_sweep",))
    assert PACKAGE_DIR / "figures" / "kernel_sweep.py" in files
    assert PACKAGE_DIR / "figures" / "fig3_3.py" not in files


def test_every_caption_with_an_interval_states_its_level():
    captions = [path for path in (ROOT / "workflow" / "report").glob("*.rst") if path.name != "workflow.rst"]
    assert len(captions) > 10
    for caption in sorted(captions):  # workflow.rst is the report's front page, not a caption
        text = " ".join(caption.read_text().split())
        for mention in re.finditer(r"Student-t interval", text):
            before = text[max(0, mention.start() - 12):mention.start()]
            assert re.search(r"(\d+|\}\}) % $", before), f"{caption.name}: {text[:mention.end()][-60:]!r}"


@pytest.mark.parametrize("config_file, rule_files", [("config.yaml", "*.smk"),
                                                     ("suite.yaml", "comparison.smk")])
def test_every_config_key_a_caption_reads_is_in_the_config(config_file, rule_files):
    """A caption renders ``snakemake.config[...]`` when the report is built: a key renamed in
    the config but not in the caption fails only then, after the whole run. The suite runs the
    comparison's rules only, so only their captions are rendered for it."""
    import yaml
    from snakemake.utils import validate

    config = yaml.safe_load((ROOT / "config" / config_file).read_text())
    validate(config, str(ROOT / "workflow" / "schemas" / "config.schema.yaml"))  # its defaults
    captions = {RULES / caption for rules in RULES.glob(rule_files)
                for caption in re.findall(r'caption="([^"]+)"', rules.read_text())}
    assert captions
    missing = []
    for caption in sorted(path.resolve() for path in captions):
        for lookup in re.finditer(r'snakemake\.config((?:\["[^"]+"\])+)', caption.read_text()):
            value = config
            for key in re.findall(r'\["([^"]+)"\]', lookup.group(1)):
                value = value.get(key) if isinstance(value, dict) else None
            if value is None:
                missing.append(f"{caption.name}: {lookup.group(0)}")
    assert missing == []


def _rule_bodies() -> dict[str, str]:
    """Rule name -> its text, over every rule file."""
    return {name: body for rules in sorted(RULES.glob("*.smk"))
            for name, body in re.findall(r"^rule (\w+):\n((?:(?: {4}.*)?\n)+)", rules.read_text(),
                                         flags=re.MULTILINE)}


@pytest.mark.parametrize("path", FIGURE_FUNCTIONS)
def test_a_figure_with_intervals_takes_its_level_from_the_config(path):
    """A figure function that draws a Student-t interval takes ``confidence_level``, and its rule
    passes the config's ``figures.confidence_level``: no figure has a level of its own."""
    import inspect

    function = _drawing(path)
    source = inspect.getsource(inspect.getmodule(function))
    if "mean_t_interval" not in source:
        return
    assert "confidence_level" in inspect.signature(function).parameters, function.__name__
    (rule,) = _figure_rules()[path]
    assert 'confidence_level=FIGURES["confidence_level"]' in _rule_bodies()[rule], rule


def test_no_figure_module_holds_an_interval_level():
    """The figures package defines no level (no ``ALPHA``) and no figure imports the claims' level."""
    import mixlib.figures

    assert not hasattr(mixlib.figures, "ALPHA") and not hasattr(mixlib.figures, "INTERVAL")
    assert [path.name for path in sorted(FIGURES.glob("*.py")) if "STUDY_SIGNIFICANCE_LEVEL" in path.read_text()] == []


def test_captions_state_the_configured_level():
    """A caption's interval level is the config's, not a number written in the caption."""
    captions = sorted((ROOT / "workflow" / "report").glob("*.rst"))
    written = [path.name for path in captions if path.name != "workflow.rst"
               and re.search(r"\d+ % Student-t", " ".join(path.read_text().split()))]
    assert written == []

"""Trial 23 P-1: which exceptions and evidence skips say the judge's extras are missing (`core.judge_extras`),
and how `classify` files them: ``extras_missing`` (the verifier's install), never the content-caused
``code_error`` — while a genuine failure of a method stays ``code_error``."""

from __future__ import annotations

import re
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: the dev extra installs tomli
    import tomli as tomllib  # type: ignore[no-redef]

from cowork_judge.core.classify import classify
from cowork_judge.core.consequences import consequence
from cowork_judge.core.judge_extras import EXTRAS_MODULES, missing_extras_module, names_missing_extras

PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
IMPORT_NAMES = {"python-pptx": {"pptx"}, "lxml": {"lxml"}, "pymupdf": {"pymupdf", "fitz"},
                "playwright": {"playwright"}, "pillow": {"PIL"}}
"""Distribution → its import names (the one fact pyproject cannot say)."""


def test_the_modules_are_those_of_the_deck_extras_in_pyproject():
    extras = tomllib.loads(PYPROJECT.read_text())["project"]["optional-dependencies"]
    dists = {re.split(r"[<>=\[ ;]", req, maxsplit=1)[0].lower() for name in ("pptx", "workflow") for req in extras[name]}
    assert dists <= set(IMPORT_NAMES), f"a new distribution in the extras: name its import module in EXTRAS_MODULES: {dists}"
    assert EXTRAS_MODULES == frozenset().union(*(IMPORT_NAMES[d] for d in dists))


def test_an_import_error_of_an_extra_is_extras_missing_in_every_segment():
    for exc in (ModuleNotFoundError("No module named 'lxml'", name="lxml"),
                ImportError("cannot import name 'etree'", name="lxml.etree"),
                ModuleNotFoundError("import of pptx halted; None in sys.modules", name="pptx")):
        assert missing_extras_module(exc) is not None
        for segment in ("code", "workflow", "backend"):
            assert classify(exc, segment=segment) == "extras_missing"  # type: ignore[arg-type]
    try:  # raised while handling one: a method that wraps the import error
        try:
            raise ModuleNotFoundError("No module named 'fitz'", name="fitz")
        except ImportError as inner:
            raise RuntimeError("could not open the deck") from inner
    except RuntimeError as wrapped:
        assert classify(wrapped, segment="code") == "extras_missing"


def test_a_genuine_failure_stays_code_error():
    assert classify(ValueError("bad zip"), segment="code") == "code_error"
    assert classify(ModuleNotFoundError("No module named 'yaml'", name="yaml"), segment="code") == "code_error"
    assert classify(ImportError("no name"), segment="code") == "code_error"  # no module named: not the extras


def test_extras_missing_is_systemic_on_any_row_for_the_verifiers_install():
    c = consequence("extras_missing")
    assert c.env_fault and c.judge_side and not c.rubric_fault and c.systemic_exit_code == "judge:scorer_error"


def test_skip_reasons():
    assert names_missing_extras("missing module: No module named 'lxml'")
    assert names_missing_extras("python-pptx missing: No module named 'pptx'")
    assert names_missing_extras("ModuleNotFoundError: import of lxml halted; None in sys.modules")
    assert not names_missing_extras("BadZipFile: File is not a zip file")
    assert not names_missing_extras("ModuleNotFoundError: No module named 'yaml'")

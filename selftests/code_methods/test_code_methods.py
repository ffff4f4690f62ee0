"""Code methods: locate_deck + check_deck_openable over every real fixture deck, deck
location rules, and the generic methods."""

from __future__ import annotations

import io
import zipfile

import pytest
from testkit import deck, make_ctx

from cowork_judge.code_methods import CODE_METHODS
from cowork_judge.code_methods.deck_checks import EnvironmentMissing
from cowork_judge.core.rubric import normalize_rubric
from cowork_judge.engine.router import route

GATES = normalize_rubric(
    [
        {"id": "L", "description": "one deck", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
        {"id": "O", "description": "it opens", "weight": 1, "judge_method": "code", "code_method_name": "check_deck_openable",
         "depends_on": ["L"]},
    ]
).criteria

# deck → (openable, words the reason must contain)
EXPECTED = {
    "01__python-pptx__minimal.pptx": (True, "opens"),
    "02__python-pptx__no-slides.pptx": (True, "opens"),
    "05__python-pptx__shp-groupshape.pptx": (True, "opens"),
    "06__python-pptx__shp-shapes.pptx": (True, "opens"),
    "07__python-pptx__txt-font-typeface.pptx": (True, "opens"),
    "08__python-pptx__tbl-cell.pptx": (True, "opens"),
    "09__python-pptx__ph-populated-placeholders.pptx": (True, "opens"),
    "11__python-pptx__prs-notes.pptx": (True, "opens"),
    "12__python-pptx__txt-fit-text.pptx": (True, "opens"),
    "14__poi__SmartArt.pptx": (True, "opens"),
    "16__poi__with_japanese.pptx": (True, "opens"),
    "17__poi__sample_pptx_grouping_issues.pptx": (True, "opens"),
    "19__poi__missing-blip-fill.pptx": (True, "opens"),
    "21__poi__bar-chart.pptx": (True, "opens"),
    "23__poi__aascu.org_workarea_downloadasset.aspx_id=5864.pptx": (True, "opens"),
    "25__poi__clusterfuzz-testcase-minimized-POIXSLFFuzzer-6254434927378432.pptx": (False, "corrupt_zip"),
    "27__poi__testPPT.ppsx": (True, "slideshow"),
    "29__poi__44296.ppt": (True, "legacy binary PowerPoint 97-2003"),
    "30__Open-XML-SDK__Accent1sysClr.pptx": (True, "ISO-Strict"),
    "31__Open-XML-SDK__encrypted_pptx.pptx": (False, "encrypted"),
    "33__Open-XML-SDK__Presentation.potx": (True, "template"),
    "35__Open-XML-SDK__AllSlidesConverterSC.pptx": (True, "opens"),
    "38__docling__powerpoint_malformed_pictures.pptx": (True, "opens"),
    "39__docling__powerpoint_unrecognized_shape.pptx": (True, "opens"),
    "40__docling__pptx_chart.pptx": (True, "opens"),
    "41__unstructured__fake-power-point-malformed.pptx": (True, "opens"),
    "43__unstructured__eng_spa_mult.ppt": (True, "misleading file extension"),
    "44__markitdown__test.pptx": (True, "opens"),
    "45__PPTAgent__build_effective_agents.pptx": (True, "opens"),
}


def test_expected_table_covers_every_fixture_deck(fixtures_dir):
    on_disk = {p.name for p in (fixtures_dir / "decks").iterdir() if p.name != "SOURCES.md"}
    assert on_disk == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_deck_locate_and_open(fixtures_dir, tmp_path, name):
    openable, needle = EXPECTED[name]
    ctx = make_ctx(tmp_path, {name: (deck(name)).read_bytes()})
    v = route(GATES, ctx)
    assert v["L"].judged and v["L"].hit is True and name in v["L"].reason
    assert ctx.deck is not None and ctx.deck.rel == name and ctx.deck.kind == "pptx"
    assert "deck_rel" not in ctx.artifacts  # the located deck travels typed, as `deck`, not as string keys
    assert v["O"].judged, v["O"].reason
    assert v["O"].hit is openable, v["O"].reason
    assert needle in v["O"].reason


def test_legacy_ppt_is_a_method_parameter(tmp_path):
    rows = normalize_rubric([
        {"id": "L", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "locate_deck"},
        {"id": "O", "description": "x", "weight": 1, "judge_method": "code", "code_method_name": "check_pptx_openable",
         "code_method_params": {"accept_legacy_ppt": False}},
    ]).criteria
    v = route(rows, make_ctx(tmp_path, {"old.ppt": deck("29__poi__44296.ppt").read_bytes()}))
    assert v["O"].hit is False and "requires OOXML" in v["O"].reason


def _truncated(data: bytes) -> bytes:
    return data[: len(data) // 2]


def _bad_central_directory(data: bytes) -> bytes:
    return data.replace(b"PK\x01\x02", b"PK\x09\x09")


def _not_a_presentation(_data: bytes) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("[Content_Types].xml", '<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
                    '<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>')
        zf.writestr("word/document.xml", "<w:document/>")
    return buf.getvalue()


@pytest.mark.parametrize(
    "damage,needle",
    [(_truncated, "corrupt_zip"), (_bad_central_directory, "corrupt_zip"), (_not_a_presentation, "not_presentation"),
     (lambda d: b"Once upon a time, a deck.", "unknown_format")],
)
def test_broken_decks_made_from_a_real_one(tmp_path, damage, needle):
    data = damage(deck("45__PPTAgent__build_effective_agents.pptx").read_bytes())
    v = route(GATES, make_ctx(tmp_path, {"slides.pptx": data}))
    assert v["L"].hit is True
    assert v["O"].judged and v["O"].hit is False and needle in v["O"].reason


def test_pdf_and_html_decks(tmp_path):
    ctx = make_ctx(tmp_path, {"deck.html": "<html><body><section>One</section><section>Two</section></body></html>"})
    v = route(GATES, ctx)
    assert v["O"].hit is True and "parses as HTML" in v["O"].reason
    assert CODE_METHODS["page_count_between"](ctx.segment(), min_pages=2, max_pages=2)[0] is True


# --------------------------------------------------------------------------- locate_deck rules


def test_prefers_pptx_over_html_and_pdf(tmp_path):
    # a real pptx: a 1-byte "slides.pptx" is no document beside the real html and pdf decks (trial 14 F1)
    pptx = deck("01__python-pptx__minimal.pptx").read_bytes()
    ctx = make_ctx(tmp_path, {"index.html": "<html></html>", "slides.pptx": pptx, "notes.pdf": b"%PDF-1.4"})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit and art["deck_rel"] == "slides.pptx"
    hit, _, art = CODE_METHODS["locate_deck"](ctx.segment(), prefer=["html", "pdf"])
    assert hit and art["deck_rel"] == "index.html" and art["deck_kind"] == "html"


def test_a_powerpoint_format_in_prefer_is_read_as_its_family(tmp_path):
    """``"ppt"`` (or ``".PPTM"``) in ``prefer`` means the PowerPoint family: before the trial 25 follow-up it matched
    nothing (a deck's kind is its family), then it was refused; now ``["ppt"]`` locates a PowerPoint deck, and
    ``["pptx", "ppt"]`` is no refusal (a rubric that worked stays working)."""
    from cowork_judge.code_methods import param_errors

    pptx = deck("01__python-pptx__minimal.pptx").read_bytes()
    ctx = make_ctx(tmp_path, {"index.html": "<html></html>", "slides.pptx": pptx})
    for prefer in (["ppt"], [".PPTM", "html"], ["pptx", "ppt"]):
        hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment(), prefer=prefer)
        assert hit and art["deck_rel"] == "slides.pptx", (prefer, reason)
        assert param_errors(CODE_METHODS["locate_deck"], {"prefer": prefer}) == [], prefer
    assert param_errors(CODE_METHODS["locate_deck"], {"prefer": ["docx"]})


def test_a_non_document_named_pptx_does_not_outrank_a_real_html_deck(tmp_path):
    """Trial 14 F1: PowerPoint's owner file ``~$deck.pptx`` is no pptx deck beside a real deck of
    another kind either: the pptx preference does not take it, the html deck is located."""
    ctx = make_ctx(tmp_path, {"~$deck.pptx": b"\x0bJohn Smith" + b" " * 150,
                              "deck.html": "<html><body><section>One</section></body></html>"})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit and art["deck_rel"] == "deck.html" and art["deck_kind"] == "html", reason
    assert "~$deck.pptx set aside, not a second deck: no document by its content (161 bytes" in reason


def test_ambiguity_lists_candidates_unless_allowed_or_named(tmp_path):
    ctx = make_ctx(tmp_path, {"a.pptx": b"1", "b/b.pptx": b"2"})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert not hit and "ambiguous" in reason and "a.pptx" in reason and "b/b.pptx" in reason and art == {}
    assert CODE_METHODS["locate_deck"](ctx.segment(), allow_multiple=True)[2]["deck_rel"] == "a.pptx"
    assert CODE_METHODS["locate_deck"](ctx.segment(), expect_name="b.pptx")[2]["deck_rel"] == "b/b.pptx"
    hit, reason, _ = CODE_METHODS["locate_deck"](ctx.segment(), expect_name="slides.pptx", require_expect_name=True)
    assert not hit and "must be named 'slides.pptx'" in reason


def test_task_given_sources_are_not_the_deck(tmp_path):
    source = b"%PDF-1.4 the annual report the task gave the agent"
    ctx = make_ctx(tmp_path, {"report.pdf": source}, app_files={"input/report.pdf": source})
    hit, reason, _ = CODE_METHODS["locate_deck"](ctx.segment())
    assert not hit and "ignored task-given source" in reason
    ctx = make_ctx(tmp_path / "2", {"report.pdf": source, "deck.pdf": b"%PDF-1.4 my deck"}, app_files={"input/report.pdf": source})
    hit, _, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit and art["deck_rel"] == "deck.pdf"


def test_no_deck(tmp_path):
    hit, reason, art = CODE_METHODS["locate_deck"](make_ctx(tmp_path, {"notes.md": "# hi"}))
    assert not hit and "no deck" in reason and art == {}
    hit, reason, _ = CODE_METHODS["check_deck_openable"](make_ctx(tmp_path / "b", {"notes.md": "# hi"}).segment())
    assert not hit and "no deck was located" in reason and "no deck among the deliverables" in reason


# --------------------------------------------------------------------------- generic methods


def test_generic_methods(tmp_path):
    ctx = make_ctx(
        tmp_path,
        {"report.md": "# Revenue\nQ3 revenue grew 12% to $4.1M.\n", "data/table.json": '{"a": 1}', "bad.json": "{", "empty.txt": ""},
        final_message="Summary: revenue grew twelve percent in the third quarter.",
    )
    m = CODE_METHODS
    assert m["file_exists"](ctx.segment(), glob="*.md")[0] and not m["file_exists"](ctx.segment(), glob="*.pptx")[0]
    assert not m["file_exists"](ctx.segment(), glob="empty.txt")[0]  # empty files are not deliverables
    assert m["file_nonempty"](ctx.segment(), glob="report.md", min_bytes=10)[0] and not m["file_nonempty"](ctx.segment(), glob="report.md", min_bytes=10_000)[0]
    assert m["file_matches_glob"](ctx.segment(), glob="*.json", min_count=2, max_count=2)[0]
    assert not m["file_matches_glob"](ctx.segment(), glob="*.json", max_count=1)[0]
    assert m["json_valid"](ctx.segment(), glob="data/*.json")[0]
    hit, reason, _ = m["json_valid"](ctx.segment())
    assert not hit and "bad.json" in reason
    assert m["text_contains"](ctx.segment(), text="q3 REVENUE", glob="*.md")[0]
    assert not m["text_contains"](ctx.segment(), text="q3 REVENUE", glob="*.md", case_sensitive=True)[0]
    assert m["text_contains"](ctx.segment(), text="third quarter", source="response")[0]
    assert m["regex_match"](ctx.segment(), pattern=r"\$\d+(\.\d+)?M", glob="*.md")[0]
    assert m["regex_match"](ctx.segment(), pattern=r"^summary", source="response", flags="i")[0]
    assert m["word_count_between"](ctx.segment(), min_words=5, max_words=20, source="response")[0]
    assert not m["word_count_between"](ctx.segment(), min_words=50, glob="*.md")[0]
    with pytest.raises(ValueError):
        m["text_contains"](ctx.segment(), text="x", source="email")


def _rewrite_part(data: bytes, name: str, change) -> bytes:
    """The zip `data` with part `name` replaced by ``change(old_bytes)``."""
    src = zipfile.ZipFile(io.BytesIO(data))
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as out:
        for info in src.infolist():
            part = src.read(info)
            out.writestr(info, change(part) if info.filename == name else part)
    return buf.getvalue()


def _malformed_slide(data: bytes) -> bytes:
    return _rewrite_part(data, "ppt/slides/slide2.xml", lambda part: part.replace(b"</p:sld>", b"<unclosed></p:sld>"))


def test_python_pptx_failure_falls_back_to_libreoffice(tmp_path):
    import shutil

    if shutil.which("soffice") is None:
        pytest.skip("LibreOffice (soffice) is not installed")
    data = _malformed_slide(deck("45__PPTAgent__build_effective_agents.pptx").read_bytes())
    v = route(GATES, make_ctx(tmp_path, {"slides.pptx": data}))
    assert v["O"].hit is True and "opens in LibreOffice" in v["O"].reason and "malformed XML in ppt/slides/slide2.xml" in v["O"].reason


def test_no_libreoffice_is_render_env_not_a_miss(tmp_path):
    data = _malformed_slide(deck("45__PPTAgent__build_effective_agents.pptx").read_bytes())
    v = route(GATES, make_ctx(tmp_path, {"slides.pptx": data}, env={"JUDGE_SOFFICE_PATH": str(tmp_path / "no-soffice")}))
    assert v["O"].judged is False and v["O"].error_kind == "render_env" and "LibreOffice is not installed" in v["O"].reason


# --------------------------------------------------------------------------- page counts


def _drop_from_slide_list(data: bytes, n_dropped: int = 1) -> bytes:
    """The deck with its last slide(s) removed from ``p:sldIdLst`` (the parts stay)."""
    import re

    def drop(part: bytes) -> bytes:
        for sld in re.findall(rb"<p:sldId [^>]*/>", part)[-n_dropped:]:
            part = part.replace(sld, b"")
        return part

    return _rewrite_part(data, "ppt/presentation.xml", drop)


def test_page_count_follows_the_slide_list_not_the_parts(tmp_path):
    data = deck("45__PPTAgent__build_effective_agents.pptx").read_bytes()
    count = CODE_METHODS["page_count_between"]
    hit, reason, facts = count(make_ctx(tmp_path / "a", {"slides.pptx": data}), min_pages=10, max_pages=10, path="slides.pptx")
    assert hit and facts == {"deck_pages": 10}
    hit, reason, facts = count(make_ctx(tmp_path / "b", {"slides.pptx": _drop_from_slide_list(data)}), min_pages=10, path="slides.pptx")
    assert not hit and facts == {"deck_pages": 9} and "has 9 page(s)" in reason  # 10 slide parts, 9 shown


def test_page_count_of_html_decks_matches_the_renderer():
    from cowork_judge.code_methods.deck_checks import html_slide_count

    nested = "<section>1</section><section>2<section>2a</section></section><section>3</section>"
    assert html_slide_count(nested) == 3  # `section:not(section section)`
    assert html_slide_count('<div class="slide">1</div><div class="slide big">2</div><h1 class="slide-title">x</h1>') == 2
    assert html_slide_count("<p>no slides</p>") == 0


def test_pdf_deck_without_pymupdf_is_render_env_not_a_miss(tmp_path, monkeypatch):
    pymupdf = pytest.importorskip("pymupdf", reason="PyMuPDF makes the PDF this test reads")
    doc = pymupdf.open()
    for _ in range(2):
        doc.new_page()
    data = doc.tobytes()
    ctx = make_ctx(tmp_path, {"deck.pdf": data})
    assert route(GATES, ctx)["O"].hit is True
    monkeypatch.setitem(__import__("sys").modules, "pymupdf", None)  # `import pymupdf` now raises ImportError
    v = route(GATES, make_ctx(tmp_path / "b", {"deck.pdf": data}))
    assert v["L"].hit is True
    assert v["O"].judged is False and v["O"].error_kind == "render_env" and "PyMuPDF is not installed" in v["O"].reason
    with pytest.raises(EnvironmentMissing, match="PyMuPDF is not installed"):
        CODE_METHODS["page_count_between"](make_ctx(tmp_path / "c", {"deck.pdf": data}), path="deck.pdf")


def test_file_nonempty_looks_at_every_file_of_a_shared_name(tmp_path):
    ctx = make_ctx(tmp_path, {"a/x.txt": "y" * 200, "b/x.txt": "z"})
    assert CODE_METHODS["file_nonempty"](ctx.segment(), glob="**/x.txt", min_bytes=100)[0] is True
    assert CODE_METHODS["file_nonempty"](ctx.segment(), glob="**/x.txt", min_bytes=1000)[0] is False


# --------------------------------------------------------------------------- parameters


def test_bad_parameters_are_named_before_the_method_runs(tmp_path):
    ctx = make_ctx(tmp_path, {"a.md": "hello"})
    crit = normalize_rubric([
        {"id": "T", "description": "t", "weight": 1, "judge_method": "code", "code_method_name": "text_contains",
         "code_method_params": {"text": ["hello"]}},
        {"id": "W", "description": "w", "weight": 1, "judge_method": "code", "code_method_name": "word_count_between",
         "code_method_params": {"min_words": True, "bogus": 1}},
        {"id": "E", "description": "e", "weight": 1, "judge_method": "code", "code_method_name": "file_exists"},
        {"id": "OK", "description": "ok", "weight": 1, "judge_method": "code", "code_method_name": "text_contains",
         "code_method_params": {"text": "hello", "glob": None}},
    ]).criteria
    v = route(crit, ctx)
    assert v["T"].error_kind == "code_params" and "parameter 'text' must be str, got ['hello']" in v["T"].reason
    assert "unknown parameter 'bogus'" in v["W"].reason and "'min_words' must be int, got True" in v["W"].reason
    assert "missing parameter 'glob'" in v["E"].reason
    assert v["OK"].judged and v["OK"].hit is True


def test_parameter_values_the_method_refuses_are_named_before_it_runs(tmp_path):
    """usertrial #12: a pattern that does not compile reaches the method only to fail there; the same
    check (`param_errors`, shared with lint-rubric M002) names it up front."""
    ctx = make_ctx(tmp_path, {"a.md": "hello world"})
    crit = normalize_rubric([
        {"id": "RX", "description": "r", "weight": 1, "judge_method": "code", "code_method_name": "regex_match",
         "code_method_params": {"pattern": "([", "glob": "*.md"}},
        {"id": "FL", "description": "f", "weight": 1, "judge_method": "code", "code_method_name": "regex_match",
         "code_method_params": {"pattern": "hello", "flags": "ig", "source": "chat"}},
        {"id": "OK", "description": "ok", "weight": 1, "judge_method": "code", "code_method_name": "regex_match",
         "code_method_params": {"pattern": "hel+o", "flags": "i", "glob": "*.md"}},
    ]).criteria
    v = route(crit, ctx)
    assert v["RX"].error_kind == "code_params" and "'([' is not a valid regular expression" in v["RX"].reason
    assert "unknown regex flag 'g'" in v["FL"].reason and "'source' must be 'files' or 'response'" in v["FL"].reason
    assert v["OK"].judged and v["OK"].hit is True


def test_every_registered_method_has_checkable_annotations():
    import inspect

    known = {"str", "int", "float", "bool", "list[str]", "None"}
    for name, method in CODE_METHODS.items():
        for pname, param in inspect.signature(method).parameters.items():
            if pname == "ctx":
                continue
            options = set(str(param.annotation).replace(" ", "").split("|"))
            assert options <= known, f"{name}.{pname}: {param.annotation} is not checked by param_errors"


def test_impossible_parameters_called_directly_are_refused_with_the_checks_words(tmp_path):
    """A direct call refuses what the parameter check refuses, in its words (`files.refuse`); a run never gets
    there: the check makes the row ``code_params`` first (trial 25 P-6, `test_param_refusals_trial25`)."""
    ctx = make_ctx(tmp_path, {"a.md": "hello world"})
    m = CODE_METHODS
    with pytest.raises(ValueError, match="min_words 1 is above max_words -5"):
        m["word_count_between"](ctx.segment(), min_words=1, max_words=-5)
    with pytest.raises(ValueError, match="min_count 3 is above max_count 1"):
        m["file_matches_glob"](ctx.segment(), glob="*.md", min_count=3, max_count=1)
    with pytest.raises(ValueError, match="min_pages 5 is above max_pages 2"):
        m["page_count_between"](ctx.segment(), min_pages=5, max_pages=2)
    with pytest.raises(ValueError, match="must not be empty"):
        m["text_contains"](ctx.segment(), text="")


def test_byte_identical_decks_are_one_deck(tmp_path):
    """Trial 14 F16: two names with the same bytes are one deck (the first by name is kept);
    same size but other bytes stay ambiguous."""
    ctx = make_ctx(tmp_path, {"b/deck.pptx": b"same deck", "a-copy.pptx": b"same deck"})
    hit, reason, art = CODE_METHODS["locate_deck"](ctx.segment())
    assert hit and art["deck_rel"] == "a-copy.pptx", reason
    assert "b/deck.pptx is a byte-identical copy of a-copy.pptx: one deck" in reason
    assert CODE_METHODS["locate_deck"](ctx.segment(), expect_name="deck.pptx")[2]["deck_rel"] == "b/deck.pptx"
    ctx = make_ctx(tmp_path / "2", {"a.pptx": b"deck one", "b.pptx": b"deck two"})
    hit, reason, _ = CODE_METHODS["locate_deck"](ctx.segment())
    assert not hit and "ambiguous" in reason


def test_no_python_pptx_and_no_libreoffice_is_extras_missing(tmp_path, monkeypatch):
    """Trial 23 P-1: the ``pptx`` extra missing (init ran before the rubric) is the verifier's install, not the
    deck's fault, and not the renderer's: ``extras_missing`` (a systemic run), the reason naming python-pptx."""
    data = deck("45__PPTAgent__build_effective_agents.pptx").read_bytes()
    monkeypatch.setitem(__import__("sys").modules, "pptx", None)  # `from pptx import …` now raises ImportError
    v = route(GATES, make_ctx(tmp_path, {"slides.pptx": data}, env={"JUDGE_SOFFICE_PATH": str(tmp_path / "no-soffice")}))
    assert v["O"].judged is False and v["O"].error_kind == "extras_missing", v["O"]
    assert "python-pptx is not installed" in v["O"].reason

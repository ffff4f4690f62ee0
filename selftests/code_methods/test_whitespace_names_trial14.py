"""Trial 14 F18 and F19, on a real ``cowork-judge run`` (code rows only, no model).

F18: ``text_contains`` compared the phrase as written: a line wrap, CRLF, a tab, two spaces or a no-break
space (U+00A0) between its words made a positive row miss, and let a placeholder ("Lorem ipsum") slip past a
hurdle (reward 1.0). Every run of Unicode whitespace now reads as one space on both sides
(`cowork_judge.safety.agent_text.spaced_text`); ``regex_match`` keeps the whitespace as written (its author
writes ``\\s``).

F19: file names were compared without Unicode normalization: a deck saved with a decomposed name (NFD, as
macOS writes names) missed ``locate_deck``'s ``expect_name``, a ``file_exists`` glob and a deck check's
``path``. Names and globs are compared in NFC (`cowork_judge.code_methods.globs.name_form`)."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest

SPACES = {"wrap": "\n", "crlf": "\r\n", "two-spaces": "  ", "tab": "\t", "nbsp": "\u00a0", "narrow-nbsp": "\u202f",
          "ideographic": "\u3000", "wrap-indented": "\n   "}


def _code_row(rid: str, method: str, params: dict, weight: float = 1, **extra) -> dict:
    return {"id": rid, "description": f"row {rid}.", "weight": weight, "judge_method": "code",
            "code_method_name": method, "code_method_params": params, **extra}


def _run(judge_run, tmp_path: Path, rubric: list[dict], files: dict[str, bytes | str]) -> dict:
    tests = tmp_path / "tests"
    tests.mkdir()
    (tests / "rubric.json").write_text(json.dumps({"rubrics": rubric}, ensure_ascii=False), encoding="utf-8")
    (tests / "task_prompt.md").write_text("Write the report into /app/output.\n")
    rollout = tmp_path / "rollout"
    (rollout / "app" / "output").mkdir(parents=True)
    (rollout / "logs" / "agent").mkdir(parents=True)
    for name, body in files.items():
        path = rollout / "app" / "output" / name
        path.write_bytes(body if isinstance(body, bytes) else body.encode("utf-8"))
    run = judge_run(tests, rollout, sim=False)
    assert run.returncode == 0, run.stderr
    return json.loads((run.verifier / "result.json").read_text())


def test_a_phrase_broken_by_any_whitespace_is_found(judge_run, tmp_path: Path):
    files = {f"{name}.md": f"# Sky\nThe sky is blue because of Rayleigh{space}scattering by air.\n"
             for name, space in SPACES.items()}
    files["joined.md"] = "The sky is blue because of Rayleighscattering.\n"
    rubric = [_code_row(f"C-{name}", "text_contains", {"text": "rayleigh scattering", "glob": f"{name}.md"})
              for name in [*SPACES, "joined"]]
    rubric += [_code_row("C-NEEDLE-WRAP", "text_contains", {"text": "Rayleigh\nscattering", "glob": "tab.md"}),
               _code_row("C-RE", "regex_match", {"pattern": "Rayleigh scattering", "glob": "wrap.md"}),
               _code_row("C-RE-S", "regex_match", {"pattern": r"Rayleigh\s+scattering", "glob": "nbsp.md"})]
    rows = {r["id"]: r for r in _run(judge_run, tmp_path, rubric, files)["results"]}
    for name in SPACES:
        assert rows[f"C-{name}"]["hit"] is True, (name, rows[f"C-{name}"]["reason"])
    assert rows["C-joined"]["hit"] is False  # the words must still be two words
    assert rows["C-NEEDLE-WRAP"]["hit"] is True  # the row's own text is read the same way
    assert rows["C-RE"]["hit"] is False and rows["C-RE-S"]["hit"] is True  # a regex says what it means by \s


@pytest.mark.parametrize("space", ["\u00a0", "\n", " \r\n "])
def test_a_placeholder_joined_by_an_unseen_space_still_fires_the_hurdle(judge_run, tmp_path: Path, space: str):
    rubric = [_code_row("C-EVAP", "text_contains", {"text": "evaporation"}),
              _code_row("H-LOREM", "text_contains", {"text": "Lorem ipsum"}, weight=0, hurdle=True,
                        description="The report contains leftover placeholder text (Lorem ipsum).")]
    result = _run(judge_run, tmp_path, rubric, {"report.md": f"# Water\nevaporation happens. Lorem{space}ipsum dolor.\n"})
    rows = {r["id"]: r for r in result["results"]}
    assert rows["H-LOREM"]["hit"] is True, rows["H-LOREM"]["reason"]
    assert result["reward"] == 0.0


def test_a_name_saved_decomposed_is_the_name_typed_composed(judge_run, tmp_path: Path):
    pptx = pytest.importorskip("pptx")
    name = "Pr\u00e4sentation.pptx"
    nfd = unicodedata.normalize("NFD", name)
    assert nfd != name
    deck = tmp_path / "deck.pptx"
    prs = pptx.Presentation()
    prs.slides.add_slide(prs.slide_layouts[5]).shapes.title.text = "Evaporation"
    prs.save(str(deck))
    rubric = [_code_row("C-LOCATE", "locate_deck", {"expect_name": name, "require_expect_name": True}),
              _code_row("C-EXISTS", "file_exists", {"glob": name}),
              _code_row("C-GLOB", "file_matches_glob", {"glob": "Pr\u00e4*.pptx", "min_count": 1}),
              _code_row("C-OPENS", "check_deck_openable", {"path": name}),
              _code_row("C-NFD-GLOB", "file_exists", {"glob": unicodedata.normalize("NFD", "notiz*.md")}),
              _code_row("C-NFD-SIDE", "file_exists", {"glob": unicodedata.normalize("NFD", "Caf\u00e9.md")})]
    result = _run(judge_run, tmp_path, rubric, {nfd: deck.read_bytes(), "Caf\u00e9.md": "menu\n", "notiz.md": "x\n"})
    rows = {r["id"]: r for r in result["results"]}
    for rid in ("C-LOCATE", "C-EXISTS", "C-GLOB", "C-OPENS", "C-NFD-GLOB", "C-NFD-SIDE"):
        assert rows[rid]["hit"] is True, (rid, rows[rid]["reason"])
    assert result["reward"] == 1.0

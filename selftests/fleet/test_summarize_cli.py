"""``cowork-judge summarize`` on the command line: outputs written atomically and never over an
existing file, byte-identical reruns, self-contained HTML, clear errors, real documents."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import subprocess
import sys

import pytest
from fleet.factory import dump, make_doc, verdicts, write
from fleet.test_summarize import build_job
from testkit import EXAMPLE_TESTS, ROLLOUTS

from cowork_judge.commands import main
from cowork_judge.fleet.outputs import OutputExists, Progress, write_file


def summarize(capsys, *args: str) -> tuple[int, str, str]:
    code = main(["summarize", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_and_html_are_written_and_byte_identical_across_runs(tmp_path, capsys):
    job = build_job(tmp_path)
    outputs = []
    for n in (1, 2):
        code, out, err = summarize(capsys, str(job), "--out", str(tmp_path / f"s{n}.json"), "--html", str(tmp_path / f"s{n}.html"),
                                   "--group-by", "tag,axis", "--draws", "300")
        assert code == 0, err
        assert out.splitlines() == [str(tmp_path / f"s{n}.json"), str(tmp_path / f"s{n}.html")]
        lines = err.splitlines()
        job_dir = tmp_path / "job"
        assert lines[1].startswith(f"summarize: invalid: {job_dir / 'zbad__0000001' / 'verifier' / 'result.json'}: not a result document")
        assert lines[2].startswith("summarize: unreadable: ")  # each problem on stderr too (trial finding 15b)
        assert [lines[0], *lines[3:]] == [
            "summarize: 9 inputs: scored 2, degraded 1, systemic 2, delivery_missing 1, skipped 1, invalid 1, unreadable 1",
            "summarize: 11 of 14 interval(s) withheld: a statistic gets one only when at least 5 task(s) (clusters) contribute "
            "(the fewest here: 2); reward (mean_clean: no interval: 2 task(s) (clusters) contribute, fewer than the minimum of 5)",
            "summarize: 7 document(s) without an integrity digest (written before seals, 0.2.0): not checked",
        ]  # the factory's documents are not sealed (issue 39)
        outputs.append(((tmp_path / f"s{n}.json").read_bytes(), (tmp_path / f"s{n}.html").read_bytes()))
    assert outputs[0] == outputs[1]
    summary = json.loads(outputs[0][0])
    assert summary["schema"] == "cowork-judge/summary/v1"
    for entry in summary["inputs"]["list"]:
        with open(entry["path"], "rb") as fh:
            assert entry["sha256"] == hashlib.sha256(fh.read()).hexdigest()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging file left behind
    html = outputs[0][1].decode()
    assert "<svg" in html and "Content-Security-Policy" in html and "Reward histogram" in html
    assert "<script" not in html.lower()
    assert not re.findall(r"""(?:src|href)\s*=\s*["'](?!data:|#)""", html)  # nothing fetched from anywhere


def test_an_existing_output_is_never_overwritten_without_force(tmp_path, capsys):
    job = build_job(tmp_path)
    target = tmp_path / "summary.json"
    target.write_text("keep me")
    code, out, err = summarize(capsys, str(job), "--out", str(target), "--draws", "0")
    assert (code, out) == (1, "") and err.strip() == f"cowork-judge summarize: {target} exists (use --force to overwrite)"
    assert target.read_text() == "keep me"
    code, out, err = summarize(capsys, str(job), "--out", str(target), "--draws", "0", "--force")
    assert code == 0 and json.loads(target.read_text())["accounting"]["inputs"] == 9


def test_write_file_publishes_atomically_and_refuses_existing_targets(tmp_path):
    target = tmp_path / "x.json"
    write_file(target, b"one")
    with pytest.raises(OutputExists):
        write_file(target, b"two")
    assert target.read_bytes() == b"one"
    write_file(target, b"three", force=True)
    assert target.read_bytes() == b"three" and sorted(p.name for p in tmp_path.iterdir()) == ["x.json"]


@pytest.mark.parametrize("args, message", [
    (["missing-dir", "--out", "o.json"], "cowork-judge summarize: missing-dir: no such file or directory"),
    (["in", "--out", "o.json", "--task-key", "bogus"], "cowork-judge summarize: unknown task key 'bogus'; use one of: auto, path, "
                                                       "rubric, none, field:NAME"),
    (["in", "--out", "o.json", "--draws", "-1"], "cowork-judge summarize: --draws and --seed must be ≥ 0 and --confidence in (0, 1)"),
    (["in", "--out", "o.json", "--instance-tags", "tags.json"], "cowork-judge summarize: tags.json: expected a JSON object of task → "
                                                                "{key: value}"),
    (["in", "--out", "no-such-dir/o.json"], "cowork-judge summarize: no-such-dir is not a directory"),
    (["in", "--out", "o.json", "--html", "o.json"], "cowork-judge summarize: --out and --html name the same file"),
])
def test_bad_input_is_one_clear_line_and_a_nonzero_exit(tmp_path, monkeypatch, capsys, args, message):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "in" / "verifier" / "result.json", make_doc())
    (tmp_path / "tags.json").write_text("[1, 2]")
    code, out, err = summarize(capsys, *args)
    assert code in (1, 2) and out == "" and err.strip() == message


def test_reasons_reach_the_html_only_when_asked(tmp_path, capsys):
    job = build_job(tmp_path)
    for flag, name in (([], "plain"), (["--include-reasons"], "asked")):
        code, _out, err = summarize(capsys, str(job), "--out", str(tmp_path / f"{name}.json"), "--html",
                                    str(tmp_path / f"{name}.html"), "--draws", "0", *flag)
        assert code == 0, err
    assert "REASON-MARKER" not in (tmp_path / "plain.html").read_text()
    assert "REASON-MARKER on slide 2" in (tmp_path / "asked.html").read_text()


def test_help_has_an_example(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["summarize", "--help"])
    assert stop.value.code == 0
    assert "example:\n  cowork-judge summarize jobs/" in capsys.readouterr().out


def test_a_jsonl_of_the_same_documents_summarizes_the_same(tmp_path, capsys):
    docs = [make_doc(), make_doc(verdicts(r1=False)), make_doc(verdicts(unjudged={"R3": "timeout"}))]
    for n, doc in enumerate(docs):
        write(tmp_path / "tree" / f"t{n}" / "verifier" / "result.json", doc)
    (tmp_path / "all.jsonl").write_text("".join(json.dumps(dump(d)) + "\n" for d in docs))
    results = []
    for source, name in ((tmp_path / "tree", "a.json"), (tmp_path / "all.jsonl", "b.json")):
        assert summarize(capsys, str(source), "--out", str(tmp_path / name), "--task-key", "none", "--draws", "200")[0] == 0
        s = json.loads((tmp_path / name).read_text())
        results.append({k: s[k] for k in ("accounting", "reward", "pass", "coverage", "rows", "tags")})
    assert results[0] == results[1]


def test_progress_is_drawn_on_a_terminal_only():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty, pipe = Tty(), io.StringIO()
    for stream in (tty, pipe):
        progress = Progress(3, "summarize", stream=stream, interval_sec=0.0)
        for _ in range(3):
            progress.tick()
        progress.done()
    assert "summarize: [" in tty.getvalue() and "3/3" in tty.getvalue() and tty.getvalue().endswith("\n")
    assert pipe.getvalue() == ""


def test_real_documents_from_the_command_line(judge_run, tmp_path):
    """Documents written by `cowork-judge run` (deck with oracle verdicts, nothing delivered),
    laid out as a Harbor job with two rollouts of the deck task, summarized by the console script."""
    from run.test_e2e import DECK_ENV, DECK_ORACLE, DECK_REWARD

    # two runs of the deck task (a copy of one run's folder would be one run: a duplicate, see test_run_id)
    decks = [judge_run(EXAMPLE_TESTS, ROLLOUTS / "deck", oracle=DECK_ORACLE, env=DECK_ENV, timeout=300) for _ in range(2)]
    empty = judge_run(EXAMPLE_TESTS, ROLLOUTS / "empty")
    job = tmp_path / "job"
    for name, run in (("deck__aaaaaa1", decks[0]), ("deck__aaaaaa2", decks[1]), ("empty__bbbbbb1", empty)):
        shutil.copytree(run.verifier, job / name / "verifier")
    out = tmp_path / "summary.json"
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "summarize", str(job), "--out", str(out), "--group-by", "tag"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(out)
    s = json.loads(out.read_text())
    assert s["accounting"]["inputs"] == 3 and s["accounting"]["scored"] == 2 and s["accounting"]["delivery_missing"] == 1
    assert s["reward"]["mean"] == pytest.approx(2 * DECK_REWARD / 3, abs=1e-12)
    assert s["clusters"]["clusters"] == 2 and s["rows"]["A-NARRATIVE"]["level_mean"] == pytest.approx(0.6)
    assert s["methods"]["code"] == {"rows": 6, "judged": 6, "coverage": 1.0}
    assert "slide 2" not in out.read_text()  # reasons stay out unless --include-reasons


def test_no_readable_result_document_is_said_on_stderr_and_exits_2(tmp_path, capsys):
    """Trial finding 15b: a rubric given to summarize exited 0, its error only inside the JSON."""
    rubric = tmp_path / "rubric.json"
    rubric.write_text(json.dumps({"rubrics": [{"id": "R1", "description": "d", "weight": 1}]}))
    code, out, err = summarize(capsys, str(rubric), "--out", str(tmp_path / "s.json"), "--draws", "0")
    assert (code, out) == (2, f"{tmp_path / 's.json'}\n")  # written (it names the problem), its path printed
    lines = err.splitlines()
    assert lines[0] == "summarize: 1 inputs: invalid 1"
    assert lines[1].startswith(f"summarize: invalid: {rubric}: not a result document")
    assert lines[-1] == ("cowork-judge summarize: no input was a readable result document (each is named above and in "
                         "the summary's problems)")
    assert json.loads((tmp_path / "s.json").read_text())["problems"][0]["input"] == str(rubric)
    # one readable document among bad ones is a summary: exit 0, the bad one still named on stderr
    good = write(tmp_path / "good" / "result.json", make_doc())
    code, out, err = summarize(capsys, str(rubric), str(good), "--out", str(tmp_path / "s2.json"), "--draws", "0")
    assert code == 0 and f"summarize: invalid: {rubric}: " in err

"""``cowork-judge init`` on a task already set up (issue 39): the extras and the verifier image change together or
not at all (item 5), the baked image installs the judge from the index the task names and refuses another
project of the same name (item 6), and a rubric that is not JSON is named, not taken for "no rubric" (item 9)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from cowork_judge import __version__
from cowork_judge.commands import main as cli
from cowork_judge.install import verifier_image
from cowork_judge.install.local_index import PackageIndex
from cowork_judge.lint.instance import lint_instance
from install.harness import REPO

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

DECK_RUBRIC = REPO / "tests" / "rubric.json"
SEPARATE = 'version = "1.0"\n\n[verifier]\nenvironment_mode = "separate"\n'


def deck_task(tmp_path: Path, toml: str = SEPARATE, *, rubric: bool = True) -> Path:
    """A separate-verifier task with an earlier init's thin image (no extras) and, by default, the deck rubric."""
    root = tmp_path / "task"
    (root / "tests").mkdir(parents=True)
    (root / "task.toml").write_text(toml)
    (root / "tests" / "Dockerfile").write_text(verifier_image.dockerfile(extras=(), version="0.0.1", bake=False))
    if rubric:
        (root / "tests" / "rubric.json").write_text(DECK_RUBRIC.read_text())
    return root


def snapshot(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def extras_of(root: Path) -> str:
    return tomllib.loads((root / "task.toml").read_text())["verifier"]["env"]["COWORK_JUDGE_EXTRAS"]


# ------------------------------------------------------------------ item 5: extras and image together

def test_an_explicit_extras_that_differs_from_the_task_changes_neither_extras_nor_image(tmp_path, capsys):
    """The issue's case: `init --extras pptx` on a deck task set up with `workflow` kept COWORK_JUDGE_EXTRAS=workflow
    but rewrote tests/Dockerfile without LibreOffice, fonts and Chromium."""
    root = deck_task(tmp_path)
    assert cli(["init", str(root)]) == 0
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-workflow}"
    assert "libreoffice-impress-nogui" in (root / "tests" / "Dockerfile").read_text()
    before = snapshot(root)
    capsys.readouterr()
    assert cli(["init", str(root), "--extras", "pptx"]) == 1
    err = capsys.readouterr().err
    assert "COWORK_JUDGE_EXTRAS" in err and "--extras asks for 'pptx'" in err and "nothing written" in err
    assert snapshot(root) == before  # neither task.toml nor the image moved

    assert cli(["init", str(root), "--extras", "pptx", "--force"]) == 0  # forced: both move, together
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-pptx}"
    dockerfile = (root / "tests" / "Dockerfile").read_text()
    assert "libreoffice" not in dockerfile and "chromium" not in dockerfile
    codes = {f.code for f in lint_instance(root / "tests").findings}
    assert {"M012", "T011"} <= codes  # lint says what the rows lose

    assert cli(["init", str(root)]) == 0  # from the rubric again: both widen back
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-workflow}"
    assert "libreoffice-impress-nogui" in (root / "tests" / "Dockerfile").read_text()


def test_the_image_follows_the_extras_task_toml_keeps(tmp_path, capsys):
    """No rubric yet (init picks no extras), but the task declares workflow: the image is the deck image."""
    toml = SEPARATE + '\n[verifier.env]\nCOWORK_JUDGE_EXTRAS = "${COWORK_JUDGE_EXTRAS:-workflow}"\n'
    root = deck_task(tmp_path, toml, rubric=False)
    assert cli(["init", str(root)]) == 0
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-workflow}"  # the task's choice, kept
    dockerfile = (root / "tests" / "Dockerfile").read_text()
    assert all(p in dockerfile for p in verifier_image.DECK_PACKAGES), dockerfile
    assert "LibreOffice, fonts and Chromium" in capsys.readouterr().out


def test_lint_flags_a_separate_deck_verifier_whose_image_lacks_libreoffice(tmp_path):
    root = deck_task(tmp_path)
    assert cli(["init", str(root)]) == 0
    tests = root / "tests"
    assert "T011" not in {f.code for f in lint_instance(tests).findings}  # init's deck image
    (tests / "Dockerfile").write_text("FROM python:3.12-slim\n# LibreOffice comes later\nCOPY . /tests/\n")
    (finding,) = [f for f in lint_instance(tests).findings if f.code == "T011"]  # a comment installs nothing
    assert finding.level == "ERROR" and finding.file.endswith("tests/Dockerfile") and "render_env" in finding.message
    (tests / "Dockerfile").write_text("FROM python:3.12-slim\nRUN apt-get install -y libreoffice-impress\nCOPY . /tests/\n")
    assert "T011" not in {f.code for f in lint_instance(tests).findings}
    shared = tmp_path / "shared"
    (shared / "tests").mkdir(parents=True)
    (shared / "tests" / "rubric.json").write_text(DECK_RUBRIC.read_text())
    (shared / "tests" / "Dockerfile").write_text("FROM python:3.12-slim\n")
    (shared / "task.toml").write_text('version = "1.0"\n')
    assert "T011" not in {f.code for f in lint_instance(shared / "tests").findings}  # the agent's container verifies


# ------------------------------------------------------------------ item 6: the index the task names

def test_image_names_the_index_as_an_arg_and_later_inits_keep_it(tmp_path, capsys):
    root = deck_task(tmp_path)
    url = "https://pypi.example.com/simple/"
    assert cli(["init", str(root), "--image", "--index-url", url]) == 0
    dockerfile = (root / "tests" / "Dockerfile").read_text()
    assert f'ARG COWORK_WHEEL_URL="{url}"' in dockerfile and verifier_image.index_url_of(dockerfile) == url
    assert '--index-url "$COWORK_WHEEL_URL"' in dockerfile and "--isolated download" in dockerfile
    assert "the version of the cowork-judge that ran init" in dockerfile and f"cowork-judge=={__version__}" in dockerfile
    assert url in capsys.readouterr().out
    assert cli(["init", str(root)]) == 0  # stays baked, same index
    assert verifier_image.index_url_of((root / "tests" / "Dockerfile").read_text()) == url


def test_without_index_url_the_image_takes_the_tasks_cowork_wheel_url(tmp_path):
    url = "https://wheels.example.org/simple/"
    toml = SEPARATE + f'\n[verifier.env]\nCOWORK_WHEEL_URL = "${{COWORK_WHEEL_URL:-{url}}}"\n'
    root = deck_task(tmp_path, toml)
    assert cli(["init", str(root), "--image"]) == 0
    assert verifier_image.index_url_of((root / "tests" / "Dockerfile").read_text()) == url


def test_an_image_with_no_index_says_the_public_registry_has_not_this_version(tmp_path, capsys):
    """Trial 15 P-7: ``init --image`` without an index wrote an image that pip's default index cannot build
    (the public cowork-judge is the original 1.2–1.3), and lint and harbor lint passed it. init says so."""
    from cowork_judge import __version__

    root = deck_task(tmp_path, SEPARATE)
    assert cli(["init", str(root), "--image"]) == 0
    out = capsys.readouterr().out
    assert f"warning: the image installs cowork-judge=={__version__} from pip's configured index" in out
    assert "--index-url" in out
    url = "https://pypi.example.com/simple/"
    assert cli(["init", str(root), "--image", "--index-url", url, "--force"]) == 0
    assert "from pip's configured index" not in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--image", "--index-url", "pypi.example.com/simple"], "not an index URL"),
    (["--image", "--index-url", 'https://x/simple/" && curl evil'], "not an index URL"),
    (["--index-url", "https://pypi.example.com/simple/"], "give --image too"),
])
def test_a_bad_index_url_is_refused_and_nothing_written(tmp_path, capsys, args, message):
    root = deck_task(tmp_path)
    before = snapshot(root)
    assert cli(["init", str(root), *args]) == 2
    assert message in capsys.readouterr().err and snapshot(root) == before


def fake_wheel(folder: Path, version: str, *, ours: bool) -> Path:
    """A tiny ``cowork-judge`` wheel: this project's (``cowork_judge.ABI``) or another one of the same name."""
    folder.mkdir(parents=True, exist_ok=True)
    info = f"cowork_judge-{version}.dist-info"
    files = {"cowork_judge/__init__.py": "ABI = 2\n" if ours else "VERSION = 'the other one'\n",
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: cowork-judge\nVersion: {version}\n",
             f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: selftest\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = "".join(f"{name},sha256={_b64(hashlib.sha256(text.encode()).digest())},{len(text.encode())}\n"
                     for name, text in files.items()) + f"{info}/RECORD,,\n"
    path = folder / f"cowork_judge-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as zf:
        for name, text in {**files, f"{info}/RECORD": record}.items():
            zf.writestr(name, text)
    return path


def _b64(digest: bytes) -> str:
    import base64

    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def run_bake(tmp_path: Path, version: str, index_url: str, pip_index: str) -> subprocess.CompletedProcess:
    """The image's install lines, run with sh as the RUN would (the judge home moved under `tmp_path`)."""
    home = tmp_path / "home"
    script = "\n".join(verifier_image.bake_script(version, (), home=str(home)))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "COWORK_"))}
    env.update(COWORK_WHEEL_URL=index_url, PIP_INDEX_URL=pip_index, PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_CONFIG_FILE="/dev/null")
    return subprocess.run(["sh", "-c", script], env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.slow  # two venvs with pip each: 20-60 s on a loaded 2-core machine
@pytest.mark.parametrize("where", ["arg", "pip's index"])
def test_the_baked_judge_must_be_this_project(tmp_path, where):
    """The registry's cowork-judge is another system: the image's install stops on it, and names why; this
    project's wheel from the index the ARG names is installed with the stamp test.sh reuses."""
    version = "0.2.0"
    ours = fake_wheel(tmp_path / "ours", version, ours=True)
    other = fake_wheel(tmp_path / "other", version, ours=False)
    with PackageIndex(tmp_path / "i1", [ours]) as good, PackageIndex(tmp_path / "i2", [other]) as impostor:
        arg, pip_index = (good.url, impostor.url) if where == "arg" else ("", good.url)
        proc = run_bake(tmp_path, version, arg, pip_index)
        assert proc.returncode == 0, proc.stdout + proc.stderr
        venv = next((tmp_path / "home").glob(f"venv-{version}-py*"))
        assert (venv / ".cowork-judge-installed").read_text() == verifier_image.stamp(version, ())
        bad = run_bake(tmp_path / "b", version, *((impostor.url, good.url) if where == "arg" else ("", impostor.url)))
    assert bad.returncode == 1
    assert "is not this project (no cowork_judge.ABI)" in bad.stderr and "original system" in bad.stderr
    assert not any((tmp_path / "b" / "home").glob("venv-*/.cowork-judge-installed"))


@pytest.mark.slow
def test_a_version_the_index_lacks_says_which_index(tmp_path):
    with PackageIndex(tmp_path / "i", [fake_wheel(tmp_path / "w", "0.1.0", ours=True)]) as index:
        proc = run_bake(tmp_path, "0.2.0", index.url, index.url)
    assert proc.returncode == 1
    assert f"cowork-judge==0.2.0 could not be installed from {index.url}" in proc.stderr and "1.x" in proc.stderr


# ------------------------------------------------------------------ item 9: a rubric that is not JSON

def test_a_rubric_that_is_not_json_is_named_not_taken_for_no_rubric(tmp_path, capsys):
    root = deck_task(tmp_path, rubric=False)
    (root / "tests" / "rubric.json").write_text('{"rubrics": [\n  {"id": "A", "description": "x",}\n]}\n')
    before = snapshot(root)
    assert cli(["init", str(root)]) == 2
    err = capsys.readouterr().err
    assert "tests/rubric.json is not valid JSON" in err and "line 2 column" in err and "no readable" not in err
    assert snapshot(root) == before  # no package with guessed extras
    assert cli(["init", str(root), "--extras", "workflow"]) == 0  # extras given: written, with the warning
    assert "tests/rubric.json is not valid JSON" in capsys.readouterr().out
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-workflow}"


def test_a_rubric_with_a_byte_order_mark_is_read_as_the_engine_reads_it(tmp_path, capsys):
    root = deck_task(tmp_path, rubric=False)
    (root / "tests" / "rubric.json").write_bytes(b"\xef\xbb\xbf" + DECK_RUBRIC.read_bytes())
    assert cli(["init", str(root)]) == 0
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-workflow}"


# ------------------------------------------------------------------ trial 2, finding 1: --extras with an unknown name

@pytest.mark.parametrize("given, hint", [("pptx,workflw", "did you mean 'workflow'?"), ("bogus", "")])
def test_an_unknown_extra_is_refused_and_nothing_is_written(tmp_path, capsys, given, hint):
    """trial 2 #1: `init --extras pptx,workflw` on a deck task exited 0, wrote the typo into COWORK_JUDGE_EXTRAS "(the
    rubric's rows need it)" and rewrote tests/Dockerfile without LibreOffice."""
    root = deck_task(tmp_path)
    assert cli(["init", str(root)]) == 0
    before = snapshot(root)
    capsys.readouterr()
    assert cli(["init", str(root), "--extras", given]) == 2
    err = capsys.readouterr().err
    assert "unknown extra" in err and hint in err and "fleet, fleet-redis, pptx, workflow" in err, err
    assert "rubric's rows need it" not in err
    assert snapshot(root) == before
    assert cli(["init", str(root), "--extras", given, "--force"]) == 2  # --force does not make a name exist
    assert snapshot(root) == before


def test_an_explicit_extras_wider_than_the_task_s_is_a_conflict_not_a_rubric_need(tmp_path, capsys):
    """An --extras naming an extra the task does not declare took the "the rubric's rows need it" path and was written
    without --force; it is a conflict like any other differing --extras."""
    root = deck_task(tmp_path)
    assert cli(["init", str(root)]) == 0
    before = snapshot(root)
    capsys.readouterr()
    assert cli(["init", str(root), "--extras", "pptx,fleet"]) == 1
    out = capsys.readouterr()
    assert "--extras asks for 'pptx,fleet'" in out.err and "rubric's rows need it" not in out.out + out.err
    assert snapshot(root) == before
    assert cli(["init", str(root), "--extras", "fleet,workflow", "--force"]) == 0
    assert extras_of(root) == "${COWORK_JUDGE_EXTRAS:-fleet,workflow}"
    assert "libreoffice-impress-nogui" in (root / "tests" / "Dockerfile").read_text()


def test_m012_s_fix_drops_an_unknown_extra(tmp_path):
    root = deck_task(tmp_path)
    assert cli(["init", str(root)]) == 0
    toml = root / "task.toml"
    toml.write_text(toml.read_text().replace("${COWORK_JUDGE_EXTRAS:-workflow}", "${COWORK_JUDGE_EXTRAS:-pptx,workflw}"))
    (finding,) = [f for f in lint_instance(root / "tests").findings if f.code == "M012"]
    assert "set COWORK_JUDGE_EXTRAS to 'workflow'" in finding.message and "workflw'" not in finding.message.split("set ")[1]


def test_the_known_extras_are_pyproject_s_less_the_developer_ones():
    from cowork_judge.install import extras as extras_mod

    declared = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    # `harbor` goes into Harbor's own environment on the host (cowork_judge.harbor), never a task's image
    assert set(extras_mod.KNOWN) == set(declared) - {"docs", "dev", "harbor"}

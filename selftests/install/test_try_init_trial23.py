"""Trial 23 P-5 and P-6 (real ``python -m cowork_judge`` child processes).

- P-5: ``cowork-judge init <task> | head -1`` printed "tests/test.sh: Harbor's placeholder replaced …", exited 0 and
  wrote nothing: init said each change before making it, and the pipe ``head`` closed ended the process at the
  next line. The console now drops what nobody reads (the shared entry, `cowork_judge._util.console`) and the
  command does its job.
- P-6: ``try`` against a loopback ``JUDGE_BASE_URL`` where nothing listens spent ~30 s of retries, then failed every
  row "APIConnectionError: Connection error"; it now refuses at once (exit 2) naming the port and the command
  that starts the simulator.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from install.test_init import harbor_init
from install.test_try_output import REHEARSAL_KEY, inited_task
from cowork_judge.install.template import template_text

FIRST_LINE_THEN_WAIT = """
import select, sys
class FirstLineThenWait:
    # the reader (`head -1`) takes one line and leaves before the next is written: after the first line this
    # waits until the pipe has no reader (POLLERR on its write end), at most 20 s
    def __init__(self, inner):
        self.inner, self.done = inner, False
    def write(self, text):
        n = self.inner.write(text)
        if not self.done and "\\n" in text:
            self.done = True
            self.inner.flush()
            poll = select.poll()
            poll.register(self.inner.fileno(), 0)
            poll.poll(20000)
        return n
    def __getattr__(self, name):
        return getattr(self.inner, name)
sys.stdout = FirstLineThenWait(sys.stdout)
from cowork_judge.commands import console
sys.exit(console())
"""


def _init_through_head_1(task: Path) -> tuple[str, int, str]:
    """``cowork-judge init TASK | head -1``: (the one line read, init's exit status, its stderr)."""
    proc = subprocess.Popen([sys.executable, "-c", FIRST_LINE_THEN_WAIT, "init", str(task)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stderr is not None
    first = proc.stdout.readline()
    proc.stdout.close()
    err = proc.stderr.read()
    proc.stderr.close()
    return first, proc.wait(timeout=120), err


def test_init_piped_to_head_writes_what_its_first_line_says(tmp_path):
    task = harbor_init(tmp_path)
    first, status, err = _init_through_head_1(task)
    assert first.startswith("tests/test.sh: Harbor's placeholder replaced by the cowork-judge"), first
    assert status == 0, err
    assert "Traceback" not in err and "BrokenPipe" not in err, err
    assert (task / "tests" / "test.sh").read_text() == template_text()
    toml = (task / "task.toml").read_text()
    assert 'JUDGE_API_KEY = "${JUDGE_API_KEY}"' in toml and "timeout_sec = 2280" in toml, toml


def test_init_with_stdout_and_stderr_closed_from_the_start_still_writes(tmp_path):
    """`init TASK 2>&1 | true`: no line is ever read, stderr included; the writes happen all the same."""
    task = harbor_init(tmp_path)
    read, write = os.pipe()
    os.close(read)
    try:
        status = subprocess.run([sys.executable, "-m", "cowork_judge", "init", str(task)], stdout=write, stderr=write,
                                timeout=120).returncode
    finally:
        os.close(write)
    assert status == 0
    assert (task / "tests" / "test.sh").read_text() == template_text()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_try_refuses_at_once_a_loopback_endpoint_nothing_listens_at(tmp_path):
    task = inited_task(tmp_path / "my-chat", [{"id": "A-TCP", "description": "The answer says TCP is reliable.",
                                               "weight": 1}], "Explain TCP.\n")
    (tmp_path / "answer.txt").write_text("TCP is reliable.\n")
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    env.update(JUDGE_BASE_URL=f"http://127.0.0.1:{port}/v1", JUDGE_API_KEY=REHEARSAL_KEY, TMPDIR=str(tmp_path),
               COWORK_JUDGE_CACHE=str(tmp_path / "cache"))
    t0 = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(task), "--final-message",
                           str(tmp_path / "answer.txt")], env=env, capture_output=True, text=True, timeout=600)
    seconds = time.monotonic() - t0
    assert proc.returncode == 2, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert (f"nothing listens at 127.0.0.1:{port} (JUDGE_BASE_URL): start `cowork-judge sim --port {port}`"
            in proc.stderr), proc.stderr
    assert "unset JUDGE_BASE_URL/JUDGE_API_KEY to use the built-in simulator" in proc.stderr
    assert "Traceback" not in proc.stderr and "reward" not in proc.stdout
    assert seconds < 25, seconds  # no wheel build, no sandbox, no retries
    assert not (tmp_path / "cache").exists()  # refused before the judge's wheel was built


def test_try_does_not_probe_a_remote_endpoint():
    from cowork_judge.commands._endpoint import loopback_address, nothing_listens

    assert nothing_listens("https://api.openai.com/v1", "JUDGE_BASE_URL") is None  # (an example host is refused: trial 36)
    assert loopback_address("http://localhost/v1") == ("localhost", 80)
    assert loopback_address("https://[::1]:8443/v1") == ("::1", 8443)
    assert loopback_address("http://judge.example.com:8199/v1") is None


def test_the_docs_placeholder_endpoint_is_refused_at_once_naming_the_way_out(tmp_path):
    """Trial 36 P-3: step 8's exports pasted as written (`https://judge.example.com/v1`) cost 9-22 s of retries and
    ended api_error, reward 0. A host reserved for examples (RFC 2606) is refused before anything is built."""
    from cowork_judge.commands._endpoint import placeholder_host

    assert placeholder_host("https://judge.example.com/v1") == "judge.example.com"
    assert placeholder_host("http://gw.example:8080/v1") == "gw.example" and placeholder_host("https://x.invalid") == "x.invalid"
    assert placeholder_host("https://api.openai.com/v1") is None and placeholder_host("https://myexample.com/v1") is None
    task = inited_task(tmp_path / "my-chat", [{"id": "A-TCP", "description": "The answer says TCP is reliable.",
                                               "weight": 1}], "Explain TCP.\n")
    (tmp_path / "answer.txt").write_text("TCP is reliable.\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUDGE_", "COWORK_", "OPENAI_"))}
    env.update(JUDGE_BASE_URL="https://judge.example.com/v1", JUDGE_API_KEY="sk-your-judge-key", TMPDIR=str(tmp_path),
               COWORK_JUDGE_CACHE=str(tmp_path / "cache"))
    proc = subprocess.run([sys.executable, "-m", "cowork_judge", "try", str(task), "--final-message",
                           str(tmp_path / "answer.txt")], env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert ("JUDGE_BASE_URL names judge.example.com, a host reserved for examples (RFC 2606), as in the docs' step 8: "
            "set it to your endpoint, or unset JUDGE_BASE_URL/JUDGE_API_KEY to use the built-in simulator") in proc.stderr
    assert not (tmp_path / "cache").exists()  # refused before the judge's wheel was built

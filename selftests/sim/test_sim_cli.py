"""Command line: ``python -m cowork_judge.sim`` as a subprocess, and argument errors."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time

import openai
import pytest

from cowork_judge.sim.cli import main

LINE_RE = re.compile(r"^cowork-judge sim listening on (http://127\.0\.0\.1:(\d+)/v1)$")


def _read_line(proc: subprocess.Popen, timeout_sec: float = 10.0) -> str:
    ready, _, _ = select.select([proc.stdout], [], [], timeout_sec)
    assert ready, "simulator printed nothing"
    return proc.stdout.readline().strip()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_cli_serves_and_exits_on_signal(client, messages, tmp_path, signum):
    oracle = tmp_path / "oracle.json"
    oracle.write_text(json.dumps({"A1": {"hit": True, "reason": "from file"}}), encoding="utf-8")
    log = tmp_path / "log.jsonl"
    cmd = [sys.executable, "-m", "cowork_judge.sim", "--port", "0", "--oracle", str(oracle),
           "--log", str(log), "--api-key", "sk-cli", "--fault-script", "http_429,ok", "--latency-ms", "10"]
    env = dict(os.environ, PYTHONWARNINGS="error")
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env) as proc:
        try:
            line = _read_line(proc)
            match = LINE_RE.match(line)
            assert match, line
            with client(match.group(1), api_key="sk-cli") as c:
                with pytest.raises(openai.RateLimitError):
                    c.chat.completions.create(model="m", messages=messages())
                resp = c.chat.completions.create(model="m", messages=messages())
            verdicts = json.loads(resp.choices[0].message.content)["verdicts"]
            assert verdicts[0] == {"id": "A1", "hit": True, "reason": "from file"}
            t0 = time.monotonic()
            proc.send_signal(signum)
            assert proc.wait(timeout=5) == 0
            assert time.monotonic() - t0 < 3
            err = proc.stderr.read().splitlines()  # only the rows the oracle lacks, each said once (trial 16 P-5)
            assert err == [line for line in err if "has no entry for row" in line] and len(err) == len(set(err))
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    entries = [json.loads(x) for x in log.read_text().splitlines()]
    assert [(e["fault"], e["status"], e["delay_s"]) for e in entries] == [("http_429", 429, 0.0), (None, 200, 0.01)]


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--port", "abc"], "--port"),
        (["--port", "-1"], "must be >= 0"),
        (["--fault", "http_418=0.5"], "unknown fault kind 'http_418'"),
        (["--fault", "http_429"], "KIND=RATE"),
        (["--fault", "http_429=0.8", "--fault", "reset=0.5"], "sum to 1.3"),
        (["--fault-script", "ok,oops"], "unknown fault kind 'oops'"),
        (["--oracle", "/nonexistent/oracle.json"], "cannot read"),
        (["--jitter", "3", "--latency-ms", "5"], "jitter_frac must be in [0, 1]"),
        (["--bogus"], "unrecognized arguments"),
    ],
)
def test_cli_bad_arguments_exit_2_with_message(capsys, argv, fragment):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert fragment in err and "usage:" in err and "Traceback" not in err


def test_cli_bad_arguments_as_a_process_exit_2():
    proc = subprocess.run([sys.executable, "-m", "cowork_judge.sim", "--tool-rounds", "x"],
                          capture_output=True, text=True, timeout=30)
    assert proc.returncode == 2 and "--tool-rounds" in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stdout == ""


def test_cli_port_in_use_exits_1(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        assert main(["--port", str(taken.getsockname()[1])]) == 1
    captured = capsys.readouterr()
    assert "cannot listen on 127.0.0.1:" in captured.err and captured.out == ""


def test_cli_help_exits_0(capsys):
    assert main(["--help"]) == 0
    assert "--fault-script" in capsys.readouterr().out


def test_cli_help_documents_endpoints_oracle_format_and_every_option(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for fragment in ("/v1/chat/completions", "/v1/responses", "/v1/messages", "--rpm", "--burst", "--no-generic",
                     '"<row id>@<page>"', '"not in oracle"', "retry-after-ms", "rpm_limit", "stream_rate_limit"):
        assert fragment in out, fragment


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [(["--rpm", "0"], "--rpm"), (["--rpm", "x"], "--rpm"), (["--rpm", "60", "--burst", "0"], "--burst"),
     (["--burst", "2"], "burst needs rpm")],
)
def test_cli_bucket_arguments_are_checked(capsys, argv, fragment):
    assert main(argv) == 2
    assert fragment in capsys.readouterr().err


def test_cli_rpm_limit_as_a_process(client, messages):
    cmd = [sys.executable, "-m", "cowork_judge.sim", "--port", "0", "--rpm", "1", "--burst", "1", "--no-generic"]
    with subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as proc:
        try:
            match = LINE_RE.match(_read_line(proc))
            assert match
            with client(match.group(1)) as c:
                c.chat.completions.create(model="m", messages=messages())
                with pytest.raises(openai.RateLimitError) as info:
                    c.chat.completions.create(model="m", messages=messages())
            headers = info.value.response.headers
            assert 59 <= int(headers["retry-after"]) <= 60 and 58_000 < int(headers["retry-after-ms"]) <= 60_000
        finally:
            proc.terminate()
            proc.wait(timeout=5)

"""Hosted gateways (JUDGE_GATEWAY_AUTH): no JUDGE_API_KEY in the sandbox, a proxy on 127.0.0.1 injects it.

Harbor Hub's default credential mode injects the key per destination host, so the verifier
may see none. A small header-injecting proxy stands in for the gateway: it records the
Authorization it received and forwards the request to the simulator with the real key.
"""

from __future__ import annotations

import http.client
import http.server
import json
import threading
from urllib.parse import urlsplit

import pytest
from run.test_e2e import AGENTIC_REWARD, DECK_ORACLE
from testkit import ROLLOUTS, SIM_KEY, agentic_example

from cowork_judge.config.judge_config import GATEWAY_PLACEHOLDER_KEY, load_config
from cowork_judge.sim import OraclePolicy, SimServer


class InjectingProxy:
    """Forwards every request to `upstream` with ``Authorization: Bearer <key>``; records what came in."""

    def __init__(self, upstream: str, key: str) -> None:
        target = urlsplit(upstream)
        seen: list[str | None] = []

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                seen.append(self.headers.get("Authorization"))
                headers = {k: v for k, v in self.headers.items() if k.lower() not in ("authorization", "host", "content-length")}
                headers["Authorization"] = f"Bearer {key}"
                conn = http.client.HTTPConnection(target.hostname, target.port, timeout=120)
                conn.request("POST", self.path, body=body,
                             headers=headers)
                resp = conn.getresponse()
                data = resp.read()
                self.send_response(resp.status)
                for k, v in resp.getheaders():
                    if k.lower() not in ("transfer-encoding", "content-length", "connection"):
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
                conn.close()

            def log_message(self, format: str, *args) -> None:  # noqa: A002
                pass

        self.seen = seen
        self._server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}{target.path}"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture
def gateway():
    server = SimServer(OraclePolicy.from_dict(DECK_ORACLE), api_key=SIM_KEY).start()
    proxy = InjectingProxy(server.url, SIM_KEY)
    yield proxy
    proxy.stop()
    server.stop()


@pytest.mark.parametrize("mode, sent", [("none", None), ("placeholder", f"Bearer {GATEWAY_PLACEHOLDER_KEY}")])
def test_the_gateway_supplies_the_key(judge_run, gateway, tmp_path, mode, sent):
    tests = agentic_example(tmp_path / "tests")
    run = judge_run(tests, ROLLOUTS / "deck", sim=False, env={"JUDGE_BASE_URL": gateway.url, "JUDGE_MODEL": "sim-judge",
                                                              "JUDGE_GATEWAY_AUTH": mode})
    doc = json.loads((run.verifier / "result.json").read_text())
    assert doc["status"] == "success" and doc["task_score"] == pytest.approx(AGENTIC_REWARD, abs=1e-12), run.stderr
    assert gateway.seen and set(gateway.seen) == {sent}  # "none": no Authorization header at all
    assert GATEWAY_PLACEHOLDER_KEY not in (run.verifier / "result.json").read_text()


def test_without_the_setting_a_missing_key_is_still_no_credential(judge_run, gateway, tmp_path):
    tests = agentic_example(tmp_path / "tests")
    run = judge_run(tests, ROLLOUTS / "deck", sim=False, env={"JUDGE_BASE_URL": gateway.url, "JUDGE_MODEL": "sim-judge"})
    doc = json.loads((run.verifier / "result.json").read_text())
    assert doc["exit_code"] == "judge:no_credential" and gateway.seen == []


def test_a_key_that_is_set_is_always_sent():
    loaded = load_config({"JUDGE_API_KEY": "sk-real-0123456789abcdef", "JUDGE_GATEWAY_AUTH": "none"})
    assert loaded.config.api_key.get_secret_value() == "sk-real-0123456789abcdef"
    assert load_config({"JUDGE_GATEWAY_AUTH": "none"}).sources["api_key"] == "gateway:JUDGE_GATEWAY_AUTH=none"
    assert load_config({"JUDGE_GATEWAY_AUTH": "bogus"}).config.gateway_auth == "off"

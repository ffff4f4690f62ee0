"""Trial 26 P-3: a row ``cowork-judge sim --oracle FILE`` has no entry for was answered with the bare reason "not in
oracle"; only the simulator's console said "did you mean". The verdict's reason now carries the hint too (the key
spelled like the row, never a key that answers a row of the same request), so result.json, the report and ``try``
show it. The simulator over HTTP (the CLI in a child process, a real ``openai`` client)."""

from __future__ import annotations

import pytest
from sim.test_sim_oracle_reload import _hits, _Sim, _write

FIRST = {"A1": {"hit": True, "reason": "first"}, "N1": {"hit": False, "reason": "first"}}

CASES = [  # (extra oracle entries, reason row A2 gets, "did you mean" the console says or None)
    ({"A22": {"hit": True}}, "not in oracle (did you mean 'A22'?)", "'A22'"),
    ({"a2": {"hit": True}}, "not in oracle (did you mean 'a2'?)", "'a2'"),  # trial 35 P-5: letter case aside
    ({}, "not in oracle", None),  # A1 is spelled alike but answers its own row: never offered
    ({"ZZZZ": {"hit": True}}, "not in oracle", None),
]


@pytest.mark.parametrize(("extra", "reason", "console"), CASES)
def test_a_missing_rows_reason_names_the_close_key(tmp_path, client, messages, extra, reason, console):
    oracle = tmp_path / "oracle.json"
    _write(oracle, {**FIRST, **extra})
    server = _Sim(oracle)
    try:
        with client(server.url) as c:
            got = _hits(c, messages)
            assert got == {"A1": (True, "first"), "N1": (False, "first"), "A2": (False, reason)}, got
            assert _hits(c, messages)["A2"] == (False, reason)  # every time, not only when first said
    finally:
        said = server.err()
        server.stop()
    assert "has no entry for row 'A2'" in said, said
    assert (f"did you mean {console}?" in said) if console else ("did you mean" not in said), said

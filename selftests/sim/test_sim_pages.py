"""Per-page workflow requests at the simulator: the page marker selects ``"<row>@<page>"``
oracle entries, N/A rows get the schema's string level, and the log records the page."""

from __future__ import annotations

import json
import time

from cowork_judge.sim import OraclePolicy, SimServer
from cowork_judge.sim.pages import mark_na, na_level, page_of

GRID = [round(i / 20, 2) for i in range(21)]
ROWS = [{"id": "V1", "description": "clean layout", "type": "gradient", "polarity": "positive", "level_choices": GRID},
        {"id": "V2", "description": "pictures sharp", "type": "gradient", "polarity": "positive", "level_choices": GRID}]
SCHEMA = {
    "type": "object", "required": ["verdicts"], "additionalProperties": False,
    "properties": {"verdicts": {"type": "array", "items": {
        "type": "object", "required": ["id", "hit", "level", "reason"], "additionalProperties": False,
        "properties": {"id": {"type": "string", "enum": ["V1", "V2"]}, "hit": {"type": "boolean"},
                       "level": {"anyOf": [{"type": "number", "enum": GRID}, {"type": "string", "enum": ["N/A"]}]},
                       "reason": {"type": "string"}}}}},
}
ORACLE = {"V1": {"hit": True, "level": 1.0}, "V1@2": {"hit": True, "level": 0.35, "reason": "crowded"},
          "V2": {"hit": False, "na": True, "reason": "no picture"}, "V2@3": {"hit": True, "level": 0.6}}


def ask(client, server, page: int | None, *, schema=SCHEMA) -> dict:
    marker = f"<page_number>{page}</page_number>\n" if page is not None else ""
    text = f"{marker}Judge this page.\n<rubric_rows>{json.dumps(ROWS)}</rubric_rows>"
    fmt = {"type": "json_schema", "json_schema": {"name": "cells", "schema": schema, "strict": True}} if schema else None
    with client(server.url) as c:
        kwargs = {"response_format": fmt} if fmt else {}
        reply = c.chat.completions.create(model="sim", messages=[{"role": "user", "content": text}], **kwargs)
    return {v["id"]: v for v in json.loads(reply.choices[0].message.content)["verdicts"]}


def test_the_page_marker_selects_page_entries_and_na_becomes_the_schemas_string(client):
    with SimServer(OraclePolicy.from_dict(ORACLE)) as server:
        p2, p3, p5, none = ask(client, server, 2), ask(client, server, 3), ask(client, server, 5), ask(client, server, None)
        for _ in range(200):  # an entry is logged just after its answer's last write
            if len(server.log) == 4:
                break
            time.sleep(0.01)
        log = server.log.entries()
    assert (p2["V1"]["level"], p2["V1"]["reason"]) == (0.35, "crowded")
    assert (p2["V2"]["level"], p2["V2"]["hit"]) == ("N/A", False)  # the row's N/A in the schema's words
    assert (p3["V1"]["level"], p3["V2"]["level"], p3["V2"]["hit"]) == (1.0, 0.6, True)
    assert (p5["V1"]["level"], p5["V2"]["level"]) == (1.0, "N/A")
    assert none["V1"]["level"] == 1.0  # no marker: the row's own entry
    assert [e.page for e in sorted(log, key=lambda e: e.seq)] == [2, 3, 5, None]


def test_without_a_string_level_in_the_schema_na_keeps_its_flag(client):
    with SimServer(OraclePolicy.from_dict(ORACLE)) as server:
        got = ask(client, server, 2, schema=None)
    assert got["V2"]["na"] is True and isinstance(got["V2"]["level"], float)


def test_page_of_takes_the_first_marker_and_ignores_zero():
    assert page_of(["intro", "<page_number> 7 </page_number> and <page_number>8</page_number>"]) == 7
    assert page_of(["<page_number>0</page_number>"]) is None
    assert page_of(["no marker", "&lt;page_number&gt;3"]) is None


def test_na_level_and_mark_na():
    assert na_level(SCHEMA) == "N/A"
    assert na_level({"properties": {"verdicts": {"items": {"properties": {"level": {"type": "number"}}}}}}) is None
    assert na_level(None) is None and na_level({"properties": []}) is None
    rows = [{"id": "A", "hit": True, "level": 0.5, "na": True}, {"id": "B", "hit": True, "level": 0.5}]
    assert mark_na(rows, "N/A") == [{"id": "A", "hit": False, "level": "N/A", "na": True}, rows[1]]
    assert mark_na(rows, None) is rows and rows[0]["level"] == 0.5

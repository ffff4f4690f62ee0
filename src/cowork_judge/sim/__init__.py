"""Simulated judge endpoint on loopback, for tests, benchmarks and demos: no model, no tokens.

``SimServer`` answers three wire APIs from one pipeline:

- ``POST /v1/chat/completions``: OpenAI Chat Completions, plain or SSE, function tools,
  ``response_format`` (``json_schema``/``json_object``), image parts (``chat_api``);
- ``POST /v1/responses``: OpenAI Responses API, SSE, function-call round trips,
  ``text.format`` json_schema; enough for ``codex exec`` (``responses_api``);
- ``POST /v1/messages``: Anthropic Messages API, SSE, ``tool_use``; enough for
  ``claude -p --json-schema`` (``messages_api``);

plus ``GET /v1/models``, ``POST /v1/messages/count_tokens``, ``HEAD /``, ``GET /_sim/log``
and ``POST /_sim/reset``.

Verdicts come from a policy: ``OraclePolicy`` (an oracle file) or the labelled
``DemoPolicy``. Oracle file (JSON)::

    {"<row id>": {"hit": true, "level": 0.75, "na": false, "reason": "..."},
     "<row id>@<page>": {"hit": false}}

Only ``hit`` is required; ``level`` in [0, 1] is for gradient rows; ``"<id>@<page>"``
overrides a row on one page (workflow rows: a request names its page with a
``<page_number>N</page_number>`` marker in a user message, see ``pages``; when its answer
schema lets ``level`` be a string such as ``"N/A"``, rows answered ``"na": true`` get that
string as their level); ids missing from the oracle get
``hit=false`` with reason ``"not in oracle"`` (plus ``(did you mean 'KEY'?)`` for a key spelled alike). The rows a request judges are those of
the last ``<rubric_rows>[...]</rubric_rows>`` block of its user messages (or the id enum
of its verdicts schema); a request without rows is answered by the generic mode
(``generic``: criteria from the schema or the prompt, oracle keys may be criterion texts
or 1-based indexes, the answer in the schema's shape).

An answer sent through a tool whose input the client validates (claude's
``StructuredOutput``) follows the request's verdicts schema (``conform``: required fields
filled with null, an off-enum level snapped to the nearest allowed one).

Around the verdicts: a ``FaultPlan`` (per-request faults, scripted or by seeded rates,
delivered the way each API delivers them), a ``TokenBucket`` (``rpm``/``burst``: 429 with
``Retry-After``/``retry-after-ms``, logged as ``rpm_limit``), a ``PrefixCache`` (cached
prompt tokens in each API's usage field; image parts counted by ``image_tokens``), a ``LatencyModel`` and a ``RequestLog`` (counts,
tokens, timing, ``max_in_flight``). Command line: ``cowork-judge sim --port 0`` or
``python -m cowork_judge.sim`` (``--help`` lists every option).
"""

from .bucket import TokenBucket
from .faults import FAULT_KINDS, Fault, FaultPlan
from .latency import LatencyModel
from .policies import DEMO_REASON_PREFIX, DemoPolicy, OraclePolicy, VerdictPolicy
from .prefix_cache import PrefixCache
from .request_log import LogEntry, RequestLog
from .server import SimServer

__all__ = [
    "DEMO_REASON_PREFIX",
    "FAULT_KINDS",
    "DemoPolicy",
    "Fault",
    "FaultPlan",
    "LatencyModel",
    "LogEntry",
    "OraclePolicy",
    "PrefixCache",
    "RequestLog",
    "SimServer",
    "TokenBucket",
    "VerdictPolicy",
]

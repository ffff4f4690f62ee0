"""Simulated OpenAI-compatible judge endpoint on loopback, for tests, benchmarks and demos.

``SimServer`` answers ``/v1/chat/completions`` like a real endpoint (plain, streaming,
tools, ``response_format``, image parts) with verdicts from a policy (``OraclePolicy``
from a file, or the labelled ``DemoPolicy``), injects faults from a ``FaultPlan``, waits
as a ``LatencyModel`` says, and records every request in a ``RequestLog``. No model is
called and no token is spent. Command line: ``python -m cowork_judge.sim --port 0``.
"""

from .faults import FAULT_KINDS, Fault, FaultPlan
from .latency import LatencyModel
from .policies import DEMO_REASON_PREFIX, DemoPolicy, OraclePolicy, VerdictPolicy
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
    "RequestLog",
    "SimServer",
    "VerdictPolicy",
]

"""Command line of the simulated judge: ``cowork-judge sim`` / ``python -m cowork_judge.sim``."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any, NoReturn

from .faults import FAULT_KINDS, FaultPlan, parse_fault_rate, parse_fault_script
from .latency import LatencyModel
from .policies import DemoPolicy, OraclePolicy, VerdictPolicy
from .server import SimServer

__all__ = ["build_parser", "main"]

LISTEN_LINE = "cowork-judge sim listening on {url}"


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _non_negative(kind: type) -> Any:
    def convert(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
        return value

    convert.__name__ = kind.__name__
    return convert


def _port(text: str) -> int:
    value = _non_negative(int)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"port must be in 0..65535, got {value}")
    return value


def build_parser(prog: str = "cowork-judge sim") -> argparse.ArgumentParser:
    """The argument parser (its ``error`` raises instead of exiting)."""
    p = _Parser(
        prog=prog,
        description="Simulated OpenAI-compatible judge endpoint (no model, no tokens spent).",
        epilog="fault kinds: " + ", ".join(FAULT_KINDS),
    )
    p.add_argument("--port", type=_port, default=0, help="TCP port 0-65535; 0 = pick a free one (default)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    p.add_argument("--oracle", metavar="FILE", help="oracle JSON file; default: the demo policy")
    p.add_argument("--latency-ms", type=_non_negative(float), default=0.0, metavar="MS",
                   help="base delay of every tool and final turn, milliseconds")
    p.add_argument("--per-row-ms", type=_non_negative(float), default=0.0, metavar="MS",
                   help="extra delay per judged row, milliseconds")
    p.add_argument("--jitter", type=_non_negative(float), default=0.0, metavar="FRAC",
                   help="seeded latency jitter fraction in [0, 1]")
    p.add_argument("--fault", action="append", default=[], metavar="KIND=RATE",
                   help="inject KIND with probability RATE per request (repeatable)")
    p.add_argument("--fault-script", metavar="KIND,KIND,ok,...",
                   help="faults for the first requests, one per request, then the rates")
    p.add_argument("--seed", type=int, default=0, help="seed of fault draws and jitter (default 0)")
    p.add_argument("--hang-seconds", type=float, default=3600.0, metavar="S",
                   help="longest a 'hang' fault waits (default 3600)")
    p.add_argument("--tool-rounds", type=_non_negative(int), default=1, metavar="N",
                   help="tool-call turns before the verdicts when tools are offered (default 1)")
    p.add_argument("--reject-json-schema", action="store_true",
                   help="answer 400 to response_format json_schema requests")
    p.add_argument("--api-key", metavar="KEY", help="require 'Authorization: Bearer KEY'")
    p.add_argument("--log", metavar="FILE", help="append the request log to FILE as JSON lines")
    p.add_argument("--model", default="sim-judge", help="model id served (default sim-judge)")
    return p


def _configure(args: argparse.Namespace) -> SimServer:
    """Build the server from parsed arguments. Raises ValueError on bad values."""
    policy: VerdictPolicy = OraclePolicy.from_file(args.oracle) if args.oracle else DemoPolicy()
    rates = dict(parse_fault_rate(spec) for spec in args.fault)
    script = parse_fault_script(args.fault_script) if args.fault_script else None
    faults = (
        FaultPlan(rates, script, seed=args.seed, hang_seconds=args.hang_seconds)
        if rates or script else None
    )
    latency = None
    if args.latency_ms or args.per_row_ms:
        latency = LatencyModel.uniform(args.latency_ms, args.per_row_ms, jitter_frac=args.jitter, seed=args.seed)
    elif args.jitter > 1:
        raise ValueError("--jitter must be in [0, 1]")
    return SimServer(
        policy, faults=faults, latency=latency, host=args.host, port=args.port,
        tool_rounds=args.tool_rounds, reject_json_schema=args.reject_json_schema,
        api_key=args.api_key, log_path=args.log, model=args.model,
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulator until SIGINT/SIGTERM.

    Prints ``cowork-judge sim listening on http://HOST:PORT/v1`` (flushed) once serving.

    Returns:
        0 after a signal, 2 for bad arguments (message on stderr), 1 when the address
        cannot be bound.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(list(sys.argv[1:] if argv is None else argv))
        server = _configure(args)
    except SystemExit as exc:  # --help
        return exc.code if isinstance(exc.code, int) else 0
    except (_UsageError, ValueError) as exc:
        parser.print_usage(sys.stderr)
        print(f"{parser.prog}: error: {exc}", file=sys.stderr)
        return 2
    done = threading.Event()
    previous: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            previous[signum] = signal.signal(signum, lambda *_: done.set())
    try:
        try:
            server.start()
        except OSError as exc:
            print(f"{parser.prog}: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}",
                  file=sys.stderr)
            return 1
        print(LISTEN_LINE.format(url=server.url), flush=True)
        while not done.wait(0.2):
            pass
        return 0
    finally:
        server.stop()
        for signum, handler in previous.items():
            signal.signal(signum, handler)

"""Command line of the simulated judge: ``cowork-judge sim`` / ``python -m cowork_judge.sim``.

``--help`` documents every option, the endpoints and the oracle file format (``EPILOG``).
"""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, NoReturn, TypeVar

from .faults import FAULT_KINDS, FaultPlan, parse_fault_rate, parse_fault_script
from .latency import LatencyModel
from .oracle_file import OracleFile
from .quotes import Fabricate
from .policies import DemoPolicy, GulliblePolicy, OracleDirPolicy, OraclePolicy, RequestFlip, VerdictPolicy
from .server import SimServer

__all__ = ["build_parser", "main"]

LISTEN_LINE = "cowork-judge sim listening on {url}"

EPILOG = """\
endpoints (the /v1 prefix is optional):
  POST /v1/chat/completions    OpenAI Chat Completions: plain or SSE, tools, response_format, images
  POST /v1/responses           OpenAI Responses API, SSE (codex CLI: wire_api = "responses")
  POST /v1/messages            Anthropic Messages API, SSE (claude CLI: ANTHROPIC_BASE_URL=http://HOST:PORT)
  POST /v1/messages/count_tokens, GET /v1/models, HEAD /   minimal answers
  POST /v1/files, GET /v1/files/ID/content, POST /v1/batches, GET /v1/batches[/ID], POST /v1/batches/ID/cancel
                               OpenAI's Batch API over chat completions (--batch-delay, --batch-fail,
                               --batch-expire); a batched request's instance is read from its custom_id
                               (cj-<sha256(name)[:12]>-...) among the --oracle-dir names
  GET /_sim/log, POST /_sim/reset                          the request log as JSON (with batch_submitted:
                                                           every [batch id, custom_id] submitted); clear it

rubric rows: the JSON list in the last <rubric_rows>[...]</rubric_rows> block of the user
messages, else the id enum of properties.verdicts.items in the answer's JSON schema; the
answer is {"verdicts": [{"id", "reason", "pages"?, "hit", "level"?, "na"?}]}. Without rows the generic
mode reads the criteria from the schema or the prompt and answers in the schema's shape
(--no-generic: HTTP 400 instead).

oracle file (--oracle), JSON:
  {"<row id>": {"hit": true|false, "level": 0.75, "na": false, "pages": [2, 5], "reason": "...", "criterion": "..."},
   "<row id>@<page>": {...}}
  only "hit" is required; "criterion" (the labelled text) is informational here (calibrate
  checks it against the row's description); "level" in [0, 1] (gradient rows; default: highest level choice
  when hit, else lowest); "pages" is copied into the verdict (the pages a whole-deck
  request, such as ppt_judge's text pass, says the row was found on); "<row id>@<page>" overrides the row on that page (workflow rows
  whose request carries a <page_number>N</page_number> marker in a user message; when the
  answer schema lets "level" be a string such as "N/A", rows with "na": true get it);
  ids missing from the oracle get hit=false with reason "not in oracle" (followed by
  " (did you mean 'KEY'?)" when a key is spelled alike). In the generic
  mode a key may also be a criterion's text (matched exactly, then normalized) or its
  1-based index. Without --oracle: the demo policy (reasons start "simulated judge, no model:").
  Edits take effect on the next request: the file is re-read when its modification time, size or
  inode changes, and the console says so; while it does not read (invalid JSON, a bad entry,
  removed) model requests get HTTP 400 naming the problem, never the old file's verdicts.

oracle folder (--oracle-dir DIR): one oracle per instance, for a batch whose row ids repeat
  across instances. A request is answered from DIR/NAME.json, else DIR/NAME/oracle.json, where
  NAME is its X-Cowork-Judge-Instance header; the judge sends it only when asked
  (JUDGE_SEND_INSTANCE_ID=1; `cowork-judge batch` sets JUDGE_INSTANCE_ID to each instance's
  name). Without the header, or with no oracle for NAME: HTTP 400 (never "not in oracle").

token bucket (--rpm, --burst): shared by all model requests; when empty: HTTP 429 with
Retry-After (whole seconds, rounded up) and retry-after-ms, logged as fault rpm_limit.
--tpm N adds a tokens bucket (a request takes its prompt's estimated tokens; fault tpm_limit).
Every model reply (200, 429, faults) then carries the buckets' state: x-ratelimit-limit-,
-remaining-, -reset-requests and -tokens (reset as "1s", "20ms", "6m0s") on chat completions
and responses; anthropic-ratelimit-requests-/tokens- limit, remaining, reset (RFC 3339) on
/v1/messages. --no-ratelimit-headers sends none.
usage counts text at 4 characters a token and image parts by OpenAI's vision rule
(Anthropic's on /v1/messages), and reports cached prompt tokens (leading tokens, images
included in their place, shared with an earlier answered request, in steps of 128 from
1024 up).

fault kinds (--fault KIND=RATE, --fault-script KIND,ok,...), one draw per model request;
shown as chat completions sends them: /v1/responses sends the stream ones as error +
response.failed events and a cut answer as response.incomplete; /v1/messages sends
Anthropic error documents (429 rate_limit_error, 500 api_error / 529 overloaded_error,
400 credit balance too low, an event: error inside the stream):
""" + "\n".join(f"  {kind:<20} {what}" for kind, what in FAULT_KINDS.items())


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


_Number = TypeVar("_Number", int, float)


def _non_negative(kind: type[_Number]) -> Callable[[str], _Number]:
    """An argparse ``type=``: ``kind(text)``, refused when not a number or below 0."""
    def convert(text: str) -> _Number:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a {kind.__name__}") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
        return value

    convert.__name__ = kind.__name__
    return convert


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return value


def _port(text: str) -> int:
    value = _non_negative(int)(text)
    if value > 65535:
        raise argparse.ArgumentTypeError(f"port must be in 0..65535, got {value}")
    return value


def build_parser(prog: str = "cowork-judge sim") -> argparse.ArgumentParser:
    """The argument parser (its ``error`` raises instead of exiting)."""
    p = _Parser(
        prog=prog,
        description="Simulated judge endpoint: OpenAI- and Anthropic-compatible, no model, no tokens spent.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("--port", type=_port, default=0, help="TCP port 0-65535; 0 = pick a free one (default)")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    oracle = p.add_mutually_exclusive_group()
    oracle.add_argument("--oracle", metavar="FILE", help="oracle JSON file, re-read when it changes: an edit takes "
                        "effect on the next request (a file that no longer reads: HTTP 400 until fixed); default: the "
                        "demo policy")
    oracle.add_argument("--oracle-dir", metavar="DIR", help="one oracle per instance: DIR/NAME.json or DIR/NAME/oracle.json, "
                        "NAME from the request's X-Cowork-Judge-Instance header (judge: JUDGE_SEND_INSTANCE_ID=1)")
    p.add_argument("--gullible", action="append", default=[], metavar="TOKEN",
                   help="a maximally gullible judge: a request whose text contains TOKEN gets the best verdict for "
                        "every row (repeatable; red-team measurements, bench/redteam.py)")
    p.add_argument("--gullible-rows", action="append", default=[], metavar="TOKEN",
                   help="a targeted gullible judge: TOKEN helps only the rows the attack text names (a row id within "
                        "400 characters of the token; none named = every row), the other rows are judged as usual "
                        "(repeatable; with --gullible, the TOKENs of --gullible still help every row)")
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
    p.add_argument("--rpm", type=_positive_float, metavar="N",
                   help="token bucket: requests per minute shared by all model requests (default: no limit)")
    p.add_argument("--burst", type=_positive_int, metavar="B",
                   help="token bucket capacity, requests (default: ceil(rpm/60), at least 1); needs --rpm")
    p.add_argument("--flip", type=_non_negative(float), metavar="RATE",
                   help="a noisy judge: flip each row's answer independently per request with probability RATE in "
                        "[0, 1], seeded by --seed (repeated sampling measured against the oracle; JUDGE_SAMPLES)")
    p.add_argument("--fabricate", type=_non_negative(float), metavar="P",
                   help="a judge that invents hits: with probability P in [0, 1] per request (re-asks included), every "
                        "positive row the oracle says is missed becomes a hit with a quote that is in no text (seeded by "
                        "--seed; measured by bench/grounding.py)")
    p.add_argument("--tpm", type=_positive_float, metavar="N",
                   help="a second bucket: tokens per minute (a request takes its prompt's estimated tokens; capacity one "
                        "minute's worth); default: no token limit")
    p.add_argument("--no-ratelimit-headers", action="store_true",
                   help="send no x-ratelimit-* / anthropic-ratelimit-* headers (an endpoint that sends none); by default "
                        "every model reply carries the buckets' state when --rpm or --tpm is given")
    p.add_argument("--batch-delay", type=_non_negative(float), default=0.0, metavar="SECONDS",
                   help="Batch API: seconds a batch stays in_progress before it completes (default 0)")
    p.add_argument("--batch-fail", type=_non_negative(float), default=0.0, metavar="P",
                   help="Batch API: share of batched requests that fail (HTTP 500 in the error file), drawn per custom_id")
    p.add_argument("--batch-expire", type=_non_negative(float), default=0.0, metavar="P",
                   help="Batch API: share of batched requests that expire (error code batch_expired), drawn per custom_id")
    p.add_argument("--no-generic", action="store_true",
                   help="answer requests without rubric rows with HTTP 400 instead of the generic mode")
    p.add_argument("--json-streams", action="store_true",
                   help="answer a streamed request (stream: true) with one plain JSON document, as a request without "
                        "stream (an endpoint or gateway that does not stream; the log still says stream=true)")
    return p


def _say(line: str) -> None:
    print(f"cowork-judge sim: {line}", file=sys.stderr, flush=True)


def _oracle_file(path: str) -> OracleFile:
    """``--oracle FILE``: re-read when it changes (trial 22 P-5), each change said on the console; a row the oracle
    lacks is said too, not only answered "not in oracle" (trial 16 P-5). Raises ValueError when FILE does not read."""
    return OracleFile(path, say=_say, on_missing=lambda row_id, close: _say(
        f"warning: oracle file {path} has no entry for row {row_id!r}: answered hit=false \"not in oracle\""
        + (f" (did you mean {close!r}?)" if close else "")))


def _unshown_quote_teller() -> Callable[[str, str, int | None], None]:
    """The console line for an oracle quote a request did not show (trial 33 P-1: it was swapped silently for a line
    the request showed, so a paraphrase or typo grounded), said once per row id and quote."""
    said: set[tuple[str, str]] = set()
    lock = threading.Lock()

    def tell(row_id: str, quote: str, page: int | None) -> None:
        with lock:
            if (row_id, quote) in said:
                return
            said.add((row_id, quote))
        where = f"the agent's text the request for page {page} sent" if page is not None else "the agent's text the request sent"
        other_page = f", or key the entry \"{row_id}@<page>\" for the page it is on" if page is not None else ""
        _say(f"warning: oracle entry {row_id!r}: its quote {quote!r:.80} is not in {where} (case and spacing aside): "
             "answered with a line the request showed instead, so the credit grounds here; a real judge's quote that "
             "is not in the text sent is withdrawn (grounded: false). Copy the quote verbatim from the deliverable"
             f"{other_page} (docs/simulator.md)")
    return tell


def _na_unread_teller() -> Callable[[str], None]:
    """The console line for an oracle entry's ``"na": true`` on a row whose request has no N/A answer (trial 39 P-5:
    an agentic row marked N/A was scored a plain miss with no word), said once per row id."""
    said: set[str] = set()
    lock = threading.Lock()

    def tell(row_id: str) -> None:
        with lock:
            if row_id in said:
                return
            said.add(row_id)
        _say(f"warning: oracle entry {row_id!r}: \"na\": true is not read for this row: its request has no "
             "not-applicable answer (only ppt_judge's page rows have one; an agentic row is hit or missed), so it is "
             "answered as the entry's hit says and its weight still counts (docs/simulator.md)")
    return tell


def _configure(args: argparse.Namespace) -> SimServer:
    """Build the server from parsed arguments. Raises ValueError on bad values."""
    policy: VerdictPolicy = (_oracle_file(args.oracle) if args.oracle
                             else OracleDirPolicy(args.oracle_dir) if args.oracle_dir else DemoPolicy())
    if args.gullible_rows:
        policy = GulliblePolicy(policy, args.gullible_rows, targeted=True)
    if args.gullible:
        policy = GulliblePolicy(policy, args.gullible)
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
        rpm=args.rpm, burst=args.burst, generic=not args.no_generic, tpm=args.tpm,
        ratelimit_headers=not args.no_ratelimit_headers, json_streams=args.json_streams,
        flip=RequestFlip(args.flip, args.seed) if args.flip is not None else None,
        fabricate=Fabricate(args.fabricate, args.seed) if args.fabricate is not None else None,
        batch_delay=args.batch_delay, batch_fail=args.batch_fail, batch_expire=args.batch_expire, seed=args.seed,
        on_unshown_quote=_unshown_quote_teller(),
        on_na_unread=_na_unread_teller(),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the simulator until SIGINT/SIGTERM.

    Prints ``cowork-judge sim listening on http://HOST:PORT/v1`` (flushed) once serving.
    ``argv`` defaults to ``sys.argv[1:]``; ``--help`` prints the options, the endpoints, the
    oracle format and the fault kinds.

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
    if args.oracle:  # trial 9 F3: a label the judge reads another way than it says (read again: a small file)
        for line in OraclePolicy.from_file(args.oracle).conflicts():
            print(f"{parser.prog}: warning: oracle file {args.oracle}: {line}", file=sys.stderr)
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
        for restored, handler in previous.items():
            signal.signal(restored, handler)

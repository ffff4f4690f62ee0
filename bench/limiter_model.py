"""Benchmark model: the run's request limiter in K jobs against one endpoint, on a virtual clock.

What it runs is this checkout's code (or ``--src``'s): `transport.limiter.Limiter` (one per
job), `core.retry.RetryPolicy.wait_sec` (the wait of a refused block), and the
simulator's `sim.bucket.TokenBucket` (the load-dependent limit), driven by a discrete-event
loop instead of real time. What it models, and nothing else:

- a job = ``--concurrency`` lanes; a lane judges blocks one after the other; a block is
  ``--turns`` model calls in a row (a block resumes at the refused call, as
  `agentic.scheduler` does);
- a call: `Limiter.try_start` (waiting what it says, as `Limiter.acquire` does), then the
  endpoint: the bucket refuses it (429 after ``REFUSE_SEC`` with the bucket's
  ``retry-after-ms``), or a random fault is drawn (``--random-429``: HTTP 429 with
  ``Retry-After: 1``; ``--random-stream``: an error inside a 200 stream after
  ``STREAM_SEC``, no ask, which the limiter does not see), else the answer comes after
  ``--latency-ms``;
- a refused call: `Limiter.rate_limited` (in-stream: `failed`), then the block sleeps
  ``RetryPolicy.wait_sec("rate_limit", n, rng, ask)``, n = the block's refusals so far.

Not modelled: interpreter start-up (every job's first call is at ``uniform(0, --spread)``
s), CPU contention, HTTP overheads, the block's try limit (a block retries until
answered: the model measures time and waste, not coverage). So it is a tool to compare
limiter designs quickly (one scenario in well under a second) and the real benches
(`bench/fleet.py`, `bench/peers.py`, `bench/faults.py`) are the measurement.

Reported per scenario, as the median (min–max) over ``--seeds`` seeded runs: the
makespan against the lower bound ``max(first start + (useful − burst) / rate + latency,
critical path of one job)``, wasted 429s per useful call, and the makespan against the
same scenario with no faults and no limit ("free", also given in seconds). ``--limiter none`` replaces the run's
limiter by `NoLimiter` (each refused block waits its own ask, nothing else): the floor
for a judge that honours the server's ask with the same blocks in flight.

Usage::

    python bench/limiter_model.py [--seeds 20] [--src PATH] [--scenario NAME ...] [--spread S] [--limiter none]

Scenarios (``--scenario``, default all): ``bucket-1x100``, ``bucket-8x40`` (240/min,
burst 4, 8 jobs starting together), ``bucket120-1x100``, ``bucket120-8x40`` (120/min),
``random429-100`` (100 rows, blocks of 4, two calls a block, 30 % HTTP 429, as the peers
bench), ``faults-30`` (half HTTP 429, half in-stream, backoff cap 2 s, as
`bench/faults.py`).
"""

from __future__ import annotations

import argparse
import heapq
import math
import random
import statistics
import sys
from collections.abc import Callable, Generator
from dataclasses import dataclass, field, replace

REFUSE_SEC = 0.005
"""Seconds from sending a refused request to its 429."""
STREAM_SEC = 0.05
"""Seconds from sending to an in-stream rate-limit error."""


@dataclass(frozen=True)
class Scenario:
    """One modelled run: K jobs against one endpoint (times in seconds, rates per second)."""

    jobs: int = 1
    rows: int = 100
    batch: int = 4
    turns: int = 1
    concurrency: int = 2
    latency: float = 0.2
    rpm: float | None = None
    burst: int | None = None
    random_429: float = 0.0
    random_stream: float = 0.0
    backoff_max: float = 20.0
    spread: float = 0.0
    headers: bool = False


SCENARIOS: dict[str, Scenario] = {
    "bucket-1x100": Scenario(jobs=1, rows=100, rpm=240),
    "bucket-8x40": Scenario(jobs=8, rows=40, rpm=240),
    "bucket120-1x100": Scenario(jobs=1, rows=100, rpm=120),
    "bucket120-8x40": Scenario(jobs=8, rows=40, rpm=120),
    "random429-100": Scenario(jobs=1, rows=100, turns=2, random_429=0.3),
    "faults-30": Scenario(jobs=1, rows=7, batch=2, turns=2, random_429=0.15, random_stream=0.15, backoff_max=2.0),
    "bucket-32x10": Scenario(jobs=32, rows=10, rpm=240),
}


@dataclass
class Outcome:
    makespan: float
    bound: float
    useful: int
    wasted: int
    max_in_flight: int
    limiter_events: int = 0
    firsts: list[float] = field(default_factory=list)


class Loop:
    """A discrete-event loop of generator processes; each yields the seconds it sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self._heap: list[tuple[float, int, Generator[float, None, None]]] = []
        self._seq = 0

    def spawn(self, at: float, proc: Generator[float, None, None]) -> None:
        heapq.heappush(self._heap, (at, self._seq, proc))
        self._seq += 1

    def run(self, until: float = 36_000.0) -> None:
        while self._heap:
            t, _, proc = heapq.heappop(self._heap)
            if t > until:
                break
            self.now = t
            try:
                delay = next(proc)
            except StopIteration:
                continue
            self.spawn(t + max(0.0, delay), proc)


class NoLimiter:
    """The floor: no run-wide rule at all (every request starts at once; a refused block
    still waits its own ask, `RetryPolicy`). Same interface as `Limiter`."""

    def __init__(self, *, backoff_max_sec: float = 20.0, rng: random.Random | None = None,
                 clock: Callable[[], float] = lambda: 0.0) -> None:
        self.clock = clock
        self.events = 0

    def try_start(self):  # noqa: ANN201 - mirrors Limiter.try_start
        from cowork_judge.transport.limiter import Ticket

        return Ticket(self.clock()), 0.0

    def answered(self, ticket: object, quota: object = None) -> None:
        """Nothing to learn."""

    def failed(self, ticket: object) -> None:
        """Nothing to learn."""

    def rate_limited(self, ticket: object, asked_sec: float | None, *, whole_attempt: bool = False,
                     quota: object = None) -> bool:
        """Nothing to learn: never an event."""
        return False


def run_once(sc: Scenario, seed: int, *, free: bool = False, limiter: str = "run") -> Outcome:
    """Model one run of `sc` with `seed`; `free`: no limit, no faults (the reference);
    `limiter`: ``run`` (`transport.limiter.Limiter`) or ``none`` (`NoLimiter`)."""
    from cowork_judge.core.retry import RetryPolicy
    from cowork_judge.sim.bucket import TokenBucket, default_burst, openai_headers
    from cowork_judge.transport.quota import Budget, Quota, read_quota
    from cowork_judge.transport.limiter import Limiter as RunLimiter

    Limiter = NoLimiter if limiter == "none" else RunLimiter

    loop = Loop()

    def clock() -> float:
        return loop.now

    rng = random.Random(seed)
    fault_rng = random.Random(seed * 7919 + 1)
    bucket = TokenBucket(sc.rpm, sc.burst, clock=clock) if sc.rpm and not free else None
    ample = Quota(requests=Budget(limit=6000.0, remaining=99.0, reset_sec=0.01))  # random faults: capacity left

    def quota():
        if not sc.headers:
            return None
        return read_quota(openai_headers(bucket, None)) if bucket is not None else ample
    policy = RetryPolicy(max_tries=10**6, backoff_max_sec=sc.backoff_max)
    stats = {"useful": 0, "wasted": 0, "in_flight": 0, "max_in_flight": 0, "last_end": 0.0}
    limiters = []
    firsts: list[float] = []

    def call(lim: Limiter) -> Generator[float, None, tuple[str, float | None]]:
        while True:
            ticket, wait = lim.try_start()
            if ticket is not None:
                break
            yield wait
        stats["in_flight"] += 1
        stats["max_in_flight"] = max(stats["max_in_flight"], stats["in_flight"])
        if bucket is not None:
            ask = bucket.take()
            said = quota()
            if ask > 0:
                yield REFUSE_SEC
                stats["in_flight"] -= 1
                stats["wasted"] += 1
                asked = math.ceil(ask * 1000.0) / 1000.0
                lim.rate_limited(ticket, asked, **({"quota": said} if said else {}))
                return "rate_limit", asked
        else:
            said = quota()
        draw = fault_rng.random() if not free else 1.0
        if draw < sc.random_429:
            yield REFUSE_SEC
            stats["in_flight"] -= 1
            stats["wasted"] += 1
            lim.rate_limited(ticket, 1.0, **({"quota": said} if said else {}))
            return "rate_limit", 1.0
        if draw < sc.random_429 + sc.random_stream:
            yield STREAM_SEC
            stats["in_flight"] -= 1
            stats["wasted"] += 1
            lim.failed(ticket)
            return "rate_limit", None
        yield sc.latency
        stats["in_flight"] -= 1
        stats["useful"] += 1
        stats["last_end"] = max(stats["last_end"], loop.now)
        lim.answered(ticket, **({"quota": said} if said else {}))
        return "ok", None

    def lane(lim: Limiter, blocks: list[int], job_rng: random.Random) -> Generator[float, None, None]:
        while blocks:
            blocks.pop()
            refusals = 0
            for _ in range(sc.turns):
                while True:
                    kind, asked = yield from call(lim)
                    if kind == "ok":
                        break
                    refusals += 1
                    yield policy.wait_sec(kind, refusals, job_rng, asked)

    n_blocks = math.ceil(sc.rows / sc.batch)
    for k in range(sc.jobs):
        job_rng = random.Random(rng.random())
        lim = Limiter(backoff_max_sec=sc.backoff_max, rng=random.Random(job_rng.random()), clock=clock)
        limiters.append(lim)
        blocks = list(range(n_blocks))
        start = rng.uniform(0.0, sc.spread) if sc.spread > 0 else 0.0
        firsts.append(start)
        for _ in range(sc.concurrency):
            loop.spawn(start, lane(lim, blocks, job_rng))
    loop.run()
    useful = stats["useful"]
    critical = math.ceil(n_blocks / sc.concurrency) * sc.turns * sc.latency
    if bucket is not None:
        burst = sc.burst if sc.burst is not None else default_burst(sc.rpm or 1.0)
        through = min(firsts) + max(0, useful - burst) / ((sc.rpm or 1.0) / 60.0) + sc.latency
    else:
        through = 0.0
    bound = max(through, min(firsts) + critical)
    return Outcome(makespan=stats["last_end"], bound=bound, useful=useful, wasted=stats["wasted"],
                   max_in_flight=stats["max_in_flight"], limiter_events=sum(lim.events for lim in limiters), firsts=firsts)


def _fmt(values: list[float], spec: str) -> str:
    return f"{statistics.median(values):{spec}} ({min(values):{spec}}–{max(values):{spec}})"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--scenario", action="append", choices=sorted(SCENARIOS), help="default: all")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--src", help="put this folder first on sys.path (another checkout's src/)")
    p.add_argument("--spread", type=float, default=None, help="override every scenario's start spread, seconds")
    p.add_argument("--headers", action="store_true",
                   help="every reply carries the bucket's x-ratelimit-* state (random faults: capacity left)")
    p.add_argument("--limiter", choices=("run", "none"), default="run",
                   help="none: no run-wide rule, only each refused block's own wait (the floor)")
    args = p.parse_args(argv)
    if args.src:
        sys.path.insert(0, args.src)
    names = args.scenario or list(SCENARIOS)
    print("| scenario | makespan / bound | wasted / useful | makespan / free | free makespan s | limiter events |")
    print("|---|---|---|---|---|---|")
    for name in names:
        sc = SCENARIOS[name]
        if args.spread is not None:
            sc = replace(sc, spread=args.spread)
        if args.headers:
            sc = replace(sc, headers=True)
        ratios, waste, slow, free, events = [], [], [], [], []
        for seed in range(1, args.seeds + 1):
            out = run_once(sc, seed, limiter=args.limiter)
            ref = run_once(sc, seed, free=True)
            ratios.append(out.makespan / out.bound)
            waste.append(out.wasted / max(1, out.useful))
            slow.append(out.makespan / ref.makespan)
            free.append(ref.makespan)
            events.append(float(out.limiter_events))
        print(f"| {name} | {_fmt(ratios, '.2f')}× | {_fmt(waste, '.2f')} | {_fmt(slow, '.2f')}× | {_fmt(free, '.1f')} "
              f"| {_fmt(events, '.0f')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark model: the run's request limiter in K jobs against one endpoint, on a virtual clock.

What it runs is this checkout's code (or ``--src``'s): `transport.limiter.Limiter` (one per
job), `core.retry.RetryPolicy.wait_sec` (the wait of a refused block), and the
simulator's `sim.bucket.TokenBucket` (the load-dependent limit), driven by a discrete-event
loop instead of real time. What it models, and nothing else:

- a job = ``--concurrency`` lanes (`agentic.lanes`); a block is ``--turns`` model calls in
  a row, made holding a lane; blocks start in order as lanes free up (a block resumes at
  the refused call, as `agentic.scheduler` does: a refusal at admission is re-sent in
  place); a block that waits out a RANDOM refusal (a 429 whose headers showed capacity
  left) gives its lane to the next block meanwhile and takes one back before any block that
  has not started; any other wait keeps the lane (``--lanes hold``: none is given back,
  ``--lanes always``: every refusal at admission gives it back);
- a call: `Limiter.try_start` (waiting what it says, as `Limiter.acquire` does), then the
  endpoint: the bucket refuses it (429 after ``REFUSE_SEC`` with the bucket's
  ``retry-after-ms``), or a random fault is drawn (``--random-429``: HTTP 429 with
  ``Retry-After: 1``; ``--random-stream``: an error inside a 200 stream after
  ``STREAM_SEC``, no ask, which the limiter does not see), else the answer comes after
  ``--latency-ms``;
- a refused call: `Limiter.rate_limited` (in-stream: `failed`), then the block sleeps
  ``RetryPolicy.wait_sec("rate_limit", n, rng, ask)``, n = the block's refusals so far,
  without the herd's spread (``herd=False``) when the limiter judged the refusal random
  (its headers showed capacity left: `Limiter.capacity_left`); ``--exact-wait``: exactly
  the ask (the floor of a judge that honours ``Retry-After``, with ``--limiter none``).

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
`bench/faults.py`), ``random429-example`` and ``random429-rows40`` (`bench/faults.py --kinds
http_429 [--rows 40]`: 5 or 40 rows in blocks of 4, two calls a block, 30 % HTTP 429,
backoff cap 2 s; with ``--headers`` the refusals show capacity left, as with ``--rpm 6000``).
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
    "random429-example": Scenario(jobs=1, rows=5, turns=2, random_429=0.3, backoff_max=2.0),
    "random429-rows40": Scenario(jobs=1, rows=40, turns=2, random_429=0.3, backoff_max=2.0),
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


class Park:
    """Yielded by a process that waits for a lane: the loop parks it until `Lanes.give`
    wakes it (no polling)."""

    def __init__(self) -> None:
        self.proc: Generator[float, None, None] | None = None


class Loop:
    """A discrete-event loop of generator processes; each yields the seconds it sleeps, or a
    `Park` (it waits until woken)."""

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
            if isinstance(delay, Park):
                delay.proc = proc
                continue
            self.spawn(t + max(0.0, delay), proc)


class Lanes:
    """`agentic.lanes.Lanes` on the virtual clock: blocks coming back from a wait first."""

    def __init__(self, loop: Loop, size: int) -> None:
        self.loop, self.free = loop, size
        self.back: list[Park] = []
        self.new: list[Park] = []

    def take(self, *, back: bool = False) -> Generator[Park, None, None]:
        if self.free > 0 and not self.back and (back or not self.new):
            self.free -= 1
            return
        park = Park()
        (self.back if back else self.new).append(park)
        yield park

    def give(self) -> None:
        for queue in (self.back, self.new):
            if queue:
                park = queue.pop(0)
                assert park.proc is not None
                self.loop.spawn(self.loop.now, park.proc)
                return
        self.free += 1


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

    def capacity_left(self, quota: object) -> bool:
        """Tells nothing apart."""
        return False


def run_once(sc: Scenario, seed: int, *, free: bool = False, limiter: str = "run", lanes_rule: str = "random",
             exact: bool = False) -> Outcome:
    """Model one run of `sc` with `seed`; `free`: no limit, no faults (the reference);
    `limiter`: ``run`` (`transport.limiter.Limiter`) or ``none`` (`NoLimiter`); `lanes_rule`:
    which waits give the block's lane back — ``random`` (a random refusal's, as
    `agentic.scheduler`), ``always`` (every refusal at admission's), ``hold`` (none, as before
    issue 29's second round); `exact`: every wait is exactly the server's ask."""
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

    def call(lim: Limiter) -> Generator[float, None, tuple[str, float | None, bool]]:
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
                random_refusal = bool(said) and judged_random(lim, said)
                lim.rate_limited(ticket, asked, **({"quota": said} if said else {}))
                return "rate_limit", asked, random_refusal
        else:
            said = quota()
        draw = fault_rng.random() if not free else 1.0
        if draw < sc.random_429:
            yield REFUSE_SEC
            stats["in_flight"] -= 1
            stats["wasted"] += 1
            random_refusal = bool(said) and judged_random(lim, said)
            lim.rate_limited(ticket, 1.0, **({"quota": said} if said else {}))
            return "rate_limit", 1.0, random_refusal
        if draw < sc.random_429 + sc.random_stream:
            yield STREAM_SEC
            stats["in_flight"] -= 1
            stats["wasted"] += 1
            lim.failed(ticket)
            return "rate_limit", None, False
        yield sc.latency
        stats["in_flight"] -= 1
        stats["useful"] += 1
        stats["last_end"] = max(stats["last_end"], loop.now)
        lim.answered(ticket, **({"quota": said} if said else {}))
        return "ok", None, False

    def judged_random(lim: Limiter, said: object) -> bool:
        """As `transport.attempts.Held`: the limiter judges the refusal's own headers."""
        capacity_left = getattr(lim, "capacity_left", None)  # an older tree (--src) has none
        return bool(capacity_left(said)) if capacity_left is not None else False

    def wait_of(kind: str, n: int, job_rng: random.Random, asked: float | None, random_refusal: bool) -> float:
        if exact and asked is not None:
            return asked
        if random_refusal:
            return policy.wait_sec(kind, n, job_rng, asked, herd=False)
        return policy.wait_sec(kind, n, job_rng, asked)

    def block(lim: Limiter, lanes: Lanes, job_rng: random.Random) -> Generator[float, None, None]:
        yield from lanes.take()  # type: ignore[misc]
        failures = 0  # the block's backing-off failures between attempts (in-stream errors)
        for _ in range(sc.turns):
            refusals = 0  # this turn's refusals at admission, re-sent in place
            while True:
                kind, asked, random_refusal = yield from call(lim)
                if kind == "ok":
                    break
                if asked is None:  # an error inside the stream: the block backs off holding its lane
                    failures += 1
                    yield wait_of(kind, failures, job_rng, asked, False)
                    continue
                refusals += 1
                wait = wait_of(kind, refusals, job_rng, asked, random_refusal)
                if lanes_rule == "hold" or (lanes_rule == "random" and not random_refusal):
                    yield wait
                    continue
                lanes.give()
                yield wait
                yield from lanes.take(back=True)  # type: ignore[misc]
        lanes.give()

    n_blocks = math.ceil(sc.rows / sc.batch)
    for k in range(sc.jobs):
        job_rng = random.Random(rng.random())
        lim = Limiter(backoff_max_sec=sc.backoff_max, rng=random.Random(job_rng.random()), clock=clock)
        limiters.append(lim)
        lanes = Lanes(loop, sc.concurrency)
        start = rng.uniform(0.0, sc.spread) if sc.spread > 0 else 0.0
        firsts.append(start)
        for _ in range(n_blocks):  # in order: the first `concurrency` take lanes, the others queue
            loop.spawn(start, block(lim, lanes, job_rng))
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
    p.add_argument("--lanes", choices=("random", "always", "hold"), default="random",
                   help="which waits give the block's lane to another block: a random refusal's (the judge's rule), "
                        "every refusal at admission's, or none (before issue 29's second round)")
    p.add_argument("--exact-wait", action="store_true",
                   help="every refused request waits exactly the server's ask (with --limiter none: the floor)")
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
            out = run_once(sc, seed, limiter=args.limiter, lanes_rule=args.lanes, exact=args.exact_wait)
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

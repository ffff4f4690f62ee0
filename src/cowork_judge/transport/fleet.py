"""A fleet's ONE request limiter, kept in a shared Redis (``JUDGE_LIMITER_URL``).

Every job of a fleet that names the same store and the same limiter key takes its
tickets from one state there, so what one job learns (a 429, the key's own headers)
holds the whole fleet at once, before the others are refused too. One Lua script
(`ACQUIRE`, `SETTLE`: atomic, on the store's clock, ``TIME``) keeps three things per key:

- **a fleet-wide pace** — a GCRA token bucket (Generic Cell Rate Algorithm, ITU-T I.371;
  the theoretical arrival time ``tat``): a start at ``now`` is admitted when ``tat ≤ now``,
  then ``tat ← max(tat, now) + 1 / rate``. The rate is the lowest of: the operator's
  ``JUDGE_FLEET_RPM / 60`` (and ``JUDGE_FLEET_TPM / 60`` ÷ this job's mean tokens per
  request); the key's own ``limit / 60`` from the replies' rate-limit headers
  (`transport.quota`) times `HEADROOM`; and a rate learned from refusals exactly as the
  local limiter learns it (`transport.limiter`: ``rate ← max(rate_min, min(β·current,
  max(GOT_SHARE·got, β²·current)))`` on a rate-limit event, doubling every DOUBLING_SEC),
  with ``sent`` and ``got`` measured over the whole fleet (exponential averages over
  RATE_WINDOW_SEC and GOT_WINDOW_SEC);
- **a shared gate** — a refusal with ``Retry-After`` closes it for every job, under the
  local limiter's share rule (``share(2) ≥ 0.3`` over the fleet's last OUTCOME_WINDOW
  replies), held for exactly the server's ask (the refused request's own retry wait is the
  one jittered draw of that ask, `transport.retrying`); a 429 whose own headers show capacity left is a
  random refusal and changes nothing;
- **a fleet-wide cap on requests in flight** — leases in a sorted set that expire after
  ``lease_sec`` (a killed container's slots come back on their own); a new key starts at
  `INITIAL_WINDOW` and grows by one per answer (slow start) until the first event, which
  cuts it to ``max(1, β · in flight)``; then it grows by ``1 / window`` per answer.

An answer whose headers show a budget LOW (`transport.quota.LOW_SHARE`) holds the fleet for
the gap those headers give (``reset / (remaining + 1)``, at most JUDGE_RETRY_BACKOFF_MAX)
but cuts no pace: the fleet already runs at the key's own rate, so a LOW key means requests
that bunched on their way (a loaded machine), not a rate to learn. (The local limiter does
cut on it: one job does not know how many others share the key. `bench/fleet.py` 8 × 40
with headers and Redis: a cut on LOW answers left one run of five at 1.26× the bound.)

**Bounds.** No job holds the fleet long: the pace's next start and the gate are written
at most `MAX_HOLD_SEC` ahead of the store's clock, and a state found further ahead is cut
back to it; the operator's pace is never below the local limiter's slowest (one request per
JUDGE_RETRY_BACKOFF_MAX, the floor `config.judge_config` gives JUDGE_FLEET_RPM). A request held past
its time fails ``rate_limit`` with the store's own words (`FleetLimiter.holding`: "the
shared limiter … holds the fleet's requests until …"), not the endpoint's: the endpoint may
never have refused anyone.

The store is never worth a reward: every call has a short socket timeout
(`STORE_TIMEOUT_SEC`, connecting included, no retries), and the first failure — the
``redis`` library missing, the store unreachable at start, gone mid-run, or accepting and
never answering — switches this limiter to the local one (`transport.limiter.Limiter`)
for the rest of the run, with one warning that the run's result document carries
(`warnings`), naming the host and port the client dialled. The URL is read once
(`transport.store_url.store_address`): one that would make the client dial another host or
port than the one written (an unencoded ``@ : / ? #`` in the password: ``redis://:#x@host``
dialled ``localhost:6379``) is refused before any connection, the same way. The URL's
password is never logged (`cowork_judge.safety.redact.mask_url`).

Store side: the official ``redis`` client (redis-py) with one registered Lua script
(``EVALSHA``, reloaded by the client when the store restarts), the synchronous client
because tickets are taken from several event loops and from worker threads at once (an
asyncio client binds its connections to one loop). Keys: ``<key>`` (a hash: the state),
``<key>:o`` (a list: the last replies), ``<key>:l`` (a sorted set: the leases); all
expire after `IDLE_EXPIRY_SEC` without use.
"""

from __future__ import annotations

import hashlib
import logging
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cowork_judge.transport import limiter as local
from cowork_judge.transport.limiter import Admission, Limiter, Ticket
from cowork_judge.transport.quota import KeyState, Quota
from cowork_judge.transport.store_url import StoreAddress, UnparsableStoreUrl, store_address

__all__ = ["FleetLimiter", "FleetTicket", "UnparsableStoreUrl", "limiter_key", "limiter_warnings", "open_limiter"]

log = logging.getLogger("cowork_judge")

STORE_TIMEOUT_SEC = 2.0
"""Seconds one store call (connecting included) may take before the run falls back to
the local limiter."""
HEADROOM = 0.95
"""The fleet's pace from the key's own headers is this share of ``limit / 60`` (the key may
have other users; timers are not exact)."""
IDLE_EXPIRY_SEC = 900
"""The store forgets a limiter key after this many seconds without a request. Every admission
and every settlement refreshes it; a job that waits does not (a hold cannot keep its own key
alive), which costs nothing: no hold outlasts `MAX_HOLD_SEC`, a third of it."""
MAX_HOLD_SEC = 300.0
"""The furthest ahead of the store's clock (seconds) that any job may hold the fleet: the pace's
next start (``tat``) and the gate (``open_at``) are written at most this far ahead, and a
state found further ahead (an older version's job, a hand edit) is cut back to it. It is the
cap of JUDGE_RETRY_BACKOFF_MAX (`config.judge_config.CAPS`): the slowest pace any limiter of the run
may set is one request per that wait, and an endpoint that asks a fleet to wait longer than
5 minutes is asked again then (its refused request still waits the whole ask itself,
`core.retry`). Before it, one job with JUDGE_FLEET_RPM=0.0001 wrote a ``tat`` 7 days ahead
and every job on the key failed its rows ``rate_limit`` until the key expired."""
KEY_PREFIX = "cowork-judge:limiter:v1:"
INITIAL_WINDOW = 2
"""Requests in flight of a fleet whose store key is new: the window then grows by one per
answer (TCP's slow start, RFC 5681) until the first rate-limit event or `limiter.CEILING`.
So a fleet started at once sends two requests, not one per job, before the first reply
tells the key's rate (`bench/fleet.py` 8 × 40: 13 of 14 refusals were that first wave)."""


HOLD_REASONS = {
    "pace": "its pace: JUDGE_FLEET_RPM/JUDGE_FLEET_TPM, the key's rate-limit headers or the fleet's refusals",
    "gate": "its gate: the endpoint refused a request of the fleet with a Retry-After",
    "window": "its window: the fleet's requests in flight are at their limit",
}
"""Why the store held a request (the script's last reply field) → the words of a refusal message."""


@dataclass(frozen=True)
class FleetTicket(Ticket):
    """A ticket from the store: its lease and when the store admitted it (store seconds)."""

    lease: str = ""
    store_at: float = 0.0


def limiter_key(base_url: str | None, model: str, api_key: str | None, override: str | None = None) -> str:
    """The store key of the fleet's limiter: ``JUDGE_LIMITER_KEY`` when set, else a digest of
    the endpoint, the model and a digest of the API key (the key itself never leaves the
    process): jobs that share a key and a model share a limit."""
    if override:
        return KEY_PREFIX + override
    key_digest = hashlib.sha256((api_key or "").encode()).hexdigest()
    ident = "\n".join(((base_url or "").rstrip("/"), model, key_digest))
    return KEY_PREFIX + hashlib.sha256(ident.encode()).hexdigest()[:32]


# One script, two entry points (ARGV[1]): atomic on the store, on the store's clock.
_SCRIPT = """
local K, O, L = KEYS[1], KEYS[2], KEYS[3]
local op = ARGV[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1e6
local function num(f, d) local v = redis.call('HGET', K, f); if v then return tonumber(v) end; return d end
local function put(f, v) redis.call('HSET', K, f, string.format('%.6f', v)) end
local function ewma(f, tau) local v, at = num(f, 0), num(f .. '_at', now); return v * math.exp(-(now - at) / tau) end
local function bump(f, tau) put(f, ewma(f, tau) + 1 / tau); put(f .. '_at', now) end
local cfg, doubling, ratemax = tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local hold_max = tonumber(ARGV[#ARGV])  -- the last argument of every call: MAX_HOLD_SEC
local function hold(f, v) put(f, math.min(v, now + hold_max)) end  -- no job holds the fleet further ahead
local function rate()
  local r = nil
  if cfg > 0 then r = cfg end
  local h = num('hrate', 0)
  if h > 0 and (r == nil or h < r) then r = h end
  local l = num('lrate', 0)
  if l > 0 then
    local g = l * 2 ^ math.min((now - num('lcut', now)) / doubling, 64)
    if g < ratemax and (r == nil or g < r) then r = g end
  end
  return r
end
local function touch() for _, k in ipairs(KEYS) do redis.call('EXPIRE', k, tonumber(ARGV[2])) end end
local function held()
  local gate, tat = num('open_at', 0), num('tat', 0)
  if gate >= tat then return gate - now, 'gate' end
  return tat - now, 'pace'
end
redis.call('ZREMRANGEBYSCORE', L, '-inf', now)
-- a hold further ahead than the bound (an older version's job, a hand edit) is cut back to it, once
for _, f in ipairs({'tat', 'open_at'}) do if num(f, 0) > now + hold_max then put(f, now + hold_max) end end
if op == 'acquire' then
  local lease, ttl, poll = ARGV[6], tonumber(ARGV[7]), ARGV[8]
  if redis.call('HEXISTS', K, 'ss') == 0 then put('ss', 1); put('window', tonumber(ARGV[10])) end
  local wait, why = held()
  local w = num('window', 0)
  if wait <= 0 and w > 0 and redis.call('ZCARD', L) >= math.floor(w) then wait, why = tonumber(poll), 'window' end
  if wait > 0 then
    -- a waiting job never extends the state's life (a hold cannot keep itself alive), but a key found without one gets it
    if redis.call('TTL', K) == -1 then touch() end
    return {0, string.format('%.6f', wait), tostring(now), why}
  end
  local r = rate()
  if r then hold('tat', now + 1 / r) end
  redis.call('ZADD', L, now + ttl, lease)
  bump('sent', tonumber(ARGV[9]))
  touch()
  return {1, '0', string.format('%.6f', now)}
end
if op == 'peek' then
  local wait, why = held()
  return {0, string.format('%.6f', math.max(0, wait)), tostring(now), why}
end
-- settle: lease, outcome, started (store s), asked, whole, hrate, low, gap, u1, u2, windows, shares
local lease, outcome, started = ARGV[6], ARGV[7], tonumber(ARGV[8])
local asked, whole, hrate, low, gap = tonumber(ARGV[9]), ARGV[10] == '1', tonumber(ARGV[11]), ARGV[12] == '1', tonumber(ARGV[13])
local u1, u2 = tonumber(ARGV[14]), tonumber(ARGV[15])
local sent_tau, got_tau, window_n = tonumber(ARGV[16]), tonumber(ARGV[17]), tonumber(ARGV[18])
local gate_prior, cut_prior, share_min = tonumber(ARGV[19]), tonumber(ARGV[20]), tonumber(ARGV[21])
local beta, got_share, rate_min = tonumber(ARGV[22]), tonumber(ARGV[23]), tonumber(ARGV[24])
local backoff_max, ceiling, cut_spread, headroom = tonumber(ARGV[25]), tonumber(ARGV[26]), tonumber(ARGV[27]), tonumber(ARGV[28])
local flight = redis.call('ZCARD', L)
redis.call('ZREM', L, lease)
if outcome == 'failed' then touch(); return {0, '0', tostring(now)} end
if hrate > 0 then put('hrate', hrate * headroom) end
local function cut(cut_window)
  if started < num('lcut', -1) then return 0 end
  if not whole then
    local sent = ewma('sent', sent_tau)
    local r = rate()
    local current = sent
    if r and r < sent then current = r end
    local got = ewma('got', got_tau)
    local lr = math.max(rate_min, math.min(beta * current, math.max(got_share * got, beta * beta * current)))
    put('lrate', lr)
    hold('tat', math.max(num('tat', 0), now + u2 * cut_spread / lr))
  end
  if cut_window then put('window', math.max(1, beta * flight)) end
  put('ss', 0)
  put('lcut', now)
  return 1
end
local event = 0
if outcome == 'answered' then
  redis.call('LPUSH', O, 0); redis.call('LTRIM', O, 0, window_n - 1)
  put('streak', 0)
  bump('got', got_tau)
  local w = num('window', 0)
  if w > 0 then
    if num('ss', 0) == 1 then w = w + 1 else w = w + 1 / w end
    if w >= ceiling then redis.call('HDEL', K, 'window'); put('ss', 0) else put('window', w) end
  end
  if gap > 0 then hold('tat', math.max(num('tat', 0), now + gap)) end
else
  redis.call('LPUSH', O, 1); redis.call('LTRIM', O, 0, window_n - 1)
  local streak = num('streak', 0) + 1
  put('streak', streak)
  local refusals, replies = 0, 0
  for _, v in ipairs(redis.call('LRANGE', O, 0, -1)) do replies = replies + 1; if v == '1' then refusals = refusals + 1 end end
  if refusals / (replies + gate_prior) >= share_min and asked > 0 then
    hold('open_at', math.max(num('open_at', 0), now + asked))  -- the ask itself: the refused request's own wait is the one draw
  end
  if refusals / (replies + cut_prior) >= share_min then event = cut(true) end
end
touch()
return {event, '0', tostring(now)}
"""


class FleetLimiter(Admission):
    """The run's limiter over a shared store, falling back to `local` (see the module docstring).

    Args:
        url: ``redis://[:password@]host:port/db`` or ``rediss://`` (TLS).
        key: the store key (`limiter_key`).
        local: the local limiter used when the store fails (and its clock, its randomness).
        fleet_rpm, fleet_tpm: JUDGE_FLEET_RPM / JUDGE_FLEET_TPM, per minute (None: unknown).
        lease_sec: seconds a ticket's slot is held at most (a killed job's come back then).
        timeout_sec: seconds one store call may take.

    Attributes:
        warnings: what the run's result document must say (the fallback, once).
        mode: ``shared`` while the store serves, ``local`` after a fallback.
    """

    def __init__(self, *, url: str, key: str, local: Limiter, fleet_rpm: float | None = None,
                 fleet_tpm: float | None = None, lease_sec: float = 305.0,
                 timeout_sec: float = STORE_TIMEOUT_SEC) -> None:
        self.url = url
        self.key = key
        self.local = local
        self.clock: Callable[[], float] = local.clock
        self.rng: random.Random = local.rng
        self.fleet_rpm = fleet_rpm
        self.fleet_tpm = fleet_tpm
        self.lease_sec = lease_sec
        self.timeout_sec = timeout_sec
        self.backoff_max_sec = local.backoff_max_sec
        self.warnings: list[str] = []
        self.mode = "shared"
        self.quota = KeyState()
        self.random_refusals = 0
        self._lock = threading.Lock()
        self._client: Any = None
        self._script: Any = None
        self._held: tuple[float, float, str] | None = None
        """The last hold the store answered: (seconds, the store's clock, `HOLD_REASONS` key)."""
        self.address: StoreAddress | None = None
        """Where the client connects (`transport.store_url.store_address`), once the URL was read."""

    def __repr__(self) -> str:
        from cowork_judge.safety.redact import mask_url

        return f"FleetLimiter({mask_url(self.url)!r}, mode={self.mode})"

    # ------------------------------------------------------------------ the store

    def _connect(self) -> Any:
        """The registered script, the client made on first use from the URL read once.

        Raises:
            UnparsableStoreUrl: the URL does not name the store the client would dial.
            ImportError: the redis library is missing.
        """
        with self._lock:
            if self._script is None:
                address = self.address = store_address(self.url)  # before the import: a refusal names no library
                import redis  # the fleet-redis extra; a missing library is a fallback, not a crash
                from redis.backoff import NoBackoff
                from redis.retry import Retry

                log.info("limiter: the fleet's shared store at %s (%s), key %s", address.dialled, address.shown, self.key)
                try:
                    client = redis.Redis.from_url(
                        self.url, socket_timeout=self.timeout_sec, socket_connect_timeout=self.timeout_sec,
                        retry=Retry(NoBackoff(), 0), retry_on_timeout=False, health_check_interval=0)
                except (ValueError, TypeError) as exc:  # its words quote the URL's pieces: a password's too
                    raise UnparsableStoreUrl(f"is refused: the redis client cannot read it ({type(exc).__name__}); "
                                             "nothing was dialled") from None
                if _client_address(client.connection_pool.connection_kwargs) != _client_address(address):
                    client.close()
                    raise UnparsableStoreUrl("is refused: the redis client would dial another host or port than "
                                             f"{address.dialled}; nothing was dialled")
                self._client = client
                self._script = self._client.register_script(_SCRIPT)
            return self._script

    def _call(self, *args: Any) -> list[Any] | None:
        """Run the script with `args` after the common ones; None once the store failed."""
        if self.mode != "shared":
            return None
        try:
            script = self._connect()
            common = [IDLE_EXPIRY_SEC, self._configured_rate(), local.DOUBLING_SEC, local.RATE_MAX]
            reply = list(script(keys=[self.key, self.key + ":o", self.key + ":l"],
                                args=[args[0], *common, *args[1:], MAX_HOLD_SEC]))
            if len(reply) > 3 and float(reply[1]) > 0:
                self._held = (float(reply[1]), float(reply[2]), _text(reply[3]))
            return reply
        except Exception as exc:  # noqa: BLE001 - any store failure: the local limiter takes over
            self._fall_back(exc)
            return None

    def _fall_back(self, exc: BaseException) -> None:
        from cowork_judge.safety.redact import mask_url

        with self._lock:
            if self.mode != "shared":
                return
            self.mode = "local"
            shown = mask_url(self.url)
            if isinstance(exc, UnparsableStoreUrl):
                message = (f"limiter: {exc} ({shown}); this run's requests use the local limiter (its pace is not "
                           "shared with the fleet)")
            else:
                if isinstance(exc, ImportError):
                    why = "the redis library is not installed (pip install 'cowork-judge[fleet-redis]')"
                else:
                    why = f"{type(exc).__name__}: {str(exc)[:200]}"
                where = f"at {self.address.dialled} ({shown})" if self.address is not None else shown
                message = (f"limiter: the shared store {where} failed ({why}); this run's requests use the local "
                           "limiter from now on (its pace is no longer shared with the fleet)")
            self.warnings.append(message)
            client = self._client
            self._client = self._script = None
        log.warning("%s", message)
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001 - closing a broken connection must not raise
                pass

    def close(self) -> None:
        """Close the store connections (idempotent)."""
        with self._lock:
            client, self._client, self._script = self._client, None, None
        if client is not None:
            try:
                client.close()
            except Exception:  # noqa: BLE001
                pass

    def _configured_rate(self) -> float:
        """Requests/s the operator gave (JUDGE_FLEET_RPM, JUDGE_FLEET_TPM ÷ mean tokens per
        request), never below the local limiter's slowest pace (one request per
        JUDGE_RETRY_BACKOFF_MAX: `config.judge_config` warns about a lower JUDGE_FLEET_RPM; a
        JUDGE_FLEET_TPM meets the floor here, once the mean is known); 0 when none."""
        rates = []
        if self.fleet_rpm:
            rates.append(self.fleet_rpm / 60.0)
        mean = self.quota.tokens_per_request
        if self.fleet_tpm and mean:
            rates.append(self.fleet_tpm / 60.0 / mean)
        return max(min(rates), 1.0 / self.backoff_max_sec) if rates else 0.0

    def holding(self) -> str | None:
        """What held the fleet's requests at the last refused ask of the store, in words for
        a refusal message (`transport.attempts.ModelCalls.refusal`): ``the shared limiter
        (JUDGE_LIMITER_URL) holds the fleet's requests until 2026-06-01T12:00:05Z (240 s;
        its pace: …)``. None in local mode (the run's own limiter speaks then) or before
        the store held anything."""
        seen = self._held
        if self.mode != "shared" or seen is None:
            return None
        wait, store_now, why = seen
        until = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(store_now + wait))
        return (f"the shared limiter (JUDGE_LIMITER_URL) holds the fleet's requests until {until} ({wait:.0f} s; "
                f"{HOLD_REASONS.get(why, why)})")

    # ------------------------------------------------------------------ RequestLimiter

    def try_start(self) -> tuple[Ticket | None, float]:
        """As `Limiter.try_start`, with the fleet's state in the store."""
        lease = uuid.uuid4().hex
        reply = self._call("acquire", lease, self.lease_sec, local.POLL_SEC, local.RATE_WINDOW_SEC, INITIAL_WINDOW)
        if reply is None:
            return self.local.try_start()
        if int(reply[0]) != 1:
            return None, max(0.001, float(reply[1]))
        return FleetTicket(started_at=self.clock(), lease=lease, store_at=float(reply[2])), 0.0

    def held_past(self, when: float) -> bool:
        """True when the fleet's gate or pace holds every new request until after `when`."""
        reply = self._call("peek")
        if reply is None:
            return self.local.held_past(when)
        return self.clock() + float(reply[1]) > when

    def answered(self, ticket: Ticket, quota: Quota | None = None, *, tokens: int = 0) -> None:
        """As `Limiter.answered`, for the whole fleet."""
        with self._lock:
            self.quota.note_tokens(tokens)
            reading = self.quota.read(quota) if quota is not None else None
        if not self._settle(ticket, "answered", reading=reading):
            self.local.answered(ticket, quota, tokens=tokens)

    def failed(self, ticket: Ticket) -> None:
        """As `Limiter.failed`: the lease is given back."""
        if not self._settle(ticket, "failed"):
            self.local.failed(ticket)

    def capacity_left(self, quota: Quota | None) -> bool:
        """As `Limiter.capacity_left`, with what this job learned of the key."""
        with self._lock:
            return self.quota.capacity_left(quota)

    def rate_limited(self, ticket: Ticket, asked_sec: float | None, *, whole_attempt: bool = False,
                     quota: Quota | None = None) -> bool:
        """As `Limiter.rate_limited`, for the whole fleet; True for a new fleet-wide event."""
        with self._lock:
            random_refusal = quota is not None and self.quota.capacity_left(quota)
            reading = self.quota.read(quota) if quota is not None and not random_refusal else None
        if random_refusal:
            self.random_refusals += 1
            if not self._settle(ticket, "failed"):
                self.local.failed(ticket)
            return False
        reply = self._settle(ticket, "refused", reading=reading, asked_sec=asked_sec, whole_attempt=whole_attempt)
        if reply is None:
            return self.local.rate_limited(ticket, asked_sec, whole_attempt=whole_attempt, quota=quota)
        return bool(int(reply[0]))

    def _settle(self, ticket: Ticket, outcome: str, *, reading: Any = None, asked_sec: float | None = None,
                whole_attempt: bool = False) -> list[Any] | None:
        """Settle a store ticket; None when `ticket` is the local limiter's or the store failed."""
        if not isinstance(ticket, FleetTicket):
            return None
        rate = reading.rate if reading is not None and reading.rate else 0.0
        return self._call(
            "settle", ticket.lease, outcome, ticket.store_at, asked_sec or 0.0, int(whole_attempt), rate,
            int(bool(reading is not None and reading.low)),
            min(reading.gap_sec, self.backoff_max_sec) if reading is not None and reading.low else 0.0,
            self.rng.random(), self.rng.random(), local.RATE_WINDOW_SEC, local.GOT_WINDOW_SEC, local.OUTCOME_WINDOW,
            local.OUTCOME_PRIOR, local.CUT_PRIOR, local.PACE_SHARE, local.DECREASE, local.GOT_SHARE,
            1.0 / self.backoff_max_sec, self.backoff_max_sec, local.CEILING, local.CUT_SPREAD, HEADROOM)


def _client_address(seen: StoreAddress | dict[str, Any]) -> tuple[str, int, str]:
    """``(host, port, socket path)`` of a `StoreAddress` or of a redis client's connection
    keywords (its defaults: ``localhost``, 6379): what is compared before anything is dialled."""
    if isinstance(seen, StoreAddress):
        return (seen.host, seen.port, seen.path) if seen.scheme != "unix" else ("", 0, seen.path)
    if "path" in seen:
        return "", 0, str(seen["path"])
    return str(seen.get("host", "localhost")).lower(), int(seen.get("port", 6379)), ""


def _text(value: Any) -> str:
    """A store reply's string (bytes from redis-py without ``decode_responses``)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def open_limiter(*, url: str | None, base_url: str | None, model: str, api_key: str | None, key_override: str | None,
                 fleet_rpm: float | None, fleet_tpm: float | None, backoff_max_sec: float, lease_sec: float,
                 rng: random.Random | None = None, clock: Callable[[], float] = time.monotonic) -> Limiter | FleetLimiter:
    """The run's request limiter: a `FleetLimiter` over ``JUDGE_LIMITER_URL`` when `url` is set
    (nothing is contacted yet: the first request does), else the local `Limiter` (today's).
    A limiter per endpoint: nothing here is global."""
    base = Limiter(backoff_max_sec=backoff_max_sec, rng=rng, clock=clock)
    if not url:
        return base
    key = limiter_key(base_url, model, api_key, key_override)
    return FleetLimiter(url=url, key=key, local=base, fleet_rpm=fleet_rpm, fleet_tpm=fleet_tpm,
                        lease_sec=lease_sec)


def limiter_warnings(limiter: object) -> list[str]:
    """What `limiter` says the run's result must carry (a fleet limiter's fallback); [] for others."""
    return list(getattr(limiter, "warnings", ()) or ())


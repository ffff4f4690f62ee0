"""Repeated sampling and judge panels: several answers about one unit reduced to one (pure).

A *unit* is what one request answers about one row: the row itself (an agentic block,
``answer_match``), the row on one page (a ``ppt_judge`` page cell), or one content pass of a
row (``ppt_judge`` pass A, a pass B page, a type2 page). With ``JUDGE_SAMPLES=k`` a unit is
asked up to k times by each judge; with ``JUDGE_PANEL`` by several judges. Every answer is a
`Sample`; this module decides, with no I/O, no clock and no configuration:

- **A judge's answer** from its samples (`reduce_samples`):

  * N/A by majority: the unit is N/A when more samples say N/A than give a level or a hit
    (a tie is *not* N/A: a page that lacks what a row asks for is a low level, not N/A, so a
    split vote keeps the page in the row's mean);
  * a row scored by hit (binary, and every negative row or hurdle, whose levels are never
    scored) by majority of hits. A tie — an even number of samples, e.g. the third sample of
    a split pair did not come back — is read the way SPEC §4 reads a row it cannot decide:
    fail closed for negative rows and hurdles (hit: the deduction applies, the hurdle is
    fatal), a miss otherwise. A noisy judge can thus never turn a split vote into credit or
    into an escaped penalty;
  * a graded row by the median level on the row's own grid. For an even count the LOWER
    median (the smaller of the two middle levels): it is always a level a sample gave (no
    midpoint to snap), it leans to less credit exactly as SPEC §4's snapping sends ties to
    the lower level and as a split binary vote is a miss, and it is what harbor-rewardkit's
    ``samples=N`` reports. A sample whose level could not be read counts as its hit (the
    row's highest level for a hit, its lowest for a miss), the value the scorer would give it.

- **The panel's answer** from its judges' answers (`vote`): ``majority`` (one vote per
  judge, ties as above; graded: the lower median of the judges' levels), ``weighted`` (the
  same with each judge's weight; graded: the weighted lower median) or ``unanimous`` (the
  answer in the agent's favour only when every judge gives it: a positive row is hit only
  when all judges hit it, a negative row or hurdle escapes only when no judge hits it, a
  graded row gets the lowest judge's level, N/A only when all say N/A).

- **Agreement** in [0, 1] (`agreement`): ``1 − mean |v_i − v|`` over the unit's answered
  samples, v_i a sample's value (hit as 0/1, or its level) and v the reduced value; a
  sample whose N/A-ness differs from the reduction is 1 apart. For a binary unit it is the
  share of samples that agree with the verdict (2 of 3 ⇒ 0.667); harbor-rewardkit's
  ``agreement = 1 − mean|Δ|`` with Δ taken against the reduction. Fewer than two answered
  samples ⇒ None (one sample agreeing with itself says nothing).

- **When to stop asking** (`settled`): a judge's unit is settled as soon as its reduced
  answer cannot change whatever its remaining samples (k minus those asked) say — for a
  binary unit at k = 3: two agreeing samples. A graded unit is also settled when every
  answer still reachable lies within `GRADED_TOLERANCE_STEPS` grid step of each other on
  the same side of 0 — of the row's ``pass_level`` when it sets one — (issue 28: a graded
  pair differing by one step is not asked again).
  The median is monotone in every sample, so the reachable extremes are the current samples
  plus all remaining samples at the grid's bottom, or all at its top.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from cowork_judge.core.error_kinds import ErrorKind
from cowork_judge.core.scales import passes

Vote = Literal["majority", "unanimous", "weighted"]
"""How a panel's judges' answers are combined (JUDGE_PANEL_VOTE)."""
SamplingMode = Literal["adaptive", "fixed"]
"""JUDGE_SAMPLING: ``adaptive`` asks twice and again only where the answer is not settled;
``fixed`` asks every unit k times."""

GRADED_TOLERANCE_STEPS = 1
"""A graded unit whose reachable answers span at most this many steps of its grid (on the
same side of 0) is settled (issue 28: "differ by more than one grid step" is re-asked)."""
SAMPLE_REASON_CHARS = 300
"""Longest reason a stored sample keeps (the audit folder keeps every reply whole)."""
FIRST_ROUND = 2
"""Samples every unit gets before the adaptive rule decides (two answers are the fewest that
can disagree)."""


def omit_defaults(data: Any, defaults: Mapping[str, object]) -> Any:
    """A model's serialized dict without the keys that hold their default (None, False): the
    optional fields of sampling are written only when they say something, so documents of
    runs that do not sample keep their 0.2 shape (a wrap serializer; pydantic's per-field
    ``exclude_if`` needs pydantic 2.12, the package supports 2.6)."""
    if isinstance(data, dict):
        for key, default in defaults.items():
            if key in data and data[key] is default:
                del data[key]
    return data


class Sample(BaseModel):
    """One judge's answer about one unit, as a result row records it (``results[].samples``).

    A sample that did not come back (its request failed after the transport's retries, or
    the deadline came first) has ``error_kind`` set and no answer: it counts as asked, never
    as an answer.
    """

    model_config = ConfigDict(frozen=True)

    judge: str = Field(description="Who answered: the judge's name (JUDGE_MODEL, or the panel entry's name).")
    hit: bool | None = Field(None, description="The sample's hit; None when it did not come back.")
    level: float | None = Field(None, description="The sample's level (graded rows), snapped to the grid.")
    na: bool = Field(False, description="The sample said the row does not apply (page cells, content pages).")
    page: int | None = Field(None, description="The page the sample is about (ppt_judge page cells and pages).")
    part: str | None = Field(None, description="The request the sample answered when a row takes several "
                             "(ppt_judge content: `A`, `B`, `type2`).")
    error_kind: ErrorKind | None = Field(None, description="Why the sample did not come back.")
    reason: str = Field("", description=f"The sample's reason (at most {SAMPLE_REASON_CHARS} characters).")

    @property
    def answered(self) -> bool:
        """True when the sample holds an answer (a hit, a level or N/A)."""
        return self.error_kind is None and (self.hit is not None or self.na)

    @model_serializer(mode="wrap")
    def _short(self, handler: SerializerFunctionWrapHandler) -> Any:
        return omit_defaults(handler(self), {"level": None, "na": False, "page": None, "part": None, "error_kind": None})


class Scale(BaseModel):
    """How a unit is read: by hit or by level, and which way a tie falls.

    Attributes:
        negative: a negative row or hurdle (a tie is a hit: fail closed).
        choices: the graded row's legal levels, ascending; None for rows scored by hit.
        pass_level: the graded row's pass bar (``Criterion.pass_level``): an answer's hit is
            ``level ≥ pass_level``, and an adaptive unit is settled only on one side of it.
    """

    model_config = ConfigDict(frozen=True)

    negative: bool = False
    choices: tuple[float, ...] | None = None
    pass_level: float | None = None

    @classmethod
    def of(cls, row: Any, *, choices: Sequence[float] | None = None) -> Scale:
        """The scale of a rubric row (`core.rubric.Criterion`: its polarity, hurdle, own
        levels and pass bar; `choices` overrides the levels, e.g. a page cell's 21-step grid,
        whose cells have no pass bar)."""
        negative = row.polarity == "negative" or bool(row.hurdle)
        grid = tuple(choices) if choices is not None else row.level_choices
        bar = getattr(row, "pass_level", None) if choices is None and not negative else None
        return cls(negative=negative, choices=None if negative else grid, pass_level=bar)

    def hit_at(self, level: float) -> bool:
        """A graded answer's hit: at or above the pass bar, else above 0 (`scales.passes`)."""
        return passes(level, self.pass_level)

    @property
    def graded(self) -> bool:
        """True when the unit is scored by level."""
        return self.choices is not None


class Answer(BaseModel):
    """A reduced answer: what a judge (or the panel) says about a unit.

    Attributes:
        hit: the reduced hit (None: no sample answered).
        level: the reduced level of a graded unit (None otherwise, or N/A).
        na: the unit is N/A.
        samples: answered samples it was reduced from.
    """

    model_config = ConfigDict(frozen=True)

    hit: bool | None
    level: float | None = None
    na: bool = False
    samples: int = 0

    @property
    def answered(self) -> bool:
        """True when some sample answered."""
        return self.hit is not None or self.na


NO_ANSWER = Answer(hit=None)


def value_of(sample: Sample, scale: Scale) -> float:
    """A sample's value on the unit's scale: its level (graded, when readable), else its hit
    as the scorer counts it (graded: the highest level for a hit, the lowest for a miss)."""
    if scale.choices is None:
        return 1.0 if sample.hit else 0.0
    if sample.level is not None:
        return sample.level
    return scale.choices[-1] if sample.hit else scale.choices[0]


def lower_median(values: Sequence[float]) -> float:
    """The lower median: the ``(n−1)//2``-th smallest value (for an even count, the smaller
    middle value; see the module docstring for why). Raises ValueError on no values."""
    if not values:
        raise ValueError("lower_median of no values")
    return sorted(values)[(len(values) - 1) // 2]


def weighted_lower_median(pairs: Sequence[tuple[float, float]]) -> float:
    """The smallest value v with at least half of the total weight at or below v (the
    weighted lower median; equal weights give `lower_median`). `pairs` are (value, weight > 0)."""
    if not pairs:
        raise ValueError("weighted_lower_median of no values")
    total = sum(w for _, w in pairs)
    acc = 0.0
    for value, weight in sorted(pairs):
        acc += weight
        if acc >= total / 2 - 1e-12:
            return value
    return max(v for v, _ in pairs)  # pragma: no cover - float noise only


def _reduce_values(values: Sequence[tuple[float, float]], na_weight: float, scale: Scale) -> Answer:
    """Reduce weighted (value, weight) answers plus the weight of N/A answers (see the module docstring)."""
    level_weight = sum(w for _, w in values)
    if na_weight > level_weight:
        return Answer(hit=False, na=True)
    if not values:
        return NO_ANSWER
    if scale.choices is None:
        hits = sum(w for v, w in values if v >= 0.5)
        misses = level_weight - hits
        hit = hits > misses + 1e-12 or (abs(hits - misses) <= 1e-12 and scale.negative)
        return Answer(hit=hit)
    level = weighted_lower_median(values)
    return Answer(hit=scale.hit_at(level), level=level)


def reduce_samples(samples: Sequence[Sample], scale: Scale) -> Answer:
    """One judge's answer about one unit from its samples (rules in the module docstring).
    Samples that did not come back are left out; none answered ⇒ `NO_ANSWER`."""
    answered = [s for s in samples if s.answered]
    out = _reduce_values([(value_of(s, scale), 1.0) for s in answered if not s.na],
                         float(sum(1 for s in answered if s.na)), scale)
    return out.model_copy(update={"samples": len(answered)})


def vote(answers: Sequence[tuple[Answer, float]], scale: Scale, how: Vote = "majority") -> Answer:
    """The panel's answer from its judges' answers, each with the judge's weight (> 0).

    Judges that gave no answer (their endpoint down, every sample lost) are left out: the
    others' answers stand. See the module docstring for the three rules."""
    given = [(a, w if how == "weighted" else 1.0) for a, w in answers if a.answered]
    if not given:
        return NO_ANSWER
    n = sum(a.samples for a, _ in given)
    if how == "unanimous":
        if all(a.na for a, _ in given):
            return Answer(hit=False, na=True, samples=n)
        judged = [a for a, _ in given if not a.na]
        if scale.choices is not None:
            level = min(a.level if a.level is not None else (scale.choices[-1] if a.hit else scale.choices[0]) for a in judged)
            return Answer(hit=scale.hit_at(level), level=level, samples=n)
        hit = any(a.hit for a in judged) if scale.negative else all(a.hit for a in judged)
        return Answer(hit=hit, samples=n)
    values = [(_answer_value(a, scale), w) for a, w in given if not a.na]
    out = _reduce_values(values, sum(w for a, w in given if a.na), scale)
    return out.model_copy(update={"samples": n})


def _answer_value(answer: Answer, scale: Scale) -> float:
    if scale.choices is None:
        return 1.0 if answer.hit else 0.0
    if answer.level is not None:
        return answer.level
    return scale.choices[-1] if answer.hit else scale.choices[0]


def agreement(samples: Sequence[Sample], answer: Answer, scale: Scale) -> float | None:
    """``1 − mean |v_i − v|`` over the answered samples (module docstring); None with fewer
    than two answered samples or no answer."""
    answered = [s for s in samples if s.answered]
    if len(answered) < 2 or not answer.answered:
        return None
    target = None if answer.na else _answer_value(answer, scale)
    gaps = []
    for s in answered:
        if s.na or target is None:
            gaps.append(0.0 if (s.na and target is None) else 1.0)
        else:
            gaps.append(abs(value_of(s, scale) - target))
    return round(1.0 - sum(gaps) / len(gaps), 6)


def settled(samples: Sequence[Sample], asked: int, k: int, scale: Scale) -> bool:
    """True when more samples cannot change this judge's answer about the unit (module
    docstring): `asked` samples were requested so far (answered or not), at most `k`.

    A unit with no answered sample and asks left is not settled; a unit with no asks left is.
    """
    left = k - asked
    if left <= 0:
        return True
    answered = [s for s in samples if s.answered]
    if not answered:
        return False
    levels = [value_of(s, scale) for s in answered if not s.na]
    na = float(len(answered) - len(levels))
    low_value = scale.choices[0] if scale.choices is not None else 0.0
    high_value = scale.choices[-1] if scale.choices is not None else 1.0
    outcomes = [
        _reduce_values([(v, 1.0) for v in levels], na + left, scale),  # every remaining sample N/A
        _reduce_values([(v, 1.0) for v in [*levels, *[low_value] * left]], na, scale),  # all at the bottom
        _reduce_values([(v, 1.0) for v in [*levels, *[high_value] * left]], na, scale),  # all at the top
    ]
    if len({o.na for o in outcomes}) > 1:
        return False
    if outcomes[0].na:
        return True
    low, high = outcomes[1], outcomes[2]
    if scale.choices is None:
        return low.hit == high.hit
    assert low.level is not None and high.level is not None
    if low.level == high.level:
        return True
    steps = _grid_index(high.level, scale.choices) - _grid_index(low.level, scale.choices)
    return steps <= GRADED_TOLERANCE_STEPS and scale.hit_at(low.level) == scale.hit_at(high.level)


def _grid_index(level: float, choices: Sequence[float]) -> int:
    """Index of the grid level nearest `level` (levels are snapped to the grid already)."""
    return min(range(len(choices)), key=lambda i: abs(choices[i] - level))


def representative(samples: Sequence[Sample], answer: Answer, scale: Scale) -> int | None:
    """Index of the first answered sample that says what `answer` says (its reason explains
    the verdict), else of the first answered sample; None when none answered."""
    first = None
    for n, s in enumerate(samples):
        if not s.answered:
            continue
        first = n if first is None else first
        if answer.na and s.na:
            return n
        if not answer.na and not s.na and value_of(s, scale) == _answer_value(answer, scale):
            return n
    return first


def weighted_agreement(rows: Sequence[tuple[float | None, float]]) -> float | None:
    """A document's ``judge_agreement``: the mean of the rows' agreements weighted by
    ``|effective weight|`` (rows without an agreement are left out); the plain mean when
    every such row weighs 0; None when no row has an agreement."""
    known = [(a, abs(w)) for a, w in rows if a is not None]
    if not known:
        return None
    total = sum(w for _, w in known)
    if total <= 0:
        return round(sum(a for a, _ in known) / len(known), 6)
    return round(sum(a * w for a, w in known) / total, 6)


def cap_reason(text: str) -> str:
    """A sample's reason as stored (`SAMPLE_REASON_CHARS`)."""
    text = " ".join(str(text).split())
    return text if len(text) <= SAMPLE_REASON_CHARS else text[: SAMPLE_REASON_CHARS - 1] + "…"


class JudgeWeight(BaseModel):
    """One judge as a result records it (``details.sampling.judges``)."""

    model_config = ConfigDict(frozen=True)

    name: str
    model: str
    weight: float = Field(1.0, gt=0)


class SamplingLoss(BaseModel):
    """Answers a sampled run asked for and did not get, on rows that were judged anyway
    (``details.sampling.lost``; derived from the rows by the fold, `sampling_loss`).

    A row none of whose samples answered is unjudged and counted by the coverage fields
    (``judge_coverage``, ``judge_unjudged``); this record is about the verdicts that stand
    on fewer answers than were asked for — a sample that did not come back, or a panel judge
    that gave no answer on a row the other judges decided. Either makes the document
    ``judge_degraded`` (`core.coverage.account`).
    """

    model_config = ConfigDict(frozen=True)

    rows: int = Field(0, ge=0, description="Judged rows that kept fewer answers than were asked for.")
    samples: int = Field(0, ge=0, description="Samples of those rows that did not come back.")
    error_kinds: dict[ErrorKind, int] = Field(default_factory=dict, description="Those samples by error kind.")
    judges: dict[str, int] = Field(default_factory=dict, description=(
        "Judge name → judged rows on which that judge gave no answer at all (a panel judge whose endpoint was down): "
        "those rows were decided by the other judges alone. Only judges that lost a row are listed."))


def sampling_loss(rows: Sequence[tuple[bool, Sequence[Sample] | None]]) -> SamplingLoss:
    """The `SamplingLoss` of a run from its rows: per row (judged, its samples or None).

    Unjudged rows and rows without samples are left out (the coverage fields count the
    former; the latter were asked once, unsampled). A judge is lost on a row when it has
    samples there and none of them answered.
    """
    lost_rows = lost_samples = 0
    kinds: dict[ErrorKind, int] = {}
    judges: dict[str, int] = {}
    for judged, samples in rows:
        if not judged or not samples:
            continue
        lost = [s for s in samples if not s.answered]
        if not lost:
            continue
        lost_rows += 1
        lost_samples += len(lost)
        for s in lost:
            kind: ErrorKind = s.error_kind or "no_verdict"
            kinds[kind] = kinds.get(kind, 0) + 1
        answered_by = {s.judge for s in samples if s.answered}
        for name in dict.fromkeys(s.judge for s in lost):
            if name not in answered_by:
                judges[name] = judges.get(name, 0) + 1
    return SamplingLoss(rows=lost_rows, samples=lost_samples, error_kinds=dict(sorted(kinds.items())),
                        judges=dict(sorted(judges.items())))


class SamplingRecord(BaseModel):
    """How a run sampled (``details.sampling``; absent when it asked every row once with one judge)."""

    model_config = ConfigDict(frozen=True)

    samples: int = Field(ge=1, description="JUDGE_SAMPLES: the most samples a unit gets from each judge.")
    mode: SamplingMode = Field(description="JUDGE_SAMPLING.")
    vote: Vote = Field(description="JUDGE_PANEL_VOTE: how the judges' answers are combined.")
    temperature: float | None = Field(None, description="JUDGE_SAMPLE_TEMPERATURE sent with every request (k > 1), else None.")
    judges: tuple[JudgeWeight, ...] = Field(description="Who judged, with each judge's weight.")
    coverage: dict[str, float] | None = Field(None, description=(
        "Judge name → the share of sampled rows it answered at least once (`judge_coverage`): 0 for a judge whose "
        "endpoint was down, while the other judges' verdicts stand. Derived from the rows by the fold."))
    lost: SamplingLoss | None = Field(None, description=(
        "What the judged rows asked for and did not get: rows, samples, their error kinds, and the judges that gave no "
        "answer on rows the others decided (any makes the document judge_degraded). Derived from the rows by the fold."))

    def weights(self) -> dict[str, float]:
        """Judge name → weight."""
        return {j.name: j.weight for j in self.judges}


def judge_coverage(rows: Sequence[Sequence[Sample] | None], judges: Sequence[str]) -> dict[str, float]:
    """Each judge's share of the sampled rows (rows with samples) it answered at least once;
    1.0 for every judge when no row was sampled (nothing was asked of anyone)."""
    sampled = [r for r in rows if r]
    out = {}
    for name in judges:
        answered = sum(1 for r in sampled if any(s.judge == name and s.answered for s in r))
        out[name] = round(answered / len(sampled), 6) if sampled else 1.0
    return out


def reduce_unit(samples: Sequence[Sample], scale: Scale, weights: Mapping[str, float], how: Vote) -> Answer:
    """A unit's final answer: each judge's samples reduced, then the judges' answers voted
    (one judge: its own reduction). Judges missing from `weights` weigh 1."""
    by_judge: dict[str, list[Sample]] = {}
    for s in samples:
        by_judge.setdefault(s.judge, []).append(s)
    if len(by_judge) <= 1:
        return reduce_samples(samples, scale)
    answers = [(reduce_samples(group, scale), weights.get(judge, 1.0)) for judge, group in by_judge.items()]
    return vote(answers, scale, how)


__all__ = [
    "FIRST_ROUND", "GRADED_TOLERANCE_STEPS", "NO_ANSWER", "SAMPLE_REASON_CHARS", "Answer", "JudgeWeight", "Sample",
    "SamplingLoss", "SamplingMode", "SamplingRecord", "Scale", "Vote", "agreement", "cap_reason", "judge_coverage", "lower_median",
    "omit_defaults", "reduce_samples",
    "reduce_unit", "representative", "sampling_loss", "settled", "value_of", "vote", "weighted_agreement", "weighted_lower_median",
]

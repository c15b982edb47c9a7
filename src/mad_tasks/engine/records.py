"""Typed, JSON-serialisable records of what a debate did, and the statistics every debate has.

A `DebateResult` holds what every method records (answers, calls, the vote, the options) and, in
`record`, its method family's own typed record (a `MethodRecord` naming its `kind`), each defined
with its statistics in `methods/<family>_records.py`.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar, Union, get_args, get_origin, get_type_hints


@dataclass(frozen=True)
class ToolUse:
    """One tool call an acting agent made (`-S debater=react`): the tool, its arguments as the
    model wrote them (JSON) and its error (None: it ran), each cut to `SHOWN` characters, the
    size of its result, and its `stage` among its reply's tool calls (those that may run at once
    share one, as Inspect runs them)."""

    tool: str
    arguments: str
    result_chars: int
    error: str | None = None
    stage: int = 1


SHOWN = 200


@dataclass(frozen=True)
class CallRecord:
    agent: str
    role: str
    purpose: str
    round: int
    attempt: int
    input_tokens: int | None  # None: the reply carried no usage, so its tokens are unknown
    output_tokens: int | None
    cached: bool = False  # served from the response cache: an earlier run spent these tokens
    cost: float | None = None  # dollars as the host priced it; None: no price known
    # the reply reached a limit as it came back: spent and counted, but the method never read it
    discarded: bool = False
    # an acting turn's model calls are numbered by `step` (0: a plain call, or a turn's first);
    # `tools`: the tool calls this call's reply made, run in their stages before the next step
    step: int = 0
    tools: tuple[ToolUse, ...] = ()
    # the call's place in its chain of dependent calls and tool stages (1: it waited for none;
    # 0: a record written before chains were counted)
    depth: int = 0

    @property
    def tool_stages(self) -> int:
        """The links its tool calls add to its chain."""
        return max((t.stage for t in self.tools), default=0)

    @property
    def tokens(self) -> int | None:
        if self.input_tokens is None or self.output_tokens is None:
            return None
        return self.input_tokens + self.output_tokens


TOTALS = (
    "calls",
    "tool_calls",
    "calls_without_usage",
    "cached_calls",
    "input_tokens",
    "output_tokens",
    "cached_input_tokens",
    "cached_output_tokens",
)


def token_totals(calls: Iterable[CallRecord]) -> dict[str, int]:
    """The `TOTALS` of some calls: `input_tokens`/`output_tokens` were spent by this run,
    `cached_*` came from the response cache (an earlier run spent them), and a call whose reply
    reported no usage counts in `calls_without_usage`, never as 0 tokens."""
    totals = dict.fromkeys(TOTALS, 0)
    for c in calls:
        totals["calls"] += 1
        totals["tool_calls"] += len(c.tools)
        totals["cached_calls"] += int(c.cached)
        if c.input_tokens is None or c.output_tokens is None:
            totals["calls_without_usage"] += 1
            continue
        prefix = "cached_" if c.cached else ""
        totals[f"{prefix}input_tokens"] += c.input_tokens
        totals[f"{prefix}output_tokens"] += c.output_tokens
    return totals


# a debate's tokens, spent by this run and served from the cache: its size, whoever paid
TOKEN_FIGURES = ("input_tokens", "output_tokens", "cached_input_tokens", "cached_output_tokens")


def output_tokens(calls: Iterable[CallRecord]) -> int | None:
    """The output tokens of some calls; None when a reply reported no usage."""
    total = 0
    for c in calls:
        if c.output_tokens is None:
            return None
        total += c.output_tokens
    return total


def dollars(calls: Iterable[CallRecord]) -> float | None:
    """What some calls cost this run in dollars: a reply served from the response cache cost
    nothing; None when any other call has no price (an unknown cost, never 0)."""
    total = 0.0
    for c in calls:
        if c.cached:
            continue
        if c.cost is None:
            return None
        total += c.cost
    return total


def reply_tokens(calls: Iterable[CallRecord]) -> int | None:
    """The size of a debate in tokens: every reply's input plus output, cached replies included
    (so a cached re-run measures what the first run measured); None when a reply reported none."""
    total = 0
    for c in calls:
        if c.tokens is None:
            return None
        total += c.tokens
    return total


@dataclass(frozen=True)
class AgentAnswer:
    """An agent's reply in one round and the answer parsed from it (None = abstention)."""

    agent: str
    round: int
    text: str
    answer: str | None
    attempts: int = 1


@dataclass(frozen=True)
class Tally:
    """A majority vote over answers; abstentions are counted apart and never vote."""

    counts: dict[str, int]
    winner: str | None
    tie: bool
    abstentions: int


class MethodRecord:
    """Base of a method family's record: a dataclass whose `kind` names it in the JSON. Defining
    the class is all it takes for a stored record of its kind to be read back: each subclass that
    declares a `kind` joins `record_kinds()`."""

    kind: ClassVar[str]
    # what the method answers with when it is not an answer to the question in the task's format
    # (a summary, a ranking): no first-answer vote compares with it (`transitions.py`)
    answers_with: ClassVar[str | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in vars(cls):
            _KINDS[cls.kind] = cls


_KINDS: dict[str, type[MethodRecord]] = {}


class RecordError(ValueError):
    """A stored record this version cannot read (another version's, or not a record at all)."""


def record_kinds() -> dict[str, type[MethodRecord]]:
    """Every method record class defined so far, by the kind it declares."""
    return dict(_KINDS)


DEBATE_STATS = ("rounds", *TOTALS, "critical_path", "answer_changes", "abstentions")


def critical_path(calls: Iterable[CallRecord]) -> int:
    """The longest chain of model calls and tool stages in which each waited for the one before:
    what a sample's wall time cannot go below, in calls."""
    return max((c.depth + c.tool_stages for c in calls), default=0)


@dataclass(frozen=True)
class Stopped:
    """A limit that ended the debate before its end (`engine/limits.py`): the limit's `kind`, the
    `value` reached and the `limit`, `where` the method stopped (`round 3`) and what `decided` its
    answer (`the vote of round 2`)."""

    kind: str
    value: float
    limit: float
    where: str
    decided: str


@dataclass(frozen=True)
class StabilityRound:
    """One round of an adaptive stop (engine/stability.py): how many of the panel held the tracked
    answer, the Kolmogorov-Smirnov statistic against the previous round's fit (None in round 1)
    and the stable rounds in a row so far."""

    round: int
    count: int
    statistic: float | None
    stable_streak: int


@dataclass(frozen=True)
class AdaptiveStopRecord:
    """What `-S stop=adaptive` saw and did: the panel size `n`, what each round's count counts
    (`tracked`), the rounds, and the round it `stopped_at` with its `reason` (`stable`; or
    `rounds_exhausted`: the rule never fired and the method's own rounds or rules ended it)."""

    n: int
    tracked: str
    threshold: float
    stable_rounds: int
    min_rounds: int
    window: int
    rounds: tuple[StabilityRound, ...]
    stopped_at: int | None
    reason: str


@dataclass
class DebateResult:
    method: str
    final: str | None
    answers: list[AgentAnswer]
    calls: list[CallRecord]
    tally: Tally | None = None
    # every option that ran, as JSON (the options objects write it)
    options: dict[str, Any] = field(default_factory=dict)
    # the method family's own record; None: the method records nothing beyond these fields
    record: MethodRecord | None = None
    # the limit that ended the debate early; None: it ran to its end
    stopped: Stopped | None = None
    # the adaptive stop's trace (-S stop=adaptive); None: the method ran without it
    adaptive_stop: AdaptiveStopRecord | None = None

    @property
    def rounds(self) -> int:
        """How many answer rounds ran: every method numbers its first answers round 1."""
        return max((a.round for a in self.answers), default=0)

    def answers_in_round(self, round: int) -> list[AgentAnswer]:
        return [a for a in self.answers if a.round == round]

    def tokens_by_role(self) -> dict[str, dict[str, int]]:
        roles = dict.fromkeys(c.role for c in self.calls)
        return {role: token_totals(c for c in self.calls if c.role == role) for role in roles}

    def answer_changes(self) -> int:
        """How many times an agent's parsed answer differed from its previous round's answer."""
        last: dict[str, str | None] = {}
        changes = 0
        for a in sorted(self.answers, key=lambda a: a.round):
            if a.agent in last and a.answer != last[a.agent]:
                changes += 1
            last[a.agent] = a.answer
        return changes

    def stats(self) -> dict[str, int]:
        """The `DEBATE_STATS` of this debate: its rounds, the `TOTALS` of its calls, how often an
        agent changed its answer and how many answers were abstentions."""
        return {
            "rounds": self.rounds,
            **token_totals(self.calls),
            "critical_path": critical_path(self.calls),
            "answer_changes": self.answer_changes(),
            "abstentions": sum(a.answer is None for a in self.answers),
        }

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = to_json(self)
        if self.record is not None:
            d["record"] = {"kind": self.record.kind, **d["record"]}
        return d

    @classmethod
    def from_dict(cls, d: Any) -> DebateResult:
        """The result `to_dict` wrote; `RecordError` (or another ValueError, a TypeError) for JSON
        of any other shape, such as an older version's record."""
        if not isinstance(d, dict):
            raise RecordError(f"a debate record is a JSON object, not {type(d).__name__}")
        body = dict(d)
        raw = body.pop("record", None)
        record = None
        if raw is not None:
            if not isinstance(raw, dict):
                raise RecordError("a method record is a JSON object")
            fields = dict(raw)
            kind = record_kinds().get(fields.pop("kind", None))
            if kind is None:
                raise RecordError(f"unknown method record kind {raw.get('kind')!r}")
            record = from_json(kind, fields)
        body["record"] = None
        return dataclasses.replace(from_json(cls, body), record=record)


@cache
def _required(cls: type) -> frozenset[str]:
    """The fields a record of `cls` must hold: those without a default."""
    missing = dataclasses.MISSING
    return frozenset(
        f.name
        for f in dataclasses.fields(cls)
        if f.default is missing and f.default_factory is missing
    )


@cache
def _field_types(cls: type) -> dict[str, Any]:
    hints = get_type_hints(cls)
    return {f.name: hints[f.name] for f in dataclasses.fields(cls)}


def to_json(value: Any) -> Any:
    """`value` as `dataclasses.asdict` gives it (dataclasses as dicts, containers item by item),
    without its deep copy of every leaf: the records hold only immutable leaves (texts, numbers),
    and the copy made up most of the time a sample's record took to store."""
    if isinstance(value, (str, int, float, type(None))):
        return value
    kind: type = type(value)
    names = _field_names(kind)
    if names is not None:
        return {name: to_json(getattr(value, name)) for name in names}
    if isinstance(value, (list, tuple)):
        return type(value)(to_json(v) for v in value)
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


@cache
def _field_names(cls: type) -> tuple[str, ...] | None:
    """The fields of a dataclass, in order; None for any other class."""
    if not dataclasses.is_dataclass(cls):
        return None
    return tuple(f.name for f in dataclasses.fields(cls))


def from_json(hint: Any, value: Any) -> Any:
    """`value` (parsed JSON) as the type `hint`: a dataclass from an object with exactly its
    fields (one with a default may be missing: a record written before the field was added), a
    tuple from a list, containers item by item, an optional as its one other type; any other value
    (a number, a text, a union of plain types) as it is. `RecordError` when an object does not
    have the fields its dataclass has."""
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        fields = _field_types(hint)
        needed = _required(hint)
        if not isinstance(value, dict) or not needed <= value.keys() <= fields.keys():
            got = sorted(value) if isinstance(value, dict) else type(value).__name__
            raise RecordError(f"{hint.__name__} has the fields {sorted(fields)}, got {got}")
        return hint(**{name: from_json(fields[name], v) for name, v in value.items()})
    origin, args = get_origin(hint), get_args(hint)
    if origin in (Union, types.UnionType):
        others = [a for a in args if a is not type(None)]
        return from_json(others[0], value) if value is not None and len(others) == 1 else value
    if origin is list:
        return [from_json(args[0], v) for v in value]
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(from_json(args[0], v) for v in value)
        return tuple(from_json(t, v) for t, v in zip(args, value, strict=True))
    if origin is dict:
        return {k: from_json(args[1], v) for k, v in value.items()}
    return value

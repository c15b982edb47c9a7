"""PD³'s scorers (spec section 4.2): `retrieval_at_k` for Task 1 (`project_dedup`) and
`dup_pairwise()`, that is `dup_origin` and `dup_weighted`, for Task 2 (`project_dup_pairs`), and
`pd3_stats()`, the figures of the method's record (`figures`: one scorer each). They read the
output, the sample and its record only, with no model call, so `inspect score` on a finished log
gives the figures the eval gave.

`retrieval_at_k` reads the corpus ids the output lists on its last `[RESULT]` line, as every Task-1
solver writes it (`[RESULT] id1, id2, id3, id4, id5`): the text after the last tag (any case) to the
end of its line, split at commas, each item stripped. A valid list holds exactly `k` distinct ids of
the sample's candidates (metadata `candidates`, [{id, title, text}, ...]); any other output (no tag,
too few or too many ids, a repeat, an id that is not a candidate) scores 0 and says why: a missing
or malformed answer is never partly right. The value is Prec@k, the gold ids (the target) among the
k listed / k; the metrics are its mean and stderr, `hit_rate` (the share of samples with a gold id
among the k, Match@1) and `match_at_k` (`match_1` ... `match_<k>`: the share of samples with at
least K gold ids listed; a count as the paper prints it is the share x the scored samples).

`dup_origin` and `dup_weighted` read the output of a pair, exactly "A", "B" or "tie" (any case,
surrounding spaces), against the expert votes (metadata `votes`, [for A, for B]): origin 1 when the
prediction is the side most experts voted for, 0 otherwise (a tie predicted: 0); weighted the
predicted side's share of the votes (a tie predicted: the minority's share). Any other output is
an abstention: 0 on both, never a tie. Values are 0 to 1; the paper prints them x 100.

A sample that lacks what a score needs (no candidates, no gold ids, fewer candidates than k, no
readable votes) is left unscored with the reason (`Score.unscored`): the metrics leave it out and
Inspect counts it. So is a `pd3_stats` figure its record lacks: the retrieval figures of the
feedback's record and the reverse, those of groups for the lexical baseline, a side's score when
none of its judges gave a readable one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

from .._inspect_sample import NO_RESULT, load_result
from ..engine.checks import integer
from ..engine.methods.pd3.records import FeedbackRecord, PD3Record
from ..engine.options import Options, option
from ..engine.protocols.pd3 import match_counts, origin, overlap, prec_at_k, weighted
from ._epochs import by_sample
from ._options import takes
from .figures import Figure, Missing, NotApplicable, Reading, family

MAX_K = 100  # ids a Task-1 output lists (the paper: 5 of 30); a scorer makes no model call
_TAG = re.compile(r"\[result\]", re.IGNORECASE)
SHOWN = 40  # characters of an offending item an explanation quotes


# -- Task 1: retrieval_at_k ----------------------------------------------------------------------


@dataclass(frozen=True)
class RetrievalOptions(Options):
    """The options of `retrieval_at_k`."""

    k: int = option(
        5,
        f"ids the output must list (the paper's K = 5; 1 to {MAX_K}): Prec@k and Match@1..k.",
        lambda name, v: integer(name, v, 1, MAX_K),
    )


@dataclass(frozen=True)
class Listed:
    """The ids of an output's `[RESULT]` line, or why it is no valid list (`invalid`)."""

    ids: tuple[str, ...] = ()
    invalid: str | None = None


def _quoted(item: str) -> str:
    return repr(item if len(item) <= SHOWN else item[:SHOWN] + "...")


def read_listed(completion: str, candidates: Sequence[str], k: int) -> Listed:
    """The k ids after the output's last `[RESULT]` tag (module docstring); linear, never raises."""
    end = None
    for match in _TAG.finditer(completion):
        end = match.end()
    if end is None:
        return Listed(invalid="the output has no [RESULT] line")
    line = completion[end:].split("\n", 1)[0]
    items = [item.strip() for item in line.split(",")]
    ids = tuple(item for item in items if item)
    if len(ids) != k:
        return Listed(ids, f"its [RESULT] line lists {len(ids)} ids, not {k}")
    known = set(candidates)
    stranger = next((x for x in ids if x not in known), None)
    if stranger is not None:
        return Listed(ids, f"{_quoted(stranger)} on its [RESULT] line is not a candidate id")
    if len(set(ids)) != k:
        repeated = next(x for i, x in enumerate(ids) if x in ids[:i])
        return Listed(ids, f"its [RESULT] line lists {_quoted(repeated)} twice")
    return Listed(ids)


def candidate_ids(metadata: dict[str, Any]) -> list[str]:
    """The ids of the sample's candidates (metadata `candidates`, [{id, ...}, ...])."""
    found = metadata.get("candidates")
    if not isinstance(found, list):
        return []
    return [c["id"] for c in found if isinstance(c, dict) and isinstance(c.get("id"), str)]


def _at_least(scores: list[SampleScore]) -> list[float]:
    """Per K = 1..k (the largest k scored): the share of samples listing at least K gold ids, a
    sample's epochs sharing its weight."""
    samples = by_sample(scores)
    k = max((int((s.metadata or {}).get("k", 0)) for epochs in samples for s in epochs), default=0)
    if not samples or not k:
        return []
    shares = [0.0] * k
    for epochs in samples:
        overlaps = [int((s.metadata or {}).get("overlap", 0)) for s in epochs]
        for i, count in enumerate(match_counts(overlaps, k)):
            shares[i] += count / len(epochs) / len(samples)
    return shares


@metric(scores="unreduced")
def hit_rate() -> Metric:
    """The share of samples whose output lists at least one gold id (Match@1, Hit Rate@k)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        shares = _at_least(scores)
        return {"hit_rate": shares[0]} if shares else {}

    return compute


@metric(scores="unreduced")
def match_at_k() -> Metric:
    """`match_1` ... `match_<k>`: the share of samples whose output lists at least K gold ids (the
    paper's Match@K is the count: the share x the scored samples)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        return {f"match_{i}": share for i, share in enumerate(_at_least(scores), 1)}

    return compute


@scorer(metrics=[mean(), stderr(), hit_rate(), match_at_k()])
@takes(RetrievalOptions)
def retrieval_at_k(o: RetrievalOptions) -> Scorer:
    """Prec@k of the output's `[RESULT]` ids against the gold ids (the target); an output that is
    not k distinct candidate ids scores 0. Metrics: mean, stderr, hit_rate, match_1..match_k."""
    k = o.k

    async def score(state: TaskState, target: Target) -> Score:
        gold = [g for g in target.target if g.strip()]
        candidates = candidate_ids(state.metadata)
        if not gold:
            return Score.unscored(reason="the sample has no gold ids (its target is empty)")
        if len(candidates) < k:
            return Score.unscored(
                reason=f"the sample lists {len(candidates)} candidates (metadata `candidates`, "
                f"[{{id, title, text}}, ...]), fewer than the {k} ids to choose"
            )
        listed = read_listed(state.output.completion, candidates, k)
        metadata: dict[str, Any] = {"k": k, "gold": gold, "ids": list(listed.ids)}
        if listed.invalid is not None:
            return Score(
                value=0.0,
                answer="",
                explanation=f"No valid list of {k} distinct candidate ids: {listed.invalid}. "
                "Scored 0 (a malformed answer is never partly right).",
                metadata={**metadata, "overlap": 0, "invalid": listed.invalid},
            )
        found = overlap(listed.ids, gold)
        reached = f"Match@1 to Match@{found}" if found else "no Match@K"
        return Score(
            value=prec_at_k(listed.ids, gold, k),
            answer=", ".join(listed.ids),
            explanation=f"{found} of the {k} ids listed are among the {len(gold)} gold ids: "
            f"Prec@{k} = {found}/{k}; the sample counts toward {reached}.",
            metadata={**metadata, "overlap": found},
        )

    return score


# -- Task 2: dup_pairwise ------------------------------------------------------------------------

_PREDICTIONS = {"a": "A", "b": "B", "tie": "tie"}


def read_prediction(completion: str) -> str | None:
    """The prediction, A, B or tie, when the output is exactly that (any case, surrounding
    spaces); None otherwise."""
    return _PREDICTIONS.get(completion.strip().lower())


def read_votes(metadata: dict[str, Any]) -> tuple[int, int] | None:
    """The expert votes (metadata `votes`, [for A, for B]): two whole numbers, none negative, not
    both 0; None otherwise."""
    votes = metadata.get("votes")
    if not (isinstance(votes, list | tuple) and len(votes) == 2):
        return None
    a, b = votes
    if type(a) is int and type(b) is int and min(a, b) >= 0 and a + b:
        return a, b
    return None


def _pairwise(rule: Callable[[str, tuple[int, int]], float], what: str) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        votes = read_votes(state.metadata)
        if votes is None:
            return Score.unscored(
                reason="the sample has no readable expert votes (metadata `votes`, [for A, for "
                "B]: whole numbers, none negative, not both 0)"
            )
        prediction = read_prediction(state.output.completion)
        metadata = {"prediction": prediction, "votes": list(votes)}
        if prediction is None:
            return Score(
                value=0.0,
                answer="",
                explanation="The output is not A, B or tie: an abstention, scored 0 (never a tie).",
                metadata=metadata,
            )
        return Score(
            value=rule(prediction, votes),
            answer=prediction,
            explanation=f"Prediction {prediction}; expert votes {votes[0]} for A, {votes[1]} for "
            f"B. {what}",
            metadata=metadata,
        )

    return score


@scorer(metrics=[mean(), stderr()])
def dup_origin() -> Scorer:
    """Origin accuracy: 1 when the output (A, B or tie) is the side most experts voted for."""
    return _pairwise(origin, "Origin: 1 for the majority's side, 0 otherwise (a tie scores 0).")


@scorer(metrics=[mean(), stderr()])
def dup_weighted() -> Scorer:
    """Weighted accuracy: the predicted side's share of the expert votes (a tie: the minority's)."""
    return _pairwise(
        weighted, "Weighted: the predicted side's share of the votes (a tie: the minority's)."
    )


def dup_pairwise() -> list[Scorer]:
    """Both Task-2 accuracies, each its own numeric score: `dup_origin` and `dup_weighted`."""
    return [dup_origin(), dup_weighted()]


# -- pd3_stats -----------------------------------------------------------------------------------

# A figure's name is its key in the record's `stats()`, prefixed `pd3_` where the bare key is
# another family's figure (`fallbacks`) or reads as Inspect's own word (`samples`, `unscored`).
RETRIEVAL_FIGURES = [
    Figure("groups", "Groups (sub-competitions) the candidates were judged in: 15 at the "
           "defaults, 1 for the list-wise baseline."),
    Figure("calls_per_group", "Model calls per group, follow-ups included, averaged over the "
           "groups."),
    Figure("pd3_fallbacks", "Groups whose decision needed the fill: no readable [RESULT] list "
           "even after the follow-ups, or a list short of top_k."),
    Figure("filled", "Places of the group decisions filled by rule (from the experts' "
           "final-round picks, then the preliminary order), over all groups."),
    Figure("unreadable", "Group decisions without a readable [RESULT] list, even after the "
           "follow-ups."),
    Figure("boundary_tie", "1 when the votes tied at the k-th place and a tie-break settled it, "
           "else 0."),
    Figure("kth_votes", "The votes of the result's k-th candidate: the group decisions holding "
           "it."),
    Figure("truncated", "Candidate texts cut to the candidate_tokens budget (the query's cut "
           "not counted)."),
]  # fmt: skip
FEEDBACK_FIGURES = [
    Figure("pd3_samples", "Judge calls asked for a duplication score, both sides of the pair "
           "together."),
    Figure("pd3_unscored", "Judge samples without a readable 1-10 score even after the "
           "follow-ups, left out of their side's mean."),
    Figure("pd3_score_a", "Side A's duplication score: the mean of its judges' readable scores, "
           "1 to 10."),
    Figure("pd3_score_b", "Side B's duplication score: the mean of its judges' readable scores, "
           "1 to 10."),
]  # fmt: skip
NOT_PD3 = "no PD³ record in the sample store (another method's)"
NOT_RETRIEVAL = "the sample's record is PD³'s feedback on a pair, not a retrieval"
NOT_FEEDBACK = "the sample's record is a PD³ retrieval, not the feedback on a pair"


def _names(figures: list[Figure], reason: str) -> dict[str, int | float | Missing]:
    return {f.name: NotApplicable(reason) for f in figures}


def _retrieval(record: PD3Record) -> Reading:
    stats = record.stats()
    # only the lexical baseline forms no groups, and only it lacks a per-group mean or a vote
    none = NotApplicable(
        f"the {record.variant} baseline forms no groups: no call, vote or cut to count"
    )
    values: dict[str, int | float | Missing] = {}
    for f in RETRIEVAL_FIGURES:
        value = stats[f.name.removeprefix("pd3_")]
        values[f.name] = none if value is None or not record.groups else value
    return Reading(
        values | _names(FEEDBACK_FIGURES, NOT_FEEDBACK),
        {
            "groups": {"variant": record.variant},
            "pd3_fallbacks": {
                "fallback_groups": [g.number for g in record.groups if g.decision.fallback]
            },
            "boundary_tie": {"rule": record.rule},
            "kth_votes": {"top": list(record.top)},
            "truncated": {"cuts": [asdict(c) for c in record.cuts]},
        },
    )


def _feedback(record: FeedbackRecord) -> Reading:
    stats = record.stats()
    sides = {s.side for s in record.sides}
    values: dict[str, int | float | Missing] = {}
    for f in FEEDBACK_FIGURES:
        value = stats.get(f.name.removeprefix("pd3_"))
        side = f.name[-1].upper()  # only a side's score can be None or absent
        if value is not None:
            values[f.name] = value
        elif side in sides:
            values[f.name] = Missing(f"no judge sample of side {side} gave a readable score")
        else:
            values[f.name] = NotApplicable(f"the feedback scored no side {side} (not a pair)")
    metadata = {
        f"pd3_score_{s.side.lower()}": {"scores": list(s.scores)} for s in record.sides if s.side
    }
    return Reading(values | _names(RETRIEVAL_FIGURES, NOT_RETRIEVAL), metadata)


def read_stats(state: TaskState, target: Target) -> Reading | Missing:
    result = load_result(state)
    if result is None:
        return Missing(NO_RESULT)
    if isinstance(result.record, PD3Record):
        return _retrieval(result.record)
    if isinstance(result.record, FeedbackRecord):
        return _feedback(result.record)
    return NotApplicable(NOT_PD3)


STATS_SCORERS = family([*RETRIEVAL_FIGURES, *FEEDBACK_FIGURES], read_stats)


def pd3_stats(part: str = "all") -> list[Scorer]:
    """PD³'s figures, from the record (no model call): for a retrieval (`part="retrieval"`) its
    groups, calls per group, fallbacks, filled places, unreadable decisions, a tie at the k-th
    place, the k-th candidate's votes and cut texts; for the feedback on a pair
    (`part="feedback"`) its judge samples, those without a score and each side's score; `all`
    both. Calls and tokens are `debate_stats`' figures."""
    parts = {"retrieval": RETRIEVAL_FIGURES, "feedback": FEEDBACK_FIGURES}
    if part != "all" and part not in parts:
        raise ValueError(f"pd3_stats: part must be all, retrieval or feedback, got {part!r}")
    names = {f.name for f in parts.get(part, [*RETRIEVAL_FIGURES, *FEEDBACK_FIGURES])}
    made = [make() for make in STATS_SCORERS]
    return [s for s in made if registry_info(s).name.split("/")[-1] in names]

"""How well a judge agrees with people, and its biases (D3 section 4 metrics).

`judge_agreement` scores a judge solver's verdict (A, B or tie) against the human label of a pair:
`accuracy` and `stderr`, then `cohen_kappa` and the length-bias figures of `verbosity`. The share of
ties, of abstentions, of position-consistent verdicts and of early stops are figures of their own
(`judge_stats()`, see `figures`), and the rounds, calls and tokens behind a verdict are
`debate_stats`' figures. No readable verdict is an abstention (verdict None): always wrong, and
never counted as a tie.

The metrics read the score metadata that `judge_agreement` and the debate-judge scorers write:
`verdict`, `abstained`, `gold`, `rounds`, `early_stop`, `tokens`, `position_consistent`, `longer`.
With `--epochs`, they read every epoch's metadata, not just the first one's that Inspect's reducer
keeps: each sample counts once and its epochs share its weight (see `_epochs`), so a sample judged
A in one epoch and tie in the other is half a tie, and kappa's observed agreement is the accuracy
that the default `mean` reducer reports. A metric returns its values by name, and a value with
nothing to compute it from (no labelled pair, no pair with a longer answer) is left out.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from typing import Any

from inspect_ai.scorer import (
    CORRECT,
    INCORRECT,
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    accuracy,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from .._inspect_sample import load_result
from ..engine.answers import Choice
from ..engine.methods.d3.court import VERDICT, explanation
from ..engine.methods.d3.records import JudgeRecord
from ..engine.protocols.d3 import SIDES, TIE
from ..engine.protocols.d3 import cohen_kappa as kappa
from ..engine.records import DebateResult
from ._epochs import by_sample
from .figures import Figure, Missing, NotApplicable, Reading, family

# each sample's score metadata, one dict per epoch
Samples = list[list[dict[str, Any]]]


def _samples(scores: list[SampleScore]) -> Samples:
    return [[score.metadata or {} for score in epochs] for epochs in by_sample(scores)]


def _where(samples: Samples, keep: Callable[[dict[str, Any]], bool]) -> Samples:
    return [kept for epochs in samples if (kept := [m for m in epochs if keep(m)])]


def _mean(samples: Samples, read: Callable[[dict[str, Any]], Any]) -> float | None:
    """Mean over samples of each one's mean over its epochs; a None reading is left out, and None
    when nothing was read."""
    means = [
        statistics.mean(present)
        for epochs in samples
        if (present := [float(v) for v in map(read, epochs) if v is not None])
    ]
    return statistics.mean(means) if means else None


def _labelled(samples: Samples) -> Samples:
    return _where(samples, lambda m: m.get("gold") is not None)


def _field(name: str) -> Callable[[dict[str, Any]], Any]:
    return lambda m: m.get(name)


@metric(scores="unreduced")
def cohen_kappa() -> Metric:
    """Cohen's kappa of the verdicts against the human labels (no verdict is a class of its own);
    left out without a labelled pair."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        rows = [(m, 1 / len(epochs)) for epochs in _labelled(_samples(scores)) for m in epochs]
        if not rows:
            return {"cohen_kappa": None}
        gold, verdicts = [m["gold"] for m, _ in rows], [str(m.get("verdict")) for m, _ in rows]
        return {"cohen_kappa": kappa(gold, verdicts, [w for _, w in rows])}

    return compute


@metric(scores="unreduced")
def judgments() -> Metric:
    """What the debate-judge scorers (`more_judge`, `samre_judge`) report beside their win rate, by
    the names of `judge_stats`' figures: the share of ties, of abstentions, of position-consistent
    verdicts (with swap) and of early stops (SAMRE), and the court's rounds and tokens behind a
    verdict. A figure no judgment has (no swap, no round limit) is left out; each score's metadata
    says why under `not_measured`."""

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        samples = _samples(scores)
        return {
            "tie": _mean(samples, lambda m: m.get("verdict") == TIE),
            "abstained": _mean(samples, _field("abstained")),
            "position_consistent": _mean(samples, _field("position_consistent")),
            "early_stop": _mean(samples, _field("early_stop")),
            "court_rounds": _mean(samples, _field(COURT + "rounds")),
            "court_tokens": _mean(samples, _field(COURT + "tokens")),
        }

    return compute


@metric(scores="unreduced")
def verbosity() -> Metric:
    """Length bias (D3 spec section 4): does the judge favour the longer answer more than people?

    `judge_longer` and `human_longer`: how often each picks the longer answer. `flip_rate`: how
    often the judge picks the longer answer where people picked the shorter. `accuracy_longer_won`
    and `accuracy_shorter_won`: agreement split by whether the people chose the longer answer.
    """

    def compute(scores: list[SampleScore]) -> dict[str, float | None]:
        rows = _where(
            _labelled(_samples(scores)), lambda m: m.get("longer") in SIDES and m["gold"] in SIDES
        )
        longer_won = _where(rows, lambda m: m["gold"] == m["longer"])
        shorter_won = _where(rows, lambda m: m["gold"] != m["longer"])
        return {
            "judge_longer": _mean(rows, lambda m: m.get("verdict") == m["longer"]),
            "human_longer": _mean(rows, lambda m: m["gold"] == m["longer"]),
            "flip_rate": _mean(shorter_won, lambda m: m.get("verdict") == m["longer"]),
            "accuracy_longer_won": _mean(longer_won, lambda m: m.get("verdict") == m["gold"]),
            "accuracy_shorter_won": _mean(shorter_won, lambda m: m.get("verdict") == m["gold"]),
        }

    return compute


def not_measured(method: str | None, record: JudgeRecord | None, swap: bool) -> dict[str, str]:
    """Why a judgment has no position consistency or early stop, by figure name."""
    if record is None:
        who = method or "the solver"
        return {
            "position_consistent": f"{who} is no D3 judge: only more, samre and single_judge with "
            "-S swap=true judge the pair in both orders",
            "early_stop": f"{who} is no D3 judge: only samre can stop before its round limit",
        }
    if record.unheard is not None:
        return dict.fromkeys(("position_consistent", "early_stop"), f"no hearing: {record.unheard}")
    why = {}
    if record.position_consistent is None:
        why["position_consistent"] = (
            "no verdict in one of the two orders, so there is nothing to compare"
            if swap
            else "swap is off: the pair was judged in one order only (-S swap=true judges it in "
            "both and checks that the verdict follows the answers)"
        )
    if not record.max_rounds:
        why["early_stop"] = f"{method} has no round limit to stop before (only samre has one)"
    return why


# A grader's court is not the debate `debate_stats` counts (the solver's): its costs carry this
# prefix, so a name in the metadata never stands for two figures of one sample
COURT = "court_"
COSTS = ("rounds", "calls", "tokens")


def judgment_metadata(result: DebateResult, record: JudgeRecord, costs: str = "") -> dict[str, Any]:
    """What the metrics read from a D3 record, plus its costs by role, the options that ran and
    why a figure is not measured. `rounds` is the debate figure's (the longest hearing's, where
    the record's mean is over the hearings); the jurors' abstentions are `juror_abstentions`,
    apart from the answers' `abstentions`; `costs` prefixes rounds, calls and tokens."""
    stats = record.stats() | {"rounds": result.rounds}
    stats["juror_abstentions"] = stats.pop("abstentions")
    for name in COSTS:
        stats[costs + name] = stats.pop(name)
    return {
        **stats,
        "method": result.method,
        "options": result.options,
        "by_role": result.tokens_by_role(),
        "not_measured": not_measured(result.method, record, bool(result.options.get("swap"))),
    }


# The options of mt_bench_judge's two-choice question (C only with gold ties kept).
CHOICES = (*VERDICT.options, TIE)
_CHOSEN = Choice(CHOICES)


def read_verdict(completion: str) -> str | None:
    """A, B or tie from an output (`ANSWER: A`, `ANSWER: Answer B`, `ANSWER: C` or `ANSWER: tie`);
    None if it gives none."""
    letter = _CHOSEN.extract(completion)
    return TIE if letter == "C" else letter


def longer_side(a: str, b: str) -> str | None:
    return None if len(a) == len(b) else ("A" if len(a) > len(b) else "B")


def judged(state: TaskState) -> tuple[str | None, DebateResult | None, JudgeRecord | None]:
    """The sample's verdict, and the D3 record it came from (None: read from another solver's
    output), with the debate result that holds it."""
    result = load_result(state)
    if result is not None and isinstance(result.record, JudgeRecord):
        return result.final, result, result.record
    return read_verdict(state.output.completion), result, None


@scorer(metrics=[accuracy(), stderr(), cohen_kappa(), verbosity()])
def judge_agreement() -> Scorer:
    """Correct when the judge's verdict (A, B or tie) equals the human label of the pair."""

    async def score(state: TaskState, target: Target) -> Score:
        gold = target.text.strip()
        verdict, result, record = judged(state)
        if result is not None and record is not None:
            metadata, why = judgment_metadata(result, record), explanation(record)
        else:  # any other solver: its verdict was read from the output
            metadata = {"verdict": verdict, "abstained": verdict is None}
            why = "verdict read from the output"
        meta = state.metadata
        metadata |= {
            "gold": gold,
            "longer": longer_side(meta.get("answer_a") or "", meta.get("answer_b") or ""),
        }
        return Score(
            value=CORRECT if verdict == gold else INCORRECT,
            answer=verdict or "",
            explanation=why,
            metadata=metadata,
        )

    return score


FIGURES = [
    Figure("tie", "1 when the verdict is a tie."),
    Figure("abstained", "1 when no readable verdict came out (scored wrong, never a tie)."),
    Figure("position_consistent", "With swap: 1 when the verdict followed the answers once their "
           "order was reversed."),
    Figure("early_stop", "The share of the judge's hearings that stopped before max_rounds "
           "(SAMRE)."),
]  # fmt: skip


NOT_A_JUDGE = "not a judge: the record is of a method that answers the question"


def read(state: TaskState, target: Target) -> Reading:
    verdict, result, record = judged(state)
    method = result.method if result is not None else None
    swap = bool(result and result.options.get("swap"))
    why = not_measured(method, record, swap)
    stats = record.stats() if record is not None else {}
    consistent, stopped = stats.get("position_consistent"), stats.get("early_stop")
    # a judge with swap off, or without a round limit, never measures them
    off = {
        "position_consistent": Missing if swap else NotApplicable,
        "early_stop": Missing if record is not None and record.max_rounds else NotApplicable,
    }
    values: dict[str, int | float | Missing] = {
        "tie": int(verdict == TIE),
        "abstained": int(verdict is None),
        "position_consistent": (
            off["position_consistent"](why["position_consistent"])
            if consistent is None
            else int(consistent)
        ),
        "early_stop": off["early_stop"](why["early_stop"]) if stopped is None else stopped,
    }
    if result is not None and record is None:  # an answer method: a verdict only if a task asks
        values |= {
            name: NotApplicable(NOT_A_JUDGE, value)
            for name, value in values.items()
            if not isinstance(value, Missing)
        }
    return Reading(values)


SCORERS = family(FIGURES, read, columns={"position_consistent": "consistent"})


VERDICT_FIGURES = ("tie", "abstained")


def verdict_stats() -> list[Scorer]:
    """The scorers of the figures any solver's verdict has (ties, abstentions): what a judge task
    lists, so that a solver that is no D3 judge has them too (its verdict read from its output);
    a D3 judge's own figures (position consistency, early stops) its solver writes."""
    return [make() for make, f in zip(SCORERS, FIGURES, strict=True) if f.name in VERDICT_FIGURES]


def judge_stats() -> list[Scorer]:
    """The judgment figures' scorers: ties, abstentions, position consistency and early stops."""
    return [make() for make in SCORERS]

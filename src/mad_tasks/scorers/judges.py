"""`more_judge` and `samre_judge`: D3 debate judges grading any task's output against a reference.

Like `model_graded_qa`, but the grade comes from a debate: the output of the model under test is
Answer A, the sample's reference (its target, or a metadata field) is Answer B, and the verdict is
win (1), tie (0.5) or loss (0), so the mean is a win rate. A court that gives nothing readable
abstains: 0, counted by `abstention_rate`, never a tie. An empty output is no answer: it scores 0
without a hearing (a court could otherwise prefer nothing to a poor reference). The judge's calls run on the roles
`advocate`, `judge` and `juror`; the jurors' and the judge's reasoning is the explanation, and the
verdict, costs and the whole record go into the score metadata. Works after the fact too:

    inspect score LOG --scorer mad_tasks/samre_judge --action append
"""

from __future__ import annotations

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from .._inspect_sample import judge_session
from ..engine.judge_options import court_options, more_options, stop_rule
from ..engine.methods.d3 import Judge, Pair, explanation
from ..engine.methods.more import more as run_more
from ..engine.methods.samre import samre as run_samre
from ..engine.options import OptionError, boolean
from ._options import scorer_options
from .judge_metrics import (
    abstention_rate,
    judgment_metadata,
    mean_rounds,
    position_consistency,
    tie_rate,
    tokens_per_judgment,
)

OUTCOMES = {
    "A": ("win", 1.0),
    "tie": ("tie", 0.5),
    "B": ("loss", 0.0),
    None: ("abstained", 0.0),  # nothing readable: no credit, and not a tie
}
NO_OUTPUT = "no output"
METRICS = [
    mean(),
    stderr(),
    tie_rate(),
    abstention_rate(),
    position_consistency(),
    mean_rounds(),
    tokens_per_judgment(),
]


def reference_option(reference: object) -> None:
    if not (isinstance(reference, str) and reference.strip()):
        raise OptionError(
            "reference", reference, "target, or the name of a metadata field", "scorer"
        )


def reference_of(state: TaskState, target: Target, reference: str) -> str:
    if reference == "target":
        return target.text
    value = state.metadata.get(reference)
    if not isinstance(value, str):
        raise ValueError(
            f"invalid scorer option 'reference': sample {state.sample_id} has no text metadata "
            f"field {reference!r} (use 'target' or the name of a metadata field)"
        )
    return value


def graded(
    reference: str, judge: Judge, retries: int, temperature: float | None, max_tokens: int | None
) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        if not state.output.completion.strip():
            return Score(
                value=0.0,
                answer=NO_OUTPUT,
                explanation="The model under test gave no answer, so there was nothing to judge.",
                metadata={"outcome": NO_OUTPUT, "calls": 0, "tokens": 0},
            )
        # shown as written: no prompt names the model under test
        reference_answer = reference_of(state, target, reference)
        pair = Pair(state.input_text, state.output.completion, reference_answer)
        session = judge_session(state.sample_id, pair.question, retries, temperature, max_tokens)
        result = await judge(session, pair)
        outcome, value = OUTCOMES[result.final]
        return Score(
            value=value,
            answer=outcome,
            explanation=explanation(result.details),
            metadata={
                **judgment_metadata(result),
                "outcome": outcome,
                "hearings": result.details["hearings"],
            },
        )

    return score


@scorer(metrics=METRICS)
def more_judge(
    reference: str = "target",
    advocates: int = 3,
    aggregation: str = "synthesis",
    jurors: int = 5,
    personas: bool = True,
    tiebreak: str = "cumulative",
    swap: bool = False,
    swap_resolution: str = "tie",
    retries: int = 1,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Scorer:
    """Grade the output against a reference with MORE (see the `more` solver for the options).

    Args:
        reference: where the reference answer is: `target`, or the name of a metadata field.
    """
    with scorer_options():
        reference_option(reference)
        more_options("scorer", advocates, aggregation)
        jury, positions = court_options(
            "scorer", jurors, personas, tiebreak, swap, swap_resolution, retries, temperature,
            max_tokens,
        )  # fmt: skip
    return graded(
        reference,
        lambda s, p: run_more(s, p, advocates, aggregation, jury, positions),
        retries,
        temperature,
        max_tokens,
    )


@scorer(metrics=METRICS)
def samre_judge(
    reference: str = "target",
    max_rounds: int = 5,
    stopping: str = "signed",
    eps: float | None = None,
    window: int | None = None,
    min_rounds: int | None = None,
    decisive_gap: float | None = None,
    token_budget: int | None = None,
    summarize: bool = False,
    jurors: int = 5,
    personas: bool = True,
    tiebreak: str = "cumulative",
    swap: bool = False,
    swap_resolution: str = "tie",
    retries: int = 1,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Scorer:
    """Grade the output against a reference with SAMRE (see the `samre` solver for the options).

    Args:
        reference: where the reference answer is: `target`, or the name of a metadata field.
    """
    with scorer_options():
        reference_option(reference)
        rule = stop_rule(
            "scorer", max_rounds, stopping, eps, window, min_rounds, decisive_gap, token_budget
        )
        boolean("summarize", summarize, kind="scorer")
        jury, positions = court_options(
            "scorer", jurors, personas, tiebreak, swap, swap_resolution, retries, temperature,
            max_tokens,
        )  # fmt: skip
    return graded(
        reference,
        lambda s, p: run_samre(s, p, rule, summarize, jury, positions),
        retries,
        temperature,
        max_tokens,
    )

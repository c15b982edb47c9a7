"""D3 judge solvers: `more`, `samre` and the `single_judge` baseline, for evaluating judges.

The model under evaluation is the judge. A sample holds a question (its input) and two answers
(metadata `answer_a` and `answer_b`, shown as written; no prompt names the models that wrote them).
The output is `ANSWER: A`, `ANSWER: B` or `ANSWER: tie`, or empty when the judge abstained (nothing
it said could be read), and the whole record goes into the sample store. Calls run on the roles `advocate`, `judge` and `juror`, each the main model unless bound
with `--model-role`.
"""

from __future__ import annotations

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from .._inspect_sample import STORE_KEY, judge_session
from ..engine.judge_options import court_options, more_options, stop_rule
from ..engine.methods import d3
from ..engine.methods.d3 import Judge, Pair
from ..engine.methods.more import more as run_more
from ..engine.methods.samre import samre as run_samre
from ..engine.options import boolean


def pair_of(state: TaskState) -> Pair:
    meta = state.metadata
    missing = [k for k in ("answer_a", "answer_b") if not isinstance(meta.get(k), str)]
    if missing:
        raise ValueError(
            f"sample {state.sample_id}: the judge solvers compare the two answers in the sample "
            f"metadata 'answer_a' and 'answer_b'; missing: {', '.join(missing)}"
        )
    return Pair(state.input_text, meta["answer_a"], meta["answer_b"])


async def judge_sample(
    state: TaskState, judge: Judge, retries: int, temperature: float | None, max_tokens: int | None
) -> TaskState:
    pair = pair_of(state)
    result = await judge(
        judge_session(state.sample_id, pair.question, retries, temperature, max_tokens), pair
    )
    result.options = {**result.options, "retries": retries}
    state.store.set(STORE_KEY, result.to_dict())
    # an abstention leaves the output empty, so no scorer can read a verdict into it
    completion = f"ANSWER: {result.final}" if result.final is not None else ""
    state.output = ModelOutput.from_content(model=str(state.model), content=completion)
    state.messages.append(
        ChatMessageAssistant(content=completion or "(no verdict: the judge abstained)")
    )
    return state


@solver
def more(
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
) -> Solver:
    """MORE: k advocates per answer, merged defences, one judge pass, a jury of personas.

    Args:
        advocates: advocates per answer, writing in parallel (the paper's k = 3).
        aggregation: synthesis (a strategist merges each side's defences) or max_score (the judge
            scores each pairing of defences; each side keeps its best total).
        jurors: an odd jury size, or 0 to let the judge's score decide alone.
        personas: give jurors the paper's five personas (else one generic juror).
        tiebreak: the judge score that settles a tied jury: cumulative or final.
        swap: judge both answer orders and report whether the verdict followed the answers.
        swap_resolution: verdict when the orders disagree: tie, or gap (the judge's gaps summed).
        retries: follow-ups for an unreadable judge score or juror vote before it is left out.
        temperature: sampling temperature of every call (provider default if unset).
        max_tokens: reply length limit per call.
    """
    more_options("solver", advocates, aggregation)
    jury, positions = court_options(
        "solver", jurors, personas, tiebreak, swap, swap_resolution, retries, temperature,
        max_tokens,
    )  # fmt: skip

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await judge_sample(
            state,
            lambda s, p: run_more(s, p, advocates, aggregation, jury, positions),
            retries,
            temperature,
            max_tokens,
        )

    return solve


@solver
def samre(
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
) -> Solver:
    """SAMRE: one advocate per answer, rounds of defence and scored feedback, budgeted stopping.

    Args:
        max_rounds: the round limit (the paper's R_max = 5).
        stopping: signed (the signed score gap steady within eps over the window, no sign change)
            or code (the reference code's test on absolute gaps: window 3, min_rounds 3, eps 5).
        eps: steadiness tolerance in points on the 6-120 scale (default 5).
        window: rounds compared (default 2; code: 3).
        min_rounds: rounds before convergence may stop the debate (default 2; code: 3).
        decisive_gap: also stop once the judge's gap reaches this many points (unset: never).
        token_budget: stop after the round in which the tokens spent exceed this (unset: none).
        summarize: condense each defence before the opponent, judge and jury read it (code).
        jurors: an odd jury size, or 0 to let the judge's score decide alone.
        personas: give jurors the paper's five personas (else one generic juror).
        tiebreak: the judge score that settles a tied jury: cumulative or final.
        swap: judge both answer orders and report whether the verdict followed the answers.
        swap_resolution: verdict when the orders disagree: tie, or gap (the judge's gaps summed).
        retries: follow-ups for an unreadable judge score or juror vote before it is left out.
        temperature: sampling temperature of every call (provider default if unset).
        max_tokens: reply length limit per call.
    """
    rule = stop_rule(
        "solver", max_rounds, stopping, eps, window, min_rounds, decisive_gap, token_budget
    )
    boolean("summarize", summarize)
    jury, positions = court_options(
        "solver", jurors, personas, tiebreak, swap, swap_resolution, retries, temperature,
        max_tokens,
    )  # fmt: skip

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await judge_sample(
            state,
            lambda s, p: run_samre(s, p, rule, summarize, jury, positions),
            retries,
            temperature,
            max_tokens,
        )

    return solve


@solver
def single_judge(
    swap: bool = False,
    swap_resolution: str = "tie",
    retries: int = 1,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """One judge call scores both answers on D3's six criteria; the higher total wins.

    Args:
        swap: judge both answer orders and report whether the verdict followed the answers.
        swap_resolution: verdict when the orders disagree: tie, or gap (the judge's gaps summed).
        retries: follow-ups for an unreadable score before the judge abstains (no verdict).
        temperature: sampling temperature (provider default if unset).
        max_tokens: reply length limit.
    """
    _, positions = court_options(
        "solver", 0, False, "cumulative", swap, swap_resolution, retries, temperature, max_tokens
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await judge_sample(
            state, lambda s, p: d3.single_judge(s, p, positions), retries, temperature, max_tokens
        )

    return solve

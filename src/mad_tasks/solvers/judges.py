"""D3 judge solvers: `more`, `samre` and the `single_judge` baseline, for evaluating judges.

The model under evaluation is the judge. A sample holds a question (its input) and two answers
(metadata `answer_a` and `answer_b`; `model_a`/`model_b`, if present, are kept out of every prompt).
The output is `ANSWER: A`, `ANSWER: B` or `ANSWER: tie` and the whole record goes into the sample
store. Calls run on the roles `advocate`, `judge` and `juror`, each the main model unless bound
with `--model-role`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from inspect_ai.model import ChatMessageAssistant, ModelOutput
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.methods import d3
from ..engine.methods.d3 import VERDICT, Jury, Pair, Swap
from ..engine.methods.more import AGGREGATIONS
from ..engine.methods.more import more as run_more
from ..engine.methods.samre import samre as run_samre
from ..engine.protocols.d3 import STOPPING, SWAP_RESOLUTIONS, TIEBREAKS, StopRule
from ..engine.records import DebateResult
from ..engine.session import Problem, Session
from ..inspect_runtime import InspectRuntime
from ._shell import STORE_KEY, check_options

Judge = Callable[[Session, Pair], Awaitable[DebateResult]]

# stopping preset -> (window, min_rounds, eps) unless set explicitly
STOP_PRESETS = {"signed": (2, 2, 5.0), "code": (3, 3, 5.0)}


def court_options(
    kind: str,
    jurors: int,
    personas: bool,
    tiebreak: str,
    swap: bool,
    swap_resolution: str,
    retries: int,
) -> tuple[Jury, Swap]:
    """Check the options every D3 judge shares; `kind` ("solver", "scorer") is for the message."""
    check_options(
        kind=kind,
        jurors=(
            jurors == 0 or (jurors > 0 and jurors % 2 == 1),
            f"must be an odd number (or 0: the judge's score decides alone), got {jurors}",
        ),
        tiebreak=(tiebreak in TIEBREAKS, f"got {tiebreak!r}, allowed: {', '.join(TIEBREAKS)}"),
        swap_resolution=(
            swap_resolution in SWAP_RESOLUTIONS,
            f"got {swap_resolution!r}, allowed: {', '.join(SWAP_RESOLUTIONS)}",
        ),
        retries=(retries >= 0, f"must be >= 0, got {retries}"),
    )
    return Jury(jurors, personas, tiebreak), Swap(swap, swap_resolution)


def more_options(kind: str, advocates: int, aggregation: str) -> None:
    check_options(
        kind=kind,
        advocates=(advocates >= 1, f"must be >= 1, got {advocates}"),
        aggregation=(
            aggregation in AGGREGATIONS,
            f"got {aggregation!r}, allowed: {', '.join(AGGREGATIONS)}",
        ),
    )


def stop_rule(
    kind: str,
    max_rounds: int,
    stopping: str,
    eps: float | None,
    window: int | None,
    min_rounds: int | None,
    decisive_gap: float | None,
    token_budget: int | None,
) -> StopRule:
    """SAMRE's stop rule; window, min_rounds and eps default to the chosen preset's values."""
    check_options(
        kind=kind,
        stopping=(stopping in STOPPING, f"got {stopping!r}, allowed: {', '.join(STOPPING)}"),
    )
    preset = STOP_PRESETS[stopping]
    window = preset[0] if window is None else window
    min_rounds = preset[1] if min_rounds is None else min_rounds
    eps = preset[2] if eps is None else eps
    check_options(
        kind=kind,
        max_rounds=(max_rounds >= 1, f"must be >= 1, got {max_rounds}"),
        window=(window >= 2, f"must be >= 2 (gaps compared), got {window}"),
        min_rounds=(min_rounds >= 1, f"must be >= 1, got {min_rounds}"),
        eps=(eps > 0, f"must be > 0 (points on the 6-120 scale), got {eps}"),
        decisive_gap=(
            decisive_gap is None or decisive_gap > 0,
            f"must be > 0 or unset, got {decisive_gap}",
        ),
        token_budget=(
            token_budget is None or token_budget >= 1,
            f"must be >= 1 or unset, got {token_budget}",
        ),
    )
    return StopRule(max_rounds, stopping, window, min_rounds, eps, decisive_gap, token_budget)


def judge_session(
    sample_id: str | int | None,
    question: str,
    retries: int,
    temperature: float | None,
    max_tokens: int | None,
) -> Session:
    return Session(
        InspectRuntime(sample_id),
        Problem(question, VERDICT),
        retries=retries,
        temperature=temperature,
        max_tokens=max_tokens,
    )


def pair_of(state: TaskState) -> Pair:
    meta = state.metadata
    missing = [k for k in ("answer_a", "answer_b") if not isinstance(meta.get(k), str)]
    if missing:
        raise ValueError(
            f"sample {state.sample_id}: the judge solvers compare the two answers in the sample "
            f"metadata 'answer_a' and 'answer_b'; missing: {', '.join(missing)}"
        )
    names = tuple(m for m in (meta.get("model_a"), meta.get("model_b")) if isinstance(m, str))
    return Pair(state.input_text, meta["answer_a"], meta["answer_b"], names)


async def judge_sample(
    state: TaskState, judge: Judge, retries: int, temperature: float | None, max_tokens: int | None
) -> TaskState:
    pair = pair_of(state)
    result = await judge(
        judge_session(state.sample_id, pair.question, retries, temperature, max_tokens), pair
    )
    result.options = {**result.options, "retries": retries}
    state.store.set(STORE_KEY, result.to_dict())
    completion = f"ANSWER: {result.final}"
    state.output = ModelOutput.from_content(model=str(state.model), content=completion)
    state.messages.append(ChatMessageAssistant(content=completion))
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
        "solver", jurors, personas, tiebreak, swap, swap_resolution, retries
    )

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
    jury, positions = court_options(
        "solver", jurors, personas, tiebreak, swap, swap_resolution, retries
    )

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
        retries: follow-ups for an unreadable score before the judgment counts as a tie.
        temperature: sampling temperature (provider default if unset).
        max_tokens: reply length limit.
    """
    _, positions = court_options("solver", 0, False, "cumulative", swap, swap_resolution, retries)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await judge_sample(
            state, lambda s, p: d3.single_judge(s, p, positions), retries, temperature, max_tokens
        )

    return solve

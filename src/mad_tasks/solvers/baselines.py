"""Baseline solvers: `single`, `cot`, `self_consistency`."""

from __future__ import annotations

import re

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.methods import baselines
from ._shell import check_format, check_options, run_method


@solver
def single(
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """One agent answers directly, once."""
    check_format(answer_format)
    check_options(retries=(retries >= 0, f"must be >= 0, got {retries}"))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state, lambda s: baselines.single(s, cot=False), answer_format, retries, temperature,
            max_tokens,
        )

    return solve


@solver
def cot(
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """One agent reasons step by step, then answers."""
    check_format(answer_format)
    check_options(retries=(retries >= 0, f"must be >= 0, got {retries}"))

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state, lambda s: baselines.single(s, cot=True), answer_format, retries, temperature,
            max_tokens,
        )

    return solve


def debate_budget(spec: str) -> int:
    """'3x2' (agents x rounds) -> 6 calls, the first-attempt call count of that `du_debate`."""
    m = re.fullmatch(r"\s*(\d+)\s*[xX*]\s*(\d+)\s*", spec)
    if not m or int(m.group(1)) < 1 or int(m.group(2)) < 1:
        raise ValueError(
            f"invalid solver option 'match_debate': got {spec!r}, expected AGENTSxROUNDS such as 3x2"
        )
    return int(m.group(1)) * int(m.group(2))


@solver
def self_consistency(
    samples: int = 5,
    match_debate: str | None = None,
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """Majority over independent chains of thought; `match_debate=3x2` spends a debate's call budget."""
    check_format(answer_format)
    n = debate_budget(match_debate) if match_debate is not None else samples
    check_options(
        samples=(n >= 1, f"must be >= 1, got {n}"),
        retries=(retries >= 0, f"must be >= 0, got {retries}"),
    )

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state, lambda s: baselines.self_consistency(s, n), answer_format, retries,
            temperature, max_tokens,
        )

    return solve

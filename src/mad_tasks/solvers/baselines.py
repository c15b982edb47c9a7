"""Baseline solvers: `single`, `cot`, `self_consistency`."""

from __future__ import annotations

from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.methods import baselines
from ..engine.options import MAX_AGENTS, MAX_ROUNDS, MAX_SAMPLES, OptionError, integer
from ._shell import check_common, run_method


@solver
def single(
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """One agent answers directly, once."""
    check_common(answer_format, retries, temperature, max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state,
            lambda s: baselines.single(s, cot=False),
            answer_format,
            retries,
            temperature,
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
    check_common(answer_format, retries, temperature, max_tokens)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state,
            lambda s: baselines.single(s, cot=True),
            answer_format,
            retries,
            temperature,
            max_tokens,
        )

    return solve


def debate_budget(spec: Any) -> int:
    """'3x2' (agents x rounds) -> 6 calls, the first-attempt call count of that `du_debate`.

    Any `du_debate` within the caps can be matched. On the command line `0x2` arrives as the
    number 2 (YAML reads it as hexadecimal), so only text is read."""
    parts = spec.lower().replace("*", "x").split("x") if isinstance(spec, str) else []
    digits = [p.strip() for p in parts]
    if len(digits) == 2 and all(d.isascii() and d.isdigit() and len(d) <= 4 for d in digits):
        agents, rounds = int(digits[0]), int(digits[1])
        if 1 <= agents <= MAX_AGENTS and 1 <= rounds <= MAX_ROUNDS:
            return agents * rounds
    raise OptionError(
        "match_debate",
        spec,
        f"AGENTSxROUNDS such as 3x2, with 1 to {MAX_AGENTS} agents and 1 to {MAX_ROUNDS} rounds, "
        "or null (unset)",
    )


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
    check_common(answer_format, retries, temperature, max_tokens)
    n = integer("samples", samples, 1, MAX_SAMPLES)
    if match_debate is not None:
        n = debate_budget(match_debate)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state,
            lambda s: baselines.self_consistency(s, n),
            answer_format,
            retries,
            temperature,
            max_tokens,
        )

    return solve

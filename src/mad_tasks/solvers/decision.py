"""Decision-protocol debates (Kaesberg et al., 2025): `voting`, `consensus`, `aad`, `collective_improvement`.

Each solver validates its options, then runs the engine's `decision_debate` through `run_method`.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.embeddings import make_embedder
from ..engine.methods.decision import (
    CONSENSUS_PROTOCOLS,
    VOTING_PROTOCOLS,
    DecisionConfig,
    decision_debate,
)
from ..engine.options import MAX_TURNS, OptionError, embedder_spec, integer, one_of
from ._shell import check_common, run_method


def _window(memory_window: Any) -> int | None:
    """`-S memory_window=full` (or null) shows the whole history."""
    if memory_window is None or (
        isinstance(memory_window, str) and memory_window.lower() in ("full", "none", "all")
    ):
        return None
    try:
        return integer("memory_window", memory_window, 0, MAX_TURNS)
    except OptionError as e:
        raise e.also(", or full") from None


def _debate_solver(
    config: dict[str, Any],
    embedder: str,
    answer_format: str,
    retries: int,
    temperature: float | None,
    max_tokens: int | None,
) -> Solver:
    """Validate every option before any model call, then build the solver."""
    check_common(answer_format, retries, temperature, max_tokens)
    embedder_spec("embedder", embedder)
    cfg = DecisionConfig(**config)
    embed = make_embedder(embedder)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await run_method(
            state, lambda s: decision_debate(s, cfg, embed), answer_format, retries, temperature,
            max_tokens,
        )  # fmt: skip

    return solve


def _protocol(protocol: str, allowed: tuple[str, ...]) -> None:
    one_of("protocol", protocol, allowed)


@solver
def voting(
    protocol: str = "simple",
    agents: int = 3,
    max_turns: int = 5,
    vote_turn: int = 3,
    memory_window: int | str | None = 2,
    personas: str = "expert",
    style: str = "simple",
    extraction: str = "marked",
    cot: bool = True,
    points: int = 10,
    allow_fewer: bool = False,
    max_ranks: int = 5,
    simple_parse: str = "first_number",
    vote_retries: int = 10,
    no_decision: str = "first_agent",
    dedupe: bool = False,
    embedder: str = "hashing",
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """Agents discuss in a fixed order, then vote after turn `vote_turn`; a tie adds a turn.

    Args:
        protocol: simple, ranked (Borda), cumulative, approval, or counting (no ballots: the
            answer most agents hold).
        agents: number of agents (model role `agent_i`, falling back to `agent`, then the main model).
        max_turns: turns before the debate stops without a decision.
        vote_turn: the first vote follows this turn.
        memory_window: earlier turns an agent sees besides the current one; `full` for all.
        personas: expert (made per sample by the agents' model) or none.
        style: simple, critical or reasoning (messages share reasoning only).
        extraction: marked (read the ANSWER line, extraction call only if it is missing) or call
            (the paper's extraction call for every message and candidate).
        cot: end every discussion prompt with "Let's think step by step."
        points: cumulative voting budget.
        allow_fewer: cumulative ballots may give fewer than `points` (the paper's text variant).
        max_ranks: ranked ballots rank at most this many solutions.
        simple_parse: first_number, or all_digits (MALLM: every digit of the reply joined).
        vote_retries: re-prompts for an invalid ballot before it is dropped.
        no_decision: first_agent (the paper's fallback) or none (no answer: scored incorrect).
        dedupe: merge identical candidates before the vote.
        embedder: embeddings for the answer-diversity figure: hashing, sentence-transformers[/model].
        answer_format: auto, choice, yesno, number or text.
        retries: follow-ups for a reply without a readable answer (messages, extraction, personas).
        temperature: sampling temperature of every call (provider default if unset).
        max_tokens: reply length limit per call.
    """
    _protocol(protocol, VOTING_PROTOCOLS)
    return _debate_solver(
        dict(
            protocol=protocol, agents=agents, max_turns=max_turns, vote_turn=vote_turn,
            memory_window=_window(memory_window), personas=personas, style=style,
            extraction=extraction, cot=cot, points=points, allow_fewer=allow_fewer,
            max_ranks=max_ranks, simple_parse=simple_parse, vote_retries=vote_retries,
            no_decision=no_decision, dedupe=dedupe,
        ),
        embedder, answer_format, retries, temperature, max_tokens,
    )  # fmt: skip


@solver
def consensus(
    protocol: str = "majority",
    agents: int = 3,
    max_turns: int = 5,
    memory_window: int | str | None = 2,
    personas: str = "expert",
    style: str = "simple",
    extraction: str = "marked",
    cot: bool = True,
    strict: bool = False,
    embedder: str = "hashing",
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """Agents discuss in a fixed order until enough of them agree in a row, checked after every message.

    Args:
        protocol: majority (0.5), supermajority (0.66) or unanimity (1.0) of the agents.
        agents: number of agents.
        max_turns: turns before the debate stops; the latest proposal is then the answer.
        memory_window: earlier turns an agent sees besides the current one; `full` for all.
        personas: expert or none.
        style: simple, critical or reasoning.
        extraction: marked or call (see `voting`).
        cot: end every discussion prompt with "Let's think step by step."
        strict: require more than the threshold (the paper's "more than 50% / 66%").
        embedder: embeddings for the answer-diversity figure.
        answer_format: auto, choice, yesno, number or text.
        retries: follow-ups for a reply without a readable answer.
        temperature: sampling temperature of every call.
        max_tokens: reply length limit per call.
    """
    _protocol(protocol, CONSENSUS_PROTOCOLS)
    return _debate_solver(
        dict(
            protocol=protocol, agents=agents, max_turns=max_turns,
            memory_window=_window(memory_window), personas=personas, style=style,
            extraction=extraction, cot=cot, strict=strict,
        ),
        embedder, answer_format, retries, temperature, max_tokens,
    )  # fmt: skip


@solver
def aad(
    protocol: str = "simple",
    agents: int = 3,
    max_turns: int = 5,
    vote_turn: int = 3,
    memory_window: int | str | None = 2,
    personas: str = "expert",
    style: str = "simple",
    extraction: str = "marked",
    cot: bool = True,
    strict: bool = False,
    points: int = 10,
    allow_fewer: bool = False,
    max_ranks: int = 5,
    simple_parse: str = "first_number",
    vote_retries: int = 10,
    no_decision: str = "first_agent",
    dedupe: bool = False,
    embedder: str = "hashing",
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """All-Agents Drafting: every agent drafts independently in turn 1, then the memory paradigm.

    Args:
        protocol: any voting protocol (simple, ranked, cumulative, approval, counting) or consensus
            protocol (majority, supermajority, unanimity).
        agents: number of agents.
        max_turns: turns before the debate stops without a decision.
        vote_turn: voting protocols: the first vote follows this turn.
        memory_window: earlier turns an agent sees besides the current one; `full` for all.
        personas: expert or none.
        style: simple, critical or reasoning.
        extraction: marked or call (see `voting`).
        cot: end every discussion prompt with "Let's think step by step."
        strict: consensus protocols: require more than the threshold.
        points: cumulative voting budget.
        allow_fewer: cumulative ballots may give fewer than `points`.
        max_ranks: ranked ballots rank at most this many solutions.
        simple_parse: first_number or all_digits.
        vote_retries: re-prompts for an invalid ballot before it is dropped.
        no_decision: voting protocols: first_agent or none.
        dedupe: merge identical candidates before the vote.
        embedder: embeddings for the answer-diversity figure.
        answer_format: auto, choice, yesno, number or text.
        retries: follow-ups for a reply without a readable answer.
        temperature: sampling temperature of every call.
        max_tokens: reply length limit per call.
    """
    _protocol(protocol, VOTING_PROTOCOLS + CONSENSUS_PROTOCOLS)
    return _debate_solver(
        dict(
            protocol=protocol, agents=agents, max_turns=max_turns, vote_turn=vote_turn,
            all_agents_draft=True, memory_window=_window(memory_window), personas=personas,
            style=style, extraction=extraction, cot=cot, strict=strict, points=points,
            allow_fewer=allow_fewer, max_ranks=max_ranks, simple_parse=simple_parse,
            vote_retries=vote_retries, no_decision=no_decision, dedupe=dedupe,
        ),
        embedder, answer_format, retries, temperature, max_tokens,
    )  # fmt: skip


@solver
def collective_improvement(
    protocol: str = "simple",
    agents: int = 3,
    max_turns: int = 5,
    vote_turn: int = 3,
    personas: str = "expert",
    extraction: str = "marked",
    cot: bool = True,
    ci_context: str = "solutions",
    points: int = 10,
    allow_fewer: bool = False,
    max_ranks: int = 5,
    simple_parse: str = "first_number",
    vote_retries: int = 10,
    no_decision: str = "first_agent",
    dedupe: bool = False,
    embedder: str = "hashing",
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """Collective Improvement: each turn every agent, at once, improves its previous answer given only
    the others' previous answers; votes from turn `vote_turn` on.

    Args:
        protocol: a voting protocol: simple, ranked, cumulative, approval or counting. Consensus
            protocols are refused: without a turn order nobody agrees "in order".
        agents: number of agents.
        max_turns: turns before the debate stops without a decision.
        vote_turn: the first vote follows this turn.
        personas: expert or none.
        extraction: marked or call (see `voting`).
        cot: end every prompt with "Let's think step by step."
        ci_context: what an agent sees of the previous turn: solutions (the paper) or messages
            (MALLM's code: the full messages).
        points: cumulative voting budget.
        allow_fewer: cumulative ballots may give fewer than `points`.
        max_ranks: ranked ballots rank at most this many solutions.
        simple_parse: first_number or all_digits.
        vote_retries: re-prompts for an invalid ballot before it is dropped.
        no_decision: first_agent or none.
        dedupe: merge identical candidates before the vote.
        embedder: embeddings for the answer-diversity figure.
        answer_format: auto, choice, yesno, number or text.
        retries: follow-ups for a reply without a readable answer.
        temperature: sampling temperature of every call.
        max_tokens: reply length limit per call.
    """
    # a consensus protocol is refused by DecisionConfig, with the reason
    return _debate_solver(
        dict(
            protocol=protocol, agents=agents, max_turns=max_turns, vote_turn=vote_turn,
            paradigm="ci", personas=personas, extraction=extraction, cot=cot,
            ci_context=ci_context, points=points, allow_fewer=allow_fewer, max_ranks=max_ranks,
            simple_parse=simple_parse, vote_retries=vote_retries, no_decision=no_decision,
            dedupe=dedupe,
        ),
        embedder, answer_format, retries, temperature, max_tokens,
    )  # fmt: skip

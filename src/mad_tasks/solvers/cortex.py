"""`cortex`: CortexDebate, a sparse debate pruned by McKinsey trust (Sun et al., 2025)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..engine.embeddings import make_embedder
from ..engine.methods import cortex as method
from ..engine.methods.du_debate import agent_names
from ..engine.options import (
    MAX_AGENTS,
    MAX_ROUNDS,
    OptionError,
    boolean,
    embedder_spec,
    integer,
    number,
    one_of,
)
from ..engine.protocols.cortex import PARTICIPATION, TIE_BREAKS
from ..inspect_runtime import resolve_model
from ._shell import check_common, run_method


@solver
def cortex(
    agents: int = 5,
    max_rounds: int = 5,
    topology: str = "mdm",
    embedder: str = "hashing",
    credibility: dict[str, Any] | None = None,
    s_mode: str = "smoothed",
    s_smoothing: float = 1.0,
    participation: str = "in",
    recalibration: Sequence[float] | str = (0.8, 0.6, 0.3),
    show_confidence: bool = False,
    include_self: bool = False,
    check_round0: bool = False,
    tie_break: str = "lowest_agent_index",
    freeform_vote: str = "exact",
    embed_text: str = "no_confidence",
    answer_format: str = "auto",
    retries: int = 2,
    temperature: float | None = None,
    max_tokens: int | None = None,
) -> Solver:
    """CortexDebate: each round every agent reads only the agents it trusts most.

    Args:
        agents: number of agents, each on model role `agent_i` (falling back to `agent`, then the
            main model), so every agent can be a different model.
        max_rounds: debate rounds D after the initial answers (paper: 5); 0 = majority voting only.
        topology: mdm (per-tail mean pruning of the trust weights) or full (every agent reads
            every other: the fully connected ablation and cost baseline).
        embedder: similarity for the intimacy term: hashing (offline), openai[/<model>] (the
            paper: openai/text-embedding-3-large) or sentence-transformers[/<model>].
        credibility: model sizes for the credibility term, keyed by agent role or model name:
            {key: [parameters, pre-training tokens]}. Without an entry for every agent all agents
            get the same credibility, which the pruning rule cancels.
        s_mode: smoothed (S + s_smoothing, since the printed S is 0 in round 1) or literal
            (x/0 = infinity: round 1 becomes a full mesh).
        s_smoothing: the constant added to S in smoothed mode (> 0).
        participation: in (P counts the agents an agent read) or out (the agents that read it).
        recalibration: the confidence bands [high, mid, low] of Eq. 2, or "none".
        show_confidence: neighbours also read each other's confidence line.
        include_self: an agent also reads its own previous output (ablation; the paper: no).
        check_round0: stop before the first debate round when the initial answers agree.
        tie_break: lowest_agent_index or none (a tie for first gives no answer).
        freeform_vote: exact (the paper) or medoid (free-text answers: the one most similar to
            the others).
        embed_text: no_confidence (answer and explanation) or raw (the whole reply).
        answer_format: auto, choice, yesno, number or text.
        retries: follow-ups for a reply with no parseable answer before it counts as an abstention.
        temperature: sampling temperature for agents (provider default if unset).
        max_tokens: reply length limit per call.
    """
    check_common(answer_format, retries, temperature, max_tokens)
    bands = _recalibration(recalibration)
    sizes = _sizes(credibility)
    integer("agents", agents, 2, MAX_AGENTS)
    integer("max_rounds", max_rounds, 0, MAX_ROUNDS)
    one_of("topology", topology, method.TOPOLOGIES)
    one_of("s_mode", s_mode, method.S_MODES)
    number("s_smoothing", s_smoothing, 0, above=True)
    one_of("participation", participation, PARTICIPATION)
    for flag, value in (
        ("show_confidence", show_confidence),
        ("include_self", include_self),
        ("check_round0", check_round0),
    ):
        boolean(flag, value)
    one_of("tie_break", tie_break, TIE_BREAKS)
    one_of("freeform_vote", freeform_vote, method.FREEFORM_VOTES)
    one_of("embed_text", embed_text, method.EMBED_TEXTS)
    embedder_spec("embedder", embedder)
    try:
        similarity = make_embedder(embedder)
    except ImportError as e:
        raise OptionError("embedder", embedder, f"an embedder installed here ({e})") from e

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        names = agent_names(agents)
        models = tuple(str(resolve_model(name)) for name in names)
        opts = method.CortexOptions(
            agents=agents,
            max_rounds=max_rounds,
            topology=topology,
            s_mode=s_mode,
            s_smoothing=s_smoothing,
            participation=participation,
            recalibration=bands,
            show_confidence=show_confidence,
            include_self=include_self,
            check_round0=check_round0,
            tie_break=tie_break,
            freeform_vote=freeform_vote,
            embed_text=embed_text,
            sizes=_sizes_by_agent(sizes, names, models),
            models=models,
        )
        return await run_method(
            state, lambda s: method.cortex(s, opts, similarity), answer_format, retries,
            temperature, max_tokens,
        )  # fmt: skip

    return solve


def _recalibration(value: Any) -> tuple[float, float, float] | None:
    """[high, mid, low] with 1 >= high >= mid >= low >= 0, or "none" (no recalibration).

    Numbers may come as text: `-S recalibration=0.8,0.6,0.3` arrives as three strings."""
    if isinstance(value, str) and value.lower() == "none":
        return None
    bands = _numbers(value, 3)
    if bands is not None and 1 >= bands[0] >= bands[1] >= bands[2] >= 0:
        return bands[0], bands[1], bands[2]
    raise OptionError(
        "recalibration", value, "[high, mid, low] with 1 >= high >= mid >= low >= 0, or none"
    )


def _numbers(value: Any, n: int) -> list[float] | None:
    """A list of n finite numbers (or numeric strings, as YAML reads `7.6e9`), else None."""
    if not isinstance(value, (list, tuple)) or len(value) != n:
        return None
    numbers = []
    for v in value:
        if isinstance(v, bool) or not isinstance(v, (int, float, str)) or len(str(v)) > 40:
            return None
        try:
            numbers.append(float(v))
        except ValueError:
            return None
    return numbers if all(math.isfinite(x) for x in numbers) else None


CREDIBILITY = (
    "{agent role or model name: [parameters, pre-training tokens]} with both counts positive and "
    "finite, e.g. {agent_1: [7.6e9, 1.8e13]}, or null (unset)"
)


def _sizes(credibility: Any) -> dict[str, method.ModelSize]:
    """{agent role or model name: [parameters, pre-training tokens]}, both raw counts > 0."""
    if credibility is None:
        return {}
    sizes: dict[str, method.ModelSize] = {}
    for key, value in credibility.items() if isinstance(credibility, dict) else [(None, None)]:
        counts = _numbers(value, 2)
        if not isinstance(key, str) or counts is None or min(counts) <= 0:
            raise OptionError("credibility", credibility, CREDIBILITY)
        sizes[key] = method.ModelSize(counts[0], counts[1])
    return sizes


def _sizes_by_agent(
    sizes: dict[str, method.ModelSize], names: list[str], models: tuple[str, ...]
) -> tuple[method.ModelSize | None, ...]:
    """Each agent's size, by its role first, then by its model's name."""
    known = set(names) | set(models)
    unused = [key for key in sizes if key not in known]
    if unused:
        raise OptionError(
            "credibility",
            unused,
            "keys naming an agent role or model of this run: "
            + ", ".join(f"{n}={m}" for n, m in zip(names, models)),
        )
    return tuple(sizes.get(name) or sizes.get(model) for name, model in zip(names, models))

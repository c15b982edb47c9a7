"""CortexDebate (Sun et al., 2025), "Debating Sparsely and Equally for Multi-Agent Debate".

Phase 1 (the paper's round 0): every agent answers alone, with an explanation and a confidence that
is recalibrated (Eq. 2). Then, for debate rounds d = 1..D:
  1. weigh every edge i→j with the McKinsey trust formula W = C_i·R_i·I_ij / S_i, where R is the
     running mean of i's confidences, I is one minus the running mean of the similarity of i's and
     j's outputs, and S shrinks as i takes part in the debate (protocols.cortex);
  2. each tail j keeps the heads whose weight is at least the mean of its incoming weights;
  3. every agent answers again from a fresh prompt holding only the question and its kept heads'
     round d-1 outputs: no own answer, no history;
  4. stop as soon as all agents give the same answer.
The final answer is the plurality of the last round; all-distinct answers give none (no fallback).
A limit of the run (or `-S budget`) that stops a round drops it, its graph too, and the last
complete round's plurality decides; with `look_ahead` a round that would pass a limit, estimated
from the rounds before it, is not started (engine/limits.py).
`topology="full"` keeps every edge: the fully connected ablation and the cost baseline. Every call
also records what its prompt would have cost with every other agent as a neighbour.

Every model call presents the question with all of its parts, first in its prompt (the text every
call of a sample shares, for providers' prompt caches). By design, one kind of call does not:
  - the embedder's (similarity of outputs, the free-text medoid): it compares agents' replies.

Rounds in the record (calls, answers, turns, graphs, spans) count as in every other method: the
initial answers are round 1, so the paper's debate round d is round d + 1; the viewer's text names
the paper's round beside it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, ClassVar

from ..answers import AnswerFormat, FreeText
from ..checks import OptionError, boolean, integer, number, one_of
from ..confidence import parse_confidence, without_confidence
from ..content import Content, Msg, Question, compose
from ..embeddings import pair_scorer_spec
from ..limits import LimitReached, looked_ahead, next_round_fits, stop_at
from ..options import MAX_AGENTS, MAX_ROUNDS, Answering, Check, embedder_option, option
from ..protocols import cortex as rules
from ..records import AgentAnswer, DebateResult
from ..requests import AnswerRequest, ConfidenceRequest
from ..runtime import Runtime
from ..session import Problem, Session
from ..spec import FirstVote, MethodSpec, Run, Setup, agent_roles
from .cortex_records import (
    MISSING_CONFIDENCE,
    CallContext,
    CortexRecord,
    Credibility,
    GraphRecord,
    ModelSize,
    Turn,
    Vote,
    context_of,
)
from .cortex_similarity import (
    SIMILARITIES,
    embedded_similarities,
    prompted_similarities,
    scored_similarities,
)
from .cortex_viewer import answers_markdown, graph_markdown, vote_markdown
from .turns import agent_names

if TYPE_CHECKING:
    from ..embeddings import Embedder, PairScorer

TOPOLOGIES = ("mdm", "full")
MAX_PEER_RATINGS = (
    2000  # trust peer's rating calls per sample (the paper's 5 agents, 5 rounds: 100)
)
MAX_SIMILARITY_RATINGS = 1000  # similarity prompted: calls per sample (5 agents, 5 rounds: 50)
S_MODES = ("smoothed", "literal")
EMBED_TEXTS = ("no_confidence", "raw")
FREEFORM_VOTES = ("exact", "medoid")

NEIGHBOUR_HEADING = "--- peer ---"
OWN_HEADING = "--- yours ---"

# -- what the agents read and write -----------------------------------------------------------------


def _reply_format(fmt: AnswerFormat) -> str:
    return (
        'Explain your reasoning step by step on lines after "EXPLANATION:". Before the final '
        'answer line, add a line of the form "CONFIDENCE: c", where c, between 0 and 1, is the '
        f"probability that you are right. {fmt.instruction()}"
    )


def initial_prompt(question: Question, fmt: AnswerFormat) -> Content:
    """Phase 1: answer alone, with an explanation and a confidence."""
    return compose(question, f"\n\nAnswer the question on your own. {_reply_format(fmt)}")


def regeneration_prompt(
    question: Question,
    fmt: AnswerFormat,
    neighbours: Sequence[str],
    own: str | None = None,
    scrutiny: bool = False,
) -> Content:
    """Eq. 13: the question and the kept heads' previous outputs, anonymous, used "as additional
    information"; no own answer unless the include_self ablation passes it, and no ask to check
    the others' reasoning unless `scrutiny` (ours, not the paper's). The question comes first, as
    in the initial prompt, so every call of a sample opens with the same text (a provider's
    prompt cache serves it)."""
    blocks = ([f"{OWN_HEADING}\n{own.strip()}"] if own is not None else []) + [
        f"{NEIGHBOUR_HEADING}\n{text.strip()}" for text in neighbours
    ]
    mine = "your own previous answer (marked yours) and " if own is not None else ""
    return compose(
        question,
        f"\n\nHere are {mine}answers that other agents gave to this question:\n\n"
        + "\n\n".join(blocks)
        + "\n\nUse them as additional information"
        + (": check their reasoning rather than trusting it, then" if scrutiny else ", then")
        + f" answer the question yourself. {_reply_format(fmt)}",
    )


# -- options and records ------------------------------------------------------------------------------


def _recalibration(name: str, value: Any) -> tuple[float, float, float] | None:
    """[high, mid, low] with 1 >= high >= mid >= low >= 0, or "none" (no recalibration).

    Numbers may come as text: `-S recalibration=0.8,0.6,0.3` arrives as three strings."""
    if value is None or (isinstance(value, str) and value.lower() == "none"):
        return None
    bands = _numbers(value, 3)
    if bands is not None and 1 >= bands[0] >= bands[1] >= bands[2] >= 0:
        return bands[0], bands[1], bands[2]
    raise OptionError(name, value, RECALIBRATION)


RECALIBRATION = "[high, mid, low] with 1 >= high >= mid >= low >= 0, or none (or null)"


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


def _credibility_option(name: str, value: Any) -> dict[str, ModelSize] | None:
    """{agent role or model name: [parameters, pre-training tokens]}, both raw counts > 0."""
    if value is None:
        return None
    sizes: dict[str, ModelSize] = {}
    for key, size in value.items() if isinstance(value, dict) else [(None, None)]:
        counts = [size.params, size.tokens] if isinstance(size, ModelSize) else _numbers(size, 2)
        if not isinstance(key, str) or counts is None or min(counts) <= 0:
            raise OptionError(name, value, CREDIBILITY)
        sizes[key] = ModelSize(counts[0], counts[1])
    return sizes


def _choice(allowed: Sequence[str]) -> Check:
    return lambda name, v: one_of(name, v, allowed)


@dataclass(frozen=True)
class CortexOptions(Answering):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("reminder",)
    agents: int = option(
        5,
        "number of agents, each on model role `agent_i` (falling back to `agent`, then the main "
        "model), so every agent can be a different model.",
        lambda name, v: integer(name, v, 2, MAX_AGENTS),
    )
    max_rounds: int = option(
        5,
        "debate rounds D after the initial answers (paper: 5); 0 = majority voting only.",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )
    topology: str = option(
        "mdm",
        "mdm (per-tail mean pruning of the trust weights) or full (every agent reads every "
        "other: the fully connected ablation and cost baseline).",
        _choice(TOPOLOGIES),
    )
    pruning: str = option(
        "mean",
        "which heads a tail keeps (topology mdm): mean (Eq. 11, at or above the row's mean), "
        "Table 9's median, top3 (the three heaviest) or bottom3 (all but the three lightest), or "
        "global (App. E: at or above the whole graph's mean).",
        _choice(rules.PRUNINGS),
    )
    trust: str = option(
        "full",
        "the edge weight: full (Eq. 9, C·R·I/S), individual (C·R only: Table 2's MDM without "
        "its intimacy and self-orientation terms), self (the head's own latest confidence: "
        "Table 2's self-evaluation) or peer (the mean rating the other agents give its latest "
        "answer, n(n-1) more calls a round: Table 2's peer evaluation); self and peer with "
        "pruning global.",
        _choice(rules.TRUSTS),
    )
    similarity: str = option(
        "embedding",
        "how alike two outputs are for the intimacy term: embedding (the embedder's cosine, the "
        "paper), cross_encoder (Table 10's DeTS: the cross_encoder's score of each pair) or "
        "prompted (Table 10's R1-P: a model on role `similarity` rates each pair from 0 to 1, "
        "agents x (agents - 1) / 2 more calls a round).",
        _choice(SIMILARITIES),
    )
    cross_encoder: str = option(
        "hashing",
        "the pair scorer of similarity cross_encoder: hashing (offline) or cross-encoder/<model> "
        "(the paper's DeTS: cross-encoder/abbasgolestani/ag-nli-DeTS-sentence-similarity-v4).",
        pair_scorer_spec,
    )
    embedder: str = embedder_option(
        "similarity for the intimacy term (and the free-text medoid): hashing (offline), "
        "openai[/<model>] (the paper: openai/text-embedding-3-large) or "
        "sentence-transformers[/<model>]."
    )
    credibility: Mapping[str, ModelSize] | None = option(
        None,
        "model sizes for the credibility term, keyed by agent role or model name: {key: "
        "[parameters, pre-training tokens]}. Without an entry for every agent all agents get "
        "the same credibility, which the pruning rule cancels.",
        _credibility_option,
    )
    s_mode: str = option(
        "smoothed",  # A1: S + s_smoothing; "literal": x/0 = +inf (round 1: full mesh)
        "smoothed (S + s_smoothing, since the printed S is 0 in round 1) or literal (x/0 = "
        "infinity: round 1 becomes a full mesh).",
        _choice(S_MODES),
    )
    s_smoothing: float = option(
        1.0,
        "the constant added to S in smoothed mode (> 0).",
        lambda name, v: number(name, v, 0, above=True),
    )
    participation: str = option(
        "in",  # A2
        "in (P counts the agents an agent read) or out (the agents that read it).",
        _choice(rules.PARTICIPATION),
    )
    recalibration: tuple[float, float, float] | None = option(
        rules.RECALIBRATION, 'the confidence bands [high, mid, low] of Eq. 2, or "none".',
        _recalibration,
    )  # fmt: skip
    show_confidence: bool = option(
        False, "neighbours also read each other's confidence line (A7).", boolean
    )
    include_self: bool = option(
        False, "an agent also reads its own previous output (ablation A8; the paper: no).", boolean
    )
    scrutiny: bool = option(
        False,
        "ask each agent to check the others' reasoning rather than trust it (ours; the paper "
        "offers their answers as additional information only).",
        boolean,
    )
    check_round0: bool = option(
        False, "stop before the first debate round when the initial answers agree (A9).", boolean
    )
    tie_break: str = option(
        "lowest_agent_index",  # A12
        "lowest_agent_index or none (a tie for first gives no answer).",
        _choice(rules.TIE_BREAKS),
    )
    freeform_vote: str = option(
        "exact",  # A11
        "exact (the paper) or medoid (free-text answers: the one most similar to the others).",
        _choice(FREEFORM_VOTES),
    )
    embed_text: str = option(
        "no_confidence",  # A5
        "no_confidence (answer and explanation) or raw (the whole reply).",
        _choice(EMBED_TEXTS),
    )
    # per agent, set by the solver for each sample from the model roles: any unknown size ->
    # equal credibility (A14); the models for the record
    sizes: tuple[ModelSize | None, ...] = option((), "model sizes per agent.", group="internal")
    models: tuple[str, ...] = option((), "model per agent.", group="internal")

    def validate(self) -> None:
        super().validate()
        if self.similarity != "cross_encoder" and self.cross_encoder != "hashing":  # unused
            raise OptionError("cross_encoder", self.cross_encoder, "set only with similarity "
                              "cross_encoder")  # fmt: skip
        rated = self.agents * (self.agents - 1) // 2 * self.max_rounds
        if self.similarity == "prompted" and rated > MAX_SIMILARITY_RATINGS:
            raise OptionError(
                "similarity",
                self.similarity,
                f"embedding with {self.agents} agents and {self.max_rounds} rounds: prompted "
                f"rates agents x (agents - 1) / 2 x max_rounds = {rated} pairs, at most "
                f"{MAX_SIMILARITY_RATINGS}",
            )
        ratings = self.agents * (self.agents - 1) * self.max_rounds
        if self.trust == "peer" and ratings > MAX_PEER_RATINGS:
            raise OptionError(
                "trust",
                self.trust,
                f"full, individual or self with {self.agents} agents and {self.max_rounds} "
                f"rounds: peer rates agents x (agents - 1) x max_rounds = {ratings} answers, "
                f"at most {MAX_PEER_RATINGS}",
            )

    def record(self) -> dict[str, Any]:
        d = super().record()
        # recorded in the CortexRecord (credibility, models)
        del d["sizes"], d["models"], d["credibility"]
        return {**d, "recalibration": list(self.recalibration) if self.recalibration else None}

    def for_models(self, models: Sequence[str]) -> CortexOptions:
        """These options for agents on `models`, each agent's size found by its role first, then
        by its model's name; a credibility key that names neither is refused."""
        names = agent_names(self.agents)
        sizes = self.credibility or {}
        unused = [key for key in sizes if key not in set(names) | set(models)]
        if unused:
            raise OptionError(
                "credibility",
                unused,
                "keys naming an agent role or model of this run: "
                + ", ".join(f"{n}={m}" for n, m in zip(names, models)),
            )
        found = tuple(sizes.get(name) or sizes.get(model) for name, model in zip(names, models))
        return replace(self, sizes=found, models=tuple(models))


@dataclass(frozen=True)
class Graph:
    """One round's debate graph and every term behind it (agents in order)."""

    round: int
    R: list[float]
    I: list[list[float]]
    S: list[float]
    W: list[list[float]]  # W[head][tail]; NaN on the diagonal
    tail_means: list[float]
    keep: list[list[bool]]  # keep[head][tail]
    participation_in: list[int]  # P after this round
    participation_out: list[int]
    peer_scores: list[float | None] | None = None  # trust peer: the mean rating received

    def to_record(self, names: Sequence[str]) -> GraphRecord:
        n = len(names)
        return GraphRecord(
            round=self.round,
            R=self.R,
            I=self.I,
            S=self.S,
            W=[[_json_number(w) for w in row] for row in self.W],
            tail_means=[_json_number(m) for m in self.tail_means],
            keep=[[int(k) for k in row] for row in self.keep],
            edges=[[i, j] for i in range(n) for j in range(n) if self.keep[i][j]],
            heads={names[j]: [names[i] for i in rules.heads(self.keep, j)] for j in range(n)},
            participation_in=self.participation_in,
            participation_out=self.participation_out,
            peer_scores=self.peer_scores,
        )


def _json_number(x: float) -> float | str | None:
    """JSON has no NaN or infinity: the diagonal becomes null, a literal-S weight "inf"."""
    if math.isnan(x):
        return None
    return "inf" if math.isinf(x) else x


@dataclass(frozen=True)
class PromptSize:
    """An agent's prompt in one round, and the same prompt had it read every other agent, in text
    characters: both carry the same non-text parts, which have no character count."""

    chars: int  # the text of every message of the call, as sent (system, earlier turns, prompt)
    full_mesh_chars: int
    neighbours: int


def prompt_chars(session: Session, prompt: Content) -> int:
    """The text characters of the call that sends `prompt`, framed as the session frames it."""
    return sum(len(m.text) for m in session.framed([Msg("user", prompt)]))


def call_contexts(
    session: Session, round_: int, sizes: dict[str, PromptSize], initial_chars: int | None = None
) -> list[CallContext]:
    """The calls of round `round_` with their full-mesh counterfactual (spec §7.4.2).

    The text pruning left out is priced in the provider's tokens, at what a character of text cost
    the agent's own first call of the round; a retry repeats the prompt, so it carries the same
    extra text. A call whose reply reported no usage has no figure. The price of a character:
    - a text-only question: the call's tokens over its text characters;
    - a question with non-text parts (`initial_chars` given: the initial prompt's text
      characters): the tokens the call took beyond the agent's initial call, over the text
      characters beyond it. Both calls carry the same non-text parts and earlier turns, so the
      parts' tokens, which no character count sees, cancel instead of raising the price of text.
      Without a usable difference (no usage of the initial call, no more tokens), the average.
    """
    calls = sorted(
        (
            (c, c.input_tokens)
            for c in session.calls
            if c.round == round_ and c.agent in sizes and c.input_tokens is not None
        ),
        key=lambda priced: (priced[0].agent, priced[0].attempt),
    )
    first = {c.agent: tokens for c, tokens in calls if c.attempt == 0}
    initial = {
        c.agent: (c.input_tokens, initial_chars)
        for c in session.calls
        if initial_chars is not None
        and (c.round, c.attempt) == (1, 0)
        and c.input_tokens is not None
    }
    out = []
    for c, tokens in calls:
        size = sizes[c.agent]
        price = _text_price(first.get(c.agent, tokens), size.chars, initial.get(c.agent))
        left_out = (size.full_mesh_chars - size.chars) * price
        out.append(
            CallContext(
                agent=c.agent,
                round=round_,
                attempt=c.attempt,
                neighbours=size.neighbours,
                input_tokens=tokens,
                full_mesh_input_tokens=tokens + round(left_out),
            )
        )
    return out


def _text_price(tokens: int, chars: int, beyond: tuple[int, int] | None) -> float:
    """Tokens per text character: beyond another call's (tokens, chars) when the difference is
    usable, else on average."""
    if beyond is not None and tokens > beyond[0] and chars > beyond[1]:
        return (tokens - beyond[0]) / (chars - beyond[1])
    return tokens / chars


# -- the method ----------------------------------------------------------------------------------


async def cortex(
    session: Session, opts: CortexOptions, embedder: Embedder, scorer: PairScorer | None = None
) -> DebateResult:
    p, rt = session.problem, session.runtime
    n = opts.agents
    names = agent_names(n)
    credibility = _credibility(opts, names)
    C = credibility.C
    warnings: list[str] = []
    contexts: list[CallContext] = []
    turns: list[list[Turn]] = []
    graphs: list[Graph] = []

    def turn(reply: AgentAnswer, read: list[int]) -> Turn:
        stated = parse_confidence(reply.text)
        h = MISSING_CONFIDENCE if stated is None else stated
        return Turn(
            agent=reply.agent,
            round=reply.round,
            answer=reply.answer,
            stated_confidence=stated,
            confidence=rules.recalibrate(h, opts.recalibration) if opts.recalibration else h,
            read=[names[i] for i in read],
        )

    def agreed(replies: Sequence[AgentAnswer]) -> bool:
        return rules.unanimous([r.answer for r in replies], p.fmt.key)

    # Phase 1: independent initial answers, round 1 (the paper's round 0)
    async with rt.span("round 1"):
        first = initial_prompt(p.question, p.fmt)
        asks = AnswerRequest(p.fmt, confidence=True)
        outputs = await rt.gather(
            *(
                session.answer(name, name, [Msg("user", first)], "initial", 1, asks=asks)
                for name in names
            )
        )
        initial_chars = prompt_chars(session, first)
        size = PromptSize(initial_chars, initial_chars, 0)
        contexts += call_contexts(session, 1, dict.fromkeys(names, size))
        turns.append([turn(o, []) for o in outputs])
        rt.info("round 1", answers_markdown(1, turns[-1], p.fmt, opts))
    replies_by_round = [outputs]

    stop = "consensus_round0" if opts.check_round0 and agreed(outputs) else None
    R = [0.0] * n
    sim = [[0.0] * n for _ in range(n)]
    P = {mode: [0] * n for mode in rules.PARTICIPATION}

    # Phase 2: sparse debate rounds; d counts them as the paper does, `now` is the record's round
    d = 0
    limit: LimitReached | None = None
    where = ""
    while stop is None and d < opts.max_rounds:
        # the record's rounds d and d + 1 are the last done
        done = [[c for c in session.calls if c.round == r] for r in range(max(1, d), d + 2)]
        limit = next_round_fits(session, done)
        if limit is not None:  # the next round would not fit: it is not started
            stop, where = "limit", looked_ahead(limit, d + 2)
            break
        d += 1
        now = d + 1
        try:
            async with rt.span(f"round {now}"):
                # Step 1: edge weights from running means over rounds 0..d-1
                R = [rules.running_mean(r, t.confidence, d) for r, t in zip(R, turns[-1])]
                texts = [_embedded(o.text, opts) for o in outputs]
                if opts.similarity == "prompted":
                    cos = await prompted_similarities(
                        session, p.question, outputs, texts, now, warnings, rt
                    )
                elif scorer is not None:  # similarity cross_encoder
                    cos = await scored_similarities(scorer, texts, warnings, rt)
                else:
                    cos = await embedded_similarities(embedder, texts, warnings, rt)
                sim = [
                    [rules.running_mean(sim[i][j], cos[i][j], d) for j in range(n)]
                    for i in range(n)
                ]
                I = [[1.0 - s for s in row] for row in sim]
                smoothing = opts.s_smoothing if opts.s_mode == "smoothed" else 0.0
                S = rules.self_orientation(d, n, P[opts.participation], smoothing)
                peer = None
                if opts.trust == "peer":  # Table 2's peer evaluation: every agent rates the others
                    peer = await _peer_scores(session, p, names, outputs, now, opts)
                latest = [t.confidence for t in turns[-1]] if peer is None else [
                    MISSING_CONFIDENCE if x is None else x for x in peer
                ]  # fmt: skip
                W = _weights(opts.trust, C, R, I, S, latest)
                # Step 2: the sparse graph, rebuilt every round; P counts this round's debates
                keep = (
                    rules.prune(W, opts.pruning) if opts.topology == "mdm" else rules.full_mesh(n)
                )
                P = {m: [a + b for a, b in zip(P[m], rules.participation(keep, m))] for m in P}
                graph = Graph(now, R, I, S, W, rules.tail_means(W), keep, P["in"], P["out"], peer)
                graphs.append(graph)
                rt.info(f"graph {now}", graph_markdown(graph, names, credibility, opts))

                # Step 3: every agent answers again from its kept heads' outputs only
                shown = [_shown(o.text, opts) for o in outputs]
                read = [rules.heads(keep, j) for j in range(n)]
                prompts = [_prompt_for(p, shown, j, read[j], opts) for j in range(n)]
                outputs = await rt.gather(
                    *(
                        session.answer(
                            names[j],
                            names[j],
                            [Msg("user", prompts[j])],
                            "regenerate",
                            now,
                            asks=AnswerRequest(
                                p.fmt, _answers_read(outputs, j, read[j], opts), confidence=True
                            ),
                        )
                        for j in range(n)
                    )
                )
                everyone = rules.full_mesh(n)
                prompt_sizes = {
                    names[j]: PromptSize(
                        prompt_chars(session, prompts[j]),
                        prompt_chars(
                            session, _prompt_for(p, shown, j, rules.heads(everyone, j), opts)
                        ),
                        len(read[j]),
                    )
                    for j in range(n)
                }
                beyond = initial_chars if p.question.media else None  # see call_contexts
                contexts += call_contexts(session, now, prompt_sizes, beyond)
                turns.append([turn(o, read[j]) for j, o in enumerate(outputs)])
                rt.info(f"round {now}", answers_markdown(now, turns[-1], p.fmt, opts))
        except LimitReached as reached:  # the round in progress is dropped, its graph too
            limit, stop, d = reached, "limit", d - 1
            del graphs[d:]
            break
        replies_by_round.append(outputs)
        # Step 4: unanimity ends the debate
        if agreed(outputs):
            stop = "consensus"

    # Phase 3: plurality of the last round, no fallback
    last = [o.answer for o in outputs]
    tally = rules.final_vote(last, p.fmt.key, opts.tie_break)
    final, rule = tally.winner, "majority"
    if opts.freeform_vote == "medoid" and isinstance(p.fmt, FreeText) and tally.counts:
        final, rule = await _medoid(embedder, last, warnings, rt), "medoid"
    rt.info("vote", vote_markdown(tally, final, rule, p.fmt, opts))

    result = DebateResult(
        method="cortex",
        final=final,
        answers=[o for r in replies_by_round for o in r],
        calls=session.calls,
        tally=tally,
        options={**opts.record(), "embedder": embedder.name},
        record=CortexRecord(
            agents=n,
            models=dict(zip(names, opts.models)),
            credibility=credibility,
            turns=turns,
            graphs=[g.to_record(names) for g in graphs],
            rounds_executed=d,
            stop_reason=stop or "max_rounds",
            consensus=stop in ("consensus", "consensus_round0"),
            vote=Vote(rule, rules.all_distinct(tally), tally.tie),
            context=context_of(contexts, 1),
            warnings=warnings,
        ),
    )
    return stop_at(result, limit, where or f"round {d + 2}", f"the vote of round {d + 1}")


def _weights(
    trust: str,
    C: Sequence[float],
    R: Sequence[float],
    I: Sequence[Sequence[float]],
    S: Sequence[float],
    latest: Sequence[float],
) -> rules.Matrix:
    """The edge weights under `trust`: Eq. 9's C·R·I/S; Table 2's "MDM w/o I and S", C·R; or its
    self- or peer evaluation, each head's `latest` score (its own recalibrated confidence, or
    the mean rating the others gave its answer)."""
    n = len(C)
    ones, no_terms = [1.0] * n, [[1.0] * n] * n
    if trust == "individual":
        return rules.edge_weights(C, R, no_terms, ones)
    if trust in ("self", "peer"):
        return rules.edge_weights(ones, latest, no_terms, ones)
    return rules.edge_weights(C, R, I, S)


def peer_prompt(question: Question, peer: str) -> Content:
    """Table 2's peer evaluation (App. E): one agent rates another's answer."""
    return compose(
        question,
        f"\n\nAnother agent answered this question:\n\n{NEIGHBOUR_HEADING}\n{peer.strip()}\n\n"
        f"How likely is its answer to be right? Assess its reasoning briefly. {PEER_RATING}",
    )


PEER_RATING = (
    'End your reply with a line "CONFIDENCE: c", where c, between 0 and 1, is the probability '
    "that its answer is right."
)


async def _peer_scores(
    session: Session,
    p: Problem,
    names: Sequence[str],
    outputs: Sequence[AgentAnswer],
    now: int,
    opts: CortexOptions,
) -> list[float | None]:
    """Every agent rates each other agent's latest answer, all at once; an agent's score is the
    mean of the readable ratings it got (None: none was readable)."""
    n = len(names)
    pairs = [(j, i) for i in range(n) for j in range(n) if i != j]  # (rater, rated)
    asked = await session.runtime.gather(
        *(
            session.ask(
                names[j],
                names[j],
                [Msg("user", peer_prompt(p.question, _shown(outputs[i].text, opts)))],
                f"rate {names[i]}",
                now,
                parse_confidence,
                f"Your reply has no readable rating. {PEER_RATING}",
                asks=ConfidenceRequest(p.fmt, outputs[i].answer),
            )
            for j, i in pairs
        )
    )
    got: list[list[float]] = [[] for _ in range(n)]
    for (_, i), a in zip(pairs, asked):
        if a.value is not None:
            got[i].append(a.value)
    return [sum(g) / len(g) if g else None for g in got]


def _credibility(opts: CortexOptions, names: Sequence[str]) -> Credibility:
    """Eqs. 3-4 when every agent's model size is known; otherwise the same C for all (A14), which
    the per-tail mean rule cancels."""
    sizes = list(opts.sizes) or [None] * len(names)
    unknown = [name for name, s in zip(names, sizes) if s is None]
    if unknown:
        return Credibility("equal", [1.0] * len(names), unknown, [])
    known = [s for s in sizes if s is not None]
    C = [rules.credibility(s.params, s.tokens) for s in known]
    return Credibility("chinchilla", C, [], known)


def _prompt_for(
    p: Problem, shown: Sequence[str], j: int, heads: Sequence[int], opts: CortexOptions
) -> Content:
    own = shown[j] if opts.include_self else None
    return regeneration_prompt(p.question, p.fmt, [shown[i] for i in heads], own, opts.scrutiny)


def _answers_read(
    outputs: Sequence[AgentAnswer], j: int, heads: Sequence[int], opts: CortexOptions
) -> tuple[str, ...]:
    """The answers agent j's prompt shows (its own first with include_self), for `Call.asks`."""
    shown = ([j] if opts.include_self else []) + list(heads)
    return tuple(a for i in shown if (a := outputs[i].answer) is not None)


def _shown(text: str, opts: CortexOptions) -> str:
    return text if opts.show_confidence else without_confidence(text)


def _embedded(text: str, opts: CortexOptions) -> str:
    return text if opts.embed_text == "raw" else without_confidence(text)


async def _medoid(
    embedder: Embedder, answers: list[str | None], warnings: list[str], rt: Runtime
) -> str:
    given = [a for a in answers if a is not None]
    return given[rules.medoid(await embedded_similarities(embedder, given, warnings, rt))]


def prepare(o: CortexOptions, setup: Setup) -> Run:
    similarity = setup.embedder(o.embedder)
    scorer = (
        setup.pair_scorer("cross_encoder", o.cross_encoder)
        if o.similarity == "cross_encoder"
        else None
    )

    async def run(session: Session) -> DebateResult:
        # each agent sized by its role or its model's name, before any call: the models are the
        # sample's (a role may be bound to another); a key that names neither is refused
        models = [session.runtime.model_name(name) for name in agent_names(o.agents)]
        return await cortex(session, o.for_models(models), similarity, scorer)

    return run


def first_vote(result: DebateResult, first: Sequence[AgentAnswer], fmt: AnswerFormat) -> FirstVote:
    """The round-1 answers under the final vote's rule and the run's `tie_break`."""
    tie_break = str(result.options.get("tie_break", "lowest_agent_index"))
    tally = rules.final_vote([a.answer for a in first], fmt.key, tie_break)
    return FirstVote(tally.winner, tally.tie, f"cortex final_vote (tie_break={tie_break})")


SPEC = MethodSpec(
    "cortex",
    "CortexDebate: each round every agent reads only the agents it trusts most.",
    CortexOptions,
    prepare,
    first_vote=first_vote,
    roles=lambda o: (*agent_roles(o), *(("similarity",) if o.similarity == "prompted" else ())),
)

"""CortexDebate (Sun et al., 2025), "Debating Sparsely and Equally for Multi-Agent Debate".

Phase 1 (the paper's round 0): every agent answers alone, with an explanation and a confidence that
is recalibrated (Eq. 2). Then, for debate rounds d = 1..D:
  1. weigh every edge i→j with the McKinsey trust formula W = C_i·R_i·I_ij / S_i, where R is the
     running mean of i's confidences, I is one minus the running mean of the similarity of i's and
     j's outputs, and S shrinks as i takes part in the debate (protocols.cortex);
  2. each tail j keeps the heads whose weight is at least the mean of its incoming weights;
  3. every agent answers again from a fresh prompt holding only the question and its kept heads'
     round d-1 outputs: no own answer, no history;
  4. stop as soon as all agents give the same answer (with `stop=adaptive`, also once the count
     of agents giving the round's most-given answer is stable: Hu et al. 2025,
     docs/adaptive-stopping.md; `max_rounds` is then the cap).
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

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ... import viewer_text
from ...answers import AnswerFormat, FreeText
from ...confidence import parse_confidence, without_confidence
from ...content import Content, Msg, Question, compose
from ...failures import round_flips
from ...limits import LimitReached, looked_ahead, next_round_fits, stop_at
from ...peers import Peers
from ...protocols import cortex as rules
from ...records import AgentAnswer, DebateResult
from ...requests import AnswerRequest, ConfidenceRequest
from ...runtime import Runtime
from ...session import Problem, Session
from ...spec import FirstVote, MethodSpec, Run, Setup, agent_roles
from ...stability import plurality_count, record, stops_now
from ..turns import agent_names
from .options import CortexOptions
from .records import (
    MISSING_CONFIDENCE,
    CallContext,
    CortexRecord,
    Credibility,
    Graph,
    Turn,
    Vote,
    context_of,
)
from .similarity import (
    embedded_similarities,
    prompted_similarities,
    scored_similarities,
)
from .viewer import answers_markdown, graph_markdown, vote_markdown

if TYPE_CHECKING:
    from ...embeddings import Embedder, PairScorer


NEIGHBOUR_HEADING = "--- peer ---"
OWN_HEADING = "--- yours ---"
TRACKED = "agents giving the round's most-given answer"  # each round's count under stop=adaptive

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


# -- what each call read, against the full mesh --------------------------------------------------


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
    models = viewer_text.agent_models(names, rt.model_name)  # shown where they differ
    credibility = _credibility(opts, names)
    C = credibility.C
    warnings: list[str] = []
    contexts: list[CallContext] = []
    turns: list[list[Turn]] = []
    graphs: list[Graph] = []
    view = Peers(opts.peers, p.question.text)

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

    stability = opts.stability()
    support: list[int] = []  # per round, the agents giving its most-given answer (stop=adaptive)

    def supported(replies: Sequence[AgentAnswer]) -> int:
        return plurality_count([p.fmt.key(r.answer) if r.answer else None for r in replies])

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
        rt.info("round 1", answers_markdown(1, turns[-1], p.fmt, opts, models))
    replies_by_round = [outputs]
    support.append(supported(outputs))

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

                # Step 3: every agent answers again from its kept heads' outputs only (as the
                # peers condition shows them; the graph is the method's either way)
                shown = [_shown(o.text, opts) for o in outputs]
                read = [rules.heads(keep, j) for j in range(n)]
                seen = [
                    view.seen([outputs[i] for i in read[j]], names[j], outputs[j]) for j in range(n)
                ]
                prompts = [
                    _prompt_for(p, [_shown(a.text, opts) for a in seen[j]], shown[j], opts)
                    for j in range(n)
                ]
                outputs = await rt.gather(
                    *(
                        session.answer(
                            names[j],
                            names[j],
                            [Msg("user", prompts[j])],
                            "regenerate",
                            now,
                            asks=AnswerRequest(
                                p.fmt, _answers_read(outputs[j], seen[j], opts), confidence=True
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
                            session,
                            _prompt_for(
                                p, [shown[i] for i in rules.heads(everyone, j)], shown[j], opts
                            ),
                        ),
                        len(read[j]),
                    )
                    for j in range(n)
                }
                beyond = initial_chars if p.question.media else None  # see call_contexts
                contexts += call_contexts(session, now, prompt_sizes, beyond)
                turns.append([turn(o, read[j]) for j, o in enumerate(outputs)])
                flips = round_flips([a for r in replies_by_round for a in r], outputs, p.fmt.key)
                shown_round = answers_markdown(now, turns[-1], p.fmt, opts, models, flips)
                rt.info(f"round {now}", shown_round)
        except LimitReached as reached:  # the round in progress is dropped, its graph too
            limit, stop, d = reached, "limit", d - 1
            del graphs[d:]
            break
        replies_by_round.append(outputs)
        support.append(supported(outputs))
        # Step 4: unanimity ends the debate (stop=adaptive: so does a stable agreement)
        if agreed(outputs):
            stop = "consensus"
        elif stops_now(support, n, stability):
            stop = "stable"

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
        adaptive_stop=record(support, n, TRACKED, stability),
    )
    if result.adaptive_stop is not None:
        rt.info("adaptive stop", viewer_text.adaptive_stop(result.adaptive_stop))
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


def _prompt_for(p: Problem, neighbours: Sequence[str], own: str, opts: CortexOptions) -> Content:
    """An agent's regeneration prompt: the `neighbours`' outputs it reads, with its `own` under
    include_self."""
    mine = own if opts.include_self else None
    return regeneration_prompt(p.question, p.fmt, neighbours, mine, opts.scrutiny)


def _answers_read(
    own: AgentAnswer, seen: Sequence[AgentAnswer], opts: CortexOptions
) -> tuple[str, ...]:
    """The answers an agent's prompt shows (its own first with include_self), for `Call.asks`."""
    shown = ([own] if opts.include_self else []) + list(seen)
    return tuple(a.answer for a in shown if a.answer is not None)


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

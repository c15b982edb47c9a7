"""RECONCILE (Chen, Saha and Bansal, 2023), "ReConcile: Round-Table Conference Improves Reasoning
via Consensus among Diverse LLMs" (arXiv 2309.13007).

Round 1 (the paper's initial response generation): every agent answers alone, with its reasoning
and a confidence in [0, 1]. Then, for at most `max_rounds` discussion rounds, every agent answers
again from a fresh prompt that shows the previous round's replies grouped by answer, each with its
explanation and stated confidence, the agent's own previous reply marked as its own (the paper's
discussion prompt groups all agents' answers; the authors' code starts each call afresh). The
discussion stops as soon as every agent gives the same answer, the initial answers included (the
authors' code writes no discussion prompt for a sample that agrees). The final answer is the
confidence-weighted vote of the last round (protocols/reconcile.py: recalibrated confidences,
summed per answer).

Paper defaults: 3 agents (ChatGPT, Bard and Claude 2, one per model: bind `agent_1`..`agent_3`
to three models) and at most 3 discussion rounds (the paper's experiments; the authors' `run.py`
defaults to `--round 2`). Seed 001 (CortexDebate) ran it with 5 agents and at most 5 rounds.

Left out: the paper's "convincing samples", human explanations from the training set that once
corrected an agent, shown as demonstrations. They need a labelled training split with
explanations that a task here does not have, so no agent sees any (what runs is the paper's
ablation without convincing samples).

Open points, as recorded: a reply without a readable confidence weighs as the lowest bin (0.1, as
the authors' code reads a missing confidence as 0.0) and its record says `stated: null`; a
confidence is read as CortexDebate's are (`CONFIDENCE: 0.85`, `85%` and `85/100` are 0.85; a
value above 1 and up to 100 is a percentage; anything else is clamped to [0, 1]); an agent
without a readable answer abstains: it neither votes nor counts as agreeing, and the others see
it as having given no answer.

Every call presents the question with all of its parts, first in its prompt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from .. import viewer_text
from ..answers import AnswerFormat
from ..checks import integer
from ..confidence import parse_confidence, without_confidence
from ..content import Content, Msg, Question, compose
from ..options import MAX_AGENTS, MAX_ROUNDS, Answering, option
from ..protocols.cortex import unanimous
from ..protocols.majority import majority_vote
from ..protocols.reconcile import WeightedTally, recalibrate, weighted_vote
from ..records import AgentAnswer, DebateResult, Tally
from ..requests import AnswerRequest
from ..session import Session
from ..spec import FirstVote, MethodSpec
from .reconcile_records import ConfidentAnswer, ReconcileRecord
from .turns import agent_names


@dataclass(frozen=True)
class ReconcileOptions(Answering):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("reminder",)
    agents: int = option(
        3,
        "number of agents (paper: 3, one per model), each on model role `agent_i` (falling back "
        "to `agent`, then the main model).",
        lambda name, v: integer(name, v, 2, MAX_AGENTS),
    )
    max_rounds: int = option(
        3,
        "discussion rounds after the initial answers, at most (paper: 3); the discussion ends "
        "early when every agent gives the same answer; 0: the weighted vote of the initial "
        "answers.",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )


# -- what the agents read and write -----------------------------------------------------------------

OWN_HEADING = "--- your previous reply ---"
PEERS_HEADING = "The other agents' replies, grouped by answer:"


def _reply_format(fmt: AnswerFormat) -> str:
    return (
        'Reason step by step. Then write a line of the form "CONFIDENCE: c", where c, between '
        "0.0 and 1.0, is the probability that your answer is right, and end with the final "
        f"answer line. {fmt.instruction()}"
    )


def initial_prompt(question: Question, fmt: AnswerFormat) -> Content:
    return compose(
        question,
        "\n\nYou take part in a round-table discussion of this question with other agents. "
        f"First answer it on your own. {_reply_format(fmt)}",
    )


def _confidence_text(stated: float | None) -> str:
    return f"confidence {stated:g}" if stated is not None else "no confidence stated"


def discussion_prompt(
    question: Question,
    fmt: AnswerFormat,
    own: ConfidentAnswer,
    own_text: str,
    peers: Sequence[tuple[ConfidentAnswer, str]],
) -> Content:
    """The question, then the agent's own previous reply, then the other agents' replies grouped
    by answer (most supported first, then in agent order), each with its stated confidence."""
    groups: dict[str | None, list[tuple[ConfidentAnswer, str]]] = {}
    for peer, text in peers:
        same = fmt.key(peer.answer) if peer.answer is not None else None
        groups.setdefault(same, []).append((peer, text))
    ordered = sorted(groups.values(), key=lambda g: (g[0][0].answer is None, -len(g)))
    blocks = []
    for group in ordered:
        first = group[0][0].answer
        said = f"answer {fmt.describe(first)}" if first is not None else "no readable answer"
        agents = "1 agent" if len(group) == 1 else f"{len(group)} agents"
        replies = "\n\n".join(
            f"--- an agent ({_confidence_text(peer.stated)}) ---\n{text.strip()}"
            for peer, text in group
        )
        blocks.append(f"=== {agents}: {said} ===\n\n{replies}")
    mine = f"answer {fmt.describe(own.answer)}" if own.answer is not None else "no readable answer"
    return compose(
        question,
        "\n\nThis is a round-table discussion of the question. In the previous round you gave "
        f"{mine} ({_confidence_text(own.stated)}):\n\n{OWN_HEADING}\n{own_text.strip()}\n\n"
        f"{PEERS_HEADING}\n\n" + "\n\n".join(blocks) + "\n\nReview their explanations as "
        "additional information: say which points you agree or disagree with and why, then give "
        f"your own answer. {_reply_format(fmt)}",
    )


# -- the method ----------------------------------------------------------------------------------


async def reconcile(session: Session, opts: ReconcileOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    names = agent_names(opts.agents)
    turns: list[list[ConfidentAnswer]] = []
    replies: list[list[AgentAnswer]] = []

    def confident(reply: AgentAnswer) -> ConfidentAnswer:
        stated = parse_confidence(reply.text)
        return ConfidentAnswer(reply.agent, reply.round, reply.answer, stated, recalibrate(stated))

    async def speak(name: str, t: int) -> AgentAnswer:
        if t == 1:
            prompt = initial_prompt(p.question, p.fmt)
            asks = AnswerRequest(p.fmt, confidence=True)
        else:
            j = names.index(name)
            own = turns[-1][j]
            peers = [
                (turns[-1][i], without_confidence(replies[-1][i].text))
                for i in range(len(names))
                if i != j
            ]
            prompt = discussion_prompt(
                p.question, p.fmt, own, without_confidence(replies[-1][j].text), peers
            )
            shown = tuple(a.answer for a, _ in peers if a.answer is not None)
            asks = AnswerRequest(p.fmt, shown=shown, confidence=True)
        purpose = "initial" if t == 1 else "discussion"
        return await session.answer(name, name, [Msg("user", prompt)], purpose, t, asks=asks)

    stop = "max_rounds"
    for t in range(1, opts.max_rounds + 2):
        async with rt.span(f"round {t}"):
            outputs = await rt.gather(*(speak(name, t) for name in names))
        replies.append(list(outputs))
        turns.append([confident(o) for o in outputs])
        rt.info(f"round {t}", _round_markdown(t, turns[-1], p.fmt, rt.model_name))
        if unanimous([a.answer for a in outputs], p.fmt.key):
            stop = "agreement"
            break

    last = turns[-1]
    vote = weighted_vote([a.answer for a in last], [a.stated for a in last], p.fmt.key)
    counts = majority_vote([a.answer for a in last], key=p.fmt.key).counts
    rt.info("vote", _vote_markdown(vote, p.fmt, stop))
    return DebateResult(
        method="reconcile",
        final=vote.winner,
        answers=[a for r in replies for a in r],
        calls=session.calls,
        tally=Tally(counts=counts, winner=vote.winner, tie=vote.tie, abstentions=vote.abstentions),
        options=opts.record(),
        record=ReconcileRecord(
            turns=turns, vote=vote, discussion_rounds=len(turns) - 1, stop_reason=stop
        ),
    )


# -- what a person reads in the viewer ---------------------------------------------------------------

BINS = (
    "weight: the confidence recalibrated, 1.0 -> 1.0, [0.9, 1) -> 0.8, [0.8, 0.9) -> 0.5, "
    "(0.6, 0.8) -> 0.3, anything lower -> 0.1"
)


def _round_markdown(
    t: int,
    turns: Sequence[ConfidentAnswer],
    fmt: AnswerFormat,
    model_of: viewer_text.ModelOf | None = None,
) -> str:
    rows = [
        [
            a.agent,
            viewer_text.answer_cell(a.answer, fmt.describe),
            f"{a.stated:g}" if a.stated is not None else "missing",
            f"{a.weight:g}",
        ]
        for a in turns
    ]
    what = "the initial answers" if t == 1 else f"discussion round {t - 1}"
    notes = ["confidence: as the reply states it", BINS]
    if any(a.stated is None for a in turns):
        notes.append("missing: no readable confidence, so the lowest weight, 0.1")
    if any(a.answer is None for a in turns):
        notes.append(f"{viewer_text.ABSTAINED}: no readable answer, so the agent does not vote")
    head = ["agent", "answer", "confidence", "weight"]
    models = viewer_text.agent_models([a.agent for a in turns], model_of)
    return (
        f"**Round {t}** ({what})\n\n{viewer_text.agent_table(head, rows, {2, 3}, models)}\n\n"
        + "; ".join(notes)
        + "."
    )


def _vote_markdown(vote: WeightedTally, fmt: AnswerFormat, stop: str) -> str:
    winner = fmt.describe(vote.winner) if vote.winner is not None else "no answer (all abstained)"
    tie = " (a tie, settled by the rule below)" if vote.tie and vote.winner is not None else ""
    rows = [
        (fmt.describe(a), f"{w:g}") for a, w in sorted(vote.weights.items(), key=lambda x: -x[1])
    ]
    why = (
        "every agent gave the same answer"
        if stop == "agreement"
        else "the last discussion round allowed (max_rounds) was reached"
    )
    return (
        f"**Confidence-weighted vote** → **{winner}**{tie}\n\n"
        f"{viewer_text.table(['answer', 'weight'], rows, right={1})}\n\n"
        f"The discussion stopped because {why}. Rule: each answer's weight is the sum of the "
        "recalibrated confidences of the agents that gave it in the last round; the largest "
        "wins, a tie going to the tied answer given first in agent order. Abstentions "
        f"({vote.abstentions}) do not vote."
    )


def first_vote(result: DebateResult, first: Sequence[AgentAnswer], fmt: AnswerFormat) -> FirstVote:
    """The round-1 answers weighed by their stated confidences, as the final vote weighs them."""
    record = result.record
    turns = record.turns if isinstance(record, ReconcileRecord) else []
    stated = {c.agent: c.stated for c in turns[0]} if turns else {}
    vote = weighted_vote([a.answer for a in first], [stated.get(a.agent) for a in first], fmt.key)
    return FirstVote(vote.winner, vote.tie, "weighted_vote (round-1 stated confidences)")


SPEC = MethodSpec(
    "reconcile",
    "Agents answer with confidences and discuss until they agree; the recalibrated confidences "
    "vote.",
    ReconcileOptions,
    lambda o, setup: lambda s: reconcile(s, o),
    first_vote=first_vote,
)

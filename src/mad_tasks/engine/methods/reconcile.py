"""RECONCILE (Chen, Saha and Bansal, 2023), "ReConcile: Round-Table Conference Improves Reasoning
via Consensus among Diverse LLMs" (arXiv 2309.13007).

Round 1 (the paper's initial response generation): every agent answers alone, with its reasoning
and a confidence in [0, 1]. Then, for at most `max_rounds` discussion rounds, every agent answers
again from a fresh prompt that shows the previous round's replies grouped by answer, each with its
explanation and stated confidence (the authors' code starts each call afresh). As in the authors'
code (dinobby/ReConcile@902ae91, checked call by call in docs/fidelity.md), the view is one text
shared by every agent, its own reply unmarked among the others (`own_reply=among_others`; `apart`
marks it as its own), and only the two answers most agents gave are shown (`shown=top_two`; the
paper's text, `all`, shows every answer). The discussion stops as soon as every agent gives the
same answer, the initial answers included (the authors' code writes no discussion prompt for a
question that agrees); with `stop=adaptive` it also stops once the count of agents giving the
round's most-given answer is stable (Hu et al. 2025, docs/adaptive-stopping.md; `max_rounds` is
then the cap). The final answer is the confidence-weighted vote of the last round
(protocols/reconcile.py: recalibrated confidences, summed per answer).

Defaults: 3 agents (the paper's ChatGPT, Bard and Claude 2, one per model: bind `agent_1`..`agent_3`
to three models) and at most 2 discussion rounds (the authors' `run.py`, `--round 2`; the paper's
experiments ran 3: `max_rounds=3`). Seed 001 (CortexDebate) ran it with 5 agents and at most 5
rounds.

Left out: the paper's "convincing samples", human explanations from the training set that once
corrected an agent, shown as demonstrations. They need a labelled training split with
explanations that a task here does not have, so no agent sees any (what runs is the paper's
ablation without convincing samples).

Open points, as recorded: a reply without a readable confidence weighs as the lowest bin (0.1, as
the authors' code reads a missing confidence as 0.0) and its record says `stated: null`; a
confidence is read as CortexDebate's are (`CONFIDENCE: 0.85`, `85%` and `85/100` are 0.85; a
value above 1 and up to 100 is a percentage; anything else is clamped to [0, 1]); an agent
without a readable answer abstains: it neither votes nor counts as agreeing, and the others see
it as having given no answer (always shown, whatever `shown`). The authors' code instead fills
an unreadable answer with a random option (unseeded numpy) weighing 0.1; that is never done here.
With `-S answer_form=authors` every reply is asked for, and read as, the authors' object instead:
only a JSON object of the reasoning, the answer and the confidence (authors_forms.answer_object).

Every call presents the question with all of its parts, first in its prompt.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

from .. import viewer_text
from ..answers import AnswerFormat
from ..authors_forms import answer_object, stated_confidence
from ..checks import integer, one_of
from ..confidence import parse_confidence, without_confidence
from ..content import Content, Msg, Question, compose
from ..failures import round_flips
from ..options import MAX_AGENTS, MAX_ROUNDS, AdaptiveStop, PeerControls, option
from ..peers import Peers
from ..protocols.cortex import unanimous
from ..protocols.majority import majority_vote
from ..protocols.reconcile import WeightedTally, recalibrate, weighted_vote
from ..records import AgentAnswer, DebateResult, Tally
from ..requests import AnswerRequest
from ..session import Session
from ..spec import FirstVote, MethodSpec
from ..stability import plurality_count, record, stops_now
from .reconcile_records import ConfidentAnswer, ReconcileRecord
from .turns import agent_names

SHOWN = ("top_two", "all")
OWN_REPLY = ("among_others", "apart")


@dataclass(frozen=True)
class ReconcileOptions(PeerControls, AdaptiveStop):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("reminder",)
    agents: int = option(
        3,
        "number of agents (paper: 3, one per model), each on model role `agent_i` (falling back "
        "to `agent`, then the main model).",
        lambda name, v: integer(name, v, 2, MAX_AGENTS),
    )
    max_rounds: int = option(
        2,
        "discussion rounds after the initial answers, at most (the authors' code: 2, its "
        "`--round` default; the paper's experiments: 3); the discussion ends early when every "
        "agent gives the same answer; 0: the weighted vote of the initial answers.",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )
    shown: str = option(
        "top_two",
        "which answers a discussion prompt shows: `top_two` (the authors' code): the two answers "
        "most agents gave in the previous round, a tie for second going to the answer given "
        "first in agent order, every other answer's replies left out; `all` (the paper's "
        "text): every answer given. Replies without a readable answer are always shown.",
        lambda name, v: one_of(name, v, SHOWN),
    )
    own_reply: str = option(
        "among_others",
        "where a discussion prompt puts the agent's own previous reply: `among_others` (the "
        "authors' code): one view of the previous round shared by every agent, "
        "its own reply unmarked in its answer's group; `apart`: shown first and marked as its "
        "own, the other agents' replies grouped after it.",
        lambda name, v: one_of(name, v, OWN_REPLY),
    )


# stop=adaptive counts the answers alone: the confidences weigh only in the final vote
TRACKED = "agents giving the round's most-given answer (unweighted)"

# -- what the agents read and write -----------------------------------------------------------------

OWN_HEADING = "--- your previous reply ---"
PEERS_HEADING = "The other agents' replies, grouped by answer:"
ROUND_HEADING = "The agents' replies in the previous round, grouped by answer:"


def _reply_format(fmt: AnswerFormat) -> str:
    if stated_confidence(fmt) is not None:  # -S answer_form=authors: the object asks for all three
        return fmt.instruction()
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


Shown = tuple[ConfidentAnswer, str]  # a previous reply: its answer and confidence, its text


def shown_groups(
    fmt: AnswerFormat, replies: Sequence[Shown], shown: str = "top_two"
) -> list[list[Shown]]:
    """The previous round's replies grouped by answer, most supported first, a tie in agent order
    (the order of `Counter.most_common` in the authors' code); `top_two` keeps the two largest
    groups. Replies without a readable answer form one group, always shown and always last."""
    groups: dict[str | None, list[Shown]] = {}
    for reply in replies:
        answer = reply[0].answer
        groups.setdefault(fmt.key(answer) if answer is not None else None, []).append(reply)
    answered = sorted((g for k, g in groups.items() if k is not None), key=lambda g: -len(g))
    if shown == "top_two":
        answered = answered[:2]
    return answered + ([groups[None]] if None in groups else [])


def _group_text(fmt: AnswerFormat, group: Sequence[Shown]) -> str:
    first = group[0][0].answer
    said = f"answer {fmt.describe(first)}" if first is not None else "no readable answer"
    agents = "1 agent" if len(group) == 1 else f"{len(group)} agents"
    replies = "\n\n".join(
        f"--- an agent ({_confidence_text(peer.stated)}) ---\n{text.strip()}"
        for peer, text in group
    )
    return f"=== {agents}: {said} ===\n\n{replies}"


def discussion_prompt(
    question: Question,
    fmt: AnswerFormat,
    groups: Sequence[Sequence[Shown]],
    own: Shown | None = None,
) -> Content:
    """The question, then the previous round's replies grouped by answer (`shown_groups`), each
    with its stated confidence. With `own` (option `own_reply=apart`) the agent's own previous
    reply comes first, marked as its own, and `groups` hold the other agents' replies; without,
    every agent reads the same text, its own reply unmarked in its group."""
    blocks = "\n\n".join(_group_text(fmt, g) for g in groups if g)
    if own is None:
        shown = f"{ROUND_HEADING}\n\n{blocks}"
    else:
        mine, text = own
        said = (
            f"answer {fmt.describe(mine.answer)}"
            if mine.answer is not None
            else "no readable answer"
        )
        shown = (
            f"In the previous round you gave {said} ({_confidence_text(mine.stated)}):\n\n"
            f"{OWN_HEADING}\n{text.strip()}\n\n{PEERS_HEADING}\n\n{blocks}"
        )
    return compose(
        question,
        f"\n\nThis is a round-table discussion of the question. {shown}\n\nReview their "
        "explanations as additional information: say which points you agree or disagree with "
        f"and why, then give your own answer. {_reply_format(fmt)}",
    )


# -- the method ----------------------------------------------------------------------------------


async def reconcile(session: Session, opts: ReconcileOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    names = agent_names(opts.agents)
    turns: list[list[ConfidentAnswer]] = []
    replies: list[list[AgentAnswer]] = []
    view = Peers(opts.peers, p.question.text)

    def confident(reply: AgentAnswer) -> ConfidentAnswer:
        stated = (stated_confidence(p.fmt) or parse_confidence)(reply.text)
        return ConfidentAnswer(reply.agent, reply.round, reply.answer, stated, recalibrate(stated))

    async def speak(name: str, t: int) -> AgentAnswer:
        if t == 1:
            prompt = initial_prompt(p.question, p.fmt)
            asks = AnswerRequest(p.fmt, confidence=True)
        else:
            # the replies the method shows (by `shown`, from the real answers) and the agent's
            # own, as the peers condition shows them (noised: no answer, no confidence)
            real = [(c, without_confidence(a.text)) for c, a in zip(turns[-1], replies[-1])]
            kept = {c.agent for g in shown_groups(p.fmt, real, opts.shown) for c, _ in g}
            if opts.own_reply == "apart":
                kept.add(name)
            own = replies[-1][names.index(name)] if name not in kept else None  # for peers=self
            seen = view.seen([a for a in replies[-1] if a.agent in kept], name, own)
            previous = [(confident(a), without_confidence(a.text)) for a in seen]
            if opts.own_reply == "apart":
                top = shown_groups(p.fmt, previous, opts.shown)
                groups = [[r for r in g if r[0].agent != name] for g in top]
                mine = next(r for r in previous if r[0].agent == name)
                prompt = discussion_prompt(p.question, p.fmt, groups, mine)
            else:
                groups = shown_groups(p.fmt, previous, opts.shown)
                prompt = discussion_prompt(p.question, p.fmt, groups)
            shown = tuple(  # the other agents' answers the prompt shows
                a.answer for g in groups for a, _ in g if a.answer is not None and a.agent != name
            )
            asks = AnswerRequest(p.fmt, shown=shown, confidence=True)
        purpose = "initial" if t == 1 else "discussion"
        return await session.answer(name, name, [Msg("user", prompt)], purpose, t, asks=asks)

    stop = "max_rounds"
    stability = opts.stability()
    support: list[int] = []  # per round, the agents giving its most-given answer (stop=adaptive)
    for t in range(1, opts.max_rounds + 2):
        async with rt.span(f"round {t}"):
            outputs = await rt.gather(*(speak(name, t) for name in names))
        replies.append(list(outputs))
        turns.append([confident(o) for o in outputs])
        flips = round_flips([a for r in replies[:-1] for a in r], outputs, p.fmt.key)
        rt.info(f"round {t}", _round_markdown(t, turns[-1], p.fmt, rt.model_name, flips))
        support.append(
            plurality_count([p.fmt.key(a.answer) if a.answer else None for a in outputs])
        )
        if unanimous([a.answer for a in outputs], p.fmt.key):
            stop = "agreement"
            break
        if stops_now(support, opts.agents, stability):
            stop = "stable"
            break

    last = turns[-1]
    vote = weighted_vote([a.answer for a in last], [a.stated for a in last], p.fmt.key)
    counts = majority_vote([a.answer for a in last], key=p.fmt.key).counts
    rt.info("vote", _vote_markdown(vote, p.fmt, stop))
    result = DebateResult(
        method="reconcile",
        final=vote.winner,
        answers=[a for r in replies for a in r],
        calls=session.calls,
        tally=Tally(counts=counts, winner=vote.winner, tie=vote.tie, abstentions=vote.abstentions),
        options=opts.record(),
        record=ReconcileRecord(
            turns=turns, vote=vote, discussion_rounds=len(turns) - 1, stop_reason=stop
        ),
        adaptive_stop=record(support, opts.agents, TRACKED, stability),
    )
    if result.adaptive_stop is not None:
        rt.info("adaptive stop", viewer_text.adaptive_stop(result.adaptive_stop))
    return result


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
    flips: Mapping[str, str] | None = None,
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
    head = viewer_text.flip_column(
        ["agent", "answer", "confidence", "weight"], rows, flips or {}, notes
    )
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
    why = {
        "agreement": "every agent gave the same answer",
        "stable": "the agents' agreement was stable (stop=adaptive)",
    }.get(stop, "the last discussion round allowed (max_rounds) was reached")
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
    authors_form=answer_object,  # their JSON object of reasoning, answer and confidence_level
)

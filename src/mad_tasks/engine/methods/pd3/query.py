"""What every PD³ retrieval method shares for one query (`pd3`, `llm_voting`, `listwise`): the
sample's query and candidates (`Retrieval`), the candidates' anonymous labels and views, the
decider's `[RESULT]` list filled to k, the replies as the debate's answers, and the result line.
Every call presents the project under detection as the session's question (the sample's input,
every part of it, text cut to `query_tokens`)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ... import viewer_text
from ...content import Content, Msg
from ...protocols.pd3 import fill, labels, read_result
from ...records import AgentAnswer, DebateResult
from ...requests import PicksRequest
from ...session import Session
from . import prompts
from .options import RESULT, JudgedOptions
from .prompts import project_view
from .records import Cut, Decision, Group, PD3Record, Project


@dataclass(frozen=True)
class Retrieval:
    """What a retrieval sample gives: the project under detection and its candidates, in their
    preliminary order."""

    WHAT: ClassVar[str] = "a query's candidates"  # what a sample must carry for a retrieval

    query: Project
    candidates: tuple[Project, ...]


def result_line(ids: Sequence[str]) -> str:
    """The completion of a retrieval: `[RESULT] id1, id2, ...`."""
    return f"{RESULT} {', '.join(ids)}"


def query_seed(seed: int, query: str) -> int:
    """The option's seed mixed with the query's id: each query its own draw, a rerun the same."""
    digest = hashlib.sha256(f"{seed}\x00{query}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def full_text(project: Project) -> str:
    return "\n".join(t for t in (project.title.strip(), project.text.strip()) if t)


@dataclass(frozen=True)
class Query:
    """What every call of a query shares: the opening, the labels, the candidates' views and
    their preliminary order."""

    opening: Content
    labels: dict[str, str]
    views: dict[str, str]
    order: tuple[str, ...]
    cuts: list[Cut]
    query_cut: Cut | None

    def block(self, members: Sequence[str]) -> str:
        return prompts.candidates([(self.labels[c], self.views[c]) for c in members])

    def ids(self, found: Sequence[str], members: Sequence[str]) -> tuple[str, ...]:
        """Labels read from a reply as the members' ids."""
        by_label = {self.labels[c]: c for c in members}
        return tuple(by_label[label] for label in found if label in by_label)


def prepare_query(
    session: Session,
    query: Project,
    candidates: Sequence[Project],
    opts: JudgedOptions,
    seed: int,
) -> Query:
    ids = [c.id for c in candidates]
    if len(set(ids)) != len(ids):
        raise ValueError(f"query {query.id!r}: the candidate ids are not distinct")
    question, chars, shown = prompts.question_view(session.problem.question, opts.query_tokens)
    views, cuts = {}, []
    for c in candidates:
        views[c.id], cut = project_view(c, opts.candidate_tokens)
        if cut:
            cuts.append(Cut(c.id, len(full_text(c)), len(views[c.id])))
    return Query(
        opening=prompts.opening(question, opts.domain, opts.criteria, query.facet),
        labels=labels(ids, seed),
        views=views,
        order=tuple(ids),
        cuts=cuts,
        query_cut=Cut(query.id, chars, shown) if shown < chars else None,
    )


def answer_of(
    agent: str,
    round: int,
    text: str,
    picks: Sequence[str] | None,
    k: int,
    rank: Mapping[str, int],
    attempts: int = 1,
) -> AgentAnswer:
    """A reply as the debate's answers keep it: its first k picks as a set, in preliminary
    order (an expert that only reorders its picks has not changed them); None: none readable."""
    chosen = sorted((picks or ())[:k], key=rank.__getitem__)
    return AgentAnswer(agent, round, text, ", ".join(chosen) or None, attempts)


class Decider:
    """One query's decisions in progress: a decider's list read as the members' ids, filled to
    k, and the replies as the debate's answers."""

    def __init__(self, session: Session, q: Query, k: int) -> None:
        self.session = session
        self.rt = session.runtime
        self.q = q
        self.k = k
        self.rank = {c: i for i, c in enumerate(q.order)}

    def labels_of(self, members: Sequence[str]) -> tuple[str, ...]:
        return tuple(self.q.labels[c] for c in members)

    async def decide(
        self,
        agent: str,
        purpose: str,
        round: int,
        members: Sequence[str],
        prompt: Content,
        expert_final: Sequence[Sequence[str]],
    ) -> Decision:
        """A decider's `[RESULT]` list (asked again while unreadable), filled to k."""
        shown = self.labels_of(members)
        asked = await self.session.ask(
            agent,
            "senior",
            [Msg("user", prompt)],
            purpose,
            round,
            lambda t: read_result(t, shown),
            prompts.reminder(self.k),
            asks=PicksRequest(tuple(members), shown, self.k, round, final=True),
        )
        parsed = None if asked.value is None else self.q.ids(asked.value, members)
        prelim = sorted(members, key=self.rank.__getitem__)
        filled = fill(parsed, self.k, expert_final, prelim)
        return Decision(agent, tuple(asked.replies), parsed, filled.picks, filled.filled_from)

    def answers(self, group: Group, decider_round: int) -> list[AgentAnswer]:
        """The group's replies as the debate's answers: expert rounds from 1 (the paper's round
        0), the decider's after them."""
        out = [
            answer_of(
                f"group {group.number} expert {s.expert}",
                s.round + 1,
                s.text,
                s.picks,
                self.k,
                self.rank,
            )
            for s in group.statements
        ]
        d = group.decision
        shown = d.replies[0] if len(d.replies) == 1 else f"{d.replies[0]}\n\n{d.replies[-1]}"
        out.append(
            answer_of(d.agent, decider_round, shown, d.parsed, self.k, self.rank, len(d.replies))
        )
        return out

    # -- what a person reads in the viewer ----------------------------------------------------

    def shown(self, ids: Sequence[str]) -> str:
        return ", ".join(self.q.labels[c] for c in ids) or "–"

    def decision_markdown(self, d: Decision) -> str:
        who = "senior expert" if d.agent.endswith("senior") else "decider"
        if d.parsed is None:
            read = f"no reply had a readable [RESULT] list ({len(d.replies)} replies)"
        else:
            read = f"[RESULT] read as {self.shown(d.parsed)} (reply {len(d.replies)})"
        sources = {
            "experts": "the experts' final-round picks",
            "preliminary": "the preliminary order",
        }
        given = len(d.picks) - len(d.filled_from)
        rows = [
            (
                i,
                self.q.labels[c],
                c,
                "decision" if i <= given else sources[d.filled_from[i - given - 1]],
            )
            for i, c in enumerate(d.picks, 1)
        ]
        note = (
            "from: the decision's own list, or the rule that filled a short one (the experts' "
            "final-round picks, most named first, then the preliminary order)"
        )
        return (
            f"The {who}: {read}. Decision:\n\n"
            f"{viewer_text.table(['rank', 'label', 'id', 'from'], rows, right={0})}\n\n{note}."
        )


def result_of(
    session: Session,
    variant: str,
    record: PD3Record,
    answers: list[AgentAnswer],
    options: dict[str, Any],
) -> DebateResult:
    return DebateResult(
        method=variant,
        final=result_line(record.top),
        answers=answers,
        calls=session.calls,
        options=options,
        record=record,
    )

"""PD³ (seed 000): project duplication detection by a round-robin tournament of debates, its
feedback module, and the baselines it is compared with.

Retrieval (`pd3`), for one project under detection and its N candidates (spec 1.3-1.5):
1. Each candidate gets an anonymous label (P100..P999) and a view cut to `candidate_tokens`; the
   candidates are shuffled and cut into N / set_size sets, and the sets combine into groups of
   `group_size` candidates (`grouping`: every combination of group_size / set_size sets, or the
   sliding-window and random ablations). Labels, partition and groups are drawn with `seed` mixed
   with the query's id, so each query gets its own and a rerun the same.
2. The groups run concurrently. In each, `agents` experts pick the `top_k` most relevant
   candidates with a reason (round 0, independently and at once), then debate for
   `debate_rounds` rounds: each sees every statement of the earlier rounds (`visibility`
   simultaneous; sequential: also the statements already made in its round, one expert after
   the other). A senior expert reads the whole record and ends with a `[RESULT]` list; a reply
   without a readable list is asked again (`retries`), and a list short of `top_k` is filled
   from the experts' final-round picks, then in preliminary order, each filled slot recorded.
   `decider` single is the LLM-voting ablation: one call per group decides alone.
3. The group decisions vote: a candidate's votes are the groups whose decision holds it, the
   top_k most voted win, ties broken by rank points, then the experts' round-0 picks, then the
   preliminary order (protocols/pd3.py `vote`, which names the rule that settled the k-th place).

Calls per query, without follow-ups: groups × (agents × (1 + debate_rounds) + 1); the defaults
(30 candidates, sets of 5, groups of 20, round robin: 15 groups) 15 × 10 = 150, at debate_rounds 3
195; LLM voting 15. The preliminary order is the order the candidates come in (the dataset's).

Feedback (`feedback`, `feedback_pair`, spec 1.6): an optional similarity conclusion over the query
and its references, then `samples` independent judge calls, each ending in `[RESULT]<1..10>`; the
score is the mean of the readable ones. A pair predicts the side with the higher score ("tie" when
equal; no prediction when a side has no readable score).

Baselines: `listwise` (one call chooses top_k among all candidates, shown in their order) and
`lexical` (BM25 over the candidates' texts, no model call).

Every retrieval call presents the project under detection as the session's question (the
sample's input, every part of it, text cut to `query_tokens`). A feedback call presents the
question too: as the project under detection when no project is given, else as the task (a pair's
instruction) before the project's view. Calls are made by the agents "group 3 expert 2" (role
`expert`), "group 3 senior" and "group 3 decider" (role `senior`), "listwise" (role `senior`), and
"conclusion" and "judge 1".."judge n" (role `feedback`; a pair's sides prefix "A " and "B "); a
call's purpose ("round 1", "senior", "score 2") and its agent make every call's cache scope and
seed its own.
"""

from __future__ import annotations

import hashlib
import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .. import report
from ..content import Content, compose
from ..options import (
    MAX_AGENTS,
    MAX_RETRIES,
    MAX_ROUNDS,
    Generation,
    OptionError,
    Options,
    boolean,
    integer,
    one_of,
    option,
    text,
)
from ..protocols.pd3 import (
    GROUPINGS,
    LABEL_NUMBERS,
    fill,
    groups,
    labels,
    partition,
    read_picks,
    read_result,
    read_score,
    vote,
)
from ..records import AgentAnswer, DebateResult
from ..requests import ConclusionRequest, DuplicationRequest, PicksRequest
from ..runtime import Msg
from ..session import Session
from . import pd3_prompts as prompts
from .pd3_prompts import project_view
from .pd3_records import (
    Cut,
    Decision,
    FeedbackRecord,
    FeedbackResult,
    Group,
    PD3Record,
    Project,
    Statement,
)
from .tod_papers import LexicalRetriever

__all__ = [
    "FeedbackOptions",
    "ListwiseOptions",
    "PD3Options",
    "Project",
    "ProjectOptions",
    "feedback",
    "feedback_pair",
    "lexical",
    "lexical_top_k",
    "listwise",
    "pd3",
    "predict",
    "project_view",
    "result_line",
]

# Caps on the counts that multiply a query's calls (README, "Option checks and limits"); `agents`
# and `debate_rounds` take the project's MAX_AGENTS and MAX_ROUNDS.
MAX_GROUPS = 200  # groups per query (paper: 15; its group-size sweep at most 20)
MAX_QUERY_CALLS = 3000  # groups x calls per group (paper: 150; its sweeps at most 420)
MAX_SAMPLES = 10  # judge samples per query (paper: 3)
MAX_TOP_K = 50  # the paper's K = 5
MAX_SET_SIZE = 100
MAX_GROUP_SIZE = len(LABEL_NUMBERS)  # as many candidates as there are labels
MAX_VIEW_TOKENS = 100_000  # per candidate or query (paper: about 1.3k)

DECIDERS = ("senior", "single")
VISIBILITIES = ("simultaneous", "sequential")
RESULT = "[RESULT]"


# -- options ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProjectOptions(Generation):
    """How every PD³ call shows the projects: the domain and the text budgets."""

    domain: str = option(
        prompts.DOMAIN,
        "what the projects are, as the prompts name them (paper: power science and technology "
        "projects).",
        text,
    )
    candidate_tokens: int = option(
        1024,
        "budget of each candidate's (or reference's) title and text, in tokens of "
        f"{prompts.CHARS_PER_TOKEN} characters; longer texts are cut, and the cut recorded.",
        lambda name, v: integer(name, v, 1, MAX_VIEW_TOKENS),
    )
    query_tokens: int = option(
        2048,
        "budget of the project under detection's text, in tokens of "
        f"{prompts.CHARS_PER_TOKEN} characters (cut and recorded the same way).",
        lambda name, v: integer(name, v, 1, MAX_VIEW_TOKENS),
    )


@dataclass(frozen=True)
class ListwiseOptions(ProjectOptions):
    """One decision among the candidates: the criteria, how many, and the seed of the labels."""

    retries: int = option(
        1,
        "follow-ups for a decision without a readable [RESULT] list before it is filled (spec "
        "A9: once).",
        lambda name, v: integer(name, v, 0, MAX_RETRIES),
    )
    criteria: str = option(
        prompts.CRITERIA,
        "the detection criteria every retrieval prompt states (paper: overlap in research "
        "content, key technologies, scenario or applications).",
        text,
    )
    top_k: int = option(
        5,
        "how many candidates the method returns (paper: K = 5).",
        lambda name, v: integer(name, v, 1, MAX_TOP_K),
    )
    seed: int = option(
        0,
        "seed of the labels, the partition and the random groups, mixed with the query's id.",
        lambda name, v: integer(name, v, None),
    )

    def check_candidates(self, n: int) -> None:
        """Refuse, before any call, a sample whose `n` candidates the options cannot serve."""
        if n > len(LABEL_NUMBERS):
            raise ValueError(
                f"a query has {n} candidates; at most {len(LABEL_NUMBERS)} can be labelled"
            )
        if self.top_k > n:
            raise OptionError(
                "top_k", self.top_k, f"an integer from 1 to the number of candidates ({n})"
            )


@dataclass(frozen=True)
class LexicalOptions(Options):
    """The lexical floor's one option (it makes no model call)."""

    top_k: int = option(
        5,
        "how many candidates BM25 returns (paper: K = 5).",
        lambda name, v: integer(name, v, 1, MAX_TOP_K),
    )


@dataclass(frozen=True)
class PD3Options(ListwiseOptions):
    """PD³'s round-robin tournament of debates; `decider` single is the LLM-voting ablation."""

    set_size: int = option(
        5,
        "candidates per set of the partition; the candidates must split evenly (paper: K = 5).",
        lambda name, v: integer(name, v, 1, MAX_SET_SIZE),
    )
    group_size: int = option(
        20,
        "candidates per group, a multiple of set_size (paper: M = 20; M = 30 of 30 is one group, "
        "'MAD vanilla').",
        lambda name, v: integer(name, v, 1, MAX_GROUP_SIZE),
    )
    grouping: str = option(
        "round_robin",
        "round_robin (every combination of group_size / set_size sets), sliding (windows of "
        "consecutive sets, cyclic, step 1) or random (as many groups, members drawn at random).",
        lambda name, v: one_of(name, v, GROUPINGS),
    )
    agents: int = option(
        3,
        "experts per group (paper: 3; its sweep 2 to 5).",
        lambda name, v: integer(name, v, 1, MAX_AGENTS),
    )
    debate_rounds: int = option(
        2,
        "debate rounds after the experts' initial picks (paper: 2; its sweep 1 to 4).",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )
    visibility: str = option(
        "simultaneous",
        "simultaneous: a debate round's experts see the earlier rounds; sequential: also the "
        "statements already made in their round.",
        lambda name, v: one_of(name, v, VISIBILITIES),
    )
    decider: str = option(
        "senior",
        "senior: experts debate, a senior expert decides; single: one call decides each group "
        "(the LLM-voting ablation; agents and debate_rounds are not used).",
        lambda name, v: one_of(name, v, DECIDERS),
    )

    def validate(self) -> None:
        super().validate()
        if self.group_size % self.set_size:
            raise OptionError(
                "group_size", self.group_size, f"a multiple of set_size ({self.set_size})"
            )
        if self.top_k > self.group_size:
            raise OptionError(
                "top_k", self.top_k, f"an integer from 1 to group_size ({self.group_size})"
            )

    @property
    def calls_per_group(self) -> int:
        if self.decider == "single":
            return 1
        return self.agents * (1 + self.debate_rounds) + 1

    def group_count(self, n: int) -> int:
        """How many groups `n` candidates make (sliding: at most)."""
        sets, per = n // self.set_size, self.group_size // self.set_size
        if self.grouping == "sliding":
            return sets if per < sets else 1
        return math.comb(sets, per)

    def check_candidates(self, n: int) -> None:
        """Also: the sets, the groups and the calls `n` candidates make."""
        super().check_candidates(n)
        if n % self.set_size:
            raise OptionError(
                "set_size", self.set_size, f"a divisor of the number of candidates ({n})"
            )
        if self.group_size > n:
            raise OptionError(
                "group_size",
                self.group_size,
                f"a multiple of set_size ({self.set_size}) up to the number of candidates ({n})",
            )
        count = self.group_count(n)
        if count > MAX_GROUPS:
            raise OptionError(
                "group_size",
                self.group_size,
                f"a size giving at most {MAX_GROUPS} groups ({count} with {n} candidates in sets "
                f"of {self.set_size}, grouping {self.grouping})",
            )
        if count * self.calls_per_group > MAX_QUERY_CALLS:
            raise OptionError(
                "debate_rounds",
                self.debate_rounds,
                f"a value giving at most {MAX_QUERY_CALLS} calls per query ({count} groups × "
                f"{self.calls_per_group} calls: agents × (1 + debate_rounds) + 1)",
            )


@dataclass(frozen=True)
class FeedbackOptions(ProjectOptions):
    """The feedback module: the similarity conclusion and the judge samples."""

    samples: int = option(
        3,
        "independent judge calls whose readable scores are averaged (paper: 3).",
        lambda name, v: integer(name, v, 1, MAX_SAMPLES),
    )
    conclusion: bool = option(
        True,
        "write a similarity conclusion first and show it to the judges ('with conclusion').",
        boolean,
    )


# -- the run's pieces ---------------------------------------------------------------------------


def result_line(ids: Sequence[str]) -> str:
    """The completion of a retrieval: `[RESULT] id1, id2, ...`."""
    return f"{RESULT} {', '.join(ids)}"


def query_seed(seed: int, query: str) -> int:
    """The option's seed mixed with the query's id: each query its own draw, a rerun the same."""
    digest = hashlib.sha256(f"{seed}\x00{query}".encode()).digest()
    return int.from_bytes(digest[:8], "big")


def _full(project: Project) -> str:
    return "\n".join(t for t in (project.title.strip(), project.text.strip()) if t)


@dataclass(frozen=True)
class _Query:
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


def _prepare(
    session: Session,
    query: Project,
    candidates: Sequence[Project],
    opts: ListwiseOptions,
    seed: int,
) -> _Query:
    ids = [c.id for c in candidates]
    if len(set(ids)) != len(ids):
        raise ValueError(f"query {query.id!r}: the candidate ids are not distinct")
    question, chars, shown = prompts.question_view(session.problem.question, opts.query_tokens)
    views, cuts = {}, []
    for c in candidates:
        views[c.id], cut = project_view(c, opts.candidate_tokens)
        if cut:
            cuts.append(Cut(c.id, len(_full(c)), len(views[c.id])))
    return _Query(
        opening=prompts.opening(question, opts.domain, opts.criteria),
        labels=labels(ids, seed),
        views=views,
        order=tuple(ids),
        cuts=cuts,
        query_cut=Cut(query.id, chars, shown) if shown < chars else None,
    )


def _answer(
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


class _Run:
    """One query's retrieval in progress."""

    def __init__(self, session: Session, q: _Query, k: int, opts: PD3Options | None) -> None:
        self.session = session
        self.rt = session.runtime
        self.q = q
        self.k = k
        self.opts = opts
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

    async def statement(
        self,
        number: int,
        members: Sequence[str],
        expert: int,
        round: int,
        shown: Sequence[Sequence[Statement]],
        current: bool,
    ) -> Statement:
        """An expert's picks (round 0) or statement (a debate round) after the record `shown`
        (`current`: its last round is the one in progress)."""
        opts = self.opts
        assert opts is not None
        if round == 0:
            ask = prompts.initial(expert, opts.agents, self.k)
        else:
            ask = prompts.debate(expert, opts.agents, self.k, round, opts.debate_rounds)
        record = prompts.debate_record(
            [[(s.expert, s.text) for s in statements] for statements in shown], current
        )
        labels_shown = self.labels_of(members)
        reply = await self.session.call(
            f"group {number} expert {expert}",
            "expert",
            [Msg("user", compose(self.q.opening, self.q.block(members), record, ask))],
            f"round {round}",
            round,
            asks=PicksRequest(tuple(members), labels_shown, self.k, round),
        )
        picks = self.q.ids(read_picks(reply.text, labels_shown), members)
        return Statement(expert, round, reply.text, picks)

    async def debate(self, number: int, members: Sequence[str]) -> list[list[Statement]]:
        """Round 0 and the debate rounds of one group, each in its span."""
        opts = self.opts
        assert opts is not None
        experts = range(1, opts.agents + 1)
        rounds: list[list[Statement]] = []
        for r in range(opts.debate_rounds + 1):
            async with self.rt.span(f"round {r}"):
                if r == 0 or opts.visibility == "simultaneous":
                    made = await self.rt.gather(
                        *(self.statement(number, members, e, r, rounds, False) for e in experts)
                    )
                else:  # sequential: each expert also reads its round's earlier statements
                    made = []
                    for e in experts:
                        shown = [*rounds, made] if made else rounds
                        made.append(await self.statement(number, members, e, r, shown, bool(made)))
            rounds.append(list(made))
        return rounds

    async def group(self, number: int, members: tuple[str, ...]) -> Group:
        opts = self.opts
        assert opts is not None
        q = self.q
        async with self.rt.span(f"group {number}"):
            if opts.decider == "single":
                prompt = compose(q.opening, q.block(members), prompts.decide(self.k))
                async with self.rt.span("decider"):
                    decision = await self.decide(
                        f"group {number} decider", "decide", 0, members, prompt, ()
                    )
                rounds: list[list[Statement]] = []
            else:
                rounds = await self.debate(number, members)
                record = prompts.debate_record(
                    [[(s.expert, s.text) for s in statements] for statements in rounds]
                )
                prompt = compose(
                    q.opening, q.block(members), record, prompts.senior(opts.agents, self.k)
                )
                final = [s.picks for s in rounds[-1]]
                async with self.rt.span("senior"):
                    decision = await self.decide(
                        f"group {number} senior",
                        "senior",
                        opts.debate_rounds + 1,
                        members,
                        prompt,
                        final,
                    )
            group = Group(number, members, tuple(s for r in rounds for s in r), decision)
            self.rt.info(f"group {number} decision", self.group_markdown(group, opts))
        return group

    def answers(self, group: Group, decider_round: int) -> list[AgentAnswer]:
        """The group's replies as the debate's answers: expert rounds from 1 (the paper's round
        0), the decider's after them."""
        out = [
            _answer(
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
            _answer(d.agent, decider_round, shown, d.parsed, self.k, self.rank, len(d.replies))
        )
        return out

    # -- what a person reads in the viewer --------------------------------------------------------

    def shown(self, ids: Sequence[str]) -> str:
        return ", ".join(self.q.labels[c] for c in ids) or "–"

    def group_markdown(self, group: Group, opts: PD3Options) -> str:
        d = group.decision
        parts = [f"**Group {group.number}**: {len(group.members)} candidates"]
        if group.statements:
            rounds = range(opts.debate_rounds + 1)
            rows = [
                (
                    f"Expert {e}",
                    *(
                        self.shown(s.picks[: self.k])
                        for r in rounds
                        for s in group.statements
                        if s.expert == e and s.round == r
                    ),
                )
                for e in range(1, opts.agents + 1)
            ]
            head = ["expert", *(f"round {r}" for r in rounds)]
            parts.append(
                f"{report.table(head, rows)}\n\nEach expert's picks as its text names them "
                f"(labels, the first {self.k} in order of mention; the experts write no list)."
            )
        parts.append(self.decision_markdown(d))
        return "\n\n".join(parts)

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
            f"{report.table(['rank', 'label', 'id', 'from'], rows, right={0})}\n\n{note}."
        )


RULES = {
    "votes": "no tie in votes reached the k-th place",
    "rank_points": "a tie in votes at the k-th place, settled by rank points",
    "initial_picks": "a tie in votes and rank points at the k-th place, settled by the experts' "
    "round-0 picks",
    "prelim_rank": "a tie in votes, rank points and round-0 picks at the k-th place, settled by "
    "the preliminary order",
}


def _candidates_markdown(
    q: _Query, sets: Sequence[Sequence[str]], titles: Mapping[str, str]
) -> str:
    set_of = {c: i for i, s in enumerate(sets, 1) for c in s}
    cut = {c.id for c in q.cuts}
    rows = [
        (q.labels[c], c, i, set_of.get(c, "–"), "yes" if c in cut else "", titles[c])
        for i, c in enumerate(q.order, 1)
    ]
    head = ["label", "id", "prelim", "set", "cut", "title"]
    return (
        f"**Candidates** ({len(rows)})\n\n{report.table(head, rows, right={2, 3})}\n\n"
        "label: what the prompts show instead of the id; prelim: the preliminary order (the "
        "order the candidates came in, the last tie-break); set: the partition's set; cut: the "
        "text was cut to the candidate_tokens budget."
    )


def _groups_markdown(
    q: _Query, sets: Sequence[Sequence[str]], made: Sequence[Sequence[str]]
) -> str:
    set_of = {c: i for i, s in enumerate(sets, 1) for c in s}
    rows = [
        (
            n,
            ", ".join(str(s) for s in dict.fromkeys(set_of[c] for c in g)),
            " ".join(q.labels[c] for c in g),
        )
        for n, g in enumerate(made, 1)
    ]
    per = {c: sum(c in g for g in made) for c in q.order}
    low, high = min(per.values()), max(per.values())
    each = (
        f"each candidate is in {low} group{'s' * (low != 1)}"
        if low == high
        else f"candidates are in {low} to {high} groups"
    )
    shown = report.table(["group", "sets", "members"], rows, right={0})
    return (
        f"**Groups** ({len(made)}; {each})\n\n{shown}\n\nsets: the partition's sets the members "
        "come from; members: labels, in partition order."
    )


def _vote_markdown(
    q: _Query,
    top: Sequence[str],
    votes: Mapping[str, int],
    points: Mapping[str, int],
    initial: Mapping[str, int],
    rule: str,
    groups_: int,
) -> str:
    place = {c: i for i, c in enumerate(top, 1)}
    rows = [
        (q.labels[c], c, votes.get(c, 0), points.get(c, 0), initial.get(c, 0), i, place.get(c, ""))
        for i, c in enumerate(q.order, 1)
    ]
    head = ["label", "id", "votes", "points", "initial", "prelim", "chosen"]
    k = len(top)
    return (
        f"**Vote** over {groups_} group decisions → {', '.join(q.labels[c] for c in top)}\n\n"
        f"{report.table(head, rows, right={2, 3, 4, 5, 6})}\n\n"
        f"votes: the group decisions holding the candidate; points: rank points ({k} for a "
        f"decision's first, 1 for its {k}-th), the first tie-break; initial: the experts' "
        "round-0 picks of it, the second; prelim: the preliminary order, the last; chosen: its "
        f"place in the result. Decided: {RULES.get(rule, rule)} (rule `{rule}`)."
    )


def _result(
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


async def pd3(
    session: Session, query: Project, candidates: Sequence[Project], opts: PD3Options
) -> DebateResult:
    """PD³'s retrieval for `query` (its id names it; its text is the session's question) among
    `candidates`, in their preliminary order: the top_k candidate ids, as `[RESULT] id, ...`."""
    opts.check_candidates(len(candidates))
    seed = query_seed(opts.seed, query.id)
    q = _prepare(session, query, candidates, opts, seed)
    rt = session.runtime
    sets = partition(q.order, opts.set_size, seed + 1)
    made = groups(sets, opts.group_size, opts.grouping, seed + 2)
    titles = {c.id: c.title for c in candidates}
    rt.info("candidates", _candidates_markdown(q, sets, titles))
    rt.info("groups", _groups_markdown(q, sets, made))
    run = _Run(session, q, opts.top_k, opts)
    done = await rt.gather(*(run.group(n, members) for n, members in enumerate(made, 1)))
    initial: dict[str, int] = {}
    for g in done:
        for s in g.statements:
            if s.round == 0:
                for c in s.picks[: opts.top_k]:
                    initial[c] = initial.get(c, 0) + 1
    async with rt.span("vote"):
        outcome = vote([g.decision.picks for g in done], opts.top_k, None, initial, q.order)
        rt.info(
            "vote",
            _vote_markdown(
                q, outcome.top, outcome.votes, outcome.points, initial, outcome.rule, len(done)
            ),
        )
    variant = "llm_voting" if opts.decider == "single" else "pd3"
    decider_round = 1 if opts.decider == "single" else opts.debate_rounds + 2
    record = PD3Record(
        variant=variant,
        query=query.id,
        k=opts.top_k,
        seed=seed,
        order=q.order,
        labels=q.labels,
        partition=list(sets),
        groups=done,
        votes=outcome.votes,
        points=outcome.points,
        initial=initial,
        rule=outcome.rule,
        top=outcome.top,
        cuts=q.cuts,
        query_cut=q.query_cut,
    )
    answers = [a for g in done for a in run.answers(g, decider_round)]
    return _result(session, variant, record, answers, opts.record())


async def listwise(
    session: Session, query: Project, candidates: Sequence[Project], opts: ListwiseOptions
) -> DebateResult:
    """The list-wise baseline: one call chooses the top_k among all candidates, shown in their
    preliminary order; a short list is filled in that order."""
    opts.check_candidates(len(candidates))
    seed = query_seed(opts.seed, query.id)
    q = _prepare(session, query, candidates, opts, seed)
    run = _Run(session, q, opts.top_k, None)
    prompt = compose(q.opening, q.block(q.order), prompts.decide(opts.top_k))
    async with session.runtime.span("listwise"):
        decision = await run.decide("listwise", "listwise", 0, q.order, prompt, ())
        session.runtime.info("decision", run.decision_markdown(decision))
    group = Group(1, q.order, (), decision)
    outcome = vote([decision.picks], opts.top_k, None, None, q.order)
    record = PD3Record(
        variant="listwise",
        query=query.id,
        k=opts.top_k,
        seed=seed,
        order=q.order,
        labels=q.labels,
        groups=[group],
        votes=outcome.votes,
        points=outcome.points,
        rule=outcome.rule,
        top=outcome.top,
        cuts=q.cuts,
        query_cut=q.query_cut,
    )
    return _result(session, "listwise", record, run.answers(group, 1), opts.record())


def lexical_scores(query: Project, candidates: Sequence[Project]) -> list[float]:
    """Each candidate's BM25 score against the query (title and text, whole), in the
    candidates' order."""
    texts = [_full(c) for c in candidates]
    found = LexicalRetriever(texts, 0).search(_full(query), len(texts))
    by_text = {e.text: e.score for e in found}  # the retriever indexes equal texts once
    return [by_text.get(t, 0.0) for t in texts]


def lexical_top_k(query: Project, candidates: Sequence[Project], k: int) -> tuple[str, ...]:
    """The k candidates of highest BM25 score (bm25s, as Tree-of-Debate's retriever: lower-cased
    words, English stop words), ties in the candidates' order."""
    scores = lexical_scores(query, candidates)
    order = sorted(range(len(candidates)), key=lambda i: (-scores[i], i))
    return tuple(candidates[i].id for i in order[:k])


async def lexical(
    session: Session, query: Project, candidates: Sequence[Project], k: int
) -> DebateResult:
    """The lexical floor: `lexical_top_k`, no model call."""
    if not 1 <= k <= len(candidates):
        raise OptionError(
            "top_k", k, f"an integer from 1 to the number of candidates ({len(candidates)})"
        )
    scores = lexical_scores(query, candidates)
    top = lexical_top_k(query, candidates, k)
    place = {c: i for i, c in enumerate(top, 1)}
    rows = [
        (c.id, i, f"{s:.3f}", place.get(c.id, ""))
        for i, (c, s) in enumerate(zip(candidates, scores), 1)
    ]
    session.runtime.info(
        "bm25",
        f"**BM25** (no model call)\n\n"
        f"{report.table(['id', 'prelim', 'score', 'chosen'], rows, right={1, 2, 3})}\n\n"
        "score: BM25 of the candidate's title and text against the query's; ties go to the "
        "preliminary order.",
    )
    record = PD3Record(
        variant="lexical",
        query=query.id,
        k=k,
        seed=0,
        order=tuple(c.id for c in candidates),
        top=top,
        scores={c.id: s for c, s in zip(candidates, scores)},
    )
    return _result(session, "lexical", record, [], {"top_k": k})


# -- the feedback module -------------------------------------------------------------------------

Side = tuple[Project | None, Sequence[Project]]  # a query (None: the question) and its references


def _text(reply: str) -> str | None:
    return reply.strip() or None


async def feedback(
    session: Session,
    query: Project | None,
    references: Sequence[Project],
    opts: FeedbackOptions,
    side: str = "",
) -> FeedbackResult:
    """The duplication score of `query` against its `references` (spec 1.6): the similarity
    conclusion (`conclusion`), then `samples` judge calls at once, each read by `read_score`;
    the mean of the readable scores. `query` None: the session's question is the project under
    detection; else the question is shown as the task, then the query's view. `side` ("A", "B")
    prefixes the agents' names, so a pair's two sides never share a cache scope or seed."""
    rt = session.runtime
    prefix = f"{side} " if side else ""
    question, chars, shown = prompts.question_view(session.problem.question, opts.query_tokens)
    cuts = []
    if shown < chars:
        cuts.append(Cut(query.id if query else "", chars, shown))
    view = None
    if query is not None:
        view, cut = project_view(query, opts.query_tokens)
        if cut:
            cuts.append(Cut(query.id, len(_full(query)), len(view)))
    refs = []
    for r in references:
        ref, cut = project_view(r, opts.candidate_tokens)
        refs.append(ref)
        if cut:
            cuts.append(Cut(r.id, len(_full(r)), len(ref)))
    ids = tuple(r.id for r in references)
    opening = prompts.feedback_opening(question, view, refs, opts.domain)
    conclusion = None
    if opts.conclusion:
        async with rt.span("conclusion"):
            written = await session.ask(
                f"{prefix}conclusion",
                "feedback",
                [Msg("user", compose(opening, prompts.CONCLUSION))],
                "conclusion",
                0,
                _text,
                prompts.CONCLUSION_REMINDER,
                asks=ConclusionRequest(ids),
            )
        conclusion = written.value
    prompt = compose(opening, prompts.judge(conclusion))
    async with rt.span("scores"):
        judged = await rt.gather(
            *(
                session.ask(
                    f"{prefix}judge {i}",
                    "feedback",
                    [Msg("user", prompt)],
                    f"score {i}",
                    0,
                    read_score,
                    prompts.SCORE_REMINDER,
                    asks=DuplicationRequest(ids),
                )
                for i in range(1, opts.samples + 1)
            )
        )
        scores = tuple(a.value for a in judged)
        readable = [s for s in scores if s is not None]
        mean = statistics.fmean(readable) if readable else None
        rt.info(f"{prefix}scores", _scores_markdown(prefix, scores, judged, mean, conclusion))
    return FeedbackResult(
        side=side,
        query=query.id if query else "",
        references=ids,
        conclusion=conclusion,
        replies=tuple(tuple(a.replies) for a in judged),
        scores=scores,
        mean=mean,
        cuts=tuple(cuts),
    )


def _scores_markdown(
    prefix: str,
    scores: Sequence[int | None],
    judged: Sequence[Any],
    mean: float | None,
    conclusion: str | None,
) -> str:
    rows = [
        (f"{prefix}judge {i}", "unreadable" if s is None else s, len(a.replies))
        for i, (s, a) in enumerate(zip(scores, judged), 1)
    ]
    result = "no readable score" if mean is None else f"{mean:.2f}"
    shown = "with" if conclusion else "without"
    return (
        f"**Duplication score** → **{result}** (judges {shown} a similarity conclusion)\n\n"
        f"{report.table(['judge', 'score', 'attempts'], rows, right={1, 2})}\n\n"
        "The score is the mean of the readable scores (1 to 10); an unreadable one is left out, "
        "never counted as any score. attempts: 1 + the follow-ups asking for a readable score."
    )


def predict(a: float | None, b: float | None) -> str | None:
    """The pair's prediction: the side with the higher mean score, "tie" when equal; None when
    a side has no readable score (no prediction is guessed)."""
    if a is None or b is None:
        return None
    return "A" if a > b else "B" if b > a else "tie"


async def feedback_pair(session: Session, a: Side, b: Side, opts: FeedbackOptions) -> DebateResult:
    """Task 2: which of two queries its references duplicate more, each side scored by
    `feedback` (at once, each in its span); the final answer "A", "B" or "tie"."""
    rt = session.runtime

    async def one(side: str, query: Project | None, refs: Sequence[Project]) -> FeedbackResult:
        async with rt.span(f"side {side}"):
            return await feedback(session, query, refs, opts, side)

    sides = await rt.gather(one("A", *a), one("B", *b))
    prediction = predict(sides[0].mean, sides[1].mean)
    means = ", ".join(
        f"{s.side} {'unreadable' if s.mean is None else f'{s.mean:.2f}'}" for s in sides
    )
    rt.info(
        "prediction",
        f"**Prediction** → **{prediction or 'none'}** ({means})\n\nThe side with the higher mean "
        "duplication score; equal means: tie; a side without a readable score: no prediction.",
    )
    answers = [
        AgentAnswer(
            f"{s.side} judge {i}",
            1,
            replies[0] if len(replies) == 1 else f"{replies[0]}\n\n{replies[-1]}",
            None if score is None else str(score),
            len(replies),
        )
        for s in sides
        for i, (replies, score) in enumerate(zip(s.replies, s.scores), 1)
    ]
    return DebateResult(
        method="pd3_feedback",
        final=prediction,
        answers=answers,
        calls=session.calls,
        options=opts.record(),
        record=FeedbackRecord(list(sides), prediction),
    )

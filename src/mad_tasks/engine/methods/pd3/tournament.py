"""PD³ (seed 000): project duplication detection by a round-robin tournament of debates.

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
   `decider` single is the LLM-voting ablation: one call per group decides alone. Under `-S
   peers=self|noise` (engine/peers.py) a debating expert reads only its own earlier statements,
   or the other experts' as noise of their length; the senior reads the debate as it was.
3. The group decisions vote: a candidate's votes are the groups whose decision holds it, the
   top_k most voted win, ties broken by rank points, then the experts' round-0 picks, then the
   preliminary order (protocols/pd3.py `vote`, which names the rule that settled the k-th place).
   A limit of the run (or `-S budget`) ends the groups still debating: the finished groups vote
   (none finished: no answer), and the record says how many finished.
`grouping` traversal is the paper's Traversal ablation (Table 7): the groups run one after
another, each the previous decision's top_k and the next group_size - top_k candidates of the
partition's order; the last decision is the result (a limit: the last finished one's).

Calls per query, without follow-ups: groups × (agents × (1 + debate_rounds) + 1); the defaults
(30 candidates, sets of 5, groups of 20, round robin: 15 groups) 15 × 10 = 150, at debate_rounds 3
195; LLM voting 15. The preliminary order is the order the candidates come in (the dataset's).

The list-wise and lexical baselines are in `baselines.py`, the feedback module in
`feedback.py`; what they share for a query in `query.py`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ... import viewer_text
from ...content import Msg, compose
from ...limits import LimitReached, stop_at
from ...peers import Peers
from ...protocols.pd3 import groups, partition, read_picks, traversal, vote
from ...records import DebateResult
from ...requests import PicksRequest
from ...session import Session
from ...spec import MethodSpec, members
from . import prompts
from .options import PD3Options
from .query import Decider, Query, Retrieval, prepare_query, query_seed, result_of
from .records import Group, PD3Record, Project, Statement


class Tournament(Decider):
    """One query's tournament in progress: its groups' debates and decisions."""

    def __init__(self, session: Session, q: Query, opts: PD3Options) -> None:
        super().__init__(session, q, opts.top_k)
        self.opts = opts
        self.view = Peers(opts.peers, session.problem.question.text)

    def record(
        self, number: int, expert: int, shown: Sequence[Sequence[Statement]], current: bool
    ) -> str:
        """The debate record `shown` as expert `expert` of group `number` reads it under `-S
        peers`: `others` every statement; `self` its own statements of the finished rounds only;
        `noise` every other expert's statement as noise of its length, in its place."""
        if self.view.condition == "self":
            finished = shown[:-1] if current else shown  # it has no statement in the current round
            own = [
                [(s.expert, s.text) for s in statements if s.expert == expert]
                for statements in finished
            ]
            return prompts.debate_record(own)

        def read(s: Statement) -> str:  # the record shows a statement stripped
            if s.expert == expert:
                return s.text
            return self.view.text(s.text.strip(), f"group {number} expert {s.expert}", s.round)

        return prompts.debate_record([[(s.expert, read(s)) for s in r] for r in shown], current)

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
        if round == 0:
            ask = prompts.initial(expert, opts.agents, self.k, opts.reasoning)
        else:
            ask = prompts.debate(
                expert, opts.agents, self.k, round, opts.debate_rounds, opts.extra_asks,
                opts.reasoning, opts.neutrality,
            )  # fmt: skip
        record = self.record(number, expert, shown, current)
        labels_shown = self.labels_of(members)
        reply = await self.session.call(
            f"group {number} expert {expert}",
            f"expert_{expert}",  # a member of the `expert` panel
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
        q = self.q
        async with self.rt.span(f"group {number}"):
            if opts.decider == "single":
                # the group's one call: its agent's span (`group N decider`) is its only stage
                prompt = compose(q.opening, q.block(members), prompts.decide(self.k))
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
                    q.opening,
                    q.block(members),
                    record,
                    prompts.senior(opts.agents, self.k, opts.extra_asks, opts.neutrality),
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

    async def traverse(
        self, chunks: Sequence[tuple[str, ...]], order: Sequence[str]
    ) -> tuple[list[Group], LimitReached | None]:
        """The traversal ablation: one group after another, each the previous decision's picks
        and the next new candidates, in partition order; a limit ends it, the finished kept."""
        done: list[Group] = []
        for number, new in enumerate(chunks, 1):
            kept = set(done[-1].decision.picks if done else ()) | set(new)
            try:
                done.append(await self.group(number, tuple(c for c in order if c in kept)))
            except LimitReached as limit:
                return done, limit
        return done, None

    def group_markdown(self, group: Group, opts: PD3Options) -> str:
        d = group.decision
        parts = [f"**Group {group.number}**: {len(group.members)} candidates"]
        if group.statements:
            rounds = range(opts.debate_rounds + 1)
            rows = [
                (
                    f"Expert {e}"
                    + (f" ({way})" if (way := prompts.way_of(e, opts.reasoning)) else ""),
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
            roles = {row[0]: f"expert_{e}" for e, row in enumerate(rows, 1)}
            models = viewer_text.agent_models(roles, self.rt.model_name)
            parts.append(
                f"{viewer_text.agent_table(head, rows, (), models)}\n\nEach expert's picks as its text names them "
                f"(labels, the first {self.k} in order of mention; the experts write no list)."
            )
        parts.append(self.decision_markdown(d))
        return "\n\n".join(parts)


RULES = {
    "votes": "no tie in votes reached the k-th place",
    "rank_points": "a tie in votes at the k-th place, settled by rank points",
    "initial_picks": "a tie in votes and rank points at the k-th place, settled by the experts' "
    "round-0 picks",
    "prelim_rank": "a tie in votes, rank points and round-0 picks at the k-th place, settled by "
    "the preliminary order",
}


def _candidates_markdown(q: Query, sets: Sequence[Sequence[str]], titles: Mapping[str, str]) -> str:
    set_of = {c: i for i, s in enumerate(sets, 1) for c in s}
    cut = {c.id for c in q.cuts}
    rows = [
        (q.labels[c], c, i, set_of.get(c, "–"), "yes" if c in cut else "", titles[c])
        for i, c in enumerate(q.order, 1)
    ]
    head = ["label", "id", "prelim", "set", "cut", "title"]
    return (
        f"**Candidates** ({len(rows)})\n\n{viewer_text.table(head, rows, right={2, 3})}\n\n"
        "label: what the prompts show instead of the id; prelim: the preliminary order (the "
        "order the candidates came in, the last tie-break); set: the partition's set; cut: the "
        "text was cut to the candidate_tokens budget."
    )


def _groups_markdown(q: Query, sets: Sequence[Sequence[str]], made: Sequence[Sequence[str]]) -> str:
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
    shown = viewer_text.table(["group", "sets", "members"], rows, right={0})
    return (
        f"**Groups** ({len(made)}; {each})\n\n{shown}\n\nsets: the partition's sets the members "
        "come from; members: labels, in partition order."
    )


def _vote_markdown(
    q: Query,
    top: Sequence[str],
    votes: Mapping[str, int],
    points: Mapping[str, int],
    initial: Mapping[str, int],
    rule: str,
    deciding: Sequence[Group],
) -> str:
    place = {c: i for i, c in enumerate(top, 1)}
    rows = [
        (q.labels[c], c, votes.get(c, 0), points.get(c, 0), initial.get(c, 0), i, place.get(c, ""))
        for i, c in enumerate(q.order, 1)
    ]
    head = ["label", "id", "votes", "points", "initial", "prelim", "chosen"]
    k = len(top)
    return (
        f"**Vote** over {_decisions(deciding)} → {', '.join(q.labels[c] for c in top)}\n\n"
        f"{viewer_text.table(head, rows, right={2, 3, 4, 5, 6})}\n\n"
        f"votes: the group decisions holding the candidate; points: rank points ({k} for a "
        f"decision's first, 1 for its {k}-th), the first tie-break; initial: the experts' "
        "round-0 picks of it, the second; prelim: the preliminary order, the last; chosen: its "
        f"place in the result. Decided: {RULES.get(rule, rule)} (rule `{rule}`)."
    )


def _decisions(deciding: Sequence[Group]) -> str:
    if len(deciding) == 1:
        return f"one group decision (group {deciding[0].number})"
    return f"{len(deciding)} group decisions"


def _traversal_markdown(q: Query, chunks: Sequence[Sequence[str]], k: int) -> str:
    rows = [(n, len(c), " ".join(q.labels[x] for x in c)) for n, c in enumerate(chunks, 1)]
    shown = viewer_text.table(["group", "new", "new members"], rows, right={0, 1})
    return (
        f"**Groups** ({len(chunks)}, one after another: grouping traversal)\n\n{shown}\n\n"
        f"Each group after the first is the previous group's {k} picks and its new members "
        "(labels, in partition order); the last group's decision is the result."
    )


async def pd3(
    session: Session, query: Project, candidates: Sequence[Project], opts: PD3Options
) -> DebateResult:
    """PD³'s retrieval for `query` (its id names it; its text is the session's question) among
    `candidates`, in their preliminary order: the top_k candidate ids, as `[RESULT] id, ...`."""
    opts.check_candidates(len(candidates))
    seed = query_seed(opts.seed, query.id)
    q = prepare_query(session, query, candidates, opts, seed)
    rt = session.runtime
    # traversal takes the candidates in the partition's seeded order and makes no sets
    set_size = 1 if opts.grouping == "traversal" else opts.set_size
    sets = partition(q.order, set_size, seed + 1)
    titles = {c.id: c.title for c in candidates}
    rt.info("candidates", _candidates_markdown(q, sets, titles))
    run = Tournament(session, q, opts)
    limits: list[LimitReached] = []
    if opts.grouping == "traversal":
        order = [c for s in sets for c in s]
        chunks = traversal(order, opts.group_size, opts.top_k)
        rt.info("groups", _traversal_markdown(q, chunks, opts.top_k))
        done, limit = await run.traverse(chunks, order)
        limits += [limit] if limit else []
        planned, deciding = len(chunks), done[-1:]  # the last decision is the result
    else:
        made = groups(sets, opts.group_size, opts.grouping, seed + 2)
        rt.info("groups", _groups_markdown(q, sets, made))

        async def group(number: int, members: tuple[str, ...]) -> Group | None:
            try:
                return await run.group(number, members)
            except LimitReached as limit:  # the finished groups decide
                limits.append(limit)
                return None

        ran = await rt.gather(*(group(n, members) for n, members in enumerate(made, 1)))
        done = [g for g in ran if g is not None]
        planned, deciding = len(made), done
    variant = "llm_voting" if opts.decider == "single" else "pd3"
    if limits and not done:  # no group finished: no answer
        nothing = DebateResult(variant, None, [], session.calls, options=opts.record())
        where = f"the groups (0 of {planned} finished)"
        return stop_at(nothing, limits[0], where, "no answer: no group finished")
    initial: dict[str, int] = {}
    for g in done:
        for s in g.statements:
            if s.round == 0:
                for c in s.picks[: opts.top_k]:
                    initial[c] = initial.get(c, 0) + 1
    async with rt.span("vote"):
        outcome = vote([g.decision.picks for g in deciding], opts.top_k, None, initial, q.order)
        rt.info(
            "vote",
            _vote_markdown(
                q, outcome.top, outcome.votes, outcome.points, initial, outcome.rule, deciding
            ),
        )
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
    result = result_of(session, variant, record, answers, opts.record())
    where = f"the groups ({len(done)} of {planned} finished)"
    decided = "the last finished group" if opts.grouping == "traversal" else "the finished groups"
    return stop_at(result, limits[0] if limits else None, where, f"the vote of {decided}")


SPECS = (
    MethodSpec(
        "pd3",
        "PD³: candidates in sets, groups of sets debated by experts and decided by a senior, the "
        "groups' decisions voted into the top k.",
        PD3Options,
        lambda o, setup: lambda s, r: pd3(s, r.query, r.candidates, o),
        reads=Retrieval,
        roles=lambda o: (*members("expert", o.agents), "senior"),
    ),
    MethodSpec(
        "llm_voting",
        "PD³'s LLM-voting ablation: the same groups, each decided by one call, then the vote.",
        PD3Options,
        lambda o, setup: lambda s, r: pd3(s, r.query, r.candidates, o),
        reads=Retrieval,
        groups=("",),  # not the debate's options (`peers`): its groups do not debate
        preset={"decider": "single", "agents": 1, "debate_rounds": 0},
        roles=lambda o: ("senior",),
    ),
)

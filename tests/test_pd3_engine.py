"""PD³'s engine on a scripted runtime: exact call counts (150 at two debate rounds, 195 at three, 10
per group), an oracle policy that returns exactly the gold set, who sees what in simultaneous and
sequential rounds, anonymous labels and cut texts in the prompts, every fallback of a decision, the
LLM-voting ablation, the list-wise and lexical baselines, the feedback module, seed stability,
spans, events, option checks and the record.

Replies are chosen by `call.asks` (the PicksRequest's ids and labels) and the call's agent and
round, never by call order."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from scripted import ScriptedRuntime, family, recorded, transcript_text

from mad_tasks.engine.answers import FreeText
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.embeddings import HashingEmbedder
from mad_tasks.engine.limits import within_limits
from mad_tasks.engine.methods.pd3 import prompts as pd3_prompts
from mad_tasks.engine.methods.pd3.baselines import (
    dense,
    lexical,
    lexical_top_k,
    listwise,
    pointwise,
    random_k,
    reranker,
    rouge,
)
from mad_tasks.engine.methods.pd3.feedback import SidePair, feedback, feedback_pair, predict
from mad_tasks.engine.methods.pd3.options import (
    MAX_GROUPS,
    MAX_QUERY_CALLS,
    FeedbackOptions,
    ListwiseOptions,
    PD3Options,
    PointwiseOptions,
)
from mad_tasks.engine.methods.pd3.prompts import project_view
from mad_tasks.engine.methods.pd3.query import full_text, result_line
from mad_tasks.engine.methods.pd3.records import FeedbackRecord, PD3Record, Project
from mad_tasks.engine.methods.pd3.tournament import pd3
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import ConclusionRequest, DuplicationRequest, PicksRequest
from mad_tasks.engine.runtime import Call, LimitReached
from mad_tasks.engine.session import Problem, Session
from mad_tasks.tasks._pd3_data import PAIR_PROMPT

N = 30
IDS = tuple(f"corpus-{i:02d}" for i in range(N))
GOLD = ("corpus-03", "corpus-08", "corpus-14", "corpus-21", "corpus-27")
CANDIDATES = [
    Project(c, f"Candidate project {i}", f"Grid sensing work number {i}, on topic t{i}.")
    for i, c in enumerate(IDS)
]
QUERY_TEXT = "Query project\nA new project on grid sensing and fault location."
QUERY = Project("query-1", "Query project", "A new project on grid sensing and fault location.")
UNREADABLE = "I would rather not give a list."
MARK = re.compile(r"<g(\d+) e(\d+) r(\d+)>")


def oracle(asks: PicksRequest) -> list[str]:
    """The group's ids, gold first (in the order shown), then the others in an order that differs
    from group to group, so that no filler gathers the votes of every group it is in."""
    members = "|".join(asks.ids)
    others = sorted(
        (c for c in asks.ids if c not in GOLD),
        key=lambda c: hashlib.sha256(f"{c}/{members}".encode()).hexdigest(),
    )
    return [c for c in asks.ids if c in GOLD] + others


def labelled(asks: PicksRequest, ids: list[str]) -> str:
    return ", ".join(asks.labels[asks.ids.index(c)] for c in ids)


def where(call: Call) -> tuple[int, int]:
    """(group, expert) of an expert's call, from its agent "group 3 expert 2"."""
    words = call.agent.split()
    return int(words[1]), int(words[3])


@dataclass
class Script:
    """Replies by request. `senior(call)`: the ids the decider lists, None for an unreadable
    reply (default: the oracle's first k); `expert(call)`: the ids an expert names (default the
    oracle's first k), None for a statement without labels."""

    senior: Callable[[Call], list[str] | None] | None = None
    expert: Callable[[Call], list[str] | None] | None = None

    def __call__(self, call: Call) -> str:
        asks = call.asks
        assert isinstance(asks, PicksRequest), asks
        if asks.final:
            ids = self.senior(call) if self.senior else oracle(asks)[: asks.k]
            if ids is None:
                return UNREADABLE
            return f"The experts mostly agree.\n[RESULT] {labelled(asks, ids)}"
        group, expert = where(call)
        ids = self.expert(call) if self.expert else oracle(asks)[: asks.k]
        mark = f"<g{group} e{expert} r{asks.round}>"
        if ids is None:
            return f"{mark} I have no view yet."
        return f"{mark} I select {labelled(asks, ids)}, as they overlap most with the query."


def session_for(rt: ScriptedRuntime, question: str = QUERY_TEXT, retries: int = 1) -> Session:
    """A session as the solver makes it: the retries are the options' (PD³: 1)."""
    return Session(rt, Problem(question=Question.of([question]), fmt=FreeText()), retries=retries)


def run(
    script: Callable[[Call], str] | None = None,
    opts: PD3Options | None = None,
    candidates: list[Project] | None = None,
    query: Project = QUERY,
    question: str = QUERY_TEXT,
) -> tuple[DebateResult, ScriptedRuntime]:
    rt = ScriptedRuntime(script or Script())
    result = asyncio.run(
        pd3(session_for(rt, question), query, candidates or CANDIDATES, opts or PD3Options())
    )
    return result, rt


def record_of(result: DebateResult) -> PD3Record:
    assert isinstance(result.record, PD3Record)
    return result.record


def text(call: Call) -> str:
    return transcript_text(call)


def by_group(rt: ScriptedRuntime) -> Counter[int]:
    return Counter(int(c.agent.split()[1]) for c in rt.calls)


# -- calls per query ---------------------------------------------------------------------------------


def test_defaults_make_15_groups_of_10_calls() -> None:
    result, rt = run()
    record = record_of(result)
    assert len(rt.calls) == len(result.calls) == 150
    assert by_group(rt) == dict.fromkeys(range(1, 16), 10)
    # per group: 3 experts in rounds 0, 1, 2 and one senior, each call its own cache scope; expert
    # e on its own member of the experts' panel
    experts = {(f"expert_{e}", f"round {r}", r): 15 for e in (1, 2, 3) for r in (0, 1, 2)}
    assert Counter((c.role, c.purpose, c.round) for c in rt.calls) == {
        **experts,
        ("senior", "senior", 3): 15,
    }
    assert len({(c.agent, c.purpose, c.round, c.attempt) for c in rt.calls}) == 150
    assert {c.agent for c in rt.calls if c.role == "senior"} == {
        f"group {g} senior" for g in range(1, 16)
    }
    # 6 sets of 5; 15 groups of 20; each candidate in 10 groups
    assert [len(s) for s in record.partition] == [5] * 6
    assert sorted(c for s in record.partition for c in s) == sorted(IDS)
    assert [len(g.members) for g in record.groups] == [20] * 15
    assert Counter(c for g in record.groups for c in g.members) == dict.fromkeys(IDS, 10)
    assert record.stats() == {
        "groups": 15,
        "calls_per_group": 10.0,
        "fallbacks": 0,
        "filled": 0,
        "unreadable": 0,
        "boundary_tie": 0,
        "kth_votes": 10,
        "truncated": 0,
    }
    assert result.method == "pd3" and record.variant == "pd3"
    assert result.options == PD3Options().record()


def test_three_debate_rounds_make_195_calls() -> None:
    result, rt = run(opts=PD3Options(debate_rounds=3))
    assert len(rt.calls) == 195
    assert by_group(rt) == dict.fromkeys(range(1, 16), 13)
    assert {c.round for c in rt.calls if c.role == "senior"} == {4}
    assert record_of(result).stats()["calls_per_group"] == 13.0


@pytest.mark.parametrize(("group_size", "groups"), [(10, 15), (15, 20), (20, 15), (25, 6), (30, 1)])
def test_group_size_sets_the_groups_and_calls(group_size: int, groups: int) -> None:
    result, rt = run(opts=PD3Options(group_size=group_size))
    record = record_of(result)
    assert len(record.groups) == groups and len(rt.calls) == 10 * groups
    assert {len(g.members) for g in record.groups} == {group_size}


def test_the_oracle_returns_exactly_the_gold_set() -> None:
    result, _ = run()
    record = record_of(result)
    assert set(record.top) == set(GOLD)
    assert result.final == result_line(record.top)
    assert result.final.startswith("[RESULT] ") and all(g in result.final for g in GOLD)
    assert {c: record.votes[c] for c in GOLD} == dict.fromkeys(GOLD, 10)
    assert max(v for c, v in record.votes.items() if c not in GOLD) < 10
    assert record.rule == "votes"
    # each expert named the gold in its group first, every round: 3 x 10 round-0 picks each
    assert {c: record.initial[c] for c in GOLD} == dict.fromkeys(GOLD, 30)
    # answers: expert rounds numbered from 1, the senior's after them; the decisions were read
    assert {a.round for a in result.answers} == {1, 2, 3, 4}
    assert result.rounds == 4 and len(result.answers) == 150
    assert all(a.answer is not None for a in result.answers)
    assert result.answer_changes() == 0


# -- who sees what -------------------------------------------------------------------------------


def marks(call: Call) -> set[tuple[int, int, int]]:
    """The statements (group, expert, round) a call's prompt shows."""
    return {tuple(map(int, m)) for m in MARK.findall(text(call))}  # type: ignore[misc]


def expert_calls(rt: ScriptedRuntime) -> list[Call]:
    return [c for c in rt.calls if family(c.role) == "expert"]


def test_simultaneous_rounds_see_the_earlier_rounds_of_their_group_only() -> None:
    _, rt = run()
    for call in expert_calls(rt):
        group, _ = where(call)
        r = call.round
        assert marks(call) == {(group, e, s) for e in (1, 2, 3) for s in range(r)}
    for call in rt.calls:
        if call.role == "senior":
            group = int(call.agent.split()[1])
            assert marks(call) == {(group, e, s) for e in (1, 2, 3) for s in range(3)}


def test_sequential_rounds_also_see_the_earlier_experts_of_the_round() -> None:
    _, rt = run(opts=PD3Options(visibility="sequential"))
    assert len(rt.calls) == 150
    for call in expert_calls(rt):
        group, expert = where(call)
        r = call.round
        earlier = {(group, e, s) for e in (1, 2, 3) for s in range(r)}
        same = {(group, e, r) for e in range(1, expert)} if r else set()  # round 0: alone
        assert marks(call) == earlier | same
        if same:
            assert "(this round, so far)" in text(call)
    # in a debate round the experts of a group speak one after the other
    for group in range(1, 16):
        order = [
            where(c)[1]
            for c in rt.calls
            if family(c.role) == "expert" and c.round == 2 and where(c)[0] == group
        ]
        assert order == [1, 2, 3]


def test_prompts_show_labels_never_ids_and_share_their_openings() -> None:
    result, rt = run()
    record = record_of(result)
    labels = record.labels
    assert len(set(labels.values())) == N
    assert all(re.fullmatch(r"P[1-9][0-9]{2}", label) for label in labels.values())
    opening = text(rt.calls[0])[: text(rt.calls[0]).index("Candidate projects")]
    assert "Detection criteria: " + pd3_prompts.CRITERIA in opening
    assert QUERY_TEXT in opening and "research and technology projects" in opening
    for call in rt.calls:
        shown = text(call)
        assert not any(c in shown for c in IDS)  # no corpus id
        assert shown.startswith(opening)  # every call of the query opens the same way
        asks = call.asks
        assert isinstance(asks, PicksRequest) and asks.k == 5
        group = record.groups[int(call.agent.split()[1]) - 1]
        assert asks.ids == group.members
        assert asks.labels == tuple(labels[c] for c in group.members)
        assert asks.final == (call.role == "senior") and asks.round == call.round
        # the group's candidates, in partition order, each under its label with its text
        block = pd3_prompts.candidates(
            [(labels[c], project_view(CANDIDATES[IDS.index(c)], 1024)[0]) for c in group.members]
        )
        assert shown.startswith(opening + block)
    for call in expert_calls(rt):
        _, expert = where(call)
        assert f"You are Expert {expert}, one of 3 experts" in text(call).split("\n\n")[-2]
    # the experts are told once, in round 0, to come without a prior view (the paper's placement)
    seniors = [c for c in rt.calls if c.role == "senior"]
    assert len(seniors) == 15
    for call in rt.calls:
        told = pd3_prompts.NEUTRAL in text(call).split("\n\n")[-2]
        assert told is (call.role != "senior" and call.round == 0)


def test_texts_are_cut_to_their_budgets_and_the_cuts_recorded() -> None:
    long = Project(IDS[0], "Long candidate", "word " * 5000)
    candidates = [long, *CANDIDATES[1:]]
    question = "Query project\n" + "query words " * 1000  # 12,014 characters
    result, rt = run(opts=PD3Options(candidate_tokens=100, query_tokens=500), candidates=candidates,
                     question=question)  # fmt: skip
    record = record_of(result)
    view, cut = project_view(long, 100)
    assert cut and len(view) <= 400 and view.endswith(pd3_prompts.CUT_MARK)
    assert [(c.id, c.chars, c.shown) for c in record.cuts] == [
        (IDS[0], len("Long candidate\n" + ("word " * 5000).strip()), len(view))
    ]
    assert record.query_cut is not None and record.query_cut.chars == len(question)
    assert 1600 < record.query_cut.shown <= 2000  # cut at a space near the end of the budget
    assert record.stats()["truncated"] == 1
    shown = [text(c) for c in rt.calls if IDS[0] in c.asks.ids]  # type: ignore[union-attr]
    assert shown and all(view in s and "word " * 200 not in s for s in shown)
    assert all("query words " * 200 not in text(c) for c in rt.calls)


# -- a group's decision ---------------------------------------------------------------------------


def test_unreadable_short_and_stray_decisions_are_filled_and_counted() -> None:
    def senior(call: Call) -> list[str] | None:
        asks = call.asks
        assert isinstance(asks, PicksRequest)
        group = int(call.agent.split()[1])
        if group == 1:
            return None  # unreadable, also when asked again
        if group == 2:
            return oracle(asks)[:2]  # two only
        if group == 3 and call.attempt == 0:
            return None  # readable on the follow-up
        return oracle(asks)[: asks.k]

    def expert(call: Call) -> list[str] | None:
        asks = call.asks
        assert isinstance(asks, PicksRequest)
        if where(call)[0] == 4:
            return None  # group 4's experts name no candidate
        return oracle(asks)[: asks.k]

    result, rt = run(Script(senior=senior, expert=expert))
    record = record_of(result)
    assert len(rt.calls) == 150 + 2  # the follow-ups of groups 1 and 3
    follow = [c for c in rt.calls if c.attempt == 1]
    assert {c.agent for c in follow} == {"group 1 senior", "group 3 senior"}
    assert all(pd3_prompts.reminder(5) in text(c) for c in follow)
    g1, g2, g3, g4 = record.groups[:4]
    experts_final = oracle(PicksRequest(g1.members, (), 5))[:5]
    rank = {c: i for i, c in enumerate(IDS)}
    # group 1: nothing read; all five from the experts' final picks (each named 3 times: by
    # preliminary order)
    assert g1.decision.parsed is None and len(g1.decision.replies) == 2
    assert g1.decision.picks == tuple(sorted(experts_final, key=rank.__getitem__))
    assert g1.decision.filled_from == ("experts",) * 5
    # group 2: two read, three filled from the experts' picks
    two = tuple(oracle(PicksRequest(g2.members, (), 5))[:2])
    assert g2.decision.parsed == two and g2.decision.picks[:2] == two
    assert g2.decision.filled_from == ("experts",) * 3
    # group 3: read on the follow-up
    assert g3.decision.filled_from == () and len(g3.decision.replies) == 2
    assert g3.decision.replies[0] == UNREADABLE
    # group 4: experts named nothing; the senior's list stands
    assert all(s.picks == () for s in g4.statements) and g4.decision.filled_from == ()
    stats = record.stats()
    assert (stats["fallbacks"], stats["filled"], stats["unreadable"]) == (2, 8, 1)
    assert stats["calls_per_group"] == 152 / 15
    # the unreadable decision is an abstention among the answers, the experts' empty picks too
    abstained = {a.agent for a in result.answers if a.answer is None}
    assert abstained == {"group 1 senior"} | {f"group 4 expert {e}" for e in (1, 2, 3)}
    assert "group 1 decision" in rt.info_titles()
    event = dict(rt.infos)["group 1 decision"]
    assert "no reply had a readable [RESULT] list (2 replies)" in event
    assert "the experts' final-round picks" in event


def test_a_group_without_expert_picks_fills_in_preliminary_order() -> None:
    result, _ = run(
        Script(senior=lambda call: None, expert=lambda call: None),
        PD3Options(group_size=30),
    )
    record = record_of(result)
    (group,) = record.groups
    assert group.decision.picks == IDS[:5]
    assert group.decision.filled_from == ("preliminary",) * 5
    assert record.top == IDS[:5]


def test_llm_voting_is_one_decider_call_per_group() -> None:
    result, rt = run(opts=PD3Options(decider="single"))
    record = record_of(result)
    assert len(rt.calls) == 15 and by_group(rt) == dict.fromkeys(range(1, 16), 1)
    assert {(c.role, c.purpose, c.round) for c in rt.calls} == {("senior", "decide", 0)}
    assert all(c.agent.endswith("decider") for c in rt.calls)
    assert all("Record of the debate" not in text(c) for c in rt.calls)
    assert set(record.top) == set(GOLD) and record.initial == {}
    assert result.method == record.variant == "llm_voting"
    assert [a.round for a in result.answers] == [1] * 15
    assert all(g.statements == () for g in record.groups)


def test_a_tie_at_the_boundary_is_recorded_with_its_rule() -> None:
    # two disjoint groups of 5; each decider lists its group as shown: rank points tie pairwise
    result, _ = run(
        Script(senior=lambda call: list(call.asks.ids)),  # type: ignore[union-attr]
        PD3Options(decider="single", group_size=5),
        candidates=CANDIDATES[:10],
    )
    record = record_of(result)
    a, b = (g.members for g in record.groups)
    rank = {c: i for i, c in enumerate(IDS)}
    third = min(a[2], b[2], key=rank.__getitem__)
    assert set(record.top) == {a[0], b[0], a[1], b[1], third}
    assert record.top[-1] == third and record.rule == "prelim_rank"
    assert record.stats()["boundary_tie"] == 1 and record.stats()["kth_votes"] == 1


# -- seeds --------------------------------------------------------------------------------------


def prompts_of(rt: ScriptedRuntime) -> list[tuple[str, str, str]]:
    return sorted((c.agent, c.purpose, text(c)) for c in rt.calls)


def test_the_same_seed_gives_the_same_partition_and_prompts() -> None:
    first, rt1 = run()
    again, rt2 = run()
    assert record_of(first).partition == record_of(again).partition
    assert record_of(first).labels == record_of(again).labels
    assert prompts_of(rt1) == prompts_of(rt2)
    other, rt3 = run(opts=PD3Options(seed=1))
    assert record_of(other).partition != record_of(first).partition
    assert prompts_of(rt3) != prompts_of(rt1)
    assert set(record_of(other).top) == set(GOLD)
    # another query draws its own
    elsewhere, _ = run(query=Project("query-2", "", ""))
    assert record_of(elsewhere).partition != record_of(first).partition


# -- spans, events, record ----------------------------------------------------------------------


def test_spans_and_events_name_what_they_are() -> None:
    result, rt = run()
    spans = Counter(rt.spans)
    assert {f"group {g}" for g in range(1, 16)} <= set(spans)
    assert spans["round 0"] == spans["round 2"] == spans["senior"] == 15 and spans["vote"] == 1
    assert {r.span for r in rt.recorded if r.call.role == "senior"} == {"senior"}
    assert {r.span for r in rt.recorded if r.call.round == 1} == {"round 1"}
    titles = rt.info_titles()
    assert titles[:2] == ["candidates", "groups"] and titles[-1] == "vote"
    assert sorted(t for t in titles if t.endswith("decision")) == sorted(
        f"group {g} decision" for g in range(1, 16)
    )
    infos = dict(rt.infos)
    assert "**Groups** (15; each candidate is in 10 groups)" in infos["groups"]
    vote = infos["vote"]
    assert "no tie in votes reached the k-th place (rule `votes`)" in vote
    labels = record_of(result).labels
    assert all(labels[c] in vote.splitlines()[0] for c in GOLD)


def test_the_record_reads_back_from_its_json() -> None:
    result, _ = run(Script(senior=lambda call: None))
    again = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.record == result.record
    assert recorded(result)["kind"] == "pd3"


def test_traversal_runs_its_groups_one_after_another_on_the_last_decisions_picks() -> None:
    """Table 7's Traversal ablation: 10 candidates, then each group the previous decision's 5
    picks and the next 5 of the partition, 5 groups of 10 calls one after another; the last
    group's decision is the result (no vote over groups)."""
    result, rt = run(opts=PD3Options(grouping="traversal", group_size=10))
    record = record_of(result)
    assert len(rt.calls) == 50 and [g.number for g in record.groups] == [1, 2, 3, 4, 5]
    order = [c for s in record.partition for c in s]
    seen: set[str] = set()
    for before, group in zip([None, *record.groups], record.groups):
        kept = set(before.decision.picks) if before else set()
        new = [c for c in group.members if c not in kept]
        assert kept <= set(group.members) and len(group.members) == 10
        assert not seen & set(new) and list(group.members) == sorted(group.members, key=order.index)
        seen |= set(new)
    assert seen == set(IDS)
    last = record.groups[-1].decision.picks
    assert record.top == last and set(last) == set(GOLD)  # the oracle keeps the gold
    infos = dict(rt.infos)
    assert "**Groups** (5, one after another: grouping traversal)" in infos["groups"]
    assert "**Vote** over one group decision (group 5)" in infos["vote"]
    # group after group: every call of a group comes after every call of the one before
    spans = [[i for i, c in enumerate(rt.calls) if c.agent.startswith(f"group {n} ")]
             for n in range(1, 6)]  # fmt: skip
    assert all(max(a) < min(b) for a, b in itertools.pairwise(spans))


def test_dmad_gives_each_expert_its_own_way_of_reasoning() -> None:
    """Table 1's DMAD as PD³ ran it: chain of thought, step-back and self-refine, one per expert,
    in round 0 and in every debate round; uniform experts get none of them."""
    ways = list(pd3_prompts.REASONING.values())
    _, rt = run(opts=PD3Options(group_size=30, reasoning="diverse"))
    experts = expert_calls(rt)
    assert len(experts) == 9
    for call in experts:
        _, expert = where(call)
        shown = text(call)
        assert [w in shown for w in ways] == [i == expert - 1 for i in range(3)], call.agent
    _, plain = run(opts=PD3Options(group_size=30))
    assert not any(w in text(c) for c in plain.calls for w in ways)


# -- options --------------------------------------------------------------------------------------


def test_options_refuse_what_cannot_run() -> None:
    with pytest.raises(OptionError, match="'group_size': got 12, allowed: a multiple of set_size"):
        PD3Options(group_size=12)
    with pytest.raises(OptionError, match="'top_k': got 25"):
        PD3Options(top_k=25)
    with pytest.raises(OptionError, match="'grouping'"):
        PD3Options(grouping="spiral")
    with pytest.raises(OptionError, match="'group_size': got 5, allowed: more than top_k"):
        PD3Options(grouping="traversal", group_size=5).check_candidates(30)
    with pytest.raises(OptionError, match="'set_size': got 5, allowed: a divisor of the number"):
        PD3Options().check_candidates(31)
    with pytest.raises(OptionError, match="'group_size': got 20, allowed: a multiple of set_size"):
        PD3Options().check_candidates(15)
    with pytest.raises(OptionError, match=f"at most {MAX_GROUPS} groups"):
        PD3Options(group_size=50).check_candidates(100)  # C(20, 10) groups
    with pytest.raises(OptionError, match=f"at most {MAX_QUERY_CALLS} calls per query"):
        PD3Options(agents=32, debate_rounds=20).check_candidates(30)  # 15 x 673
    PD3Options(agents=5, debate_rounds=4, group_size=15).check_candidates(30)  # 20 x 26
    # refused before the first call
    rt = ScriptedRuntime(Script())
    with pytest.raises(OptionError, match="'set_size'"):
        asyncio.run(pd3(session_for(rt), QUERY, CANDIDATES[:29], PD3Options()))
    assert rt.calls == []


# -- the baselines ------------------------------------------------------------------------------


def test_listwise_is_one_call_over_all_candidates_in_their_order() -> None:
    rt = ScriptedRuntime(Script())
    result = asyncio.run(listwise(session_for(rt), QUERY, CANDIDATES, ListwiseOptions()))
    record = record_of(result)
    (call,) = rt.calls
    assert (call.agent, call.role, call.purpose) == ("listwise", "senior", "listwise")
    asks = call.asks
    assert isinstance(asks, PicksRequest) and asks.final and asks.ids == IDS
    assert asks.labels == tuple(record.labels[c] for c in IDS)
    shown = text(call)
    positions = [shown.index(f"[{record.labels[c]}] ") for c in IDS]
    assert positions == sorted(positions)
    assert record.top == tuple(c for c in IDS if c in GOLD)
    assert result.final == result_line(record.top) and record.variant == "listwise"
    assert record.stats()["groups"] == 1 and record.stats()["calls_per_group"] == 1.0


def test_lexical_top_k_ranks_by_bm25_without_a_call() -> None:
    query = Project("q", "Transformer fault location", "Locating faults in power transformers.")
    candidates = [
        Project("a", "Bridge inspection", "Drones inspect bridges."),
        Project("b", "Transformer faults", "Fault location for power transformers."),
        Project("c", "Cooking", "Recipes for soup."),
        Project("d", "Transformer faults", "Fault location for power transformers."),  # = b
        Project("e", "Power", "Power lines."),
    ]
    assert lexical_top_k(query, candidates, 3) == ("b", "d", "e")
    rt = ScriptedRuntime(Script())
    result = asyncio.run(lexical(session_for(rt), query, candidates, 2))
    assert rt.calls == [] and result.calls == []
    assert result.final == "[RESULT] b, d"
    record = record_of(result)
    assert record.variant == "lexical" and record.scores["b"] == record.scores["d"] > 0
    assert record.scores["c"] == 0.0 and rt.info_titles() == ["bm25"]


def test_dense_ranks_by_embedding_similarity_without_a_call() -> None:
    """Table 1's vector-distance rows: cosine of each candidate's embedding to the query's; two
    identical candidates score alike, far above the unrelated ones."""
    query = Project("q", "Transformer fault location", "Locating faults in power transformers.")
    candidates = [
        Project("a", "Bridge inspection", "Drones inspect bridges."),
        Project("b", "Transformer faults", "Fault location for power transformers."),
        Project("c", "Cooking", "Recipes for soup."),
        Project("d", "Transformer faults", "Fault location for power transformers."),  # = b
    ]
    rt = ScriptedRuntime(Script())
    result = asyncio.run(dense(session_for(rt), query, candidates, 2, HashingEmbedder()))
    assert rt.calls == [] and result.final == "[RESULT] b, d"
    record = record_of(result)
    assert record.variant == "dense" and record.scores["b"] == pytest.approx(record.scores["d"])
    assert record.scores["b"] > 2 * max(record.scores["a"], record.scores["c"])
    assert rt.info_titles() == ["dense"]


def test_rouge_l_ranks_by_the_longest_common_subsequence_without_a_call() -> None:
    """Table 1's ROUGE-L row: F1 of the LCS of words, so word order counts where BM25's bag of
    words does not."""
    query = Project("q", "", "fault location in power transformers")
    candidates = [
        Project("a", "", "transformers power in location fault"),  # the same words reversed
        Project("b", "", "fault location for the power transformers"),  # 4 of 5 in order
        Project("c", "", "soup"),
    ]
    rt = ScriptedRuntime(Script())
    result = asyncio.run(rouge(session_for(rt), query, candidates, 2))
    assert rt.calls == [] and result.final == "[RESULT] b, a"
    scores = record_of(result).scores
    assert scores == {"a": pytest.approx(2 / 10), "b": pytest.approx(2 * 4 / 11), "c": 0.0}
    assert record_of(result).variant == "rouge_l" and rt.info_titles() == ["rouge_l"]


def test_pointwise_scores_each_candidate_alone_and_ranks_by_score() -> None:
    """LLM-as-a-Judge, point-wise: one call per candidate, which sees that candidate and no other;
    ties go to the preliminary order, and a candidate whose score stays unreadable after the
    follow-up ranks last, unscored (never guessed)."""
    given = {IDS[0]: "[RESULT]3", IDS[1]: "[RESULT]9", IDS[2]: "no idea", IDS[3]: "[RESULT]9"}

    def reply(call: Call) -> str:
        assert isinstance(call.asks, DuplicationRequest)
        (c,) = call.asks.ids
        return given.get(c, "[RESULT]1")

    rt = ScriptedRuntime(reply)
    result = asyncio.run(pointwise(session_for(rt), QUERY, CANDIDATES, PointwiseOptions(top_k=3)))
    first = [c for c in rt.calls if c.attempt == 0]
    assert len(first) == len(CANDIDATES) and {c.role for c in rt.calls} == {"judge"}
    for call in first:
        (c,) = call.asks.ids
        shown = text(call)
        assert call.agent == f"judge {c}" and QUERY.text in shown
        assert [o.id for o in CANDIDATES if o.text in shown] == [c]  # this candidate alone
    # only the unreadable reply is asked again, once (retries=1)
    assert [c.asks.ids for c in rt.calls if c.attempt == 1] == [(IDS[2],)]
    record = record_of(result)
    assert record.top == (IDS[1], IDS[3], IDS[0]) and result.final == result_line(record.top)
    assert record.scores[IDS[2]] is None and record.scores[IDS[1]] == 9.0
    assert len(result.answers) == len(CANDIDATES) and result.options["top_k"] == 3
    assert rt.info_titles() == ["pointwise"]


def test_reranker_scores_the_query_with_each_candidate_together() -> None:
    """The pretrained-reranker rows (jina, bge): a cross-encoder scores each (query, candidate)
    pair of titles and texts, in the candidates' order; the top k by score, ties in that order;
    no model call."""
    seen: list[list[tuple[str, str]]] = []

    class Recording:
        name = "cross-encoder/fake"

        async def score(self, pairs):  # type: ignore[no-untyped-def]
            seen.append(list(pairs))
            return [
                3.0 if "t14." in b else 2.0 if "t3." in b or "t8." in b else 0.0 for _, b in pairs
            ]

    rt = ScriptedRuntime(lambda call: pytest.fail("no model call expected"))
    result = asyncio.run(reranker(session_for(rt), QUERY, CANDIDATES, 3, Recording()))
    [pairs] = seen
    assert pairs == [(full_text(QUERY), full_text(c)) for c in CANDIDATES]
    record = record_of(result)
    assert record.top == ("corpus-14", "corpus-03", "corpus-08") and record.variant == "reranker"
    assert rt.calls == [] and rt.info_titles() == ["reranker"]
    assert "cross-encoder/fake" in rt.infos[0][1]


def test_dense_embeds_the_query_in_gte_qwen2s_instructed_form() -> None:
    """The paper's "with instruction" rows: the query, not the candidates, goes in as
    'Instruct: ...\\nQuery: ...'; without an instruction it goes in as it is."""
    seen: list[list[str]] = []

    class Recording(HashingEmbedder):
        async def embed(self, texts):  # type: ignore[no-untyped-def]
            seen.append(list(texts))
            return await super().embed(texts)

    candidates = [Project("a", "A", "a text"), Project("b", "B", "b text")]
    query = Project("q", "Q", "q text")
    rt = ScriptedRuntime(Script())
    asyncio.run(dense(session_for(rt), query, candidates, 1, Recording(), "Find duplicates"))
    asyncio.run(dense(session_for(rt), query, candidates, 1, Recording()))
    assert seen[0] == ["Instruct: Find duplicates\nQuery: Q\nq text", "A\na text", "B\nb text"]
    assert seen[1][0] == "Q\nq text" and rt.calls == []


def test_random_k_draws_k_distinct_candidates_seeded_by_the_query() -> None:
    candidates = [Project(f"c{i}", f"Title {i}", f"Text {i}.") for i in range(30)]

    def draw(query_id: str, seed: int = 0) -> tuple[str, ...]:
        rt = ScriptedRuntime(Script())
        result = asyncio.run(
            random_k(session_for(rt), Project(query_id, "Q", "q"), candidates, 5, seed)
        )
        assert rt.calls == [] and record_of(result).variant == "random"
        return record_of(result).top

    first = draw("q1")
    assert len(set(first)) == 5 and first == draw("q1")  # a run repeats exactly
    assert first != draw("q2") and first != draw("q1", seed=1)


# -- feedback -----------------------------------------------------------------------------------

REFS = [Project(f"ref-{i}", f"Reference {i}", f"Reference text {i}.") for i in range(5)]


def judge_script(scores: dict[str, str]) -> Callable[[Call], str]:
    """The conclusion, and each judge's reply by its agent (default "[RESULT]7")."""

    def reply(call: Call) -> str:
        if isinstance(call.asks, ConclusionRequest):
            return f"<conclusion of {call.agent}>"
        assert isinstance(call.asks, DuplicationRequest)
        return scores.get(call.agent, "Much overlaps.\n[RESULT]7")

    return reply


def test_feedback_averages_three_distinct_judge_samples() -> None:
    rt = ScriptedRuntime(judge_script({"judge 2": "[RESULT] 4/10", "judge 3": "[RESULT]8"}))
    got = asyncio.run(feedback(session_for(rt), None, REFS, FeedbackOptions()))
    assert len(rt.calls) == 4
    conclusion, *judges = rt.calls
    assert (conclusion.agent, conclusion.role, conclusion.purpose) == (
        "conclusion", "feedback", "conclusion"
    )  # fmt: skip
    assert [(c.agent, c.purpose) for c in judges] == [
        (f"judge {i}", f"score {i}") for i in (1, 2, 3)
    ]
    assert all(c.asks == DuplicationRequest(tuple(r.id for r in REFS)) for c in judges)
    assert got.scores == (7, 4, 8) and got.mean == pytest.approx(19 / 3)
    assert got.conclusion == "<conclusion of conclusion>"
    assert all("<conclusion of conclusion>" in text(c) for c in judges)
    # every call opens with the query (the question) and the five references
    opening = text(conclusion)[: text(conclusion).index("Reference 5:")]
    assert QUERY_TEXT in opening and all(text(c).startswith(opening) for c in judges)
    assert not any(r.id in text(c) for r in REFS for c in rt.calls)
    assert rt.spans == ["conclusion", "scores"]


def test_an_unreadable_score_is_left_out_of_the_mean() -> None:
    rt = ScriptedRuntime(judge_script({"judge 1": "[RESULT]11", "judge 2": "no score"}))
    opts = FeedbackOptions(conclusion=False)
    got = asyncio.run(feedback(session_for(rt, retries=0), None, REFS, opts))
    assert len(rt.calls) == 3 and got.conclusion is None
    assert got.scores == (None, None, 7) and got.mean == 7.0
    rt = ScriptedRuntime(judge_script(dict.fromkeys(("judge 1", "judge 2"), "none")))
    opts = FeedbackOptions(samples=2, conclusion=False)
    got = asyncio.run(feedback(session_for(rt, retries=2), None, REFS, opts))
    assert got.mean is None and len(rt.calls) == 2 * 3  # each asked again twice
    assert [len(r) for r in got.replies] == [3, 3]


def test_a_pair_predicts_the_side_with_the_higher_score() -> None:
    a, b = Project("qa", "Query A", "Text A."), Project("qb", "Query B", "Text B.")
    rt = ScriptedRuntime(judge_script({f"B judge {i}": "[RESULT]3" for i in (1, 2, 3)}))
    question = "Which project do its references duplicate more, A or B?"
    result = asyncio.run(
        feedback_pair(
            session_for(rt, question), SidePair((a, REFS), (b, REFS[:2])), FeedbackOptions()
        )
    )
    assert result.final == "A" and result.method == "pd3_feedback"
    assert len(rt.calls) == 8
    assert len({(c.agent, c.purpose) for c in rt.calls}) == 8
    record = result.record
    assert isinstance(record, FeedbackRecord) and record.prediction == "A"
    assert [(s.side, s.query, s.mean) for s in record.sides] == [("A", "qa", 7.0), ("B", "qb", 3.0)]
    assert record.stats() == {"samples": 6, "unscored": 0, "score_a": 7.0, "score_b": 3.0}
    side_b = [text(c) for c in rt.calls if c.agent.startswith("B ")]
    assert all(question in t and "Query B\nText B." in t and "Query A" not in t for t in side_b)
    assert {"side A", "side B"} <= set(rt.spans)
    again = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.record == record


def test_the_judges_see_the_pair_question_as_context_and_are_asked_for_a_score() -> None:
    a, b = Project("qa", "Query A", "Text A."), Project("qb", "Query B", "Text B.")
    question = PAIR_PROMPT.format(a='"Query A"', b='"Query B"')
    rt = ScriptedRuntime(judge_script({}))
    asyncio.run(
        feedback_pair(session_for(rt, question), SidePair((a, REFS), (b, REFS)), FeedbackOptions())
    )
    assert len(rt.calls) == 8
    for call in rt.calls:
        shown = text(call)
        context = shown.index("What this assessment is for (context only: do not answer this")
        assert context < shown.index(question) < shown.index("The project under detection:")
        assert "answer a or b" not in shown.lower()
    judges = [text(c) for c in rt.calls if isinstance(c.asks, DuplicationRequest)]
    assert len(judges) == 6 and all(t.endswith(pd3_prompts.SCORE) for t in judges)


def test_predict_abstains_without_a_score() -> None:
    assert predict(7.0, 3.0) == "A" and predict(2.0, 3.0) == "B" and predict(5.0, 5.0) == "tie"
    assert predict(None, 3.0) is None and predict(4.0, None) is None


@pytest.mark.parametrize("extra", [False, True])
def test_the_experts_and_the_senior_are_asked_what_the_paper_asks_unless_extra_asks(
    extra: bool,
) -> None:
    """The paper's debating expert states its view in one sentence, and its senior analyses the
    consensus and lists the candidates by relevance; naming the picks in each debate statement,
    weighing the disagreements and listing exactly top_k are ours (`extra_asks`)."""
    result, rt = run(opts=PD3Options(extra_asks=extra))
    assert result.options["extra_asks"] is extra
    debating = [c for c in expert_calls(rt) if c.round > 0]
    seniors = [c for c in rt.calls if c.role == "senior"]
    assert debating and seniors
    assert all(("naming the 5 candidates you now select" in text(c)) is extra for c in debating)
    assert all(("where they disagree" in text(c)) is extra for c in seniors)
    assert all(("lists exactly 5 labels" in text(c)) is extra for c in seniors)
    assert all("Analyse the experts' consensus" in text(c) for c in seniors)


@pytest.mark.parametrize("neutrality", ["initial", "every_prompt"])
def test_the_neutrality_line_is_in_round_0_only_unless_every_prompt(neutrality: str) -> None:
    """The paper's initial-round prompt tells each expert, once, that it has no preconceived view
    (App. A.8); its debate-round and senior prompts do not. `every_prompt` is the placement this
    project had before: every expert prompt and the senior's."""
    result, rt = run(opts=PD3Options(neutrality=neutrality, debate_rounds=1))
    assert result.options["neutrality"] == neutrality
    told = Counter(
        (c.role == "senior", c.round) for c in rt.calls if pd3_prompts.NEUTRAL in text(c)
    )
    if neutrality == "initial":
        assert told == {(False, 0): 45}  # 15 groups x 3 experts, round 0 only
    else:
        assert told == {(False, 0): 45, (False, 1): 45, (True, 2): 15}
    assert len(rt.calls) == 15 * (3 * 2 + 1)
    # the line is all that differs between the placements
    every = pd3_prompts.debate(2, 3, 5, 1, 2, False, "diverse", "every_prompt")
    assert every.replace(f" {pd3_prompts.NEUTRAL}", "") == pd3_prompts.debate(
        2, 3, 5, 1, 2, False, "diverse", "initial"
    )
    every = pd3_prompts.senior(3, 5, True, "every_prompt")
    assert every.replace(f"{pd3_prompts.NEUTRAL} ", "") == pd3_prompts.senior(3, 5, True)
    with pytest.raises(OptionError, match="'neutrality'"):
        PD3Options(neutrality="senior")


def test_the_querys_facet_is_stated_in_every_prompt_that_presents_it() -> None:
    """CSFCube grades a query per facet, so the facet is part of what is asked: every retrieval
    and feedback prompt states it; a query without one is asked as before."""
    line = "Judge relevance by the project's method and result only"
    faceted = dataclasses.replace(QUERY, facet="method+result")
    _, rt = run(query=faceted, opts=PD3Options(debate_rounds=0))
    assert rt.calls and all(line in text(c) for c in rt.calls)
    _, plain = run(opts=PD3Options(debate_rounds=0))
    assert not any("Judge relevance by" in text(c) for c in plain.calls)

    a = Project("qa", "Query A", "Text A.", facet="background")
    b = Project("qb", "Query B", "Text B.")
    rt = ScriptedRuntime(judge_script({}))
    question = "Which project do its references duplicate more, A or B?"
    asyncio.run(
        feedback_pair(session_for(rt, question), SidePair((a, REFS), (b, REFS)), FeedbackOptions())
    )
    stated = [("by the project's background only" in text(c), c.agent[0]) for c in rt.calls]
    assert len(stated) == 8 and all(said == (side == "A") for said, side in stated)


def test_traversal_takes_any_number_of_candidates_and_no_sets() -> None:
    """32 candidates do not split into sets of 5, and traversal needs none: 1 group of 10, then
    5 new each (10 + 5 x 4 + 2: 6 groups)."""
    many = [Project(f"c{i:02d}", f"Candidate {i}", f"Work {i}.") for i in range(32)]
    result, rt = run(opts=PD3Options(grouping="traversal", group_size=10), candidates=many)
    assert [len(g.members) for g in record_of(result).groups] == [10] * 5 + [7]
    assert len(rt.calls) == 60


def test_under_method_retrieval_each_side_is_scored_on_pd3s_own_top_5() -> None:
    """The paper's Method Retrieval: a pair that gives each side's 30 candidates runs PD³'s
    retrieval per side first (150 calls each at the defaults), and the side's judges see the 5
    it retrieved (the oracle's gold), none of the others; the record keeps both retrievals."""
    picks, judged = Script(), judge_script({})

    def reply(call: Call) -> str:
        return picks(call) if isinstance(call.asks, PicksRequest) else judged(call)

    a, b = Project("qa", "Query A", "Text A."), Project("qb", "Query B", "Text B.")
    rt = ScriptedRuntime(reply)
    question = "Which project do its references duplicate more, A or B?"
    pair = SidePair((a, CANDIDATES), (b, CANDIDATES), retrieved=True)
    result = asyncio.run(feedback_pair(session_for(rt, question), pair, FeedbackOptions()))
    retrievals = [c for c in rt.calls if isinstance(c.asks, PicksRequest)]
    scoring = [c for c in rt.calls if not isinstance(c.asks, PicksRequest)]
    assert len(retrievals) == 2 * 150 and len(scoring) == 2 * (1 + 3)
    # each retrieval asks about its own side's project (as project_dedup's input shows it)
    shown = [text(c) for c in retrievals]
    assert sum("Query A\n\nText A." in t for t in shown) == 150
    assert sum("Query B\n\nText B." in t for t in shown) == 150
    assert not any(question in t for t in shown)
    assert len(result.calls) == len(rt.calls)  # the retrievals' calls are the pair's
    for call in scoring:
        assert set(call.asks.ids) == set(GOLD)
        shown = text(call)
        assert all(c.text in shown for c in CANDIDATES if c.id in GOLD)
        assert not any(c.text in shown for c in CANDIDATES if c.id not in GOLD)
    record = result.record
    assert isinstance(record, FeedbackRecord)
    assert [set(s.references) for s in record.sides] == [set(GOLD)] * 2
    assert [r.query for r in record.retrievals] == ["qa", "qb"]
    assert all(set(r.top) == set(GOLD) for r in record.retrievals)
    again = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.record == record


def test_a_limit_inside_a_sides_retrieval_ends_the_pair_without_a_prediction() -> None:
    """Method Retrieval cut by a limit (the 40th call refused): the pair ends as any method without
    a rule of its own does, no prediction, every call made until then kept in its record."""
    picks, judged = Script(), judge_script({})
    made: list[Call] = []

    def reply(call: Call) -> str:
        made.append(call)
        if len(made) >= 40:
            raise LimitReached("token", 1000, 1000)
        return picks(call) if isinstance(call.asks, PicksRequest) else judged(call)

    a, b = Project("qa", "Query A", "Text A."), Project("qb", "Query B", "Text B.")
    run = within_limits("pd3_feedback", feedback_pair)
    pair = SidePair((a, CANDIDATES), (b, CANDIDATES), retrieved=True)
    result = asyncio.run(run(session_for(ScriptedRuntime(reply)), pair, FeedbackOptions()))
    assert result.final is None and result.stopped is not None
    assert result.stopped.kind == "token" and len(result.calls) == 39


def test_method_retrieval_refuses_a_side_pd3_cannot_serve_before_any_call() -> None:
    rt = ScriptedRuntime(lambda call: pytest.fail("no call expected"))
    a, b = Project("qa", "Query A", "Text A."), Project("qb", "Query B", "Text B.")
    pair = SidePair((a, CANDIDATES), (b, CANDIDATES[:7]), retrieved=True)
    with pytest.raises(OptionError):
        asyncio.run(feedback_pair(session_for(rt), pair, FeedbackOptions()))

"""Tree-of-Debate's engine on a scripted runtime: the budget case (4 self-deliberations, 20 debated
nodes, r.1-r.3 expanded in breadth-first order), contribution mapping, who sees what in the debate
stages, No-Tree and No-SD, every fallback, exact call counts, per-stage sampling, spans and events,
the baselines, and the same record whether siblings run concurrently or not.

Replies are chosen by `call.asks` and by the node id in `call.purpose`, never by call order; the
retrievers are fakes that record their queries (no BM25 needed)."""

from __future__ import annotations

import asyncio
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import pytest
from scripted import ScriptedRuntime, recorded, transcript_text

from mad_tasks.engine.answers import FreeText
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.tod import prompts as tod_prompts
from mad_tasks.engine.methods.tod.baselines import NO_PAPER_SUMMARY, single_stage, two_stage
from mad_tasks.engine.methods.tod.debate import (
    DROPPED,
    LEAF,
    NO_CLAIMS,
    NO_EXPANSION,
    NO_TURN,
    _tree_markdown,
    tree_of_debate,
)
from mad_tasks.engine.methods.tod.options import SamplingOptions, TreeOptions
from mad_tasks.engine.methods.tod.papers import Paper, PaperPair
from mad_tasks.engine.methods.tod.records import NOT_ADDRESSED, Fallback, Node, TreeRecord
from mad_tasks.engine.methods.tod.summary import ABSTAIN
from mad_tasks.engine.protocols.tod import SCHEMAS
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import (
    ArgumentRequest,
    ClaimsRequest,
    ExpandRequest,
    RelevanceRequest,
    SubtopicsRequest,
    SummaryRequest,
)
from mad_tasks.engine.retrieval import Evidence
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session

TOPIC = "text classification with weak supervision"
PAIR = PaperPair(
    Question.of([TOPIC]),
    (
        Paper("MegaClass: <title-0>", "<abstract-0> We classify texts.", "<intro-0> It is new."),
        Paper("LotsClass: <title-1>", "<abstract-1> We label words.", "<intro-1> It is old."),
    ),
)
OPENING = f"Two research papers are compared on this topic:\n{TOPIC}\n\n"
SHARED = OPENING + (  # what every call of a tree opens with
    'Author 0\'s paper: "MegaClass: <title-0>"\nAbstract: <abstract-0> We classify texts.\n\n'
    'Author 1\'s paper: "LotsClass: <title-1>"\nAbstract: <abstract-1> We label words.\n\n'
)
STAGES = ("present", "respond", "revise")
SUMMARY = "Both papers classify texts with weak supervision; they differ in how labels are made."
UNREADABLE = "I would rather not answer in JSON."


class Retriever:
    """A paper's fake retriever: k excerpts naming the paper, their rank and the query."""

    def __init__(self, paper: int, size: int = 0) -> None:
        self.paper = paper
        self.size = size
        self.queries: list[tuple[str, int]] = []

    def search(self, query: str, k: int) -> list[Evidence]:
        self.queries.append((query, k))
        return [
            Evidence(i, i - 1, f"<p{self.paper} excerpt {i} for {query}>", 1 / i)
            for i in range(1, k + 1)
        ]


def node_of(call: Call) -> str:
    """The node a call is about: the purpose is "<stage> <node id>"."""
    return call.purpose.split(" ", 1)[1]


def stage_of(call: Call) -> str:
    return call.purpose.split(" ", 1)[0]


@dataclass
class Script:
    """Replies by request: `expand(node)` gives the moderator's (progression, questions, clear
    winner), None for an unreadable reply; `unreadable(call)` makes any reply unreadable;
    `contributions(node, k)` maps child k of a node to claim ids; `keep(call)` is the relevance
    verdict (the keep rule's inputs: supports, irrelevant); `concedes(node, author)` whether a
    revision concedes."""

    expand: Callable[[str], tuple[bool, bool, bool] | None] = lambda node: (True, False, False)
    unreadable: Callable[[Call], bool] = lambda call: False
    contributions: Callable[[str, int], tuple[list[int], list[int]]] = lambda node, k: ([k], [1])
    keep: Callable[[Call], bool] = lambda call: True
    concedes: Callable[[str, int], bool] = lambda node, author: author == 1
    subtopics: int = 5  # listed per reply, whatever the request's `most` (the reader cuts)
    claims: int = 3

    def __call__(self, call: Call) -> str:
        asks = call.asks
        if self.unreadable(call):
            return UNREADABLE
        if isinstance(asks, ClaimsRequest):
            evidence = [1, 2] if asks.evidence else []
            return json.dumps(
                {
                    "argument_list": [
                        {
                            "argument_title": f"claim a{asks.author} {k} at {node_of(call)}",
                            "description": f"Author {asks.author}'s point {k}.",
                            "evidence": evidence,
                        }
                        for k in range(1, self.claims + 1)
                    ]
                }
            )
        if isinstance(asks, RelevanceRequest):
            yes = "Yes" if self.keep(call) else "No"
            return json.dumps(
                {
                    "supports_claim": yes,
                    "refutes_claim": "No",
                    "clarifies_claim": "No",
                    "irrelevant_to_claim": "No",
                }
            )
        if isinstance(asks, SubtopicsRequest):
            node = node_of(call)
            subtopics = []
            for k in range(1, self.subtopics + 1):
                a0, a1 = self.contributions(node, k)
                subtopics.append(
                    {
                        "topic_title": f"sub {node}.{k}",
                        "topic_description": f"What {node}.{k} is about.",
                        "author_0_relevant_contributions": a0,
                        "author_1_relevant_contributions": a1,
                    }
                )
            return json.dumps({"subtopic_list": subtopics})
        if isinstance(asks, ArgumentRequest):
            mark = f"{asks.stage[0]}{asks.author} {node_of(call)}"  # p0 r.1, r1 r.1, ...
            if asks.stage == "present":
                return json.dumps({"argument_title": mark, "description": f"<{mark} details>"})
            if asks.stage == "respond":
                return json.dumps({"author_response": f"<{mark}> " + "I answer the point. " * 3})
            concedes = self.concedes(node_of(call), asks.author)
            return json.dumps(
                {
                    "revised_argument_title": mark,
                    "revised_argument_description": f"<{mark} revised details>",
                    "concedes": concedes,
                }
            )
        if isinstance(asks, ExpandRequest):
            judged = self.expand(node_of(call))
            if judged is None:
                return UNREADABLE
            yes = ["No", "Yes"]
            return json.dumps(
                {
                    "explanation": f"<judged {node_of(call)}>",
                    "progression_of_arguments": yes[judged[0]],
                    "meaningful_questions": yes[judged[1]],
                    "clear_winner": yes[judged[2]],
                }
            )
        if isinstance(asks, SummaryRequest):
            return json.dumps({"summary": f"{SUMMARY} ({asks.source}, {call.purpose})"})
        raise AssertionError(f"not a Tree-of-Debate call: {asks!r}")


def run(
    script: Script,
    opts: TreeOptions | None = None,
    retrievers: tuple[Retriever, Retriever] | None = None,
) -> tuple[DebateResult, ScriptedRuntime, tuple[Retriever, Retriever] | None]:
    opts = opts or TreeOptions()
    if retrievers is None and opts.self_deliberation:
        retrievers = (Retriever(0), Retriever(1))
    rt = ScriptedRuntime(script)
    session = Session(rt, Problem(question=PAIR.topic, fmt=FreeText()))
    result = asyncio.run(tree_of_debate(session, PAIR, opts, retrievers))
    return result, rt, retrievers


def record_of(result: DebateResult) -> TreeRecord:
    assert isinstance(result.record, TreeRecord)
    return result.record


def by_stage(rt: ScriptedRuntime) -> Counter[str]:
    return Counter(stage_of(c) if " " in c.purpose else c.purpose for c in rt.calls)


def the_call(rt: ScriptedRuntime, purpose: str, agent: str, attempt: int = 0) -> Call:
    (call,) = [
        c for c in rt.calls if c.purpose == purpose and c.agent == agent and c.attempt == attempt
    ]
    return call


def text(call: Call) -> str:
    return transcript_text(call)


# -- case 4: the budget ------------------------------------------------------------------------------

LEVEL_1 = [f"r.{k}" for k in range(1, 6)]
LEVEL_2 = [f"r.{i}.{k}" for i in (1, 2, 3) for k in range(1, 6)]


def test_budget_gives_four_deliberations_twenty_nodes_and_breadth_first_expansions() -> None:
    result, rt, retrievers = run(Script())
    record = record_of(result)
    nodes = {n.id: n for n in record.nodes}
    assert [n.id for n in record.nodes] == ["r", *LEVEL_1, *LEVEL_2]
    assert [n.order for n in record.nodes] == list(range(21))
    assert [n.id for n in record.nodes if n.deliberation is not None] == ["r", "r.1", "r.2", "r.3"]
    assert [n.id for n in record.nodes if n.debate is not None] == [*LEVEL_1, *LEVEL_2]
    assert record.expansions == 3 and record.budget == 3
    # every node wanted expansion; r.1-r.3 got the budget in breadth-first order
    for node_id in [*LEVEL_1, *LEVEL_2]:
        e = nodes[node_id].expansion
        assert e is not None and e.wants and e.rule == "code"
        assert e.granted == (node_id in ("r.1", "r.2", "r.3"))
        assert e.blocked == (None if e.granted else "budget")
    assert nodes["r.2"].children == tuple(f"r.2.{k}" for k in range(1, 6))
    assert nodes["r.4"].children == () and nodes["r.1.1"].level == 2
    # calls: per SD 2 claims + 2 x 3 claims x 2 segments relevance + 1 subtopics; per node 6 + 1
    assert by_stage(rt) == {
        "claims": 8,
        "relevance": 48,
        "subtopics": 4,
        "present": 40,
        "respond": 40,
        "revise": 40,
        "expand": 20,  # the blocked nodes are still judged
        "synthesis": 1,
    }
    assert len(result.calls) == 4 * 15 + 20 * 7 + 1 == 201
    assert record.stats() == {
        "nodes": 20,
        "depth": 2,
        "expansions": 3,
        "deliberations": 4,
        "concessions": 20,  # Author 1 concedes in every revision
        "evidence_kept": 1.0,
        "fallbacks": 0,
    }
    # retrieval: per SD 5 excerpts for the node's query, then 2 per opponent claim
    assert retrievers is not None
    assert retrievers[0].queries[0] == (TOPIC, 5)
    assert retrievers[0].queries[1] == ("claim a1 1 at r: Author 1's point 1.", 2)
    assert retrievers[0].queries[4] == ("sub r.1: What r.1 is about..", 5)  # the reference's "."
    assert len(retrievers[1].queries) == 4 * (1 + 3)
    assert result.method == "tree_of_debate" and record.variant == "tree_of_debate"
    assert result.final == f"{SUMMARY} (tree, synthesis)"
    assert [(a.agent, a.round, a.answer) for a in result.answers] == [
        ("moderator", 1, result.final)
    ]
    # the record reads back from its JSON
    again = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert again.record == record


def test_concurrent_siblings_give_the_sequential_record() -> None:
    def expand(node: str) -> tuple[bool, bool, bool] | None:
        return None if node == "r.2" else (node != "r.4", False, node == "r.1")

    def unreadable(call: Call) -> bool:
        return call.purpose in ("revise r.3", "relevance r.3") and call.agent == "author_1"

    results = []
    for parallel in (True, False):
        script = Script(expand=expand, unreadable=unreadable)
        result, rt, _ = run(script, TreeOptions(parallel_siblings=parallel))
        results.append((recorded(result), Counter((c.agent, c.purpose) for c in rt.calls)))
        record = record_of(result)
        assert [n.id for n in record.nodes if n.expansion and n.expansion.granted] == [
            "r.3",
            "r.5",
            "r.3.1",
        ]
        assert Counter((f.node, f.what) for f in record.fallbacks) == {
            ("r.2", "expand"): 1,
            ("r.3", "revise"): 1,
            ("r.3", "relevance"): 6,
        }
    assert results[0] == results[1]


# -- case 5: contribution mapping ----------------------------------------------------------------


def test_mapped_claims_their_evidence_and_all_excerpts_when_none_is_mapped() -> None:
    maps = {1: ([2, 9], []), 2: ([7], [3, 1])}  # 9 and 7 are out of range (3 claims)

    def contributions(node: str, k: int) -> tuple[list[int], list[int]]:
        return maps.get(k, ([], [1]))

    def keep(call: Call) -> bool:  # author_1 keeps its first excerpt against each claim only
        return call.agent == "author_0" or "excerpt 1 " in call.asks.segment  # type: ignore[union-attr]

    result, rt, _ = run(
        Script(contributions=contributions, keep=keep), TreeOptions(max_subtopics=2)
    )
    nodes = {n.id: n for n in record_of(result).nodes}
    assert nodes["r.1"].contributions == ((2,), ())
    assert nodes["r.2"].contributions == ((), (3, 1))

    a0 = text(the_call(rt, "present r.1", "author_0"))
    assert "claim a0 2 at r" in a0 and "claim a0 1 at r" not in a0 and "claim a0 3" not in a0
    # claim 2 cites excerpts 1 and 2 of the root pool; Author 1's kept counter-evidence follows
    assert "cited excerpt: <p0 excerpt 1 for text classification" in a0
    assert "cited excerpt: <p0 excerpt 3 for text" not in a0
    assert '"<p1 excerpt 1 for claim a0 2 at r: Author 0\'s point 2.>"' in a0
    assert "<p1 excerpt 2 for claim a0 2" not in a0  # dropped by the relevance filter
    # Author 1 has no mapped claim: all five of its root excerpts instead
    for i in range(1, 6):
        assert f"<p1 excerpt {i} for {TOPIC}>" in a0
    assert "claim a1" not in a0

    # at r.2 Author 0's only id was out of range: its excerpts, and Author 1's claims 3 then 1
    a1 = text(the_call(rt, "present r.2", "author_1"))
    for i in range(1, 6):
        assert f"<p0 excerpt {i} for {TOPIC}>" in a1
    assert a1.index("claim a1 3 at r") < a1.index("claim a1 1 at r")
    assert "claim a1 2 at r" not in a1
    # Author 1's own claims show Author 0's counter-evidence, all kept
    assert "<p0 excerpt 2 for claim a1 3 at r: Author 1's point 3.>" in a1


def test_an_opponent_claim_with_nothing_kept_is_not_addressed() -> None:
    result, rt, _ = run(
        Script(keep=lambda call: call.agent == "author_1"),
        TreeOptions(max_subtopics=1, max_expansions=0),
    )
    root = record_of(result).nodes[0]
    assert root.deliberation is not None
    # Author 0 kept nothing against Author 1's claims
    for k, p in enumerate(root.deliberation[0].preemption, 1):
        query = f"claim a1 {k} at r: Author 1's point {k}."
        assert p.claim == k and p.query == query
        assert [j.kept for j in p.judged] == [False, False]
        assert p.segments == (NOT_ADDRESSED.format(claim=query),)
    assert all(p.segments[0].startswith("<p1") for p in root.deliberation[1].preemption)
    assert record_of(result).stats()["evidence_kept"] == 0.5
    # the sentinel reaches the persona whose claim it counters
    assert NOT_ADDRESSED.format(claim="claim a1 1 at r: Author 1's point 1.") in text(
        the_call(rt, "present r.1", "author_1")
    )


# -- case 6: who sees what ---------------------------------------------------------------------


def test_visibility_of_presentations_responses_and_revisions() -> None:
    _, rt, _ = run(Script(), TreeOptions(max_subtopics=1, max_expansions=0))
    p0, p1 = "I argue that p0 r.1. <p0 r.1 details>", "I argue that p1 r.1. <p1 r.1 details>"
    r0, r1, v0, v1 = "<r0 r.1>", "<r1 r.1>", "I argue that r0 r.1", "I argue that r1 r.1"

    present = [text(the_call(rt, "present r.1", f"author_{i}")) for i in range(2)]
    assert all("p0 r.1" not in t and "p1 r.1" not in t for t in present)

    respond0 = text(the_call(rt, "respond r.1", "author_0"))
    assert f"- You: {p0}" in respond0
    assert f"<respond_to_this>\n- Opposition: {p1}\n</respond_to_this>" in respond0
    assert r1 not in respond0 and "Author 1:" not in respond0

    respond1 = text(the_call(rt, "respond r.1", "author_1"))
    assert f"- Opposition: {p0}" in respond1 and f"- You: {p1}" in respond1
    assert f"<respond_to_this>\n- Opposition: {r0}" in respond1
    assert respond1.count("<respond_to_this>\n- ") == 1

    revise0 = text(the_call(rt, "revise r.1", "author_0"))
    assert f"- You: {r0}" in revise0 and f"- Opposition: {r1}" in revise0
    assert "<respond_to_this>\n" not in revise0
    assert "r0 r.1 revised" not in revise0 and "r1 r.1 revised" not in revise0

    revise1 = text(the_call(rt, "revise r.1", "author_1"))
    history = revise1[revise1.index("Debate history:") :]
    assert history.index(f"- Opposition: {p0}") < history.index(f"- You: {p1}")
    assert history.index(f"- You: {r1}") < history.index(
        "- Opposition: I argue that r0 r.1. <r0 r.1 revised details>"
    )
    assert "r1 r.1 revised" not in revise1

    # the moderator sees the whole history under the authors' numbers
    expand = text(the_call(rt, "expand r.1", "moderator"))
    for line in (
        f"- Author 0: {p0}",
        f"- Author 1: {p1}",
        f"- Author 0: {r0}",
        f"- Author 1: {r1}",
        f"- Author 0: {v0}. <r0 r.1 revised details>",
        f"- Author 1: {v1}. <r1 r.1 revised details>",
    ):
        assert line in expand
    assert "Author 0's initial argument: p0 r.1: <p0 r.1 details>" in expand
    assert "Author 1's revised argument: r1 r.1: <r1 r.1 revised details>" in expand


# -- case 7 (the tree JSON the synthesis read) --------------------------------------------------


def test_the_synthesis_reads_the_recorded_tree() -> None:
    result, rt, _ = run(Script(), TreeOptions(max_subtopics=2, max_expansions=1))
    record = record_of(result)
    tree = record.tree
    assert tree["topic"] == TOPIC and "description" not in tree
    first, second = tree["children"]
    assert first["topic"] == "sub r.1" and len(first["children"]) == 2
    assert first["author_0_argument"] == "r0 r.1. <r0 r.1 revised details>"
    assert "children" not in second and "children" not in first["children"][0]
    synthesis = text(the_call(rt, "synthesis", "moderator"))
    assert json.dumps(tree, indent=2, ensure_ascii=False) in synthesis
    assert rt.calls[-1].purpose == "synthesis" and rt.calls[-1].asks == SummaryRequest("tree")
    # the summary names the papers by their titles, which the prompt pairs with the labels
    assert (
        f"{tod_prompts.NAMES} Author 0's paper is \"MegaClass: <title-0>\", Author 1's is "
        '"LotsClass: <title-1>".'
    ) in synthesis
    assert "never as Author 0, Author 1, Paper 0 or Paper 1." in synthesis


# -- case 8: No-Tree ----------------------------------------------------------------------------


def test_no_tree_is_a_chain_of_one_child_per_expansion_with_budget_five() -> None:
    result, rt, _ = run(Script(), TreeOptions(tree=False, max_expansions=5))
    record = record_of(result)
    chain = ["r", "r.1", "r.1.1", "r.1.1.1", "r.1.1.1.1", "r.1.1.1.1.1", "r.1.1.1.1.1.1"]
    assert [n.id for n in record.nodes] == chain
    assert [n.children for n in record.nodes] == [(c,) for c in chain[1:]] + [()]
    assert [n.id for n in record.nodes if n.deliberation is not None] == chain[:6]
    last = record.nodes[-1].expansion
    assert last is not None and last.wants and last.blocked == "budget"
    assert record.expansions == 5 and record.budget == 5
    asked = [c.asks for c in rt.calls if isinstance(c.asks, SubtopicsRequest)]
    assert [a.most for a in asked] == [1] * 6
    assert len(result.calls) == 6 * 15 + 6 * 7 + 1 == 133
    assert result.method == "tod_no_tree" and record.variant == "tod_no_tree"
    subtopics = text(the_call(rt, "subtopics r", "moderator"))
    assert "one combined subtopic" in subtopics


# -- case 9: No-SD ------------------------------------------------------------------------------


def test_no_sd_retrieves_nothing_and_shows_the_introductions() -> None:
    counting = (Retriever(0), Retriever(1))
    result, rt, _ = run(
        Script(contributions=lambda node, k: ([1], [])),
        TreeOptions(self_deliberation=False),
        counting,
    )
    record = record_of(result)
    assert counting[0].queries == [] and counting[1].queries == []
    assert by_stage(rt)["relevance"] == 0
    assert len(result.calls) == 4 * 3 + 20 * 7 + 1 == 153
    claims = [c for c in rt.calls if isinstance(c.asks, ClaimsRequest)]
    assert {c.asks.evidence for c in claims} == {0}  # type: ignore[union-attr]
    assert "<intro-0> It is new." in text(the_call(rt, "claims r", "author_0"))
    assert "<intro-1>" not in text(the_call(rt, "claims r", "author_0"))
    root = record.nodes[0]
    assert root.deliberation is not None
    assert [(d.query, d.evidence, d.preemption) for d in root.deliberation] == [("", (), ())] * 2
    assert root.deliberation[0].claims[0].evidence == ()
    # Author 1 has no mapped claim: its introduction; Author 0's claim has no counter-evidence
    a0 = text(the_call(rt, "present r.1", "author_0"))
    assert "The introduction of the opposition's paper:\n<intro-1> It is old." in a0
    assert "claim a0 1 at r" in a0 and "counter-evidence" not in a0
    assert result.method == "tod_no_sd" and record.stats()["evidence_kept"] is None


def test_no_sd_shows_the_moderator_both_introductions_and_each_persona_its_own() -> None:
    _, rt, _ = run(
        Script(contributions=lambda node, k: ([1], [])),
        TreeOptions(self_deliberation=False, max_subtopics=1, max_expansions=0),
    )
    intro = (
        "The introduction of Author 0's paper:\n<intro-0> It is new.",
        "The introduction of Author 1's paper:\n<intro-1> It is old.",
    )
    # the moderator: both introductions right after the shared opening, then its task
    subtopics = text(the_call(rt, "subtopics r", "moderator"))
    assert subtopics.startswith(
        f"{SHARED}{intro[0]}\n\n{intro[1]}\n\nYou are a fair and balanced moderator"
    )
    assert "Their claims:\n\nAuthor 0's claim 1" in subtopics
    # each persona: its own introduction after who it is, in its claims and all three stages
    persona = (
        'You are Author 0, the author of "MegaClass: <title-0>". You debate Author 1 (the '
        'opposition), the author of "LotsClass: <title-1>".\n\n'
        "The introduction of your paper:\n<intro-0> It is new.\n\n"
    )
    assert text(the_call(rt, "claims r", "author_0")).startswith(SHARED + persona + "You argue")
    turns = [text(the_call(rt, f"{stage} r.1", "author_0")) for stage in STAGES]
    head = turns[0][: turns[0].index("Make an argument for one specific reason")]
    assert head.startswith(SHARED + persona + "You debate how and why")
    assert all(t.startswith(head) for t in turns)  # one cached prefix through the material
    # Author 1's own side is not mapped: pointed to its introduction above, not shown twice
    a1 = text(the_call(rt, "present r.1", "author_1"))
    assert a1.count("<intro-1> It is old.") == 1 and "<intro-0>" not in a1
    assert "No claim of yours is mapped to this topic: your introduction above" in a1
    assert "claim a0 1 at r" in a1
    # with self-deliberation no call shows an introduction
    _, sd, _ = run(Script(), TreeOptions(max_subtopics=1, max_expansions=0))
    assert not [c.purpose for c in sd.calls if "<intro-" in text(c)]


def test_claims_are_asked_to_be_evidence_driven() -> None:
    _, rt, _ = run(Script(), TreeOptions(max_subtopics=1, max_expansions=0))
    claims = text(the_call(rt, "claims r", "author_1"))
    assert (
        "Based on these excerpts, write 1 to 3 diverse, specific, evidence-driven arguments"
        in claims
    )
    assert "each supported by the excerpts (no unsupported, superficial arguments)" in claims
    _, no_sd, _ = run(
        Script(), TreeOptions(self_deliberation=False, max_subtopics=1, max_expansions=0)
    )
    claims = text(the_call(no_sd, "claims r", "author_1"))
    assert (
        "each supported by what your paper's title, abstract and introduction say (no "
        "unsupported, superficial arguments)"
    ) in claims


def test_self_deliberation_needs_retrievers() -> None:
    rt = ScriptedRuntime(Script())
    session = Session(rt, Problem(question=PAIR.topic, fmt=FreeText()))
    with pytest.raises(ValueError, match="retriever"):
        asyncio.run(tree_of_debate(session, PAIR, TreeOptions(), None))
    assert rt.calls == []


# -- fallbacks ---------------------------------------------------------------------------------------


def test_no_claims_skips_the_persona() -> None:
    script = Script(unreadable=lambda c: c.purpose == "claims r" and c.agent == "author_1")
    result, rt, _ = run(script, TreeOptions(max_subtopics=1, max_expansions=0))
    record = record_of(result)
    assert record.fallbacks == [Fallback("r", "claims", 1, NO_CLAIMS)]
    root = record.nodes[0]
    assert root.deliberation is not None
    assert root.deliberation[1].claims == () and root.deliberation[0].preemption == ()
    assert len(root.deliberation[1].preemption) == 3  # Author 1 still counters Author 0
    assert the_call(rt, "subtopics r", "moderator").asks == SubtopicsRequest(TOPIC, (3, 0), 1)
    assert record.nodes[1].contributions == ((1,), ())  # Author 1's id 1 is out of range
    # 3 tries of the claims call, 6 relevance calls, 1 subtopics, one node, the synthesis
    assert by_stage(rt) == {
        "claims": 4,
        "relevance": 6,
        "subtopics": 1,
        "present": 2,
        "respond": 2,
        "revise": 2,
        "expand": 1,
        "synthesis": 1,
    }
    assert "Author 1 made no claims." in text(the_call(rt, "subtopics r", "moderator"))


def test_unreadable_relevance_drops_the_segment() -> None:
    script = Script(
        unreadable=lambda c: c.purpose == "relevance r" and "excerpt 2 " in c.asks.segment  # type: ignore[union-attr]
    )
    result, rt, _ = run(script, TreeOptions(max_subtopics=1, max_expansions=0))
    record = record_of(result)
    rule = DROPPED
    assert record.fallbacks == [Fallback("r", "relevance", a, rule) for a in (0, 0, 0, 1, 1, 1)]
    root = record.nodes[0]
    assert root.deliberation is not None
    judged = root.deliberation[0].preemption[0].judged
    assert [(j.kept, j.supports) for j in judged] == [(True, True), (False, None)]
    assert by_stage(rt)["relevance"] == 6 * 3 + 6  # 3 tries for each unreadable one


def test_no_subtopics_leaves_a_leaf_and_other_turn_fallbacks() -> None:
    def unreadable(call: Call) -> bool:
        return (
            call.purpose == "subtopics r.1"
            or (call.purpose == "present r.2" and call.agent == "author_1")
            or (call.purpose == "respond r.2" and call.agent == "author_0")
        )

    def expand(node: str) -> tuple[bool, bool, bool] | None:
        return None if node == "r.2" else (True, True, False)

    result, rt, _ = run(Script(unreadable=unreadable, expand=expand), TreeOptions(max_subtopics=2))
    record = record_of(result)
    assert record.fallbacks == [
        Fallback("r.2", "present", 1, NO_TURN.format(stage="present")),
        Fallback("r.2", "respond", 0, NO_TURN.format(stage="respond")),
        Fallback("r.2", "expand", None, NO_EXPANSION),
        Fallback("r.1", "subtopics", None, LEAF),
    ]  # fmt: skip
    nodes = {n.id: n for n in record.nodes}
    assert list(nodes) == ["r", "r.1", "r.2"]
    assert nodes["r.1"].deliberation is not None and nodes["r.1"].children == ()
    assert "children" not in record.tree["children"][0]
    debate = nodes["r.2"].debate
    assert debate is not None and debate.present[1] is None and debate.respond[0] is None
    e = nodes["r.2"].expansion
    assert e is not None and (e.progression, e.wants, e.granted) == (None, False, False)
    assert record.expansions == 1  # only r.1 (r.2's judgment was unreadable)
    # Author 0 responds with nothing of Author 1's to answer; Author 1 answers Author 0's
    # presentation, its only turn on record
    respond0 = text(the_call(rt, "respond r.2", "author_0"))
    assert "Opposition:" not in respond0 and "<respond_to_this>\n" not in respond0
    respond1 = text(the_call(rt, "respond r.2", "author_1"))
    assert "<respond_to_this>\n- Opposition: I argue that p0 r.2" in respond1
    assert "Author 1's initial argument: (none could be read)" in text(
        the_call(rt, "expand r.2", "moderator")
    )
    assert record.tree["children"][1]["author_1_argument"] == "r1 r.2. <r1 r.2 revised details>"


def test_an_unreadable_summary_abstains() -> None:
    script = Script(unreadable=lambda c: c.purpose == "synthesis")
    result, rt, _ = run(script, TreeOptions(max_subtopics=1, max_expansions=0))
    record = record_of(result)
    assert result.final is None and record.summary is None
    assert [(a.answer, a.attempts) for a in result.answers] == [(None, 3)]
    assert record.fallbacks == [Fallback("r", "summary", None, ABSTAIN)]
    assert by_stage(rt)["synthesis"] == 3
    assert rt.infos[-1] == (
        "synthesis",
        "**No summary**: no reply could be read after 3 attempts (abstention).",
    )


# -- what every call carries ---------------------------------------------------------------------


def test_every_call_opens_with_the_topic_and_both_papers_and_has_its_stage_sampling() -> None:
    _, rt, _ = run(Script(), TreeOptions(max_subtopics=2, max_expansions=1))
    for call in rt.calls:
        (message,) = call.messages
        assert message.role == "user" and message.text.startswith(SHARED)
        stage = stage_of(call)
        kind = "summary" if stage == "synthesis" else stage
        expected = {
            "claims": (0.3, 0.99, 2000),
            "relevance": (0.0, 1.0, 100),
            "subtopics": (0.3, 0.99, 2000),
            "present": (0.1, 0.99, 3000),
            "respond": (0.4, 0.99, 3000),
            "revise": (0.45, 0.99, 3000),
            "expand": (0.1, 0.99, 1024),
            "synthesis": (0.4, 0.99, 2000),
        }[stage]
        assert (call.temperature, call.top_p, call.max_tokens) == expected
        assert call.schema == SCHEMAS[kind]
        assert call.agent == call.role and call.agent in ("author_0", "author_1", "moderator")
        level = 0 if call.purpose == "synthesis" else node_of(call).count(".")
        assert call.round == level
    assert {c.agent for c in rt.calls if stage_of(c) in ("subtopics", "expand")} == {"moderator"}
    # no two calls share (agent, round, purpose, attempt) unless they judge different segments
    scopes = Counter((c.agent, c.round, c.purpose, c.attempt) for c in rt.calls)
    assert {k[2].split()[0] for k, n in scopes.items() if n > 1} == {"relevance"}

    _, plain, _ = run(
        Script(),
        TreeOptions(
            max_subtopics=1, max_expansions=0, structured=False, temperature=0.7, top_p=0.9
        ),
    )
    assert {c.schema is None for c in plain.calls} == {True}
    assert {(c.temperature, c.top_p) for c in plain.calls} == {(0.7, 0.9), (0.7, 1.0)}


def test_spans_and_events_name_what_they_are() -> None:
    _, rt, _ = run(
        Script(expand=lambda node: (True, False, node == "r.2")),
        TreeOptions(max_subtopics=2, max_expansions=1, parallel_siblings=False),
    )
    stages = ["present", "respond", "revise", "expand"]
    assert rt.spans == [
        "self-deliberation r", "claims", "preemption", "subtopics",
        "node r.1: sub r.1", *stages, "node r.2: sub r.2", *stages,
        "self-deliberation r.1", "claims", "preemption", "subtopics",
        "node r.1.1: sub r.1.1", *stages, "node r.1.2: sub r.1.2", *stages,
        "synthesis",
    ]  # fmt: skip
    spans = {(r.call.purpose, r.call.agent, r.call.attempt): r.span for r in rt.recorded}
    assert spans[("present r.2", "author_1", 0)] == "present"
    assert spans[("relevance r", "author_0", 0)] == "preemption"
    assert spans[("expand r.1.2", "moderator", 0)] == "expand"
    assert spans[("synthesis", "moderator", 0)] == "synthesis"
    assert rt.info_titles() == [
        "self-deliberation r", "node r.1", "node r.2", "self-deliberation r.1",
        "node r.1.1", "node r.1.2", "tree", "synthesis",
    ]  # fmt: skip
    events = dict(rt.infos)
    r1, r2, r11, r12 = (events[f"node {n}"] for n in ("r.1", "r.2", "r.1.1", "r.1.2"))
    assert isinstance(r1, str) and isinstance(r2, str) and isinstance(r12, str)
    assert "- Author 0: r0 r.1. <r0 r.1 revised details>" in r1
    assert "- Author 1: **concedes**: r1 r.1. <r1 r.1 revised details>" in r1
    assert "**expanded** (expansion 1 of 1)" in r1
    assert "(progression or questions) and not clear winner → wants expansion" in r1
    assert "clear winner               yes" in r2 and "the rule does not want it" in r2
    assert "does not want expansion" in r2
    assert "the budget of 1 expansions is spent" in r12 and "<judged r.1.2>" in r12
    root = events["self-deliberation r"]
    assert isinstance(root, str) and "(retrieval query: text classification" in root
    assert "r.1    sub r.1" in root and isinstance(r11, str)


def test_the_tree_event_outlines_every_node_with_its_verdict() -> None:
    judged = {
        "r.1": (True, False, False),  # expanded
        "r.2": (False, True, False),  # expanded, but its subtopics cannot be read
        "r.3": (True, False, False),  # wants it, the budget of 2 is spent
        "r.1.1": (False, False, False),
        "r.1.2": (True, True, True),
        "r.1.3": None,
    }
    script = Script(
        expand=judged.__getitem__,
        unreadable=lambda call: call.purpose == "subtopics r.2",
        concedes=lambda node, author: node == "r.3" or (author == 1 and node != "r.2"),
    )
    _, rt, _ = run(script, TreeOptions(max_subtopics=3, max_expansions=2))
    assert rt.info_titles()[-2:] == ["tree", "synthesis"]
    assert dict(rt.infos)["tree"] == (
        "**The debate tree**\n\n"
        f"- r: {TOPIC}\n"
        "  - r.1: sub r.1 (expanded; concessions: Author 1)\n"
        "    - r.1.1: sub r.1.1 (leaf: no progression, no open questions; concessions: Author 1)\n"
        "    - r.1.2: sub r.1.2 (leaf: clear winner; concessions: Author 1)\n"
        "    - r.1.3: sub r.1.3 (leaf: unreadable judgment; concessions: Author 1)\n"
        "  - r.2: sub r.2 (expanded, no subtopics)\n"
        "  - r.3: sub r.3 (blocked: budget; concessions: Author 0, Author 1)"
    )
    # published before the synthesis call, outside its span
    assert rt.spans[-1] == "synthesis" and rt.calls[-1].purpose == "synthesis"
    # a title's line breaks do not break the outline
    lone = Node("r", None, 0, 0, "two\nlines  here", "-")
    assert _tree_markdown([lone]) == "**The debate tree**\n\n- r: two lines here"


def test_a_depth_limit_blocks_expansion_below_it() -> None:
    result, _, _ = run(Script(), TreeOptions(max_subtopics=2, max_expansions=None, max_depth=2))
    record = record_of(result)
    assert [n.id for n in record.nodes if n.deliberation] == ["r", "r.1", "r.2"]
    level_2 = [n.expansion for n in record.nodes if n.level == 2]
    assert len(level_2) == 4
    assert all(e is not None and e.wants and e.blocked == "depth" for e in level_2)
    assert record.budget is None and record.expansions == 2


@pytest.mark.parametrize("shown", ["code", "paper"])
def test_the_subtopics_call_below_the_root_shows_the_description_only_as_the_paper(
    shown: str,
) -> None:
    """subtopics_topic: the reference's subtopics prompt names a node by its title alone (its
    description slot repeats the title); the paper's also gives the description. The root's has
    no description either way, and the debate turns always show it."""
    _, rt, _ = run(Script(subtopics=2), TreeOptions(max_expansions=1, subtopics_topic=shown))
    below = text(the_call(rt, "subtopics r.1", "moderator"))
    # the node as named above the claims (the test retriever's excerpts echo their query)
    named = below[below.index("Topic: sub r.1") : below.index("Their claims")]
    assert ("Topic description: What r.1 is about." in named) == (shown == "paper")
    assert "What r.1 is about." not in text(the_call(rt, "subtopics r", "moderator"))
    assert "What r.1 is about." in text(the_call(rt, "present r.1", "author_0"))


def test_the_record_names_texts_chunks_and_titles() -> None:
    opts = TreeOptions(max_subtopics=1, max_expansions=0)
    result, _, _ = run(Script(), opts, (Retriever(0, size=12), Retriever(1, size=9)))
    record = record_of(result)
    assert record.chunks == (12, 9)
    assert record.texts == ("abstract+intro", "abstract+intro")
    assert record.titles == ("MegaClass: <title-0>", "LotsClass: <title-1>")
    assert record.topic == TOPIC
    assert result.options["k_evidence"] == 5 and result.options["expand_rule"] == "code"


# -- the baselines -----------------------------------------------------------------------------------


Baseline = Callable[[Session, PaperPair, SamplingOptions], Awaitable[DebateResult]]


def baseline(
    method: Baseline, script: Callable[[Call], str]
) -> tuple[DebateResult, ScriptedRuntime]:
    rt = ScriptedRuntime(script)
    session = Session(rt, Problem(question=PAIR.topic, fmt=FreeText()))
    return asyncio.run(method(session, PAIR, SamplingOptions())), rt


def test_single_stage_is_one_call_over_both_introductions() -> None:
    result, rt = baseline(single_stage, Script())
    (call,) = rt.calls
    assert call.asks == SummaryRequest("papers") and call.agent == "summarizer"
    assert (call.temperature, call.top_p, call.max_tokens) == (0.4, 0.99, 3000)
    prompt = text(call)
    assert prompt.startswith(OPENING) and "<intro-0>" in prompt and "<intro-1>" in prompt
    assert (
        "with more weight on the differences, based strictly on the information in the titles, "
        "abstracts and introductions above. Be specific and write as an expert on the topic "
        f"would. {tod_prompts.NAMES}"
    ) in prompt
    record = record_of(result)
    assert result.method == record.variant == "single_stage" and record.nodes == []
    assert result.final == record.summary == f"{SUMMARY} (papers, summary papers)"


def test_two_stage_summarises_each_paper_alone_then_compares() -> None:
    result, rt = baseline(two_stage, Script())
    assert [c.purpose for c in rt.calls] == [
        "summary paper 0",
        "summary paper 1",
        "summary comparison",
    ]
    first, second, comparison = (text(c) for c in rt.calls)
    assert "<intro-0>" in first and "<title-1>" not in first and "<intro-1>" in second
    assert "novel contributions of this paper from its title, abstract and introduction" in first
    assert (
        "based strictly on the information in the titles and summaries above. Be specific and "
        f"write as an expert on the topic would. {tod_prompts.NAMES}"
    ) in comparison
    assert all(t.startswith(OPENING) for t in (first, second, comparison))
    assert f"{SUMMARY} (paper, summary paper 0)" in comparison
    assert f"{SUMMARY} (paper, summary paper 1)" in comparison
    assert [c.asks for c in rt.calls] == [
        SummaryRequest("paper"),
        SummaryRequest("paper"),
        SummaryRequest("summaries"),
    ]
    assert result.method == "two_stage"
    assert result.final == f"{SUMMARY} (summaries, summary comparison)"

    failing, rt = baseline(two_stage, Script(unreadable=lambda c: c.purpose == "summary paper 1"))
    assert "(no summary could be read)" in text(rt.calls[-1])
    assert record_of(failing).fallbacks == [Fallback("", "summary", 1, NO_PAPER_SUMMARY)]
    assert failing.final is not None


def test_the_prompts_keep_the_reader_keys() -> None:
    """What the prompts ask for is what the readers and schemas read."""
    for kind, schema in SCHEMAS.items():
        for key in schema["properties"]:
            assert f'"{key}"' in tod_prompts.FORMATS[kind]

"""Tree-of-Debate end to end (spec section 10, case 11): `inspect_ai.eval()` of the `paper_compare`
task on the first synthetic pair of tests/fixtures/paper_compare/pairs.tsv, with a scripted model
that answers each call from what it asks for (`Call.asks`, read through `current_call`), never
from the prompt's wording, and reports token usage on every reply.

The script grows a small fixed tree: the root's self-deliberation gives two subtopics; the first
is expanded once into two more; the other three nodes stay leaves. The tests check the summary,
the record's tree against a golden file (tests/fixtures/paper_compare/golden_tree.json, itself
checked against the spec's section 2.7 shape), its nodes, expansion, fallbacks, the exact calls
per stage and the `tree_stats` figures; and that `swap_papers` makes paper_b Author 0.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model
from testdata import FIXTURES

from mad_tasks._inspect_sample import STORE_KEY
from mad_tasks.engine.methods.tod.papers import Paper, chunk, clean
from mad_tasks.engine.methods.tod.records import TreeRecord
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import (
    ArgumentRequest,
    ClaimsRequest,
    ExpandRequest,
    PreferenceRequest,
    RelevanceRequest,
    RubricRequest,
    SubtopicsRequest,
    SummaryRequest,
)
from mad_tasks.engine.runtime import Call
from mad_tasks.inspect_runtime import current_call
from mad_tasks.solvers import tree_of_debate
from mad_tasks.tasks.paper_compare import paper_compare, read_pairs

PAIRS = FIXTURES / "paper_compare" / "pairs.tsv"
GOLDEN_TREE = FIXTURES / "paper_compare" / "golden_tree.json"

FIRST = read_pairs(PAIRS).samples[0]  # tod-1, the one pair these evals run (limit 1)
TOPIC = FIRST.input
assert isinstance(TOPIC, str) and FIRST.metadata is not None
TITLE_A = FIRST.metadata["paper_a"]["title"]
TITLE_B = FIRST.metadata["paper_b"]["title"]

# -- the script: every reply is a function of the request's values --------------------------------

LINKING = "Linking distant evidence: passage graphs versus overlapping windows"
COST = "What indexing and answering a long document costs each method"
HOPS = "Fixed hop paths versus learned late interaction between passages"
NAMES = "Passages that name the same entity in different words"

# a node's topic title -> its subtopics: (title, description, Author 0's claims, Author 1's)
SUBTOPICS: dict[str, list[tuple[str, str, list[int], list[int]]]] = {
    TOPIC: [
        (LINKING, "How each paper connects facts that sit far apart in a document.", [1], [1]),
        (COST, "What each method spends to build its index and to answer.", [2], []),
    ],
    LINKING: [
        (HOPS, "Whether the path between passages is fixed or learned.", [1], [1]),
        (NAMES, "How each method copes with aliases across passages.", [2, 9], [1]),  # 9: no claim
    ],
}
CLAIMS = {TOPIC: (2, 2), LINKING: (2, 1)}  # claims per author at each self-deliberation
# the moderator's (progression, open questions, clear winner) per debated node; the code rule
# expands on (progression or questions) and not a clear winner: LINKING only
JUDGED = {
    LINKING: (True, False, False),
    COST: (False, False, True),
    HOPS: (False, True, True),
    NAMES: (False, False, False),
}
CONCEDES = {(COST, 1)}  # (topic, author) whose revision concedes

SUMMARY = (
    "Both papers retrieve passages to answer questions about long documents. HopGraph links "
    "passages in a graph and follows fixed hops, while DenseSlice scores overlapping windows with "
    "late interaction. The debate found the graph better for distant facts and the windows "
    "cheaper to index."
)
BASELINE = "Both papers answer questions over long documents; they retrieve passages differently."
LEVELS = {"breadth": 3, "contextualization": 4}

USAGE = ModelUsage(input_tokens=120, output_tokens=30, total_tokens=150)


def claim_title(author: int, k: int, topic: str) -> str:
    return f"Author {author} claim {k} on {topic}"


def revised(author: int, topic: str) -> tuple[str, str]:
    if (topic, author) in CONCEDES:
        return f"Author {author} concedes {topic}", "The opposition's method is better here."
    return (
        f"Author {author} revised on {topic}",
        f"Author {author} keeps its point after the debate.",
    )


def reply(asks: Any) -> str:
    """The reply to one request: a claim 2 is never countered (its segments judged irrelevant)."""
    match asks:
        case ClaimsRequest(author=author, topic=topic):
            claims = [
                {
                    "argument_title": claim_title(author, k, topic),
                    "description": f"Author {author}'s point {k}, from its excerpts.",
                    "evidence": [k],
                }
                for k in range(1, CLAIMS[topic][author] + 1)
            ]
            return json.dumps({"argument_list": claims})
        case RelevanceRequest(claim=claim):
            irrelevant = " claim 2 on " in claim
            return json.dumps(
                {
                    "supports_claim": "No",
                    "refutes_claim": "No" if irrelevant else "Yes",
                    "clarifies_claim": "No",
                    "irrelevant_to_claim": "Yes" if irrelevant else "No",
                }
            )
        case SubtopicsRequest(topic=topic):
            subtopics = [
                {
                    "topic_title": title,
                    "topic_description": description,
                    "author_0_relevant_contributions": a0,
                    "author_1_relevant_contributions": a1,
                }
                for title, description, a0, a1 in SUBTOPICS[topic]
            ]
            return json.dumps({"subtopic_list": subtopics})
        case ArgumentRequest(author=author, stage="present", topic=topic):
            return json.dumps(
                {
                    "argument_title": f"Author {author} presents on {topic}",
                    "description": f"Author {author}'s first argument.",
                }
            )
        case ArgumentRequest(author=author, stage="respond", topic=topic):
            return json.dumps(
                {"author_response": f"Author {author} answers the opposition on {topic} in turn."}
            )
        case ArgumentRequest(author=author, stage="revise", topic=topic):
            title, description = revised(author, topic)
            return json.dumps(
                {
                    "revised_argument_title": title,
                    "revised_argument_description": description,
                    "concedes": (topic, author) in CONCEDES,
                }
            )
        case ExpandRequest(topic=topic):
            yes = ("No", "Yes")
            progression, questions, winner = JUDGED[topic]
            return json.dumps(
                {
                    "explanation": f"The moderator's view of {topic}.",
                    "progression_of_arguments": yes[progression],
                    "meaningful_questions": yes[questions],
                    "clear_winner": yes[winner],
                }
            )
        case SummaryRequest(source="tree"):
            return json.dumps({"summary": SUMMARY})
        case SummaryRequest():  # the pairwise scorer's two-stage baseline
            return json.dumps({"summary": BASELINE})
        case RubricRequest(criterion="factuality", sentences=count):
            return json.dumps({"explanation": "All accurate.", "marks": [1] * count})
        case RubricRequest(criterion=criterion):
            return json.dumps({"explanation": "Graded.", "level": LEVELS[criterion]})
        case PreferenceRequest(a=a):
            return json.dumps(
                {"explanation": "Specific.", "preference": "A" if a == SUMMARY else "B"}
            )
    raise AssertionError(f"not a Tree-of-Debate request: {asks!r}")


def scripted(calls: list[Call]) -> Model:
    """A model that replies by `reply(call.asks)`, with token usage, keeping each call it got."""

    def output(input: list[ChatMessage], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        call = current_call.get()
        assert call is not None, "a model call outside the package's runtime"
        calls.append(call)
        out = ModelOutput.from_content(model="mockllm/model", content=reply(call.asks))
        out.usage = USAGE
        return out

    return get_model("mockllm/model", custom_outputs=output)


def evaluate(calls: list[Call], log_dir: Path, **kwargs: Any) -> tuple[EvalLog, EvalSample]:
    """The paper_compare task by its factory on the fixture, its first pair only."""
    task: Task = paper_compare(data_path=str(PAIRS))
    [log] = eval(
        task, model=scripted(calls), limit=1, display="none", log_dir=str(log_dir), **kwargs
    )
    assert log.status == "success", log.error
    [sample] = log.samples or []
    assert sample.id == "tod-1"
    return log, sample


def record_of(sample: EvalSample) -> tuple[DebateResult, TreeRecord]:
    result = DebateResult.from_dict(sample.store[STORE_KEY])
    assert isinstance(result.record, TreeRecord)
    return result, result.record


# -- the tree JSON's shape (spec section 2.7) ------------------------------------------------------

NODE_KEYS = {"topic", "description", "author_0_argument", "author_1_argument"}


def check_shape(tree: dict[str, Any]) -> int:
    """Assert the synthesis input's shape: the root `{topic, children}`; every other node
    `{topic, description, author_0_argument, author_1_argument}` plus `children` when it has any
    (a leaf has no `children` key); all values text. Returns the number of non-root nodes."""
    assert set(tree) == {"topic", "children"} and isinstance(tree["topic"], str)

    def nodes(children: Any) -> int:
        assert isinstance(children, list) and children  # present only when there are children
        count = 0
        for node in children:
            assert set(node) in (NODE_KEYS, NODE_KEYS | {"children"}), sorted(node)
            assert all(isinstance(node[key], str) and node[key] for key in NODE_KEYS)
            count += 1 + (nodes(node["children"]) if "children" in node else 0)
        return count

    return nodes(tree["children"])


def test_the_golden_tree_has_the_synthesis_input_shape() -> None:
    golden = json.loads(GOLDEN_TREE.read_text(encoding="utf-8"))
    assert check_shape(golden) == 4
    assert golden["topic"] == TOPIC


def test_the_shape_check_can_fail() -> None:
    golden = json.loads(GOLDEN_TREE.read_text(encoding="utf-8"))
    leaf = golden["children"][1]
    assert "children" not in leaf
    for broken in (
        {**golden, "description": TOPIC},  # a root described like a node
        {**golden, "children": [{**leaf, "children": []}]},  # a leaf with an empty list
        {**golden, "children": [{**leaf, "author_1_argument": None}]},
    ):
        with pytest.raises(AssertionError):
            check_shape(broken)


# -- the eval ---------------------------------------------------------------------------------------

# (id, parent, level, breadth-first order, children, contributions of Author 0 and Author 1)
NODES = [
    ("r", None, 0, 0, ("r.1", "r.2"), ((), ())),
    ("r.1", "r", 1, 1, ("r.1.1", "r.1.2"), ((1,), (1,))),
    ("r.2", "r", 1, 2, (), ((2,), ())),
    ("r.1.1", "r.1", 2, 3, (), ((1,), (1,))),
    ("r.1.2", "r.1", 2, 4, (), ((2,), (1,))),  # Author 0's id 9 names no claim: dropped
]
TITLES = {"r": TOPIC, "r.1": LINKING, "r.2": COST, "r.1.1": HOPS, "r.1.2": NAMES}

# calls per stage: two self-deliberations (r, r.1), four debated nodes, one synthesis; relevance:
# k_preempt=2 segments per opponent claim, at r 2 x (2 + 2), at r.1 2 x (1 + 2)
STAGES = {
    "claims": 4,
    "relevance": 14,
    "subtopics": 2,
    "present": 8,
    "respond": 8,
    "revise": 8,
    "expand": 4,
    "synthesis": 1,
}
# what the record's `tree_stats` come to: 4 debated nodes down to level 2, one expansion, two
# self-deliberations, one concession; the relevance filter keeps the 8 segments of the 14 that were
# retrieved against a claim 1
STATS = {
    "nodes": 4,
    "depth": 2,
    "expansions": 1,
    "deliberations": 2,
    "concessions": 1,
    "evidence_kept": 8 / 14,
    "fallbacks": 0,
}


def test_paper_compare_end_to_end_matches_the_golden_tree(tmp_path: Path) -> None:
    log, sample = evaluate([], tmp_path)
    assert sample.output.completion == SUMMARY
    result, record = record_of(sample)
    assert result.method == "tree_of_debate" and result.final == SUMMARY
    assert record.summary == SUMMARY and record.titles == (TITLE_A, TITLE_B)

    # the tree the synthesis read, exactly
    assert record.tree == json.loads(GOLDEN_TREE.read_text(encoding="utf-8"))

    # the nodes in breadth-first order, the one expansion, no fallback
    got = [(n.id, n.parent, n.level, n.order, n.children, n.contributions) for n in record.nodes]
    assert got == NODES
    assert {n.id: n.title for n in record.nodes} == TITLES
    assert [n.id for n in record.nodes if n.deliberation is not None] == ["r", "r.1"]
    assert record.nodes[0].debate is None  # the root only deliberates
    expansions = {n.id: n.expansion for n in record.nodes if n.expansion is not None}
    assert {i: (e.wants, e.granted, e.blocked) for i, e in expansions.items()} == {
        "r.1": (True, True, None),
        "r.2": (False, False, None),
        "r.1.1": (False, False, None),
        "r.1.2": (False, False, None),
    }
    assert {i: (e.progression, e.questions, e.clear_winner) for i, e in expansions.items()} == {
        i: JUDGED[TITLES[i]] for i in expansions
    }
    assert record.expansions == 1 and record.budget == 3
    assert record.fallbacks == []

    # calls per stage, from the record's purposes ("<stage> <node id>"; the synthesis alone)
    stages = Counter(c.purpose.split(" ", 1)[0] for c in result.calls)
    assert stages == STAGES
    assert len(result.calls) == sum(STAGES.values()) == 49
    assert all(c.attempt == 0 for c in result.calls)  # every reply read the first time
    assert {(c.input_tokens, c.output_tokens) for c in result.calls} == {(120, 30)}
    judged = [
        j
        for n in record.nodes
        for d in n.deliberation or ()
        for p in d.preemption
        for j in p.judged
    ]
    assert len(judged) == STAGES["relevance"]

    # the figures: the record's stats, each sample score and each mean in the log's results
    assert record.stats() == STATS
    assert sample.scores is not None
    assert {name: sample.scores[name].value for name in STATS} == STATS
    assert log.results is not None
    means = {s.name: s.metrics["mean"].value for s in log.results.scores if "mean" in s.metrics}
    assert {name: means[name] for name in STATS} == STATS
    # the judges graded the scripted summary as scripted, and preferred it to the baseline
    assert means["tod_factuality"] == 100.0
    assert means["tod_breadth"] == 75.0 and means["tod_contextualization"] == 100.0
    wins = [means[f"tod_win_{c}"] for c in ("factuality", "breadth", "contextualization")]
    assert wins == [1.0, 1.0, 1.0]


# -- swap_papers ------------------------------------------------------------------------------------


def chunks_of(paper: dict[str, str]) -> set[str]:
    """The chunks a paper's retriever can return (the solver's own cleaning and chunking)."""
    return set(chunk(clean(Paper(paper["title"], paper["abstract"], paper["introduction"]).text)))


def test_swap_papers_makes_paper_b_author_0(tmp_path: Path) -> None:
    """With swap_papers, paper_b is Author 0. Checked without reading the prompt's wording (both
    titles are in every prompt, so a title's presence proves nothing): the record's titles are
    (paper_b's, paper_a's); Author 0's evidence pool in the record, and the segments it judges
    against Author 1's claims (the `RelevanceRequest` values its calls carry), are chunks of
    paper_b and of no chunk of paper_a; and author_0's claims call shows each excerpt of that
    pool. The unswapped run gives the mirror image, so the test fails if the option is ignored."""
    assert FIRST.metadata is not None
    papers = {False: FIRST.metadata["paper_a"], True: FIRST.metadata["paper_b"]}
    chunks = {swap: chunks_of(paper) for swap, paper in papers.items()}
    assert chunks[False].isdisjoint(chunks[True])
    for swap in (False, True):
        calls: list[Call] = []
        _, sample = evaluate(
            calls, tmp_path / str(swap), solver=tree_of_debate(swap_papers=swap), score=False
        )
        _, record = record_of(sample)
        own, other = chunks[swap], chunks[not swap]
        assert record.titles == ((TITLE_B, TITLE_A) if swap else (TITLE_A, TITLE_B))
        root = record.nodes[0]
        assert root.deliberation is not None
        pool = [e.text for e in root.deliberation[0].evidence]
        assert len(pool) == 5 and set(pool) <= own and set(pool).isdisjoint(other)

        judging = [
            c for c in calls if c.agent == "author_0" and isinstance(c.asks, RelevanceRequest)
        ]
        assert len(judging) == 2 * 2 + 2 * 1  # at r against 2 claims, at r.1 against 1
        segments = {c.asks.segment for c in judging if isinstance(c.asks, RelevanceRequest)}
        assert segments <= own and segments.isdisjoint(other)

        [asked] = [c for c in calls if c.agent == "author_0" and c.purpose == "claims r"]
        assert isinstance(asked.asks, ClaimsRequest) and asked.asks.author == 0
        shown = "\n".join(m.text for m in asked.messages)
        assert all(text.strip() in shown for text in pool)

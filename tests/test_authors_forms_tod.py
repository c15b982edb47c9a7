"""`-S answer_form=authors` and Tree-of-Debate (docs/fidelity.md, its "Answer form"): the five
solvers refuse it by name, with why, before any call; their calls already ask for the JSON objects
of the authors' code (pkargupta/tree-of-debate @ e2a311f, the pydantic schemas of `persona.py`,
`moderator.py` and `baselines/run_baseline.py`), so a tree whose every reply is exactly such an
object reads whole, and no call asks for the project's `ANSWER:` line."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
from scripted import ScriptedRuntime, last_user

from mad_tasks import solvers
from mad_tasks.engine.answers import FreeText
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.tod import prompts
from mad_tasks.engine.methods.tod.baselines import single_stage, two_stage
from mad_tasks.engine.methods.tod.debate import tree_of_debate
from mad_tasks.engine.methods.tod.options import SamplingOptions, TreeOptions
from mad_tasks.engine.methods.tod.papers import Paper, PaperPair
from mad_tasks.engine.methods.tod.records import TreeRecord
from mad_tasks.engine.protocols.tod import read_subtopics
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

SOLVERS = ("tree_of_debate", "tod_no_tree", "tod_no_sd", "single_stage", "two_stage")
REFUSED = (
    "invalid solver option 'answer_form': got 'authors', allowed: project (Tree-of-Debate and "
    "its baselines write a summary, not an answer in a task's format, and every call already "
    "asks for the JSON object of the authors' code, by its keys)"
)

# the keys of the authors' pydantic schemas, per call kind (their code asks for nothing else)
THEIRS = {
    "claims": {"argument_list", "argument_title", "description", "evidence"},
    "relevance": {"supports_claim", "refutes_claim", "clarifies_claim", "irrelevant_to_claim"},
    "subtopics": {
        "subtopic_list",
        "topic_title",
        "topic_description",
        "author_0_relevant_contributions",
        "author_1_relevant_contributions",
    },
    "present": {"argument_title", "description"},
    "respond": {"author_response"},
    "revise": {"revised_argument_title", "revised_argument_description"},
    "expand": {"explanation", "progression_of_arguments", "meaningful_questions", "clear_winner"},
    "summary": {"summary"},
}
OURS_ALSO = {"present": {"concedes"}, "revise": {"concedes"}}  # optional: the concessions figure

PAIR = PaperPair(
    Question.of(["weakly supervised text classification"]),
    (
        Paper("GraphHop", "We propagate labels over a word graph.", "Labels are scarce."),
        Paper("SeedWords", "We expand seed words into classifiers.", "Seeds are cheap."),
    ),
)
SUMMARY = "GraphHop and SeedWords both start from few labels; they differ in what they expand."


class Retriever:
    size = 3  # chunks

    def search(self, query: str, k: int) -> list[Evidence]:
        return [Evidence(i, i - 1, f"excerpt {i} on {query}", 1 / i) for i in range(1, k + 1)]


def kind(call: Call) -> str:
    asks = call.asks
    if isinstance(asks, ArgumentRequest):
        return asks.stage
    kinds = {
        ClaimsRequest: "claims",
        RelevanceRequest: "relevance",
        SubtopicsRequest: "subtopics",
        ExpandRequest: "expand",
        SummaryRequest: "summary",
    }
    return kinds[type(asks)]


def authors_reply(call: Call) -> str:
    """The object the authors' constrained decoding gives for the call: their keys, no other."""
    objects = {
        "claims": {
            "argument_list": [
                {"argument_title": "Graphs spread labels", "description": "Excerpt 1 shows it.",
                 "evidence": [1]}
            ]
        },
        "relevance": {"supports_claim": "yes", "refutes_claim": "no", "clarifies_claim": "no",
                      "irrelevant_to_claim": "no"},
        "subtopics": {
            "subtopic_list": [
                {"topic_title": f"label propagation, part {k}",
                 "topic_description": "How each paper spreads its few labels.",
                 "author_0_relevant_contributions": [1], "author_1_relevant_contributions": [1]}
                for k in (1, 2)
            ]
        },
        "present": {"argument_title": "Our graph needs fewer labels",
                    "description": "GraphHop reaches its accuracy with ten labels."},
        "respond": {"author_response": "Seed words also need few labels, but how are they "
                                       "chosen? Your graph assumes a vocabulary."},
        "revise": {"revised_argument_title": "Our graph needs fewer and cheaper labels",
                   "revised_argument_description": "GraphHop needs no chosen seeds at all."},
        "expand": {"explanation": "New ideas came up.", "progression_of_arguments": "Yes",
                   "meaningful_questions": "No", "clear_winner": "No"},
        "summary": {"summary": SUMMARY},
    }  # fmt: skip
    reply = objects[kind(call)]
    assert _keys(json.dumps(reply)) == THEIRS[kind(call)]
    return json.dumps(reply)


def _keys(text: str) -> set[str]:
    return set(re.findall(r'"(\w+)":', text))


@pytest.mark.parametrize("name", SOLVERS)
def test_each_tree_of_debate_solver_refuses_the_authors_form_by_name_with_why(name: str) -> None:
    assert CATALOGUE[name].authors_form is None
    with pytest.raises(OptionError) as refused:
        getattr(solvers, name)(answer_form="authors")
    assert str(refused.value) == REFUSED
    getattr(solvers, name)(answer_form="project")  # the default, taken
    assert CATALOGUE[name].defaults()["answer_form"] == "project"


def test_the_prompts_ask_for_the_authors_objects_and_no_answer_line() -> None:
    for stage, keys in THEIRS.items():
        assert _keys(prompts.FORMATS[stage]) == keys | OURS_ALSO.get(stage, set())
        assert "ANSWER" not in prompts.FORMATS[stage]


def run(method, opts, retrievers=()) -> tuple[DebateResult, ScriptedRuntime]:
    rt = ScriptedRuntime(authors_reply)
    session = Session(rt, Problem(question=PAIR.topic, fmt=FreeText()))
    return asyncio.run(method(session, PAIR, opts, *retrievers)), rt


def asks_for_the_object(rt: ScriptedRuntime) -> None:
    for call in rt.calls:
        prompt = last_user(call)
        assert prompt.endswith(f"in this format:\n{prompts.FORMATS[kind(call)]}"), call.purpose
        assert "ANSWER" not in prompt


def test_a_tree_of_the_authors_objects_reads_whole() -> None:
    opts = TreeOptions(max_subtopics=2, max_expansions=1, retries=0)
    result, rt = run(tree_of_debate, opts, ((Retriever(), Retriever()),))
    record = result.record
    assert isinstance(record, TreeRecord)
    assert record.fallbacks == []  # every reply read: no persona skipped, no leaf, no abstention
    assert [n.id for n in record.nodes] == ["r", "r.1", "r.2", "r.1.1", "r.1.2"]
    # two deliberations (2 claims, 2 x 2 relevance, 1 subtopics), 4 nodes x 7, the synthesis
    assert len(rt.calls) == 2 * 7 + 4 * 7 + 1
    assert result.final == SUMMARY
    asks_for_the_object(rt)


@pytest.mark.parametrize("method, calls", [(single_stage, 1), (two_stage, 3)])
def test_the_baselines_read_the_authors_summary_object(method, calls: int) -> None:
    result, rt = run(method, SamplingOptions(retries=0))
    assert len(rt.calls) == calls and result.final == SUMMARY
    asks_for_the_object(rt)


def test_no_trees_combined_subtopic_reads_only_in_its_list() -> None:
    """The authors' No-Tree asks for the one combined subtopic as a bare object; ours asks for a
    list of one, and a bare object does not read (the call is followed up)."""
    one = {"topic_title": "label propagation and seed expansion", "topic_description": "Both.",
           "author_0_relevant_contributions": [1], "author_1_relevant_contributions": []}  # fmt: skip
    assert read_subtopics(json.dumps(one), (1, 1), 1) is None
    [read] = read_subtopics(json.dumps({"subtopic_list": [one]}), (1, 1), 1) or []
    assert (read.title, read.contributions) == ("label propagation and seed expansion", ((1,), ()))

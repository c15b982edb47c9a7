"""Tree-of-Debate's scorers: the judge's readers and rules with golden values, the rubric and
pairwise judges in real evals (a grader that replies by what each call asks for, always with token
usage, and `madsim`), the grader fallback, the pairwise baseline run once per sample, and the tree
figures from a record."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval, score
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from scripted import ScriptedRuntime

from mad_tasks._inspect_sample import NO_RESULT, save_result
from mad_tasks.engine.answers import FreeText
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.tod.judge import (
    REMINDER,
    Level,
    Marks,
    Preference,
    factuality_score,
    grade,
    level_score,
    prefer,
    preference_prompt,
    read_level,
    read_marks,
    read_preference,
    rubric_prompt,
    rubric_schema,
    win_value,
)
from mad_tasks.engine.methods.tod.papers import Paper, PaperPair
from mad_tasks.engine.methods.tod.records import (
    Argument,
    Debate,
    Deliberation,
    Fallback,
    Judged,
    Node,
    Preemption,
    TreeRecord,
)
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.engine.requests import PreferenceRequest, RubricRequest, SummaryRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.inspect_runtime import current_call
from mad_tasks.scorers._options import ScorerOptionError
from mad_tasks.scorers.tod import (
    BASELINE_KEY,
    FIGURES,
    NO_JUDGED,
    NOT_TREE,
    kind_of,
    tod_breadth,
    tod_judge,
    tod_pairwise,
    tod_win_factuality,
    tree_stats,
)

# -- the rules and readers, golden values --------------------------------------------------------


def test_levels_and_marks_normalise_to_a_hundred() -> None:
    assert [level_score(level) for level in range(5)] == [0.0, 25.0, 50.0, 75.0, 100.0]
    assert factuality_score([1, 1, 0, 1]) == 75.0
    assert factuality_score([0]) == 0.0 and factuality_score([1, 1, 1]) == 100.0


@pytest.mark.parametrize(
    "first, second, value",
    [
        ("A", "B", 1.0),  # the output both times (shown as A, then as B)
        ("B", "A", 0.0),  # the baseline both times
        ("A", "A", 0.5),  # the orders disagree: the first shown both times
        ("B", "B", 0.5),
        ("tie", "tie", 0.5),
        ("A", "tie", 0.75),
        ("tie", "A", 0.25),
        (None, "B", 1.0),  # an unreadable order is left out, never a tie or a loss
        ("B", None, 0.0),
        (None, "tie", 0.5),
        (None, None, None),
    ],
)
def test_both_orders_aggregate_for_the_tested_summary(
    first: str | None, second: str | None, value: float | None
) -> None:
    assert win_value(first, second) == value


@pytest.mark.parametrize(
    "reply, marks",
    [
        ('{"explanation": "ok", "marks": [1, 0, 1, 1]}', (1, 0, 1, 1)),
        ('Here: ```json\n{"MARKS": [true, false, "1", " 0 "]}\n```', (1, 0, 1, 0)),
        ('{"marks": [1.0, 0, 1, 1]}', (1, 0, 1, 1)),
        ('{"marks": [1, 0, 1]}', None),  # one mark short
        ('{"marks": [1, 0, 1, 1, 1]}', None),  # one too many
        ('{"marks": [1, 2, 1, 1]}', None),
        ('{"marks": [1, "yes", 1, 1]}', None),
        ('{"marks": [1, null, 1, 1]}', None),
        ('{"marks": "1, 0, 1, 1"}', None),
        ("1. 1\n2. 0\n3. 1\n4. 1", None),  # not the JSON asked for
        ("", None),
    ],
)
def test_factuality_marks_are_read_exactly_or_not_at_all(reply: str, marks) -> None:
    got = read_marks(reply, 4)
    assert (got.marks if got else None) == marks


def test_a_reader_keeps_the_explanation() -> None:
    assert read_marks('{"explanation": " two wrong ", "marks": [0]}', 1) == Marks((0,), "two wrong")
    assert read_level('{"Level": 2, "Explanation": "fine"}') == Level(2, "fine")
    assert read_preference('{"preference": "B"}') == Preference("B", "")


@pytest.mark.parametrize(
    "reply, level",
    [
        ('{"level": 3}', 3),
        ('{"level": "4"}', 4),
        ('{"level": 0.0}', 0),
        ('{" level ": 1}', 1),
        ('{"level": 5}', None),
        ('{"level": -1}', None),
        ('{"level": 2.5}', None),
        ('{"level": true}', None),
        ('{"level": "three"}', None),
        ('{"level": "3/4"}', None),
        ('{"level": null}', None),
        ('{"score": 3}', None),
    ],
)
def test_levels_are_zero_to_four(reply: str, level: int | None) -> None:
    got = read_level(reply)
    assert (got.level if got else None) == level


@pytest.mark.parametrize(
    "reply, choice",
    [
        ('{"preference": "A"}', "A"),
        ('{"preference": "b"}', "B"),
        ('{"preference": "Summary B"}', "B"),
        ('{"preference": "TIE"}', "tie"),
        ('{"preference": "both"}', None),  # a hedge is no tie
        ('{"preference": "neither"}', None),
        ('{"preference": "A or B"}', None),
        ('{"preference": "no idea"}', None),
        ('{"preference": ""}', None),
        ('{"preference": 1}', None),
    ],
)
def test_preferences_are_a_b_or_tie(reply: str, choice: str | None) -> None:
    got = read_preference(reply)
    assert (got.choice if got else None) == choice


@pytest.mark.parametrize(
    "metadata, kind",
    [
        ({"kind": "task", "method_or_task": 0}, "task"),
        ({"method_or_task": 0}, "method"),
        ({"method_or_task": 1}, "task"),
        ({"method_or_task": True}, None),
        ({"kind": "other"}, None),
        ({}, None),
    ],
)
def test_the_pair_kind_comes_from_the_metadata(metadata: dict, kind: str | None) -> None:
    assert kind_of(metadata) == kind


# -- the judge in the engine, on a scripted grader ----------------------------------------------

PAPERS = (
    Paper("GraphHop: passage graphs", "We link passages into a graph.", "Intro of GraphHop."),
    Paper("FlatRank: dense reranking", "We rerank passages densely.", "Intro of FlatRank."),
)
SUMMARY = (
    "Both papers retrieve passages for multi-hop questions. GraphHop links passages into a graph. "
    "FlatRank reranks them densely, e.g. with a cross-encoder. Their costs differ by 2.5 times."
)
SENTENCES = 4


def pair() -> PaperPair:
    return PaperPair(Question.of(["multi-hop retrieval"]), PAPERS)


def engine_grade(
    reply: Callable[[Call], str], summary: str = SUMMARY, criterion: str = "factuality"
):
    runtime = ScriptedRuntime(reply)
    session = Session(runtime, Problem(pair().topic, FreeText()), retries=1)
    graded = asyncio.run(grade(session, pair(), "method", summary, criterion))
    return runtime, graded


def test_factuality_is_one_batched_call_over_numbered_sentences() -> None:
    runtime, graded = engine_grade(lambda call: '{"explanation": "-", "marks": [1, 1, 0, 1]}')
    [call] = runtime.calls
    assert (call.agent, call.role, call.purpose) == ("grader", "grader", "factuality")
    assert call.asks == RubricRequest("factuality", SENTENCES)
    assert call.schema == rubric_schema("factuality", SENTENCES)
    assert call.schema["properties"]["marks"]["minItems"] == SENTENCES
    prompt = call.messages[-1].text
    # the decimal and the abbreviation do not split a sentence
    assert "3. FlatRank reranks them densely, e.g. with a cross-encoder." in prompt
    assert "4. Their costs differ by 2.5 times." in prompt
    assert "a method pair" in prompt and "Intro of FlatRank." in prompt
    assert graded.value == 75.0 and graded.grade == Marks((1, 1, 0, 1), "-")


def test_an_unreadable_grade_is_followed_up_then_left_without_a_value() -> None:
    runtime, graded = engine_grade(lambda call: '{"level": "high"}', criterion="breadth")
    assert [c.attempt for c in runtime.calls] == [0, 1]
    assert runtime.calls[1].messages[-1].text == REMINDER
    assert graded.value is None and graded.grade is None and len(graded.replies) == 2


def test_a_summary_without_a_sentence_scores_zero_without_a_call() -> None:
    runtime, graded = engine_grade(lambda call: '{"level": 4}', summary=" \n ", criterion="breadth")
    assert runtime.calls == [] and graded.value == 0.0


def test_the_three_criteria_share_their_prompt_up_to_the_instructions() -> None:
    shown = ["One sentence.", "Another one."]
    prompts = [rubric_prompt(pair(), "task", shown, c) for c in ("factuality", "breadth")]
    head = prompts[0][: prompts[0].index("Grade the summary")]
    assert head.endswith("2. Another one.\n[end of Summary]\n\n")
    assert prompts[1].startswith(head)


def test_the_judge_labels_each_paper_by_its_title() -> None:
    """A summary names the papers by their titles: the grader sees each paper under its own."""
    graph = (
        '[Paper "GraphHop: passage graphs"]\nAbstract: We link passages into a graph.\n\n'
        'Introduction: Intro of GraphHop.\n[end of Paper "GraphHop: passage graphs"]'
    )
    flat = '[Paper "FlatRank: dense reranking"]\nAbstract: We rerank passages densely.'
    shown = ["One sentence."]
    for prompt in (
        rubric_prompt(pair(), "method", shown, "factuality"),
        rubric_prompt(pair(), "method", shown, "contextualization"),
        preference_prompt(pair(), "method", "Summary one.", "Summary two.", "breadth"),
    ):
        assert isinstance(prompt, str)
        assert graph in prompt and flat in prompt and prompt.index(graph) < prompt.index(flat)
        assert "Paper 1" not in prompt and "Paper 2" not in prompt
    # a title's line break stays out of the label
    broken = PaperPair(pair().topic, (Paper("GraphHop:\n passage graphs", "-", ""), PAPERS[1]))
    assert '[Paper "GraphHop: passage graphs"]\nAbstract: -\n[end of Paper' in rubric_prompt(
        broken, None, shown, "breadth"
    )


def test_pairwise_shows_the_output_first_as_a_then_as_b() -> None:
    def reply(call: Call) -> str:
        asks = call.asks
        assert isinstance(asks, PreferenceRequest)
        return '{"preference": "A"}' if "order 1" in call.purpose else "unsure"

    runtime = ScriptedRuntime(reply)
    session = Session(runtime, Problem(pair().topic, FreeText()), retries=0)
    compared = asyncio.run(prefer(session, pair(), None, SUMMARY, "The baseline.", "breadth"))
    shown = sorted((c.purpose, c.asks.a, c.asks.b) for c in runtime.calls)
    assert shown == [
        ("breadth order 1", SUMMARY, "The baseline."),
        ("breadth order 2", "The baseline.", SUMMARY),
    ]
    assert runtime.spans == ["order 1", "order 2"]
    # order 2 unreadable: left out, so order 1's win stands alone
    assert compared.choices == ("A", None) and compared.value == 1.0


# -- in an eval ---------------------------------------------------------------------------------

PAPER_META = {
    "paper_a": {"title": PAPERS[0].title, "abstract": PAPERS[0].abstract,
                "introduction": PAPERS[0].introduction, "full_text": "", "url": ""},
    "paper_b": {"title": PAPERS[1].title, "abstract": PAPERS[1].abstract,
                "introduction": PAPERS[1].introduction, "full_text": "", "url": ""},
}  # fmt: skip
BASELINE = "The baseline says the papers differ. It says little else."
GRADER_MODEL = {"grader": "mockllm/model"}  # the mock is bound in the tests that pass `mock()`


@solver
def says(summaries: dict[str, str]) -> Solver:
    """The output is the sample's summary, by sample id (no debate record)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(
            model="none", content=summaries[str(state.sample_id)]
        )
        return state

    return solve


def samples(n: int = 2, **meta: Any) -> MemoryDataset:
    return MemoryDataset(
        [
            Sample(
                id=f"s{i}",
                input="multi-hop retrieval",
                metadata={**PAPER_META, "kind": "method", "baseline": BASELINE, **meta},
            )
            for i in range(1, n + 1)
        ]
    )


def mock(reply: Callable[[Any, str], str]) -> Model:
    """A grader replying by what the call asks for (`asks`) and its prompt, with token usage."""

    def output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        call = current_call.get()
        text = reply(call.asks if call else None, "\n".join(m.text for m in input))
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=30, output_tokens=6, total_tokens=36)
        return out

    return get_model("mockllm/model", custom_outputs=output)


def events(sample: EvalSample, kind: str) -> list:
    return [e for e in sample.events if e.event == kind]


def results(log: EvalLog) -> dict[str, tuple[float, int, int]]:
    """Per scorer: its mean, scored and unscored samples."""
    return {
        s.name: (s.metrics["mean"].value, s.scored_samples, s.unscored_samples)
        for s in log.results.scores
        if "mean" in s.metrics
    }


def rubric(asks: Any, prompt: str) -> str:
    """Marks 1 1 0 1 for sample s1's summary, level 2 for breadth, nothing readable for
    contextualization on s2."""
    assert isinstance(asks, RubricRequest)
    if asks.criterion == "factuality":
        return '{"explanation": "The last but one is wrong.", "marks": [1, 1, 0, 1]}'
    if asks.criterion == "breadth":
        return '{"explanation": "Misses minor points.", "level": 2}'
    return '{"level": 4}' if "GraphHop links" in prompt and "Nothing" not in prompt else "hmm"


def test_the_rubric_judge_scores_each_criterion(run) -> None:
    other = SUMMARY.replace("Their costs", "Nothing. Their costs")  # 5 sentences: not 4 marks
    task = Task(
        dataset=samples(), solver=says({"s1": SUMMARY, "s2": other}), scorer=tod_judge(retries=0)
    )
    log = run(task, model="madsim/x", model_roles={"grader": mock(rubric)})
    by_name = results(log)
    # s2's factuality and contextualization were unreadable: left out of the mean, counted
    assert by_name["tod_factuality"] == (75.0, 1, 1)
    assert by_name["tod_breadth"] == (50.0, 2, 0)
    assert by_name["tod_contextualization"] == (100.0, 1, 1)
    s1, s2 = log.samples
    # the grade in the metadata: the viewer's answer column shows the summary, not "3/4"
    assert s1.scores["tod_factuality"].answer == SUMMARY
    assert s1.scores["tod_factuality"].metadata["graded"] == "3/4"
    assert s1.scores["tod_factuality"].explanation.startswith(
        "3 of 4 sentences marked accurate (marks 1 1 0 1).\n\nThe last but one is wrong."
    )
    assert s1.scores["tod_breadth"].explanation.startswith(
        "Level 2 of 4: it covers the major points but misses minor ones."
    )
    unread = s2.scores["tod_contextualization"]
    assert math.isnan(unread.value) and unread.reason == "grader_failed"
    assert unread.explanation.startswith("Unreadable grade: none of the grader's 1 replies")
    assert "left out of the mean" in unread.explanation
    metadata = s1.scores["tod_breadth"].metadata
    grading = metadata["grading"]
    assert (grading["calls"], grading["input_tokens"], grading["output_tokens"]) == (1, 30, 6)
    assert grading["roles"] == {"grader": {"model": "mockllm/model", "fallback": None}}
    assert len(metadata["sentences"]) == 4
    # three grading calls per sample, on the grader role only, none of them self-graded
    for sample in log.samples:
        assert [e.role for e in events(sample, "model")] == ["grader"] * 3
        assert not any(s.explanation.startswith("Self-graded") for s in sample.scores.values())


def test_an_empty_output_scores_zero_without_a_grading_call(run) -> None:
    task = Task(dataset=samples(1), solver=says({"s1": ""}), scorer=tod_judge())
    log = run(task, model="madsim/x", model_roles={"grader": mock(rubric)})
    criteria = ("tod_factuality", "tod_breadth", "tod_contextualization")
    assert results(log) == dict.fromkeys(criteria, (0.0, 1, 0))
    assert events(log.samples[0], "model") == []
    assert log.samples[0].scores["tod_breadth"].answer == "no output"


def test_a_more_accurate_simulated_grader_grades_higher(run) -> None:
    task = Task(dataset=samples(3), solver=says(dict.fromkeys(("s1", "s2", "s3"), SUMMARY)),
                scorer=tod_judge(grader_fallback="allow"))  # fmt: skip
    high = results(run(task, model="madsim/x", model_args={"accuracy": 1.0}))
    low = results(run(task, model="madsim/x", model_args={"accuracy": 0.0}))
    assert high["tod_factuality"][0] == 100.0  # every mark 1
    assert high["tod_breadth"][0] >= 75.0 and low["tod_breadth"][0] <= 25.0
    assert low["tod_factuality"][0] < 100.0


# -- who grades ---------------------------------------------------------------------------------


def warnings_in(log: EvalLog) -> list[str]:
    return [e.message.message for s in log.samples for e in events(s, "logger")]


def test_an_unbound_grader_falls_back_to_the_model_under_evaluation_and_says_so(run) -> None:
    task = Task(dataset=samples(2), solver=says({"s1": SUMMARY, "s2": SUMMARY}),
                scorer=tod_breadth())  # fmt: skip
    log = run(task, model="madsim/x")
    why = (
        "no model is bound to the grader role, so the model under evaluation (madsim/x) grades "
        "its own output"
    )
    [warning] = warnings_in(log)  # once per run
    assert f"tod_breadth: {why}. Bind --model-role grader=<model>" in warning
    for sample in log.samples:
        assert sample.scores["tod_breadth"].explanation.startswith(f"Self-graded: {why}.\n\n")


def test_grader_fallback_error_fails_before_any_grading_call(tmp_path: Path) -> None:
    task = Task(dataset=samples(1), solver=says({"s1": SUMMARY}),
                scorer=tod_breadth(grader_fallback="error"))  # fmt: skip
    [log] = eval(task, model="madsim/x", display="none", log_dir=str(tmp_path))
    assert log.status == "error"
    assert "tod_breadth (grader_fallback=error): no model is bound to the grader role" in (
        log.error.message
    )
    assert events(log.samples[0], "model") == []


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: tod_breadth(retries=11), "invalid scorer option 'retries': got 11"),
        (lambda: tod_judge(grader_fallback="maybe"), "invalid scorer option 'grader_fallback'"),
        (lambda: tod_pairwise(baseline="three_stage"), "invalid scorer option 'baseline'"),
        (lambda: tod_win_factuality(baseline="metadata:"), "invalid scorer option 'baseline'"),
        (lambda: tod_judge(baseline="two_stage"), "invalid scorer option 'baseline': .*no such"),
    ],
)
def test_bad_options_raise_an_error_inspect_score_shows(make, message: str) -> None:
    with pytest.raises(ScorerOptionError, match=message):
        make()


# -- pairwise -----------------------------------------------------------------------------------


def prefers(pick: Callable[[str, str], str]) -> Callable[[Any, str], str]:
    def reply(asks: Any, prompt: str) -> str:
        assert isinstance(asks, PreferenceRequest)
        return f'{{"explanation": "because", "preference": "{pick(asks.a, asks.b)}"}}'

    return reply


def pairwise_task(summaries: dict[str, str], **options: Any) -> Task:
    return Task(
        dataset=samples(len(summaries)),
        solver=says(summaries),
        scorer=tod_pairwise(**{"baseline": "metadata:baseline", **options}),
    )


WINS = ("tod_win_factuality", "tod_win_breadth", "tod_win_contextualization")


@pytest.mark.parametrize(
    "pick, value",
    [
        (lambda a, b: "A" if a == SUMMARY else "B", 1.0),  # the output in both orders
        (lambda a, b: "A", 0.5),  # the first shown, whichever it is
        (lambda a, b: "tie", 0.5),
        (lambda a, b: "B" if a == SUMMARY else "A", 0.0),
        (lambda a, b: "A" if a == SUMMARY else "unsure", 1.0),  # order 2 left out
    ],
    ids=["output", "position", "tie", "baseline", "one-order"],
)
def test_pairwise_win_rates(run, pick, value: float) -> None:
    log = run(pairwise_task({"s1": SUMMARY}, retries=0), model="madsim/x",
              model_roles={"grader": mock(prefers(pick))})  # fmt: skip
    assert {name: results(log)[name] for name in WINS} == dict.fromkeys(WINS, (value, 1, 0))
    score = log.samples[0].scores["tod_win_breadth"]
    assert score.metadata["baseline"] == {"source": "metadata:baseline", "summary": BASELINE}
    assert score.metadata["grading"]["calls"] == 2  # one per order (no follow-ups: retries=0)


def test_pairwise_unreadable_in_both_orders_is_left_out(run) -> None:
    log = run(pairwise_task({"s1": SUMMARY}, retries=0), model="madsim/x",
              model_roles={"grader": mock(lambda asks, prompt: "no idea")})  # fmt: skip
    # no sample graded: listed with no mean (Inspect's would be NaN), the sample counted unscored
    [score] = [s for s in log.results.scores if s.name == "tod_win_breadth"]
    assert (score.metrics, score.scored_samples, score.unscored_samples) == ({}, 0, 1)
    assert log.samples[0].scores["tod_win_breadth"].reason == "grader_failed"


def test_pairwise_without_a_baseline_summary_is_left_out(run) -> None:
    task = Task(dataset=samples(1, baseline=""), solver=says({"s1": SUMMARY}),
                scorer=tod_pairwise(baseline="metadata:baseline"))  # fmt: skip
    log = run(task, model="madsim/x", model_roles={"grader": mock(prefers(lambda a, b: "A"))})
    score = log.samples[0].scores["tod_win_factuality"]
    assert math.isnan(score.value) and score.reason == "scoring_failed"
    assert events(log.samples[0], "model") == []


@pytest.mark.parametrize("baseline", ["metadata:baseline", "two_stage"])
def test_an_empty_output_loses_without_a_call(run, baseline: str) -> None:
    # not even the baseline's calls: there is nothing to compare it with
    log = run(pairwise_task({"s1": ""}, baseline=baseline), model="madsim/x",
              model_roles={"grader": mock(prefers(lambda a, b: "A"))})  # fmt: skip
    assert results(log)["tod_win_breadth"] == (0.0, 1, 0)
    assert events(log.samples[0], "model") == []


def test_a_missing_baseline_field_fails_naming_the_option(tmp_path: Path) -> None:
    task = Task(dataset=samples(1), solver=says({"s1": SUMMARY}),
                scorer=tod_win_factuality(baseline="metadata:nowhere"))  # fmt: skip
    [log] = eval(task, model="madsim/x", model_roles=GRADER_MODEL, display="none",
                 log_dir=str(tmp_path))  # fmt: skip
    assert log.status == "error" and "invalid scorer option 'baseline'" in log.error.message
    assert "no text metadata field 'nowhere'" in log.error.message


@pytest.mark.parametrize("baseline, calls", [("two_stage", 3), ("single_stage", 1)])
def test_a_baseline_method_runs_once_per_sample_for_the_three_criteria(
    run, baseline: str, calls: int
) -> None:
    def reply(asks: Any, prompt: str) -> str:
        if isinstance(asks, SummaryRequest):
            return (
                '{"summary": "' + f"A {asks.source} summary of the papers, long enough. " * 2 + '"}'
            )
        return prefers(lambda a, b: "A" if a == SUMMARY else "B")(asks, prompt)

    task = Task(dataset=samples(2), solver=says({"s1": SUMMARY, "s2": SUMMARY}),
                scorer=tod_pairwise(baseline=baseline))  # fmt: skip
    log = run(task, model=mock(reply), model_roles={"grader": mock(reply)})
    assert {name: results(log)[name] for name in WINS} == dict.fromkeys(WINS, (1.0, 2, 0))
    for sample in log.samples:
        roles = [e.role for e in events(sample, "model")]
        assert roles.count("summarizer") == calls and roles.count("grader") == 6
        stored = DebateResult.from_dict(sample.store[BASELINE_KEY + baseline])
        assert stored.method == baseline and len(stored.calls) == calls
        about = sample.scores["tod_win_contextualization"].metadata["baseline"]
        assert about["source"] == baseline and about["calls"] == calls
        assert about["summary"] == stored.final
        assert about["roles"] == {
            "summarizer": {"model": "mockllm/model", "fallback": "main model"}
        }


def test_the_judges_score_a_log_after_the_fact(run) -> None:
    log = run(Task(dataset=samples(2), solver=says({"s1": SUMMARY, "s2": SUMMARY})),
              model="madsim/x")  # fmt: skip
    scorers = [*tod_judge(), *tod_pairwise(baseline="single_stage")]
    scored = score(log, scorers, model_roles={"grader": "madsim/grader"}, display="none")
    names = ("tod_factuality", "tod_breadth", "tod_contextualization", *WINS)
    assert {name: counts for name, (_, *counts) in results(scored).items()} == {
        name: [2, 0] for name in names
    }
    for sample in scored.samples:
        # the baseline ran once for the three criteria (`inspect score` keeps no store changes)
        runs = [e for e in events(sample, "model") if e.role == "summarizer"]
        assert len(runs) == 1 and runs[0].model == "madsim/x"  # on the main model
        graders = [e for e in events(sample, "model") if e.role == "grader"]
        assert len(graders) == 3 + 6 and {e.model for e in graders} == {"madsim/grader"}


# -- tree_stats ---------------------------------------------------------------------------------


def judged(kept: bool) -> Judged:
    return Judged("a segment", True, False, False, not kept, kept)


def deliberation(author: int, kept: tuple[bool, ...]) -> Deliberation:
    return Deliberation(
        author, "q", (), (), (Preemption(1, "q", tuple(map(judged, kept)), ("a segment",)),)
    )


def debated(id: str, parent: str, level: int, concedes: tuple[bool, bool] = (False, False)):
    revised = tuple(Argument("t", "d", c) for c in concedes)
    return Node(id, parent, level, 0, "t", "d", debate=Debate((None, None), (None, None), revised))


TREE = TreeRecord(
    variant="tree_of_debate",
    topic="multi-hop retrieval",
    titles=(PAPERS[0].title, PAPERS[1].title),
    texts=("abstract+intro", "abstract+intro"),
    nodes=[
        Node("r", None, 0, 0, "root", "root", children=("r.1", "r.2"),
             deliberation=(deliberation(0, (True, False)), deliberation(1, (True, True)))),
        debated("r.1", "r", 1, (True, False)),
        Node("r.2", "r", 1, 2, "t", "d", debate=Debate((None, None), (None, None), (None, None)),
             deliberation=(deliberation(0, (False,)), deliberation(1, ()))),
        debated("r.2.1", "r.2", 2, (True, True)),
    ],
    expansions=1,
    budget=3,
    fallbacks=[Fallback("r.2", "revise", 0, "unreadable revise"), Fallback("", "x", None, "y")],
)  # fmt: skip


def result(record: TreeRecord | None) -> DebateResult:
    return DebateResult("tree_of_debate", "s", [AgentAnswer("moderator", 1, "s", "s")], [],
                        record=record)  # fmt: skip


@solver
def stores(records: dict[str, DebateResult | None]) -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        kept = records[str(state.sample_id)]
        if kept is not None:
            save_result(state, kept, {})
        return state

    return solve


def stats_of(log: EvalLog) -> dict[str, dict[str, Any]]:
    """Per sample: each tree figure's value, or its reason when unscored."""
    names = [s.name for s in log.results.scores if s.name in {f.name for f in FIGURES}]
    return {
        s.id: {
            n: s.scores[n].reason if math.isnan(s.scores[n].value) else s.scores[n].value
            for n in names
        }
        for s in log.samples
    }


def test_tree_figures_come_from_the_record(run) -> None:
    baseline = TreeRecord("two_stage", "t", ("a", "b"), ("abstract+intro",) * 2,
                          fallbacks=[Fallback("", "summary", 1, "no paper summary")])  # fmt: skip
    no_sd = TreeRecord("tod_no_sd", "t", ("a", "b"), ("abstract+intro",) * 2, nodes=[
        Node("r", None, 0, 0, "t", "t", children=("r.1",)), debated("r.1", "r", 1)])  # fmt: skip
    records = {
        "s1": result(TREE),
        "s2": result(baseline),
        "s3": result(no_sd),
        "s4": result(None),
        "s5": None,
    }
    task = Task(dataset=samples(5), solver=stores(records), scorer=tree_stats())
    log = run(task, model="madsim/x")
    got = stats_of(log)
    assert got["s1"] == {
        "nodes": 3,
        "depth": 2,
        "expansions": 1,
        "deliberations": 2,
        "concessions": 3,
        "evidence_kept": 3 / 5,
        "fallbacks": 2,
    }
    no_tree = "the two_stage baseline builds no tree"
    assert got["s2"] == {**dict.fromkeys(got["s1"], no_tree), "fallbacks": 1}
    assert got["s3"]["evidence_kept"] == NO_JUDGED and got["s3"]["nodes"] == 1
    assert got["s4"] == dict.fromkeys(got["s1"], NOT_TREE)
    assert got["s5"] == dict.fromkeys(got["s1"], NO_RESULT)
    first = log.samples[0].scores
    assert [f["node"] for f in first["fallbacks"].metadata["replaced"]] == ["r.2", ""]
    assert first["expansions"].metadata == {"budget": 3, "variant": "tree_of_debate"}
    assert isinstance(first["nodes"].value, int)

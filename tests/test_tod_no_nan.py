"""Tree-of-Debate's judges when no sample could be graded (scorers/tod.py, `graded_mean`): a limit
that refuses every grading call leaves each criterion with no mean and no stderr in the results,
where Inspect's own mean of no scores is NaN; graded samples keep both, by those names."""

from __future__ import annotations

import math

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.scorer import SampleScore, Score
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import LimitExceededError

from mad_tasks.scorers.tod import graded_mean, tod_judge, tod_pairwise

SUMMARY = "GraphHop and SeedWords both start from few labels. They differ in what they expand."
PAPER = {"introduction": "Labels are scarce.", "full_text": "", "url": ""}
CRITERIA = ("factuality", "breadth", "contextualization")
SCORERS = [f"tod_{c}" for c in CRITERIA] + [f"tod_win_{c}" for c in CRITERIA]


@solver
def says() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        state.output = ModelOutput.from_content(model="none", content=SUMMARY)
        return state

    return solve


def task() -> Task:
    metadata = {
        "paper_a": {"title": "GraphHop", "abstract": "Labels spread over a graph.", **PAPER},
        "paper_b": {"title": "SeedWords", "abstract": "Seed words grow classifiers.", **PAPER},
        "kind": "method",
        "baseline": "The papers differ. They use labels. Little else is said here.",
    }
    samples = [Sample(id=f"s{i}", input="text classification", metadata=metadata) for i in (1, 2)]
    return Task(
        dataset=MemoryDataset(samples),
        solver=says(),
        scorer=[*tod_judge(retries=0), *tod_pairwise(retries=0, baseline="metadata:baseline")],
    )


def refused(*args: object) -> ModelOutput:
    raise LimitExceededError("time", value=2, limit=1)


def test_no_criterion_has_a_mean_when_a_limit_refused_every_grade(run) -> None:
    grader = get_model("mockllm/model", custom_outputs=refused)
    log = run(task(), model="madsim/x", model_roles={"grader": grader})
    assert log.results is not None
    listed = {s.name: (s.metrics, s.scored_samples) for s in log.results.scores}
    assert listed == {name: ({}, 0) for name in SCORERS}  # listed, with no figure, never NaN
    assert all(not s.scores for s in log.samples or [])  # no score at all, never a NaN one


def test_graded_samples_keep_their_mean_and_stderr(run) -> None:
    log = run(task(), model="madsim/x", model_roles={"grader": "madsim/x"})
    assert log.results is not None
    for score in log.results.scores:
        assert set(score.metrics) == {"mean", "stderr"} and score.scored_samples == 2
        assert all(math.isfinite(m.value) for m in score.metrics.values())


def test_the_metric_is_inspects_mean_and_stderr_or_nothing() -> None:
    scores = [SampleScore(score=Score(value=v), sample_id=i) for i, v in enumerate((50, 100))]
    assert graded_mean()(scores) == {"mean": 75.0, "stderr": 25.0}
    assert graded_mean()([]) == {"mean": None, "stderr": None}

"""What tells runs apart in the log viewer, checked in the logs the viewer reads.

The samples lists show a sample's scores as columns: every solver writes its method as the
metric-less score `mad_tasks/method`. The eval list shows a log's task, main model and tags:
`mad-tasks tag` adds the run label (method, `-S` options given, roles bound to a model), the same
tag `inspect eval --tags` gives at run time. scripts/viewer-check.sh checks both in a browser.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog, EvalSampleSummary, read_eval_log, write_eval_log
from inspect_ai.scorer import Score
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.cli import main
from mad_tasks.log_tags import MAX_VALUE, cut_note, run_label, sample_cut, tag_logs
from mad_tasks.solvers import cot, du_debate, more, voting
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

INSPECT = Path(sys.executable).parent / "inspect"
METHOD = "mad_tasks/method"


def inspect_eval(tmp_path: Path, *args: str) -> Path:
    """`inspect eval` as a user types it, on strategyqa's fixture; the new log's path."""
    logs = tmp_path / "logs"
    before = set(logs.glob("*.eval"))
    command = [
        str(INSPECT), "eval", "mad_tasks/strategyqa", "-T", f"data_path={STRATEGYQA}",
        "--limit", "2", "--log-dir", str(logs), "--display", "none", *args,
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    [path] = set(logs.glob("*.eval")) - before
    return path


# -- the samples lists: each sample's method ---------------------------------------------------------


@pytest.mark.parametrize(
    ("solver", "task", "method"),
    [
        (cot(), "strategyqa", "cot"),
        (
            voting(agents=2, max_turns=2, vote_turn=1),
            "strategyqa",
            "voting agents=2 max_turns=2 vote_turn=1",
        ),
        (more(advocates=1, jurors=1), "mt_bench_judge", "more jurors=1 advocates=1"),
    ],
    ids=["baseline", "decision", "judge"],
)
def test_every_sample_names_its_method_in_a_score_without_metrics(run, solver, task, method):
    """The method and each option that differs from its defaults."""
    made = (
        strategyqa(data_path=str(STRATEGYQA))
        if task == "strategyqa"
        else mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=2)
    )
    log = run(made, solver=solver, model="madsim/x", limit=2)
    assert [s.scores[METHOD].value for s in log.samples] == [method, method]
    # a label, not a figure: no metric of it in the eval's results, so the eval list shows none
    assert all(METHOD not in (s.name, s.scorer) for s in log.results.scores)


def test_the_method_score_names_each_roles_model_and_survives_epochs(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=du_debate(),
        model="madsim/x",
        model_roles={"agent_3": "madsim/y"},
        limit=2,
        epochs=2,
    )
    scores = [s.scores[METHOD] for s in log.samples]
    assert len(scores) == 4
    assert {(s.value, s.explanation) for s in scores} == {
        ("du_debate agent_3=madsim/y", "agent_1, agent_2: madsim/x; agent_3: madsim/y")
    }
    # Inspect reduces a score over epochs only by its metrics: none here, so no reduction either
    assert METHOD not in {r.scorer for r in log.reductions or []}
    assert all(METHOD not in (s.name, s.scorer) for s in log.results.scores)


def summary(cut: dict | None = None, scored: bool = True) -> EvalSampleSummary:
    scores = {METHOD: Score(value="du_debate", metadata=cut)} if scored else None
    return EvalSampleSummary(id=1, epoch=1, input="q", target="t", scores=scores)


def test_the_cut_note_counts_the_cut_samples_their_limits_and_the_rounds_that_ran() -> None:
    token = {"stopped": "token", "rounds": 1}
    assert cut_note([summary(), summary(None, scored=False)]) is None  # nothing was cut
    assert (
        cut_note([summary(token), summary()]) == "cut by token limit in 1 of 2 samples: 1 round ran"
    )
    assert cut_note([summary(token), summary({"stopped": "budget", "rounds": 3}), summary(),
                     summary({"stopped": "token", "rounds": 0})]) == (
        "cut by token limit and -S budget in 3 of 4 samples: 0-3 rounds ran"
    )  # fmt: skip
    assert sample_cut({"stopped": "working", "rounds": 2}) == "cut by working limit: 2 rounds ran"


# -- the eval list: the run label as a tag ----------------------------------------------------------


@pytest.mark.slow
def test_tag_labels_a_cli_run_with_method_options_and_role_models_once(tmp_path: Path) -> None:
    path = inspect_eval(
        tmp_path, "--solver", "du_debate", "-S", "agents=2", "--model", "madsim/x",
        "--model-role", "agent_2=madsim/y",
    )  # fmt: skip
    before = read_eval_log(str(path))
    assert tag_logs([str(tmp_path / "logs")]) == [
        (str(path), "tagged 'du_debate agents=2 agent_2=madsim/y'")
    ]
    header = read_eval_log(str(path), header_only=True)
    # what the eval list shows: the tag beside the task and main model
    assert header.tags == ["du_debate agents=2 agent_2=madsim/y"]
    assert (header.eval.task, header.eval.model) == ("mad_tasks/strategyqa", "madsim/x")
    assert header.log_updates is not None
    assert header.log_updates[0].provenance.author == "mad-tasks tag"
    assert header.eval.tags is None  # the eval's spec is as the run wrote it
    after = read_eval_log(str(path))
    assert after.samples == before.samples  # the samples are left as written
    assert tag_logs([str(path)]) == [(str(path), "nothing to add")]
    assert read_eval_log(str(path), header_only=True).log_updates == header.log_updates


@pytest.mark.slow
def test_tags_given_at_run_time_are_the_same_label(tmp_path: Path) -> None:
    label = "cortex agents=2 agent_1=madsim/y"
    path = inspect_eval(
        tmp_path, "--solver", "mad_tasks/cortex", "-S", "agents=2", "--model", "madsim/x",
        "--model-role", "agent_1=madsim/y", "--tags", label,
    )  # fmt: skip
    header = read_eval_log(str(path), header_only=True)
    assert header.tags == [label] == [run_label(header)]
    assert tag_logs([str(path)]) == [(str(path), "nothing to add")]


def test_a_tasks_own_solver_is_labelled_from_the_plan(run) -> None:
    base = strategyqa(data_path=str(STRATEGYQA))
    task = Task(dataset=base.dataset, solver=du_debate(rounds=1), scorer=base.scorer)
    log = run(task, model="madsim/x", limit=1)
    assert log.eval.solver is None
    # the options a task set are not told from defaults there: the method alone
    assert run_label(log) == "du_debate"


def test_a_running_log_is_left_alone_and_long_values_are_cut(run, tmp_path: Path) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=cot(templates={"step_by_step": "x" * 100 + " {question} {instruction}"}),
        model="madsim/x",
        limit=1,
    )
    [label] = [run_label(log)]
    assert label is not None
    method, value = label.split(" ", 1)
    assert method == "cot"
    assert value.startswith('templates={"step_by_step":"xxx')
    assert len(value) == len("templates=") + MAX_VALUE and value.endswith("…")

    running = tmp_path / "running.eval"
    write_eval_log(log.model_copy(update={"status": "started"}), str(running))
    assert tag_logs([str(running)]) == [(str(running), "still running: left alone")]
    assert read_eval_log(str(running), header_only=True).tags == []


def test_the_command_tags_a_directory_and_says_what_it_did(
    run, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log: EvalLog = run(
        strategyqa(data_path=str(STRATEGYQA)), solver=cot(), model="madsim/x", limit=1
    )
    (tmp_path / "empty").mkdir()
    with pytest.raises(SystemExit) as stopped:  # the logs it found are tagged all the same
        main(["tag", str(tmp_path / "logs"), str(tmp_path / "nowhere"), str(tmp_path / "empty")])
    assert stopped.value.code == 1  # a path with nothing to tag is an error a script sees
    assert capsys.readouterr().out.splitlines() == [
        f"{log.location}: tagged 'cot'",
        f"{tmp_path / 'nowhere'}: no such file or directory",
        f"{tmp_path / 'empty'}: no logs found",
    ]
    assert read_eval_log(log.location, header_only=True).tags == ["cot"]
    main(["tag", str(tmp_path / "logs")])  # all found, nothing new: exit 0
    assert capsys.readouterr().out.splitlines() == [f"{log.location}: nothing to add"]

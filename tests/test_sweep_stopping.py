"""Stopping a sweep early (`sweep_stopping.py`): the interval and agreement rules as numbers, the
manager as Inspect calls it, and sweeps through `mad-tasks reproduce` that stop early and that do
not, with `--batch` reaching the provider's batch API."""

from __future__ import annotations

import asyncio
import math
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log
from inspect_ai.model import BatchConfig
from inspect_ai.scorer import SampleScore, Score
from openai_batch_stub import OpenAIBatchStub
from openai_stub import OpenAIStub
from pydantic import JsonValue
from test_reproduce import write_experiment
from testdata import STRATEGYQA

from mad_tasks import reproduce
from mad_tasks.cli import main
from mad_tasks.reproduce import experiments as experiments_module
from mad_tasks.reproduce import load_experiment, run_experiment
from mad_tasks.sweep_stopping import StopRule, SweepStopping, agreeing, interval_width

# the StrategyQA fixture's gold answers, in order: a model that always says yes is right on these
DATA = {"sqa": str(STRATEGYQA)}
GOLD_YES = [1, 0, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1]


def test_the_interval_is_wilsons_for_rates_and_the_normal_one_otherwise() -> None:
    assert interval_width([1.0]) is None  # one sample: no interval
    assert interval_width([0.5, 0.5]) == pytest.approx(0.810938, abs=1e-6)
    # ten right answers: Wilson's interval [0.7225, 1] (a normal one would be 0 wide)
    assert interval_width([1.0] * 10) == pytest.approx(0.277533, abs=1e-6)
    assert interval_width([1.0] * 5 + [0.0] * 5) == pytest.approx(0.526814, abs=1e-6)
    # a score outside [0, 1]: mean ± 1.96 standard errors
    assert interval_width([2.0, 4.0]) == pytest.approx(3.919928, abs=1e-6)


def test_answers_agree_only_when_enough_of_them_are_the_same_answer() -> None:
    assert agreeing(["yes", "yes"], 2)
    assert not agreeing(["yes", "no"], 2)
    assert not agreeing([None, None], 2)  # a missing answer never agrees
    assert agreeing(["no", "yes", "yes"], 2)
    assert not agreeing(["no", "yes", "yes"], 3)


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        (StopRule(width=0.0), r"--stop-width: got 0.0, allowed: a number in \(0, 1\]"),
        (StopRule(width=1.5), r"--stop-width: got 1.5"),
        (StopRule(width=math.nan), r"--stop-width: got nan"),
        (StopRule(width=0.1, min_samples=1), r"--stop-min-samples: got 1, allowed: >= 2"),
        (StopRule(epochs_agree=1), r"--stop-epochs-agree: got 1, allowed: an integer from 2"),
        (StopRule(epochs_agree=4), r"--stop-epochs-agree: got 4, .* the epochs \(3\)"),
    ],
)
def test_a_rule_out_of_range_is_refused_by_name(rule: StopRule, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        rule.check(epochs=3)


def scored(value: str, answer: str | None) -> dict[str, SampleScore]:
    return {"final_answer": SampleScore(score=Score(value=value, answer=answer), sample_id=0)}


def test_the_manager_stops_new_samples_once_narrow_and_a_samples_epochs_once_they_agree() -> None:
    async def run() -> tuple[list[object], dict[str, JsonValue]]:
        manager = SweepStopping(StopRule(width=0.5, min_samples=3, epochs_agree=2))
        await manager.start_task(None, [], 3)  # type: ignore[arg-type]
        seen: list[object] = []
        await manager.complete_sample(1, 1, scored("C", "yes"))
        seen.append(await manager.schedule_sample(1, 2))  # one epoch: goes on
        await manager.complete_sample(1, 2, scored("C", "yes"))
        seen.append(await manager.schedule_sample(1, 3))  # two agree: skipped
        for i, value in enumerate(GOLD_YES[1:12], start=2):
            await manager.complete_sample(i, 1, scored("C" if value else "I", "yes"))
        seen.append(await manager.schedule_sample(13, 1))  # 12 samples: 0.492 < 0.5
        return seen, await manager.complete_task()

    seen, summary = asyncio.run(run())
    assert seen[0] is None
    assert [(s.id, s.epoch, s.reason) for s in seen[1:]] == [  # type: ignore[attr-defined]
        (1, 3, "2 of its epochs gave the same answer"),
        (13, 1, "the headline's 95% interval (0.492 wide after 12 samples) is narrower than 0.5"),
    ]
    assert summary["stopped_after_samples"] == 12 and summary["skipped"] == 2


def sweep(
    tmp_path: Path, stub: OpenAIStub, stopping: StopRule, limit: int = 20, epochs: int = 1
) -> reproduce.RowRun:
    experiment = load_experiment(
        write_experiment(
            tmp_path, "early", rows=[{"label": "One", "solver": "single"}], paper_values={}
        )
    )
    [run] = run_experiment(
        experiment,
        "openai-api/stub/m",
        str(tmp_path / "logs"),
        data=DATA,
        epochs=epochs,
        stopping=stopping,
        limit=limit,
        max_samples=1,  # one sample at a time: each is scored before the next is asked for
        model_base_url=stub.base_url,
        display="none",
    )
    return run


def test_a_sweep_stops_once_its_headline_interval_is_narrower_than_the_width(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")
    with OpenAIStub(reply=lambda body: "I weighed it.\nANSWER: yes") as stub:
        run = sweep(tmp_path, stub, StopRule(width=0.5, min_samples=3))
        assert len(stub.requests) == 12  # the 13th sample was never started
    log = read_eval_log(run.logs[0].location)
    assert log.status == "success" and len(log.samples or []) == 12
    summary = log.results.early_stopping if log.results else None
    assert summary is not None and len(summary.early_stops) == 8
    assert summary.metadata["stopped_after_samples"] == 12
    experiment = load_experiment(tmp_path / "early.yaml")
    table = reproduce.measure(experiment, [run], "openai-api/stub/m", None, 1, "logs", DATA)
    assert "One / sqa: stopped early: 8 sample runs skipped, 12 run (the headline's 95%" in (
        reproduce.to_markdown(table)
    )


def test_a_sweep_whose_interval_stays_wide_runs_every_sample(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")
    with OpenAIStub(reply=lambda body: "I weighed it.\nANSWER: yes") as stub:
        run = sweep(tmp_path, stub, StopRule(width=0.3, min_samples=3))
        assert len(stub.requests) == 20
    log = read_eval_log(run.logs[0].location)
    assert len(log.samples or []) == 20
    assert log.results is not None and log.results.early_stopping is not None
    assert log.results.early_stopping.early_stops == []
    experiment = load_experiment(tmp_path / "early.yaml")
    table = reproduce.measure(experiment, [run], "openai-api/stub/m", None, 1, "logs", DATA)
    assert "stopped early" not in reproduce.to_markdown(table)


def test_the_command_sends_batch_and_attaches_the_early_stop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "k")
    path = write_experiment(
        tmp_path, "batched", rows=[{"label": "One", "solver": "single"}], paper_values={}
    )
    monkeypatch.setattr(experiments_module, "EXPERIMENTS", tmp_path)
    stub = OpenAIBatchStub(reply=lambda body: "I weighed it.\nANSWER: yes")
    with stub:
        args = ["reproduce", path.stem, "--model", "openai/gpt-4o-mini", "--limit", "2"]
        config = tmp_path / "batch.yaml"  # a batch goes when 2 calls are in it, or after 0.2 s
        config.write_text("size: 2\nsend_delay: 0.2\ntick: 0.05\n")
        args += ["--epochs", "3", "--stop-epochs-agree", "2", "--batch", str(config)]
        args += ["--model-base-url", stub.base_url, "-M", "responses_api=false"]
        main([*args, "--log-dir", str(tmp_path / "logs"), "--data", f"sqa={STRATEGYQA}"])
        batches = list(stub.batches)
    assert batches and sum(batches) == len(stub.requests)  # every call went through a batch
    [log_file] = (tmp_path / "logs" / "batched").rglob("*.eval")
    log = read_eval_log(str(log_file))
    batch = log.eval.model_generate_config.batch
    assert isinstance(batch, BatchConfig) and (batch.size, batch.send_delay) == (2, 0.2)
    summary = log.results.early_stopping if log.results else None
    assert summary is not None and summary.manager == "mad_tasks/sweep_stopping"
    assert summary.metadata["epochs_agree"] == 2
    # the epochs went into the batches at once, so none could wait for another's answer
    assert summary.early_stops == [] and len(log.samples or []) == 6


def test_a_samples_later_epochs_are_skipped_once_two_agree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")
    with OpenAIStub(reply=lambda body: "I weighed it.\nANSWER: yes") as stub:
        run = sweep(tmp_path, stub, StopRule(epochs_agree=2), limit=2, epochs=3)
        assert len(stub.requests) == 4  # two epochs of each sample
    log = read_eval_log(run.logs[0].location)
    summary = log.results.early_stopping if log.results else None
    assert summary is not None
    assert [(s.id, s.epoch, s.reason) for s in summary.early_stops] == [
        ("fx-01", 3, "2 of its epochs gave the same answer"),
        ("fx-02", 3, "2 of its epochs gave the same answer"),
    ]


def test_the_commands_refuse_a_bad_stop_or_batch_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["reproduce", "seed004_table1", "--model", "madsim/x", "--log-dir", str(tmp_path)]
    for extra, said in [
        (["--stop-width", "2"], "--stop-width: got 2.0, allowed: a number in (0, 1]"),
        (["--stop-epochs-agree", "5"], "--stop-epochs-agree: got 5, allowed: an integer from 2"),
        (["--batch", "nofile.yaml"], "--batch 'nofile.yaml': not a size or a readable"),
        (["--batch", "0"], "--batch: got 0, allowed: a size >= 1, a file, or nothing"),
    ]:
        with pytest.raises(SystemExit) as stopped:
            main([*args, *extra])
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # nothing ran


def test_compare_gives_every_model_its_own_stop_and_passes_batch(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", "mad_tasks/strategyqa", "-T", f"data_path={STRATEGYQA}"]
    args += ["--solver", "single", "--model", "madsim/a", "--model", "madsim/b", "--limit", "20"]
    args += ["--max-samples", "1", "--stop-width", "0.6", "--stop-min-samples", "4"]
    main([*args, "--batch", "5", "--log-dir", str(tmp_path)])
    logs = [read_eval_log(str(f)) for f in sorted((tmp_path / "single").glob("*.eval"))]
    assert sorted(log.eval.model for log in logs) == ["madsim/a", "madsim/b"]
    for log in logs:
        assert log.eval.model_generate_config.batch == 5
        summary = log.results.early_stopping if log.results else None
        assert summary is not None
        # each run counted only its own samples: a shared manager would count both runs'
        assert summary.metadata["samples_scored"] == len(log.samples or []) == 7
        assert len(summary.early_stops) == 13
    out = capsys.readouterr().out
    assert out.count("/ single / madsim/") == 2 and "stopped early, 13 sample runs skipped" in out


def test_compare_refuses_a_bad_stop_before_any_call(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["compare", "mad_tasks/strategyqa", "--solver", "single", "--model", "madsim/a"]
    for extra, said in [
        (["--stop-epochs-agree", "2"], "--stop-epochs-agree: got 2, allowed: an integer from 2 "),
        (["--epochs", "0"], "--epochs: got 0, allowed: from 1 to 20"),
        (["--max-samples", "0"], "--max-samples: got 0, allowed: >= 1"),
    ]:
        with pytest.raises(SystemExit) as stopped:
            main([*args, *extra, "--log-dir", str(tmp_path)])
        assert stopped.value.code == 2
        assert said in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []

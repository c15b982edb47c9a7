"""Dollars in every run: the shipped price file prices the providers the docs use and madsim the
way `--model-cost-config` does, a bad file is refused by name before any run, and
`mad-tasks compare --model-cost-config` states each run's dollars."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from inspect_ai.log import read_eval_log
from inspect_ai.model import ModelInfo, get_model_info, set_model_info
from testdata import STRATEGYQA

from mad_tasks.cli import main
from mad_tasks.prices import PRICES, apply_prices

DOCUMENTED = ["openai/gpt-4o-mini", "openai/gpt-4o", "anthropic/claude-sonnet-4-5", "madsim/x"]


@pytest.fixture
def restored() -> Iterator[None]:
    """The models of the shipped file as they were before the test priced them (the price
    registry is the process's: other tests run madsim/x without a price)."""
    models = list(yaml.safe_load(PRICES.read_text(encoding="utf-8")))
    before = {model: get_model_info(model) for model in models}
    yield
    for model, info in before.items():
        set_model_info(model, info or ModelInfo())


def test_the_shipped_file_prices_the_models_the_docs_use(restored) -> None:
    text = PRICES.read_text(encoding="utf-8")
    assert "Dated 2026-11-27" in text  # a dated file, how to keep it current in docs/costs.md
    apply_prices(PRICES)
    prices = yaml.safe_load(text)
    for model in DOCUMENTED:
        info = get_model_info(model)
        assert info is not None and info.cost is not None, model
        assert info.cost.input == prices[model]["input"] > 0
        assert info.cost.output == prices[model]["output"] > 0


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("- just a list\n", "give a mapping of model name to prices"),
        ("openai/gpt-4o:\n  input: 1\n", "openai/gpt-4o: give input, output"),
        (
            "openai/gpt-4o: {input: -1, output: 1, input_cache_write: 1, input_cache_read: 1}\n",
            "openai/gpt-4o: a price below 0",
        ),
        ("openai/gpt-4o: {input: 1, output: [\n", "cannot be read"),
        (
            "openai/gpt-4o: {input: .inf, output: 1, input_cache_write: 1, input_cache_read: 1}\n",
            "openai/gpt-4o: a price below 0 or not finite",
        ),
        (
            "nosuch/model-x: {input: 1, output: 1, input_cache_write: 1, input_cache_read: 1}\n",
            "nosuch/model-x",
        ),
    ],
)
def test_a_bad_price_file_is_refused_by_name_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, says: str
) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(content, encoding="utf-8")
    args = ["compare", "mad_tasks/strategyqa", "--model", "madsim/x", "--solver", "single"]
    args += ["--log-dir", str(tmp_path / "logs"), "--model-cost-config", str(prices)]
    with pytest.raises(SystemExit) as exit:
        main(args)
    assert exit.value.code == 2
    error = capsys.readouterr().err
    assert error.startswith(f"mad-tasks compare: --model-cost-config {prices}") and says in error
    assert not (tmp_path / "logs").exists()  # nothing ran


@pytest.mark.slow
def test_inspect_eval_with_the_shipped_prices_states_the_dollars_of_a_madsim_run(
    tmp_path: Path,
) -> None:
    """The command the docs give, as a user runs it: Inspect reads the file itself."""
    command = [sys.executable, "-m", "inspect_ai", "eval", "mad_tasks/strategyqa"]
    command += ["--solver", "mad_tasks/voting", "--model", "madsim/x", "--limit", "2"]
    command += ["-T", f"data_path={STRATEGYQA}", "--model-cost-config", str(PRICES)]
    command += ["--log-dir", str(tmp_path), "--display", "none"]
    subprocess.run(command, check=True, capture_output=True, timeout=300)
    [log] = [read_eval_log(str(p)) for p in tmp_path.glob("*.eval")]
    for sample in log.samples or []:
        cost = sample.scores["cost"]
        assert isinstance(cost.value, float) and cost.value > 0
        assert cost.value == pytest.approx(sum(u.total_cost for u in sample.model_usage.values()))
        assert set(cost.metadata["by_role"]) == {"agent_1", "agent_2", "agent_3"}


@pytest.mark.slow
@pytest.mark.parametrize("priced", [False, True])
def test_the_printed_results_hold_no_nan_and_dollars_per_1000_samples(
    tmp_path: Path, priced: bool
) -> None:
    """What `inspect eval --display plain` prints: without prices no `cost` and no NaN; with the
    shipped prices, `cost` as dollars per 1,000 samples (du_debate on madsim/x: about $0.16)."""
    command = [sys.executable, "-m", "inspect_ai", "eval", "mad_tasks/strategyqa"]
    command += ["--solver", "du_debate", "--model", "madsim/x", "--limit", "3"]
    command += ["-T", f"data_path={STRATEGYQA}", "--log-dir", str(tmp_path), "--display", "plain"]
    command += ["--model-cost-config", str(PRICES)] if priced else []
    env = {**os.environ, "COLUMNS": "200"}  # no name cut short
    done = subprocess.run(command, check=True, capture_output=True, text=True, timeout=300, env=env)
    words = done.stdout[done.stdout.index("final_answer") :].split()  # the results
    assert "nan" not in words and "mean" in words
    if not priced:
        assert "cost" not in words and "usd_per_1k" not in words
        return
    [log] = [read_eval_log(str(p)) for p in tmp_path.glob("*.eval")]
    dollars = [float(s.scores["cost"].value) for s in log.samples or []]
    shown = words[words.index("usd_per_1k") + 1]  # in the column headed `cost`
    assert "cost" in words and shown == f"{1000 * sum(dollars) / 3:.3f}"
    assert 0.1 < float(shown) < 0.3  # $0.0001 to $0.0003 a sample


@pytest.mark.slow
def test_the_cost_benchmark_prints_dollars_and_batch_turnarounds_per_method() -> None:
    bench = Path(__file__).resolve().parents[1] / "benchmarks" / "costs.py"
    done = subprocess.run([sys.executable, str(bench), "--quick"], capture_output=True,
                          text=True, timeout=300, check=True)  # fmt: skip
    rows = [line.split(" | ") for line in done.stdout.splitlines() if line.startswith("| du_")]
    [[_, task, calls, _, dollars, stages]] = rows
    assert (task, calls, stages) == ("strategyqa", "6.0", "2 |")  # 3 agents x 2 rounds, 2 stages
    assert float(dollars) > 0

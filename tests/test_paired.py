"""Paired comparison of methods (`paired.py`, `paired_report.py`): McNemar's exact p and the paired
bootstrap against values computed by hand and by exact enumeration, epochs clustered by sample,
and the report and `mad-tasks compare` on logs with a known answer."""

from __future__ import annotations

import csv
import math
from fractions import Fraction
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log, write_eval_log
from inspect_ai.scorer import Score
from inspect_ai.solver import SolverSpec
from testdata import STRATEGYQA

from mad_tasks.cli import main
from mad_tasks.paired import bootstrap_interval, mcnemar_exact, paired
from mad_tasks.tasks.strategyqa import strategyqa


@pytest.mark.parametrize(
    "b, c, p",
    [
        (8, 2, 112 / 1024),  # 2 * (C(10,0) + C(10,1) + C(10,2)) / 2^10
        (2, 8, 112 / 1024),
        (10, 0, 2 / 1024),
        (14, 0, 2 / 2**14),
        (5, 5, 1.0),  # the doubled tail passes 1
        (0, 0, 1.0),  # nothing discordant
        (1, 0, 1.0),
        (6, 1, 16 / 128),  # 2 * (1 + 7) / 2^7
    ],
)
def test_mcnemar_exact_golden(b: int, c: int, p: float) -> None:
    assert mcnemar_exact(b, c) == pytest.approx(p, abs=1e-15)


def test_mcnemar_refuses_a_negative_count() -> None:
    with pytest.raises(ValueError, match="b=-1"):
        mcnemar_exact(-1, 2)


def exact_bootstrap_quantiles(plus: int, minus: int, n: int) -> tuple[float, float]:
    """The 2.5% and 97.5% quantiles (inverted CDF) of the mean of n draws with replacement from
    `plus` ones, `minus` minus-ones and zeros, by summing the multinomial probabilities."""
    p1, p2, p0 = Fraction(plus, n), Fraction(minus, n), Fraction(n - plus - minus, n)
    mass: dict[int, Fraction] = {}
    for x in range(n + 1):
        for y in range(n - x + 1):
            ways = math.comb(n, x) * math.comb(n - x, y)
            mass[x - y] = mass.get(x - y, Fraction(0)) + ways * p1**x * p2**y * p0 ** (n - x - y)
    cdf, atoms = Fraction(0), []
    for total in sorted(mass):
        cdf += mass[total]
        atoms.append((total, cdf))
    low = next(t for t, c in atoms if c >= Fraction(25, 1000))
    high = next(t for t, c in atoms if c >= Fraction(975, 1000))
    # no step of the CDF within 4 standard errors of 10,000 resamples' (0.0016) of either
    # quantile: the resampled quantiles land on the same atoms (a 1 in 30,000 chance otherwise)
    for _, c in atoms:
        assert min(abs(float(c) - 0.025), abs(float(c) - 0.975)) > 4 * 0.0016
    return low / n, high / n


def test_the_bootstrap_interval_is_the_exact_bootstrap_distributions_quantiles() -> None:
    differences = [1.0] * 7 + [-1.0] * 3 + [0.0] * 10
    assert bootstrap_interval(differences) == exact_bootstrap_quantiles(7, 3, 20)
    assert bootstrap_interval(differences) == (-0.1, 0.5)  # the quantiles, by hand: golden
    # b=8, c=2 of 20: golden with seed 0 (its 97.5% quantile is near a step: seed-bound)
    assert bootstrap_interval([1.0] * 8 + [-1.0] * 2 + [0.0] * 10) == (0.0, 0.55)
    assert bootstrap_interval([1.0] * 8 + [-1.0] * 2 + [0.0] * 10, seed=1) == (0.0, 0.6)
    assert bootstrap_interval([0.5] * 4) == (0.5, 0.5)
    with pytest.raises(ValueError):
        bootstrap_interval([])


def test_epochs_are_clustered_by_sample() -> None:
    # sample 1: A right in one epoch of two, B in both; sample 2: both right once
    a = {1: [1.0, 0.0], 2: [1.0], 3: [1.0, 1.0]}
    b = {1: [1.0, 1.0], 2: [0.0], 4: [0.0]}  # 3 and 4 are not both scored: left out
    got = paired(a, b)
    assert got is not None
    assert (got.samples, got.a_better, got.b_better) == (2, 1, 1)
    assert got.difference == pytest.approx((-0.5 + 1.0) / 2)
    assert got.p == 1.0
    assert paired({1: [1.0]}, {2: [1.0]}) is None


# ---- the report on constructed logs: 20 samples, du_debate and single disagree on 10 of them

IDS = [f"s{i:02d}" for i in range(20)]
DU = [1] * 8 + [0] * 2 + [1] * 6 + [0] * 4  # right on 8 where single is wrong, ...
SINGLE = [0] * 8 + [1] * 2 + [1] * 6 + [0] * 4  # ... right on 2 where du_debate is wrong
# voting has two epochs: all wrong, then du_debate's answers: a sample's score is DU / 2
VOTING = [[0, d] for d in DU]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    [log] = eval(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        solver=SolverSpec("single", {}, {}),
        limit=1,
        display="none",
        log_dir=str(tmp_path_factory.mktemp("template")),
    )
    return read_eval_log(log.location)


def constructed(template: EvalLog, solver: str, epochs: list[list[int]], path: Path) -> None:
    """A finished log of `solver` whose sample `IDS[i]` scores `epochs[i]` (1 right) on
    final_answer, one sample per epoch."""
    log = template.model_copy(deep=True)
    log.eval.solver, log.eval.solver_args, log.eval.solver_args_passed = solver, {}, {}
    log.eval.tags = [solver]
    log.eval.eval_id = log.eval.run_id = f"constructed-{solver}"
    [sample] = template.samples or []
    samples = []
    for id, scores in zip(IDS, epochs):
        for epoch, right in enumerate(scores, start=1):
            copy = sample.model_copy(deep=True)
            copy.id, copy.epoch = id, epoch
            copy.scores = {"final_answer": Score(value="C" if right else "I")}
            samples.append(copy)
    log.samples = samples
    write_eval_log(log, str(path))


@pytest.fixture(scope="module")
def log_dir(template: EvalLog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("paired")
    constructed(template, "du_debate", [[d] for d in DU], logs / "du.eval")
    constructed(template, "single", [[s] for s in SINGLE], logs / "single.eval")
    constructed(template, "voting", VOTING, logs / "voting.eval")
    return logs


def test_the_report_prints_and_tabulates_each_pairs_difference_interval_and_p(
    log_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["report", str(log_dir), "--out", str(log_dir / "report")])
    with (log_dir / "report" / "paired.csv").open(encoding="utf-8") as file:
        rows = {(r["a"], r["b"]): r for r in csv.DictReader(file)}
    assert set(rows) == {("du_debate", "single"), ("du_debate", "voting"), ("single", "voting")}
    du_single = [d - s for d, s in zip(DU, SINGLE)]
    du_voting = [d / 2 for d in DU]
    single_voting = [s - d / 2 for d, s in zip(DU, SINGLE)]
    expected = {  # (difference, a better, b better, McNemar p, the differences resampled)
        ("du_debate", "single"): (0.3, 8, 2, 112 / 1024, du_single),
        ("du_debate", "voting"): (0.35, 14, 0, 2 / 2**14, du_voting),
        ("single", "voting"): (0.05, 8, 8, 1.0, single_voting),
    }
    for pair, (difference, a_better, b_better, p, resampled) in expected.items():
        row = rows[pair]
        assert float(row["difference"]) == pytest.approx(difference)
        assert (int(row["a_better"]), int(row["b_better"]), int(row["samples"])) == (
            a_better,
            b_better,
            20,  # voting's 40 epochs are 20 samples
        )
        assert float(row["p"]) == pytest.approx(p)
        assert row["significant"] == str(p < 0.05)
        low, high = bootstrap_interval(resampled)
        assert (float(row["low"]), float(row["high"])) == pytest.approx((low, high))
    assert (float(rows[("du_debate", "single")]["low"]),
            float(rows[("du_debate", "single")]["high"])) == (0.0, 0.55)  # fmt: skip
    printed = capsys.readouterr().out
    assert "du_debate - single = +0.300 [95% +0.000, +0.550], McNemar p = 0.109 (8 vs 2" in printed
    assert "du_debate - voting = +0.350" in printed and "p = 0.000122 * (14 vs 0" in printed
    markdown = (log_dir / "report" / "report.md").read_text(encoding="utf-8")
    assert "| du_debate | voting | madsim/x | 20 | +0.350 |" in markdown
    assert "10,000 resamples of the samples, seed 0" in markdown
    html = (log_dir / "report" / "report.html").read_text(encoding="utf-8")
    # score against tokens, the paired differences, and the accuracy per round
    assert html.count("<figure>") == 3
    png = (log_dir / "report" / "strategyqa-paired.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")


def test_the_plot_marks_the_significant_differences(log_dir: Path) -> None:
    from mad_tasks.logs_report import read_report
    from mad_tasks.paired_report import plot

    [pairs] = read_report(str(log_dir)).pairs.values()
    figure = plot("strategyqa", pairs, {})
    labels = [t.get_text() for t in figure.axes[0].get_yticklabels()]
    # listed top to bottom in the report's order; only du_debate - voting has p < 0.05
    assert labels == [
        "single - voting (madsim/x)",
        "du_debate - voting (madsim/x) *",
        "du_debate - single (madsim/x)",
    ]
    faces = [
        line.get_markerfacecolor() for line in figure.axes[0].lines if line.get_marker() == "o"
    ]
    assert faces == ["white", "tab:red", "white"]


def test_runs_on_other_models_or_headlines_are_not_paired(
    template: EvalLog, tmp_path: Path
) -> None:
    from mad_tasks.logs_report import read_report

    constructed(template, "du_debate", [[d] for d in DU], tmp_path / "du.eval")
    other = template.model_copy(deep=True)
    other.eval.model = "madsim/y"
    constructed(other, "single", [[s] for s in SINGLE], tmp_path / "single.eval")
    report = read_report(str(tmp_path))
    assert [len(rows) for rows in report.tables.values()] == [2]
    assert report.pairs == {}


@pytest.mark.slow
def test_compare_over_single_du_debate_and_voting_prints_the_paired_differences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    args = ["compare", "mad_tasks/strategyqa", "--model", "madsim/x", "-T"]
    args += [f"data_path={STRATEGYQA}", "--limit", "4", "--log-dir", str(tmp_path)]
    main([*args, "--solver", "single", "--solver", "du_debate", "--solver", "voting"])
    printed = capsys.readouterr().out
    scores = {}
    for info in list_eval_logs(str(tmp_path)):
        log = read_eval_log(info.name)
        scores[log.eval.solver] = {
            s.id: float(s.scores["final_answer"].value == "C") for s in log.samples or []
        }
    for a, b in (("du_debate", "single"), ("du_debate", "voting"), ("single", "voting")):
        got = paired({k: [v] for k, v in scores[a].items()}, {k: [v] for k, v in scores[b].items()})
        assert got is not None and got.samples == 4
        shown = f"{a} - {b} = {got.difference:+.3f} [95% {got.low:+.3f}, {got.high:+.3f}]"
        assert shown in printed
        assert f"McNemar p = {got.p:.3g}" in printed

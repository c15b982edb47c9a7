"""`mad-tasks report`'s failure figures: the oracle gap and flips per sample in the tables, and the
accuracy-per-round plot (`rounds_report.py`), on constructed logs whose per-round figures are
known, and on a log written before the figures existed (computed from its records)."""

from __future__ import annotations

import csv
import re
import struct
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log, write_eval_log
from inspect_ai.scorer import Score
from inspect_ai.solver import SolverSpec
from testdata import STRATEGYQA

from mad_tasks import logs_report
from mad_tasks.logs_report import FAILURES, read_report, write_report
from mad_tasks.rounds_report import Curve, RoundPoint, offsets
from mad_tasks.scorers.failures import round_name
from mad_tasks.tasks.strategyqa import strategyqa

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# per sample: oracle gap, conformity, persuasion and instability flips (None: one round, none),
# and each round's (agent accuracy, vote accuracy); du_debate's debates stop after 3, 3, 3, 1 rounds
DU = [
    (1, (2, 0, 1), [(0.25, 0), (0.5, 1), (1.0, 1)]),
    (0, (1, 1, 0), [(0.5, 1), (1.0, 1), (1.0, 1)]),
    (0, (0, 0, 2), [(0.0, 0), (0.25, 0), (0.5, 1)]),
    (1, None, [(1.0, 1)]),
]
SINGLE = [(0, None, [(a, a)]) for a in (1, 0, 1, 1)]
FLIPS = ("conformity_flips", "persuasion_flips", "instability_flips")


@pytest.fixture(scope="module")
def debate(tmp_path_factory: pytest.TempPathFactory) -> EvalLog:
    """A real du_debate run (two rounds) on the simulated model, its failure figures scored."""
    [log] = eval(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        solver=SolverSpec("du_debate", {}, {}),
        limit=3,
        display="none",
        log_dir=str(tmp_path_factory.mktemp("debate")),
    )
    return read_eval_log(log.location)


def figures(oracle_gap: int, flips: tuple[int, ...] | None, rounds: list[tuple]) -> dict:
    scores = {"oracle_gap": oracle_gap}
    for name, count in zip(FLIPS, flips or ()):
        scores[name] = count
    for r, (agent, vote) in enumerate(rounds, start=1):
        scores[round_name(r, "agent")], scores[round_name(r, "vote")] = agent, vote
    return scores


def constructed(template: EvalLog, solver: str, samples: list[dict], path: Path) -> None:
    """A finished log of `solver` whose i-th sample has the scores `samples[i]` and no debate
    record (so nothing is computed from one)."""
    log = template.model_copy(deep=True)
    log.eval.solver, log.eval.solver_args, log.eval.solver_args_passed = solver, {}, {}
    log.eval.tags = [solver]
    log.eval.eval_id = log.eval.run_id = f"constructed-{solver}"
    sample = (template.samples or [])[0]
    log.samples = []
    for i, scores in enumerate(samples):
        copy = sample.model_copy(deep=True)
        copy.id, copy.epoch, copy.uuid, copy.store = f"q{i}", 1, f"{solver}-{i}", {}
        copy.scores = {"final_answer": Score(value="C")}
        copy.scores.update({name: Score(value=value) for name, value in scores.items()})
        log.samples.append(copy)
    write_eval_log(log, str(path))


@pytest.fixture(scope="module")
def log_dir(debate: EvalLog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("rounds")
    constructed(debate, "du_debate", [figures(*s) for s in DU], logs / "du.eval")
    constructed(debate, "single", [figures(*s) for s in SINGLE], logs / "single.eval")
    constructed(debate, "d3", [{}, {}], logs / "d3.eval")  # a judge: no failure figures
    return logs


EXPECTED = [
    Curve("d3", "madsim/x", ()),
    Curve("du_debate", "madsim/x", (
        RoundPoint(1, (0.25 + 0.5 + 0.0 + 1.0) / 4, (0 + 1 + 0 + 1) / 4, 4),
        RoundPoint(2, (0.5 + 1.0 + 0.25) / 3, (1 + 1 + 0) / 3, 3),
        RoundPoint(3, (1.0 + 1.0 + 0.5) / 3, (1 + 1 + 1) / 3, 3),
    )),
    Curve("single", "madsim/x", (RoundPoint(1, 0.75, 0.75, 4),)),
]  # fmt: skip


def test_the_rounds_plot_receives_each_runs_mean_per_round_over_the_samples_that_reached_it(
    log_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("matplotlib")
    received: list[tuple[str, list[Curve], dict[str, str]]] = []
    drawn: list[Any] = []

    def recorded(task: str, curves: list[Curve], names: dict[str, str]) -> Any:
        received.append((task, list(curves), dict(names)))
        drawn.append(plot(task, curves, names))
        return drawn[-1]

    plot = logs_report.plot_rounds
    monkeypatch.setattr(logs_report, "plot_rounds", recorded)
    write_report(str(log_dir), tmp_path)
    [(task, curves, names)] = received
    assert task == f"mad_tasks/strategyqa (data_path={STRATEGYQA})"
    assert curves == EXPECTED
    assert names == {"d3": "d3", "du_debate": "du_debate", "single": "single"}
    # drawn as received: agent accuracy solid, vote accuracy dashed, each run shifted sideways
    [axes] = drawn[0].axes
    shift = dict(zip(("du_debate", "single"), offsets(2)))
    lines = [(line.get_linestyle(), list(line.get_xdata()), list(line.get_ydata()))
             for line in axes.get_lines()]  # fmt: skip
    expected_lines = []
    for c in EXPECTED[1:]:
        xs = [p.round + shift[c.solver] for p in c.points]
        expected_lines += [("-", xs, [p.agent_accuracy for p in c.points]),
                           ("--", xs, [p.vote_accuracy for p in c.points])]  # fmt: skip
    assert lines == expected_lines
    # the samples per round: in the legend, and marked where they drop (du_debate: 4, 3, 3)
    assert [(t.get_text(), t.xy) for t in axes.texts] == [
        ("n=3", (2 + shift["du_debate"], 0.5833333333333334))
    ]
    legend = [t.get_text() for t in axes.get_legend().get_texts()]
    assert legend == ["du_debate (madsim/x), n=4", "single (madsim/x), n=4", "agent accuracy",
                      "vote accuracy"]  # fmt: skip


def test_the_rounds_png_and_svg_are_written_and_the_run_without_rounds_named(
    log_dir: Path, tmp_path: Path
) -> None:
    pytest.importorskip("matplotlib")
    written = write_report(str(log_dir), tmp_path)
    png = tmp_path / "strategyqa-rounds.png"
    assert png in written.files
    data = png.read_bytes()
    assert data.startswith(PNG_SIGNATURE) and struct.unpack(">II", data[16:24]) == (960, 660)
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    [rounds] = [svg for svg in page.split("<svg")[1:] if ">accuracy per round</text>" in svg]
    assert ">du_debate (madsim/x), n=4</text>" in rounds and ">n=3</text>" in rounds
    assert ">d3" not in rounds
    left_out = "Left out of the accuracy per round (no round figures): d3 (madsim/x)."
    assert f"<p>{left_out}</p>" in page
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    assert f"\n{left_out}\n" in markdown
    assert "mean over the samples whose debate reached round r" in markdown  # the caption


def test_the_tables_show_the_oracle_gap_and_flips_per_sample_and_a_dash_where_none(
    log_dir: Path, tmp_path: Path
) -> None:
    write_report(str(log_dir), tmp_path)
    markdown = (tmp_path / "report.md").read_text(encoding="utf-8")
    header = "| W→W | oracle gap | conformity | persuasion | instability | Pareto | Pareto ($) |"
    assert header in markdown
    # du_debate: gap 2 of 4 samples; flips over the 3 samples that debated: (2+1+0)/3, 1/3, 3/3
    cells = {
        "du_debate": "| 0.500 | 1.00 | 0.33 | 1.00 |",
        "single": "| 0.000 | – | – | – |",  # one round: no flips
        "d3": "| – | – | – | – |",  # a judge: none
    }
    for solver, failures in cells.items():
        [line] = [x for x in markdown.splitlines() if x.startswith(f"| {solver} | madsim/x |")]
        assert failures in line, line
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<th>oracle gap</th><th>conformity</th><th>persuasion</th><th>instability</th>" in (
        page.replace("\n", "")
    )
    assert "<td>0.500</td>\n<td>1.00</td>\n<td>0.33</td>\n<td>1.00</td>" in page
    with (tmp_path / "report.csv").open(encoding="utf-8") as file:
        rows = {r["solver"]: r for r in csv.DictReader(file)}
    assert [rows["du_debate"][f] for f in ("oracle_gap", *FLIPS)] == ["0.5", "1.0", "0.3333333333333333", "1.0"]  # fmt: skip
    assert [rows["single"][f] for f in ("oracle_gap", *FLIPS)] == ["0.0", "", "", ""]
    assert [rows["d3"][f] for f in ("oracle_gap", *FLIPS)] == ["", "", "", ""]
    for text in (markdown, page, (tmp_path / "report.csv").read_text(encoding="utf-8")):
        assert not re.search(r"\bnan\b", text, re.IGNORECASE)


def test_a_log_written_before_the_failure_figures_has_them_from_its_records(
    debate: EvalLog, tmp_path: Path
) -> None:
    """The same run with and without the failure figures in its scores reads alike."""
    scored, older = tmp_path / "scored", tmp_path / "older"
    scored.mkdir(), older.mkdir()
    write_eval_log(debate, str(scored / "run.eval"))
    stripped = debate.model_copy(deep=True)
    for sample in stripped.samples or []:
        sample.scores = {k: v for k, v in (sample.scores or {}).items() if k not in FAILURES}
    write_eval_log(stripped, str(older / "run.eval"))
    assert all("oracle_gap" in (s.scores or {}) for s in debate.samples or [])
    [fresh], [computed] = (read_report(str(d)).curves.values() for d in (scored, older))
    assert computed == fresh
    [[curve]] = [computed]
    assert [p.round for p in curve.points] == [1, 2] and curve.points[0].samples == 3
    [[a]], [[b]] = (read_report(str(d)).tables.values() for d in (scored, older))
    for figure in ("oracle_gap", *FLIPS):
        assert getattr(a, figure) is not None and getattr(b, figure) == getattr(a, figure)


def test_the_lines_are_spread_over_at_most_a_third_of_a_round() -> None:
    assert offsets(0) == [] and offsets(1) == [0.0]
    assert offsets(3) == [-0.06, 0.0, 0.06]
    wide = offsets(11)  # 0.03 apart: 0.3 in all
    assert wide[0] == pytest.approx(-0.15) and wide[-1] == pytest.approx(0.15)

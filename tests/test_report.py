"""`mad-tasks report` and `mad-tasks compare`, and the debate columns for `samples_df`.

The logs are real offline evals on the simulated model: three solvers x two models on the StrategyQA
fixture, one model priced (`set_model_info`) and one not. Every number of the report is checked
against the logs read directly, the Pareto flags against a brute-force oracle.
"""

from __future__ import annotations

import csv
import re
import struct
import sys
from pathlib import Path

import pytest
from inspect_ai import eval
from inspect_ai.analysis import SampleSummary, samples_df
from inspect_ai.log import EvalLog, list_eval_logs, read_eval_log
from inspect_ai.model import ModelCost, ModelInfo, set_model_info
from inspect_ai.solver import SolverSpec
from testdata import STRATEGYQA

from mad_tasks.cli import main
from mad_tasks.compare import SolverChoice, parse_option, spend_per_sample
from mad_tasks.debate_columns import DebateColumns, figure_columns
from mad_tasks.log_tags import tag_logs
from mad_tasks.logs_report import label_lines, pareto_front, read_report, write_report
from mad_tasks.solvers import du_debate
from mad_tasks.tasks.strategyqa import strategyqa

SOLVERS = ("single", "self_consistency", "du_debate")
MODELS = ("madsim/priced", "madsim/unpriced")  # names of their own: the price stays registered
CALLS = {"single": 1, "self_consistency": 5, "du_debate": 6}  # defaults: 5 samples; 3 agents x 2
PRICE = ModelCost(input=1.0, output=2.0, input_cache_write=1.0, input_cache_read=0.5)  # $/M tokens
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    logs = tmp_path_factory.mktemp("report") / "logs"
    set_model_info("madsim/priced", ModelInfo(cost=PRICE))  # Inspect prices its calls
    for solver in SOLVERS:
        done = eval(
            strategyqa(data_path=str(STRATEGYQA)),
            model=list(MODELS),
            solver=SolverSpec(solver, {}, {}),
            limit=3,
            display="none",
            log_dir=str(logs),
        )
        assert [log.status for log in done] == ["success", "success"]
    return logs


@pytest.fixture(scope="module")
def out(log_dir: Path) -> Path:
    out = log_dir.parent / "report"
    main(["report", str(log_dir), "--out", str(out)])
    return out


def full_logs(log_dir: Path) -> dict[tuple[str, str], EvalLog]:
    logs = [read_eval_log(info.name) for info in list_eval_logs(str(log_dir))]
    return {(log.eval.solver, log.eval.model): log for log in logs}


def mean(values: list[float]) -> float:
    return sum(values) / len(values)


def csv_rows(out: Path) -> dict[tuple[str, str], dict[str, str]]:
    with (out / "report.csv").open(encoding="utf-8") as file:
        return {(r["solver"], r["model"]): r for r in csv.DictReader(file)}


def test_the_table_has_a_row_per_solver_and_model_with_the_logs_numbers(
    log_dir: Path, out: Path
) -> None:
    rows = csv_rows(out)
    assert set(rows) == {(s, m) for s in SOLVERS for m in MODELS}
    for (solver, model), log in full_logs(log_dir).items():
        row = rows[(solver, model)]
        [headline] = [s for s in log.results.scores if s.name == "final_answer"]
        samples = log.samples
        assert row["task"] == f"mad_tasks/strategyqa (data_path={STRATEGYQA})"
        assert row["headline"] == "final_answer accuracy"
        assert float(row["score"]) == pytest.approx(headline.metrics["accuracy"].value)
        assert float(row["stderr"]) == pytest.approx(headline.metrics["stderr"].value)
        assert int(row["samples"]) == len(samples) == 3
        calls = [sum(e.event == "model" for e in s.events) for s in samples]
        assert calls == [CALLS[solver]] * 3
        assert float(row["calls"]) == CALLS[solver]
        usage = [next(iter(s.model_usage.values())) for s in samples]
        spent = mean([u.input_tokens + u.output_tokens for u in usage])
        assert float(row["spent_tokens"]) == pytest.approx(spent)
        assert float(row["input_tokens"]) == pytest.approx(mean([u.input_tokens for u in usage]))
        assert float(row["cached_tokens"]) == 0.0
        assert float(row["tokens"]) == pytest.approx(spent)  # the plot's axis: spent + cached
        if model == "madsim/priced":  # $1 per million input tokens, $2 per million output tokens
            dollars = mean([(u.input_tokens + 2 * u.output_tokens) / 1e6 for u in usage])
            assert float(row["cost"]) == pytest.approx(dollars)
        else:
            assert row["cost"] == ""  # no price: blank, never 0


def test_the_results_state_dollars_per_1000_samples_and_no_cost_without_a_price(
    log_dir: Path,
) -> None:
    for (solver, model), log in full_logs(log_dir).items():
        names = {s.name for s in log.results.scores}
        # the eval list reads the header's results: no NaN there, priced or not
        header = read_eval_log(log.location, header_only=True)
        assert all(m.value == m.value for s in header.results.scores for m in s.metrics.values())
        if model == "madsim/unpriced":  # absent: no sample's score, no line in the results
            assert "cost" not in names and not any("cost" in s.scores for s in log.samples)
            assert spend_per_sample(log, "dollars") is None
            continue
        dollars = [s.scores["cost"].value for s in log.samples]
        [cost] = [s for s in log.results.scores if s.name == "cost"]
        assert list(cost.metrics) == ["usd_per_1k"]
        assert cost.metrics["usd_per_1k"].value == pytest.approx(1000 * mean(dollars))
        # what Inspect prints (3 decimals) of $0.00008 to $0.00095 a sample: never 0.000
        printed = f"{cost.metrics['usd_per_1k'].value:.3f}"
        assert (
            printed
            == {"single": "0.083", "self_consistency": "0.458", "du_debate": "0.942"}[solver]
        ), (solver, printed)
        assert spend_per_sample(log, "dollars") == pytest.approx(mean(dollars))  # compare's


def test_a_run_a_limit_cut_short_is_labelled_so_by_tag_and_report(tmp_path: Path) -> None:
    """The same run twice, the second with a token limit that its look-ahead stops before round
    2 (round 1: about 200 tokens; round 2 reads the others' answers: about three times that)."""
    for limit in (None, 500):
        eval(strategyqa(data_path=str(STRATEGYQA)), solver=du_debate(), model="madsim/x", limit=3,
             display="none", log_dir=str(tmp_path), token_limit=limit)  # fmt: skip
    cut = "du_debate (cut by token limit in 3 of 3 samples: 1 round ran)"
    report = read_report(str(tmp_path))
    [rows] = report.tables.values()
    assert {(r.solver, r.calls) for r in rows} == {("du_debate", 6.0), (cut, 3.0)}
    assert report.notes == []  # a row apart, not an older log of the same run
    assert {outcome for _, outcome in tag_logs([str(tmp_path)])} == {
        "tagged 'du_debate'",
        f"tagged '{cut}'",
    }


def test_the_pareto_flags_are_the_rows_no_other_row_beats(out: Path) -> None:
    rows = csv_rows(out).values()
    points = {(r["solver"], r["model"]): (float(r["tokens"]), float(r["score"])) for r in rows}

    def beaten(p: tuple[float, float]) -> bool:
        return any(q[0] <= p[0] and q[1] >= p[1] and q != p for q in points.values())

    flags = {(r["solver"], r["model"]): r["pareto"] == "True" for r in rows}
    assert flags == {key: not beaten(p) for key, p in points.items()}
    assert any(flags.values())
    # the same over dollars, among the rows that have a price (the others are off that front)
    points = {(r["solver"], r["model"]): (float(r["cost"]), float(r["score"])) for r in rows
              if r["cost"]}  # fmt: skip
    assert {model for _, model in points} == {"madsim/priced"}
    by_cost = {(r["solver"], r["model"]): r["pareto_cost"] == "True" for r in rows}
    assert by_cost == {key: key in points and not beaten(points[key]) for key in by_cost}
    assert any(by_cost.values())


def test_the_markdown_table_shows_each_row(log_dir: Path, out: Path) -> None:
    text = (out / "report.md").read_text(encoding="utf-8")
    assert f"## mad_tasks/strategyqa (data_path={STRATEGYQA})" in text
    assert "| solver | model | headline | score ± stderr | samples | calls |" in text
    for (solver, model), row in csv_rows(out).items():
        score = f"{float(row['score']):.3f} ± {float(row['stderr']):.3f}"
        cells = [solver, model, "final_answer accuracy", score, "3", f"{CALLS[solver]:.1f}"]
        assert "| " + " | ".join(cells) + " |" in text


def test_the_html_page_holds_the_table_and_the_plot_and_fetches_nothing(out: Path) -> None:
    page = (out / "report.html").read_text(encoding="utf-8")
    # the score against tokens, then against dollars (the priced model's runs only), then the
    # paired differences, then the accuracy per round; the runs' table, then the paired differences'
    assert page.count("<table>") == 2 and page.count("<svg") == 4
    tokens, dollars, paired, rounds = page.split("<svg")[1:]
    assert (
        ">accuracy per round</text>" in rounds and ">single (madsim/priced), n=3</text>" in rounds
    )
    assert ": * McNemar p &lt; 0.05</text>" in paired  # the title says what the stars mark
    for solver, model in csv_rows(out):
        assert f"<td>{solver}</td>" in page and f"<td>{model}</td>" in page
        assert f">{solver}</text>" in tokens and f">{solver}</text>" in dollars  # named, as text
    assert ">Pareto front</text>" in tokens and ">madsim/priced</text>" in tokens
    assert ">madsim/unpriced</text>" in tokens and ">madsim/unpriced</text>" not in dollars
    assert ">dollars per sample</text>" in dollars and ">Pareto front</text>" in dollars
    assert not re.search(r"<(script|link|img|iframe)\b|@import|url\((?!#)", page)  # #: in-page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    # the one place a URL appears: the SVG's namespace names, which are never fetched
    assert set(re.findall(r"""(\S+)=["']https?://""", page)) == {"xmlns", "xmlns:xlink"}


def test_the_pngs_are_the_plots(out: Path) -> None:
    pngs = sorted(out.glob("*.png"))
    names = [
        "strategyqa-cost.png",
        "strategyqa-paired.png",
        "strategyqa-rounds.png",
        "strategyqa.png",
    ]
    assert [p.name for p in pngs] == names
    for png in (out / "strategyqa-cost.png", out / "strategyqa.png"):
        data = png.read_bytes()
        assert data.startswith(PNG_SIGNATURE) and data[12:16] == b"IHDR"
        assert struct.unpack(">II", data[16:24]) == (960, 660)  # 8 x 5.5 inches at 120 dpi
        assert len(data) > 20_000  # drawn, not blank


def test_without_matplotlib_the_tables_are_written_and_the_plots_left_out(
    log_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib raises ImportError
    written = write_report(str(log_dir), tmp_path)
    assert written.plots_left_out
    files = ["paired.csv", "report.csv", "report.html", "report.md"]
    assert sorted(p.name for p in tmp_path.iterdir()) == files
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<svg" not in page and "matplotlib is not installed" in page
    # the runs' table, then the paired differences' (three pairs of solvers on each model)
    assert page.count("<tr>") + page.count('<tr class="pareto">') == (1 + 6) + (1 + 6)


def test_a_directory_without_logs_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["report", str(tmp_path), "--out", str(tmp_path / "report")])
    assert stopped.value.code == 1


def test_a_missing_directory_is_named_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["report", str(tmp_path / "nowhere")])
    assert stopped.value.code == 2
    assert (
        capsys.readouterr().err == f"mad-tasks report: {tmp_path / 'nowhere'}: no such directory\n"
    )


@pytest.mark.parametrize(
    "points, front",
    [
        ([], []),
        ([(3.0, 0.1)], [True]),
        # the cheapest, each better score at a higher cost, an exact tie both on; the rest beaten
        (
            [(10, 0.5), (20, 0.7), (15, 0.4), (30, 0.7), (5, 0.2), (20, 0.7), (40, 0.9)],
            [True, True, False, False, True, True, True],
        ),
        ([(10, 0.5), (10, 0.6)], [False, True]),  # same cost: the better score only
        ([(10, 0.5), (12, 0.5)], [True, False]),  # same score: the cheaper only
        ([(0, 0.0), (0, 0.0)], [True, True]),
    ],
)
def test_pareto_front_golden(points: list[tuple[float, float]], front: list[bool]) -> None:
    assert pareto_front(points) == front


def test_debate_columns_give_each_figure_by_name(log_dir: Path) -> None:
    frame = samples_df(
        str(log_dir), columns=SampleSummary + DebateColumns + figure_columns("turns")
    )
    assert len(frame) == 18
    logs = {log.eval.eval_id: log for log in full_logs(log_dir).values()}
    for row in frame.to_dict("records"):
        log = logs[row["eval_id"]]
        [sample] = [s for s in log.samples if str(s.id) == row["id"]]
        assert row["method"] == log.eval.solver
        assert row["calls"] == CALLS[log.eval.solver]
        assert row["rounds"] == (2 if log.eval.solver == "du_debate" else 1)
        for figure in ("input_tokens", "output_tokens", "answer_changes", "abstentions"):
            assert row[figure] == sample.scores[figure].value
        assert row["cached_calls"] == row["cached_input_tokens"] == 0
        assert row["turns"] is None  # a figure this task does not score: None, never 0


@pytest.mark.parametrize(
    "text, parsed",
    [
        ("agents=4", ("agents", 4)),
        ("agents=three", ("agents", "three")),  # as Inspect's CLI reads it: text, never a number
        ("swap=yes", ("swap", True)),
        ("rounds=0x2", ("rounds", 2)),
        ("roles=a,b", ("roles", ["a", "b"])),
        ("max-turns=3", ("max_turns", 3)),
        ("temperature=null", ("temperature", None)),
    ],
)
def test_options_are_read_as_inspect_reads_them(text: str, parsed: tuple) -> None:
    assert parse_option(text, "-S") == parsed


def test_a_solver_choice_carries_its_own_options() -> None:
    choice = SolverChoice.parse("du_debate  agents=4 rounds=3")
    assert (choice.name, choice.args) == ("du_debate", {"agents": 4, "rounds": 3})
    assert choice.label == "du_debate agents=4 rounds=3"
    assert choice.folder == "du_debate_agents=4_rounds=3"
    with pytest.raises(ValueError, match="expected name=value"):
        SolverChoice.parse("du_debate agents")
    # a value with spaces is quoted, as in a shell: on_demand's options of its debate
    quoted = SolverChoice.parse("on_demand threshold=0.9 debate_args='{agents: 4, rounds: 3}'")
    assert quoted.args == {"threshold": 0.9, "debate_args": {"agents": 4, "rounds": 3}}
    with pytest.raises(ValueError, match="No closing quotation"):
        SolverChoice.parse("on_demand debate_args='{agents: 4}")


def compare_args(log_dir: Path, *solvers: str) -> list[str]:
    args = ["compare", "mad_tasks/strategyqa", "--model", "madsim/x"]
    args += ["-T", f"data_path={STRATEGYQA}", "--limit", "2", "--log-dir", str(log_dir)]
    return args + [a for s in solvers for a in ("--solver", s)]


def test_compare_writes_one_log_per_solver_then_the_report_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    main(compare_args(tmp_path, "single", "du_debate agents=2"))
    logs = {p.parent.name: p for p in tmp_path.glob("*/*.eval")}
    assert set(logs) == {"single", "du_debate_agents=2"}
    debate = read_eval_log(str(logs["du_debate_agents=2"]))
    assert (debate.eval.solver, debate.eval.solver_args) == ("du_debate", {"agents": 2})
    assert [sum(e.event == "model" for e in s.events) for s in debate.samples] == [4, 4]
    # the eval list and the samples lists tell the runs apart with no `mad-tasks tag`
    single = read_eval_log(str(logs["single"]))
    assert (debate.eval.tags, single.eval.tags) == (["du_debate agents=2"], ["single"])
    assert {s.scores["mad_tasks/method"].value for s in debate.samples} == {"du_debate agents=2"}
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert "| du_debate agents=2 | madsim/x |" in text and "| single | madsim/x |" in text
    assert (tmp_path / "report" / "strategyqa.png").read_bytes().startswith(PNG_SIGNATURE)

    main(compare_args(tmp_path, "single", "du_debate agents=2"))  # finished: nothing runs again
    assert sorted(tmp_path.glob("*/*.eval")) == sorted(logs.values())


def test_compare_refuses_a_bad_option_of_any_solver_before_a_model_call(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    with pytest.raises(SystemExit) as stopped:
        main(compare_args(tmp_path, "single", "du_debate agents=0"))
    assert stopped.value.code == 2
    assert "invalid solver option 'agents': got 0" in capsys.readouterr().err
    assert list(tmp_path.iterdir()) == []  # not even the first solver ran


def test_the_pages_prose_shows_code_spans_as_code_and_escapes_the_rest() -> None:
    from mad_tasks.logs_report import prose

    assert prose("the `stderr` of <x> & `a<b>`") == (
        "the <code>stderr</code> of &lt;x&gt; &amp; <code>a&lt;b&gt;</code>"
    )
    assert prose("an unpaired ` tick") == "an unpaired ` tick"


def test_names_of_points_close_together_go_on_lines_of_their_own() -> None:
    # the first three are close (tokens within 3x, scores within 5% of the range), the last two not
    points = [(100.0, 1.0), (150.0, 1.0), (120.0, 0.99), (1000.0, 1.0), (100.0, 0.5)]
    assert label_lines(points) == [0, 1, 2, 0, 0]
    assert label_lines([(0.0, 1.0), (0.0, 1.0)]) == [0, 0]  # no tokens: no distance to measure
    assert label_lines([(10.0, 0.5), (10.0, 0.5)]) == [0, 1]  # one score: the range is 1
    assert label_lines([]) == []


def test_the_legend_shows_the_front_as_drawn() -> None:
    """A front of one point is a circled point, with no line; a longer front adds its step line."""
    pytest.importorskip("matplotlib")
    from mad_tasks.logs_report import Row, plot

    def row(solver: str, tokens: float, score: float, pareto: bool) -> Row:
        return Row("t", solver, "m", "accuracy", score, 0.05, 4, 1.0, tokens, 0.0, 0.0, 0.0, 0.0,
                   None, "log", pareto)  # fmt: skip

    def drawn(rows: list[Row]) -> tuple[list[str], int]:
        [axes] = plot("t", rows).axes
        dashed = [line for line in axes.get_lines() if line.get_linestyle() == "--"]
        return [t.get_text() for t in axes.get_legend().get_texts()], len(dashed)

    one = [row("single", 10, 0.9, True), row("du_debate", 90, 0.8, False)]
    assert drawn(one) == (["Pareto front", "m"], 0)
    two = [row("single", 10, 0.7, True), row("du_debate", 90, 0.8, True)]
    assert drawn(two) == (["Pareto front", "m"], 1)


def test_compare_runs_self_consistency_at_the_debates_spend_in_one_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    main(compare_args(tmp_path, "du_debate", "self_consistency match_debate=du_debate:tokens"))
    [debate] = [read_eval_log(str(p)) for p in tmp_path.glob("du_debate/*.eval")]
    [matched] = [read_eval_log(str(p)) for p in tmp_path.glob("self_consistency*/*.eval")]

    def tokens(log) -> float:
        means = {s.name: s.metrics["mean"].value for s in log.results.scores if "mean" in s.metrics}
        return sum(means[f] for f in ("input_tokens", "output_tokens", "cached_input_tokens",
                                      "cached_output_tokens"))  # fmt: skip

    target = round(tokens(debate))  # a mean per sample, matched to the nearest whole token
    assert matched.eval.solver_args == {"match_debate": f"tokens:{target}"}
    # tagged as written: the eval list says what it matched
    assert matched.eval.tags == ["self_consistency match_debate=du_debate:tokens"]
    for sample in matched.samples or []:
        record = sample.store["mad_tasks:debate"]
        assert record["options"]["matched"] == f"tokens:{target}"
        spent = sum(c["input_tokens"] + c["output_tokens"] for c in record["calls"])
        per_chain = spent / record["options"]["samples"]
        # waves stop once one more chain (at the mean spend) would pass the debate's spend
        assert target - per_chain < spent <= target + per_chain


def test_a_matched_spend_is_written_as_the_solver_reads_it() -> None:
    from mad_tasks.compare import fixed
    from mad_tasks.engine.methods.baselines import Spend, debate_budget

    assert [fixed(v) for v in (1.845e-05, 1234567.8, 841.5, 2.0)] == [
        "0.00001845", "1234570", "841.5", "2"]  # fmt: skip
    assert debate_budget(f"dollars:{fixed(1.845e-05)}") == Spend("dollars", 1.845e-05)


def test_compare_says_why_a_dollar_match_has_nothing_to_match(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    with pytest.raises(SystemExit) as exit:  # madsim/x has no price here
        main(compare_args(tmp_path, "du_debate", "self_consistency match_debate=du_debate:dollars"))
    assert exit.value.code == 2
    error = capsys.readouterr().err
    assert "'du_debate' on madsim/x has no dollars per sample to match (no price" in error


@pytest.mark.parametrize(
    ("solvers", "says"),
    [
        (("du_debate", "self_consistency match_debate=du_debate:calls"), "tokens or dollars"),
        (("self_consistency match_debate=du_debate:tokens", "du_debate"), "'match_debate'"),
    ],
)
def test_compare_refuses_a_spend_it_cannot_match_before_any_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], solvers: tuple[str, ...], says: str
) -> None:
    with pytest.raises(SystemExit) as exit:
        main(compare_args(tmp_path, *solvers))
    assert exit.value.code == 2 and says in capsys.readouterr().err
    assert not list(tmp_path.glob("*/*.eval"))

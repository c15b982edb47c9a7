"""Budgets and prices hold: `-S budget` bounds a whole D3 hearing, its jury included (a stage the
budget cannot cover is not started, and the record says where); a price file with a negative,
infinite or NaN price is refused by name in a plain `inspect eval`; a token spend to match is whole.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from scripted import ScriptedRuntime, family
from testdata import MT_BENCH_PAIRS

from mad_tasks import solvers
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3.court import VERDICT, Pair
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import DefenceRequest, FeedbackRequest, ScoreRequest, VerdictRequest
from mad_tasks.engine.runtime import Budget, Call, Reply, Usage
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.setup import SETUP
from mad_tasks.prices import given_price_file
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge

PAIR = Pair(Question.of(["What is the capital of Australia?"]), "Canberra.", "Sydney.")
EACH = 100  # tokens of every call: 90 in, 10 out
JUDGE_ONLY = "the judge's scores (the jury did not vote)"


def reply(call: Call) -> Reply:
    """Every D3 call of MORE: the judge scores A higher, every juror votes B."""
    asks = call.asks
    if isinstance(asks, DefenceRequest):
        text = f"Answer {asks.side} is right."
    elif isinstance(asks, FeedbackRequest):
        text = "Feedback A: fine. Feedback B: thin."
    elif isinstance(asks, ScoreRequest):
        text = "\n".join(f"{i}. [15, 10]" for i in range(1, 7)) + "\nANSWER: (90, 60)"
    elif isinstance(asks, VerdictRequest):
        text = "I side with B.\nANSWER: B"
    else:
        raise AssertionError(f"not a MORE call: {asks!r}")
    return Reply(text, Usage(EACH - 10, 10))


async def more(budget: int | None, look_ahead: bool = True) -> tuple[ScriptedRuntime, DebateResult]:
    """The catalogue's MORE at its defaults (3 advocates a side, A's team first, the judge's
    feedback and scores, 5 jurors), as a host runs it (a stop it has no rule for recorded)."""
    spec = CATALOGUE["more"]
    rt = ScriptedRuntime(reply)
    session = Session(rt, Problem(PAIR.question, VERDICT), budget=Budget(budget, look_ahead))
    result = await spec.ready(spec.options(**spec.preset), SETUP)(session, PAIR)
    return rt, result


def stages(rt: ScriptedRuntime) -> list[str]:
    return [family(c.role) for c in rt.calls]


FULL = ["advocate"] * 3 + ["advocate"] + ["advocate"] * 3 + ["advocate", "judge", "judge"]


async def test_unbounded_more_makes_its_fifteen_calls_and_the_jury_decides() -> None:
    rt, result = await more(None)
    assert stages(rt) == FULL + ["juror"] * 5
    assert result.final == "B" and result.stopped is None


async def test_a_jury_the_budget_cannot_cover_is_not_called_and_the_judge_decides() -> None:
    """10 calls spend 1,000 tokens; five jurors at once would take 500 more, past 1,200: today
    all five started (1,500 spent, no stop recorded)."""
    rt, result = await more(1200)
    assert stages(rt) == FULL
    assert result.final == "A"  # the judge's 90 to 60, no jury
    assert result.stopped is not None
    stop = result.stopped
    assert (stop.kind, stop.value, stop.limit) == ("budget", 1000, 1200)
    assert stop.where == "before the jury (look-ahead: it would pass the budget limit)"
    assert stop.decided == JUDGE_ONLY
    [hearing] = result.record.hearings
    assert hearing.jury == []


async def test_a_jury_that_fits_exactly_votes() -> None:
    rt, result = await more(1500)
    assert stages(rt) == FULL + ["juror"] * 5
    assert result.final == "B" and result.stopped is None


async def test_advocates_the_budget_cannot_cover_are_not_started_and_no_answer_is_given() -> None:
    """A's team and merge spend 400; B's three advocates would take 300 more, past 500."""
    rt, result = await more(500)
    assert stages(rt) == ["advocate"] * 4
    assert result.final is None and result.stopped is not None
    assert (result.stopped.value, result.stopped.limit) == (400, 500)
    assert result.stopped.where == (
        "before the advocates of B (look-ahead: it would pass the budget limit)"
    )
    assert sum(c.tokens or 0 for c in result.calls) == 400


async def test_the_first_stage_is_measured_by_one_call_before_the_rest_start() -> None:
    """Nothing is spent before A's advocates: the first writes alone (100), and the other two
    (200 more) would pass 250; today all three started at once and spent 300."""
    rt, result = await more(250)
    assert stages(rt) == ["advocate"]
    assert result.stopped is not None and result.stopped.value == 100
    assert result.stopped.where.startswith("before the advocates of A (look-ahead")


async def test_without_look_ahead_the_budget_refuses_only_calls_started_once_it_is_spent() -> None:
    rt, result = await more(1200, look_ahead=False)
    assert stages(rt) == FULL + ["juror"] * 5  # the jury started at 1,000 of 1,200
    assert result.stopped is None


def test_more_on_mt_bench_pairs_spends_no_more_than_its_budget(run) -> None:
    """`more -S budget=N` on madsim at a quarter, half and all but one token of the full
    hearing's spend: each sample's tokens (Inspect's count) stay within N, and the record says
    which stage was not started."""

    def spent(budget: int | None) -> list[tuple[int, dict | None]]:
        log = run(mt_bench_judge(data_path=str(MT_BENCH_PAIRS)),
                  solver=solvers.more(budget=budget), model="madsim/x", limit=1)  # fmt: skip
        return [
            (
                sum(u.total_tokens for u in sample.model_usage.values()),
                sample.store["mad_tasks:debate"]["stopped"],
            )
            for sample in log.samples or []
        ]

    [(full, none)] = spent(None)
    assert none is None
    for budget in (full // 4, full // 2, full - 1):
        [(used, stopped)] = spent(budget)
        assert 0 < used <= budget, (budget, used)
        assert stopped is not None and "look-ahead" in stopped["where"], stopped


# -- prices -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "price", ["-1", ".inf", "-.inf", ".nan"], ids=["negative", "infinite", "minus-inf", "nan"]
)
def test_a_solver_refuses_the_bad_price_file_of_a_plain_inspect_eval(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, price: str
) -> None:
    """`inspect eval ... --model-cost-config FILE` applies the file unchecked before it builds
    the solver; the solver reads it again and refuses it, naming the file and the model."""
    prices = tmp_path / "prices.yaml"
    line = f"madsim/x: {{input: {price}, output: 1, input_cache_write: 1, input_cache_read: 1}}"
    prices.write_text(line + "\n", encoding="utf-8")
    monkeypatch.setattr(sys, "argv", ["inspect", "eval", "--model-cost-config", str(prices)])
    with pytest.raises(ValueError) as refused:
        solvers.du_debate()
    assert str(refused.value) == (
        f"--model-cost-config {prices}: madsim/x: a price below 0 or not finite"
    )


def test_a_good_price_file_or_none_builds_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    from mad_tasks.prices import PRICES

    monkeypatch.setattr(sys, "argv", ["inspect", "eval", f"--model-cost-config={PRICES}"])
    solvers.du_debate()
    monkeypatch.setattr(sys, "argv", ["inspect", "eval"])
    monkeypatch.setenv("INSPECT_EVAL_MODEL_COST_CONFIG", "/no/such/prices.yaml")
    with pytest.raises(ValueError, match=re.escape("/no/such/prices.yaml: cannot be read")):
        solvers.du_debate()


@pytest.mark.parametrize(
    ("argv", "env", "found"),
    [
        (["inspect", "eval", "--model-cost-config", "p.yaml"], None, "p.yaml"),
        (["inspect", "eval", "--model-cost-config=q.json"], "e.yaml", "q.json"),
        (["inspect", "eval"], "e.yaml", "e.yaml"),
        (["inspect", "eval", "--model-cost-config"], None, None),  # Inspect refuses it itself
        (["inspect", "eval"], None, None),
    ],
)
def test_the_price_file_is_found_as_inspect_reads_it(
    monkeypatch: pytest.MonkeyPatch, argv: list[str], env: str | None, found: str | None
) -> None:
    if env is None:
        monkeypatch.delenv("INSPECT_EVAL_MODEL_COST_CONFIG", raising=False)
    else:
        monkeypatch.setenv("INSPECT_EVAL_MODEL_COST_CONFIG", env)
    assert given_price_file(argv) == found


@pytest.mark.slow
def test_inspect_eval_with_a_nan_price_stops_before_any_sample(tmp_path: Path) -> None:
    prices = tmp_path / "prices.yaml"
    prices.write_text(
        "madsim/x: {input: .nan, output: 1, input_cache_write: 1, input_cache_read: 1}\n",
        encoding="utf-8",
    )
    inspect = Path(sys.executable).with_name("inspect")
    args = [str(inspect), "eval", "mad_tasks/strategyqa", "--model", "madsim/x", "--limit", "1"]
    args += ["-T", f"data_path={MT_BENCH_PAIRS.with_name('strategyqa.jsonl')}"]
    args += ["--solver", "du_debate", "--log-dir", str(tmp_path / "logs")]
    args += ["--model-cost-config", str(prices), "--display", "plain"]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    said = done.stdout + done.stderr
    assert f"--model-cost-config {prices}: madsim/x: a price below 0 or not finite" in said
    assert not list((tmp_path / "logs").glob("*.eval"))  # no sample ran

"""`-S stop=adaptive` (Hu et al. 2025, engine/stability.py) in the round-based methods that wire it:
du_debate, reconcile and cortex, alone and as on_demand's debate.

Golden tests: scripted agents whose answers make each round's count (the agents giving the round's
most-given answer) a constructed sequence; each test asserts the round the debate stopped at, the
exact calls, the record's counts, KS statistics, streaks and reason, and the viewer's event. The
statistics are the rule's own on these counts (tests/test_stability.py checks the rule itself):
0.0 wherever the window's multiset of counts repeats.

Replies depend on the call's agent and round only, never on call order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from scripted import DEFAULT_USAGE, ScriptedRuntime, by_round
from scripted import debate as scripted_debate

from mad_tasks.engine import viewer_text
from mad_tasks.engine.answers import Choice
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.cortex.records import CortexRecord
from mad_tasks.engine.methods.on_demand import on_demand
from mad_tasks.engine.methods.on_demand_records import OnDemandRecord
from mad_tasks.engine.methods.reconcile_records import ReconcileRecord
from mad_tasks.engine.records import AdaptiveStopRecord, DebateResult, StabilityRound
from mad_tasks.engine.runtime import Budget, Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.setup import SETUP
from mad_tasks.solvers import cortex, du_debate, reconcile, self_consistency, single
from mad_tasks.solvers import on_demand as on_demand_solver

CHOICE = Problem(
    Question.of(["Which metal melts at the lowest temperature?"]),
    Choice(("gallium", "tin", "lead", "zinc", "iron")),
)
TRACKED = "agents giving the round's most-given answer"

# the rule's statistics on the sequences below (rounded as the viewer shows them)
STABLE = [2, 2, 2, 1, 2]  # stops after round 3: rounds 4 and 5 are never asked
STABLE_STATS = [None, 0.0, 0.0]
ALTERNATING = [2, 1, 2, 1, 2, 1]  # never stable: the window's counts change every round
ALTERNATING_STATS = [None, 0.2405, 0.0829, 0.1658, 0.1658, 0.1658]
BIMODAL = [1, 2, 1, 1, 2, 1, 1, 2]  # period three: from round 4 the window is always {1, 1, 2}
BIMODAL_STATS = [None, 0.2405, 0.0829, 0.0, 0.0]


def answers(counts: Sequence[int], n: int) -> dict[tuple[str, int], str]:
    """(agent, round) -> letter: in round t the first counts[t - 1] agents answer A and every other
    agent a letter of its own (B, C, ...), so exactly counts[t - 1] agents give the most-given
    answer."""
    return {
        (f"agent_{i + 1}", t): "A" if i < c else "ABCDE"[i - c + 1]
        for t, c in enumerate(counts, start=1)
        for i in range(n)
    }


def stats(stop: AdaptiveStopRecord) -> list[float | None]:
    return [None if r.statistic is None else round(r.statistic, 4) for r in stop.rounds]


def assert_trace(
    result: DebateResult,
    counts: Sequence[int],
    statistics: Sequence[float | None],
    stopped_at: int | None,
    n: int = 3,
    tracked: str = TRACKED,
) -> AdaptiveStopRecord:
    """The record's trace: one row per round that ran, with its count, statistic and streak."""
    stop = result.adaptive_stop
    assert stop is not None
    assert [r.round for r in stop.rounds] == list(range(1, len(counts) + 1))
    assert [r.count for r in stop.rounds] == list(counts)
    assert stats(stop) == list(statistics)
    assert (stop.n, stop.tracked, stop.stopped_at) == (n, tracked, stopped_at)
    assert stop.reason == ("stable" if stopped_at is not None else "rounds_exhausted")
    assert (stop.threshold, stop.stable_rounds, stop.min_rounds, stop.window) == (0.05, 2, 1, 3)
    assert result.rounds == len(counts)
    return stop


def stop_of(result: DebateResult) -> AdaptiveStopRecord:
    assert result.adaptive_stop is not None
    return result.adaptive_stop


def viewer_event(rt: ScriptedRuntime, result: DebateResult) -> str:
    """The viewer's adaptive-stop event: exactly one, the record's table."""
    [shown] = [data for title, data in rt.infos if title == "adaptive stop"]
    assert result.adaptive_stop is not None
    assert shown == viewer_text.adaptive_stop(result.adaptive_stop)
    assert isinstance(shown, str)
    return shown


# -- du_debate -------------------------------------------------------------------------------------


async def du(counts: Sequence[int], **options: Any) -> tuple[ScriptedRuntime, DebateResult]:
    return await scripted_debate("du_debate", by_round(answers(counts, 3)), CHOICE, **options)


async def test_du_debate_stable_early_stops_after_round_3() -> None:
    rt, result = await du(STABLE, rounds=5, stop="adaptive")
    assert len(rt.calls) == 3 * 3  # 3 agents x 3 rounds, of the 5 allowed
    assert {c.round for c in rt.calls} == {1, 2, 3}
    stop = assert_trace(result, [2, 2, 2], STABLE_STATS, 3)
    assert [r.stable_streak for r in stop.rounds] == [0, 1, 2]
    assert rt.info_titles() == ["round 1", "round 2", "round 3", "vote", "adaptive stop"]
    shown = viewer_event(rt, result)
    assert "stopped after round 3: 2 stable round(s) in a row" in shown
    assert result.options["stop"] == "adaptive"
    assert result.final == "A" and result.stopped is None


async def test_du_debate_unstable_runs_every_round() -> None:
    rt, result = await du(ALTERNATING, rounds=6, stop="adaptive")
    assert len(rt.calls) == 3 * 6
    stop = assert_trace(result, ALTERNATING, ALTERNATING_STATS, None)
    assert [r.stable_streak for r in stop.rounds] == [0] * 6
    assert "not stopped by it" in viewer_event(rt, result)


async def test_du_debate_bimodal_counts_stop_once_the_window_repeats() -> None:
    rt, result = await du(BIMODAL, rounds=8, stop="adaptive")
    assert len(rt.calls) == 3 * 5
    stop = assert_trace(result, BIMODAL[:5], BIMODAL_STATS, 5)
    assert [r.stable_streak for r in stop.rounds] == [0, 0, 0, 1, 2]


@pytest.mark.parametrize(
    ("counts", "options", "stopped_at", "statistics"),
    [
        # a looser threshold: the alternating run's 0.0829 and 0.1658 are both under 0.2
        (ALTERNATING, {"stop_threshold": 0.2}, 4, ALTERNATING_STATS[:4]),
        # every round in the fit: the alternation fades as 1/3, 1/6, ... and ends up stable
        (ALTERNATING, {"stop_window": 0}, 6, [None, 0.2405, 0.0829, 0.0829, 0.0499, 0.0499]),
        ([2, 2, 2, 2, 2, 1], {"stop_min_rounds": 4}, 4, [None, 0.0, 0.0, 0.0]),
        ([2, 2, 2, 2, 2, 1], {"stop_stable_rounds": 3}, 4, [None, 0.0, 0.0, 0.0]),
    ],
)
async def test_du_debate_passes_each_parameter_to_the_rule(
    counts: list[int], options: dict[str, Any], stopped_at: int, statistics: list[float | None]
) -> None:
    rt, result = await du(counts, rounds=6, stop="adaptive", **options)
    assert len(rt.calls) == 3 * stopped_at
    stop = result.adaptive_stop
    assert stop is not None and stats(stop) == statistics
    assert (stop.stopped_at, stop.reason) == (stopped_at, "stable")


async def test_du_debate_an_abstention_backs_no_answer() -> None:
    # round 1: A and two replies without an answer, which count as backing nothing (not as two
    # agents giving the same "no answer"); rounds 2 and 3: A, A, B
    plan = {**answers([2, 2, 2], 3), ("agent_2", 1): None, ("agent_3", 1): None}
    rt, result = await scripted_debate(
        "du_debate", by_round(plan), CHOICE, retries=0, rounds=3, stop="adaptive"
    )
    assert len(rt.calls) == 9
    assert [r.count for r in stop_of(result).rounds] == [1, 2, 2]


@pytest.mark.parametrize(
    ("method", "cap"), [("du_debate", {"rounds": 5}), ("cortex", {"max_rounds": 4})]
)
async def test_a_limit_still_ends_the_debate_and_the_rule_did_not_fire(
    method: str, cap: dict[str, int]
) -> None:
    """-S budget: rounds 1 and 2 spend it (12 tokens a call), so round 3 is never asked for and
    the rule, which would have fired after it, never does."""
    n = 3
    spec = CATALOGUE[method]
    opts = spec.options(**spec.preset, **cap, agents=n, stop="adaptive", look_ahead=False)
    rt = ScriptedRuntime(by_round(answers(STABLE, n)))
    budget = Budget(n * 2 * (DEFAULT_USAGE.input_tokens + DEFAULT_USAGE.output_tokens), False)
    result = await spec.prepare(opts, SETUP)(Session(rt, CHOICE, budget=budget))
    assert {c.round for c in rt.calls} == {1, 2}
    assert_trace(result, [2, 2], [None, 0.0], None)
    assert result.stopped is not None and result.stopped.kind == "budget"
    assert "not stopped by it" in viewer_event(rt, result)


@pytest.mark.parametrize("fixed", [{}, {"stop": "fixed"}])
async def test_du_debate_stop_fixed_is_unchanged(fixed: dict[str, str]) -> None:
    rt, result = await du(STABLE, rounds=5, **fixed)
    adaptive_rt, _ = await du(STABLE, rounds=5, stop="adaptive")
    assert len(rt.calls) == 3 * 5
    # the same calls, with the same prompts, as far as the adaptive run went
    assert [c for c in rt.calls if c.round <= 3] == adaptive_rt.calls
    assert result.adaptive_stop is None and "adaptive stop" not in rt.info_titles()
    assert result.options["stop"] == "fixed"
    assert "adaptive_stop" in result.to_dict() and result.to_dict()["adaptive_stop"] is None


async def test_the_record_round_trips_through_json() -> None:
    _, result = await du(STABLE, rounds=5, stop="adaptive")
    stored = json.loads(json.dumps(result.to_dict()))
    assert stored["adaptive_stop"] == {
        "n": 3,
        "tracked": TRACKED,
        "threshold": 0.05,
        "stable_rounds": 2,
        "min_rounds": 1,
        "window": 3,
        "rounds": [
            {"round": 1, "count": 2, "statistic": None, "stable_streak": 0},
            {"round": 2, "count": 2, "statistic": 0.0, "stable_streak": 1},
            {"round": 3, "count": 2, "statistic": 0.0, "stable_streak": 2},
        ],
        "stopped_at": 3,
        "reason": "stable",
    }
    back = DebateResult.from_dict(stored)
    assert back.adaptive_stop == result.adaptive_stop
    assert back.adaptive_stop is not None
    assert back.adaptive_stop.rounds[2] == StabilityRound(3, 2, 0.0, 2)
    assert back == result


# -- refusals, before any call ---------------------------------------------------------------------


def never_called(call: Call) -> str:
    raise AssertionError(f"a model call was made: {call.agent}, round {call.round}")


@pytest.mark.parametrize("method", ["du_debate", "reconcile", "cortex"])
@pytest.mark.parametrize(
    ("option", "value"),
    [("stop_threshold", 0.1), ("stop_stable_rounds", 3), ("stop_min_rounds", 2),
     ("stop_window", 0), ("stop_em_iterations", 50), ("stop_em_tolerance", 1e-4)],
)  # fmt: skip
async def test_a_stop_parameter_without_stop_adaptive_is_refused_by_name(
    method: str, option: str, value: Any
) -> None:
    with pytest.raises(OptionError) as err:
        await scripted_debate(method, never_called, CHOICE, **{option: value})
    assert err.value.option == option
    assert "unless the method stops adaptively (stop=adaptive)" in str(err.value)


@pytest.mark.parametrize("factory", [single, self_consistency, on_demand_solver])
def test_a_method_without_the_option_refuses_stop_by_name(factory: Any) -> None:
    with pytest.raises(OptionError) as err:
        factory(stop="adaptive")
    assert str(err.value).startswith("invalid solver option 'stop': got 'adaptive', allowed: no")


@pytest.mark.parametrize("factory", [du_debate, reconcile, cortex])
def test_a_bad_stop_value_is_refused_by_name(factory: Any) -> None:
    with pytest.raises(OptionError) as err:
        factory(stop="early")
    assert str(err.value) == "invalid solver option 'stop': got 'early', allowed: fixed, adaptive"


# -- reconcile -------------------------------------------------------------------------------------


RECONCILE_TRACKED = "agents giving the round's most-given answer (unweighted)"


def reconciled(result: DebateResult) -> ReconcileRecord:
    assert isinstance(result.record, ReconcileRecord)
    return result.record


async def rc(
    counts: Sequence[int], plan: dict[tuple[str, int], str] | None = None, **options: Any
) -> tuple[ScriptedRuntime, DebateResult]:
    reply = by_round(plan or answers(counts, 3))
    return await scripted_debate("reconcile", reply, CHOICE, **options)


async def test_reconcile_stable_early_stops_after_round_3() -> None:
    rt, result = await rc(STABLE, max_rounds=4, stop="adaptive")
    assert len(rt.calls) == 3 * 3
    stop = assert_trace(result, [2, 2, 2], STABLE_STATS, 3, tracked=RECONCILE_TRACKED)
    assert [r.stable_streak for r in stop.rounds] == [0, 1, 2]
    assert (reconciled(result).stop_reason, reconciled(result).discussion_rounds) == ("stable", 2)
    assert rt.info_titles() == ["round 1", "round 2", "round 3", "vote", "adaptive stop"]
    assert "the agents' agreement was stable (stop=adaptive)" in dict(rt.infos)["vote"]
    assert "stopped after round 3" in viewer_event(rt, result)
    assert result.options["stop"] == "adaptive"


async def test_reconcile_unstable_runs_to_max_rounds() -> None:
    rt, result = await rc(ALTERNATING, max_rounds=5, stop="adaptive")
    assert len(rt.calls) == 3 * 6
    assert_trace(result, ALTERNATING, ALTERNATING_STATS, None, tracked=RECONCILE_TRACKED)
    assert reconciled(result).stop_reason == "max_rounds"
    assert "not stopped by it" in viewer_event(rt, result)


async def test_reconcile_bimodal_counts_stop_once_the_window_repeats() -> None:
    rt, result = await rc(BIMODAL, max_rounds=7, stop="adaptive")
    assert len(rt.calls) == 3 * 5
    assert_trace(result, BIMODAL[:5], BIMODAL_STATS, 5, tracked=RECONCILE_TRACKED)


async def test_reconcile_counts_answers_unweighted() -> None:
    # A, A, B every round, B stated with full confidence: the weighted vote goes to B (1.0 against
    # 0.1 + 0.1), while the count is A's two agents
    plan = answers([2, 2, 2, 2], 3)
    reply = by_round(plan)

    def confident(call: Call) -> str:
        text = reply(call)
        return (
            text.replace("ANSWER:", "CONFIDENCE: 1.0\nANSWER:") if call.agent == "agent_3" else text
        )

    rt, result = await scripted_debate(
        "reconcile", confident, CHOICE, max_rounds=3, stop="adaptive"
    )
    assert result.final == "B" and len(rt.calls) == 3 * 3
    assert_trace(result, [2, 2, 2], STABLE_STATS, 3, tracked=RECONCILE_TRACKED)


async def test_reconcile_agreement_still_ends_the_discussion_first() -> None:
    rt, result = await rc([2, 2, 3, 2], max_rounds=3, stop="adaptive")
    assert len(rt.calls) == 3 * 3
    assert reconciled(result).stop_reason == "agreement"
    assert_trace(result, [2, 2, 3], [None, 0.0, 0.1742], None, tracked=RECONCILE_TRACKED)


@pytest.mark.parametrize("fixed", [{}, {"stop": "fixed"}])
async def test_reconcile_stop_fixed_is_unchanged(fixed: dict[str, str]) -> None:
    rt, result = await rc(STABLE, max_rounds=4, **fixed)
    assert len(rt.calls) == 3 * 5
    assert reconciled(result).stop_reason == "max_rounds"
    assert result.adaptive_stop is None and "adaptive stop" not in rt.info_titles()


# -- cortex ----------------------------------------------------------------------------------------


def cortexed(result: DebateResult) -> CortexRecord:
    assert isinstance(result.record, CortexRecord)
    return result.record


async def cx(counts: Sequence[int], **options: Any) -> tuple[ScriptedRuntime, DebateResult]:
    reply = by_round(answers(counts, 4))
    return await scripted_debate("cortex", reply, CHOICE, agents=4, **options)


async def test_cortex_stable_early_stops_after_round_3() -> None:
    rt, result = await cx([2, 2, 2, 3, 2], max_rounds=4, stop="adaptive")
    assert len(rt.calls) == 4 * 3  # the embedder makes no model call
    stop = assert_trace(result, [2, 2, 2], STABLE_STATS, 3, n=4)
    assert [r.stable_streak for r in stop.rounds] == [0, 1, 2]
    record = cortexed(result)
    assert (record.stop_reason, record.rounds_executed, record.consensus) == ("stable", 2, False)
    assert len(record.graphs) == 2
    assert rt.info_titles() == [
        "round 1", "graph 2", "round 2", "graph 3", "round 3", "vote", "adaptive stop"
    ]  # fmt: skip
    assert "stopped after round 3" in viewer_event(rt, result)
    assert result.options["stop"] == "adaptive"


async def test_cortex_unstable_runs_to_max_rounds() -> None:
    counts = [2, 3, 2, 3, 2, 3]
    rt, result = await cx(counts, max_rounds=5, stop="adaptive")
    assert len(rt.calls) == 4 * 6
    assert_trace(result, counts, [None, 0.206, 0.0721, 0.1458, 0.1458, 0.1458], None, n=4)
    assert cortexed(result).stop_reason == "max_rounds"


async def test_cortex_an_early_disagreement_settles_late() -> None:
    counts = [2, 3, 3, 3, 3, 3, 3, 3]
    rt, result = await cx(counts, max_rounds=7, stop="adaptive")
    assert len(rt.calls) == 4 * 6
    assert_trace(result, counts[:6], [None, 0.206, 0.0737, 0.1455, 0.0, 0.0], 6, n=4)
    assert cortexed(result).rounds_executed == 5


async def test_cortex_consensus_still_ends_the_debate_first() -> None:
    rt, result = await cx([2, 2, 4, 2], max_rounds=3, stop="adaptive")
    assert len(rt.calls) == 4 * 3
    assert cortexed(result).stop_reason == "consensus"
    assert_trace(result, [2, 2, 4], [None, 0.0, 0.2693], None, n=4)


@pytest.mark.parametrize("fixed", [{}, {"stop": "fixed"}])
async def test_cortex_stop_fixed_is_unchanged(fixed: dict[str, str]) -> None:
    rt, result = await cx([2, 2, 2, 3, 2], max_rounds=4, **fixed)
    assert len(rt.calls) == 4 * 5
    assert cortexed(result).stop_reason == "max_rounds"
    assert result.adaptive_stop is None and "adaptive stop" not in rt.info_titles()


# -- on_demand: the debate's stop passes through debate_args ----------------------------------------


def ondemand(result: DebateResult) -> OnDemandRecord:
    assert isinstance(result.record, OnDemandRecord)
    return result.record


async def on_demand_run(**options: Any) -> tuple[ScriptedRuntime, DebateResult]:
    opts = CATALOGUE["on_demand"].options(first="cot", trigger="always", **options)
    debate = opts.debates()[opts.debate].prepare(opts.debate_options(), SETUP)
    rt = ScriptedRuntime(by_round(answers(STABLE, 3)))
    return rt, await on_demand(Session(rt, CHOICE), opts, debate)


@pytest.mark.parametrize(
    ("debate", "args", "calls"),
    [
        # the first stage is agent_1's round one, reused: 1 + (3 x 3 - 1)
        ("du_debate", {"rounds": 5}, 9),
        ("reconcile", {"max_rounds": 4}, 1 + 3 * 3),  # reconcile asks its own first prompt
    ],
)
async def test_on_demand_passes_stop_to_its_debate(
    debate: str, args: dict[str, Any], calls: int
) -> None:
    rt, result = await on_demand_run(debate=debate, debate_args={**args, "stop": "adaptive"})
    assert len(rt.calls) == calls
    assert result.adaptive_stop is not None
    assert (result.adaptive_stop.stopped_at, result.adaptive_stop.reason) == (3, "stable")
    assert [r.count for r in result.adaptive_stop.rounds] == [2, 2, 2]
    assert rt.info_titles()[-1] == "adaptive stop"
    assert ondemand(result).debate["options"]["stop"] == "adaptive"


async def test_on_demand_without_stop_in_debate_args_runs_the_debate_fixed() -> None:
    rt, result = await on_demand_run(debate="du_debate", debate_args={"rounds": 5})
    assert len(rt.calls) == 1 + 3 * 5 - 1
    assert result.adaptive_stop is None


@pytest.mark.parametrize(
    ("args", "option"),
    [
        ({"stop": "early"}, "debate_args.stop"),
        ({"stop_window": 0}, "debate_args.stop_window"),
        ({"stop": "fixed", "stop_threshold": 0.1}, "debate_args.stop_threshold"),
    ],
)
@pytest.mark.parametrize("debate", ["du_debate", "reconcile", "cortex"])
def test_on_demand_refuses_a_bad_debate_stop_by_name(
    debate: str, args: dict[str, Any], option: str
) -> None:
    with pytest.raises(OptionError) as err:
        on_demand_solver(debate=debate, debate_args=args)
    assert err.value.option == option


def test_on_demand_refuses_stop_for_a_debate_without_it() -> None:
    with pytest.raises(OptionError) as err:
        on_demand_solver(debate="chateval", debate_args={"stop": "adaptive"})
    assert err.value.option == "debate_args.stop"
    assert "no such option" in str(err.value)

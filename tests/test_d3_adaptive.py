"""SAMRE's `stopping=adaptive` (Hu et al. 2025, engine/stability.py) and the D3 juries, which vote
once and so have nothing to stop.

Golden tests: a scripted judge whose six criterion lines make each round's count (the criteria on
which it scores answer A above answer B) a constructed sequence, with gaps chosen so that the
authors' convergence test would decide differently; each test asserts the round SAMRE stopped at,
the exact calls, the record's counts, KS statistics, streaks and reason, and the viewer's event.
The statistics are the rule's own on these counts (tests/test_stability.py checks the rule): 0.0
wherever the window's multiset of counts repeats.

Replies depend on the call's kind, round and the answers it shows, never on call order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest
from scripted import ScriptedRuntime
from test_d3_engine import JURORS_3_2, PAIR, Score, court, good_side, new_session, refusing

from mad_tasks.engine import viewer_text
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.d3.options import SamreOptions
from mad_tasks.engine.methods.d3.records import Evaluation, JudgeRecord
from mad_tasks.engine.methods.d3.samre import TRACKED, favouring_a
from mad_tasks.engine.records import AdaptiveStopRecord, DebateResult
from mad_tasks.engine.runtime import Call
from mad_tasks.hosts.setup import SETUP
from mad_tasks.scorers._options import ScorerOptionError
from mad_tasks.scorers.judges import more_judge, samre_judge
from mad_tasks.solvers import more, samre

ROUND_CALLS = 6  # per round: 2 defences and their 2 summaries, the judge and its summary
JURY_CALLS = 5 * 2  # 5 votes and their 5 summaries (the authors' code's defaults)

# (criteria for the better answer, points each of them leads by) per round; the gaps A - B are
# (2k - 6) m when the better answer is shown first
STEADY_WINNER = [(6, 3), (6, 1), (6, 5), (6, 2), (6, 4)]  # gaps +18, +6, +30: never converged
FLIPPING = [(6, 3), (0, 3), (6, 3), (0, 3), (6, 3)]  # gaps ±18: |gap| steady, converged at 3
WAVERING = [(6, 3), (5, 3), (6, 3), (6, 3), (5, 3), (6, 3), (6, 3)]  # counts 6, 5, 6, 6, 5, ...


def judged(plan: Sequence[tuple[int, int]]) -> Score:
    """The judge's reply in round r: six criterion lines, k of them favouring the better answer
    (Canberra) by m points and the others favouring the other answer by m, then feedback and the
    totals. In the reversed order the better answer is B, so the count there is 6 - k."""

    def reply(call: Call) -> str:
        k, m = plan[call.round - 1]
        good_first = good_side(call) == "A"
        lines, totals = [], [0, 0]
        for i in range(1, 7):
            better, worse = 12 + m, 12
            pair = (better, worse) if (i <= k) == good_first else (worse, better)
            lines.append(f"{i}. [{pair[0]}, {pair[1]}]")
            totals = [totals[0] + pair[0], totals[1] + pair[1]]
        feedback = "Feedback A: be specific.\nFeedback B: answer the other side."
        return "\n".join([*lines, feedback, f"ANSWER: ({totals[0]}, {totals[1]})"])

    return reply


async def run(
    plan: Sequence[tuple[int, int]], **options: Any
) -> tuple[ScriptedRuntime, DebateResult]:
    """The catalogue's `samre` with `options`, prepared as every host prepares it."""
    spec = CATALOGUE["samre"]
    rt = ScriptedRuntime(court(judged(plan), JURORS_3_2))
    result = await spec.prepare(spec.options(**options), SETUP)(new_session(rt), PAIR)
    return rt, result


def stats(stop: AdaptiveStopRecord) -> list[float | None]:
    return [None if r.statistic is None else round(r.statistic, 4) for r in stop.rounds]


def hearing_of(result: DebateResult, i: int = 0) -> Any:
    assert isinstance(result.record, JudgeRecord)
    return result.record.hearings[i]


def viewer_events(rt: ScriptedRuntime) -> list[str]:
    shown = [data for title, data in rt.infos if title == "adaptive stop"]
    assert all(isinstance(s, str) for s in shown)
    return [str(s) for s in shown]


# -- SAMRE: stable early, unstable, wavering -------------------------------------------------------


async def test_a_steady_winner_stops_after_round_3_where_the_code_test_would_go_on() -> None:
    rt, result = await run(STEADY_WINNER, stopping="adaptive")
    assert len(rt.calls) == 3 * ROUND_CALLS + JURY_CALLS  # rounds 4 and 5 are never asked
    assert {c.round for c in rt.calls if c.purpose != "vote" and "juror" not in c.role} == {1, 2, 3}
    stop = result.adaptive_stop
    assert stop is not None and stop == hearing_of(result).adaptive_stop
    assert [r.count for r in stop.rounds] == [6, 6, 6]
    assert stats(stop) == [None, 0.0, 0.0]
    assert [r.stable_streak for r in stop.rounds] == [0, 1, 2]
    assert (stop.n, stop.tracked, stop.stopped_at, stop.reason) == (6, TRACKED, 3, "stable")
    assert (stop.threshold, stop.stable_rounds, stop.min_rounds, stop.window) == (0.05, 2, 1, 3)
    assert hearing_of(result).stop_reason == "stable"
    assert result.rounds == 3 and result.final == "A"
    # the event comes after the rounds and before the jury votes
    titles = rt.info_titles()
    assert titles == ["round 1", "round 2", "round 3", "adaptive stop", "jury", "verdict"]
    [shown] = viewer_events(rt)
    assert shown == viewer_text.adaptive_stop(stop)
    assert "stopped after round 3: 2 stable round(s) in a row" in shown
    assert "count: " + TRACKED + ", of the 6" in shown

    # the authors' test on the same judge: |gaps| 18, 6, 30 are not steady, so all 5 rounds run
    code_rt, code = await run(STEADY_WINNER)
    assert len(code_rt.calls) == 5 * ROUND_CALLS + JURY_CALLS
    assert hearing_of(code).stop_reason == "max_rounds"


async def test_a_flipping_judge_runs_to_the_cap_where_the_code_test_stops_at_round_3() -> None:
    rt, result = await run(FLIPPING, stopping="adaptive")
    assert len(rt.calls) == 5 * ROUND_CALLS + JURY_CALLS
    stop = result.adaptive_stop
    assert stop is not None
    assert [r.count for r in stop.rounds] == [6, 0, 6, 0, 6]
    assert stats(stop) == [None, 0.5, 0.1667, 0.3333, 0.3333]
    assert [r.stable_streak for r in stop.rounds] == [0] * 5
    assert (stop.stopped_at, stop.reason) == (None, "rounds_exhausted")
    assert hearing_of(result).stop_reason == "max_rounds"
    assert "not stopped by it" in viewer_events(rt)[0]

    # the authors' test reads |+18| = |-18| as steady and stops at round 3, the flip unseen
    code_rt, code = await run(FLIPPING)
    assert len(code_rt.calls) == 3 * ROUND_CALLS + JURY_CALLS
    assert hearing_of(code).stop_reason == "converged"


async def test_a_wavering_judge_stops_once_the_window_repeats() -> None:
    # counts 6, 5, 6, 6, 5: from round 3 every window holds {5, 6, 6}
    rt, result = await run(WAVERING, stopping="adaptive", max_rounds=7)
    assert len(rt.calls) == 5 * ROUND_CALLS + JURY_CALLS
    stop = result.adaptive_stop
    assert stop is not None
    assert [r.count for r in stop.rounds] == [6, 5, 6, 6, 5]
    assert stats(stop) == [None, 0.4002, 0.1162, 0.0, 0.0]
    assert [r.stable_streak for r in stop.rounds] == [0, 0, 0, 1, 2]
    assert (stop.stopped_at, hearing_of(result).stop_reason) == (5, "stable")


async def test_the_stop_parameters_reach_the_rule() -> None:
    # a looser threshold of 0.4 takes the flipping judge's rounds 3 and 4 as stable
    rt, result = await run(FLIPPING, stopping="adaptive", stop_threshold=0.4)
    stop = result.adaptive_stop
    assert stop is not None and stats(stop) == [None, 0.5, 0.1667, 0.3333]
    assert (stop.stopped_at, stop.threshold, len(rt.calls)) == (4, 0.4, 4 * 6 + JURY_CALLS)
    _, late = await run(STEADY_WINNER, stopping="adaptive", stop_min_rounds=4)
    assert late.adaptive_stop is not None and late.adaptive_stop.stopped_at == 4
    assert late.options["stop_min_rounds"] == 4


# -- SAMRE's own stop rules keep working alongside ----------------------------------------------------


@pytest.mark.parametrize(
    ("options", "reason"),
    [
        ({"decisive_gap": 25}, "decisive"),  # round 1's gap +18 is under 25, round 2's +30 not
        # 12 tokens a call: 72 after round 1, 144 after round 2, which exceeds the budget
        ({"token_budget": 2 * ROUND_CALLS * 12 - 1}, "token_budget"),
    ],
)
async def test_the_decisive_gap_and_the_budget_stop_before_the_rule_fires(
    options: dict[str, int], reason: str
) -> None:
    plan = [(6, 3), (6, 5), (6, 5), (6, 5), (6, 5)]  # gaps +18, +30, +30, ...
    rt, result = await run(plan, stopping="adaptive", **options)
    assert len(rt.calls) == 2 * ROUND_CALLS + JURY_CALLS  # round 3 would have been stable
    assert hearing_of(result).stop_reason == reason
    stop = result.adaptive_stop
    assert stop is not None and [r.count for r in stop.rounds] == [6, 6]
    assert (stats(stop), stop.stopped_at, stop.reason) == ([None, 0.0], None, "rounds_exhausted")


async def test_the_cap_ends_a_debate_the_rule_would_stop_one_round_later() -> None:
    rt, result = await run(STEADY_WINNER, stopping="adaptive", max_rounds=2)
    assert len(rt.calls) == 2 * ROUND_CALLS + JURY_CALLS
    assert hearing_of(result).stop_reason == "max_rounds"
    assert result.adaptive_stop is not None
    assert (result.adaptive_stop.stopped_at, result.adaptive_stop.reason) == (
        None,
        "rounds_exhausted",
    )


async def test_a_limit_ends_the_debate_as_before_and_the_trace_keeps_the_complete_rounds() -> None:
    # round 3's judge is refused: rounds 1-2 decide, no jury, the rule never fired
    reply = court(judged(STEADY_WINNER), JURORS_3_2)
    rt = ScriptedRuntime(refusing(reply, lambda c: c.purpose == "score" and c.round == 3))
    spec = CATALOGUE["samre"]
    opts = spec.options(stopping="adaptive")
    result = await spec.prepare(opts, SETUP)(new_session(rt), PAIR)
    assert result.stopped is not None and result.stopped.where == "round 3"
    assert hearing_of(result).stop_reason == "limit" and hearing_of(result).jury == []
    stop = result.adaptive_stop
    assert stop is not None and [r.count for r in stop.rounds] == [6, 6]
    assert (stop.stopped_at, stop.reason) == (None, "rounds_exhausted")
    assert len(viewer_events(rt)) == 1


def test_the_count_is_the_criteria_favouring_a_and_unreadable_criteria_count_none() -> None:
    def evaluation(criteria: list[tuple[int, int]] | None) -> Evaluation:
        return Evaluation("judge", 1, (90, 72), criteria, "", 1)

    assert favouring_a(evaluation([(15, 12)] * 4 + [(12, 12), (11, 12)])) == 4  # a tie holds none
    assert favouring_a(evaluation([(12, 15)] * 6)) == 0
    assert favouring_a(evaluation(None)) == 0  # totals only: no criterion read


async def test_each_order_of_a_swap_keeps_its_own_trace() -> None:
    # the better answer leads on every criterion: shown first it is A (count 6), reversed it is
    # B, so the fixed side A holds no criterion (count 0); both are stable at round 3
    rt, result = await run(STEADY_WINNER, stopping="adaptive", swap=True)
    assert len(rt.calls) == 2 * (3 * ROUND_CALLS + JURY_CALLS)
    given, reversed_ = hearing_of(result, 0), hearing_of(result, 1)
    assert (given.order, reversed_.order) == ("AB", "BA")
    assert [r.count for r in given.adaptive_stop.rounds] == [6, 6, 6]
    assert [r.count for r in reversed_.adaptive_stop.rounds] == [0, 0, 0]
    assert result.adaptive_stop == given.adaptive_stop
    assert len(viewer_events(rt)) == 2


async def test_the_record_round_trips_with_each_hearings_trace() -> None:
    _, result = await run(STEADY_WINNER, stopping="adaptive", swap=True)
    back = DebateResult.from_dict(json.loads(json.dumps(result.to_dict())))
    assert back == result
    assert hearing_of(back, 1).adaptive_stop == hearing_of(result, 1).adaptive_stop


async def test_the_options_record_the_rule_instead_of_the_convergence_test() -> None:
    _, result = await run(STEADY_WINNER, stopping="adaptive", stop_window=4)
    assert result.options["stopping"] == "adaptive"
    assert not {"window", "min_rounds", "eps"} & result.options.keys()
    assert {k: v for k, v in result.options.items() if k.startswith("stop_")} == {
        "stop_threshold": 0.05,
        "stop_stable_rounds": 2,
        "stop_min_rounds": 1,
        "stop_window": 4,
        "stop_em_iterations": 100,
        "stop_em_tolerance": 1e-6,
    }


# -- the default is unchanged ---------------------------------------------------------------------


@pytest.mark.parametrize("plan", [STEADY_WINNER, FLIPPING])
async def test_the_default_and_stopping_code_are_unchanged(plan: list[tuple[int, int]]) -> None:
    rt, result = await run(plan)
    explicit_rt, explicit = await run(plan, stopping="code")
    assert rt.calls == explicit_rt.calls and result.to_dict() == explicit.to_dict()
    assert result.adaptive_stop is None and hearing_of(result).adaptive_stop is None
    assert "adaptive stop" not in rt.info_titles()
    assert not any(k.startswith("stop") for k in result.options if k != "stopping")
    assert {k: result.options[k] for k in ("stopping", "window", "min_rounds", "eps")} == {
        "stopping": "code",
        "window": 3,
        "min_rounds": 3,
        "eps": 5.0,
    }
    # the round reports name the authors' convergence test, not the adaptive rule
    rounds = [str(data) for title, data in rt.infos if title.startswith("round ")]
    assert all("`converged`: the sizes |A − B|" in r and "`stable`" not in r for r in rounds)


# -- refusals, before any call -------------------------------------------------------------------


@pytest.mark.parametrize("factory", [samre, samre_judge])
@pytest.mark.parametrize(
    ("option", "value"),
    [("stop_threshold", 0.1), ("stop_stable_rounds", 3), ("stop_min_rounds", 2),
     ("stop_window", 0), ("stop_em_iterations", 50), ("stop_em_tolerance", 1e-4)],
)  # fmt: skip
def test_a_stop_parameter_without_stopping_adaptive_is_refused_by_name(
    factory: Any, option: str, value: Any
) -> None:
    for stopping in ("code", "signed"):
        with pytest.raises((OptionError, ScorerOptionError)) as err:
            factory(stopping=stopping, **{option: value})
        assert f"option '{option}': got {value!r}, allowed: its default unless the method " in str(
            err.value
        )
    factory(stopping="adaptive", **{option: value})  # accepted with it


@pytest.mark.parametrize(("option", "value"), [("eps", 2.0), ("window", 3), ("min_rounds", 2)])
def test_the_convergence_tests_parameters_are_refused_with_stopping_adaptive(
    option: str, value: Any
) -> None:
    with pytest.raises(OptionError) as err:
        samre(stopping="adaptive", **{option: value})
    assert str(err.value) == (
        f"invalid solver option '{option}': got {value!r}, allowed: unset with "
        "stopping=adaptive (use the stop_ options)"
    )


def test_a_bad_stopping_value_names_adaptive_among_the_allowed() -> None:
    with pytest.raises(OptionError) as err:
        samre(stopping="early")
    assert str(err.value) == (
        "invalid solver option 'stopping': got 'early', allowed: signed, code, adaptive"
    )


@pytest.mark.parametrize("factory", [more, more_judge, samre, samre_judge])
def test_the_juries_vote_once_so_stop_is_refused_by_name(factory: Any) -> None:
    """MORE's and SAMRE's jurors each cast one vote after the debate: there are no jury rounds
    to stop, so no `stop` option (SAMRE's rounds stop adaptively through `stopping`)."""
    with pytest.raises((OptionError, ScorerOptionError)) as err:
        factory(stop="adaptive")
    assert "option 'stop': got 'adaptive', allowed: no such option" in str(err.value)


def test_more_takes_no_stop_parameter() -> None:
    with pytest.raises(OptionError) as err:
        more(stop_threshold=0.1)
    assert err.value.option == "stop_threshold"
    assert "no such option" in str(err.value)


def test_samre_options_stop_adaptively_only_with_stopping_adaptive() -> None:
    assert SamreOptions().stability() is None
    assert SamreOptions(stopping="signed").stability() is None
    adaptive = SamreOptions(stopping="adaptive", stop_window=0).stability()
    assert adaptive is not None and adaptive.window == 0
    rule = SamreOptions(stopping="adaptive", max_rounds=7, decisive_gap=30).rule
    assert (rule.stopping, rule.max_rounds, rule.decisive_gap) == ("adaptive", 7, 30)


async def test_a_session_without_options_runs_the_samre_function_unchanged() -> None:
    """The engine function's default rule is still the authors' code's (stopping=code)."""
    from mad_tasks.engine.methods.d3.samre import samre as samre_run

    rt = ScriptedRuntime(court(judged(FLIPPING), JURORS_3_2))
    result = await samre_run(new_session(rt), PAIR)
    assert result.adaptive_stop is None and result.options["stopping"] == "code"
    assert len(rt.calls) == 3 * ROUND_CALLS + JURY_CALLS

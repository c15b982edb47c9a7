"""Token accounting: usage a reply does not report stays unknown (never 0 tokens), replies served from
Inspect's cache count as cached (never as spent), and a token budget that cannot be enforced says so.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import CachePolicy, ModelOutput, ModelUsage
from scripted import ScriptedRuntime, recorded
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3.court import VERDICT, Pair
from mad_tasks.engine.methods.d3.samre import samre
from mad_tasks.engine.protocols.d3 import StopRule
from mad_tasks.engine.records import DEBATE_STATS, CallRecord, reply_tokens, token_totals
from mad_tasks.engine.requests import DefenceRequest, ScoreRequest
from mad_tasks.engine.runtime import Call, Reply, Usage
from mad_tasks.engine.session import Problem, Session
from mad_tasks.inspect_runtime import reported_usage
from mad_tasks.scorers.cortex_stats import cortex_stats
from mad_tasks.scorers.debate_stats import debate_stats
from mad_tasks.scorers.decision_stats import decision_stats
from mad_tasks.solvers import cortex, voting
from mad_tasks.solvers import samre as samre_solver
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"


def stats(log: EvalLog) -> dict[str, float]:
    return {s.name: s.metrics["mean"].value for s in log.results.scores if s.name in DEBATE_STATS}


def by_role(sample: EvalSample, figure: str) -> dict[str, int]:
    """A debate figure per role, from its score's metadata."""
    return sample.scores[figure].metadata["by_role"]


# -- the records -----------------------------------------------------------------------------------


async def test_a_reply_without_usage_is_recorded_as_unknown_not_as_zero() -> None:
    rt = ScriptedRuntime(lambda call: Reply("ANSWER: yes", None))
    session = Session(rt, Problem(Question.of(["Is it?"]), YesNo()))
    await session.answer("agent_1", "agent", [], "answer", 1)
    [record] = session.calls
    assert (record.input_tokens, record.output_tokens, record.tokens) == (None, None, None)
    assert token_totals(session.calls) == {
        "calls": 1,
        "tool_calls": 0,
        "calls_without_usage": 1,
        "cached_calls": 0,
        "input_tokens": 0,
        "output_tokens": 0,
        "cached_input_tokens": 0,
        "cached_output_tokens": 0,
    }
    assert reply_tokens(session.calls) is None


async def test_a_cached_reply_counts_as_cached_never_as_spent() -> None:
    def reply(call: Call) -> Reply:
        return Reply("ANSWER: yes", Usage(30, 4), cached=call.agent == "agent_2")

    rt = ScriptedRuntime(reply)
    session = Session(rt, Problem(Question.of(["Is it?"]), YesNo()))
    for agent in ("agent_1", "agent_2"):
        await session.answer(agent, "agent", [], "answer", 1)
    assert [c.cached for c in session.calls] == [False, True]
    assert token_totals(session.calls) == {
        "calls": 2,
        "tool_calls": 0,
        "calls_without_usage": 0,
        "cached_calls": 1,
        "input_tokens": 30,
        "output_tokens": 4,
        "cached_input_tokens": 30,
        "cached_output_tokens": 4,
    }
    # the size of the debate counts every reply, wherever it came from
    assert reply_tokens(session.calls) == 68


@pytest.mark.parametrize(
    "usage, read",
    [
        (None, None),
        (ModelUsage(), None),  # an all-zero count is no count: every call sends input
        (ModelUsage(input_tokens=12, output_tokens=0, total_tokens=12), Usage(12, 0)),
        (ModelUsage(input_tokens=12, output_tokens=3, total_tokens=15), Usage(12, 3)),
    ],
)
def test_the_usage_a_provider_reports(usage: ModelUsage | None, read: Usage | None) -> None:
    output = ModelOutput.from_content(model="m", content="ANSWER: yes")
    output.usage = usage
    assert reported_usage(output) == read


def test_records_written_before_the_cache_flag_still_load() -> None:
    old = {"agent": "a", "role": "r", "purpose": "p", "round": 1, "attempt": 0,
           "input_tokens": 5, "output_tokens": 1}  # fmt: skip
    assert CallRecord(**old).cached is False


# -- SAMRE's token budget --------------------------------------------------------------------------

PAIR = Pair(Question.of(["What is 2 + 2?"]), "4, by counting.", "5, roughly.")


def court(usage: Usage | None, cached: bool = False) -> Callable[[Call], Reply]:
    """Advocates defend, the judge never converges (its gap flips every round), jurors pick A."""

    def reply(call: Call) -> Reply:
        if isinstance(call.asks, DefenceRequest):
            text = "A short defence."
        elif isinstance(call.asks, ScoreRequest):
            a, b = (80, 70) if call.round % 2 else (70, 80)
            text = "\n".join(f"{i}. [{a // 6}, {b // 6}]" for i in range(1, 7))
            text += f"\nFeedback A: more.\nFeedback B: more.\nANSWER: ({a}, {b})"
        else:
            text = "ANSWER: A"
        return Reply(text, usage, cached)

    return reply


async def test_samre_budget_is_reported_unenforced_when_replies_carry_no_usage() -> None:
    rt = ScriptedRuntime(court(None))
    rule = StopRule(max_rounds=3, token_budget=1)
    result = await samre(Session(rt, Problem(PAIR.question, VERDICT)), PAIR, rule=rule)
    assert result.record.stats()["stop_reasons"] == ["max_rounds"]  # the budget could never fire
    assert recorded(result)["token_budget_enforced"] is False
    assert result.record.stats()["tokens"] is None
    notes = [data for title, data in rt.infos if title == "token budget"]
    assert len(notes) == 1 and "cannot be enforced" in notes[0]


async def test_samre_budget_fires_on_reported_usage_and_counts_cached_replies() -> None:
    # cached replies count too, so a cached re-run stops where the first run stopped
    for cached in (False, True):
        rt = ScriptedRuntime(court(Usage(300, 100), cached))
        rule = StopRule(max_rounds=3, token_budget=1)
        result = await samre(Session(rt, Problem(PAIR.question, VERDICT)), PAIR, rule=rule)
        assert result.record.stats()["stop_reasons"] == ["token_budget"]
        assert recorded(result)["token_budget_enforced"] is True
        assert "token budget" not in rt.info_titles()


async def test_samre_without_a_budget_records_no_enforcement() -> None:
    rt = ScriptedRuntime(court(None))
    result = await samre(Session(rt, Problem(PAIR.question, VERDICT)), PAIR, StopRule(max_rounds=2))
    assert recorded(result)["token_budget_enforced"] is None
    assert "token budget" not in rt.info_titles()


# -- in Inspect: debate_stats ----------------------------------------------------------------------


def test_debate_stats_counts_calls_without_usage_apart(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        model_args={"usage": False},
        limit=2,
    )
    s = stats(log)
    assert (s["calls"], s["calls_without_usage"]) == (6.0, 6.0)
    assert (s["input_tokens"], s["output_tokens"]) == (0.0, 0.0)
    for sample in log.samples:
        calls = sample.store[STORE_KEY]["calls"]
        assert all(c["input_tokens"] is None and c["output_tokens"] is None for c in calls)
        assert by_role(sample, "calls_without_usage") == {
            "agent_1": 2,
            "agent_2": 2,
            "agent_3": 2,
        }


@pytest.mark.parametrize(
    "solver, scorer", [(cortex(max_rounds=1), cortex_stats()), (voting(), decision_stats())]
)
def test_every_statistic_reads_replies_without_usage(run, solver, scorer) -> None:
    base = strategyqa(data_path=str(STRATEGYQA), subset=1)
    task = Task(
        dataset=base.dataset, setup=base.setup, solver=solver, scorer=[*debate_stats(), *scorer]
    )
    log = run(task, model="madsim/x", model_args={"usage": False})
    [sample] = log.samples
    assert {c["input_tokens"] for c in sample.store[STORE_KEY]["calls"]} == {None}
    assert all(score.value is not None for score in sample.scores.values())


def test_samre_in_inspect_logs_that_its_budget_cannot_be_enforced(run) -> None:
    task = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=1)
    log = run(
        task, solver=samre_solver(token_budget=100), model="madsim/x", model_args={"usage": False}
    )
    [sample] = map(resolve_sample_attachments, log.samples)  # long texts are attachments
    assert sample.store[STORE_KEY]["record"]["token_budget_enforced"] is False
    notes = [e.data for e in sample.events if e.event == "info" and e.source == "token budget"]
    assert len(notes) == 1 and "cannot be enforced" in notes[0]


def test_a_cached_rerun_reports_cached_tokens_and_spends_none(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    first = run(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        cache=CachePolicy(expiry="1D"),
        limit=2,
    )
    second = run(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        cache=CachePolicy(expiry="1D"),
        limit=2,
    )
    spent, again = stats(first), stats(second)
    assert spent["input_tokens"] > 0 and spent["output_tokens"] > 0
    assert (spent["cached_input_tokens"], spent["cached_output_tokens"]) == (0.0, 0.0)
    assert (spent["cached_calls"], again["cached_calls"]) == (0.0, 6.0)
    assert (again["input_tokens"], again["output_tokens"]) == (0.0, 0.0)
    assert again["cached_input_tokens"] == spent["input_tokens"]
    assert again["cached_output_tokens"] == spent["output_tokens"]
    # as Inspect itself counts them: the re-run used no tokens
    assert sum(u.total_tokens for u in second.stats.model_usage.values()) == 0
    for before, after in zip(first.samples, second.samples):
        for kind in ("input", "output"):
            paid = by_role(before, f"{kind}_tokens")
            assert set(by_role(after, f"{kind}_tokens").values()) == {0}
            assert by_role(after, f"cached_{kind}_tokens") == paid

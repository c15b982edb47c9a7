"""A limit ends a debate, never a sample (engine/limits.py): with Inspect's `--token-limit` below
a debate's full cost, every sample is scored, the answer is the method's decision from what was
complete, and the record names the limit, where it stopped and what decided."""

from __future__ import annotations

import math
from collections.abc import Iterator

import pytest
from inspect_ai.model import (
    ChatMessage,
    Model,
    ModelCost,
    ModelInfo,
    ModelOutput,
    ModelUsage,
    get_model,
    set_model_info,
)
from scripted import family
from testdata import STRATEGYQA

from mad_tasks.engine.records import DebateResult
from mad_tasks.solvers import consensus, cortex, du_debate, reconcile
from mad_tasks.tasks.strategyqa import strategyqa

# what every agent answers in each round, by how many of its own replies the call already holds
ROUNDS = {0: "yes", 1: "no", 2: "yes"}
PER_CALL = 100  # tokens every call reports


def scripted(growing: bool = False) -> Model:
    """Every call `PER_CALL` tokens; `growing`: 50 in round 1, 150 in round 2, 250 in round 3
    (a later round reads more)."""

    def output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        own = sum(m.role == "assistant" for m in input)
        out = ModelOutput.from_content("mockllm/model", f"Reasoned.\nANSWER: {ROUNDS[min(own, 2)]}")
        tokens = 50 + 100 * own if growing else PER_CALL
        out.usage = ModelUsage(input_tokens=tokens - 10, output_tokens=10, total_tokens=tokens)
        return out

    return get_model("mockllm/model", custom_outputs=output)


def record(log) -> DebateResult:
    [sample] = log.samples
    return DebateResult.from_dict(sample.store["mad_tasks:debate"])


@pytest.fixture
def priced() -> Iterator[None]:
    """`mockllm/model` at $1 per million input tokens and $2 per million output tokens."""
    set_model_info("mockllm/model", ModelInfo(cost=ModelCost(
        input=1.0, output=2.0, input_cache_write=0.0, input_cache_read=0.0)))  # fmt: skip
    yield
    set_model_info("mockllm/model", ModelInfo())  # no price again


def test_a_token_limit_ends_du_debate_at_its_last_complete_round(run, priced) -> None:
    # rounds 1 and 2 fit (6 calls, 600 tokens); the first call of round 3 passes 650 (without
    # looking ahead, round 3 is started)
    task = strategyqa(data_path=str(STRATEGYQA))
    solver = du_debate(rounds=3, look_ahead=False)
    log = run(task, solver=solver, model=scripted(), limit=1, token_limit=650)
    [sample] = log.samples
    assert sample.error is None and sample.limit is None  # the sample went on to be scored
    result = record(log)
    assert result.stopped is not None
    assert (result.stopped.kind, result.stopped.limit) == ("token", 650)
    assert (result.stopped.where, result.stopped.decided) == ("round 3", "the vote of round 2")
    # rounds 1 and 2, and the reply of round 3 that passed the limit as it came back: spent and
    # counted (the record's tokens are Inspect's), never read
    assert result.rounds == 2 and len(result.calls) == 7
    assert [c.discarded for c in result.calls] == [False] * 6 + [True]
    assert result.calls[-1].round == 3
    spent = sum(c.tokens or 0 for c in result.calls)
    assert spent == 700 == sum(u.total_tokens for u in sample.model_usage.values())
    # round 2's answer, not round 3's (yes) nor round 1's (yes)
    assert result.final == "no" == sample.output.completion.split("ANSWER: ")[-1]
    assert sample.scores["final_answer"].value in ("C", "I")
    assert sample.scores["calls"].value == 7
    # 7 calls of 90 input and 10 output tokens: the dollars Inspect billed, per role too
    assert sample.scores["cost"].value == pytest.approx(7 * (90 * 1.0 + 10 * 2.0) / 1e6)
    assert sample.scores["cost"].value == pytest.approx(
        sum(u.total_cost for u in sample.model_usage.values())
    )
    by_role = sample.scores["cost"].metadata["by_role"]
    assert by_role == pytest.approx({r: u.total_cost for r, u in sample.role_usage.items()})
    assert sample.scores["calls"].metadata["stopped"]["where"] == "round 3"
    assert any(e.event == "info" and e.source == "limit reached" for e in sample.events)
    for score in log.results.scores:
        for metric in score.metrics.values():
            assert not math.isnan(metric.value), score.name


def test_a_method_without_a_rule_for_it_ends_with_no_answer_and_its_calls_scored(run) -> None:
    task = strategyqa(data_path=str(STRATEGYQA))
    log = run(task, solver=reconcile(), model=scripted(), limit=1, token_limit=250)
    [sample] = log.samples
    assert sample.error is None
    result = record(log)
    assert result.final is None and sample.output.completion == ""  # never a guess
    assert result.stopped is not None and result.stopped.kind == "token"
    assert result.stopped.decided.startswith("no answer")
    assert sample.scores["final_answer"].value == "I"  # no answer is never right
    assert sample.scores["calls"].value == len(result.calls) >= 2


def test_a_limit_ends_a_consensus_debate_as_its_turns_running_out_would(run) -> None:
    """The decision protocols' rule for a debate without a decision decides: for consensus, the
    latest proposal (two drafts fit in 250 tokens, the third call passes it)."""
    task = strategyqa(data_path=str(STRATEGYQA))
    log = run(task, solver=consensus(personas="none"), model=scripted(), limit=1, token_limit=250)
    result = record(log)
    assert result.final == "yes" and result.stopped is not None
    assert (result.stopped.where, result.stopped.decided) == (
        "turn 1",
        "the rule for no decision (latest_proposal) after the turns that ran",
    )
    assert len(result.calls) == 3 and result.calls[-1].discarded  # the reply past the limit


def by_agent(answers: dict[str, dict[int, str]]) -> Model:
    """Each agent's answer per round (the call in flight says whose and which); a call of round
    r takes 50 + 100 (r - 1) tokens (a later round reads more)."""
    from mad_tasks.inspect_runtime import current_call

    def output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        call = current_call.get()
        assert call is not None
        said = answers[call.agent][min(call.round, 3)]
        out = ModelOutput.from_content("mockllm/model", f"Reasoned.\nANSWER: {said}")
        tokens = 50 + 100 * (call.round - 1)
        out.usage = ModelUsage(input_tokens=tokens - 10, output_tokens=10, total_tokens=tokens)
        return out

    return get_model("mockllm/model", custom_outputs=output)


@pytest.mark.parametrize(
    ("look_ahead", "token_limit", "where"),
    [
        # rounds of 150 and 450 tokens: round 3's first reply (250) passes 650
        (False, 650, "round 3"),  # started, and cut as its first reply passed the limit
        # round 2 is estimated at 2 x 150 and fits; round 3 at 450 + 300 and 600 + 750 > 1000
        (True, 1000, "before round 3 (look-ahead: it would pass the token limit)"),
    ],
)
def test_a_limit_ends_cortex_at_its_last_complete_round(run, look_ahead, token_limit, where):
    """Two agents say yes, then no in round 3; the third always no: the limit after round 2 leaves
    round 2's plurality, yes, and the graph of the round that did not finish is not kept."""
    model = by_agent({"agent_1": {1: "yes", 2: "yes", 3: "no"}, "agent_2": {1: "yes", 2: "yes", 3: "no"},
                      "agent_3": {1: "no", 2: "no", 3: "no"}})  # fmt: skip
    task = strategyqa(data_path=str(STRATEGYQA))
    solver = cortex(agents=3, max_rounds=4, look_ahead=look_ahead)
    log = run(task, solver=solver, model=model, limit=1, token_limit=token_limit)
    result = record(log)
    assert result.final == "yes" and result.rounds == 2
    assert result.stopped is not None
    assert (result.stopped.where, result.stopped.decided) == (where, "the vote of round 2")
    assert result.record.stop_reason == "limit" and not result.record.consensus
    assert result.record.rounds_executed == 1 and len(result.record.graphs) == 1
    assert any(c.discarded for c in result.calls) is not look_ahead  # a call spent, or none


def test_a_limit_in_the_jury_leaves_mores_verdict_to_the_judge(run) -> None:
    """MORE's 10 calls before the jury (the judge's feedback and scores among them) fit in 1,050
    tokens; the first juror's reply passes them, so the judge's scores decide (A), not the jury
    that would have said B. (With look-ahead, the default, the jury is not started at all:
    tests/test_budget_d3.py.)"""
    from inspect_ai.model import ModelOutput as Output
    from testdata import MT_BENCH_PAIRS

    from mad_tasks.inspect_runtime import current_call
    from mad_tasks.solvers import more
    from mad_tasks.tasks.mt_bench_judge import mt_bench_judge

    def output(input: list[ChatMessage], tools, tool_choice, config) -> Output:
        call = current_call.get()
        assert call is not None
        verdicts = {"judge": "ANSWER: (100, 60)", "juror": "ANSWER: B"}
        text = verdicts.get(family(call.role), "A defence.")  # every juror_i a juror
        out = Output.from_content("mockllm/model", text)
        out.usage = ModelUsage(input_tokens=PER_CALL - 10, output_tokens=10, total_tokens=PER_CALL)
        return out

    model = get_model("mockllm/model", custom_outputs=output)
    task = mt_bench_judge(data_path=str(MT_BENCH_PAIRS))
    log = run(task, solver=more(look_ahead=False), model=model, limit=1, token_limit=1050)
    result = record(log)
    assert result.final == "A" and result.stopped is not None
    assert (result.stopped.where, result.stopped.decided) == (
        "the jury",
        "the judge's scores (the jury did not vote)",
    )
    # the 10 calls before the jury, and the first juror's reply that passed the limit (never read)
    assert len(result.calls) == 11 and result.record.hearings[0].jury == []
    assert [c.purpose for c in result.calls if c.discarded] == ["vote"]
    [sample] = log.samples
    assert sample.scores["calls"].value == 11 and sample.error is None


def test_looking_ahead_du_debate_does_not_start_a_round_that_would_pass_the_limit(run) -> None:
    """3 agents: round 1 costs 150 tokens, so round 2 is estimated at 3 x 150 = 450 (it reads
    the others' answers) and fits in 1000; it costs 450, so round 3 is estimated at 450 + 300 =
    750, and 600 + 750 > 1000: it is not started, and no call is spent on it. At 1350 it fits."""
    task = strategyqa(data_path=str(STRATEGYQA))
    model = scripted(growing=True)
    log = run(task, solver=du_debate(rounds=3), model=model, limit=1, token_limit=1000)
    result = record(log)
    assert result.final == "no" and len(result.calls) == 6 and result.rounds == 2
    assert not any(c.discarded for c in result.calls)
    assert result.stopped is not None
    assert (result.stopped.kind, result.stopped.value, result.stopped.limit) == ("token", 600, 1000)
    assert result.stopped.where == "before round 3 (look-ahead: it would pass the token limit)"
    assert result.stopped.decided == "the vote of round 2"
    log = run(task, solver=du_debate(rounds=3), model=model, limit=1, token_limit=1350)
    result = record(log)
    assert result.stopped is None and result.rounds == 3 and result.final == "yes"
    # 599: round 2 (estimated at 450) would pass it after round 1's 150
    log = run(task, solver=du_debate(rounds=3), model=model, limit=1, token_limit=599)
    result = record(log)
    assert result.stopped is not None and result.rounds == 1 and len(result.calls) == 3
    assert result.stopped.where == "before round 2 (look-ahead: it would pass the token limit)"


def test_looking_ahead_counts_the_growth_of_a_round_over_the_one_before() -> None:
    """A later round reads more: the estimate is the last round's spend plus its growth."""
    from scripted import ScriptedRuntime

    from mad_tasks.engine.limits import next_round_fits
    from mad_tasks.engine.records import CallRecord
    from mad_tasks.engine.runtime import Budget
    from mad_tasks.engine.session import Session

    def spent(tokens: int) -> list[CallRecord]:
        return [CallRecord("a", "agent", "debate", 1, 0, tokens - 10, 10)]

    def session(budget: int, look_ahead: bool = True) -> Session:
        made = Session(ScriptedRuntime(lambda call: ""), None, budget=Budget(budget, look_ahead))
        made.budget.spent = 300  # type: ignore[union-attr]
        return made

    # rounds of 100 then 200: the next is estimated at 300, so 300 spent + 300 fits in 600 only
    assert next_round_fits(session(600), [spent(100), spent(200)]) is None
    stop = next_round_fits(session(599), [spent(100), spent(200)])
    assert stop is not None and (stop.kind, stop.value, stop.limit) == ("budget", 300, 599)
    assert next_round_fits(session(599, look_ahead=False), [spent(100), spent(200)]) is None
    # a shrinking round is estimated at its own spend; a reply without usage: nothing is known
    assert next_round_fits(session(500), [spent(300), spent(200)]) is None
    unknown = [CallRecord("a", "agent", "debate", 1, 0, None, None)]
    assert next_round_fits(session(301), [spent(100), unknown]) is None
    # after one round: `first_growth` times it, times the debates spending the same budget
    assert next_round_fits(session(500), [spent(100)], first_growth=2) is None
    assert next_round_fits(session(499), [spent(100)], first_growth=2) is not None
    assert next_round_fits(session(699), [spent(100)], first_growth=2, parallel=2) is not None


def test_looking_ahead_follows_the_limits_metering() -> None:
    """An output-token limit is estimated from output tokens; a formula is not followed."""
    from scripted import ScriptedRuntime

    from mad_tasks.engine.limits import next_round_fits
    from mad_tasks.engine.records import CallRecord
    from mad_tasks.engine.runtime import Budget, Room
    from mad_tasks.engine.session import Session

    class Limited(ScriptedRuntime):
        def __init__(self, room: Room) -> None:
            super().__init__(lambda call: "")
            self.room = room

        def headroom(self) -> list[Room]:
            return [self.room]

    rounds = [[CallRecord("a", "agent", "debate", 1, 0, 1000, 10)]]  # 10 output tokens

    def ahead(room: Room):
        return next_round_fits(Session(Limited(room), None, budget=Budget()), rounds)

    assert ahead(Room("token", "output_tokens", 10, 30)) is None  # 10 + 2 x 10 fits in 30
    assert ahead(Room("token", "output_tokens", 10, 29)) is not None
    assert ahead(Room("token", "formula", 10, 11)) is None  # nothing to estimate it with
    assert ahead(Room("token", "tokens", 1010, 3000)) is not None  # 1010 + 2 x 1010 > 3000


def test_a_budget_of_the_debate_ends_it_as_a_limit_does_before_a_call_is_wasted(run) -> None:
    """`-S budget=600`: rounds 1 and 2 spend it exactly, so round 3 is never asked for."""
    task = strategyqa(data_path=str(STRATEGYQA))
    solver = du_debate(rounds=3, budget=600, look_ahead=False)
    log = run(task, solver=solver, model=scripted(), limit=1)
    result = record(log)
    assert result.final == "no" and len(result.calls) == 6  # no call of round 3 was made
    assert result.stopped is not None
    assert (result.stopped.kind, result.stopped.value, result.stopped.limit) == ("budget", 600, 600)
    assert (result.stopped.where, result.stopped.decided) == ("round 3", "the vote of round 2")
    assert result.options["budget"] == 600
    [sample] = log.samples
    # the label names the options that differ from the defaults (look-ahead is on by default),
    # then what cut the debate short and the rounds that ran
    method = sample.scores["mad_tasks/method"]
    assert method.value == (
        "du_debate budget=600 look_ahead=false rounds=3 (cut by -S budget: 2 rounds ran)"
    )
    assert method.metadata == {"stopped": "budget", "rounds": 2}


def test_the_budget_is_per_debate_and_shared_by_a_judges_two_orders() -> None:
    from mad_tasks.engine.runtime import Budget, LimitReached, Usage

    budget = Budget(250)
    budget.charge(Usage(90, 10))
    budget.charge(None)  # a reply without usage counts nothing
    budget.check()
    budget.charge(Usage(140, 10))
    with pytest.raises(LimitReached, match="budget limit was reached \\(250 of 250\\)"):
        budget.check()
    assert budget.spent == 250


@pytest.mark.parametrize(
    ("limit", "reserve"),
    [(0.6, 0.2), (1.0, 0.3), (3.0, 0.3), (10.0, 1.0), (30.0, 2.0), (3600.0, 2.0)],
)
def test_the_time_reserve_is_a_tenth_at_least_0_3_s_at_most_a_third_and_2_s(
    limit: float, reserve: float
) -> None:
    """What a time limit keeps back for the method to decide and the sample to be saved: a tenth
    of the limit, at least 0.3 s (a loaded machine's event loop runs late), never over a third of
    the limit nor 2 s."""
    from mad_tasks.inspect_runtime import time_reserve

    assert time_reserve(limit) == pytest.approx(reserve)

"""The solvers inside real Inspect evals: scores, drop-in use, logs, caching and model roles.

Models are scripted: the project's `madsim` API, or `mockllm/model` with a callable that reads the
prompt and always sets token usage (without usage mockllm tries to download a tokenizer).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice, includes, match
from inspect_ai.solver import generate, multiple_choice
from testdata import STRATEGYQA as STRATEGYQA_DEV

from mad_tasks.solvers import cot, du_debate, self_consistency, single
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"


def metric(log: EvalLog, score: str, name: str = "accuracy") -> float:
    [found] = [s for s in log.results.scores if s.name == score]
    return found.metrics[name].value


def model_events(sample: EvalSample) -> list:
    return [e for e in sample.events if e.event == "model"]


def enclosing_round(sample: EvalSample, event) -> str | None:
    spans = {e.id: e for e in sample.events if e.event == "span_begin"}
    span = spans.get(event.span_id)
    while span is not None and not span.name.startswith("round "):
        span = spans.get(span.parent_id)
    return span.name if span is not None else None


def mock_model(answer: Callable[[str], str]) -> Model:
    """mockllm whose reply is `answer(prompt text)`; usage is always set (offline-safe)."""

    def generate_output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        text = answer("\n".join(m.text for m in input))
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    return get_model("mockllm/model", custom_outputs=generate_output)


# -- strategyqa on the simulated model ---------------------------------------------------------------


def test_strategyqa_accurate_agents_score_one(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        model="madsim/x",
        model_args={"accuracy": 1.0},
        limit=4,
    )
    assert metric(log, "final_answer") == 1.0
    assert metric(log, "rounds", "mean") == 2.0
    assert metric(log, "calls", "mean") == 6.0
    assert metric(log, "abstentions", "mean") == 0.0
    assert metric(log, "answer_changes", "mean") == 0.0
    assert metric(log, "input_tokens", "mean") > 0 and metric(log, "output_tokens", "mean") > 0

    sample = log.samples[0]
    record = sample.store[STORE_KEY]
    assert record["method"] == "du_debate" and len(record["calls"]) == 6
    assert record["options"]["answer_format"] == "yesno"
    assert sample.output.completion == f"ANSWER: {sample.target}"

    spans = [e.name for e in sample.events if e.event == "span_begin"]
    assert "round 1" in spans and "round 2" in spans
    infos = [e.source for e in sample.events if e.event == "info"]
    assert infos == ["round 1", "round 2", "vote"]
    # every model call sits (through collect's task spans) inside the span of its round
    rounds = [enclosing_round(sample, e) for e in model_events(sample)]
    assert sorted(rounds) == ["round 1"] * 3 + ["round 2"] * 3


def test_strategyqa_wrong_agents_score_zero(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        model="madsim/x",
        model_args={"accuracy": 0.0, "conformity": 0.0},
        limit=4,
    )
    assert metric(log, "final_answer") == 0.0
    assert metric(log, "abstentions", "mean") == 0.0  # wrong answers, not missing ones


@pytest.mark.parametrize("target, fmt", [("yes", "yesno"), ("42", "number"), ("Paris", "text")])
def test_madsim_unparseable_replies_are_abstentions(run, target: str, fmt: str) -> None:
    task = Task(dataset=MemoryDataset([Sample(input="A question?", target=target)]))
    log = run(task, solver=du_debate(retries=1), model="madsim/x", model_args={"unparseable": 1.0})
    record = log.samples[0].store[STORE_KEY]
    assert record["options"]["answer_format"] == fmt
    assert [a["answer"] for a in record["answers"]] == [None] * 6
    assert record["final"] is None
    assert len(record["calls"]) == 12  # every answer asked twice


# -- drop-in: a third-party multiple-choice task ------------------------------------------------------

MC = [
    ("What is the capital of France?", ["London", "Paris", "Rome"], "B"),
    ("Which planet is the largest?", ["Jupiter", "Mars", "Venus", "Earth"], "A"),
    (
        "Which gas do plants take in for photosynthesis?",
        ["Oxygen", "Helium", "Carbon dioxide"],
        "C",
    ),
]


def mc_task() -> Task:
    samples = [Sample(input=q, choices=opts, target=t, id=i) for i, (q, opts, t) in enumerate(MC)]
    return Task(dataset=MemoryDataset(samples), solver=multiple_choice(), scorer=choice())


def mc_answer(correct: bool) -> Callable[[str], str]:
    def answer(prompt: str) -> str:
        [(_, options, target)] = [row for row in MC if row[0] in prompt]
        right = options["ABCD".index(target)]
        option = right if correct else next(o for o in options if o != right)
        # read the letter the prompt gives the option: the debate lists them as "X) option"
        letter = re.search(rf"(?m)^([A-Z])\) {re.escape(option)}$", prompt).group(1)
        return f"I compared the options.\nANSWER: {letter}"

    return answer


@pytest.mark.parametrize("correct, expected", [(True, 1.0), (False, 0.0)])
def test_drop_in_multiple_choice(run, correct: bool, expected: float) -> None:
    log = run(mc_task(), solver=du_debate(), model=mock_model(mc_answer(correct)))
    assert metric(log, "choice") == expected
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        assert record["options"]["answer_format"] == "choice"
        assert len(model_events(sample)) == 6
        if correct:
            assert sample.output.completion == f"ANSWER: {sample.target}"


NUMERIC = {"What is six times seven?": 42, "How many legs do three spiders have?": 24}


def numeric_task() -> Task:
    samples = [Sample(input=q, target=str(a)) for q, a in NUMERIC.items()]
    return Task(
        dataset=MemoryDataset(samples), solver=generate(), scorer=[match(numeric=True), includes()]
    )


def numeric_answer(correct: bool) -> Callable[[str], str]:
    def answer(prompt: str) -> str:
        [value] = [a for q, a in NUMERIC.items() if q in prompt]
        return f"Let me count.\nANSWER: {value if correct else value + 1}"

    return answer


@pytest.mark.parametrize("correct, expected", [(True, 1.0), (False, 0.0)])
def test_drop_in_numeric_match(run, correct: bool, expected: float) -> None:
    log = run(numeric_task(), solver=du_debate(), model=mock_model(numeric_answer(correct)))
    assert metric(log, "match") == expected
    assert metric(log, "includes") == expected


def never_answers(prompt: str) -> str:
    return "This is a hard one and I would rather not commit."


def test_abstaining_model_is_never_correct_on_match_and_includes(run) -> None:
    log = run(numeric_task(), solver=du_debate(), model=mock_model(never_answers))
    assert metric(log, "match") == 0.0
    assert metric(log, "includes") == 0.0
    for sample in log.samples:
        assert sample.output.completion == ""
        assert len(model_events(sample)) == 3 * 2 * 3  # agents x rounds x (1 + 2 retries)
        assert sample.store[STORE_KEY]["final"] is None


def test_abstaining_model_is_never_correct_on_choice(run) -> None:
    log = run(mc_task(), solver=du_debate(), model=mock_model(never_answers))
    assert metric(log, "choice") == 0.0
    for sample in log.samples:
        assert sample.store[STORE_KEY]["final"] is None


@pytest.mark.parametrize(
    "solver, calls", [(single(), 1), (cot(), 1), (self_consistency(samples=4), 4)]
)
def test_baselines_drop_in(run, solver, calls: int) -> None:
    log = run(mc_task(), solver=solver, model=mock_model(mc_answer(True)))
    assert metric(log, "choice") == 1.0
    assert all(len(model_events(s)) == calls for s in log.samples)


# -- cache -------------------------------------------------------------------------------------------


def test_cache_rerun_makes_no_model_calls_and_agents_stay_independent(
    run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    counter = itertools.count(100)
    calls = []

    def fresh_number(prompt: str) -> str:  # a new answer on every call, whatever the prompt
        calls.append(prompt)
        return f"Counting.\nANSWER: {next(counter)}"

    task = Task(dataset=MemoryDataset([Sample(input="Pick a number.", target="7", id="q")]))

    first = run(task, solver=du_debate(), model=mock_model(fresh_number), cache=True)
    sample = first.samples[0]
    assert [e.cache for e in model_events(sample)] == ["write"] * 6
    assert len(calls) == 6
    record = sample.store[STORE_KEY]
    round1 = [a["answer"] for a in record["answers"] if a["round"] == 1]
    assert len(set(round1)) == 3  # identical prompts, yet no agent got another's cached reply

    second = run(task, solver=du_debate(), model=mock_model(fresh_number), cache=True)
    again = second.samples[0]
    assert len(calls) == 6  # no model call on the re-run
    assert [e.cache for e in model_events(again)] == ["read"] * 6
    assert again.store[STORE_KEY]["answers"] == record["answers"]
    assert again.store[STORE_KEY]["final"] == record["final"]
    assert (tmp_path / "cache" / "generate").is_dir()


# -- model roles -------------------------------------------------------------------------------------


def role_models(log: EvalLog) -> set[tuple[str, str]]:
    return {(e.role, e.model) for s in log.samples for e in model_events(s)}


def test_agent_role_binds_one_agent(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        model="madsim/x",
        model_roles={"agent_2": "madsim/y"},
        limit=2,
    )
    assert role_models(log) == {
        ("agent_1", "madsim/x"),
        ("agent_2", "madsim/y"),
        ("agent_3", "madsim/x"),
    }
    assert set(log.stats.role_usage) == {"agent_1", "agent_2", "agent_3"}
    assert set(log.stats.model_usage) == {"madsim/x", "madsim/y"}


def test_shared_agent_role_binds_every_agent(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        model="madsim/x",
        model_roles={"agent": "madsim/y"},
        limit=2,
    )
    assert {model for _, model in role_models(log)} == {"madsim/y"}
    assert set(log.stats.model_usage) == {"madsim/y"}


def test_fixed_seed_gives_each_agent_its_own_seed(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        model="madsim/x",
        seed=7,
        limit=1,
    )
    seeds = [e.config.seed for e in model_events(log.samples[0])]
    # 3 agents x 2 rounds: every call has its own seed, so no agent and no round repeats another
    assert len(seeds) == 6 and len(set(seeds)) == 6
    assert None not in seeds


# -- options are validated when the solver is built ---------------------------------------------------


@pytest.mark.parametrize(
    "make, option",
    [
        (lambda: du_debate(agents=0), "agents"),
        (lambda: du_debate(rounds=0), "rounds"),
        (lambda: du_debate(retries=-1), "retries"),
        (lambda: du_debate(answer_format="banana"), "answer_format"),
        (lambda: single(answer_format="banana"), "answer_format"),
        (lambda: cot(retries=-1), "retries"),
        (lambda: self_consistency(samples=0), "samples"),
        (lambda: self_consistency(match_debate="3 by 2"), "match_debate"),
    ],
)
def test_bad_options_raise_naming_the_option(make, option: str) -> None:
    with pytest.raises(ValueError, match=f"'{option}'"):
        make()


def test_bad_answer_format_lists_the_allowed_values() -> None:
    with pytest.raises(ValueError) as err:
        du_debate(answer_format="banana")
    assert all(name in str(err.value) for name in ("auto", "choice", "yesno", "number", "text"))


# -- the debate record in the sample store -----------------------------------------------------------


async def test_the_store_keeps_a_result_and_an_unreadable_one_leaves_the_scorers_unscored() -> None:
    from types import SimpleNamespace

    from inspect_ai.scorer import Target
    from inspect_ai.util import Store

    from mad_tasks._inspect_sample import NO_RESULT, load_result, save_result
    from mad_tasks.engine.records import AgentAnswer, DebateResult
    from mad_tasks.scorers.cortex_stats import cortex_stats
    from mad_tasks.scorers.debate_stats import debate_stats
    from mad_tasks.scorers.decision_stats import decision_stats

    # save_result adds the method score and the figures, read against the target
    state = SimpleNamespace(
        store=Store(),
        scores=None,
        target=Target("no"),
        choices=[],
        metadata={},
        output=SimpleNamespace(completion="ANSWER: no"),
    )
    assert load_result(state) is None
    result = DebateResult("single", "no", [AgentAnswer("agent_1", 1, "ANSWER: no", "no")], [])
    save_result(state, result, {})
    assert state.store.get(STORE_KEY) == result.to_dict()
    assert load_result(state) == result

    # an older version's record (method details as a dict), and something else altogether
    for stored in ({**result.to_dict(), "details": {}}, "mad_tasks"):
        state.store.set(STORE_KEY, stored)
        assert load_result(state) is None
        for scorer in (*debate_stats(), *decision_stats(), *cortex_stats()):
            score = await scorer(state, Target("no"))
            assert score.reason == NO_RESULT
            assert score.value != score.value  # NaN: left out of every metric


async def test_a_samples_scorers_parse_its_record_once(monkeypatch) -> None:
    """Each figure is a scorer of its own: the stored record is parsed once for all of them, and
    a record stored anew (another sample's, or this one's replaced) is parsed again."""
    from types import SimpleNamespace

    from inspect_ai.scorer import Target
    from inspect_ai.util import Store

    from mad_tasks._inspect_sample import load_result
    from mad_tasks.engine.records import AgentAnswer, DebateResult
    from mad_tasks.scorers.debate_stats import debate_stats

    parsed = []
    original = DebateResult.from_dict.__func__  # type: ignore[attr-defined]

    def counting(cls, d):  # type: ignore[no-untyped-def]
        parsed.append(d)
        return original(cls, d)

    monkeypatch.setattr(DebateResult, "from_dict", classmethod(counting))
    state = SimpleNamespace(store=Store(), target=Target("no"), metadata={}, choices=[])
    result = DebateResult("single", "no", [AgentAnswer("agent_1", 1, "ANSWER: no", "no")], [])
    state.store.set(STORE_KEY, result.to_dict())
    for scorer in debate_stats():
        await scorer(state, Target("no"))
    assert len(parsed) == 1 and load_result(state) == result
    state.store.set(STORE_KEY, {**result.to_dict(), "final": "yes"})
    assert load_result(state).final == "yes" and len(parsed) == 2

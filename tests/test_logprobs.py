"""Token log-probabilities (`Call.logprobs` -> `Reply.logprobs`): asked for and read by the Inspect
runtime and the `openai` client runtime from a 127.0.0.1 OpenAI-compatible stub, kept by Inspect's
cache, dropped whole when any value is unreadable; simulated by madsim, surer for right answers."""

from __future__ import annotations

import asyncio
import math
from types import SimpleNamespace
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import (
    ChatCompletionChoice,
    ChatMessageAssistant,
    ChatMessageUser,
    GenerateConfig,
    Logprob,
    Logprobs,
    ModelOutput,
    get_model,
)
from inspect_ai.scorer import Target
from inspect_ai.solver import Generate, TaskState, solver
from openai_stub import OpenAIStub, Reply

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.confidence import parse_confidence
from mad_tasks.engine.content import Msg
from mad_tasks.engine.protocols.on_demand import mean_token_probability
from mad_tasks.engine.requests import AnswerRequest, ConfidenceRequest, ReasoningRequest, Request
from mad_tasks.engine.runtime import Call, token_logprobs
from mad_tasks.hosts.openai_runtime import Endpoint, OpenAIRuntime, choice_logprobs
from mad_tasks.inspect_runtime import current_call, reply_logprobs
from mad_tasks.models import sim as sim_module

STUB_LOGPROBS = [
    {"token": "ANSWER", "logprob": -0.25, "top_logprobs": []},
    {"token": ":", "logprob": 0.0, "top_logprobs": []},
    {"token": " yes", "logprob": -1.5, "top_logprobs": []},
]


def with_logprobs(body: dict[str, Any]) -> Reply:
    return Reply("I weighed it.\nANSWER: yes", logprobs=STUB_LOGPROBS)


def call(logprobs: bool) -> Call:
    return Call("agent_1", "agent", (Msg("user", "Is water wet?"),), "answer", 1, logprobs=logprobs)


# -- reading what a provider returned --------------------------------------------------------------


def output(content: list[Logprob] | None, choices: bool = True) -> ModelOutput:
    message = ChatMessageAssistant(content="ANSWER: yes")
    logprobs = None if content is None else Logprobs(content=content)
    chosen = [ChatCompletionChoice(message=message, logprobs=logprobs)] if choices else []
    return ModelOutput(model="m", choices=chosen)


def lp(*values: float) -> list[Logprob]:
    return [Logprob(token=f"t{i}", logprob=v) for i, v in enumerate(values)]


def test_reply_logprobs_reads_the_first_choice() -> None:
    assert reply_logprobs(output(lp(-0.5, 0.0, -2.25))) == (-0.5, 0.0, -2.25)


@pytest.mark.parametrize(
    "odd",
    [
        output(None, choices=False),  # no choices
        output(None),  # no log-probabilities
        output([]),  # an empty list
        output(lp(-0.5, math.nan)),
        output(lp(-math.inf, -0.5)),
        output(lp(-0.5, math.inf)),
        output(lp(-0.5, 0.25)),  # a probability above 1
    ],
)
def test_reply_logprobs_is_none_for_odd_output(odd: ModelOutput) -> None:
    assert reply_logprobs(odd) is None


@pytest.mark.parametrize(
    "values",
    [[], [-0.5, None], [-0.5, "-0.5"], [True], [-(10**400)], [-0.5, 1], [float("nan")]],
)
def test_token_logprobs_refuses_what_no_token_can_have(values: list[Any]) -> None:
    assert token_logprobs(values) is None


def test_token_logprobs_takes_floats_and_small_ints() -> None:
    assert token_logprobs([-0.5, 0, -3]) == (-0.5, 0.0, -3.0)


def test_token_logprobs_reads_200k_values_in_one_pass() -> None:
    values = [-0.5] * 200_000
    assert token_logprobs(values) == tuple(values)
    assert token_logprobs([*values[:-1], "0.0"]) is None  # one unreadable drops them all
    assert mean_token_probability(values) == pytest.approx(math.exp(-0.5))


@pytest.mark.parametrize(
    "choice",
    [
        SimpleNamespace(),  # no logprobs field
        SimpleNamespace(logprobs=None),
        SimpleNamespace(logprobs=SimpleNamespace(content=None)),
        SimpleNamespace(logprobs=SimpleNamespace(content="-0.5")),
        SimpleNamespace(logprobs=SimpleNamespace(content=[SimpleNamespace(token="a")])),
        SimpleNamespace(logprobs=SimpleNamespace(content=[SimpleNamespace(logprob=2.0)])),
    ],
)
def test_choice_logprobs_is_none_for_odd_choices(choice: Any) -> None:
    assert choice_logprobs(choice) is None


# -- the Inspect runtime on a real eval against the stub --------------------------------------------


@solver
def ask_once(logprobs: bool):
    """One call through the project's Inspect runtime; the reply's log-probabilities to the store."""
    from mad_tasks.inspect_runtime import InspectRuntime

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        reply = await InspectRuntime(state.sample_id).call(call(logprobs))
        state.store.set("logprobs", None if reply.logprobs is None else list(reply.logprobs))
        state.store.set("cached", reply.cached)
        return state

    return solve


def ask(stub: OpenAIStub, logprobs: bool, **kwargs: Any) -> tuple[list[float] | None, bool]:
    from inspect_ai import eval

    model = get_model("openai-api/stub/m", base_url=stub.base_url, api_key="k")
    task = Task(dataset=MemoryDataset([Sample(input="Is water wet?", target="yes")]))
    [log] = eval(task, solver=ask_once(logprobs), model=model, display="none", **kwargs)
    assert log.status == "success", log.error
    return stored(log)


def stored(log: EvalLog) -> tuple[list[float] | None, bool]:
    assert log.samples is not None
    [sample] = log.samples
    return sample.store["logprobs"], sample.store["cached"]


def test_inspect_runtime_asks_for_logprobs_and_returns_the_stubs(tmp_path) -> None:
    with OpenAIStub(reply=with_logprobs) as stub:
        got, _ = ask(stub, True, log_dir=str(tmp_path))
    assert got == [-0.25, 0.0, -1.5]
    [request] = stub.requests
    assert request["logprobs"] is True


def test_inspect_runtime_gives_none_when_the_reply_has_none(tmp_path) -> None:
    with OpenAIStub(reply=lambda body: "ANSWER: yes") as stub:
        got, _ = ask(stub, True, log_dir=str(tmp_path))
    assert got is None
    assert stub.requests[0]["logprobs"] is True


def test_inspect_runtime_without_logprobs_does_not_ask(tmp_path) -> None:
    with OpenAIStub(reply=with_logprobs) as stub:
        got, _ = ask(stub, False, log_dir=str(tmp_path))
    assert got is None  # returned anyway, but not asked for: not passed on
    assert "logprobs" not in stub.requests[0]


@pytest.mark.parametrize("value", ["high", None])
def test_inspect_runtime_asks_again_without_logprobs_when_they_are_malformed(
    tmp_path, value: Any
) -> None:
    """Inspect's provider refuses the whole reply when a log-probability is not a number."""

    def odd(body: dict[str, Any]) -> Reply:
        if not body.get("logprobs"):
            return Reply("ANSWER: yes")
        return Reply("ANSWER: yes", logprobs=[{"token": "yes", "logprob": value}])

    with OpenAIStub(reply=odd) as stub:
        got, _ = ask(stub, True, log_dir=str(tmp_path))
    assert got is None
    assert [bool(r.get("logprobs")) for r in stub.requests] == [True, False]


def test_inspect_cache_keeps_the_logprobs(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    with OpenAIStub(reply=with_logprobs) as stub:
        first = ask(stub, True, log_dir=str(tmp_path), cache=True)
        second = ask(stub, True, log_dir=str(tmp_path), cache=True)
    assert len(stub.requests) == 1  # the second reply came from the cache
    assert first == ([-0.25, 0.0, -1.5], False)
    assert second == ([-0.25, 0.0, -1.5], True)


# -- the `openai` client runtime against the stub ---------------------------------------------------


def openai_call(stub: OpenAIStub, logprobs: bool) -> tuple[float, ...] | None:
    async def go() -> tuple[float, ...] | None:
        async with OpenAIRuntime({}, Endpoint("m", stub.base_url, "k")) as runtime:
            return (await runtime.call(call(logprobs))).logprobs

    return asyncio.run(go())


def test_openai_runtime_asks_for_logprobs_and_returns_the_stubs() -> None:
    with OpenAIStub(reply=with_logprobs) as stub:
        assert openai_call(stub, True) == (-0.25, 0.0, -1.5)
        assert openai_call(stub, False) is None
    asked, unasked = stub.requests
    assert asked["logprobs"] is True and "logprobs" not in unasked


def test_openai_runtime_gives_none_for_none_or_unreadable_logprobs() -> None:
    def odd(body: dict[str, Any]) -> Reply:
        return Reply("ANSWER: yes", logprobs=[{"token": "yes", "logprob": "high"}])

    with OpenAIStub(reply=lambda body: "ANSWER: yes") as stub:
        assert openai_call(stub, True) is None
    with OpenAIStub(reply=odd) as stub:
        assert openai_call(stub, True) is None


def test_openai_runtime_asks_again_without_logprobs_when_the_model_refuses_them() -> None:
    refuses = lambda index, body: bool(body.get("logprobs"))  # noqa: E731
    with OpenAIStub(reply=with_logprobs, fail=refuses) as stub:
        assert openai_call(stub, True) is None
    assert [r.get("logprobs") for r in stub.requests] == [True, None]
    assert stub.failed == 1


# -- madsim ----------------------------------------------------------------------------------------


def running(monkeypatch, target: str) -> None:
    state = SimpleNamespace(target=Target(target), metadata={}, epoch=1, input_text="")
    monkeypatch.setattr(sim_module, "sample_state", lambda: state)


def simulate(asks: Request, prompt: str, ask: bool | None = True, **args: Any) -> ModelOutput:
    """madsim's output to one call asking for `asks`, its config asking for log-probabilities
    (`ask`); `args` are model args."""
    model = get_model("madsim/x", **args)
    called = Call("agent_1", "agent", (Msg("user", prompt),), "answer", 1, asks=asks)

    async def generate() -> ModelOutput:
        token = current_call.set(called)
        try:
            config = GenerateConfig(logprobs=ask)
            return await model.generate([ChatMessageUser(content=prompt)], config=config)
        finally:
            current_call.reset(token)

    return asyncio.run(generate())


def confidence(out: ModelOutput) -> float | None:
    got = reply_logprobs(out)
    return None if got is None else mean_token_probability(got)


def read(values: list[float | None]) -> list[float]:
    """Every value, each one read (none None)."""
    assert None not in values
    return [v for v in values if v is not None]


ANSWER = AnswerRequest(YesNo())


def test_madsim_answers_are_surer_when_right(monkeypatch) -> None:
    running(monkeypatch, "yes")
    right = read([confidence(simulate(ANSWER, f"q{i}", accuracy=1.0)) for i in range(100)])
    wrong = read([confidence(simulate(ANSWER, f"q{i}", accuracy=0.0)) for i in range(100)])
    assert all(0.80 <= c <= 0.99 for c in right) and all(0.50 <= c <= 0.90 for c in wrong)
    assert sum(right) / 100 > 0.85 > 0.75 > sum(wrong) / 100


# three fixed draws: two right answers, one wrong one surer than either (the ranges overlap)
GOLDEN_ANSWERS = ["yes", "yes", "no"]
GOLDEN_CONFIDENCES = [0.8765870643531557, 0.9084883006543124, 0.8865430290215929]


def test_madsim_logprobs_golden_draws(monkeypatch) -> None:
    running(monkeypatch, "yes")
    got = [confidence(simulate(ANSWER, f"q{i}", accuracy=0.5)) for i in range(3)]
    answers = [
        YesNo().extract(simulate(ANSWER, f"q{i}", accuracy=0.5).completion) for i in range(3)
    ]
    assert answers == GOLDEN_ANSWERS
    assert got == pytest.approx(GOLDEN_CONFIDENCES, abs=1e-9)


def test_madsim_logprobs_one_per_token_as_usage_counts_them(monkeypatch) -> None:
    running(monkeypatch, "yes")
    out = simulate(ANSWER, "q")
    assert out.usage is not None and out.choices[0].logprobs is not None
    tokens = out.choices[0].logprobs.content
    assert len(tokens) == out.usage.output_tokens
    assert "".join(t.token for t in tokens) == out.completion
    assert all(t.logprob < 0 for t in tokens)


def test_madsim_gives_no_logprobs_unless_asked_and_allowed(monkeypatch) -> None:
    running(monkeypatch, "yes")
    asked = simulate(ANSWER, "q")
    assert asked.choices[0].logprobs is not None
    unasked = simulate(ANSWER, "q", ask=None), simulate(ANSWER, "q", ask=False)
    switched_off = simulate(ANSWER, "q", logprobs=False)  # `-M logprobs=false`
    for out in (*unasked, switched_off):
        assert out.choices[0].logprobs is None
        assert out.completion == asked.completion  # asking changes no reply


def test_madsim_other_requests_carry_no_logprobs(monkeypatch) -> None:
    running(monkeypatch, "yes")
    for asks in (ReasoningRequest(), ConfidenceRequest(YesNo(), "yes")):
        assert simulate(asks, "q").choices[0].logprobs is None


@pytest.mark.parametrize("value", ["maybe", 1, None])
def test_madsim_logprobs_must_be_true_or_false(value: Any) -> None:
    with pytest.raises(ValueError, match=r"madsim: logprobs must be true or false, got"):
        get_model("madsim/x", logprobs=value)


def test_madsim_states_a_readable_confidence_surer_when_right(monkeypatch) -> None:
    running(monkeypatch, "yes")

    def stated(answer: str | None, i: int) -> float | None:
        return parse_confidence(simulate(ConfidenceRequest(YesNo(), answer), f"q{i}").completion)

    right = read([stated("yes", i) for i in range(100)])
    wrong = read([stated("no", i) for i in range(100)] + [stated(None, i) for i in range(100)])
    assert all(0.80 <= c <= 0.99 for c in right) and all(0.50 <= c <= 0.90 for c in wrong)
    assert sum(right) / 100 > 0.85 > 0.75 > sum(wrong) / 200
    unreadable = simulate(ConfidenceRequest(YesNo(), "yes"), "q", unparseable=1.0)
    assert parse_confidence(unreadable.completion) is None

"""`on_demand` through Inspect on a 127.0.0.1 OpenAI-compatible stub: the confidence trigger reads
the log-probabilities the endpoint returns, falls back to a verbalized confidence when it returns
none, and a bad `debate=` or `threshold=` stops the eval before its first request."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog
from inspect_ai.solver import SolverSpec
from openai_stub import OpenAIStub, Reply

from mad_tasks._inspect_sample import STORE_KEY
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.on_demand import CONFIDENCE_PROMPT
from mad_tasks.engine.methods.on_demand_records import OnDemandRecord
from mad_tasks.engine.records import DebateResult
from mad_tasks.solvers import on_demand
from mad_tasks.tasks.strategyqa import strategyqa

FIXTURE = Path(__file__).parent / "fixtures" / "strategyqa.jsonl"
MODEL = "openai-api/stub/m"


def text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in content or [] if isinstance(p, dict))


def endpoint(probability: float | None, stated: str = "CONFIDENCE: 0.95"):
    """Answers yes; returns token log-probabilities of `probability` each when the request asks
    for them and `probability` is set (None: an endpoint that never returns them)."""

    def reply(body: dict[str, Any]) -> Reply:
        if CONFIDENCE_PROMPT in text_of(body["messages"][-1]):
            return Reply(stated)
        answer = "I weighed it.\nANSWER: yes"
        if not body.get("logprobs") or probability is None:
            return Reply(answer)
        tokens = ("ANSWER", ":", " yes")
        lp = math.log(probability)
        return Reply(
            answer, logprobs=[{"token": t, "logprob": lp, "top_logprobs": []} for t in tokens]
        )

    return reply


def run(stub: OpenAIStub, tmp_path: Path, **options: Any) -> tuple[EvalLog, OnDemandRecord]:
    [log] = inspect_eval(
        strategyqa(data_path=str(FIXTURE)),
        solver=on_demand(**options),
        model=MODEL,
        model_base_url=stub.base_url,
        limit=1,
        log_dir=str(tmp_path),
        display="none",
    )
    assert log.status == "success" and log.samples, log.error
    record = DebateResult.from_dict(log.samples[0].store[STORE_KEY]).record
    assert isinstance(record, OnDemandRecord)
    return log, record


@pytest.fixture(autouse=True)
def api_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("STUB_API_KEY", "k")


def test_a_sure_first_answer_read_from_log_probabilities_skips_the_debate(tmp_path: Path):
    with OpenAIStub(reply=endpoint(0.9)) as stub:
        _, record = run(stub, tmp_path)
        [request] = stub.requests
    assert request.get("logprobs") is True
    assert (record.source, record.debated) == ("logprobs", False)
    assert record.signal == pytest.approx(0.9)
    assert record.reason == "confidence 0.900 > threshold 0.8"


def test_an_unsure_first_answer_starts_the_debate_and_reuses_its_answer(tmp_path: Path):
    with OpenAIStub(reply=endpoint(0.5)) as stub:
        _, record = run(stub, tmp_path)
        requests = stub.requests
    # cot, then du_debate's 3 agents x 2 rounds less agent_1's reused round-one answer
    assert len(requests) == 1 + 6 - 1
    assert [bool(r.get("logprobs")) for r in requests] == [True] + [False] * 5
    assert (record.source, record.debated, record.reused) == ("logprobs", True, 1)
    assert record.signal == pytest.approx(0.5)


def test_without_log_probabilities_the_agent_is_asked_for_its_confidence(tmp_path: Path):
    with OpenAIStub(reply=endpoint(None, stated="CONFIDENCE: 0.95")) as stub:
        _, record = run(stub, tmp_path)
        asked = [CONFIDENCE_PROMPT in text_of(r["messages"][-1]) for r in stub.requests]
    assert asked == [False, True]
    assert (record.source, record.signal, record.debated) == ("verbalized", 0.95, False)


def test_a_low_stated_confidence_starts_the_debate(tmp_path: Path):
    with OpenAIStub(reply=endpoint(None, stated="CONFIDENCE: 40%")) as stub:
        _, record = run(stub, tmp_path)
        calls = len(stub.requests)
    assert (record.source, record.signal, record.debated) == ("verbalized", 0.4, True)
    assert calls == 2 + 6 - 1


@pytest.mark.parametrize(
    ("args", "option"),
    [({"debate": "debate_club"}, "debate"), ({"threshold": 1.5}, "threshold")],
)
def test_a_bad_debate_or_threshold_stops_the_eval_before_any_request(
    tmp_path: Path, args: dict[str, Any], option: str
):
    with OpenAIStub(reply=endpoint(0.9)) as stub:
        with pytest.raises(OptionError, match=f"invalid solver option '{option}'"):
            inspect_eval(
                strategyqa(data_path=str(FIXTURE)),
                solver=SolverSpec("mad_tasks/on_demand", args, args),
                model=MODEL,
                model_base_url=stub.base_url,
                limit=1,
                log_dir=str(tmp_path),
                display="none",
            )
        assert stub.requests == []

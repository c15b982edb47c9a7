"""A method defined here, in a test module alone (its function, options, request kind, simulated
reply and spec), joins the catalogue and runs in every host with no edit under `src/`: as an
Inspect solver by name, as an OpenAI-evals completion function, as lm-eval's `mad` method and as
`on_demand`'s `debate=`.

`unanimity_test`: `agents` agents answer alone; when they all agree their answer stands, else a
referee (model role `referee`) is shown the answers and names the final one. The referee's call
asks for a kind of request the package does not have (`RefereeRequest`), which the simulated model
answers by the responder registered here.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

import pytest
from inspect_ai.solver import SolverSpec
from openai_stub import OpenAIStub
from testdata import STRATEGYQA

from mad_tasks.engine import prompts
from mad_tasks.engine.answers import AnswerFormat
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import integer
from mad_tasks.engine.content import Msg, compose
from mad_tasks.engine.options import MAX_AGENTS, Answering, option
from mad_tasks.engine.protocols import majority_vote
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import AnswerRequest, Request
from mad_tasks.engine.session import Session
from mad_tasks.engine.spec import MethodSpec
from mad_tasks.hosts.openai_evals import DebateCompletionFn
from mad_tasks.models.simulated import Turn, responds
from mad_tasks.tasks.strategyqa import strategyqa

NAME = "unanimity_test"


@dataclass(frozen=True)
class RefereeRequest(Request):
    """The referee names one of the agents' answers in `fmt`."""

    fmt: AnswerFormat
    answers: tuple[str, ...]


@responds(RefereeRequest)
def referee_reply(turn: Turn, asks: RefereeRequest) -> str:
    """The most common answer shown (the first of a tie)."""
    return f"The agents' answers weighed.\nANSWER: {Counter(asks.answers).most_common(1)[0][0]}"


@dataclass(frozen=True)
class UnanimityOptions(Answering):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "reminder")

    agents: int = option(
        2, "agents that answer alone.", lambda name, v: integer(name, v, 1, MAX_AGENTS)
    )


async def unanimity(session: Session, opts: UnanimityOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    names = [f"agent_{i + 1}" for i in range(opts.agents)]
    prompt = [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))]
    answers = await rt.gather(
        *(session.answer(n, n, prompt, "answer", 1, asks=AnswerRequest(p.fmt)) for n in names)
    )
    given = tuple(a.answer for a in answers if a.answer is not None)
    tally = majority_vote(list(given), key=p.fmt.key)
    final, rounds = tally.winner, list(answers)
    if len(set(map(p.fmt.key, given))) > 1:  # no unanimity: the referee decides
        shown = compose(p.question, "\n\nThe agents answered: " + ", ".join(given) + ".")
        ruling = await session.answer(
            "referee", "referee", [Msg("user", shown)], "referee", 2,
            asks=RefereeRequest(p.fmt, given),
        )  # fmt: skip
        final, rounds = ruling.answer, [*answers, ruling]
    return DebateResult(NAME, final, rounds, session.calls, tally, {"agents": opts.agents})


SPEC = MethodSpec(
    NAME,
    "Agents answer alone; unanimity stands, else a referee names the answer.",
    UnanimityOptions,
    lambda o, setup: lambda s: unanimity(s, o),
    roles=lambda o: ("agent", *(f"agent_{i + 1}" for i in range(o.agents)), "referee"),
)


@pytest.fixture(scope="module", autouse=True)
def in_the_catalogue() -> Iterator[None]:
    CATALOGUE.add(SPEC)
    yield
    CATALOGUE.remove(NAME)


def records(log: Any) -> list[DebateResult]:
    return [DebateResult.from_dict(s.store["mad_tasks:debate"]) for s in log.samples]


def test_it_runs_as_an_inspect_solver_by_name(run) -> None:
    # agent_1 always right, agent_2 always wrong: every sample goes to the referee
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=SolverSpec(NAME, {"agents": 2}, {"agents": 2}),  # as `--solver NAME -S agents=2`
        model="madsim/x",
        model_args={"accuracy": [1.0, 0.0]},
        limit=2,
    )
    assert log.plan.steps[-1].solver == f"mad_tasks/{NAME}"  # the short name is an alias
    for result in records(log):
        assert result.method == NAME
        assert [c.agent for c in result.calls] == ["agent_1", "agent_2", "referee"]
    # the referee's most common answer (a tie of one each: the first, agent_1's, right)
    assert log.results.scores[0].metrics["accuracy"].value == 1.0


ON_DEMAND = {"debate": NAME, "trigger": "always"}


def test_it_runs_as_on_demands_debate(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=SolverSpec("on_demand", ON_DEMAND, ON_DEMAND),
        model="madsim/x",
        limit=1,
    )
    [result] = records(log)
    assert result.record.debated and result.record.debate["method"] == NAME
    # the first stage's cot answer, then the debate's two agents (this method takes no first answer)
    assert [c.agent for c in result.calls][:3] == ["agent_1", "agent_1", "agent_2"]


def test_it_runs_as_an_openai_evals_completion_function() -> None:
    with OpenAIStub(reply=lambda body: "I reasoned.\nANSWER: yes") as stub:
        complete = DebateCompletionFn(
            method=NAME, model="m", base_url=stub.base_url, api_key="k", answer_format="yesno",
            agents=3,
        )  # fmt: skip
        done = complete("Is water wet?")
    assert done.get_completions() == ["Yes"]
    assert len(stub.requests) == 3 and done.record.method == NAME


def test_it_runs_as_lm_evals_mad_method() -> None:
    pytest.importorskip("lm_eval", reason="lm-eval is not installed (pip install -e '.[lm-eval]')")
    from lm_eval.api.instance import Instance

    from mad_tasks.hosts.lm_eval import MadLM

    lm = MadLM(method=NAME, inner="dummy", inner_format="text", agents=3, answer_format="yesno")
    batches: list[int] = []
    lm.inner.generate_until = lambda batch: (
        batches.append(len(batch)) or ["ANSWER: no"] * len(batch)
    )
    request = Instance("generate_until", {}, ("Is fire cold?\nAnswer:", {"until": ["\n"]}), 0,
                       ("mytask", 7, 1))  # fmt: skip
    assert lm.generate_until([request]) == ["no"]
    assert batches == [3]  # the agents' one round, as one batch

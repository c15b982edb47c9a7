"""Debaters that act (`-S debater=react`): each agent's turn an Inspect ReAct agent with tools, in
the task's sandbox (`local` here), its tool calls in the record and the figures; every method an
Inspect agent (`mad_tasks.agents`), usable as a tool of another agent; and what is refused before
the first call."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.agent import as_solver, as_tool, handoff, react
from inspect_ai.dataset import Sample
from inspect_ai.event import ModelEvent, SpanBeginEvent, ToolEvent
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessageTool, GenerateConfig, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import Solver

from mad_tasks import agents
from mad_tasks._inspect_sample import load_result
from mad_tasks.agents import AGENT_DEBATES
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.records import DebateResult, ToolUse
from mad_tasks.inspect_runtime import current_call
from mad_tasks.scorers.answers import final_answer
from mad_tasks.solvers import du_debate, voting
from mad_tasks.tasks.tool_math import tool_math

QUESTION = "What is 6 times 7?"
# which tool each agent calls in each round, and the command it runs there
TOOLS = {("agent_1", 1): "python", ("agent_2", 1): "bash", ("agent_1", 2): "bash", ("agent_2", 2): "python"}  # fmt: skip
ARGUMENTS = {"python": {"code": "print(6 * 7)"}, "bash": {"command": "echo 42"}}


def scripted(input, tools, tool_choice, config: GenerateConfig) -> ModelOutput:
    """Calls its agent's tool for the round (read from the call's own description, never from
    the order of calls), then answers with the tool's output; 10 input tokens a message, 5 out."""
    call = current_call.get()
    assert call is not None and tools, (
        f"every call of these debates is an acting turn: {call} {input[-1].text}"
    )
    last = input[-1]
    if isinstance(last, ChatMessageTool):
        out = ModelOutput.from_content(
            "scripted", f"The tool printed {last.text.strip()}.\nANSWER: {last.text.strip()}"
        )
    else:
        tool = TOOLS[(call.agent, call.round)]
        out = ModelOutput.for_tool_call("scripted", tool, ARGUMENTS[tool], content="")
    out.usage = ModelUsage(
        input_tokens=10 * len(input), output_tokens=5, total_tokens=10 * len(input) + 5
    )
    return out


def task(solver: Solver, **sample: Any) -> Task:
    return Task(
        dataset=[
            Sample(input=QUESTION, target="42", metadata={"answer_format": "number"}, **sample)
        ],
        solver=solver,
        scorer=final_answer(),
    )


def run(solver: Solver, model: Any = None, **options: Any) -> EvalLog:
    model = model or get_model("mockllm/model", custom_outputs=scripted)
    [log] = eval(
        task(solver), model=model, display="none", log_dir=options.pop("log_dir"), **options
    )
    return log


def ancestors(sample: EvalSample, span_id: str | None) -> list[SpanBeginEvent]:
    """The spans around an event, innermost first."""
    spans = {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}
    found = []
    while span_id in spans:
        found.append(spans[span_id])
        span_id = spans[span_id].parent_id
    return found


def turn_of(sample: EvalSample, event: ToolEvent | ModelEvent) -> tuple[str, str]:
    """(agent, round) of the agent span and the round span an event sits in."""
    around = ancestors(sample, event.span_id)
    agent = next(s.name for s in around if s.type == "calls")
    stage = next(s.name for s in around if s.type == "stage")
    return agent, stage


def test_each_agent_acts_with_its_tools_and_every_tool_call_is_counted(tmp_path: Path) -> None:
    solver = du_debate(agents=2, rounds=2, debater="react", tools="python,bash")
    log = run(solver, log_dir=str(tmp_path), sandbox="local")
    assert log.status == "success", log.error
    [sample] = log.samples
    result = load_result(sample)
    assert result is not None and result.final == "42"
    assert sample.scores["final_answer"].value == "C"

    # the record: which agent called which tool in which round, and what it returned
    used = {(c.agent, c.round): [t.tool for t in c.tools] for c in result.calls if c.tools}
    assert used == {turn: [tool] for turn, tool in TOOLS.items()}
    for c in (c for c in result.calls if c.tools):
        assert c.tools == (ToolUse(c.tools[0].tool, c.tools[0].arguments, 3),)  # "42\n", no error
    python_call = next(c for c in result.calls if c.tools and c.tools[0].tool == "python")
    assert python_call.tools[0].arguments == '{"code": "print(6 * 7)"}'

    # each turn: a call that asks for the tool, the tool, a call that answers
    assert [(c.agent, c.round, c.step) for c in result.calls if c.agent == "agent_1"] == [
        ("agent_1", 1, 0), ("agent_1", 1, 1), ("agent_1", 2, 0), ("agent_1", 2, 1),
    ]  # fmt: skip
    stats = result.stats()
    assert (stats["calls"], stats["tool_calls"]) == (8, 4)
    # round 1 (call, tool, call), then round 2 after it: six in the chain
    assert stats["critical_path"] == 6
    assert sample.scores["tool_calls"].value == 4 and sample.scores["critical_path"].value == 6
    # every step's tokens are counted: Inspect's usage and the record agree
    assert (
        stats["input_tokens"] + stats["output_tokens"]
        == sample.model_usage["mockllm/model"].total_tokens
    )

    # the transcript: every tool call inside the span of the agent that made it, in its round
    tool_events = [e for e in sample.events if isinstance(e, ToolEvent)]
    assert sorted(turn_of(sample, e) for e in tool_events) == sorted(
        (agent, f"round {r}") for agent, r in TOOLS
    )
    assert all(e.error is None for e in tool_events)

    # round 2's agents saw the other's round-1 answer, as without tools
    round_2 = [
        e for e in sample.events if isinstance(e, ModelEvent) and turn_of(sample, e)[1] == "round 2"
    ]
    assert all("42" in "\n".join(m.text for m in e.input) for e in round_2)


def test_without_debater_react_no_tool_is_offered(tmp_path: Path) -> None:
    def plain(input, tools, tool_choice, config):
        assert tools == []
        out = ModelOutput.from_content("scripted", "ANSWER: 42")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    log = run(
        du_debate(agents=2, rounds=2),
        get_model("mockllm/model", custom_outputs=plain),
        log_dir=str(tmp_path),
    )
    result = load_result(log.samples[0])
    assert result is not None and result.stats()["tool_calls"] == 0
    assert result.stats()["critical_path"] == 2


def test_a_turn_ends_at_its_own_message_cap(tmp_path: Path) -> None:
    """An agent that would call tools without end stops at `turn_messages`; its follow-up (a
    plain call, no tools) gives the answer, and the sample is scored."""

    def stubborn(input, tools, tool_choice, config):
        if tools:
            out = ModelOutput.for_tool_call("scripted", "python", {"code": "print(42)"}, content="")
        else:  # the follow-up after a reply without an answer
            out = ModelOutput.from_content("scripted", "ANSWER: 42")
        out.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
        return out

    solver = du_debate(agents=1, rounds=1, debater="react", tools="python", turn_messages=4)
    log = run(
        solver,
        get_model("mockllm/model", custom_outputs=stubborn),
        log_dir=str(tmp_path),
        sandbox="local",
    )
    assert log.status == "success", log.error
    result = load_result(log.samples[0])
    assert result is not None and result.final == "42"
    turn = [c for c in result.calls if c.attempt == 0]
    # 4 messages beyond the prompt: call, tool, call, tool; the third call is refused by the cap
    assert [len(c.tools) for c in turn] == [1, 1]
    assert [c.attempt for c in result.calls] == [0, 0, 1]


def test_madsim_computes_with_the_python_tool_and_beats_answering_without(tmp_path: Path) -> None:
    """tool_math on madsim: with the python tool every agent computes the answer, every turn of
    every round holds a tool call in its agent's span; without, madsim answers at its accuracy."""
    model = get_model("madsim/x", accuracy=0.4)
    acting = du_debate(debater="react", tools="python")
    [with_tools] = eval(
        tool_math(size=8),
        solver=acting,
        model=model,
        sandbox="local",
        log_dir=str(tmp_path),
        display="none",
    )
    [without] = eval(
        tool_math(size=8), solver=du_debate(), model=model, log_dir=str(tmp_path), display="none"
    )

    def accuracy(log: EvalLog) -> float:
        return log.results.scores[0].metrics["accuracy"].value

    assert accuracy(with_tools) == 1.0 > accuracy(without)
    for sample in with_tools.samples:
        result = load_result(sample)
        turns = {(c.agent, c.round) for c in result.calls}
        assert len(turns) == 3 * 2  # du_debate's defaults: 3 agents, 2 rounds
        tool_events = [e for e in sample.events if isinstance(e, ToolEvent)]
        assert sorted(turn_of(sample, e) for e in tool_events) == sorted(
            (agent, f"round {r}") for agent, r in turns
        )
        assert all(e.function == "python" and e.error is None for e in tool_events)
        assert result.stats()["tool_calls"] == 6


def test_a_debate_is_a_tool_another_agent_can_call(tmp_path: Path) -> None:
    panel = as_tool(agents.voting(agents=3))
    consultant = react(tools=[panel])
    asked = Sample(
        input="Is the sky blue on a clear day?", target="yes", metadata={"answer_format": "yesno"}
    )
    consulting = Task(dataset=[asked], solver=consultant, scorer=final_answer())
    [log] = eval(consulting, model="madsim/x", log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples
    assert sample.scores["final_answer"].value == "C"
    # the panel's debate, nested under the tool call in the calling agent's transcript
    # the agent consulted the panel, then submitted the panel's answer
    assert [e.function for e in sample.events if isinstance(e, ToolEvent)] == ["voting", "submit"]
    around_debate = {
        s.name for e in sample.events if isinstance(e, ModelEvent) and current_debate(sample, e)
        for s in ancestors(sample, e.span_id)
    }  # fmt: skip
    assert {"voting", "agent_1", "agent_2", "agent_3"} <= around_debate
    # its record and figures
    [stored] = sample.store[AGENT_DEBATES]
    debate = DebateResult.from_dict(stored)
    assert debate.method == "voting" and debate.final == "yes"
    [figures] = [e.data for e in sample.events if getattr(e, "source", None) == "voting debate"]
    assert figures["calls"] == len(debate.calls) and figures["critical_path"] > 1


def test_a_debate_takes_a_handoff_and_runs_as_a_solver(tmp_path: Path) -> None:
    asked = Sample(
        input="Is the sky blue on a clear day?", target="yes", metadata={"answer_format": "yesno"}
    )
    handing = react(tools=[handoff(agents.voting(agents=3))])
    solving = as_solver(agents.du_debate(rounds=3))
    for solver, spans in (
        (handing, {"transfer_to_voting", "voting", "turn 1"}),
        (solving, {"du_debate", "round 3"}),
    ):
        sure = get_model("madsim/x", accuracy=1.0)  # the plumbing, not the debate, is tested
        [log] = eval(Task(dataset=[asked], solver=solver, scorer=final_answer()), model=sure,
                     log_dir=str(tmp_path), display="none")  # fmt: skip
        assert log.status == "success", log.error
        [sample] = log.samples
        assert sample.scores["final_answer"].value == "C"
        [stored] = sample.store[AGENT_DEBATES]
        debate = DebateResult.from_dict(stored)
        assert debate.final == "yes"
        names = {e.name for e in sample.events if isinstance(e, SpanBeginEvent)}
        assert spans <= names


def current_debate(sample: EvalSample, event: ModelEvent) -> bool:
    return any(s.type == "calls" for s in ancestors(sample, event.span_id))


def test_a_debate_agent_takes_the_solvers_options_checked_the_same_way() -> None:
    with pytest.raises(OptionError, match="invalid agent option 'agents': got 0"):
        agents.voting(agents=0)
    assert set(agents.AGENTS) >= {"voting", "du_debate", "cortex", "single"}
    assert "more" not in agents.AGENTS  # a judge reads a pair of answers, not a question


# -- refused before any call ---------------------------------------------------------------------


def test_an_unknown_tool_is_refused_by_name() -> None:
    with pytest.raises(OptionError) as err:
        voting(debater="react", tools="python,no_such_tool")
    assert str(err.value) == (
        "invalid solver option 'tools': got 'no_such_tool', allowed: a list of tools from "
        "python, bash, text_editor, think, web_search, each once"
    )
    with pytest.raises(
        OptionError, match="'tools': got \\(\\), allowed: one tool or more with debater=react"
    ):
        voting(debater="react")
    with pytest.raises(OptionError, match="'debater': got 'generate', allowed: react"):
        voting(tools="python")


@pytest.mark.parametrize(
    "options, sandbox, refused",
    [
        # the embedded model's server has no function calling
        (
            {"tools": "think"},
            None,
            "invalid solver option 'debater': got 'react', allowed: generate for agent's model llama-cpp-python/gemma",
        ),
        # each agent's own sandbox: the local sandbox has only the default one
        (
            {"tools": "python", "sandbox": "per_agent"},
            "local",
            "invalid solver option 'sandbox': got 'per_agent', allowed: shared: this sample's "
            "sandboxes are default, none named agent_",
        ),
        # python runs in a sandbox: none was given
        (
            {"tools": "python"},
            None,
            "invalid solver option 'tools': got 'python', allowed: tools that need no sandbox",
        ),
    ],
)
def test_what_cannot_act_is_refused_before_any_call(
    tmp_path: Path, options: dict, sandbox: str | None, refused: str
) -> None:
    roles = {"agent": "llama-cpp-python/gemma"} if options["tools"] == "think" else {}
    solver = du_debate(agents=2, debater="react", **options)
    [log] = eval(task(solver), model=get_model("mockllm/model", custom_outputs=scripted), model_roles=roles,
                 log_dir=str(tmp_path), display="none", sandbox=sandbox)  # fmt: skip
    assert log.status == "error"
    assert refused in log.error.message
    assert not any(isinstance(e, ModelEvent) for s in log.samples or [] for e in s.events)


def test_a_panel_member_that_cannot_act_is_refused_before_any_call(tmp_path: Path) -> None:
    """Every model of a panel is checked, not only the first."""
    solver = du_debate(agents=2, debater="react", tools="think")
    panel = {"agent": ["mockllm/model", "llama-cpp-python/gemma"]}
    [log] = eval(task(solver), model=get_model("mockllm/model", custom_outputs=scripted),
                 model_roles=panel, log_dir=str(tmp_path), display="none")  # fmt: skip
    assert log.status == "error"
    assert (
        "invalid solver option 'debater': got 'react', allowed: generate for agent's model "
        "llama-cpp-python/gemma"
    ) in log.error.message
    assert not any(isinstance(e, ModelEvent) for s in log.samples or [] for e in s.events)


def test_a_limit_of_the_run_ends_the_debate_inside_a_turn_and_every_step_is_counted(
    tmp_path: Path,
) -> None:
    """A token limit reached by round 2's steps: the debate decides from round 1, the sample is
    scored, and the record's tokens (every step, the one that passed the limit too) are Inspect's."""
    solver = du_debate(agents=2, rounds=2, debater="react", tools="python,bash", look_ahead=False)
    # round 1 spends 2 x (15 + 45) = 120 tokens; round 2's first steps pass 150
    log = run(solver, log_dir=str(tmp_path), sandbox="local", token_limit=150)
    assert log.status == "success", log.error
    [sample] = log.samples
    result = load_result(sample)
    assert result is not None and result.final == "42"
    assert result.stopped is not None and result.stopped.kind == "token"
    assert result.stopped.decided == "the vote of round 1"
    assert sample.scores["final_answer"].value == "C"
    stats = result.stats()
    assert (
        stats["input_tokens"] + stats["output_tokens"]
        == sample.model_usage["mockllm/model"].total_tokens
    )
    assert any(c.discarded for c in result.calls if c.round == 2)


def test_an_agentic_task_takes_a_debate_whose_agents_act(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """examples/log_errors.py, written as inspect_evals writes agentic tasks (a sandbox with a
    file per sample, an answer scorer), runs with `--solver mad_tasks/voting -S debater=react`:
    each agent reads the file with the python tool; every turn's tool call is in its span."""
    monkeypatch.chdir(Path(__file__).parents[1])  # Inspect takes a task file's path relative
    solver = voting(debater="react", tools="python")
    [log] = eval("examples/log_errors.py", task_args={"size": 2}, solver=solver, model="madsim/x",
                 log_dir=str(tmp_path), display="none")  # fmt: skip
    assert log.status == "success", log.error
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    for sample in log.samples:
        result = load_result(sample)
        turns = {
            (c.agent, c.round) for c in result.calls if c.purpose == "discussion" and c.step == 0
        }
        assert turns and {(c.agent, c.round) for c in result.calls if c.tools} == turns
        assert all(
            e.function == "python" and e.error is None
            for e in sample.events
            if isinstance(e, ToolEvent)
        )


def slow_in_round_2(agent: str, seconds: float):
    """The scripted model, but `agent`'s round-2 tool call runs python that sleeps first."""

    def reply(input, tools, tool_choice, config) -> ModelOutput:
        call = current_call.get()
        if (call.agent, call.round) == (agent, 2) and not isinstance(input[-1], ChatMessageTool):
            code = f"import time; time.sleep({seconds}); print(42)"
            out = ModelOutput.for_tool_call("scripted", "python", {"code": code}, content="")
            out.usage = ModelUsage(
                input_tokens=10 * len(input), output_tokens=5, total_tokens=10 * len(input) + 5
            )
            return out
        return scripted(input, tools, tool_choice, config)

    return get_model("mockllm/model", custom_outputs=reply)


def test_a_time_limit_cuts_a_running_tool_and_ends_the_debate_not_the_sample(
    tmp_path: Path,
) -> None:
    """A tool that would run past --time-limit: the turn is cut early enough for the sandbox to
    stop it, the debate decides from round 1, and the sample is scored."""
    solver = du_debate(agents=2, rounds=2, debater="react", tools="python,bash")
    log = run(
        solver,
        slow_in_round_2("agent_1", 60),
        log_dir=str(tmp_path),
        sandbox="local",
        time_limit=12,
    )
    [sample] = log.samples
    assert sample.limit is None and sample.error is None
    result = load_result(sample)
    assert result.stopped.kind == "time" and result.stopped.decided == "the vote of round 1"
    assert sample.scores["final_answer"].value == "C"
    [cut] = [t for c in result.calls for t in c.tools if t.error is not None]
    assert cut.tool == "python" and cut.error.startswith("no result")


def test_a_limit_in_one_turn_keeps_the_steps_of_the_turns_beside_it(tmp_path: Path) -> None:
    """agent_1 passes the token limit while agent_2's tool still runs: agent_2's turn is
    cancelled, and its completed step is still in the record, so the record's tokens are
    Inspect's."""
    solver = du_debate(agents=2, rounds=2, debater="react", tools="python,bash", look_ahead=False)
    log = run(
        solver,
        slow_in_round_2("agent_2", 3),
        log_dir=str(tmp_path),
        sandbox="local",
        token_limit=250,  # round 1: 140; round 2: 45 each, then agent_1 passes it
    )
    [sample] = log.samples
    result = load_result(sample)
    assert result.stopped.kind == "token"
    stats = result.stats()
    assert (
        stats["input_tokens"] + stats["output_tokens"]
        == sample.model_usage["mockllm/model"].total_tokens
    )
    assert [c.step for c in result.calls if (c.agent, c.round) == ("agent_2", 2)] == [0]


def test_the_samples_message_limit_and_the_debates_budget_hold_inside_a_turn(
    tmp_path: Path,
) -> None:
    solver = du_debate(agents=2, rounds=2, debater="react", tools="python,bash")
    # round 2's prompt holds 3 messages and its second step 6: a limit of 5 ends the debate there
    log = run(solver, log_dir=str(tmp_path / "m"), sandbox="local", message_limit=5)
    result = load_result(log.samples[0])
    assert result.stopped.kind == "message" and result.stopped.decided == "the vote of round 1"
    # a budget of 20 tokens is spent by a turn's first step: no second step is taken
    budgeted = du_debate(agents=2, rounds=2, debater="react", tools="python,bash", budget=20)
    log = run(budgeted, log_dir=str(tmp_path / "b"), sandbox="local")
    result = load_result(log.samples[0])
    assert result.stopped.kind == "budget"
    assert max(c.step for c in result.calls) == 0


def test_on_demand_passes_acting_to_its_debate_and_records_it(tmp_path: Path) -> None:
    from mad_tasks.solvers import on_demand

    with pytest.raises(OptionError, match="debate_args"):  # both stages act, or neither
        on_demand(debate_args={"debater": "react", "tools": "python"})
    solver = on_demand(debater="react", tools="python", trigger="always")
    [log] = eval(tool_math(size=1), solver=solver, model="madsim/x", sandbox="local",
                 log_dir=str(tmp_path), display="none")  # fmt: skip
    result = load_result(log.samples[0])
    assert result.options["debate_options"]["debater"] == "react"
    assert result.options["debate_options"]["tools"] == ["python"]
    # the first stage's agent and the debate's agents each computed with the tool
    assert {c.agent for c in result.calls if c.tools} == {"agent_1", "agent_2", "agent_3"}
    assert result.final == log.samples[0].target


def test_options_that_cannot_work_together_are_refused() -> None:
    with pytest.raises(
        OptionError, match="'sandbox': got 'per_agent', allowed: shared with text_editor"
    ):
        voting(debater="react", tools="text_editor", sandbox="per_agent")


def test_web_search_needs_a_model_that_searches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in ("GOOGLE_CSE_ID", "GOOGLE_CSE_API_KEY"):
        monkeypatch.delenv(key, raising=False)
    log = run(du_debate(agents=2, debater="react", tools="web_search"), log_dir=str(tmp_path))
    assert log.status == "error"
    assert (
        "invalid solver option 'tools': got 'web_search', allowed: tools other than web_search for main model mockllm/model"
        in log.error.message
    )
    assert not any(isinstance(e, ModelEvent) for s in log.samples or [] for e in s.events)

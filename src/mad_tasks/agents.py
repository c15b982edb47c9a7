"""Every answering method as an Inspect agent: `mad_tasks.agents.voting(agents=3)` returns an
`Agent` that debates the question its input ends with, taking the same options as the solver
(checked the same way, before any call). Use it where Inspect takes an agent:

    from inspect_ai.agent import as_solver, as_tool, handoff, react
    from mad_tasks import agents

    panel = as_tool(agents.voting(agents=3))          # "consult a debate panel"
    solver = react(tools=[panel])                     # any agent may call it
    as_solver(agents.du_debate(rounds=3))             # a debate as a plain solver

A debate called this way is nested in its caller's transcript (its rounds, agents and calls
under the tool's span), ends with an info event of its figures (calls, tokens, dollars, critical
path), and its record is kept in the sample store under `AGENT_DEBATES`, one per call. It
answers in the running sample's answer format (`answer_format=auto`; free text outside a sample),
its reply ending with that answer. Unlike the solvers, it marks no choice of a multiple-choice
sample: use the solver to drop a debate into such a task.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from inspect_ai.agent import Agent, AgentState, agent
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessageAssistant, ModelOutput, get_model
from inspect_ai.util import store

from ._inspect_compat import sample_state
from ._inspect_sample import answer_format_for, parts_of
from .engine.answers import AnswerFormat, make_format
from .engine.catalogue import CATALOGUE
from .engine.checks import OptionError
from .engine.content import Msg, Question, compose
from .engine.options import options_factory
from .engine.records import DebateResult, dollars
from .engine.session import Problem
from .engine.spec import MethodSpec
from .inspect_runtime import SETUP
from .solvers.question import debate, with_options

AGENT_DEBATES = "mad_tasks:agent_debates"  # the sample store's list of the debates agents ran


def question_in(state: AgentState) -> tuple[Question, str]:
    """The question the agent's input ends with (its last user message, every part in order),
    the earlier user and assistant turns, and its system messages joined."""
    messages = state.messages
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last is None:
        raise ValueError("a debate agent's input holds no user message to answer")
    turns = [
        Msg(m.role, compose(Question.of(parts_of(m.content))))
        for m in messages[:last]
        if m.role in ("user", "assistant")
    ]
    system = "\n\n".join(m.text for m in messages if m.role == "system")
    return Question.of(parts_of(messages[last].content), turns), system


def format_of(answer_format: str) -> AnswerFormat:
    """`auto`: the running sample's format; free text outside a sample."""
    running = sample_state()
    if running is not None:
        return answer_format_for(running, answer_format)
    return make_format("text" if answer_format == "auto" else answer_format, ())


def figures(result: DebateResult) -> dict[str, Any]:
    """What the debate cost and did, as its info event shows it."""
    return {
        "method": result.method,
        "final": result.final,
        **result.stats(),
        "dollars": dollars(result.calls),
    }


def agent_of(spec: MethodSpec) -> Callable[..., Agent]:
    """The method as an Inspect agent factory, registered under its name."""

    def build(options: Any) -> Agent:
        try:
            run = spec.ready(options, SETUP)
        except OptionError as e:
            raise e.of("agent") from None

        async def execute(state: AgentState) -> AgentState:
            question, system = question_in(state)
            fmt = format_of(options.answer_format)
            running = sample_state()
            problem = Problem(with_options(question, fmt), fmt, system, options.templates)
            try:
                result = await debate(
                    running.sample_id if running else None,
                    problem,
                    options,
                    run,
                    spec.roles(options),
                )
            except OptionError as e:  # one the sample decides, before its first call
                raise e.of("agent") from None
            store().set(AGENT_DEBATES, [*store().get(AGENT_DEBATES, []), result.to_dict()])
            transcript().info(figures(result), source=f"{spec.name} debate")
            answer = fmt.render(result.final) if result.final is not None else ""
            reply = answer or "(no answer: all agents abstained)"
            state.messages.append(ChatMessageAssistant(content=reply, model=str(get_model())))
            state.output = ModelOutput.from_content(model=str(get_model()), content=answer)
            return state

        return execute

    build.__name__ = build.__qualname__ = spec.name
    build.__module__ = __name__
    build.__doc__ = spec.summary
    factory = options_factory(spec.options, build, "agent", groups=spec.groups, **spec.preset)
    return agent(name=spec.name, description=f"A debate panel: {spec.summary}")(factory)


AGENTS: dict[str, Callable[..., Agent]] = {
    spec.name: agent_of(spec) for spec in CATALOGUE.answering().values()
}


def __getattr__(name: str) -> Callable[..., Agent]:
    if name in AGENTS:
        return AGENTS[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *AGENTS])

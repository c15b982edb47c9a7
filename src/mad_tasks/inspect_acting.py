"""An agent's turn as an Inspect agent (`-S debater=react`): Inspect's `react()` with the tools the
run names, each of its model calls made the way every call of the debate is (the role's model, the
run's settings, cache scopes, time limits), its transcript nested in the agent's span of its round,
and its model calls and tool calls returned for the record (`Runtime.act`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from inspect_ai.agent import AgentPrompt, AgentState, react, run
from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.tool import Tool, bash, python, text_editor, think, web_search
from inspect_ai.util import Limit, LimitExceededError, message_limit, token_limit

from .engine.checks import OptionError
from .engine.records import ARGUMENTS_SHOWN, ToolUse
from .engine.runtime import SANDBOXED, Acting, Call, LimitReached, Reply, Step, Usage
from .inspect_runtime import (
    current_call,
    generation_config,
    limit_spent,
    reported_usage,
    served_from_cache,
    to_chat,
    within_time,
)

if TYPE_CHECKING:
    from .inspect_runtime import InspectRuntime

TOOL_TIMEOUT = 180  # seconds one python or bash call may run (Inspect's own timeout)

# What the agent is told beside the method's prompt: the project's words, the same for every
# method, so its prompt still says what to answer and how
INSTRUCTIONS = (
    "You may call the tools you are given to check or compute what the task needs, as often as "
    "it helps. When you are done, reply without calling a tool, in the form the task asks for."
)

# Providers that cannot send tools to their model, with why: refused before the first call
NO_TOOLS = {
    "llama-cpp-python": "its server's chat format (the embedded model's) has no function calling",
}


def tools_for(acting: Acting, agent: str) -> list[Tool]:
    """The run's tools by name, those that run in a sandbox in the agent's own where each agent
    has one (`per_agent`)."""
    box = agent if acting.sandbox == "per_agent" else None
    made = {
        "python": lambda: python(timeout=TOOL_TIMEOUT, sandbox=box),
        "bash": lambda: bash(timeout=TOOL_TIMEOUT, sandbox=box),
        "text_editor": lambda: text_editor(timeout=TOOL_TIMEOUT),
        "think": think,
        "web_search": web_search,
    }
    return [made[name]() for name in acting.tools]


def check_acting(acting: Acting, roles: Sequence[str], runtime: InspectRuntime) -> None:
    """Refuse, before the debate's first call, a role's model that cannot call tools, and
    sandboxed tools without the sandbox they need."""
    for role in roles:
        model = runtime.model_of(role).model
        why = NO_TOOLS.get(str(model).split("/", 1)[0])
        if why is not None:
            raise OptionError(
                "debater", "react", f"generate for {role}'s model {model}: {why}", "solver"
            )
    needs = [t for t in acting.tools if t in SANDBOXED]
    if not needs:
        return
    from inspect_ai.util._sandbox.context import sandbox_environments_context_var

    boxes = sandbox_environments_context_var.get(None) or {}
    if not boxes:
        raise OptionError(
            "tools", ",".join(needs), "tools that need no sandbox (think, web_search), or run "
            "with a sandbox: --sandbox local, or docker where it is installed", "solver",
        )  # fmt: skip


def check_agent_sandbox(acting: Acting, agent: str) -> None:
    """With `sandbox=per_agent`, the agent's own sandbox must exist (the task's sandbox config
    names one environment per agent)."""
    if acting.sandbox != "per_agent" or not any(t in SANDBOXED for t in acting.tools):
        return
    from inspect_ai.util._sandbox.context import sandbox_environments_context_var

    boxes = sandbox_environments_context_var.get(None) or {}
    if agent not in boxes:
        raise OptionError(
            "sandbox", "per_agent", f"shared: this sample's sandboxes are {', '.join(boxes)}, "
            f"none named {agent}", "solver",
        )  # fmt: skip


def tool_trace(messages: Sequence[ChatMessage]) -> list[tuple[ToolUse, ...]]:
    """The tool calls of each assistant message, in order, with what each returned."""
    results = {m.tool_call_id: m for m in messages if isinstance(m, ChatMessageTool)}
    trace = []
    for message in messages:
        if not isinstance(message, ChatMessageAssistant):
            continue
        uses = []
        for called in message.tool_calls or ():
            result = results.get(called.id)
            arguments = json.dumps(called.arguments, ensure_ascii=False, default=str)
            uses.append(
                ToolUse(
                    tool=called.function,
                    arguments=arguments[:ARGUMENTS_SHOWN],
                    result_chars=len(result.text) if result is not None else 0,
                    error=(result.error.message if result and result.error else None),
                )
            )
        trace.append(tuple(uses))
    return trace


async def act(runtime: InspectRuntime, call: Call, acting: Acting) -> Reply:
    """`call`'s turn as a ReAct agent over `acting.tools`: it ends when a reply calls no tool, or
    at the turn's own message or token cap (then with the text it has)."""
    check_agent_sandbox(acting, call.agent)
    model = runtime.model_of(call.role).model
    made: list[tuple[Usage | None, bool]] = []  # each model call's usage, whether cache-served
    seen: list[AgentState] = []  # the agent's state, for the trace when a limit ends the turn
    # the turn's own caps (+1: react's system line); the run's limits stay the run's
    limits: list[Limit] = [message_limit(len(call.messages) + 1 + acting.messages)]
    if acting.tokens is not None:
        limits.append(token_limit(acting.tokens))

    async def generate(state: AgentState, tools: list[Tool]) -> AgentState:
        """One step: the role's model, with the call's settings and a cache scope of its own."""
        seen[:] = [state]
        step = replace(
            call, purpose=f"{call.purpose} step {len(made) + 1}" if made else call.purpose
        )
        config = generation_config(model, runtime.config, step)
        cache = runtime.cache_of(step)
        since = transcript().history.event_count
        token = current_call.set(step)
        try:
            out = await within_time(
                model.generate(state.messages, tools, config=config, cache=cache)
            )
        except LimitExceededError as e:
            spent = limit_spent(since)
            if e.source in limits:  # the turn's cap: the turn ends with what it has
                if spent is not None:
                    made.append((spent, False))
                raise
            raise LimitReached(e.type, e.value, e.limit, spent) from None
        finally:
            current_call.reset(token)
        made.append((reported_usage(out), bool(cache) and served_from_cache(out, since)))
        state.output = out
        state.messages.append(out.message)
        return state

    agent = react(
        name=call.agent,
        prompt=AgentPrompt(instructions=INSTRUCTIONS, assistant_prompt=None, handoff_prompt=None),
        tools=tools_for(acting, call.agent),
        model=generate,
        submit=False,
    )
    messages = [to_chat(m) for m in call.messages]
    try:
        name = f"{call.agent} acts" + (f" (round {call.round})" if call.round else "")
        state, _ = await within_time(run(agent, messages, limits, name=name))
    except LimitReached as limit:  # the run's own limit: the steps done were spent
        limit.steps = steps_of(made, seen[0].messages if seen else [])
        raise
    return Reply(last_text(state), steps=steps_of(made, state.messages))


def last_text(state: AgentState) -> str:
    """The turn's answer: its last reply's text (a turn its cap ended may end on a tool call,
    whose text is the reasoning so far)."""
    replies = [m for m in state.messages if isinstance(m, ChatMessageAssistant)]
    own = [m for m in replies if m.source != "input"]
    return own[-1].text if own else ""


def steps_of(
    made: Sequence[tuple[Usage | None, bool]], messages: Sequence[ChatMessage]
) -> tuple[Step, ...]:
    """Each model call with the tool calls its reply made (the turn's n-th assistant message is
    the n-th call's reply; a reply past a cap has none)."""
    trace = tool_trace([m for m in messages if m.source != "input"])
    return tuple(
        Step(usage, cached, trace[i] if i < len(trace) else ())
        for i, (usage, cached) in enumerate(made)
    )

"""An agent's turn as an Inspect agent (`-S debater=react`): Inspect's `react()` with the tools the
run names, each of its model calls made the way every call of the debate is (the role's model, the
run's settings, cache scopes, time limits), its transcript nested in the agent's span of its round,
and each model call reported with the tool calls its reply made as it completes (`Runtime.act`)."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from inspect_ai.agent import AgentPrompt, AgentState, react, run
from inspect_ai.log import transcript
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    Model,
    get_model,
    model_roles,
)
from inspect_ai.tool import Tool, ToolDef, bash, python, text_editor, think, web_search
from inspect_ai.util import Limit, LimitExceededError, message_limit, token_limit

from ._inspect_compat import sandbox_names
from .engine.checks import OptionError
from .engine.records import SHOWN, ToolUse
from .engine.runtime import SANDBOXED, Acting, Call, LimitReached, Reply, Step, Steps, Usage
from .inspect_runtime import (
    MAIN_MODEL,
    current_call,
    generation_config,
    limit_spent,
    provider,
    reported_usage,
    running_limits,
    served_from_cache,
    to_chat,
    within_time,
)

if TYPE_CHECKING:
    from .inspect_runtime import InspectRuntime

TOOL_TIMEOUT = 180  # seconds one python or bash call may run (Inspect's own timeout)
# seconds a cut turn may take to end: Inspect stops a sandboxed tool with SIGTERM, then waits up to
# 2 s (its SUBPROCESS_SIGTERM_GRACE_SECONDS) before SIGKILL; the turn is cut this much sooner
TOOL_GRACE = 3.0

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
# Providers whose models search the web themselves (Inspect's internal web_search providers);
# any other model needs Google's search keys (Inspect reads them from the environment)
SEARCHES = frozenset({"openai", "anthropic", "google", "grok", "mistral", "perplexity"})
SEARCH_KEYS = ("GOOGLE_CSE_ID", "GOOGLE_CSE_API_KEY")


def tools_for(acting: Acting, agent: str) -> list[Tool]:
    """The run's tools by name, those that run in a sandbox in the agent's own where each agent
    has one (`per_agent`; the options refuse text_editor there, which takes the default one)."""
    box = agent if acting.sandbox == "per_agent" else None
    made = {
        "python": lambda: python(timeout=TOOL_TIMEOUT, sandbox=box),
        "bash": lambda: bash(timeout=TOOL_TIMEOUT, sandbox=box),
        "text_editor": lambda: text_editor(timeout=TOOL_TIMEOUT),
        "think": think,
        "web_search": web_search,
    }
    return [made[name]() for name in acting.tools]


def agent_models() -> list[tuple[str, Model]]:
    """Every model an agent may run on and how a message names it: the main model unless the
    shared `agent` role is bound, and each model bound to an agent role (each of a panel's)."""
    bound = model_roles()
    found = [] if "agent" in bound else [(MAIN_MODEL, get_model())]
    for role, models in bound.items():
        if role.startswith("agent"):
            found += [
                (f"{role}'s model", m) for m in (models if isinstance(models, list) else [models])
            ]
    return found


def refuse(option: str, value: str, allowed: str) -> OptionError:
    return OptionError(option, value, allowed, "solver")


def check_acting(acting: Acting, agents: int | None) -> None:
    """Refuse, before the debate's first call: a model an agent may run on (the main model, every
    bound agent role) that cannot call tools or search, sandboxed tools without a sandbox, and
    `per_agent` without a sandbox for each of the `agents` (when the method has a count)."""
    for name, model in agent_models():
        why = NO_TOOLS.get(provider(model))
        if why is not None:
            raise refuse("debater", "react", f"generate for {name} {model}: {why}")
        searches = provider(model) in SEARCHES or all(os.environ.get(k) for k in SEARCH_KEYS)
        if "web_search" in acting.tools and not searches:
            raise refuse(
                "tools", "web_search", f"tools other than web_search for {name} {model}, "
                f"which has no search of its own (set {' and '.join(SEARCH_KEYS)})",
            )  # fmt: skip
    boxes = sandbox_names()
    needs = [t for t in acting.tools if t in SANDBOXED]
    if boxes is None:  # Inspect's internals moved: its own error names a missing sandbox
        return
    if needs and not boxes:
        raise refuse(
            "tools", ",".join(needs), "tools that need no sandbox (think, web_search), or run "
            "with a sandbox: --sandbox local, or docker where it is installed",
        )  # fmt: skip
    for n in range(1, (agents or 0) + 1):
        check_agent_sandbox(acting, f"agent_{n}", boxes)


def check_agent_sandbox(acting: Acting, agent: str, boxes: Sequence[str] | None) -> None:
    """With `sandbox=per_agent`, the agent's own sandbox must exist (the task's sandbox config
    names one environment per agent)."""
    needs = any(t in SANDBOXED for t in acting.tools)
    if needs and acting.sandbox == "per_agent" and boxes is not None and agent not in boxes:
        names = ", ".join(boxes) or "none"
        allowed = f"shared: this sample's sandboxes are {names}, none named {agent}"
        raise refuse("sandbox", "per_agent", allowed)


def stages(parallel: Mapping[str, bool], called: Sequence[str]) -> list[int]:
    """Each tool call's stage, as Inspect runs a reply's calls: one after another, except that
    consecutive calls of tools that may run at once share a stage."""
    found, stage, joins = [], 0, False
    for name in called:
        together = parallel.get(name, False)
        stage += 0 if together and joins else 1
        joins = together
        found.append(stage)
    return found


def tool_uses(
    message: ChatMessageAssistant,
    results: Mapping[str, ChatMessageTool],
    parallel: Mapping[str, bool],
) -> tuple[ToolUse, ...]:
    """The tool calls of one reply, each with what it returned (a call a limit cut has none)."""
    called = message.tool_calls or []
    uses = []
    for stage, call in zip(stages(parallel, [c.function for c in called]), called):
        result = results.get(call.id)
        error = (
            "no result: the turn was cut before it returned"
            if result is None
            else result.error.message
            if result.error is not None
            else None
        )
        arguments = json.dumps(call.arguments, ensure_ascii=False, default=str)
        uses.append(
            ToolUse(
                tool=call.function,
                arguments=arguments[:SHOWN],
                result_chars=len(result.text) if result is not None else 0,
                error=error[:SHOWN] if error is not None else None,
                stage=stage,
            )
        )
    return tuple(uses)


async def act(runtime: InspectRuntime, call: Call, acting: Acting, steps: Steps) -> Reply:
    """`call`'s turn as a ReAct agent over `acting.tools`: it ends when a reply calls no tool, or
    at the turn's own message or token cap (then with the text it has)."""
    check_agent_sandbox(acting, call.agent, sandbox_names())
    model = runtime.model_of(call.role).model
    given = tools_for(acting, call.agent)
    parallel = {ToolDef(t).name: ToolDef(t).parallel for t in given}
    pending: list[tuple[Usage | None, bool]] = []  # the model call whose tools are running
    seen: list[AgentState] = []  # the agent's state, for the tools of the last step

    def finish() -> None:
        """Report the pending step with the tool calls its reply made."""
        if not pending:
            return
        usage, cached = pending.pop()
        messages = seen[0].messages if seen else []
        replies = own_replies(messages)
        results = {m.tool_call_id or "": m for m in messages if isinstance(m, ChatMessageTool)}
        uses = tool_uses(replies[-1], results, parallel) if replies else ()
        steps.done(Step(usage, cached, uses))

    limits = turn_limits(acting, len(call.messages))

    async def generate(state: AgentState, tools: list[Tool]) -> AgentState:
        """One step: the role's model, with the call's settings and a cache scope of its own
        (react() passes the tools by this name)."""
        seen[:] = [state]
        finish()
        steps.check()  # the debate's budget, between steps too
        number = len(own_replies(state.messages))
        step = replace(
            call, purpose=f"{call.purpose} step {number + 1}" if number else call.purpose
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
            if e.source in limits:  # the turn's own cap: the turn ends with what it has
                if spent is not None:
                    steps.done(Step(spent, discarded=True))
                raise
            raise LimitReached(e.type, e.value, e.limit, spent) from None
        finally:
            current_call.reset(token)
        pending.append((reported_usage(out), bool(cache) and served_from_cache(out, since)))
        state.output = out
        state.messages.append(out.message)
        return state

    agent = react(
        name=call.agent,
        prompt=AgentPrompt(instructions=INSTRUCTIONS, assistant_prompt=None, handoff_prompt=None),
        tools=given,
        model=generate,
        submit=False,
    )
    name = f"{call.agent} acts" + (f" (round {call.round})" if call.round else "")
    messages = [to_chat(m) for m in call.messages]
    try:
        state, _ = await within_time(run(agent, messages, limits, name=name), early=TOOL_GRACE)
    except LimitExceededError as e:  # the run's, reached outside a model call (a tool's result)
        raise LimitReached(e.type, e.value, e.limit) from None
    finally:  # however the turn ends, its last step is counted
        finish()
    return Reply(last_text(state))


def turn_limits(acting: Acting, prompt: int) -> list[Limit]:
    """The turn's own caps as Inspect limits. Inspect checks only the innermost message limit, so
    where the sample's is the nearer one the turn sets none, and the sample's ends the debate."""
    own = prompt + 1 + acting.messages  # +1: the agent's system line
    sample = running_limits()
    nearer = sample is not None and sample.message.limit is not None and sample.message.limit <= own
    limits: list[Limit] = [] if nearer else [message_limit(own)]
    if acting.tokens is not None:
        limits.append(token_limit(acting.tokens))
    return limits


def last_text(state: AgentState) -> str:
    """The turn's answer: its last reply's text (a turn its cap ended may end on a tool call,
    whose text is the reasoning so far)."""
    own = own_replies(state.messages)
    return own[-1].text if own else ""


def own_replies(messages: Sequence[ChatMessage]) -> list[ChatMessageAssistant]:
    """The turn's own replies: its assistant messages, not those of the prompt it was given."""
    return [m for m in messages if isinstance(m, ChatMessageAssistant) and m.source != "input"]

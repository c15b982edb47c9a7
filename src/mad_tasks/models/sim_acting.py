"""How `madsim` acts when a call offers it tools: it computes with the python (or bash) tool when the
running sample says how (`metadata["program"]`: Python that prints the answer, as the
`tool_math` task writes it), consults a tool that takes an `input` text (an agent offered as a
tool, such as a debate panel) with the question, and then answers from the tool's result.
Without tools, or when a tool failed, it answers as it always does (its set accuracy)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from inspect_ai.model import ChatMessage, ChatMessageTool
from inspect_ai.tool import ToolInfo

from ..engine.requests import AnswerRequest, ReasoningRequest, Request

RESULT_SHOWN = 200  # characters of a tool's result a reply quotes


@dataclass(frozen=True)
class ToolCallPlan:
    """The tool call madsim makes: the tool and its arguments."""

    tool: str
    arguments: dict[str, Any]


def plan(
    input: Sequence[ChatMessage],
    tools: Sequence[ToolInfo],
    asks: Request | None,
    metadata: dict[str, Any] | None,
) -> ToolCallPlan | str | None:
    """What to do with the tools offered: a tool call, a reply from a tool's result, or None (no
    tool helps: the usual reply)."""
    offered = {t.name: t for t in tools}
    result, tool = tool_result(input), "agent"
    said = handed_back(input)
    if said is None and result is not None:
        if result.error is not None:  # the tool failed: no help from it
            return None
        said, tool = result.text, result.function or "tool"
    if said is not None:
        answer = last_line(said)
        if "submit" in offered:  # an agent that ends by submitting: submit the tool's answer
            return ToolCallPlan("submit", {"answer": answer})
        return from_result(tool, answer, asks)
    program = (metadata or {}).get("program")
    if isinstance(program, str) and program:
        if "python" in offered:
            return ToolCallPlan("python", {"code": program})
        if "bash" in offered:
            return ToolCallPlan("bash", {"command": f"python3 - <<'PROGRAM'\n{program}\nPROGRAM"})
    for name, info in offered.items():
        if info.parameters.required == ["input"]:  # an agent as a tool: consult it
            question = next((m.text for m in reversed(input) if m.role == "user"), "")
            return ToolCallPlan(name, {"input": question})
        if name.startswith("transfer_to_") and not info.parameters.properties:  # a handoff
            return ToolCallPlan(name, {})
    return None


def tool_result(input: Sequence[ChatMessage]) -> ChatMessageTool | None:
    """The last tool result since the last user message (None: no tool ran in this turn)."""
    for message in reversed(input):
        if isinstance(message, ChatMessageTool):
            return message
        if message.role == "user":
            return None
    return None


def handed_back(input: Sequence[ChatMessage]) -> str | None:
    """What the agent a handoff transferred to said last, once it handed back (None: no handoff
    in the conversation, or its agent said nothing)."""
    for i in reversed(range(len(input))):
        message = input[i]
        if isinstance(message, ChatMessageTool) and (message.function or "").startswith(
            "transfer_to_"
        ):
            said = [m.text for m in input[i + 1 :] if m.role == "assistant" and m.text]
            return said[-1] if said else None
    return None


def last_line(text: str) -> str:
    """A result's answer: its last non-empty line, without an `ANSWER:` label."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    line = lines[-1] if lines else ""
    return line.split("ANSWER:", 1)[1].strip() if "ANSWER:" in line else line


def from_result(tool: str, answer: str, asks: Request | None) -> str:
    """A reply whose answer is the tool's result, in the form the call asks for."""
    why = f"Simulated reasoning: the {tool} tool gave {answer[:RESULT_SHOWN]}."
    if isinstance(asks, ReasoningRequest):
        return f"[AGREE] {why}" if asks.agreement else why
    if not isinstance(asks, AnswerRequest):
        return f"{why}\nANSWER: {answer}"
    if asks.confidence:
        return f"EXPLANATION: {why}\nCONFIDENCE: 0.95\nANSWER: {answer}"
    if asks.agreement:
        same = asks.current is not None and asks.fmt.key(answer) == asks.fmt.key(asks.current)
        why = f"{'[AGREE]' if same else '[DISAGREE]'} {why}"
    return f"{why}\nANSWER: {answer}"

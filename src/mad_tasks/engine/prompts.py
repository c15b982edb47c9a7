"""Shared prompt wording of the project (method-specific prompts live in their method module)."""

from __future__ import annotations

from collections.abc import Sequence

from .answers import AnswerFormat
from .records import AgentAnswer


def direct(question: str, fmt: AnswerFormat) -> str:
    return f"{question}\n\nAnswer the question directly. {fmt.instruction()}"


def step_by_step(question: str, fmt: AnswerFormat) -> str:
    return (
        f"{question}\n\nWork through the problem step by step, then commit to one answer. "
        f"{fmt.instruction()}"
    )


def reminder(fmt: AnswerFormat) -> str:
    return f"Your reply did not state a final answer in the required form. {fmt.instruction()}"


def debate_update(peers: Sequence[AgentAnswer], fmt: AnswerFormat) -> str:
    shown = "\n\n".join(f"--- {p.agent} ---\n{p.text.strip()}" for p in peers)
    return (
        f"Here are the most recent replies of the other agents to the same question:\n\n{shown}\n\n"
        "Treat their reasoning as evidence, not as authority: check each argument against your "
        "own, then give your updated answer, step by step. "
        f"{fmt.instruction()}"
    )

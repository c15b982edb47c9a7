"""Shared prompt wording of the project (method-specific prompts live in their method module).

Each prompt here is a `Template` a user may replace (`-S templates=...`, see templates.py): the
fixed parts are the template's text, and `{instruction}` is the answer format's instruction.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from .answers import AnswerFormat
from .content import Content, Question
from .records import AgentAnswer
from .templates import Template, fill

TEMPLATES = {
    "direct": Template(
        "{question}\n\nAnswer the question directly. {instruction}",
        "single: the question and the answer format's instruction",
    ),
    "step_by_step": Template(
        "{question}\n\nWork through the problem step by step, then commit to one answer. "
        "{instruction}",
        "cot, self_consistency and du_debate's first round: the same placeholders",
    ),
    "debate_update": Template(
        "Here are the most recent replies of the other agents to the same question:\n\n"
        "{replies}\n\nUse their reasoning as additional advice: examine your own solution and "
        "theirs step by step, then give your updated answer. {instruction}",
        "du_debate's later rounds: the other agents' replies, each under an anonymous header",
    ),
    "reminder": Template(
        "Your reply did not state a final answer in the required form. {instruction}",
        "every solver's follow-up after a reply without a readable answer",
    ),
}

Replaced = Mapping[str, str] | None  # the user's replacements by template name


def direct(question: Question, fmt: AnswerFormat, replaced: Replaced = None) -> Content:
    return fill(TEMPLATES, replaced, "direct", question=question, instruction=fmt.instruction())


def step_by_step(question: Question, fmt: AnswerFormat, replaced: Replaced = None) -> Content:
    return fill(
        TEMPLATES, replaced, "step_by_step", question=question, instruction=fmt.instruction()
    )


def reminder(fmt: AnswerFormat, replaced: Replaced = None) -> Content:
    return fill(TEMPLATES, replaced, "reminder", instruction=fmt.instruction())


def debate_update(
    peers: Sequence[AgentAnswer], fmt: AnswerFormat, replaced: Replaced = None
) -> Content:
    shown = "\n\n".join(f"--- one agent's reply ---\n{p.text.strip()}" for p in peers)
    return fill(TEMPLATES, replaced, "debate_update", replies=shown, instruction=fmt.instruction())

"""The wording of the decision-protocol debates (the project's own; the paper's prompts are reference).

The constants marked "fixed" are what the simulated model (models/sim.py) looks for to recognise a
call; change them together with it.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..answers import AnswerFormat
from ..protocols.voting import BallotRules

STYLES = ("simple", "critical", "reasoning")

CURRENT = "Current solution:"  # fixed: the line that shows the solution under discussion
AGREE_REQUEST = "start your reply with [AGREE]"  # fixed: the message must signal agreement
REASONING_ONLY = "Do not give a final solution yet."  # fixed: reasoning style, no answer line
EXTRACT_REQUEST = "State the final solution to the task that this contribution gives."  # fixed
CONCLUDE_REQUEST = "Give a concise final solution to the task based on this reasoning."  # fixed
STEP_BY_STEP = "Let's think step by step."

# fixed: one sentence per ballot kind, recognised by the simulated model
BALLOT_REQUEST = {
    "simple": "Reply with only the number of the one solution you vote for.",
    "ranked": "Reply with only solution numbers, best first, separated by spaces",
    "cumulative": "Reply with only a JSON object that maps solution numbers to points",
    "approval": "Reply with only the numbers of the solutions you approve, separated by commas",
}

_SYSTEM = {
    "simple": "You take part in a discussion with other participants to solve a task.",
    "critical": (
        "You take part in a discussion aimed at solving a task. Examine the other participants' "
        "contributions critically and bring in your own expertise."
    ),
    "reasoning": (
        "You take part in a discussion to solve a task. Participants share reasoning steps only; "
        "a final solution is written once the reasoning is complete."
    ),
}

_PROPOSE = {
    "simple": "Propose a solution to the task.",
    "critical": "Propose a well-thought-out solution that draws on your own expertise.",
    "reasoning": f"Share the reasoning steps that lead towards a solution. {REASONING_ONLY}",
}

_IMPROVE = {
    "simple": (
        f"Improve the current solution. If you agree with it, {AGREE_REQUEST}; otherwise start "
        "with [DISAGREE], say why and give an improved solution."
    ),
    "critical": (
        "Look for weaknesses in the current solution and propose a better one based on your "
        f"expertise. Only if you see no room for improvement, {AGREE_REQUEST}; otherwise start "
        "with [DISAGREE], name the weaknesses and give your improved solution."
    ),
    "reasoning": (
        f"If the discussion already holds enough reasoning to write a final solution, "
        f"{AGREE_REQUEST}; otherwise start with [DISAGREE] and add the missing reasoning steps. "
        f"{REASONING_ONLY}"
    ),
}


def system(style: str, persona_line: str | None) -> str:
    return f"{_SYSTEM[style]}\n{persona_line}" if persona_line else _SYSTEM[style]


def opening(question: str, current: str | None, has_history: bool) -> str:
    """The task, the solution under discussion (if shown) and the lead-in to the history."""
    parts = [f"Task:\n{question}"]
    if current is not None:
        parts.append(f"{CURRENT} {current}")
    if has_history:
        parts.append("The discussion so far:")
    return "\n\n".join(parts)


def instruction(style: str, improve: bool, fmt: AnswerFormat, cot: bool) -> str:
    text = _IMPROVE[style] if improve else _PROPOSE[style]
    if style != "reasoning":
        text += f" {fmt.instruction()}"
    return f"{text}\n\n{STEP_BY_STEP}" if cot else text


def ci_update(
    question: str, own: str, others: Sequence[tuple[str, str]], fmt: AnswerFormat, cot: bool
) -> str:
    """Collective Improvement: the agent's own previous answer and the others', nothing else."""
    shown = "\n\n".join(f"--- {agent} ---\n{text}" for agent, text in others)
    text = (
        f"Task:\n{question}\n\nYour previous answer:\n{own}\n\n"
        f"Here are the previous answers of the other participants:\n\n{shown}\n\n"
        "Improve your previous answer: weigh the other answers critically against your own and "
        f"keep what holds up. {fmt.instruction()}"
    )
    return f"{text}\n\n{STEP_BY_STEP}" if cot else text


def extract(question: str, contribution: str, fmt: AnswerFormat, conclude: bool) -> str:
    """The paper's final-answer extraction (or, after reasoning-only messages, a conclusion)."""
    if conclude:
        ask = f"{CONCLUDE_REQUEST} Keep it true to your own expertise."
    else:
        ask = (
            f"{EXTRACT_REQUEST} Leave out agreement, disagreement and explanations and do not "
            "change the solution. If it gives no solution, state the solution it supports."
        )
    return f"Task:\n{question}\n\nContribution:\n<<<\n{contribution.strip()}\n>>>\n\n{ask} {fmt.instruction()}"


def ballot(question: str, candidates: Sequence[str], rules: BallotRules) -> str:
    listed = "\n".join(f"Solution {i}: {c}" for i, c in enumerate(candidates))
    task = {
        "simple": "Vote for the best solution to the task.",
        "ranked": "Rank the solutions to the task from most to least preferred.",
        "cumulative": (
            f"Distribute {'up to ' if rules.allow_fewer else ''}{rules.points} points among the "
            "solutions to the task; better solutions get more points."
        ),
        "approval": "Approve every solution to the task that you find acceptable.",
    }[rules.protocol]
    return (
        f"{task}\n\nTask:\n{question}\n\nThe solutions, numbered from 0:\n{listed}\n\n"
        f"{ballot_format(rules)}"
    )


def ballot_format(rules: BallotRules) -> str:
    """How the ballot must be written; repeated as the reminder after an invalid ballot."""
    request = BALLOT_REQUEST[rules.protocol]
    if rules.protocol == "ranked":
        return f'{request} (for example "0 2 1"); rank at most {rules.max_ranks}, each once.'
    if rules.protocol == "cumulative":
        total = f"at most {rules.points}" if rules.allow_fewer else f"exactly {rules.points}"
        return f'{request} (for example {{"0": 6, "2": 4}}); the points must add up to {total}.'
    if rules.protocol == "approval":
        return f'{request} (for example "0, 2").'
    return request


def ballot_reminder(rules: BallotRules) -> str:
    return f"That ballot could not be counted. {ballot_format(rules)}"

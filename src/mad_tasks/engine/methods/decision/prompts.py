"""The wording of the decision-protocol debates (the project's own; the paper's prompts are reference).

A ballot's wording is its kind's (protocols/voting.py). What each call asks for is also given to the
call in values (engine/requests.py), so nothing here is read back by anyone: reword freely.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...answers import AnswerFormat
from ...content import Content, Question, compose
from ...protocols.voting import BallotRules, ballot_kind

STYLES = ("simple", "critical", "reasoning")

# pieces of wording that recur across prompts, or that the tests look for in what an agent was shown
CURRENT = "Current solution:"  # the line that shows the solution under discussion
AGREE_REQUEST = "start your reply with [AGREE]"
REASONING_ONLY = "Do not give a final solution yet."
STEP_BY_STEP = "Let's think step by step."

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


def opening(question: Question, current: str | None, has_history: bool) -> Content:
    """The task, the solution under discussion (if shown) and the lead-in to the history."""
    pieces: list[str | Question] = ["Task:\n", question]
    if current is not None:
        pieces.append(f"\n\n{CURRENT} {current}")
    if has_history:
        pieces.append("\n\nThe discussion so far:")
    return compose(*pieces)


def instruction(style: str, improve: bool, fmt: AnswerFormat, cot: bool) -> str:
    text = _IMPROVE[style] if improve else _PROPOSE[style]
    if style != "reasoning":
        text += f" {fmt.instruction()}"
    return f"{text}\n\n{STEP_BY_STEP}" if cot else text


def ci_update(
    question: Question, own: str, others: Sequence[tuple[str, str]], fmt: AnswerFormat, cot: bool
) -> Content:
    """Collective Improvement: the agent's own previous answer and the others', nothing else."""
    shown = "\n\n".join(f"--- {agent} ---\n{text}" for agent, text in others)
    text = (
        f"Your previous answer:\n{own}\n\n"
        f"Here are the previous answers of the other participants:\n\n{shown}\n\n"
        "Improve your previous answer: weigh the other answers critically against your own and "
        f"keep what holds up. {fmt.instruction()}"
    )
    return compose("Task:\n", question, "\n\n", f"{text}\n\n{STEP_BY_STEP}" if cot else text)


def extract(question: Question, contribution: str, fmt: AnswerFormat, conclude: bool) -> Content:
    """The paper's final-answer extraction (or, after reasoning-only messages, a conclusion)."""
    if conclude:
        ask = (
            "Give a concise final solution to the task based on this reasoning. Keep it true to "
            "your own expertise."
        )
    else:
        ask = (
            "State the final solution to the task that this contribution gives. Leave out "
            "agreement, disagreement and explanations and do not change the solution. If it "
            "gives no solution, state the solution it supports."
        )
    return compose(
        "Task:\n",
        question,
        f"\n\nContribution:\n<<<\n{contribution.strip()}\n>>>\n\n{ask} {fmt.instruction()}",
    )


def ballot(question: Question, candidates: Sequence[str], rules: BallotRules) -> Content:
    kind = ballot_kind(rules.protocol)
    listed = "\n".join(f"Solution {i}: {c}" for i, c in enumerate(candidates))
    # the question first, as in every other call: the kind's wording differs per protocol
    return compose(
        "Task:\n",
        question,
        f"\n\n{kind.task(rules)}\n\nThe solutions, numbered from 0:\n{listed}"
        f"\n\n{kind.request(rules)}",
    )


def ballot_reminder(rules: BallotRules) -> str:
    return f"That ballot could not be counted. {ballot_kind(rules.protocol).request(rules)}"


# -- the challenge stage (the paper's App. E.3: Figs. 20 and 21, and MALLM's wrong-answer prompt)

VERDICT_REQUEST = (
    "Evaluate this answer critically. If you agree with it, reply with the exact word AGREE; if "
    "you do not, reply with the exact word DISAGREE."
)
HISTORY = "The discussion that led to it:"


def challenge_opening(question: Question, history: bool) -> Content:
    """The task first (as in every call), then the lead-in to the discussion if it is shown."""
    return compose("Task:\n", question, f"\n\n{HISTORY}" if history else "")


def _judged(shown: str, facts: str | None) -> str:
    """The facts (information variant), then the final answer the agent judges."""
    lead = f"Additional information that may help you judge it:\n{facts}\n\n" if facts else ""
    return f"{lead}The final answer of the discussion: {shown}"


def challenge(shown: str, facts: str | None = None) -> str:
    return f"{_judged(shown, facts)}\n\n{VERDICT_REQUEST}"


def new_answer(shown: str, fmt: AnswerFormat, facts: str | None = None) -> str:
    """MALLM asks for the new answer afresh, the verdict not shown: the same context again."""
    return (
        f"{_judged(shown, facts)}\n\nYou do not agree with this final answer. Give a new answer "
        f"to the task. {fmt.instruction()}"
    )


def counterfeit(question: Question, kind: str, fmt: AnswerFormat) -> Content:
    """The challenger's request: a deliberately wrong answer, or one unrelated to the task."""
    ask = (
        f"Give an answer to this task that is deliberately wrong. {fmt.instruction()}"
        if kind == "wrong"
        else "Reply with an answer that has nothing to do with this task: one short sentence, "
        "nothing else."
    )
    return compose("Task:\n", question, f"\n\n{ask}")

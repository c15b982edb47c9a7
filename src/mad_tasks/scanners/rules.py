"""The rules of the deterministic scanners, as pure functions of a debate record (`DebateResult`)
and of what is right (`right(answer)`: the task's own comparison with the sample's target; a
missing answer is never right). Each returns its findings, none on a clean record.

- `voted_out`: the final answer is wrong while some agent gave the right answer. The answers that
  count are every agent's parsed answer in every round the record holds (a swapped debate's
  agents too); an abstention counts for nothing.
- `abandoned`: an agent whose answer in one round was right answers wrongly in the next, with no
  new argument in that reply. A reply brings a new argument when, its ANSWER line left out, it has
  at least `NEW_WORDS` distinct words (runs of at least `WORD_CHARS` letters or digits, case
  ignored) that appear neither in the replies the agent was shown (every other agent's reply of
  the previous round: what a fully connected debate shows; a sparser topology showed fewer) nor
  in its own previous reply. A word count is a proxy: a reworded capitulation counts as an
  argument, which the model-graded `capitulation` scanner reads instead.
- `order_flips`: a judge whose verdict changed with the order of the answers: a D3 judge run with
  `swap` whose record says its verdict did not follow the answers (`position_consistent` false),
  and each ChatEval referee of a swapped debate (`swap`) whose last answer, read back to the answer
  its letter named, differs from its answer in the order as given.

Every rule reads the record's texts once: linear in their length.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..engine.answers import without_answer_lines
from ..engine.methods.chateval import SWAPPED
from ..engine.methods.d3.records import JudgeRecord
from ..engine.records import AgentAnswer, DebateResult

NEW_WORDS = 5
WORD_CHARS = 4
_WORD = re.compile(rf"[^\W_]{{{WORD_CHARS},}}")

Right = Callable[[str | None], bool]


@dataclass(frozen=True)
class Finding:
    """One case a rule found: who, in which round (None: the judgment as a whole), and why."""

    agent: str | None
    round: int | None
    why: str


def voted_out(result: DebateResult, right: Right) -> list[Finding]:
    """One finding per agent answer that was right when the final answer is not."""
    if right(result.final):
        return []
    final = "no answer" if result.final is None else repr(result.final)
    return [
        Finding(
            a.agent,
            a.round,
            f"{a.agent} answered {a.answer!r} (right) in round {a.round}; "
            f"the final answer, {final}, is wrong",
        )
        for a in result.answers
        if right(a.answer)
    ]


def words(text: str) -> set[str]:
    """The distinct words of a text (its ANSWER lines left out), lower case."""
    return set(_WORD.findall(without_answer_lines(text).lower()))


def new_words(reply: str, shown: list[str]) -> set[str]:
    """The words of `reply` that none of the `shown` texts has."""
    seen: set[str] = set()
    for text in shown:
        seen |= words(text)
    return words(reply) - seen


def abandoned(result: DebateResult, right: Right) -> list[Finding]:
    """One finding per reply that left a right answer for a wrong one with no new argument."""
    by_round: dict[int, list[AgentAnswer]] = {}
    for a in result.answers:
        by_round.setdefault(a.round, []).append(a)
    found = []
    for a in result.answers:
        before = {p.agent: p for p in by_round.get(a.round - 1, [])}
        own = before.get(a.agent)
        if own is None or not right(own.answer) or a.answer is None or right(a.answer):
            continue
        shown = [p.text for agent, p in before.items() if agent != a.agent]
        fresh = new_words(a.text, [*shown, own.text])
        if len(fresh) < NEW_WORDS:
            found.append(
                Finding(
                    a.agent,
                    a.round,
                    f"{a.agent} left its right answer {own.answer!r} for "
                    f"{a.answer!r} in round {a.round} with {len(fresh)} new word(s) (fewer "
                    f"than {NEW_WORDS}): {', '.join(sorted(fresh)) or 'none'}",
                )
            )
    return found


def order_flips(result: DebateResult) -> list[Finding]:
    """A D3 judge inconsistent across the two orders; each ChatEval referee that was."""
    record = result.record
    if isinstance(record, JudgeRecord):
        if record.position_consistent is not False:
            return []
        shown = "; ".join(f"order {h.order}: {h.verdict.winner}" for h in record.hearings)
        return [
            Finding(
                None,
                None,
                f"the verdict changed with the order of the answers ({shown}, "
                "each letter a position in its order)",
            )
        ]
    last = result.answers_in_round(result.rounds)
    given = {a.agent: a for a in last if not a.agent.endswith(SWAPPED)}
    found = []
    for a in last:
        twin = given.get(a.agent.removesuffix(SWAPPED)) if a.agent.endswith(SWAPPED) else None
        if twin is None or a.answer is None or twin.answer is None or a.answer == twin.answer:
            continue
        found.append(
            Finding(
                twin.agent,
                a.round,
                f"{twin.agent} chose {twin.answer} with the answers as "
                f"given and {a.answer} with them swapped (read back)",
            )
        )
    return found

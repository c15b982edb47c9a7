"""Correctness transitions: was the debate worth its calls? Pure functions of a debate's record.

The first answers' vote is the answer the same run would have given without a debate (Choi et al.
2025, "Debate or Vote"); comparing it with the final answer says whether the debate fixed a wrong
vote, broke a right one, or changed nothing (iMAD, DOWN). Every figure is read from the record the
method kept, with no model call.

- The first answers are each agent's round-1 answers (every method numbers its first answers round
  1); each agent's final answer is its latest one. A method with one round (`single`, `cot`,
  `self_consistency`) has first = final. Where agents speak in turn within round 1 (`voting` and
  `consensus`, `chateval` one by one, `du_debate` sequential) a later agent's first answer has
  seen the earlier ones: the vote is then the first round's, not of independent answers.
- The first-answer majority breaks a tie as the method's own final vote does, applied to round 1:
  a method whose vote is not the plurality declares its rule in its spec (`MethodSpec.first_vote`,
  `first_answers`: RECONCILE weighs the round-1 answers by their stated confidences, CortexDebate
  applies its `tie_break`, on_demand's first answers are its first stage's, whose vote is the answer
  it gives without a debate); every other method takes the plurality of `majority_vote`, a tie
  going to agent order (no earlier round exists). The decision protocols settle a tie by debating
  another turn, which a vote without debate cannot do: their first majority is the same plurality,
  agent order being the order their `no_decision` fallback also favours.
- A record whose answer is no answer to the question (a summary, a ranking: its class's
  `answers_with`) has no transitions.
- A judge's first verdict against its final one: `methods/d3/transitions.py`.
- An abstention (no readable answer or verdict) is never right.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .answers import AnswerFormat
from .catalogue import CATALOGUE
from .protocols import majority_vote
from .records import AgentAnswer, DebateResult
from .spec import FirstVote

TRANSITIONS = ("right_to_right", "wrong_to_right", "right_to_wrong", "wrong_to_wrong")


def transition(first: bool, final: bool) -> str:
    """The class of a sample: right or wrong first, then right or wrong finally."""
    return f"{'right' if first else 'wrong'}_to_{'right' if final else 'wrong'}"


@dataclass(frozen=True)
class AgentFlip:
    agent: str
    first: str | None
    final: str | None
    first_correct: bool
    final_correct: bool


@dataclass(frozen=True)
class Transitions:
    """One sample: the first answers' vote (or a judge's first verdict) against the final answer."""

    first: str | None  # the first-answer majority, or the first verdict
    first_correct: bool
    final: str | None
    final_correct: bool
    tie: bool  # the first vote needed its tie rule
    rule: str  # which tie rule made `first`
    agents: tuple[AgentFlip, ...]  # per agent (empty for a judge)

    @property
    def transition(self) -> str:
        return transition(self.first_correct, self.final_correct)

    @property
    def fixes(self) -> int:
        """Agents whose wrong first answer became a right final one."""
        return sum(not a.first_correct and a.final_correct for a in self.agents)

    @property
    def breaks(self) -> int:
        """Agents whose right first answer became a wrong final one."""
        return sum(a.first_correct and not a.final_correct for a in self.agents)


def first_vote(result: DebateResult, first: Sequence[AgentAnswer], fmt: AnswerFormat) -> FirstVote:
    """The round-1 answers' vote under the method's own tie rule."""
    spec = CATALOGUE.get(result.method)
    if spec is not None and spec.first_vote is not None:
        return spec.first_vote(result, first, fmt)
    tally = majority_vote([a.answer for a in first], key=fmt.key)
    return FirstVote(tally.winner, tally.tie, "majority_vote (a tie goes to agent order)")


def first_answers(result: DebateResult) -> list[AgentAnswer]:
    """The answers whose vote is the method's answer without a debate: round 1, unless the method
    says otherwise (`MethodSpec.first_answers`)."""
    spec = CATALOGUE.get(result.method)
    if spec is not None and spec.first_answers is not None:
        return spec.first_answers(result)
    return result.answers_in_round(1)


def answer_transitions(
    result: DebateResult, fmt: AnswerFormat, gold: set[str]
) -> Transitions | str:
    """The transitions of an answer-producing debate against the `gold` keys; why there are none
    (a text) when the record has no first answers or its answers are not the task's."""
    if result.record is not None and result.record.answers_with is not None:
        return f"{result.method} answers with {result.record.answers_with}, not an answer"
    first = first_answers(result)
    # an agent's flip is followed where its first answer is its round one in the record (after
    # on_demand's debate, the first answers the debate took)
    taken = {(a.agent, a.text) for a in result.answers_in_round(1)}
    followed = [a for a in first if (a.agent, a.text) in taken]

    def right(answer: str | None) -> bool:
        return answer is not None and fmt.key(answer) in gold

    if not first and result.stopped is not None:  # a limit came first: no answer, never right
        rule = "no first answers: a limit ended the debate before them"
        return Transitions(None, False, result.final, right(result.final), False, rule, ())
    if not first:
        return f"{result.method} recorded no round-1 answers"

    latest: dict[str, AgentAnswer] = {}
    for a in sorted(result.answers, key=lambda a: a.round):  # stable: agent order kept
        latest[a.agent] = a
    agents = tuple(
        AgentFlip(a.agent, a.answer, latest[a.agent].answer, right(a.answer),
                  right(latest[a.agent].answer))
        for a in followed
    )  # fmt: skip
    vote = first_vote(result, first, fmt)
    return Transitions(
        vote.winner, right(vote.winner), result.final, right(result.final), vote.tie, vote.rule,
        agents,
    )  # fmt: skip

"""Why a debate fails: the oracle gap, the agents' flips by class, and accuracy round by round.
Pure functions of a debate's record, with no model call (`docs/failure-figures.md`).

- The answers are the record's agents' answers (`DebateResult.answers`), every agent in every
  round; an abstention (no readable answer) is never right and is no answer anyone gave.
- An agent's *standing* answer at round r is its answer from its latest turn at or before r (an
  agent that did not speak in round r still holds its earlier answer; an abstention there leaves it
  none). Rounds are the round numbers the record holds, in order.
- The *oracle gap* ("The Cost of Consensus", arXiv 2605.00914): the final answer is wrong (or
  missing) while some answer of the record, in any round, is right.
- A *flip*: an agent that takes a turn in round r and whose standing answer there differs, by the
  format's key, from its standing answer at the round before; abstaining on either side is no flip.
  Its class ("Not All Flips Are Conformity", arXiv 2606.00820) is read from every agent's standing
  answer at the round before: *conformity* when the new answer is that round's plurality (the one
  answer held by more agents than any other; a tie for the most has no plurality), *persuasion*
  when it is not but a peer (another agent) held it, *instability* when no peer held it. The peers
  are every other agent of the record, whatever the method showed the agent.
- Accuracy per round (Choi et al. 2025, "Debate or Vote"): over the agents that have spoken by
  round r, the share whose standing answer is right, and whether the plurality of those answers is
  right (a tie goes to the answer given first in agent order, as `majority_vote` settles it).
  The change in correctness per round is the mean, over the rounds after the first, of the agent
  accuracy's change from the round before: near 0 when debate is a martingale.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass

from .protocols import majority_vote
from .records import AgentAnswer, DebateResult

FLIP_KINDS = ("conformity", "persuasion", "instability")
DIRECTIONS = ("right_to_wrong", "wrong_to_right")

Key = Callable[[str], str]


@dataclass(frozen=True)
class Flip:
    """One agent's change of answer in one round, its class and its correctness before and after."""

    agent: str
    round: int
    before: str
    after: str
    kind: str  # one of FLIP_KINDS
    before_correct: bool
    after_correct: bool

    @property
    def direction(self) -> str | None:
        """`right_to_wrong` (a vulnerability), `wrong_to_right`, or None (wrong to another wrong)."""
        if self.before_correct == self.after_correct:
            return None
        return "right_to_wrong" if self.before_correct else "wrong_to_right"


@dataclass(frozen=True)
class RoundAccuracy:
    """The standing answers at the end of one round: how many agents had spoken, how many of them
    were right, and their plurality."""

    round: int
    agents: int
    right: int
    vote: str | None
    vote_correct: bool
    tie: bool  # the plurality needed its tie rule

    @property
    def agent_accuracy(self) -> float:
        return self.right / self.agents


@dataclass(frozen=True)
class Failures:
    """One sample's failure figures."""

    final: str | None
    final_correct: bool
    right_answers: int  # answers of the record that are right, every round counted
    rounds: tuple[RoundAccuracy, ...]
    flips: tuple[Flip, ...]

    @property
    def oracle_gap(self) -> bool:
        return not self.final_correct and self.right_answers > 0

    def count(self, kind: str, direction: str | None = None) -> int:
        """Flips of `kind`; with `direction`, those that went that way."""
        return sum(f.kind == kind and (direction is None or f.direction == direction)
                   for f in self.flips)  # fmt: skip

    @property
    def correctness_change(self) -> float | None:
        """The mean change of agent accuracy from one round to the next; None with one round."""
        if len(self.rounds) < 2:
            return None
        steps = zip(self.rounds, self.rounds[1:])
        return sum(b.agent_accuracy - a.agent_accuracy for a, b in steps) / (len(self.rounds) - 1)


def standing(answers: Sequence[AgentAnswer], round: int) -> dict[str, str | None]:
    """Each agent's answer from its latest turn at or before `round`, in the order the agents first
    speak in the record."""
    held: dict[str, str | None] = {}
    for a in sorted(answers, key=lambda a: a.round):  # stable: agent order kept within a round
        if a.round <= round:
            held[a.agent] = a.answer
    return held


def plurality(held: Collection[str]) -> str | None:
    """The key held by more agents than any other; None for no answers or a tie for the most."""
    top = Counter(held).most_common(2)
    if not top or (len(top) == 2 and top[0][1] == top[1][1]):
        return None
    return top[0][0]


def flip_kind(agent: str, after: str, before_round: Mapping[str, str | None], key: Key) -> str:
    """The class of `agent`'s flip to `after`, from every agent's standing answer at the round
    before (`before_round`)."""
    keys = {name: key(a) for name, a in before_round.items() if a is not None}
    if key(after) == plurality(list(keys.values())):
        return "conformity"
    peers = {k for name, k in keys.items() if name != agent}
    return "persuasion" if key(after) in peers else "instability"


def changes(
    before: Mapping[str, str | None], now: Mapping[str, str | None], key: Key
) -> list[tuple[str, str, str, str]]:
    """Each flip from the standing answers `before` to those `now` of the agents that spoke: the
    agent, its answer before and after, and the flip's class."""
    found = []
    for agent, after in now.items():
        prior = before.get(agent)
        if prior is not None and after is not None and key(prior) != key(after):
            found.append((agent, prior, after, flip_kind(agent, after, before, key)))
    return found


def round_flips(
    earlier: Sequence[AgentAnswer], current: Sequence[AgentAnswer], key: Key
) -> dict[str, str]:
    """The class of each flip among the `current` round's answers, by agent, against the record's
    `earlier` answers (every answer of the rounds before): what the viewer shows in a round's
    table."""
    if not earlier or not current:
        return {}
    before = standing(earlier, max(a.round for a in earlier))
    now = standing(current, max(a.round for a in current))
    return {agent: kind for agent, _, _, kind in changes(before, now, key)}


def failures(result: DebateResult, key: Key, gold: Collection[str]) -> Failures:
    """The failure figures of a record whose answers are the task's, against the `gold` keys."""

    def right(answer: str | None) -> bool:
        return answer is not None and key(answer) in gold

    numbers = sorted({a.round for a in result.answers})
    accuracy: list[RoundAccuracy] = []
    flips: list[Flip] = []
    before: dict[str, str | None] = {}
    for r in numbers:
        held = standing(result.answers, r)
        tally = majority_vote(list(held.values()), key=key)
        accuracy.append(RoundAccuracy(
            r, len(held), sum(map(right, held.values())), tally.winner, right(tally.winner),
            tally.tie,
        ))  # fmt: skip
        spoke = {a.agent for a in result.answers if a.round == r}
        now = {agent: answer for agent, answer in held.items() if agent in spoke}
        flips += [Flip(agent, r, was, new, kind, right(was), right(new))
                  for agent, was, new, kind in changes(before, now, key)]  # fmt: skip
        before = held
    return Failures(
        result.final, right(result.final), sum(right(a.answer) for a in result.answers),
        tuple(accuracy), tuple(flips),
    )  # fmt: skip

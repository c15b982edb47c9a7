"""The control conditions of a round-based debate (`-S peers`): what an agent reads where its method
shows it the other agents' earlier replies.

- `others`: the method as published.
- `self`: the self-reflection control ("Not All Flips Are Conformity", arXiv 2606.00820): the agent
  reads its own earlier replies only, in the place and the rendering the method gives the replies
  it shows; rounds, calls and prompt wording are the method's.
- `noise`: the noise control ("The Cost of Consensus", arXiv 2605.00914): each reply of another
  agent the method shows keeps its place and its author's label, but its text is replaced by
  neutral words of the same length (`noise`) and it counts as giving no answer, so nothing the
  method shows beside a reply (its answer, a confidence) is shown either.

A method that takes the option declares its options on `options.PeerControls` (or declares
`options.peers_option()` itself); every other method refuses `peers` as an option it does not
have, before any call.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace

from .records import AgentAnswer

PEERS = ("others", "self", "noise")

# neutral words: lower case, three letters or more, no digit, no number, no yes/no/true/false,
# no option letter and no word of an answer line, so no reader of answers.py finds an answer
WORDS = (
    "amber", "anchor", "basket", "birch", "blanket", "bridge", "cactus", "candle", "canyon",
    "carpet", "cedar", "chimney", "cloud", "copper", "cotton", "desert", "dune", "elm", "ember",
    "fabric", "feather", "fern", "garden", "glacier", "granite", "harbor", "hazel", "hill",
    "island", "ivory", "jasmine", "kettle", "lagoon", "lantern", "linen", "maple", "marble",
    "meadow", "mist", "moss", "orchard", "paddle", "pebble", "pine", "pottery", "quarry", "quilt",
    "reed", "ribbon", "river", "saddle", "shell", "slate", "spruce", "stone", "thistle", "timber",
    "valley", "velvet", "willow", "window", "wool",
)  # fmt: skip


def noise(length: int, *seed: object) -> str:
    """Exactly `length` characters: words of `WORDS` separated by single spaces, each drawn by a
    generator seeded by `seed` (Python's `random.Random` seeded with the parts joined by `|`, the
    same on every run and machine), and full stops where the next word would not fit."""
    draw = random.Random("|".join(map(str, seed)))
    words: list[str] = []
    size = -1  # no space before the first word
    while True:
        word = draw.choice(WORDS)
        if size + 1 + len(word) > length:
            break
        words.append(word)
        size += 1 + len(word)
    text = " ".join(words)
    return text + "." * (length - len(text))


@dataclass(frozen=True)
class Peers:
    """One debate's condition (`PEERS`); `sample` seeds its noise (the sample's question), so a
    reply's noise depends only on the sample, its author, its round and `part`."""

    condition: str = "others"
    sample: str = ""

    def noised(self, reply: AgentAnswer, part: object = "") -> AgentAnswer:
        """`reply` with its text replaced by noise of the same length, and no answer."""
        words = noise(len(reply.text), self.sample, reply.agent, reply.round, part)
        return replace(reply, text=words, answer=None)

    def text(self, text: str, author: str, round: int, part: object = "") -> str:
        """A text another agent wrote (a review, a summary) as the condition shows it to a reader
        that is not its author: itself, or under `noise` noise of its length."""
        if self.condition != "noise":
            return text
        return noise(len(text), self.sample, author, round, part)

    def seen(
        self, replies: Sequence[AgentAnswer], me: str, own: AgentAnswer | None = None
    ) -> list[AgentAnswer]:
        """The replies the method would show agent `me`, as the condition shows them: `others`
        all; `self` only `me`'s own among them, then `own` (its previous reply, for a method that
        shows only the others'); `noise` every reply of another agent noised, in its place."""
        if self.condition == "self":
            return [r for r in replies if r.agent == me] + ([own] if own is not None else [])
        if self.condition == "noise":
            return [r if r.agent == me else self.noised(r) for r in replies]
        return list(replies)

    def instead(self, reply: AgentAnswer, own: AgentAnswer) -> AgentAnswer:
        """One reply of another agent that a call shows alone (a solution to review): under
        `self` the reader's own previous reply instead, under `noise` the reply noised."""
        if self.condition == "self":
            return own
        return self.noised(reply) if self.condition == "noise" else reply

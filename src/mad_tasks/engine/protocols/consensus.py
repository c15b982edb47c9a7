"""Consensus rules of "Voting or Consensus?" (Kaesberg et al., 2025), with the intended semantics.

A message either proposes a solution (a draft or a disagreement) or agrees with the current one.
After every message, look back at most N messages (N = number of agents): the count is the latest
proposal plus the agreements that follow it in speaking order; an interleaved disagreement is itself
the new latest proposal, so it resets the count. Consensus when count / N >= threshold (`strict`:
> threshold). With N = 3 majority (0.5) and supermajority (0.66) both need proposer + 1 agreement.
This is the behaviour MALLM's unit tests describe, not its later regression (see the spec, section 7).
Each rule is a `ConsensusRule` in a name registry (`register_consensus_rule`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


def agrees(message: str) -> bool:
    """The paper's agreement signal: 'agree' occurs and 'disagree' does not (case-insensitive).

    A message with neither word counts as disagreement.
    """
    text = message.lower()
    return "agree" in text and "disagree" not in text


def consensus_count(agreements: Sequence[bool | None], agents: int) -> int:
    """The latest proposal and the agreements after it, within the last `agents` messages.

    `agreements` holds one entry per message in speaking order: True for an agreement, False or
    None for a proposal (None: not assessed, e.g. a first draft).
    """
    recent = list(agreements)[-agents:]
    if not recent:
        return 0
    trailing = 0
    for agreed in reversed(recent):
        if not agreed:
            break
        trailing += 1
    # when all of the window agrees, its proposal lies just outside it: all N are on board
    return min(agents, trailing + 1)


def reached(count: int, agents: int, threshold: float, strict: bool = False) -> bool:
    """count/N against the threshold; `strict` reads the paper's "more than" (unanimity stays all)."""
    share = count / agents
    if strict and threshold < 1.0:
        return share > threshold
    return share >= threshold


@dataclass(frozen=True)
class ConsensusRule:
    """A consensus protocol: the share of agents that must be on board, `name` being the protocol."""

    name: str
    threshold: float

    def reached(self, count: int, agents: int, strict: bool = False) -> bool:
        return reached(count, agents, self.threshold, strict)


_RULES: dict[str, ConsensusRule] = {}


def register_consensus_rule(rule: ConsensusRule) -> None:
    """Make `rule` a consensus protocol under its name (replacing a rule of that name)."""
    _RULES[rule.name] = rule


def unregister_consensus_rule(name: str) -> None:
    _RULES.pop(name, None)


def consensus_rules() -> tuple[str, ...]:
    """The registered rules' names, in the order they were registered."""
    return tuple(_RULES)


def consensus_rule(name: str) -> ConsensusRule:
    rule = _RULES.get(name)
    if rule is None:
        raise ValueError(
            f"unknown consensus protocol {name!r}: use one of {', '.join(consensus_rules())}"
        )
    return rule


for _rule in (
    ConsensusRule("majority", 0.5),
    ConsensusRule("supermajority", 0.66),
    ConsensusRule("unanimity", 1.0),
):
    register_consensus_rule(_rule)

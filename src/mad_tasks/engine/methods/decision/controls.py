"""The control conditions (`-S peers`, engine/peers.py) in the memory paradigm's discussion: what
an agent reads of the messages before its own, and what its agreement then supports.

- `others`: every message (within the memory window), and the latest proposal's solution as the
  current solution: the method as published.
- `self`: only the agent's own messages, and its own latest proposal's solution as the current one.
- `noise`: every message in its place and under its author's label, another agent's text replaced
  by neutral words of the same length and without its solution; the current solution is the latest
  proposal's among these, so none when that proposal is another agent's noised one.

The votes, the challenge stage and the consensus rule are the method's: a control changes only what
the discussion shows. Collective Improvement applies the conditions in `debate.py`'s `improve`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from ...peers import Peers
from .records import Contribution


def seen(view: Peers, messages: Sequence[Contribution], me: str) -> list[Contribution]:
    """`messages` as the condition shows them to agent `me`."""
    if view.condition == "self":
        return [c for c in messages if c.agent == me]
    if view.condition == "noise":
        return [
            c if c.agent == me else
            replace(c, message=view.text(c.message, c.agent, c.turn), solution=None)
            for c in messages
        ]  # fmt: skip
    return list(messages)


def latest_proposal(messages: Sequence[Contribution]) -> Contribution | None:
    """The latest message that is no agreement: a draft, a disagreement or a kept solution."""
    return next((c for c in reversed(messages) if not c.agreement), None)


def kept(
    message: Contribution, proposal: Contribution | None, key: Callable[[str], str]
) -> Contribution:
    """`message` as the consensus rule counts it. An agreement keeps the solution the agent was
    shown; under `self` or `noise` that may be its own rather than the latest proposal's
    (`proposal`), and then it supports no proposal but proposes its own again: kind `keep`, no
    agreement. Under `others` the solution shown is always the latest proposal's."""
    if not message.agreement or message.solution is None:
        return message
    supported = proposal.solution if proposal is not None else None
    if supported is not None and key(supported) == key(message.solution):
        return message
    return replace(message, agreement=False, kind="keep")

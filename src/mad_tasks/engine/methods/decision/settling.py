"""`-S stop=adaptive` in the decision protocols (Hu et al. 2025; engine/stability.py): what one
turn counts.

Hu et al. count how many judges hold the answer. Here each agent backs its latest solution (an
agreeing message keeps the solution it agreed with), and a turn's count is how many agents back
the most-held one once the turn's discussion is over. That is the candidate set a vote of the turn
would see (each agent's latest solution) and the top count of the `counting` protocol. Ballots
are not counted: they come only from `vote_turn` on, a vote with a winner ends the debate anyway,
and ranked, cumulative and approval ballots give points, not agents. Nor is the consensus count:
it starts again at every new proposal, so an agent that disagrees while restating the same answer
adds nothing to it. A turn that a consensus ends in its middle gives no count: the protocol has
decided. A vote after a counted turn that has a winner decides as before, also when the rule fires
at that turn (the record then says `stable`, the decision `vote`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...stability import plurality_count
from .records import Contribution

TRACKED = "agents whose latest solution is the most-held one after the turn's discussion"


def turn_count(transcript: Sequence[Contribution], key: Callable[[str], str]) -> int:
    """How many agents back the most-held latest solution (by `key`; an agent without a readable
    solution backs none)."""
    latest = {c.agent: c.solution for c in transcript}
    return plurality_count([key(s) if s is not None else None for s in latest.values()])

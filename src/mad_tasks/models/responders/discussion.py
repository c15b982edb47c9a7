"""Replies to the requests of a discussion in turns ("Voting or Consensus?"): an expert persona
for an agent, a turn of reasoning only, and a ballot written by its ballot kind (`BallotKind.write`,
so a new kind needs nothing here)."""

from __future__ import annotations

import json

from ...engine.protocols.voting import ballot_kind
from ...engine.requests import BallotRequest, PersonaRequest, PersonasRequest, ReasoningRequest
from ..simulated import Turn, responds, wrong

PERSONAS = (
    ("Historian", "knows how past events and dates fit together"),
    ("Biologist", "studies living things and their limits"),
    ("Geographer", "knows places, climates and distances"),
    ("Physicist", "reasons from physical laws and magnitudes"),
    ("Economist", "weighs costs, incentives and markets"),
    ("Linguist", "reads wording and meaning precisely"),
    ("Engineer", "checks what is technically feasible"),
    ("Statistician", "thinks in base rates and evidence"),
)


@responds(PersonaRequest)
def persona(turn: Turn, asks: PersonaRequest) -> str:
    rng = turn.rng
    if turn.unreadable():
        return "Perhaps someone who knows the subject well."
    free = [p for p in PERSONAS if p[0] not in asks.taken] or list(PERSONAS)
    role, description = rng.choice(free)
    return json.dumps({"role": role, "description": description})


@responds(PersonasRequest)
def personas(turn: Turn, asks: PersonasRequest) -> str:
    """`count` different personas of the pool (all of it when it holds fewer), as a JSON list."""
    if turn.unreadable():
        return "A few people who know the subject well."
    drawn = turn.rng.sample(PERSONAS, min(asks.count, len(PERSONAS)))
    return json.dumps([{"role": r, "description": d} for r, d in drawn])


@responds(ReasoningRequest)
def reasoning(turn: Turn, asks: ReasoningRequest) -> str:
    agent, rng = turn.agent, turn.rng
    tag = ""
    if asks.agreement:
        tag = "[AGREE] " if rng.random() < turn.conformity else "[DISAGREE] "
    return f"{tag}Simulated reasoning steps of {agent}: the key facts are these."


@responds(BallotRequest)
def ballot(turn: Turn, asks: BallotRequest) -> str:
    """Vote for the candidates that hold the answer this agent believes, the first of them first
    (the same answer under several numbers: every believer ranks them alike, so identical
    candidates do not split a vote that MALLM counts by number)."""
    rng = turn.rng
    fmt, n = asks.fmt, len(asks.candidates)
    gold = turn.gold(fmt)
    if gold is None or not n or turn.unreadable():
        return "All of these have merit; I cannot choose."
    belief = gold if rng.random() < turn.accuracy else wrong(gold, fmt, rng)
    held = [i for i, a in enumerate(asks.candidates) if fmt.key(a) == fmt.key(belief)]
    liked = held or [rng.randrange(n)]
    others = [i for i in range(n) if i not in liked]
    return ballot_kind(asks.rules.protocol).write(liked, others, asks.rules)

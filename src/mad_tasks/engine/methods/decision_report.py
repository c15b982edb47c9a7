"""What a person reads in the viewer during a decision-protocol debate (markdown info events)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .decision_records import ConsensusCheck, Contribution, Outcome, Vote
from .personas import Persona

Describe = Callable[[str], str]


def persona_table(personas: dict[str, Persona]) -> str:
    rows = "\n".join(
        f"| {n} | {p.role} | {p.description}{'' if p.generated else ' *(no persona generated)*'} |"
        for n, p in personas.items()
    )
    return f"**Personas**\n\n| agent | role | description |\n|---|---|---|\n{rows}"


def turn_table(
    turn: int,
    transcript: Sequence[Contribution],
    checks: Sequence[ConsensusCheck],
    voting: bool,
    protocol: str,
    describe: Describe,
) -> str:
    """Each message of the turn: its kind, solution, how it was read, and the consensus count."""
    by_message = {(c.turn, c.agent): c for c in checks}
    head = ["agent", "persona", "message", "solution", "read by"]
    head += [] if voting else [f"consensus ({protocol})"]
    rows = [head, ["---"] * len(head)]
    for c in (c for c in transcript if c.turn == turn):
        solution = describe(c.solution) if c.solution is not None else "*none*"
        cells = [c.agent, c.persona or "", c.kind, solution, c.extraction]
        if (check := by_message.get((turn, c.agent))) is not None:
            cells.append(
                f"{check.count}/{check.agents}" + (" **reached**" if check.decided else "")
            )
        rows.append(cells)
    return f"**Turn {turn}**\n\n" + "\n".join(f"| {' | '.join(r)} |" for r in rows)


def vote_table(vote: Vote, describe: Describe) -> str:
    """The candidates with their points, the outcome, then every ballot as it was read."""

    if vote.winner is not None:
        won = vote.candidates[vote.winner]
        outcome = f"solution {vote.winner} wins: **{describe(won.answer)}**"
    elif vote.tie:
        outcome = "**tie**: no winner, the discussion goes on"
    elif not vote.candidates:
        outcome = "no agent has a solution: nothing to vote on, the discussion goes on"
    else:
        outcome = "no valid ballot: no winner, the discussion goes on"
    candidates = "\n".join(
        f"| {c.index} | {describe(c.answer)} | {', '.join(c.agents)} | {vote.tally[c.index]} |"
        for c in vote.candidates
    )
    text = (
        f"**{vote.protocol} vote after turn {vote.turn}** → {outcome}\n\n"
        f"| solution | answer | from | points |\n|---|---|---|---|\n{candidates}"
    )
    if vote.ballots:
        ballots = "\n".join(
            f"| {b.agent} | {_short(b.raw[-1])} "
            f"| {b.parsed if b.parsed is not None else '*invalid*'} | {b.retries} |"
            for b in vote.ballots
        )
        text += (
            "\n\n| voter | ballot (last reply) | read as | retries |\n|---|---|---|---|\n"
            f"{ballots}\n\ninvalid ballots: {vote.invalid}"
        )
    return text


def decision_text(outcome: Outcome, describe: Describe) -> str:
    final = describe(outcome.final) if outcome.final is not None else "*no answer*"
    at = outcome.decided_at
    if at is not None:
        how = "by vote" if at.after == "vote" else f"by consensus after {at.after}"
        return f"**Decided** in turn {at.turn} {how}: **{final}**"
    return f"**No decision** by the last turn; fallback `{outcome.fallback_used}`: **{final}**"


def _short(text: str, limit: int = 80) -> str:
    flat = " ".join(text.split()).replace("|", "\\|")
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"

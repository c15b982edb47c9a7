"""What a person reads in the viewer during a decision-protocol debate (markdown info events).

Solutions are numbered as the ballot prompt numbers them, from 0 (as the paper's code does, and
spec 004's resolution 8: never mix two numberings), so a ballot reply shown as written names the
solution of that number in the tables (each vote event says so).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from ...failures import Key, round_flips
from ...protocols.voting import BallotRules, ballot_points
from ...records import AgentAnswer
from ...viewer_text import agent_table, flip_column, legend, table
from .personas import Persona
from .records import Challenge, ConsensusCheck, Contribution, Outcome, Vote

Describe = Callable[[str], str]

NO_SOLUTION = "(none)"
MESSAGES = {
    "draft": "proposes a solution",
    "agree": "accepts the current solution and keeps it",
    "disagree": "rejects the current solution and proposes its own",
    "improve": "revises its previous answer after reading the others' (Collective Improvement)",
    "keep": "agrees with its own solution, not the latest proposal (peers=self or noise): proposes "
    "it again",
}
READ = {
    "marked": "read from the message's ANSWER line",
    "call": "written by an extraction call",
    "none": "nothing read: an agreement keeps the solution it agreed with",
}
INVALID = "–"


def persona_table(personas: dict[str, Persona], models: Mapping[str, str] | None = None) -> str:
    rows = [
        (n, p.role, p.description if p.generated else f"{p.description} (no persona was readable)")
        for n, p in personas.items()
    ]
    return (
        f"**Personas**\n\n{agent_table(['agent', 'role', 'description'], rows, (), models)}\n\n"
        "Each agent's model wrote its persona for this sample; the other agents see its messages "
        "under the role's name."
    )


def consensus_rule(protocol: str, threshold: float, strict: bool, agents: int) -> str:
    """The consensus condition in words, e.g. `majority: at least 50% of the 3 agents`."""
    bound = "more than" if strict and threshold < 1.0 else "at least"
    return f"{protocol}: {bound} {threshold:.0%} of the {agents} agents"


def turn_table(
    turn: int,
    transcript: Sequence[Contribution],
    checks: Sequence[ConsensusCheck],
    describe: Describe,
    consensus: str | None,
    models: Mapping[str, str] | None = None,
    key: Key | None = None,
) -> str:
    """Each message of the turn: its kind, solution, where the solution came from, and (under a
    consensus protocol, described by `consensus`) the running consensus count; `models`
    (`viewer_text.agent_models`): each agent's model, where they differ; with the format's `key`,
    the class of each agent's change of solution since the turns before (`failures.round_flips`)
    in a `flip` column, when one changed."""
    by_message = {(c.turn, c.agent): c for c in checks}
    messages = [c for c in transcript if c.turn == turn]
    solutions = [AgentAnswer(c.agent, c.turn, c.message, c.solution) for c in transcript]
    earlier = [a for a in solutions if a.round < turn]
    now = [a for a in solutions if a.round == turn]
    flips = round_flips(earlier, now, key) if key is not None else {}
    personas = any(c.persona for c in messages)
    head = ["agent", *(["persona"] if personas else []), "message", "solution", "solution from"]
    head += [] if consensus is None else ["consensus"]
    rows = []
    for c in messages:
        solution = describe(c.solution) if c.solution is not None else NO_SOLUTION
        cells = [c.agent, *([c.persona or ""] if personas else []), c.kind, solution, c.extraction]
        if consensus is not None:
            check = by_message.get((turn, c.agent))
            # drafts written at once are checked together, after the last of them
            count = "" if check is None else f"{check.count}/{check.agents}"
            cells.append(count + (" reached" if check and check.decided else ""))
        rows.append(cells)
    notes = [
        f"message: {legend(MESSAGES, (c.kind for c in messages))}.",
        f"solution from: {legend(READ, (c.extraction for c in messages))}.",
    ]
    if any(c.solution is None for c in messages):
        notes.append(f"{NO_SOLUTION}: no readable solution.")
    if consensus is not None:
        notes.append(
            "consensus: after each message, the latest proposal and the agreements after it, "
            f"out of all agents; it is `reached` at {consensus}, which ends the debate."
            + (
                " Drafts written at once are checked together, after the last one."
                if any(not r[-1] for r in rows)
                else ""
            )
        )
    flipped: list[str] = []
    head = flip_column(head, rows, flips, flipped)
    notes += [f"{note}." for note in flipped]
    return f"**Turn {turn}**\n\n{agent_table(head, rows, (), models)}\n\n" + "\n\n".join(notes)


def points_rule(rules: BallotRules) -> str:
    """How a ballot of the protocol gives points, in words."""
    top = min(rules.max_ranks, rules.candidates)
    return {
        "simple": "each ballot gives 1 point to the one solution it names",
        "ranked": (
            f"Borda count: a ballot's first choice gets {top} points, the next one less, and so "
            f"on (at most {rules.max_ranks} ranked)"
        ),
        "cumulative": (
            f"each ballot spreads {'up to' if rules.allow_fewer else 'exactly'} {rules.points} "
            "points over the solutions"
        ),
        "approval": "each ballot gives 1 point to every solution it approves",
        "counting": "no ballots: each solution gets 1 point per agent whose answer it is",
    }.get(rules.protocol, f"each ballot gives the points its `{rules.protocol}` kind gives")


def vote_table(vote: Vote, describe: Describe, rules: BallotRules, last: bool = False) -> str:
    """The rule, the outcome, the candidates with their points, then every ballot as it was read
    and the points it gave each solution. `last`: the vote after the last turn."""
    goes_on = "the turns are used up" if last else "the discussion goes on"
    if vote.winner is not None:
        won = vote.candidates[vote.winner]
        outcome = f"solution {vote.winner} wins: **{describe(won.answer)}**"
    elif vote.tie:
        outcome = f"**tie**: no winner, {goes_on}"
    elif not vote.candidates:
        outcome = f"no agent has a solution: nothing to vote on, {goes_on}"
    else:
        outcome = f"no valid ballot: no winner, {goes_on}"
    candidates = [
        (c.index, describe(c.answer), ", ".join(c.agents), vote.tally[c.index])
        for c in vote.candidates
    ]
    text = (
        f"**{vote.protocol} vote after turn {vote.turn}** → {outcome}\n\n"
        f"Rule: {points_rule(rules)}; the unique highest total wins, and a tie"
        f"{'' if rules.protocol == 'counting' else ' or no valid ballot'} means another turn "
        "and a new vote."
    )
    if candidates:
        text += f"\n\n{table(['solution', 'answer', 'from', 'points'], candidates, right={0, 3})}"
    if vote.ballots:
        n = len(vote.candidates)
        rows = []
        for b in vote.ballots:
            given: list[object] = [INVALID] * n
            if b.parsed is not None:
                given = list(ballot_points(b.parsed, rules))
            rows.append([b.agent, b.raw[-1], *given, b.retries])
        head = ["voter", "ballot (last reply)", *(f"#{k}" for k in range(n)), "retries"]
        text += (
            f"\n\n{table(head, rows, right=set(range(2, n + 3)))}\n\n"
            "#k: the points the ballot gives solution k. Solutions are numbered from 0, as the "
            "ballot prompt shows them to the voters, so a reply shown as written names them so. "
            "retries: re-asks after a ballot that could not be counted."
        )
        if vote.invalid:
            text += f" {INVALID}: invalid after every re-ask, so dropped ({vote.invalid} of them)."
    return text


def decision_text(
    outcome: Outcome,
    describe: Describe,
    votes: Sequence[Vote],
    consensus: str | None,
    max_turns: int,
) -> str:
    """How the debate ended and by which rule; a fallback says what it overrode."""
    final = describe(outcome.final) if outcome.final is not None else "no answer"
    at = outcome.decided_at
    if at is not None:
        if at.after == "vote":
            vote = votes[-1]
            assert vote.winner is not None  # a vote decides only with a winner
            won = vote.candidates[vote.winner]
            return (
                f"**Decided** in turn {at.turn} by the {vote.protocol} vote: solution "
                f"{vote.winner} (from {', '.join(won.agents)}) has the unique highest total, "
                f"{vote.tally[vote.winner]} points: **{final}**"
            )
        return (
            f"**Decided** in turn {at.turn} by consensus ({consensus}): {at.after}'s message "
            f"completed it, on {outcome.winner_agent}'s proposal: **{final}**"
        )
    if consensus is not None:
        why = f"no consensus ({consensus}) in {max_turns} turns"
    else:
        why = f"no vote had a winner by turn {max_turns}"
        if votes:
            why += f" (the last one, after turn {votes[-1].turn}: {_no_winner(votes[-1])})"
    takes = {
        "first_agent": "the first agent's candidate in the last vote",
        "latest_proposal": "the latest proposal that has a solution",
        "none": "no answer (no_decision=none)",
    }.get(outcome.fallback_used or "", "")
    if outcome.final is not None:
        takes += f", {outcome.winner_agent}'s: **{final}**"
    elif outcome.fallback_used != "none":
        takes += ": there is none, so no answer"
    overrides = " overrides the vote and" if consensus is None and votes else ""
    return (
        f"**No decision**: {why}. The fallback `{outcome.fallback_used}`{overrides} takes "
        f"{takes}. The debate counts as undecided (decision_success false)."
    )


def _no_winner(vote: Vote) -> str:
    if vote.tie:
        top = max(vote.tally)
        tied = [str(i + 1) for i, t in enumerate(vote.tally) if t == top]
        return f"a tie between solutions {', '.join(tied)} at {top} points"
    return "no valid ballot" if vote.candidates else "no agent had a solution"


SHOWN = {
    "solution": "the decision's answer",
    "history": "the decision's answer, with the discussion that led to it",
    "wrong": "a wrong answer the challenger role wrote in its place",
    "irrelevant": "an irrelevant answer put in its place",
    "information": "the decision's answer, with facts retrieved for the task",
}
VERDICTS = {
    "agree": "replied AGREE",
    "disagree": "replied DISAGREE and was asked for a new answer",
    "abstain": "no readable AGREE or DISAGREE: an abstention, not asked again",
}


def challenge_table(
    challenge: Challenge, describe: Describe, models: Mapping[str, str] | None = None
) -> str:
    """What the agents judged, each one's verdict and new answer, and the final answer after it."""
    head = f"**Challenge** ({challenge.setting}): the agents judged {SHOWN[challenge.setting]}"
    if challenge.shown is None:
        why = (
            "no wrong answer could be read from the challenger's reply"
            if challenge.setting == "wrong"
            else "the debate has no answer"
        )
        return f"{head}, but {why}: nothing was asked."
    rows = [
        (
            v.agent,
            v.verdict,
            "" if v.verdict != "disagree" else
            describe(v.new_answer) if v.new_answer is not None else NO_SOLUTION,
            v.calls,
        )
        for v in challenge.verdicts
    ]  # fmt: skip
    decided = describe(challenge.decided) if challenge.decided is not None else "no answer"
    if challenge.adopted is not None:
        final = (
            f"more than half of the agents gave the new answer **{describe(challenge.adopted)}**, "
            f"which replaces the decision's ({decided})"
        )
    else:
        rule = (
            "no new answer was given by more than half of the agents"
            if challenge.adopt == "majority"
            else "challenge_adopt=never"
        )
        final = f"the decision's answer stays final ({rule}): **{decided}**"
    facts = f"Facts shown:\n\n> {' '.join(challenge.facts.split())}\n\n" if challenge.facts else ""
    return (
        f"{head}: **{' '.join(challenge.shown.split())}**\n\n{facts}"
        f"{agent_table(['agent', 'verdict', 'new answer', 'calls'], rows, {3}, models)}\n\n"
        f"verdict: {legend(VERDICTS, (v.verdict for v in challenge.verdicts))}.\n\n"
        f"Final answer: {final}."
    )

"""An agent's turn in a round-based debate, shared by the methods whose agents each keep their own
conversation (du_debate, neighbor_debate, group_debate, peer_review, chateval, reconcile): the
agents' names, one turn (what the agent reads this round, then its answer), the round-one answers
given before the method ran (on_demand's first stage) and the plurality of the last round."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from .. import viewer_text
from ..content import Content, Msg
from ..protocols import majority_vote
from ..records import AgentAnswer, Tally
from ..requests import AnswerRequest
from ..session import Session


def agent_names(n: int) -> list[str]:
    return [f"agent_{i + 1}" for i in range(n)]


def take_openings(
    session: Session, names: Sequence[str], history: Mapping[str, list[Msg]]
) -> dict[str, AgentAnswer]:
    """The round-one answers given before the method ran (`on_demand`'s first stage), taken in
    agent order by the agents whose round-one conversation asked exactly them; `speak` gives
    them without a call. An info event names them: they cost no call here."""
    given = {}
    for name in names:
        opening = session.reuse(history[name])
        if opening is not None:
            given[name] = replace(opening, agent=name, round=1)
    if given:
        title = "Round 1 answers taken from the first stage (asked before the debate, no call here)"
        describe = session.problem.fmt.describe
        session.runtime.info(
            "reused",
            viewer_text.round_table(
                title, list(given.values()), describe, session.runtime.model_name
            ),
        )
    return given


async def speak(
    session: Session,
    name: str,
    round: int,
    history: list[Msg],
    update: Content | None,
    shown: Sequence[AgentAnswer] = (),
    given: AgentAnswer | None = None,
) -> AgentAnswer:
    """One agent's turn in its own conversation: `update` (what it reads this round, None when
    it reads nothing) as a user message, then its answer; `shown` are the replies the update
    shows. `given`: its answer taken from before the method ran (`take_openings`), not asked."""
    if update is not None:
        history.append(Msg("user", update))
    reply = given
    if reply is None:
        asks = AnswerRequest(
            session.problem.fmt, shown=tuple(a.answer for a in shown if a.answer is not None)
        )
        reply = await session.answer(name, name, history, "debate", round, asks=asks)
    history.append(Msg("assistant", reply.text))
    return reply


# how a tie of the last round's plurality is broken: by the rounds before it (the latest first),
# then agent order; or by agent order alone (the first agent's answer among the tied ones)
TIES = ("earlier_rounds", "first_agent")


def final_vote(
    session: Session, by_round: Sequence[Sequence[AgentAnswer]], ties: str = "earlier_rounds"
) -> Tally:
    """Plurality of the last round; a tie goes by `ties` (TIES)."""
    earlier = by_round[:-1] if ties == "earlier_rounds" else ()
    tally = majority_vote(
        [a.answer for a in by_round[-1]],
        earlier=[[a.answer for a in r] for r in earlier],
        key=session.problem.fmt.key,
    )
    session.runtime.info("vote", viewer_text.vote_table(tally, session.problem.fmt.describe))
    return tally

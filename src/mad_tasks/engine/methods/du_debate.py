"""Du et al. (2023), "Improving Factuality and Reasoning in Language Models through Multiagent Debate".

N agents answer independently in round 1. In each later round t every agent reads the other agents'
round t-1 replies (simultaneous rounds, the authors' code since its index fix), shown anonymously,
and updates its answer; each agent keeps its own conversation. The final answer is the plurality of
the last round's answers, a tie going to the first agent's answer among the tied ones (the authors'
`most_frequent`; `ties=earlier_rounds`: the rounds before decide first). When a limit of the run
stops a round, the debate ends there and the plurality of the last complete round decides (none:
no answer); with `look_ahead` a round that would pass a limit, estimated from the rounds before it,
is not started.
With `sequential=True` an agent also reads the replies already given in round t by agents before it
(the code released with the paper). Round-one answers given before the method ran (on_demand's
first stage) are taken, not asked again. Checked call by call against the authors' code:
docs/fidelity.md.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass
from typing import ClassVar

from .. import prompts, viewer_text
from ..authors_forms import boxed_or_letter
from ..checks import boolean, integer, one_of
from ..content import Msg
from ..limits import LimitReached, looked_ahead, next_round_fits, stop_at
from ..options import MAX_AGENTS, MAX_ROUNDS, AdaptiveStop, PeerControls, option
from ..peers import Peers
from ..records import AgentAnswer, DebateResult
from ..session import Session
from ..spec import MethodSpec
from ..stability import StabilityOptions, plurality_count, record, stops_now
from .turns import TIES, agent_names, final_vote, speak, take_openings


@dataclass(frozen=True)
class DuDebateOptions(PeerControls, AdaptiveStop):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "debate_update", "reminder")
    agents: int = option(
        3,
        "number of agents (each on model role `agent_i`, falling back to `agent`, then the main "
        "model).",
        lambda name, v: integer(name, v, 1, MAX_AGENTS),
    )
    rounds: int = option(
        2,
        "total rounds, the independent first answers included (Du et al.: 2).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    sequential: bool = option(
        False,
        "agents read the replies already given in the same round (default: simultaneous).",
        boolean,
    )
    ties: str = option(
        "first_agent",
        "a tie of the last round's vote: first_agent (the first agent's answer among the tied "
        "ones, as the authors' code) or earlier_rounds (the one that led the latest earlier round, "
        "then agent order).",
        lambda name, v: one_of(name, v, TIES),
    )


TRACKED = "agents giving the round's most-given answer"


async def du_debate(
    session: Session,
    agents: int,
    rounds: int,
    sequential: bool,
    ties: str = "first_agent",
    peers: str = "others",
    stability: StabilityOptions | None = None,
) -> DebateResult:
    p, rt = session.problem, session.runtime
    view = Peers(peers, p.question.text)
    names = agent_names(agents)
    history: dict[str, list[Msg]] = {
        name: [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))] for name in names
    }
    by_round: list[list[AgentAnswer]] = []

    given: dict[str, AgentAnswer] = {}  # round one's answers taken from before the method ran

    def turn(name: str, round: int, others: list[AgentAnswer]) -> Awaitable[AgentAnswer]:
        """Agent `name` reads `others`' replies, as the peers condition shows them."""
        own = next((a for a in by_round[-1] if a.agent == name), None) if by_round else None
        shown = view.seen(others, name, own) if others else []
        update = prompts.debate_update(shown, p.fmt, p.templates) if others else None
        opened = given.get(name) if round == 1 else None
        return speak(session, name, round, history[name], update, shown, opened)

    limit: LimitReached | None = None
    where = ""
    counts: list[int] = []  # per round, the agents giving its most-given answer (stop=adaptive)
    for t in range(1, rounds + 1):
        previous = by_round[-1] if by_round else []
        done = [[c for c in session.calls if c.round == r] for r in range(max(1, t - 2), t)]
        # a second round reads the others' first answers: about `agents` times the first
        limit = next_round_fits(session, done, first_growth=max(2, agents)) if by_round else None
        if limit is not None:  # the round would not fit: it is not started
            where = looked_ahead(limit, t)
            break
        try:
            async with rt.span(f"round {t}"):
                if t == 1:
                    given = take_openings(session, names, history)
                if sequential and previous:
                    current: list[AgentAnswer] = []
                    for i, name in enumerate(names):
                        current.append(await turn(name, t, current + previous[i + 1 :]))
                else:
                    current = await rt.gather(
                        *(turn(name, t, [a for a in previous if a.agent != name]) for name in names)
                    )
        except LimitReached as reached:  # the round in progress is dropped
            limit = reached
            break
        by_round.append(list(current))
        rt.info(
            f"round {t}",
            viewer_text.round_table(
                f"Round {t}",
                current,
                p.fmt.describe,
                rt.model_name,
                earlier=[a for r in by_round[:-1] for a in r],
                key=p.fmt.key,
            ),
        )
        counts.append(plurality_count([p.fmt.key(a.answer) if a.answer else None for a in current]))
        if stops_now(counts, agents, stability):
            break

    tally = final_vote(session, by_round, ties) if by_round else None
    result = DebateResult(
        method="du_debate",
        final=tally.winner if tally else None,
        answers=[a for r in by_round for a in r],
        calls=session.calls,
        tally=tally,
        options={
            "agents": agents,
            "rounds": rounds,
            "sequential": sequential,
            "ties": ties,
            "peers": peers,
            "stop": "adaptive" if stability else "fixed",
        },
        adaptive_stop=record(counts, agents, TRACKED, stability),
    )
    if result.adaptive_stop is not None:
        rt.info("adaptive stop", viewer_text.adaptive_stop(result.adaptive_stop))
    decided = f"the vote of round {len(by_round)}" if by_round else "no answer: no round finished"
    return stop_at(result, limit, where or f"round {len(by_round) + 1}", decided)


SPEC = MethodSpec(
    "du_debate",
    "N agents answer, then for R-1 more rounds each reads the others' previous answers; majority "
    "wins.",
    DuDebateOptions,
    lambda o, setup: (
        lambda s: du_debate(s, o.agents, o.rounds, o.sequential, o.ties, o.peers, o.stability())
    ),
    authors_form=boxed_or_letter,  # their GSM's \boxed{} and their MMLU's (X)
)

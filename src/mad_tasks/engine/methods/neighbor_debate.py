"""Neighbor Debate: Li et al. (2024), "Improving Multi-Agent Debate with Sparse Communication
Topology" (arXiv 2406.11776, EMNLP 2024 Findings); seed 001's "ND" baseline.

Du et al.'s debate on a fixed sparse graph: every agent answers independently in round 1; in each
later round t every agent reads only its neighbours' round t-1 replies (never the others') and
updates its answer in its own conversation. The final answer is the plurality of the last round, a
tie going as in Du et al.'s code (`ties`). All agents of a round answer at once. With
`topology=full` it is Du et al.'s debate, checked against their code (docs/fidelity.md).

Paper defaults: 6 agents on the neighbour-connected ring, each agent linked to the agent on either
side (degree 2, density D = 2 / (n - 1); Sec. 3, Fig. 1); the fully connected graph (D = 1) is the
baseline it is compared with (`topology=full`). Rounds: we read 3 rounds (the first answers
included); not checked against the paper's text in this session, so an option recorded in the log.
Open points, each an option recorded in the log: the topology for other graphs (`star`: one hub
read by every agent, which reads all; the paper's centrality experiment), the ring's `degree`
(recorded only for the ring, the one topology that reads it).
Agents' models: roles `agent_i`, falling back to `agent`, then the main model (the paper places
stronger models on more central nodes: bind them by role).
Round-one answers given before the method ran (on_demand's first stage) are taken, not asked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import prompts, viewer_text
from ..checks import OptionError, integer, one_of
from ..content import Content, Msg
from ..options import MAX_AGENTS, MAX_ROUNDS, PeerControls, option
from ..peers import Peers
from ..protocols import topology as rules
from ..records import AgentAnswer, DebateResult
from ..session import Session
from ..spec import MethodSpec
from .turns import TIES, agent_names, final_vote, speak, take_openings


@dataclass(frozen=True)
class NeighborDebateOptions(PeerControls):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "debate_update", "reminder")
    agents: int = option(
        6,
        "number of agents (Li et al.: 6), each on model role `agent_i` (falling back to "
        "`agent`, then the main model).",
        lambda name, v: integer(name, v, 3, MAX_AGENTS),
    )
    rounds: int = option(
        3,
        "total rounds, the independent first answers included.",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    topology: str = option(
        "ring",
        "ring (each agent reads its `degree` nearest neighbours on a circle: the paper's "
        "neighbour-connected graph), star (agent_1 reads all, the others read agent_1) or full "
        "(every agent reads every other: Du et al.).",
        lambda name, v: one_of(name, v, rules.TOPOLOGIES),
    )
    degree: int = option(
        2,
        "neighbours per agent on the ring, an even number below `agents` (paper: 2).",
        lambda name, v: integer(name, v, 2, MAX_AGENTS - 1),
    )
    ties: str = option(
        "first_agent",
        "a tie of the last round's vote: first_agent (the first agent's answer among the tied "
        "ones, as Du et al.'s code) or earlier_rounds (the one that led the latest earlier round, "
        "then agent order).",
        lambda name, v: one_of(name, v, TIES),
    )

    def validate(self) -> None:
        super().validate()
        if self.topology == "ring" and (self.degree % 2 or self.degree >= self.agents):
            highest = self.agents - 1 - (self.agents - 1) % 2
            raise OptionError(
                "degree",
                self.degree,
                f"an even integer from 2 to {highest} (below agents = {self.agents})",
            )

    def record(self) -> dict[str, Any]:
        d = super().record()
        if self.topology != "ring":  # only the ring reads it
            del d["degree"]
        return d

    def readers(self) -> list[tuple[int, ...]]:
        return rules.neighbours(self.agents, self.topology, self.degree)


def _topology_markdown(names: Sequence[str], readers: Sequence[tuple[int, ...]], shape: str) -> str:
    rows = [(name, ", ".join(names[j] for j in readers[i])) for i, name in enumerate(names)]
    return (
        f"**Topology** ({shape}): from round 2 each agent reads only the previous-round replies of "
        f"the agents listed beside it.\n\n{viewer_text.table(['agent', 'reads'], rows)}"
    )


async def neighbor_debate(session: Session, o: NeighborDebateOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    names = agent_names(o.agents)
    readers = o.readers()
    shape = f"ring of degree {o.degree}" if o.topology == "ring" else o.topology
    rt.info("topology", _topology_markdown(names, readers, shape))
    history = {
        name: [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))] for name in names
    }
    by_round: list[list[AgentAnswer]] = []
    view = Peers(o.peers, p.question.text)

    def turn(i: int) -> tuple[Content | None, list[AgentAnswer]]:
        """What agent i reads: nothing in round 1, then its neighbours' previous replies (as the
        peers condition shows them)."""
        if not by_round:
            return None, []
        shown = view.seen([by_round[-1][j] for j in readers[i]], names[i], by_round[-1][i])
        return prompts.debate_update(shown, p.fmt, p.templates), shown

    for t in range(1, o.rounds + 1):
        async with rt.span(f"round {t}"):
            given = take_openings(session, names, history) if t == 1 else {}
            turns = [turn(i) for i in range(o.agents)]
            current = await rt.gather(
                *(
                    speak(session, name, t, history[name], *turns[i], given.get(name))
                    for i, name in enumerate(names)
                )
            )
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

    tally = final_vote(session, by_round, o.ties)
    return DebateResult(
        method="neighbor_debate",
        final=tally.winner,
        answers=[a for r in by_round for a in r],
        calls=session.calls,
        tally=tally,
        options={
            **o.record(),
            "neighbours": {n: [names[j] for j in r] for n, r in zip(names, readers)},
        },
    )


SPEC = MethodSpec(
    "neighbor_debate",
    "Each round every agent reads only its neighbours' previous answers; majority wins.",
    NeighborDebateOptions,
    lambda o, setup: lambda s: neighbor_debate(s, o),
)

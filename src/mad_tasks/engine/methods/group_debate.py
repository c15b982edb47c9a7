"""GroupDebate: Liu et al. (2024), "GroupDebate: Enhancing the Efficiency of Multi-Agent Debate
Using Group Discussion" (arXiv 2409.14051); seed 001's "GD" baseline.

M agents are split into N groups; the debate runs in S stages of R rounds (T = S x R rounds):
  - round 1 (initial thinking): every agent answers the question on its own;
  - the other rounds of a stage (intra-group debate): each agent reads the previous-round replies
    of the other agents of its group only, and updates its answer in its own conversation;
  - the end of a stage but the last (inter-group debate): each group's replies are summarised
    (one call per group, role `summarizer`) into a shared pool, and in the first round of the
    next stage every agent reads the whole pool (every group's summary) instead of its peers.
    So from 2 stages on every stage has at least 2 rounds (`rounds` >= 2), or no agent would ever
    read its group's replies after the first stage.
The final answer is the plurality of the last round's answers (the tie rule of `majority_vote`).
Groups debate at once, and so do the agents of a group and the summaries of a stage.

Paper: agents divided into groups of about K = M / N agents, S stages of R rounds; seed 001
(App. G) ran it with each group's summary put into a pool that all agents read in the next round.
Defaults here: 4 agents in 2 groups, 2 stages of 2 rounds. These are our reading, not checked
against the paper's tables in this session, so each is an option recorded in the log, as are the
points the paper leaves open: how agents are assigned to groups (`partition`: contiguous or
round_robin) and who summarises (the `summarizer` role, falling back to the main model).
Every call opens with the question (the summaries' too), so a provider's prompt cache serves it.
Round-one answers given before the method ran (on_demand's first stage) are taken, not asked again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from .. import prompts, viewer_text
from ..answers import AnswerFormat
from ..checks import OptionError, integer, one_of
from ..content import Content, Msg, Question, compose
from ..options import MAX_AGENTS, MAX_ROUNDS, PeerControls, option
from ..peers import Peers
from ..protocols import topology as rules
from ..records import AgentAnswer, DebateResult
from ..requests import GroupSummaryRequest
from ..session import Session
from ..spec import MethodSpec, agent_roles
from .turns import agent_names, final_vote, speak, take_openings

SUMMARIZER = "summarizer"


@dataclass(frozen=True)
class GroupDebateOptions(PeerControls):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "debate_update", "reminder")
    agents: int = option(
        4,
        "number of agents M, each on model role `agent_i` (falling back to `agent`, then the "
        "main model).",
        lambda name, v: integer(name, v, 2, MAX_AGENTS),
    )
    groups: int = option(
        2,
        "number of groups N, each of at least 2 agents (at most agents / 2).",
        lambda name, v: integer(name, v, 1, MAX_AGENTS // 2),
    )
    stages: int = option(
        2,
        "stages S; a pool of group summaries is read between two stages (from 2 stages on, "
        "each stage has at least 2 rounds).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    rounds: int = option(
        2,
        "rounds R per stage (T = stages x rounds rounds in all, at most 20).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    partition: str = option(
        "contiguous",
        "contiguous (agents 1, 2, ... fill group 1 first) or round_robin (agent i joins group "
        "i mod groups); group sizes differ by at most one.",
        lambda name, v: one_of(name, v, rules.PARTITIONS),
    )

    def validate(self) -> None:
        super().validate()
        if 2 * self.groups > self.agents:
            raise OptionError(
                "groups",
                self.groups,
                f"an integer from 1 to {self.agents // 2} (every group needs 2 of the "
                f"{self.agents} agents)",
            )
        # a stage of one round after the first reads only the summaries: nobody would ever read
        # its group's replies, so from 2 stages on every stage has at least 2 rounds
        low = 2 if self.stages > 1 else 1
        if self.stages * low > MAX_ROUNDS:
            raise OptionError(
                "stages",
                self.stages,
                f"an integer from 1 to {MAX_ROUNDS // 2} (from 2 stages on every stage has at "
                f"least 2 rounds, and stages x rounds is at most {MAX_ROUNDS})",
            )
        if not low <= self.rounds <= MAX_ROUNDS // self.stages:
            why = "; at least 2 when stages > 1, or no agent would read its group's replies"
            raise OptionError(
                "rounds",
                self.rounds,
                f"an integer from {low} to {MAX_ROUNDS // self.stages} (stages x rounds at most "
                f"{MAX_ROUNDS}{why if low == 2 else ''})",
            )

    def members(self) -> list[tuple[int, ...]]:
        return rules.partition(self.agents, self.groups, self.partition)


def summary_prompt(question: Question, replies: Sequence[AgentAnswer]) -> Content:
    """The question first (shared by every call), then one group's latest replies."""
    shown = "\n\n".join(f"--- {a.agent} ---\n{a.text.strip()}" for a in replies)
    return compose(
        question,
        "\n\nThese are the latest replies of the agents of one debate group to the question "
        f"above:\n\n{shown}\n\nSummarise them for the agents of the other groups: the "
        "arguments that matter, the points where they disagree and the answer or answers they "
        "reached. Report; do not add an answer of your own.",
    )


def pool_update(summaries: Sequence[str], fmt: AnswerFormat) -> str:
    """The first round of a stage: every group's summary of the previous stage."""
    shown = "\n\n".join(f"--- group {g} ---\n{s.strip()}" for g, s in enumerate(summaries, 1))
    return (
        "Here are summaries of the debate so far in every group, yours included:\n\n"
        f"{shown}\n\nTreat them as evidence, not as authority: check each argument against your "
        f"own, then give your updated answer, step by step. {fmt.instruction()}"
    )


async def group_debate(session: Session, o: GroupDebateOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    names = agent_names(o.agents)
    groups = o.members()
    rt.info("groups", _groups_markdown(names, groups))
    history = {
        name: [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))] for name in names
    }
    by_round: list[list[AgentAnswer]] = []
    pool: list[str] = []  # the previous stage's summaries, one per group
    given: dict[str, AgentAnswer] = {}  # round one's answers taken from before the method ran
    view = Peers(o.peers, p.question.text)

    async def group_turn(g: int, t: int, opens_stage: bool) -> list[AgentAnswer]:
        members = groups[g]
        previous = by_round[-1] if by_round else []

        def update(i: int) -> tuple[Content | None, list[AgentAnswer]]:
            """What agent i reads, as the peers condition shows it: under self its own previous
            reply in place of the pool; under noise each summary noised."""
            if not previous:  # initial thinking
                return None, []
            if opens_stage and view.condition == "self":
                return pool_update([previous[i].text], p.fmt), [previous[i]]
            if opens_stage:  # inter-group: the pool, which summarises every agent's reply
                shown = [view.text(s, SUMMARIZER, t - 1, k) for k, s in enumerate(pool, 1)]
                return pool_update(shown, p.fmt), view.seen(previous, names[i])
            peers = [previous[j] for j in members if j != i]  # intra-group
            shown_peers = view.seen(peers, names[i], previous[i])
            return prompts.debate_update(shown_peers, p.fmt, p.templates), shown_peers

        async with rt.span(f"group {g + 1} r.{t}"):
            return await rt.gather(
                *(
                    speak(session, names[i], t, history[names[i]], *update(i), given.get(names[i]))
                    for i in members
                )
            )

    async def summarise(g: int, t: int) -> str:
        replies = [by_round[-1][i] for i in groups[g]]
        asks = GroupSummaryRequest(p.fmt, tuple(a.answer for a in replies if a.answer is not None))
        prompt = summary_prompt(p.question, replies)
        reply = await session.call(
            f"{SUMMARIZER}_{g + 1}", SUMMARIZER, [Msg("user", prompt)], "summary", t, asks=asks
        )
        return reply.text

    t = 0
    for s in range(1, o.stages + 1):
        for r in range(1, o.rounds + 1):
            t += 1
            opens_stage = s > 1 and r == 1
            async with rt.span(f"round {t}"):
                given = take_openings(session, names, history) if t == 1 else {}
                done = await rt.gather(*(group_turn(g, t, opens_stage) for g in range(len(groups))))
            current = sorted((a for d in done for a in d), key=lambda a: names.index(a.agent))
            by_round.append(current)
            rt.info(
                f"round {t}",
                _round_markdown(
                    s,
                    r,
                    t,
                    current,
                    p.fmt,
                    opens_stage,
                    rt.model_name,
                    [a for past in by_round[:-1] for a in past],
                ),
            )
        if s < o.stages:
            async with rt.span(f"summary s.{s}"):
                pool = await rt.gather(*(summarise(g, t) for g in range(len(groups))))
            rt.info(f"summary s.{s}", _pool_markdown(s, groups, names, by_round[-1], p.fmt))

    tally = final_vote(session, by_round)
    return DebateResult(
        method="group_debate",
        final=tally.winner,
        answers=[a for r in by_round for a in r],
        calls=session.calls,
        tally=tally,
        options={**o.record(), "groups_of_agents": [[names[i] for i in m] for m in groups]},
    )


# -- what a person reads in the viewer ---------------------------------------------------------------


def _groups_markdown(names: Sequence[str], groups: Sequence[tuple[int, ...]]) -> str:
    rows = [(g, ", ".join(names[i] for i in m)) for g, m in enumerate(groups, 1)]
    return (
        "**Groups**: within a stage each agent reads only the other agents of its group; "
        "between stages every agent reads every group's summary.\n\n"
        + viewer_text.table(["group", "agents"], rows, right={0})
    )


def _round_markdown(
    stage: int,
    r: int,
    t: int,
    answers: Sequence[AgentAnswer],
    fmt: AnswerFormat,
    opens_stage: bool,
    model_of: viewer_text.ModelOf | None = None,
    earlier: Sequence[AgentAnswer] = (),
) -> str:
    if t == 1:
        read = "each agent answered on its own"
    elif opens_stage:
        read = "each agent read the pool of every group's summary of the previous stage"
    else:
        read = "each agent read the previous-round replies of its own group"
    title = f"Round {t} (stage {stage}, round {r} of the stage)"
    table = viewer_text.round_table(title, answers, fmt.describe, model_of, earlier, fmt.key)
    return f"{table} In this round {read}."


def _pool_markdown(
    stage: int,
    groups: Sequence[tuple[int, ...]],
    names: Sequence[str],
    answers: Sequence[AgentAnswer],
    fmt: AnswerFormat,
) -> str:
    rows = [
        (g, ", ".join(names[i] for i in m),
         ", ".join(viewer_text.answer_cell(answers[i].answer, fmt.describe) for i in m))
        for g, m in enumerate(groups, 1)
    ]  # fmt: skip
    return (
        f"**Summary pool after stage {stage}**: one summary per group of its agents' latest "
        "replies (the texts are in the summarizer calls); every agent reads them all in the next "
        f"round.\n\n{viewer_text.table(['group', 'agents', 'answers summarised'], rows, right={0})}"
    )


SPEC = MethodSpec(
    "group_debate",
    "Agents debate inside groups; between stages every agent reads each group's summary.",
    GroupDebateOptions,
    lambda o, setup: lambda s: group_debate(s, o),
    roles=lambda o: (*agent_roles(o), SUMMARIZER),
)

"""TourRank (Chen et al. 2025, "TourRank: Utilizing Large Language Models for Documents Ranking
with a Tournament-Inspired Strategy"): the LLM row of PD³'s Table 1 as PD³ ran it (seed 000,
App. A.5: "a 30 → 20 → 10 → 5 → 2 filtering process, and run 10 times in parallel per case").

A tournament shuffles the candidates (seeded by the query and the tournament's number) and runs
its stages one after another: in each, one call sees the pool still in play, in that order, and
picks the `stages[i]` most relevant, who go on. Every candidate a stage picks scores a point. The
`tournaments` run at once, and the candidates' points over all of them rank the top k (ties in the
preliminary order). A stage without a readable `[RESULT]` list after the follow-ups ends its
tournament, with no point and no fill: the decision is an abstention, not a guess; a shorter list
advances only the candidates it names. A limit of the run ends the tournaments still running: the
stages finished so far have scored, and they rank. Calls: tournaments x stages (40 at the paper's
settings), a chain of len(stages) calls.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, replace
from itertools import pairwise
from typing import Any

from ...checks import OptionError, integer
from ...content import compose
from ...limits import LimitReached, stop_at
from ...options import option
from ...records import AgentAnswer, DebateResult
from ...session import Session
from ...spec import MethodSpec
from . import prompts
from .baselines import ranked
from .options import MAX_QUERY_CALLS, JudgedOptions
from .query import Decider, Query, Retrieval, prepare_query, query_seed
from .records import Group, PD3Record, Project

MAX_TOURNAMENTS = 50  # the paper runs 10; each multiplies the query's calls


def _stages(name: str, value: Any) -> tuple[int, ...]:
    sizes = tuple(value) if isinstance(value, list | tuple) else ()
    if (
        1 <= len(sizes) <= 10
        and all(type(s) is int and s >= 1 for s in sizes)
        and all(a > b for a, b in pairwise(sizes))
    ):
        return sizes
    raise OptionError(name, value, "a list of 1 to 10 decreasing positive integers")


@dataclass(frozen=True)
class TourRankOptions(JudgedOptions):
    tournaments: int = option(
        10,
        f"tournaments run at once, each on its own shuffle (paper: 10; at most {MAX_TOURNAMENTS}).",
        lambda name, v: integer(name, v, 1, MAX_TOURNAMENTS),
    )
    stages: tuple[int, ...] = option(
        (20, 10, 5, 2),
        "how many candidates each stage keeps, in order (paper: 30 → 20 → 10 → 5 → 2).",
        _stages,
    )
    seed: int = option(
        0, "the shuffles' seed, mixed with the query's id.", lambda n, v: integer(n, v, None)
    )

    def check_candidates(self, n: int) -> None:
        super().check_candidates(n)
        if self.stages[0] >= n:
            raise OptionError(
                "stages", list(self.stages), f"a first stage below the candidates ({n})"
            )
        if self.tournaments * len(self.stages) > MAX_QUERY_CALLS:
            raise OptionError(
                "tournaments",
                self.tournaments,
                f"at most {MAX_QUERY_CALLS} calls per query (tournaments × stages)",
            )


@dataclass(frozen=True)
class Tournament:
    """One tournament's stages as played: each stage's group (its pool and decision)."""

    number: int
    groups: tuple[Group, ...]
    ended: str | None  # why it ended early: "unreadable" (a stage without a list); None: ran out


async def play(session: Session, q: Query, opts: TourRankOptions, number: int, seed: int,
               points: dict[str, int], played: list[Group], answers: list[AgentAnswer]) -> Tournament:  # fmt: skip
    """One tournament; each stage's picks score as soon as the stage is decided (so a limit
    that ends the tournament keeps them), and each stage's group and answer join `played` and
    `answers` (group numbers by tournament and stage, whatever finishes first)."""
    pool = list(q.order)
    random.Random(seed + number).shuffle(pool)
    groups: list[Group] = []
    async with session.runtime.span(f"tournament {number}"):
        for stage, keep in enumerate(opts.stages, 1):
            run = Decider(session, q, keep)
            prompt = compose(q.opening, q.block(pool), prompts.decide(keep))
            agent = f"tournament {number}"
            decision = await run.decide(agent, f"stage {stage}", stage, pool, prompt, ())
            group = Group((number - 1) * len(opts.stages) + stage, tuple(pool), (), decision)
            played.append(group)
            answers.extend(run.answers(group, stage))
            groups.append(group)
            if decision.parsed is None:  # an abstention: no point, no guess, no next stage
                return Tournament(number, tuple(groups), "unreadable")
            picked = set(decision.parsed[:keep])
            for c in picked:
                points[c] = points.get(c, 0) + 1
            pool = [c for c in pool if c in picked]
    return Tournament(number, tuple(groups), None)


async def tourrank(
    session: Session, query: Project, candidates: Sequence[Project], opts: TourRankOptions
) -> DebateResult:
    opts.check_candidates(len(candidates))
    seed = query_seed(opts.seed, query.id)
    q = prepare_query(session, query, candidates, opts, seed)
    points: dict[str, int] = {}
    played: list[Group] = []
    answers: list[AgentAnswer] = []
    limits: list[LimitReached] = []

    async def one(number: int) -> Tournament | None:
        try:
            return await play(session, q, opts, number, seed, points, played, answers)
        except LimitReached as limit:  # its finished stages have scored
            limits.append(limit)
            return None

    ran = await session.runtime.gather(*(one(t) for t in range(1, opts.tournaments + 1)))
    ended = sum(t is not None and t.ended is not None for t in ran)
    how = (
        f"points over {opts.tournaments} tournaments (stages {list(opts.stages)}): one per stage "
        f"a candidate was picked in; {ended} tournament(s) ended at an unreadable stage"
    )
    scores = [float(points.get(c.id, 0)) for c in candidates]
    answers.sort(key=lambda a: (int(a.agent.split()[1]), a.round))
    result = ranked(session, "tourrank", "tourrank", candidates, scores, query, opts.top_k, how,
                    seed, answers)  # fmt: skip
    assert isinstance(result.record, PD3Record)
    record = replace(result.record, groups=sorted(played, key=lambda g: g.number), labels=q.labels)
    result = replace(result, record=record, options=opts.record())
    done = sum(t is not None for t in ran)
    where = f"the tournaments ({done} of {opts.tournaments} finished)"
    return stop_at(result, limits[0] if limits else None, where, "the points of the stages decided")


SPEC = MethodSpec(
    "tourrank",
    "TourRank as PD³ ran it: 10 seeded tournaments at once, each narrowing 30 → 20 → 10 → 5 → 2 "
    "in one call per stage; points per stage reached rank the top k.",
    TourRankOptions,
    lambda o, setup: lambda s, r: tourrank(s, r.query, r.candidates, o),
    reads=Retrieval,
    roles=lambda o: ("senior",),
)

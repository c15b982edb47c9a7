"""MORE, Multi-Advocate One-Round Evaluation (D3, Algorithm 1 and section 2.2).

1. For each answer, k advocates write a defence in parallel, none seeing a teammate's. With
   `advocate_order=sequential` (the authors' code) answer A's team argues and merges first, and
   answer B's advocates read A's merged defence; `parallel` (the paper's Algorithm 1): none reads
   the other side.
2. Each side's k defences are merged into one by a strategist of that side (`synthesis`, the paper's
   flow and the reference code).
3. The judge evaluates the two merged defences once: with `judge_calls=split` (the code, App. F.2)
   a feedback call, then a scoring call on the six criteria that reads only the defences; with
   `joint`, one call does both.
4. The jury votes on the anonymised transcript (the merged defences, the judge's feedback and
   scores); a tied vote goes to answer B (`jury_tie=second`, the code) or to the judge's gap
   (`judge`, the paper).
`aggregation="max_score"` follows the paper's theory (section 3) instead: no merge; the judge
scores each pairing (d_Aj, d_Bj) and each side keeps its best total.
Every call shows the pair (the question with all its parts, then both answers) first.
Under `-S budget` (or a token or cost limit) with `look_ahead` on, a stage that cannot be covered
is not started (`Court.start`); the first advocate writes alone when nothing is measured yet.
With `-S answer_form=authors` the judge ends with its totals as one pair `(x, y)` and each juror
with its vote as `(1, 0)` or `(0, 1)`, as the authors' code asks (authors_forms.vote_pair).
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import replace

from ...authors_forms import vote_pair
from ...limits import unmeasured
from ...protocols.d3 import SIDES, best_scores
from ...records import DebateResult
from ...session import Session
from ...spec import MethodSpec
from . import court as d3
from .court import Court, Hearing, Pair, judge_roles
from .options import Jury, MoreOptions, Swap
from .records import Defence

ADVOCATE_WORDS = 80
MERGE_WORDS = 150


async def more(
    session: Session,
    pair: Pair,
    advocates: int = 3,
    aggregation: str = "synthesis",
    jury: Jury = Jury(),
    swap: Swap = Swap(),
    bias_note: bool = False,
    advocate_stance: str = "persuade",
    advocate_order: str = "sequential",
    judge_calls: str = "split",
) -> DebateResult:
    async def hold(court: Court) -> Hearing:
        p, rt = court.pair, court.rt

        def defend(side: str, j: int, opponent: str | None = None) -> Awaitable[Defence]:
            return court.argue(
                f"advocate_{side.lower()}_{j}",
                side,
                1,
                d3.advocate_prompt(
                    p,
                    side,
                    ADVOCATE_WORDS,
                    team=(j, advocates),
                    opponent=opponent,
                    stance=advocate_stance,
                    opponent_title="The opposing team's merged defence",
                ),
                seat=j,
            )

        def merge(side: str, team: Sequence[Defence]) -> Awaitable[Defence]:
            return court.argue(  # on the side's first advocate's model (seat 1)
                f"strategist_{side.lower()}",
                side,
                1,
                d3.merge_prompt(p, side, [d.text for d in team], MERGE_WORDS),
                kind="merged",
            )

        async def advocate_stage(
            court: Court, stage: str, seats: Sequence[tuple[str, int]], opponent: str | None
        ) -> list[Defence]:
            """The advocates of `seats` at once; under a budget with nothing spent yet, the
            first alone, to measure the others (`limits.unmeasured`), which start if they fit."""
            first = [await defend(*seats[0], opponent)] if unmeasured(court.session) else []
            court.start(stage, len(seats) - len(first))
            rest = seats[len(first) :]
            return first + await rt.gather(*(defend(side, j, opponent) for side, j in rest))

        if aggregation == "synthesis" and advocate_order == "sequential":
            # the authors' code: A's team argues and merges, then B's advocates read A's merge
            shown: list[Defence] = []
            for side in SIDES:
                opponent = shown[0].text if shown else None
                async with rt.span(f"advocates {side}"):
                    seats = [(side, j) for j in range(1, advocates + 1)]
                    mine = await advocate_stage(court, f"the advocates of {side}", seats, opponent)
                court.start(f"the merge of {side}", 1)
                async with rt.span(f"merge {side}"):
                    shown.append(await merge(side, mine))
            return await judge(court, shown)
        async with rt.span("advocates"):
            seats = [(side, j) for side in SIDES for j in range(1, advocates + 1)]
            written = await advocate_stage(court, "the advocates", seats, None)
        team = {side: [d for d in written if d.side == side] for side in SIDES}
        if aggregation == "synthesis":
            court.start("the merges", len(SIDES))
            async with rt.span("merge"):
                shown = await rt.gather(*(merge(side, team[side]) for side in SIDES))
            return await judge(court, shown)
        court.start("the judge", advocates)
        async with rt.span("judge"):
            evaluations = await rt.gather(
                *(
                    court.evaluate(
                        1,
                        d3.judge_prompt(p, a.text, b.text, bias_note=court.bias_note),
                        agent=f"judge_{j}",
                    )
                    for j, (a, b) in enumerate(zip(team["A"], team["B"]), 1)
                )
            )
        best = (
            f"max_score: the judge scores each of the {advocates} pairings of defences, and each "
            "side keeps its best total; the jury reads every defence and evaluation."
        )
        for e in evaluations:
            rt.info("judge", d3.evaluation_report(e, note=best))
        scores = [best_scores([e.scores for e in evaluations])]
        return await court.deliberate(jury, written, scores, None)

    async def judge(court: Court, shown: Sequence[Defence]) -> Hearing:
        """One judge pass on the merged defences: with `split`, a feedback call first, then a
        scoring call that reads only the defences; the jury reads the feedback and the scores."""
        p, rt = court.pair, court.rt
        a, b = shown[0].text, shown[1].text
        async with rt.span("judge"):
            feedback = None
            if judge_calls == "split":
                court.start("the judge's feedback", 1)
                feedback = await court.comment(
                    1, d3.feedback_prompt(p, a, b, bias_note=court.bias_note)
                )
            court.start("the judge's scores", 1)
            evaluation = await court.evaluate(
                1, d3.judge_prompt(p, a, b, bias_note=court.bias_note)
            )
        if feedback is not None:  # what the transcript shows of the judge: the feedback
            evaluation = replace(evaluation, text=feedback)
            court.evaluations[-1] = evaluation
        rt.info("judge", d3.evaluation_report(evaluation))
        return await court.deliberate(jury, shown, [evaluation.scores], None)

    options = {
        "advocates": advocates,
        "aggregation": aggregation,
        "advocate_stance": advocate_stance,
        "advocate_order": advocate_order,
        "judge_calls": judge_calls,
        **jury.record(),
    }
    return await d3.decide(session, pair, "more", hold, swap, options, bias_note)


SPEC = MethodSpec(
    "more",
    "MORE: k advocates per answer, merged defences, one judge pass, a jury of personas.",
    MoreOptions,
    lambda o, setup: (
        lambda s, pair: more(
            s,
            pair,
            o.advocates,
            o.aggregation,
            o.jury,
            o.positions,
            o.bias_note,
            o.advocate_stance,
            o.advocate_order,
            o.judge_calls,
        )
    ),
    reads=Pair,
    roles=judge_roles,
    authors_form=vote_pair,  # their judge's totals (x, y) and jurors' (1, 0) or (0, 1)
)

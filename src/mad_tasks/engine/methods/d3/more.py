"""MORE, Multi-Advocate One-Round Evaluation (D3, Algorithm 1 and section 2.2).

1. For each answer, k advocates write a defence in parallel, none seeing another's.
2. Each side's k defences are merged into one by a strategist of that side (`synthesis`, the paper's
   flow and the reference code).
3. The judge scores the two merged defences once, on the six criteria.
4. The jury votes on the anonymised transcript (the merged defences and the judge's evaluation);
   a tied vote goes to the judge's gap.
`aggregation="max_score"` follows the paper's theory (section 3) instead: no merge; the judge
scores each pairing (d_Aj, d_Bj) and each side keeps its best total.
Every call shows the pair (the question with all its parts, then both answers) first.
"""

from __future__ import annotations

from ...protocols.d3 import SIDES, best_scores
from ...records import DebateResult
from ...session import Session
from ...spec import MethodSpec
from . import court as d3
from .court import Court, Hearing, Pair, judge_roles
from .options import Jury, MoreOptions, Swap

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
) -> DebateResult:
    async def hold(court: Court) -> Hearing:
        p, rt = court.pair, court.rt
        async with rt.span("advocates"):
            written = await rt.gather(
                *(
                    court.argue(
                        f"advocate_{side.lower()}_{j}",
                        side,
                        1,
                        d3.advocate_prompt(p, side, ADVOCATE_WORDS, team=(j, advocates)),
                        seat=j,
                    )
                    for side in SIDES
                    for j in range(1, advocates + 1)
                )
            )
        team = {side: [d for d in written if d.side == side] for side in SIDES}
        if aggregation == "synthesis":
            async with rt.span("merge"):
                shown = await rt.gather(
                    *(
                        court.argue(  # on the side's first advocate's model (seat 1)
                            f"strategist_{side.lower()}",
                            side,
                            1,
                            d3.merge_prompt(p, side, [d.text for d in team[side]], MERGE_WORDS),
                            kind="merged",
                        )
                        for side in SIDES
                    )
                )
            async with rt.span("judge"):
                evaluations = [
                    await court.evaluate(
                        1,
                        d3.judge_prompt(p, shown[0].text, shown[1].text, bias_note=court.bias_note),
                    )
                ]
            scores = [evaluations[0].scores]
        else:
            shown = written
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
            scores = [best_scores([e.scores for e in evaluations])]
        best = (
            f"max_score: the judge scores each of the {advocates} pairings of defences, and each "
            "side keeps its best total; the jury reads every defence and evaluation."
            if aggregation == "max_score"
            else ""
        )
        for e in evaluations:
            rt.info("judge", d3.evaluation_report(e, note=best))
        return await court.deliberate(jury, shown, scores, None)

    options = {
        "advocates": advocates,
        "aggregation": aggregation,
        "jurors": jury.size,
        "personas": jury.personas,
        "persona_subset": jury.subset,
        "tiebreak": jury.tiebreak,
    }
    return await d3.decide(session, pair, "more", hold, swap, options, bias_note)


SPEC = MethodSpec(
    "more",
    "MORE: k advocates per answer, merged defences, one judge pass, a jury of personas.",
    MoreOptions,
    lambda o, setup: (
        lambda s, pair: more(s, pair, o.advocates, o.aggregation, o.jury, o.positions, o.bias_note)
    ),
    reads=Pair,
    roles=judge_roles,
)

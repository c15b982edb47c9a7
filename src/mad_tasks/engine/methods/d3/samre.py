"""SAMRE, Single-Advocate Multi-Round Evaluation with budgeted stopping (D3, Algorithm 2).

One advocate per answer. For r = 1..max_rounds:
1. the advocates write their defences. With `advocate_order=sequential` (the authors' code) A's
   advocate speaks first and B's reads A's defence of the same round; with `parallel` (the paper's
   Algorithm 2) both read only round r-1 material. Each reads the opponent's latest defence and the
   judge's previous evaluation; with `own_defence=shown` (the paper's transcript T_{r-1}) also its
   own previous defence, which the code never shows it (`hidden`);
2. the judge scores both defences on the six criteria and writes feedback, seeing its own earlier
   totals;
3. the stop rule reads the score gaps and the tokens spent so far, measured from the replies' usage,
   and ends the debate when it fires (protocols.d3.stop_reason). Replies served from a response
   cache count with the tokens they first cost, so a cached re-run stops where the first run did.
   A reply without usage makes the total unknown: the budget can no longer fire, which an info
   event says once per hearing and the record keeps (`token_budget_enforced` False). (The code's
   budget never fires: its counter is fed 0.)
   With `stopping=adaptive` Hu et al.'s stability rule (engine/stability.py) replaces the
   convergence test: each round counts the criteria on which the judge scores A above B (A is
   fixed, so a flip shows), and the debate stops once that count's fitted distribution is stable
   (`stable`); the decisive gap, the budget, the round limit (the cap) and the run's limits still
   stop it as before.
Then the jury votes on the anonymised transcript of every round; a tied vote goes to answer B
(`jury_tie=second`, the code) or to the judge's gap (`judge`, the paper). A limit of the run (or
`-S budget`) reached in round r ends the hearing there: the judge's complete evaluations decide,
with no jury (engine/limits.py); with `look_ahead` a round that would pass a limit, estimated from
the rounds before it, is not started.

`summarize` (the code's default) condenses each defence before anyone reads it. With
`summaries=code` the judge's evaluation of every round and every juror's vote are condensed too, as
the code does: no call reads those summaries, but they are calls of the published runs (one a round
and one a juror); `used_only` leaves them out.

Every call shows the pair (the question with all its parts, then both answers) first, except the
summaries: each reads only the text it condenses, as the code's summarizer does.
With `-S answer_form=authors` the judge ends with its totals as one pair `(x, y)` and each juror
with its vote as `(1, 0)` or `(0, 1)`, as the authors' code asks (authors_forms.vote_pair).
"""

from __future__ import annotations

from dataclasses import asdict, replace

from ... import viewer_text
from ...authors_forms import vote_pair
from ...limits import LimitReached, looked_ahead, next_round_fits
from ...protocols.d3 import CRITERIA, SIDES, StopRule, flip, stop_reason
from ...records import DebateResult
from ...session import Session
from ...spec import MethodSpec
from ...stability import StabilityOptions, record, stops_now
from . import court as d3
from .court import Court, Hearing, Pair, judge_roles
from .options import Jury, SamreOptions, Swap
from .records import Defence, Evaluation, JudgeRecord

NO_ROUND = "no answer: no round was complete"
ADVOCATE_WORDS = 100
OPPONENT_BEFORE = "The opposing advocate's previous defence"
OPPONENT_NOW = "The opposing advocate's defence in this round"
CODE_RULE = SamreOptions().rule  # the authors' code's stop rule, the options' default
# stopping=adaptive: what a round's count counts, of the judge's CRITERIA
TRACKED = "criteria on which the judge scores answer A above answer B (none read: 0)"
UNENFORCED = (
    "The token budget of {budget} cannot be enforced: by round {round} a reply reported no token "
    "usage, so the tokens spent are unknown and the debate runs on the other stop rules."
)


def progress(round: int, max_rounds: int, earlier: list[tuple[int, int] | None]) -> str:
    shown = ", ".join(f"({s[0]}, {s[1]})" if s else "unscored" for s in earlier)
    return f"This is round {round} of at most {max_rounds}." + (
        f" Your totals (A, B) in the earlier rounds: {shown}." if earlier else ""
    )


def favouring_a(evaluation: Evaluation) -> int:
    """The round's count for `stopping=adaptive`: the criteria on which the judge scores A above
    B. The side is fixed, so a verdict that flips moves the count; a tied criterion holds neither
    side, and a reply whose six criteria cannot be read counts 0 (an unreadable answer holds
    nothing, docs/adaptive-stopping.md), which keeps the debate going."""
    return sum(a > b for a, b in evaluation.criteria or ())


def stop_rules(rule: StopRule, stability: StabilityOptions | None = None) -> str:
    """The stop rules in words, checked in this order after every round; `stability` with
    `stopping=adaptive`."""
    if stability is not None:
        rules = [
            f"`stable`: the count of {TRACKED}, fitted over the last "
            f"{stability.window or 'all'} rounds, moved less than {stability.threshold:g} "
            f"(Kolmogorov-Smirnov) in {stability.stable_rounds} round(s) in a row, from round "
            f"{stability.min_rounds}"
        ]
    else:
        if rule.stopping == "signed":
            steady = (
                f"the last {rule.window} gaps (A − B) span less than {rule.eps:g} points and do "
                "not change side"
            )
        else:
            steady = (
                f"the sizes |A − B| of the last {rule.window} gaps span less than {rule.eps:g} "
                "points and neither strictly rise nor fall"
            )
        rules = [f"`converged`: {steady}, after at least {rule.min_rounds} rounds"]
    if rule.decisive_gap is not None:
        rules.append(f"`decisive`: a gap of at least {rule.decisive_gap:g} points")
    if rule.token_budget is not None:
        rules.append(f"`token_budget`: more than {rule.token_budget} tokens spent")
    rules.append(f"`max_rounds`: round {rule.max_rounds} done")
    return "Stop rules, in order: " + "; ".join(rules) + "."


async def samre(
    session: Session,
    pair: Pair,
    rule: StopRule = CODE_RULE,
    summarize: bool = True,
    jury: Jury = Jury(),
    swap: Swap = Swap(),
    bias_note: bool = False,
    advocate_stance: str = "persuade",
    advocate_order: str = "sequential",
    own_defence: str = "hidden",
    summaries: str = "code",
    stability: StabilityOptions = StabilityOptions(),
) -> DebateResult:
    """SAMRE on `pair`; `stability` is the adaptive stop's parameters, read only when
    `rule.stopping` is `adaptive`."""
    adaptive = stability if rule.stopping == "adaptive" else None
    unenforced: list[str] = []  # the hearings (orders) whose budget met a reply without usage
    recaps = summarize and summaries == "code"  # the code's summaries that no call reads

    async def speak(
        court: Court, r: int, previous: dict[str, Defence], feedback: str | None
    ) -> tuple[dict[str, Defence], Evaluation]:
        """Round `r`: both advocates' defences (summarised with `summarize`), then the judge's
        evaluation of them (summarised too with `summaries=code`)."""
        p = court.pair

        async def defend(side: str, opponent: Defence | None) -> Defence:
            own = previous.get(side) if own_defence == "shown" else None
            title = OPPONENT_NOW if opponent and opponent.round == r else OPPONENT_BEFORE
            prompt = d3.advocate_prompt(
                p,
                side,
                ADVOCATE_WORDS,
                own=own.text if own else None,
                opponent=opponent.text if opponent else None,
                evaluation=feedback,
                stance=advocate_stance,
                opponent_title=title,
            )
            agent = f"advocate_{side.lower()}"
            argued = await court.argue(agent, side, r, prompt)
            if not summarize:
                return argued
            condensed = d3.summary_prompt(argued.text, f"defence of Answer {side}")
            return await court.argue(agent, side, r, condensed, kind="summary")

        async with court.rt.span(f"round {r}"):
            if advocate_order == "sequential":  # B reads A's defence of this round
                first = await defend("A", previous.get("B"))
                spoken = [first, await defend("B", first)]
            else:
                spoken = await court.rt.gather(
                    *(defend(side, previous.get(flip(side))) for side in SIDES)
                )
            spoken_by = {d.side: d for d in spoken}
            earlier = [e.scores for e in court.evaluations]
            evaluation = await court.evaluate(
                r,
                d3.judge_prompt(
                    p,
                    spoken_by["A"].text,
                    spoken_by["B"].text,
                    progress(r, rule.max_rounds, earlier),
                    court.bias_note,
                ),
            )
            if recaps:
                await court.recap("judge", "judge", r, evaluation.shown(), "evaluation")
            return spoken_by, evaluation

    async def hold(court: Court) -> Hearing:
        rt = court.rt
        previous: dict[str, Defence] = {}
        reason = None
        counts: list[int] = []  # per round, favouring_a (stopping=adaptive)
        for r in range(1, rule.max_rounds + 1):
            feedback = court.evaluations[-1].shown() if court.evaluations else None
            done = [
                [c for c in court.session.calls if c.round == n] for n in range(max(1, r - 2), r)
            ]
            # both orders (with swap) spend the sample's limits and the budget at once
            orders = 2 if swap.enabled else 1
            ahead = next_round_fits(court.session, done, parallel=orders) if r > 1 else None
            if ahead is not None:  # the round would not fit: it is not started
                court.stop(ahead, looked_ahead(ahead, r), f"the judge's scores up to round {r - 1}")
                reason = "limit"
                break
            try:
                previous, evaluation = await speak(court, r, previous, feedback)
            except LimitReached as limit:  # the judge's last complete evaluation decides
                scored = len(court.evaluations)  # round r's, when only its summary was refused
                decided = f"the judge's scores up to round {scored}" if scored else NO_ROUND
                court.stop(limit, f"round {r}", decided)
                reason = "limit"
                break
            tokens = court.tokens()
            counts.append(favouring_a(evaluation))
            gaps = [e.gap for e in court.evaluations]
            # the adaptive stop in place of the convergence test (StopRule: `adaptive` has none)
            reason = "stable" if stops_now(counts, CRITERIA, adaptive) else None
            reason = reason or stop_reason(gaps, tokens, rule)
            if tokens is None and rule.token_budget is not None and court.order not in unenforced:
                unenforced.append(court.order)
                rt.info("token budget", UNENFORCED.format(budget=rule.token_budget, round=r))
            spent = "unknown" if tokens is None else tokens
            rt.info(
                f"round {r}",
                d3.evaluation_report(
                    evaluation,
                    f"; {spent} tokens so far; stop: {reason or 'no, go on'}",
                    stop_rules(rule, adaptive),
                ),
            )
            if reason:
                break
        shown = [d for d in court.defences if d.kind == ("summary" if summarize else "argument")]
        scores = [e.scores for e in court.evaluations]
        trace = record(counts, CRITERIA, TRACKED, adaptive)
        if trace is not None:
            rt.info("adaptive stop", viewer_text.adaptive_stop(trace))
        hearing = await court.deliberate(jury, shown, scores, reason, recap_votes=recaps)
        return replace(hearing, adaptive_stop=trace)

    stop = asdict(rule)
    if adaptive is not None:  # the convergence test's parameters give way to the rule's
        stop = {k: v for k, v in stop.items() if k not in ("window", "min_rounds", "eps")}
        stop |= {f"stop_{k}": v for k, v in asdict(adaptive).items()}
    options = {
        **stop,
        "summarize": summarize,
        "summaries": summaries,
        "advocate_order": advocate_order,
        "own_defence": own_defence,
        "advocate_stance": advocate_stance,
        **jury.record(),
    }
    result = await d3.decide(session, pair, "samre", hold, swap, options, bias_note)
    assert isinstance(result.record, JudgeRecord)
    enforced = None if rule.token_budget is None else not unenforced
    result.record = replace(result.record, token_budget_enforced=enforced)
    # with swap each order keeps its own trace; the result's is the order as given
    result.adaptive_stop = next((h.adaptive_stop for h in result.record.hearings), None)
    return result


SPEC = MethodSpec(
    "samre",
    "SAMRE: one advocate per answer, rounds of defence and scored feedback, budgeted stopping.",
    SamreOptions,
    lambda o, setup: (
        lambda s, pair: samre(
            s,
            pair,
            o.rule,
            o.summarize,
            o.jury,
            o.positions,
            o.bias_note,
            o.advocate_stance,
            o.advocate_order,
            o.own_defence,
            o.summaries,
            o.stability() or StabilityOptions(),
        )
    ),
    reads=Pair,
    roles=judge_roles,
    authors_form=vote_pair,  # their judge's totals (x, y) and jurors' (1, 0) or (0, 1)
)

"""D3 (Harrasse et al., "Debate, Deliberate, Decide"): the courtroom that MORE and SAMRE share.

D3 is a pairwise judge: a question and two answers, A shown first and B second, give a verdict A, B
or tie, or none at all (an abstention) when neither judge nor jury gave anything readable.
Advocates argue for one answer each; a judge scores their defences on six criteria (1-20 each,
totals 6-120) and writes feedback; a jury of personas reads the anonymised transcript and votes,
and a tied vote goes to the judge's score. `decide` holds one hearing in the dataset order
and, with `swap`, a second one with the answers reversed, and reports whether the verdict followed
the answers. `single_judge` is the baseline: the same criteria applied to the answers in one call.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, ClassVar

from ... import prompts, viewer_text
from ...answers import Choice, without_answer_lines
from ...authors_forms import AuthorsFormat, judge_totals
from ...content import Content, Msg, Question, compose, text_of
from ...limits import LimitReached, NotStarted, ahead, stage_fits, stopped
from ...protocols.d3 import (
    CRITERIA as CRITERION_ROWS,
)
from ...protocols.d3 import (
    SIDES,
    TIE,
    JudgeScores,
    Scores,
    Verdict,
    anonymise,
    flip,
    judge_gap,
    jury_verdict,
    parse_criteria,
    side_of,
    split_scores,
    swap_verdict,
)
from ...records import AgentAnswer, DebateResult, Stopped, reply_tokens
from ...requests import (
    DefenceRequest,
    FeedbackRequest,
    RecapRequest,
    ScoreRequest,
    VerdictRequest,
)
from ...session import Problem, Session
from ...spec import MethodSpec
from .options import SINGLE_JUDGE_FIXED, SINGLE_JUDGE_GROUPS, CourtOptions, Jury, Swap
from .records import REVIEW, Defence, Evaluation, Hearing, JudgeRecord, JurorVote

VERDICT = Choice(("Answer A", "Answer B"))  # a juror's vote, read like any answer
SCORES = JudgeScores()

CRITERIA = (
    "relevance to the question",
    "accuracy of its claims and credibility of their support",
    "depth and completeness",
    "clarity and logical flow",
    "strength of reasoning and factual support",
)
OPPONENT_CRITERION = {
    "defence": "how well it answers the opposing defence's points",
    "answer": "how it compares with what the other answer gets right or wrong",
}
FEEDBACK_WORDS = 50

# -- what is read and written --------------------------------------------------------------------


def block(title: str, text: str) -> str:
    return f"[{title}]\n{text.strip()}\n[end of {title}]"


def question_block(question: Question) -> Content:
    """The question framed like `block` frames a text: every part in order, the whitespace around
    the whole trimmed."""
    parts = list(question.parts)
    if parts and isinstance(parts[0], str):
        parts[0] = parts[0].lstrip()
    if parts and isinstance(parts[-1], str):
        parts[-1] = parts[-1].rstrip()
    return compose("[Question]\n", tuple(parts), "\n[end of Question]")


@dataclass(frozen=True)
class Pair:
    """A question (all its parts) and two answers in the order shown. They are what is judged, so
    they are shown as written; no prompt says which model wrote which answer."""

    WHAT: ClassVar[str] = "a pair of answers"  # what a sample must carry for a judge

    question: Question
    a: str
    b: str

    def swapped(self) -> Pair:
        return Pair(self.question, self.b, self.a)

    def blocks(self) -> Content:
        """What every call of a hearing shows first (a prefix a provider's cache can serve)."""
        return compose(
            question_block(self.question),
            "\n\n",
            block("Answer A", self.a),
            "\n\n",
            block("Answer B", self.b),
        )


def after_pair(pair: Pair, *texts: str) -> Content:
    """The pair, then the call's own texts: the shared blocks lead, the role's request follows."""
    shown = "\n\n".join(t for t in texts if t)
    return compose(pair.blocks(), "\n\n" + shown if shown else "")


# a judge: MORE, SAMRE or the single-judge baseline, run on one pair

# what an advocate is told to be (`-S advocate_stance`): `persuade`, the paper's advocates, whose
# aim is "not to be impartial but to be persuasive" (section 2.1) and whom the authors' code tells
# to hold nothing back; `truthful`, ours, which asks for truth before persuasion
STANCE = {
    "persuade": (
        "Argue to win: this is advocacy, not an impartial review. Press your case as hard as you "
        "can, with every rhetorical and persuasive means that will sway the judge and the jury, "
        "while staying courteous to your opponent."
    ),
    "truthful": "Be persuasive but truthful and respectful: do not invent facts.",
}


def advocate_prompt(
    pair: Pair,
    side: str,
    words: int,
    team: tuple[int, int] | None = None,
    own: str | None = None,
    opponent: str | None = None,
    evaluation: str | None = None,
    stance: str = "persuade",
    opponent_title: str = "The opposing advocate's previous defence",
) -> Content:
    other = flip(side)
    intro = (
        "You are an advocate in a debate about which of two answers better responds to a "
        f"question. You defend Answer {side}; an opposing advocate defends Answer {other}."
    )
    if team:
        intro += (
            f" You are advocate {team[0]} of {team[1]} on the team for Answer {side}; your "
            "teammates write their own defences at the same time."
        )
    parts = [intro]
    if own:
        parts.append(block("Your previous defence", own))
    if opponent:
        parts.append(block(opponent_title, opponent))
    if evaluation:
        parts.append(block("The judge's evaluation of the previous round", evaluation))
    targets = f"the weaknesses of Answer {other}" + (" and of its defence" if opponent else "")
    parts.append(
        f"Argue that Answer {side} is the better answer, on relevance, accuracy, depth, clarity "
        f"and reasoning, and point out {targets}"
        + (", taking the judge's feedback into account" if evaluation else "")
        + f". {STANCE[stance]} "
        f"Write your defence of Answer {side} in at most {words} words."
    )
    return after_pair(pair, *parts)


def merge_prompt(pair: Pair, side: str, defences: Sequence[str], words: int) -> Content:
    shown = "\n\n".join(block(f"Defence {i}", d) for i, d in enumerate(defences, 1))
    return after_pair(
        pair,
        f"You lead the team of advocates defending Answer {side} in a debate about which of two "
        "answers better responds to a question.",
        f"Your teammates wrote these defences independently:\n\n{shown}\n\nCombine them into one "
        "defence that is stronger than any of them: keep the best points, drop repetition and weak "
        f"claims, and correct any error. Write the merged defence of Answer {side} in at most "
        f"{words} words.",
    )


SUMMARY_WORDS = 50  # SAMRE's summaries (`summarize`), as long as the authors' code asks


def summary_prompt(text: str, what: str, words: int = SUMMARY_WORDS) -> str:
    """A summary of `text`, which `what` names ("defence of Answer A", "judge's evaluation")."""
    return (
        f"{block(what[0].upper() + what[1:], text)}\n\nCondense this {what}, keeping its main "
        "claims and any scores it cites. Begin directly, with no preamble. "
        f"Write a summary of this {what} in at most {words} words."
    )


def _criteria(subject: str) -> str:
    lines = [*CRITERIA, OPPONENT_CRITERION[subject]]
    return "\n".join(f"{i}. {c}" for i, c in enumerate(lines, 1))


def _score_lines(subject: str) -> str:
    return (
        f"Score each {subject} on these six criteria, from 1 to 20 each:\n{_criteria(subject)}\n\n"
        'Write one line per criterion in the form "n. [score of A, score of B]", for example '
        '"3. [14, 11]".'
    )


# ours, not the paper's (`-S bias_note`): the paper's judge is asked to be impartial, and its
# Table 3 measures the position and length biases this line would address
BIAS_NOTE = " Neither the order in which the answers appear nor the length of a text is a merit."


def judge_prompt(
    pair: Pair, defence_a: str, defence_b: str, progress: str = "", bias_note: bool = False
) -> Content:
    return after_pair(
        pair,
        "You are the judge of a debate in which two advocates argue about which of two answers "
        "better responds to a question. Judge impartially." + (BIAS_NOTE if bias_note else ""),
        progress,
        block("Defence of Answer A", defence_a),
        block("Defence of Answer B", defence_b),
        _score_lines("defence")
        + ' Then write a line "Feedback A:" and a line "Feedback B:", each with at most '
        f"{FEEDBACK_WORDS} words telling that advocate how to make a stronger case.",
    )


def feedback_prompt(pair: Pair, defence_a: str, defence_b: str, bias_note: bool = False) -> Content:
    """MORE's feedback-only judge call (`judge_calls=split`): the scores come from another call."""
    return after_pair(
        pair,
        "You are the judge of a debate in which two teams of advocates argue about which of two "
        "answers better responds to a question. Judge impartially."
        + (BIAS_NOTE if bias_note else ""),
        block("Defence of Answer A", defence_a),
        block("Defence of Answer B", defence_b),
        "Give each team specific, constructive feedback: where its case is weak and what would "
        "set its answer apart from the other, so that the two cases separate more clearly. "
        f"Write the feedback only, without scores, in at most {FEEDBACK_WORDS} words.",
    )


def single_judge_prompt(pair: Pair, bias_note: bool = False) -> Content:
    return after_pair(
        pair,
        "You are an impartial judge. Decide which of two answers better responds to the "
        "question." + (BIAS_NOTE if bias_note else ""),
        _score_lines("answer") + " Justify the scores briefly.",
    )


# the authors' code asks its jurors to weigh the judge's evaluation without being overly
# influenced by it; the paper prints no juror prompt. DEBIASING is ours (`-S juror_debiasing`).
WEIGH_JUDGE = " Take the judge's evaluation into account, without letting it decide for you."
DEBIASING = (
    " Judge the answers themselves, not the eloquence of their advocates; treat the judge's "
    "scores as one opinion, not as the verdict."
)


def juror_prompt(
    persona: str, transcript: Content, bias_note: bool = False, debiasing: bool = False
) -> Content:
    """The transcript first, which every juror of the hearing reads alike, then the persona (the
    ballot adds the vote's form)."""
    return compose(
        transcript,
        f"\n\nYou are a juror: {persona}. Above is the record of a debate about which of two "
        "answers better responds to a question: the question, both answers, the advocates' "
        "defences and the judge's evaluations. Decide which answer is better."
        + (DEBIASING if debiasing else WEIGH_JUDGE)
        + (BIAS_NOTE if bias_note else "")
        + "\n\nExplain your reasoning in a few sentences, from your own perspective, then vote. ",
    )


# -- records --------------------------------------------------------------------------------------


class Court:
    """A hearing in progress: its own session (so its tokens are its own), the pair, the record."""

    def __init__(self, session: Session, pair: Pair, order: str, bias_note: bool = False) -> None:
        self.session = session
        self.bias_note = bias_note  # the judge's and jurors' prompts add BIAS_NOTE
        self.rt = session.runtime
        self.pair = pair
        self.order = order
        self.scores = judge_totals() if isinstance(session.problem.fmt, AuthorsFormat) else SCORES
        self.prefix = "" if order == "AB" else "swapped/"
        self.defences: list[Defence] = []
        self.evaluations: list[Evaluation] = []
        self.answers: list[AgentAnswer] = []  # the judge's totals and the jurors' votes
        self.stopped: Stopped | None = None  # a limit ended the hearing: where, what decided

    def tokens(self) -> int | None:
        return reply_tokens(self.session.calls)

    def stop(self, limit: LimitReached, where: str, decided: str) -> None:
        """Record the first limit that ended this hearing (the jury is then refused too)."""
        if self.stopped is None:
            self.stopped = stopped(limit, where, decided)

    def start(self, stage: str, calls: int) -> None:
        """Before a `stage` of `calls` calls at once, each estimated as the largest call so far
        (`limits.stage_fits`): `NotStarted` naming it when the budget or a limit cannot cover it."""
        over = stage_fits(self.session, calls)
        if over is not None:
            raise NotStarted(over, stage)

    def hide(self, text: str) -> str:
        """Keep the advocates' and jurors' agent ids (which say who wrote what) out of the record."""
        return anonymise(text, [c.agent for c in self.session.calls if c.role != "judge"])

    async def argue(
        self,
        agent: str,
        side: str,
        round: int,
        prompt: Content,
        kind: str = "argument",
        seat: int = 1,
    ) -> Defence:
        """One defence by the side's advocate in `seat` (from 1, each side's seats alike, so a
        panel of advocates gives both sides the same models)."""
        name = self.prefix + agent
        reply = await self.session.call(
            name, f"advocate_{seat}", [Msg("user", prompt)], kind, round, asks=DefenceRequest(side)
        )
        defence = Defence(side, name, round, kind, self.hide(reply.text))
        self.defences.append(defence)
        return defence

    async def evaluate(self, round: int, prompt: Content, agent: str = "judge") -> Evaluation:
        """The judge scores; unreadable totals are followed up within the retry bound, then the
        round is unscored."""
        name = self.prefix + agent
        asked = await self.session.ask(
            name,
            "judge",
            [Msg("user", compose(prompt, "\n\n", self.scores.instruction()))],
            "score",
            round,
            self.scores.extract,
            prompts.reminder(self.scores),
            asks=ScoreRequest(self.pair.a, self.pair.b, CRITERION_ROWS, self.scores),
        )
        replies = asked.replies
        text = self.hide(replies[0] if len(replies) == 1 else f"{replies[0]}\n\n{replies[-1]}")
        evaluation = Evaluation(
            agent=name,
            round=round,
            scores=split_scores(asked.value) if asked.value else None,
            criteria=parse_criteria("\n".join(replies)),
            text=text,
            attempts=len(replies),
        )
        self.evaluations.append(evaluation)
        self.answers.append(AgentAnswer(name, round, text, asked.value, len(replies)))
        return evaluation

    async def comment(self, round: int, prompt: Content) -> str:
        """The judge's feedback-only call (MORE's `judge_calls=split`), its text anonymised."""
        name = self.prefix + "judge_feedback"
        reply = await self.session.call(
            name,
            "judge",
            [Msg("user", prompt)],
            "feedback",
            round,
            asks=FeedbackRequest(self.pair.a, self.pair.b),
        )
        return self.hide(reply.text)

    async def recap(self, agent: str, role: str, round: int, text: str, of: str) -> None:
        """A summary that no later call reads, of the judge's evaluation or a juror's vote (`of`):
        the authors' SAMRE code makes these calls (`summaries=code`), so they cost what its runs
        cost."""
        what = {"evaluation": "judge's evaluation", "vote": "juror's vote"}[of]
        await self.session.call(
            self.prefix + agent,
            role,
            [Msg("user", summary_prompt(text, what))],
            "summary",
            round,
            asks=RecapRequest(of),
        )

    def transcript(self, shown: Sequence[Defence]) -> Content:
        """What the jury reads: the pair, then per round the defences shown and the evaluations."""
        parts: list[str] = []
        for r in sorted({d.round for d in shown} | {e.round for e in self.evaluations}):
            parts.append(f"Round {r}")
            for side in SIDES:
                mine = [d for d in shown if d.round == r and d.side == side]
                for i, d in enumerate(mine, 1):
                    title = f"Defence of Answer {side}" + (
                        f" ({i} of {len(mine)})" if len(mine) > 1 else ""
                    )
                    parts.append(block(title, d.text))
            for e in (e for e in self.evaluations if e.round == r):
                parts.append(block("Judge's evaluation", e.shown()))
        return after_pair(self.pair, *parts)

    async def deliberate(
        self,
        jury: Jury,
        shown: Sequence[Defence],
        scores: Sequence[Scores | None],
        stop: str | None,
        recap_votes: bool = False,
    ) -> Hearing:
        """The jury votes on the transcript; a tied vote (or no jury) goes to the judge's
        `scores`. `recap_votes`: each vote is then summarised (`Court.recap`)."""
        transcript = self.transcript(shown)
        rounds = max((e.round for e in self.evaluations), default=0)
        gap = judge_gap(scores, jury.tiebreak)
        votes: list[JurorVote] = []

        async def ballot(i: int) -> AgentAnswer:
            juror = f"juror_{i + 1}"
            prompt = juror_prompt(jury.persona(i), transcript, self.bias_note, jury.debiasing)
            return await self.session.answer(
                self.prefix + juror,
                juror,
                [Msg("user", compose(prompt, self.session.problem.fmt.instruction()))],
                "vote",
                rounds,
                asks=VerdictRequest(self.pair.a, self.pair.b, self.session.problem.fmt),
            )

        async def recap_all(ballots: Sequence[AgentAnswer]) -> None:
            """Each vote summarised once all are cast; a limit here leaves the votes standing."""
            try:
                await self.rt.gather(
                    *(
                        self.recap(f"juror_{i + 1}", f"juror_{i + 1}", rounds, b.text, "vote")
                        for i, b in enumerate(ballots)
                    )
                )
            except LimitReached as reached:  # no call reads these summaries
                self.stop(reached, "the jury's summaries", "the jury's votes")

        judged = Verdict(side_of(gap), {}, 0, tiebreak_used=True, judge_gap=gap)
        calls = jury.size * (2 if recap_votes else 1)  # a vote, and its summary
        over = stage_fits(self.session, calls) if jury.size else None
        if over is not None:  # the jurors would start together: a jury it cannot cover, none
            self.stop(over, ahead(over, "the jury"), "the judge's scores (the jury did not vote)")
        if jury.size == 0 or self.stopped is not None:  # a limit ended the hearing: no jury
            verdict = judged
        else:
            try:
                async with self.rt.span("jury"):
                    ballots = await self.rt.gather(*(ballot(i) for i in range(jury.size)))
                    if recap_votes:
                        await recap_all(ballots)
            except LimitReached as reached:  # the judge's scores decide, as without a jury
                self.stop(reached, "the jury", "the judge's scores (the jury did not vote)")
                ballots = []
            self.answers += ballots
            votes = [
                JurorVote(b.agent, jury.persona(i), b.answer, b.text, b.attempts)
                for i, b in enumerate(ballots)
            ]
            verdict = jury_verdict([v.vote for v in votes], gap) if votes else judged
            readable = any(v.vote is not None for v in votes)
            if readable and verdict.tiebreak_used and jury.tie == "second":
                # the authors' code: a tied jury gives B; a jury with no readable vote is no
                # verdict here (theirs gives B: a missing answer is never a verdict)
                verdict = replace(verdict, winner=SIDES[1])
            if votes:
                roles = {v.juror: f"juror_{i + 1}" for i, v in enumerate(votes)}
                models = viewer_text.agent_models(roles, self.rt.model_name)
                rule = "second" if jury.tie == "second" else jury.tiebreak
                self.rt.info("jury", jury_report(votes, verdict, rule, models))
        return Hearing(
            order=self.order,
            rounds=rounds,
            defences=self.defences,
            evaluations=self.evaluations,
            stop_reason=stop,
            jury=votes,
            verdict=verdict,
            transcript=text_of(transcript),
            tokens=self.tokens(),
            calls=len(self.session.calls),
        )


Hold = Callable[[Court], Awaitable[Hearing]]


def unheard(pair: Pair) -> tuple[str | None, str] | None:
    """The verdict on a pair with an empty answer (nothing but whitespace) and why no court sits
    for it; None when both answers hold text. An empty answer responds to nothing, so the other
    one wins without a hearing; two empty answers leave nothing to judge, so the judge abstains
    (never a tie: no answer is no ground for a verdict)."""
    empty = [side for side, text in zip(SIDES, (pair.a, pair.b)) if not text.strip()]
    if not empty:
        return None
    if len(empty) == 2:
        return None, "both answers are empty, so there is nothing to judge"
    side = empty[0]
    return flip(side), f"answer {side} is empty, so answer {flip(side)} wins without a hearing"


async def decide(
    session: Session,
    pair: Pair,
    method: str,
    hold: Hold,
    swap: Swap,
    options: dict[str, Any],
    bias_note: bool = False,
) -> DebateResult:
    """Hold the hearing in the given order and, with swap, in the reversed one (concurrently);
    none for a pair with an empty answer (`unheard`)."""
    rt = session.runtime
    options = {"swap": swap.enabled, "swap_resolution": swap.resolution, **options}
    blank = unheard(pair)
    if blank is not None:
        final, why = blank
        record = JudgeRecord(
            verdict=final,
            position_consistent=None,
            max_rounds=options.get("max_rounds"),
            token_budget_enforced=None,
            hearings=[],
            unheard=why,
        )
        rt.info("verdict", verdict_report(record))
        return DebateResult(method, final, [], session.calls, options=options, record=record)
    orders = [("AB", pair)] + ([("BA", pair.swapped())] if swap.enabled else [])

    courts: list[Court] = []

    async def hear(order: str, shown: Pair) -> tuple[Court, Hearing]:
        own = Session(
            rt,
            Problem(shown.question, session.problem.fmt),  # the jurors' form
            retries=session.retries,
            temperature=session.temperature,
            max_tokens=session.max_tokens,
            budget=session.budget,  # both orders spend the one budget
        )
        court = Court(own, shown, order, bias_note)
        courts.append(court)
        if not swap.enabled:
            return court, await hold(court)
        async with rt.span(f"order {order}"):
            return court, await hold(court)

    try:
        held = await rt.gather(*(hear(order, shown) for order, shown in orders))
    except LimitReached:  # before any verdict: no answer, every call made so far counted
        for court in courts:
            session.calls.extend(court.session.calls)
        raise
    hearings = [h for _, h in held]
    for court, _ in held:
        session.calls.extend(court.session.calls)
    final, consistent = hearings[0].verdict.winner, None
    if swap.enabled:
        gaps = [hearings[0].verdict.judge_gap, hearings[1].verdict.judge_gap]
        gap_sum = None if gaps == [None, None] else (gaps[0] or 0) - (gaps[1] or 0)
        final, consistent = swap_verdict(
            final, hearings[1].verdict.winner, gap_sum, swap.resolution
        )
    record = JudgeRecord(
        verdict=final,
        position_consistent=consistent,
        max_rounds=options.get("max_rounds"),
        token_budget_enforced=None,  # SAMRE sets it
        hearings=hearings,
    )
    rt.info("verdict", verdict_report(record))
    result = DebateResult(
        method=method,
        final=final,
        answers=[a for court, _ in held for a in court.answers],
        calls=session.calls,
        options=options,
        record=record,
    )
    return replace(result, stopped=next((c.stopped for c, _ in held if c.stopped), None))


async def single_judge(
    session: Session, pair: Pair, swap: Swap = Swap(), bias_note: bool = False
) -> DebateResult:
    """The baseline: one judge call scores the two answers on the same six criteria."""

    async def hold(court: Court) -> Hearing:
        async with court.rt.span("judge"):
            prompt = single_judge_prompt(court.pair, court.bias_note)
            evaluation = await court.evaluate(1, prompt)
        court.rt.info("judge", evaluation_report(evaluation))
        return await court.deliberate(Jury(size=0), [], [evaluation.scores], None)

    return await decide(session, pair, "single_judge", hold, swap, {}, bias_note)


# -- what a person reads ------------------------------------------------------------------------


def _gap(gap: float | None) -> str:
    return "none (unscored)" if gap is None else f"{gap:+g}"


def _verdict(winner: str | None) -> str:
    return "no verdict (abstained)" if winner is None else winner


def _favours(gap: float | None) -> str:
    side = side_of(gap)
    return {"A": "A ahead", "B": "B ahead", TIE: "level"}.get(side or "", "unscored")


# what a number-and-punctuation line of a judge's reply is: a criterion's scores ("3. [14, 11]")
_SCORE_MARKS = " \t0123456789.,:;()[]*_#>-–"


def _remarks(text: str) -> str:
    """The judge's reply without its score lines (lines of numbers and punctuation only, which
    the criteria table shows by name) and without its ANSWER line."""
    kept = (line for line in without_answer_lines(text).splitlines() if line.strip(_SCORE_MARKS))
    # hard line breaks: the viewer shows `>` as text, so a blockquote would not render
    return "  \n".join(kept)


def evaluation_report(e: Evaluation, extra: str = "", note: str = "") -> str:
    """A judge's pass: its totals, each criterion by name, `note` (the rule it feeds), then its
    remarks."""
    scores = (
        f"A **{e.scores[0]}**, B **{e.scores[1]}** (gap A − B {_gap(e.gap)}, {_favours(e.gap)})"
        if e.scores
        else f"**unscored** after {e.attempts} attempts: no readable totals"
    )
    parts = [f"**{e.agent}**, round {e.round}: {scores}{extra}"]
    if e.criteria:
        names = [*CRITERIA, "against the other side"]
        rows = [(c, a, b) for c, (a, b) in zip(names, e.criteria)]
        if e.scores:
            rows.append(("total", *e.scores))
        parts.append(viewer_text.table(["criterion", "A", "B"], rows, right={1, 2}))
        parts.append("Each criterion is scored 1-20 per answer.")
    elif e.scores:
        parts.append("The six criterion lines could not be read; the totals could.")
    if note:
        parts.append(note)
    if remarks := _remarks(e.text):
        parts.append(f"The judge's remarks:\n\n{remarks}")
    return "\n\n".join(parts)


def _decided_by(v: Verdict, jury: bool) -> str:
    """Which rule gave the hearing's verdict, and whether the jury overrode the judge."""
    gap = f"the judge's gap {_gap(v.judge_gap)} ({_favours(v.judge_gap)})"
    if v.winner is None:
        return "nothing: no readable vote and no judge score"
    if not jury:
        return f"{gap}, as there is no jury"
    votes = f"A {v.votes.get('A', 0)}, B {v.votes.get('B', 0)}"
    if v.tiebreak_used and v.winner == SIDES[1] and side_of(v.judge_gap) != SIDES[1]:
        return f"the code's tie rule: the jury tied ({votes}), so B; {gap}"  # jury_tie=second
    if v.tiebreak_used:
        return f"{gap}, as the jury tied ({votes})"
    if side_of(v.judge_gap) in (None, v.winner):
        return f"the jury's majority ({votes}), {gap} agreeing"
    return f"the jury's majority ({votes}), overriding {gap}"


def _hearing_rule(h: Hearing) -> str:
    """What gave a hearing's verdict: the jury or the judge, or a peer discussion's statements."""
    if h.jury and h.jury[0].persona == REVIEW:
        latest = f"A {h.verdict.votes.get('A', 0)}, B {h.verdict.votes.get('B', 0)}"
        return (
            f"the peer discussion's rule over its {len(h.jury)} statements (the reviewers' latest "
            f"preferences: {latest}; the discussion event names the rule)"
        )
    return _decided_by(h.verdict, bool(h.jury))


def jury_report(
    votes: Sequence[JurorVote],
    verdict: Verdict,
    tiebreak: str,
    models: Mapping[str, str] | None = None,
) -> str:
    """The jury's votes and the rule that made its verdict; `models`
    (`viewer_text.agent_models`): each juror's model, where they differ."""
    rows = [(v.juror, v.persona, v.vote or "(abstained)", v.attempts) for v in votes]
    if verdict.winner is None:
        how = "no readable vote and no judge score"
    elif verdict.tiebreak_used and tiebreak == "second":
        how = "tied vote, which goes to the answer shown second"
    elif verdict.tiebreak_used:
        how = f"tied vote, settled by the judge's {tiebreak} gap {_gap(verdict.judge_gap)}"
    else:
        how = "majority"
    gap = {
        "cumulative": "the sum of A − B over its scored rounds",
        "final": "A − B in its last scored round",
    }.get(tiebreak, tiebreak)
    return (
        f"**Jury** → **{_verdict(verdict.winner)}** ({how}): A {verdict.votes.get('A', 0)}, "
        f"B {verdict.votes.get('B', 0)}, abstentions {verdict.abstentions}\n\n"
        "Rule: the jurors' majority decides; a tied vote goes to "
        + (
            "answer B, the answer shown second (the authors' code)"
            if tiebreak == "second"
            else f"the judge's {tiebreak} gap ({gap})"
        )
        + f". Here decided by {_decided_by(verdict, jury=True)}.\n\n"
        f"{viewer_text.agent_table(['juror', 'persona', 'vote', 'attempts'], rows, {3}, models)}"
        "\n\n"
        "attempts: the replies it took, 1 + the follow-ups asking for a readable vote"
        + ("; (abstained): none was readable." if verdict.abstentions else ".")
    )


def verdict_report(record: JudgeRecord) -> str:
    """The verdict and the rule that gave it: per hearing the jury or the judge (saying when the
    jury overrode the judge), and with swap how the two orders combined."""
    lines = [f"**Verdict** → **{_verdict(record.verdict)}**"]
    if record.unheard is not None:
        return f"{lines[0]}, without a hearing: {record.unheard}"
    swapped = len(record.hearings) > 1
    if not swapped:
        h = record.hearings[0]
        lines[0] += f", decided by {_hearing_rule(h)}"
    for h in record.hearings:
        winner = h.verdict.winner
        if not swapped:
            order = ""
        elif h.order == "AB":
            order = f"answers as given: {_verdict(winner)}, "
        else:
            shown = _verdict(winner) if winner is None else f"{winner} (= {flip(winner)} as given)"
            order = f"answers reversed: {shown}, "
        tokens = h.tokens if h.tokens is not None else "unknown"
        stop = f", stop: {h.stop_reason}" if h.stop_reason else ""
        decided = f"decided by {_hearing_rule(h)}; " if swapped else ""
        lines.append(
            f"- {order}{decided}{h.rounds} round(s){stop}, {tokens} tokens, {h.calls} calls"
        )
    if record.position_consistent is not None:
        agree = (
            "both orders agree"
            if record.position_consistent
            else "the orders disagree, so the swap resolution gives the verdict"
        )
        lines.append(f"- position consistent: {record.position_consistent} ({agree})")
    return "\n".join(lines)


def explanation(record: JudgeRecord) -> str:
    """The reasons behind a verdict (markdown): the rule that gave it, each juror's rationale and
    the judge's last evaluation, its criteria by name."""
    parts = [verdict_report(record)]
    for h in record.hearings:
        for v in h.jury:
            parts.append(f"**{v.juror}** ({v.persona}) → {v.vote or 'abstained'}\n\n{v.rationale}")
        if h.evaluations:
            parts.append(evaluation_report(h.evaluations[-1]))
    return "\n\n---\n\n".join(parts)


def judge_roles(options: CourtOptions) -> tuple[str, ...]:
    return options.roles


SPEC = MethodSpec(
    "single_judge",
    "One judge call scores both answers on D3's six criteria; the higher total wins.",
    CourtOptions,
    lambda o, setup: lambda s, pair: single_judge(s, pair, o.positions, o.bias_note),
    reads=Pair,
    groups=SINGLE_JUDGE_GROUPS,
    preset=SINGLE_JUDGE_FIXED,
    roles=judge_roles,
)

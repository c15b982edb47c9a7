"""Peer Discussion, the "D" of PRD (Li, Patel and Du 2024, "PRD: Peer Rank and Discussion Improve
Large Language Model based Evaluations"): seed 002's PRD baseline, a pairwise judge.

1. Two reviewers each review the pair on their own and at once: an explanation, then a preference,
   Answer A, Answer B or the two equally good (a tie).
2. They discuss, one turn each in turn, reviewer 1 first: each turn reads the question, both
   answers, both reviews and every earlier turn of its discussion, says whether its preference
   changes and why, and states it again. `turns` (the authors' code: max_turn 4) turns in all;
   the code stops no earlier, and neither does this. With `openers=both` (the default, as the
   authors' code, which runs its discussion script in both speaking orders) a second discussion,
   from the same two reviews and at the same time as the first, has reviewer 2 open: its review
   is shown first and it speaks on the odd turns; it reads none of the first discussion.
   `openers=reviewer_1` holds the first discussion only.
3. The verdict (`final`) of a discussion: the last preference stated (`last_turn`, the default:
   the reviewer who had the last word, having read everything; with no turn, the side more
   reviews prefer, a split being a tie), or, with `agreement`, the reviewers' latest preferences
   when they agree and no verdict when they do not. The authors' code records every turn's
   preference and states no rule; with two discussions, ours: verdicts that agree stand, verdicts
   that differ give a tie, and a discussion with no verdict leaves it to the other.
A limit of the run ends the discussion: the statements made so far decide (none made: no
verdict), and the record says where it stopped.
With `swap`, a second hearing judges the answers reversed, as every D3 judge does; orders that
disagree give a tie. The reviewers are the roles `reviewer_1` and `reviewer_2` (PRD pairs two
different models: bind them with --model-role); an unreadable preference is asked again (`retries`)
and then counts as none, never as a tie.

Ours, recorded: the discussion is one prompt per turn holding the transcript so far, where the
code appends turns to each reviewer's chat history (what each turn reads is the same; checked call
by call against the authors' code, docs/fidelity.md); in the second discussion the reviewers keep
their own numbers, where the code calls the opener reviewer 1; the prompts are our own words.
Rounds in the record: the reviews are round 1, turn t of the first discussion round t + 1 and of
the second round `turns` + t + 1.
Under `-S peers=self` (the self-reflection control, engine/peers.py) a reviewer's turn shows its
own review and its own earlier turns only; under `peers=noise` the other reviewer's review and
turns keep their places, their texts replaced by neutral words of the same length. The calls,
the prompts' wording and the verdict rule stay the method's.
With `-S answer_form=authors` every review and turn ends as the authors' reviewers' do, on a last
line holding only 1 (Answer A), 2 (Answer B) or 3 (equally good) (authors_forms.numbered_line).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ... import prompts, viewer_text
from ...answers import AnswerFormat, Choice
from ...authors_forms import AuthorsFormat, numbered_line
from ...checks import boolean, integer, one_of
from ...content import Content, Msg
from ...limits import LimitReached
from ...options import (
    MAX_RETRIES,
    MAX_ROUNDS,
    Generation,
    answer_form_option,
    option,
    peers_option,
)
from ...peers import Peers
from ...protocols.d3 import FINALS, TIE, Verdict, discussion_verdict
from ...records import AgentAnswer, DebateResult
from ...requests import VerdictRequest
from ...session import Session
from ...spec import MethodSpec
from .court import Court, Pair, after_pair, block, decide
from .options import Swap
from .records import REVIEW, Hearing, JurorVote

# the letters a reviewer answers with: A, B, or C for two answers of equal quality
PREFERENCE = Choice(("Answer A", "Answer B", "The two answers are equally good"))
SIDE = {"A": "A", "B": "B", "C": TIE}
CHOOSE = ": A or B, or C if the two answers are equally good."
REVIEWERS = ("reviewer_1", "reviewer_2")
# who opens a discussion: both (a discussion opened by each reviewer, as the authors' code) or
# reviewer_1 (one discussion)
OPENERS = ("both", "reviewer_1")


@dataclass(frozen=True)
class DiscussionOptions(Generation):
    turns: int = option(
        4,
        "discussion turns after the two reviews, reviewer 1 first, then in turn (the authors' "
        "code: 4); 0 keeps the reviews only.",
        lambda name, v: integer(name, v, 0, MAX_ROUNDS),
    )
    final: str = option(
        "last_turn",
        "the verdict: last_turn (the last stated preference) or agreement (the reviewers' latest "
        "preferences when they agree, else no verdict).",
        lambda name, v: one_of(name, v, FINALS),
    )
    openers: str = option(
        "both",
        "who opens the discussion: both (the authors' code: a second discussion from the same "
        "reviews, reviewer 2 opening; differing verdicts give a tie) or reviewer_1 (one "
        "discussion).",
        lambda name, v: one_of(name, v, OPENERS),
    )
    swap: bool = option(
        False,
        "also judge the answers reversed; orders that disagree give a tie.",
        boolean,
    )
    retries: int = option(
        1,
        "follow-ups for a review or turn without a readable preference before it counts as none.",
        lambda name, v: integer(name, v, 0, MAX_RETRIES),
    )
    answer_form: str = answer_form_option()
    peers: str = peers_option()


def _choose(form: AnswerFormat) -> str:
    """How a review or a turn ends: the preference, in the project's letters or `form`."""
    return f"{CHOOSE} {form.instruction()}" if form is PREFERENCE else f". {form.instruction()}"


def authors_preference(fmt: AnswerFormat) -> AuthorsFormat | None:
    """PRD's preference, a last line of 1, 2 or 3, on a pair of answers (a choice between two);
    None for any other format (their code judges only pairs)."""
    return numbered_line(PREFERENCE) if isinstance(fmt, Choice) and len(fmt.options) == 2 else None


def review_prompt(pair: Pair, reviewer: int, form: AnswerFormat = PREFERENCE) -> Content:
    return after_pair(
        pair,
        f"You are reviewer {reviewer} of two answers to the question above. Compare them on how "
        "helpful, relevant and accurate they are and on their level of detail, and explain your "
        "evaluation in full. The order in which the answers are shown must not sway you. Then "
        f"state which answer you prefer{_choose(form)}",
    )


def turn_prompt(
    pair: Pair,
    reviewer: int,
    reviews: Sequence[tuple[int, str]],
    said: Sequence[tuple[int, str]],
    form: AnswerFormat = PREFERENCE,
) -> Content:
    """Reviewer `reviewer`'s turn: the reviews as (reviewer, text), the opener's first, and the
    discussion's earlier turns as (speaker, text), in order."""
    other = 2 if reviewer == 1 else 1
    shown = [block(f"Review of reviewer {r}", text) for r, text in reviews]
    if said:
        turns = "\n\n".join(
            f"Reviewer {r}, turn {i}:\n{text.strip()}" for i, (r, text) in enumerate(said, 1)
        )
        shown.append(block("Discussion so far", turns))
    return after_pair(
        pair,
        *shown,
        f"You are reviewer {reviewer}, discussing your reviews with reviewer {other}. Read the "
        "reviews and the discussion above, decide whether to change your preference, and explain "
        f"why. Then state which answer you prefer now{_choose(form)}",
    )


async def peer_discussion(session: Session, pair: Pair, opts: DiscussionOptions) -> DebateResult:
    # -S answer_form=authors: PRD's last line of 1, 2 or 3 in place of the ANSWER line
    form = session.problem.fmt if isinstance(session.problem.fmt, AuthorsFormat) else PREFERENCE
    view = Peers(opts.peers, session.problem.question.text)

    def seen(
        reader: int, texts: Sequence[tuple[int, int, str]], order: str
    ) -> list[tuple[int, str]]:
        """The reviews or turns, as (author, round, text), that reviewer `reader` reads, as the
        peers condition shows them: under `self` its own only, under `noise` the other's noised."""
        if view.condition == "self":
            return [(r, text) for r, _, text in texts if r == reader]
        return [
            (r, text if r == reader else view.text(text, REVIEWERS[r - 1], n, order))
            for r, n, text in texts
        ]

    async def hold(court: Court) -> Hearing:
        rt, asks = court.rt, VerdictRequest(court.pair.a, court.pair.b, form)
        made: list[tuple[int, int, JurorVote]] = []  # (reviewer, round, statement), in order

        async def state(reviewer: int, round: int, prompt: Content, what: str) -> JurorVote:
            name = court.prefix + REVIEWERS[reviewer - 1]
            asked = await court.session.ask(
                name, REVIEWERS[reviewer - 1], [Msg("user", prompt)], what, round,
                form.extract, prompts.reminder(form), asks=asks,
            )  # fmt: skip
            side = None if asked.value is None else SIDE[asked.value]
            return JurorVote(name, what, side, asked.replies[-1], len(asked.replies))

        async def review(reviewer: int) -> JurorVote | LimitReached:
            try:
                return await state(reviewer, 1, review_prompt(court.pair, reviewer, form), REVIEW)
            except LimitReached as limit:  # the other review may still finish
                return limit

        async with rt.span("reviews"):
            reviewed = await rt.gather(review(1), review(2))
        made += [(r, 1, v) for r, v in zip((1, 2), reviewed) if isinstance(v, JurorVote)]
        cut = next((v for v in reviewed if isinstance(v, LimitReached)), None)
        if cut is not None:
            if not made:
                raise cut  # no statement at all: no verdict to give
            court.stop(cut, "the reviews", "the finished review")
        reviews = [(r, n, v.rationale) for r, n, v in made]
        opening = list(made)  # the reviews, which both discussions read

        async def discuss(opener: int) -> list[tuple[int, int, JurorVote]]:
            """One discussion opened by `opener`, from the reviews; its statements in order."""
            second = opener == 2
            said: list[tuple[int, int, JurorVote]] = []
            shown = sorted(reviews, key=lambda rv: rv[0] != opener)  # the opener's review first
            turn = 0
            while cut is None and turn < opts.turns:
                turn += 1
                reviewer = opener if turn % 2 else 3 - opener
                round = turn + 1 + (opts.turns if second else 0)
                what = f"turn {turn}" + (", reviewer 2 opening" if second else "")
                earlier = [(r, n, v.rationale) for r, n, v in said]
                prompt = turn_prompt(
                    court.pair,
                    reviewer,
                    seen(reviewer, shown, court.order),
                    seen(reviewer, earlier, court.order),
                    form,
                )
                try:
                    async with rt.span(what):
                        said.append((reviewer, round, await state(reviewer, round, prompt, what)))
                except LimitReached as limit:  # the statements made so far decide
                    court.stop(limit, what, "the preferences stated before it")
                    break
            return said

        openers = (1, 2) if opts.openers == "both" and opts.turns else (1,)
        discussions = await rt.gather(*(discuss(o) for o in openers))
        made += [s for d in discussions for s in d]
        statements = [v for *_, v in made]
        court.answers += [
            AgentAnswer(v.juror, n, v.rationale, v.vote, v.attempts) for _, n, v in made
        ]
        heard = [[(r, v.vote) for r, _, v in [*opening, *d]] for d in discussions]
        verdicts = [discussion_verdict(opts.final, s, discussed=len(s) > 2) for s in heard]
        winner = _combined(verdicts)
        latest = [{r: side for r, side in s if side is not None} for s in heard]
        sides = [side for each in latest for side in each.values()]
        votes = {side: sides.count(side) for side in ("A", "B")}
        stated = [(r, v.vote) for r, _, v in made]
        verdict = Verdict(winner, votes, sum(side is None for _, side in stated), False, None)
        roles = {s.juror: s.juror.removeprefix(court.prefix) for s in statements}
        models = viewer_text.agent_models(roles, rt.model_name)
        rt.info("discussion", _markdown(statements, winner, opts.final, models))
        return Hearing(
            order=court.order,
            rounds=len(made) - len(reviews),
            defences=[],
            evaluations=[],
            stop_reason=None,
            jury=statements,
            verdict=verdict,
            transcript="\n\n".join(f"{s.juror} ({s.persona}):\n{s.rationale}" for s in statements),
            tokens=court.tokens(),
            calls=len(court.session.calls),
        )

    options = {
        "turns": opts.turns,
        "final": opts.final,
        "openers": opts.openers,
        "peers": opts.peers,
    }
    return await decide(session, pair, "peer_discussion", hold, Swap(opts.swap), options)


def _combined(verdicts: Sequence[str | None]) -> str | None:
    """The verdict of one or two discussions: the one given, agreeing ones, or a tie when they
    differ (a discussion without a verdict leaves it to the other)."""
    given = [v for v in verdicts if v is not None]
    if not given:
        return None
    return given[0] if all(v == given[0] for v in given) else TIE


def _markdown(
    statements: Sequence[JurorVote],
    winner: str | None,
    final: str,
    models: Mapping[str, str] | None = None,
) -> str:
    rows = [(s.juror, s.persona, s.vote or "(none readable)", s.attempts) for s in statements]
    rule = (
        "the last stated preference"
        if final == "last_turn"
        else "both reviewers' latest preferences, when they agree"
    )
    return (
        f"**Peer discussion** → **{winner or 'no verdict'}** (final={final}: {rule})\n\n"
        + viewer_text.agent_table(
            ["reviewer", "statement", "preference", "attempts"], rows, {3}, models
        )
    )


SPEC = MethodSpec(
    "peer_discussion",
    "PRD's peer discussion: two reviewers review the pair, then discuss it turn by turn; the "
    "last stated preference is the verdict.",
    DiscussionOptions,
    lambda o, setup: lambda s, pair: peer_discussion(s, pair, o),
    reads=Pair,
    roles=lambda o: ("reviewer", *REVIEWERS),  # a panel of two
    authors_form=authors_preference,  # their reviewers' last line: 1, 2, or 3 for equal answers
)

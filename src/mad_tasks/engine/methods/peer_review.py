"""PRD, multi-agent peer review: Xu et al. (2023), "Towards Reasoning in Large Language Models via
Multi-Agent Peer Review Collaboration" (arXiv 2311.08152); seed 001's "PRD" baseline.

1. Every agent solves the question on its own (round 1).
2. Review: every agent reviews the solution of every other agent, in its own conversation, and
   rates its confidence in its feedback from 1 to 10.
3. Revision: every agent reads the reviews of its own solution, with the reviewers' confidences,
   and revises its answer.
Steps 2-3 make one cycle; each further cycle reviews the latest revisions. The final answer is the
plurality of the last revisions (abstentions do not vote; a tie goes to the first agent's answer
among the tied ones, as the authors' `most_frequent`, or with `ties=earlier_rounds` to the earlier
rounds, then to agent order).

Paper defaults (the authors' code, HITsz-TMG/Multi-agent-peer-review: `peer_review.py`,
`params.py`, `eval.py`): 3 agents, one review-and-revision cycle (`rounds = 3` there: solution,
review, revision), confidence 1-10 in every review, reviewers anonymous to the reviewee, majority
vote of the revisions; the "w/o confidence" ablation (`feedback.py`) drops the confidence
(`confidence=false`). Seed 001 runs PRD with 5 agents and up to 5 rounds (`agents`, `cycles`).

Open points, each an option recorded in the log:
  - `sequential_reviews`: as in the code (true, the default), a reviewer writes its reviews one
    after another in one conversation, so each review also sees the reviewer's earlier reviews;
    with false the reviews of a cycle are written all at once, each from the reviewer's
    conversation up to its own latest answer, and then joined into that conversation in agent
    order, so the revision sees the same history either way.
  - an agent whose solution has no readable answer is still reviewed: the review reads its text.
  - a review without a readable confidence is shown as "confidence not stated"; it is never
    retried (a review is not an answer).
Rounds in the record: the first solutions are round 1, the reviews and revisions of cycle c
round c + 1. First solutions given before the method ran (`on_demand`'s first stage) are taken,
not asked again. Checked call by call against the authors' code: docs/fidelity.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import ClassVar

from .. import prompts, viewer_text
from ..answers import AnswerFormat
from ..authors_forms import letter_for_choice
from ..checks import OptionError, boolean, integer, one_of
from ..content import Msg
from ..options import MAX_AGENTS, MAX_ROUNDS, PeerControls, option
from ..peers import Peers
from ..protocols.peer_review import review_confidence
from ..records import AgentAnswer, DebateResult
from ..requests import AnswerRequest, ReviewRequest
from ..session import Session
from ..spec import MethodSpec
from .turns import TIES, agent_names, final_vote, speak, take_openings

# reviews per sample, cycles x agents x (agents - 1): 32 agents review each other once (992);
# seed 001's 5 agents and 5 cycles make 100
MAX_REVIEWS = 1000


@dataclass(frozen=True)
class PeerReviewOptions(PeerControls):
    TEMPLATES: ClassVar[tuple[str, ...]] = ("step_by_step", "reminder")
    agents: int = option(
        3,
        "number of agents (PRD: 3), each on model role `agent_i` (falling back to `agent`, then "
        "the main model).",
        lambda name, v: integer(name, v, 2, MAX_AGENTS),
    )
    cycles: int = option(
        1,
        "review-and-revision cycles after the first solutions (PRD: 1); at most 1,000 reviews "
        "per sample (cycles x agents x (agents - 1)).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    confidence: bool = option(
        True,
        "reviewers rate their confidence in their feedback from 1 to 10 and the reviewee reads "
        "it (false: PRD's w/o-confidence ablation).",
        boolean,
    )
    sequential_reviews: bool = option(
        True,
        "a reviewer writes its reviews one after another, each seeing its earlier ones (the "
        "authors' code); false: all reviews of a cycle at once, each from the reviewer's "
        "conversation up to its latest answer.",
        boolean,
    )
    ties: str = option(
        "first_agent",
        "a tie of the last revisions' vote: first_agent (the first agent's answer among the tied "
        "ones, as the authors' code) or earlier_rounds (the one that led the latest earlier round, "
        "then agent order).",
        lambda name, v: one_of(name, v, TIES),
    )

    def validate(self) -> None:
        super().validate()
        per_cycle = self.agents * (self.agents - 1)
        if self.cycles * per_cycle > MAX_REVIEWS:
            raise OptionError(
                "cycles",
                self.cycles,
                f"an integer from 1 to {max(1, MAX_REVIEWS // per_cycle)} (at most "
                f"{MAX_REVIEWS:,} reviews per sample: cycles x agents x (agents - 1))",
            )


@dataclass(frozen=True)
class Review:
    reviewer: str
    author: str
    text: str
    confidence: int | None  # None: not asked, or not stated readably


def review_prompt(solution: str, confidence: bool) -> str:
    rate = (
        " On the last line write `CONFIDENCE: n`, where n, from 1 to 10, is how confident you "
        "are in your feedback (10: fully confident)."
        if confidence
        else ""
    )
    return (
        f"Here is a solution from another agent:\n\n{solution.strip()}\n\nExamine its reasoning "
        "step by step and give feedback on it: where it goes wrong, if anywhere, and whether its "
        f"answer is right.{rate}"
    )


def revision_prompt(reviews: Sequence[Review], fmt: AnswerFormat, confidence: bool) -> str:
    def heading(i: int, r: Review) -> str:
        if not confidence:
            return f"--- review {i} ---"
        rated = f"{r.confidence}/10" if r.confidence is not None else "not stated"
        return f"--- review {i} (reviewer's confidence: {rated}) ---"

    shown = "\n\n".join(f"{heading(i, r)}\n{r.text.strip()}" for i, r in enumerate(reviews, 1))
    return (
        f"Here are the reviews of your solution by the other agents:\n\n{shown}\n\nUsing them, "
        "and the other agents' solutions, as additional information, examine your solution and "
        f"the feedback step by step, then give your updated answer. {fmt.instruction()}"
    )


async def peer_review(session: Session, o: PeerReviewOptions) -> DebateResult:
    p, rt = session.problem, session.runtime
    names = agent_names(o.agents)
    history = {
        name: [Msg("user", prompts.step_by_step(p.question, p.fmt, p.templates))] for name in names
    }

    async with rt.span("round 1"):
        given = take_openings(session, names, history)
        latest = await rt.gather(
            *(speak(session, name, 1, history[name], None, given=given.get(name)) for name in names)
        )
    by_round = [list(latest)]
    view = Peers(o.peers, p.question.text)
    rt.info(
        "round 1",
        viewer_text.round_table("Round 1 (solutions)", latest, p.fmt.describe, rt.model_name),
    )

    async def review(
        t: int, reviewer: str, author: AgentAnswer, before: list[Msg]
    ) -> tuple[Msg, Review]:
        # the solution as the peers condition shows it: under self the reviewer's own
        own = next(a for a in by_round[-1] if a.agent == reviewer)
        solution = view.instead(author, own)
        ask = Msg("user", review_prompt(solution.text, o.confidence))
        asks = ReviewRequest(p.fmt, solution.answer, o.confidence)
        reply = await session.call(reviewer, reviewer, [*before, ask], "review", t, asks=asks)
        rated = review_confidence(reply.text) if o.confidence else None
        return ask, Review(reviewer, solution.agent, reply.text, rated)

    async def reviews_by(t: int, reviewer: str) -> list[Review]:
        """The reviewer's reviews of every other latest solution, joined to its conversation in
        agent order."""
        authors = [a for a in by_round[-1] if a.agent != reviewer]
        conversation = history[reviewer]
        if o.sequential_reviews:
            done = []
            for author in authors:
                ask, r = await review(t, reviewer, author, list(conversation))
                conversation += [ask, Msg("assistant", r.text)]
                done.append(r)
            return done
        both = await rt.gather(*(review(t, reviewer, a, list(conversation)) for a in authors))
        for ask, r in both:
            conversation += [ask, Msg("assistant", r.text)]
        return [r for _, r in both]

    def received(t: int, name: str, written: Sequence[Review]) -> list[Review]:
        """The reviews of `name`'s solution (under self, its own); under noise each text noised
        and its confidence not shown."""
        mine = [r for r in written if r.author == name]
        if view.condition != "noise":
            return mine
        return [
            replace(r, text=view.text(r.text, r.reviewer, t, r.author), confidence=None)
            for r in mine
        ]

    async def revise(t: int, name: str, reviews: list[Review]) -> AgentAnswer:
        history[name].append(Msg("user", revision_prompt(reviews, p.fmt, o.confidence)))
        own = next(a for a in by_round[-1] if a.agent == name)
        others = [a for a in by_round[-1] if a.agent != name]
        shown = tuple(a.answer for a in view.seen(others, name, own) if a.answer is not None)
        asks = AnswerRequest(p.fmt, shown=shown)
        reply = await session.answer(name, name, history[name], "revision", t, asks=asks)
        history[name].append(Msg("assistant", reply.text))
        return reply

    for t in range(2, o.cycles + 2):
        async with rt.span(f"review r.{t}"):
            written = [r for rs in await rt.gather(*(reviews_by(t, n) for n in names)) for r in rs]
        rt.info(f"review r.{t}", _reviews_markdown(t, written, names, o.confidence))
        async with rt.span(f"revision r.{t}"):
            latest = await rt.gather(*(revise(t, n, received(t, n, written)) for n in names))
        by_round.append(list(latest))
        title = f"Round {t} (revisions)"
        shown = viewer_text.round_table(
            title, latest, p.fmt.describe, rt.model_name,
            earlier=[a for r in by_round[:-1] for a in r], key=p.fmt.key,
        )  # fmt: skip
        rt.info(f"round {t}", shown)

    tally = final_vote(session, by_round, o.ties)
    return DebateResult(
        method="peer_review",
        final=tally.winner,
        answers=[a for r in by_round for a in r],
        calls=session.calls,
        tally=tally,
        options=o.record(),
    )


def _reviews_markdown(t: int, reviews: Sequence[Review], names: Sequence[str], rated: bool) -> str:
    """Who reviewed whom, with the stated confidences: a row per author, a column per reviewer."""
    by = {(r.author, r.reviewer): r for r in reviews}

    def cell(author: str, reviewer: str) -> str:
        review = by.get((author, reviewer))  # peers=self: each agent reviewed only its own
        if review is None:
            return "–"
        c = review.confidence
        return "✓" if not rated else (str(c) if c is not None else "?")

    rows = [[author, *(cell(author, rv) for rv in names)] for author in names]
    table = viewer_text.table(["solution of", *names], rows, right=set(range(1, len(names) + 1)))
    what = (
        "each cell is the reviewer's confidence in its feedback, 1 to 10 (`?`: not stated)"
        if rated
        else "✓: reviewed (confidence not asked: confidence=false)"
    )
    return (
        f"**Round {t} reviews**: every agent reviewed the other agents' latest solutions; a row "
        f"is the solution's author, a column the reviewer; {what}. Each author reads the reviews "
        f"of its own row before revising.\n\n{table}"
    )


SPEC = MethodSpec(
    "peer_review",
    "Agents solve, review every other solution with a confidence, then revise; majority wins.",
    PeerReviewOptions,
    lambda o, setup: lambda s: peer_review(s, o),
    authors_form=letter_for_choice,  # their ARC-c prompts' (X)
)

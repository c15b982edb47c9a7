"""`peer_review` (PRD): calls, critical path, what each agent reads, reviews, abstentions and ties."""

from __future__ import annotations

import pytest
from scripted import debate as scripted_debate
from scripted import last_user
from test_sim import running, sim
from testdata import STRATEGYQA

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.peer_review import PeerReviewOptions
from mad_tasks.engine.protocols.peer_review import review_confidence
from mad_tasks.engine.records import Tally
from mad_tasks.engine.requests import AnswerRequest, GroupSummaryRequest, ReviewRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem
from mad_tasks.scorers.debate_stats import debate_stats
from mad_tasks.solvers import peer_review as peer_review_solver
from mad_tasks.tasks.strategyqa import strategyqa

PROBLEM = Problem(Question.of(["Can a camel cross the Sahara without water?"]), YesNo())


def solution_tag(agent: str, round: int) -> str:
    return f"<solution of {agent} in round {round}>"


def review_tag(reviewer: str, round: int, answer: str | None) -> str:
    return f"<review by {reviewer} in round {round} of answer {answer}>"


def scripted(answers: dict[tuple[str, int], str | None], confidence: dict[str, str] | None = None):
    """Answers by (agent, round) (None: no readable answer); reviews tagged with their reviewer,
    round and the answer they review, with the reviewer's confidence line (default 7)."""
    confidence = confidence or {}

    def reply(call: Call) -> str:
        if isinstance(call.asks, ReviewRequest):
            line = confidence.get(call.agent, "CONFIDENCE: 7")
            return f"{review_tag(call.agent, call.round, call.asks.answer)} Looks fine.\n{line}"
        assert isinstance(call.asks, AnswerRequest)
        answer = answers.get((call.agent, call.round))
        body = f"{solution_tag(call.agent, call.round)} I reasoned."
        return f"{body}\nANSWER: {answer}" if answer is not None else f"{body} Hard to say."

    return reply


def always(answer: str, agents: int = 3, rounds: int = 3):
    return scripted({(f"agent_{i}", r): answer for i in range(1, agents + 1) for r in range(1, rounds + 1)})  # fmt: skip


def debate(reply, retries: int = 2, **options):
    return scripted_debate("peer_review", reply, PROBLEM, retries, **options)


# -- calls and critical path ----------------------------------------------------------------------------


async def test_defaults_three_solutions_six_reviews_three_revisions() -> None:
    rt, result = await debate(always("yes"))
    # a reviewer writes its two reviews in turn: solution, review, review, revision
    assert (len(rt.calls), rt.critical_path) == (3 + 6 + 3, 1 + 2 + 1)
    purposes = sorted((c.purpose, c.round) for c in rt.calls)
    assert purposes == [("debate", 1)] * 3 + [("review", 2)] * 6 + [("revision", 2)] * 3
    assert all(c.role == c.agent for c in rt.calls)
    assert rt.spans == ["round 1", "review r.2", "revision r.2"]
    assert all(r.span == {"debate": "round 1", "review": "review r.2", "revision": "revision r.2"}[r.call.purpose] for r in rt.recorded)  # fmt: skip
    assert rt.info_titles() == ["round 1", "review r.2", "round 2", "vote"]
    assert (result.method, result.final, result.rounds, len(result.answers)) == ("peer_review", "yes", 2, 6)  # fmt: skip
    assert result.options["cycles"] == 1 and result.options["sequential_reviews"] is True
    assert result.options["ties"] == "first_agent"


@pytest.mark.parametrize(
    ("options", "calls", "path"),
    [
        ({"agents": 4, "cycles": 2, "sequential_reviews": False}, 4 + 2 * (12 + 4), 5),  # at once
        ({"sequential_reviews": True}, 12, 1 + 2 + 1),  # a reviewer's two reviews in turn
        ({"agents": 5, "cycles": 5, "sequential_reviews": True}, 5 + 5 * (20 + 5), 1 + 5 * 5),
    ],
)
async def test_calls_and_critical_path(options: dict, calls: int, path: int) -> None:
    rt, result = await debate(always("yes", agents=options.get("agents", 3), rounds=6), **options)
    assert (len(rt.calls), rt.critical_path) == (calls, path)
    assert result.rounds == 1 + options.get("cycles", 1)


# -- what each agent reads -------------------------------------------------------------------------------


async def test_a_review_reads_the_reviewers_own_solution_and_the_one_it_reviews() -> None:
    answers = {("agent_1", 1): "yes", ("agent_2", 1): "no", ("agent_3", 1): "yes"}
    rt, _ = await debate(scripted(answers), sequential_reviews=False)
    reviews = [c for c in rt.calls if c.purpose == "review"]
    assert sorted(c.agent for c in reviews) == ["agent_1"] * 2 + ["agent_2"] * 2 + ["agent_3"] * 2
    for c in reviews:
        reviewed = next(
            a for a in ("agent_1", "agent_2", "agent_3") if solution_tag(a, 1) in last_user(c)
        )
        assert reviewed != c.agent
        assert c.asks == ReviewRequest(PROBLEM.fmt, answers[(reviewed, 1)], True)
        assert "CONFIDENCE: n" in last_user(c)
        # concurrent: its conversation so far is the question and its own solution, no review
        assert [m.role for m in c.messages] == ["user", "assistant", "user"]
        assert solution_tag(c.agent, 1) in c.messages[1].text


async def test_a_revision_reads_the_reviews_of_its_own_solution_with_their_confidences() -> None:
    answers = {("agent_1", 1): "yes", ("agent_2", 1): "no", ("agent_3", 1): "yes"}
    answers |= {(a, 2): "yes" for a in ("agent_1", "agent_2", "agent_3")}
    confidences = {"agent_2": "**Confidence:** 9/10", "agent_3": "Confidence: unsure"}
    rt, _ = await debate(scripted(answers, confidences))
    [revision] = [c for c in rt.calls_of("agent_1", 2) if c.purpose == "revision"]
    assert revision.purpose == "revision" and revision.asks == AnswerRequest(
        PROBLEM.fmt, shown=("no", "yes")
    )
    # the conversation: question, solution, its two reviews of the others, then the reviews of it
    assert [m.role for m in revision.messages] == ["user", "assistant", "user", "assistant", "user", "assistant", "user"]  # fmt: skip
    assert review_tag("agent_1", 2, "no") in revision.messages[3].text
    assert review_tag("agent_1", 2, "yes") in revision.messages[5].text
    received = last_user(revision)
    assert (
        review_tag("agent_2", 2, "yes") in received and review_tag("agent_3", 2, "yes") in received
    )
    assert "of answer no" not in received  # agent_2's solution's reviews go to agent_2 only
    assert "--- review 1 (reviewer's confidence: 9/10) ---" in received
    assert "--- review 2 (reviewer's confidence: not stated) ---" in received
    table = dict(rt.infos)["review r.2"]
    assert "agent_1" in table and "?" in table and "9" in table


async def test_sequential_reviews_see_the_reviewers_earlier_reviews() -> None:
    rt, _ = await debate(always("yes"))  # the default, as the authors' code
    first, second = sorted(
        (c for c in rt.calls if c.purpose == "review" and c.agent == "agent_2"),
        key=lambda c: len(c.messages),
    )
    assert solution_tag("agent_1", 1) in last_user(first)
    assert solution_tag("agent_3", 1) in last_user(second)
    assert review_tag("agent_2", 2, "yes") in second.messages[3].text  # its review of agent_1


async def test_a_second_cycle_reviews_the_revisions() -> None:
    answers = {(f"agent_{i}", r): ("no" if r == 2 else "yes") for i in (1, 2, 3) for r in (1, 2, 3)}
    rt, result = await debate(scripted(answers), cycles=2)
    late = [c for c in rt.calls if c.purpose == "review" and c.round == 3]
    assert len(late) == 6 and all(c.asks.answer == "no" for c in late)
    assert all(solution_tag(c.agent, 2) not in last_user(c) for c in late)
    assert any(solution_tag("agent_2", 2) in last_user(c) for c in late)
    assert result.final == "yes" and result.rounds == 3


async def test_without_confidence_reviews_are_not_rated() -> None:
    rt, result = await debate(always("yes"), confidence=False)
    reviews = [c for c in rt.calls if c.purpose == "review"]
    assert all(c.asks.confidence is False and "CONFIDENCE" not in last_user(c) for c in reviews)
    received = last_user(next(c for c in rt.calls_of("agent_3", 2) if c.purpose == "revision"))
    assert "--- review 1 ---" in received and "confidence" not in received
    assert "✓" in dict(rt.infos)["review r.2"]
    assert result.options["confidence"] is False


# -- abstentions and ties --------------------------------------------------------------------------------


async def test_an_abstaining_agent_is_still_reviewed_and_never_votes() -> None:
    answers = {(a, r): "no" for a in ("agent_1", "agent_3") for r in (1, 2)}
    rt, result = await debate(scripted(answers), retries=1)  # agent_2 never answers
    assert [c.attempt for c in rt.calls_of("agent_2", 1)] == [0, 1]
    reviewed = [
        c for c in rt.calls if c.purpose == "review" and solution_tag("agent_2", 1) in last_user(c)
    ]
    assert len(reviewed) == 2 and all(c.asks.answer is None for c in reviewed)
    assert result.tally == Tally(counts={"no": 2}, winner="no", tie=False, abstentions=1)
    assert len(rt.calls) == 3 + 1 + 6 + 3 + 1  # agent_2's follow-up in each answering round


@pytest.mark.parametrize(("ties", "final"), [("first_agent", "yes"), ("earlier_rounds", "no")])
async def test_a_tie_among_the_revisions_goes_by_ties(ties: str, final: str) -> None:
    agents = ("agent_1", "agent_2", "agent_3", "agent_4")
    answers = {(a, 1): x for a, x in zip(agents, ("no", "no", "no", "yes"))}
    answers |= {(a, 2): x for a, x in zip(agents, ("yes", "no", "yes", "no"))}
    _, result = await debate(scripted(answers), agents=4, ties=ties)
    # the first agent revised to "yes" (the authors' most_frequent); the solutions preferred "no"
    assert (result.final, result.tally.tie) == (final, True)
    assert result.options["ties"] == ties


async def test_all_abstain_gives_no_answer() -> None:
    _, result = await debate(scripted({}), retries=0)
    assert result.final is None and result.tally.abstentions == 3


# -- options ------------------------------------------------------------------------------------------


def test_reviews_per_sample_are_capped() -> None:
    PeerReviewOptions(agents=32, cycles=1)  # 992 reviews
    PeerReviewOptions(agents=5, cycles=5)  # seed 001's setting: 100
    with pytest.raises(OptionError) as err:
        PeerReviewOptions(agents=11, cycles=10)
    assert str(err.value) == (
        "invalid option 'cycles': got 10, allowed: an integer from 1 to 9 (at most 1,000 reviews "
        "per sample: cycles x agents x (agents - 1))"
    )


# -- end to end on the simulated model ------------------------------------------------------------------


def test_an_eval_on_madsim_makes_the_golden_calls(run) -> None:
    task = strategyqa(data_path=str(STRATEGYQA), subset=2)
    task.scorer = [*task.scorer, *debate_stats()]
    log = run(task, solver=peer_review_solver(agents=4), model="madsim/x")
    for sample in log.samples:
        calls = [e for e in sample.events if e.event == "model"]
        assert len(calls) == 4 + 12 + 4  # madsim always answers readably
    assert log.plan.steps[-1].params["agents"] == 4
    [rounds] = [s for s in log.results.scores if s.name == "rounds"]
    assert rounds.metrics["mean"].value == 2


def test_madsim_reviews_follow_accuracy_with_a_readable_confidence(monkeypatch) -> None:
    running(monkeypatch, "yes")
    right, wrong = ReviewRequest(YesNo(), "yes"), ReviewRequest(YesNo(), "no")
    for i in range(20):
        sound = sim(right, f"p{i}", "agent_1", accuracy=1.0)
        assert "holds up" in sound and 6 <= (review_confidence(sound) or 0) <= 10
        assert "has a flaw" in sim(wrong, f"p{i}", "agent_1", accuracy=1.0)
        unsound = sim(right, f"p{i}", "agent_1", accuracy=0.0)
        assert "has a flaw" in unsound and 1 <= (review_confidence(unsound) or 0) <= 7
    unrated = sim(ReviewRequest(YesNo(), "yes", confidence=False), "p", "agent_2")
    assert "CONFIDENCE" not in unrated and review_confidence(unrated) is None
    summary = sim(GroupSummaryRequest(YesNo(), ("yes", "no")), "p", "summarizer_1")
    assert summary == "Simulated summary by summarizer_1: the group's agents answered yes, no."

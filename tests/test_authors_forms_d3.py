"""The authors' forms of the pairwise judges (engine/authors_forms.py): D3's totals `(x, y)` and
jurors' votes `(1, 0)` / `(0, 1)` (more, samre), PRD's last line 1, 2 or 3 (peer_discussion);
their readers on written cases, and `-S answer_form=authors` asking for and reading them."""

from __future__ import annotations

import re

import pytest
from inspect_ai import Task
from inspect_ai.model import get_model
from scripted import ScriptedRuntime, last_user
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine import authors_forms as af
from mad_tasks.engine.answers import Choice, Number
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3 import court as d3
from mad_tasks.engine.methods.d3.court import VERDICT, Pair
from mad_tasks.engine.methods.d3.peer_discussion import CHOOSE, PREFERENCE, authors_preference
from mad_tasks.engine.protocols.d3 import JudgeScores
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import (
    DefenceRequest,
    FeedbackRequest,
    RecapRequest,
    ScoreRequest,
    VerdictRequest,
)
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.setup import SETUP
from mad_tasks.scorers.judges import more_judge
from mad_tasks.solvers import more, peer_discussion, samre, single
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

SCORES = JudgeScores()
PAIR = Pair(Question.of(["Which city is the capital of Australia?"]), "Canberra.", "Sydney.")
CRITERIA = "\n".join(f"{i}. [15, 12]" for i in range(1, 7))  # sums (90, 72): never the totals

# -- the judge's totals: (x, y) --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "totals"),
    [
        (f"{CRITERIA}\nFeedback A: fine.\n\nTotals: (88, 70)", "88, 70"),
        ("(95,87)", "95, 87"),
        ("Final tally: ( 90 , 72 ). A argued better.", "90, 72"),
        # criteria in parentheses too: the last pair, on no criterion's line, is the totals
        ("1. Relevance: (18, 15)\n6) Rebuttal: (10, 9)\nSum: (100, 80)", "100, 80"),
        ("Earlier rounds: (80, 70), (82, 71).\nThis round: (88, 90)", "88, 90"),
        ("ANSWER: (95, 87)", "95, 87"),  # the project's line holds the same pair
        ("Scores: (6, 120)", "6, 120"),
        # a reason after a comma, a hedge in another sentence: the pair stands
        ("Totals: (95, 87), because A cites its sources.", "95, 87"),
        ("Totals: (95, 87). Maybe B could cite more.", "95, 87"),
        # the pair's own line decides whether it is a criterion's, not the last line
        ("Totals: (95, 87)\n1. A is better, 2. B is shorter.", "95, 87"),
    ],
)
def test_totals_read_the_last_pair(reply: str, totals: str) -> None:
    assert af.read_totals(reply, SCORES) == totals


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "Both have merit; I will not score them.",
        f"{CRITERIA}\nFeedback A: fine.",  # the criteria alone are no totals
        "Totals: (~95, 87)",
        "Totals: (>= 95, 87)",
        "Totals: (95, 87?)",
        "Totals: (95.5, 87)",
        "Totals: (95, 87.5)",
        "Totals: (95, ~87)",
        "Totals: (95?, 87)",
        "Totals: about (95, 87)",
        "Totals: at least (95, 87)",
        "Totals: maybe (95, 87)",
        "Totals: (95, 87)?",
        "Totals: (95, 87), if the sources hold.",
        "I would not give (95, 87).",
        "Advocate A claims the totals are (95, 87).",
        "Totals: (95, 87) or (87, 95)",
        "Totals: (95, 87) to (99, 90)",
        # the last pair is a criterion's: no earlier pair stands in for it
        "Totals: (95, 87)\n6. Rebuttal: (15, 12)",
        "6. Rebuttal: (15, 12)\nThat is all.",
        "\n6. Rebuttal: (15, 12)",
        # the last pair refused: no fallback to the earlier one
        "Totals: (95, 87).\nOn reflection, perhaps (80, 90)?",
        "Totals: (5, 130)",  # out of the 6-120 range
        "Totals: (0, 0)",
    ],
)
def test_totals_abstain(reply: str) -> None:
    assert af.read_totals(reply, SCORES) is None


# -- the jurors' votes: (1, 0) or (0, 1) ----------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "side"),
    [
        ("Reasoning: A is right.\nVote: (1, 0)", "A"),
        ("Reasoning: B is right.\nVote: [0, 1]", "B"),
        ("Vote: (0,1).", "B"),
        ("At first I leaned (1, 0).\nVote: (0, 1)", "B"),
        ("Vote: (1, 0), since the capital is Canberra.", "A"),
    ],
)
def test_vote_reads_the_last_pair(reply: str, side: str) -> None:
    assert af.read_vote(reply) == side


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "ANSWER: A",
        "Vote: (1, 1)",
        "Vote: (0, 0)",
        "Vote: (1, 0)?",
        "Vote: maybe (0, 1)",
        "Vote: (1, 0), unless the sources are wrong.",
        "I would not vote (1, 0).",
        "Juror 3 says (0, 1).",
        "Vote: (1, 0) for Answer A, or (0, 1) for Answer B",  # the instruction echoed
        "Vote: (1, 0) or (0, 1)",
        "Vote: (1, 0).\nThinking again, perhaps (0, 1)?",  # a refused last vote: no fallback
    ],
)
def test_vote_abstains(reply: str) -> None:
    assert af.read_vote(reply) is None


def test_the_d3_forms() -> None:
    vote = af.vote_pair(VERDICT)
    assert vote is not None and vote.inner is VERDICT
    assert af.vote_pair(Number()) is None
    assert af.vote_pair(Choice(("Paris", "Rome", "Oslo"))) is None  # their code judges pairs
    assert vote.write("Why.", "A") == "Why.\n\nVote: (1, 0)"
    assert vote.write("Why.", "B") == "Why.\n\nVote: (0, 1)"
    assert [vote.extract(vote.write("Why.", side)) for side in "AB"] == ["A", "B"]
    totals = af.judge_totals()
    assert totals.write("Rows.", "88, 70") == "Rows.\n\nTotals: (88, 70)"
    assert totals.extract(totals.write("Rows.", "88, 70")) == "88, 70"
    assert "(total of A, total of B)" in totals.instruction()
    assert "ANSWER" not in totals.instruction() + vote.instruction()


# -- PRD's last line: 1, 2 or 3 -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("Answer 2 is more detailed. Therefore I choose Answer 2.\n\n2", "B"),
        ("Both are accurate.\n1", "A"),
        ("They are equivalent.\n3\n\n", "C"),
        ("**2**", "B"),
        ("2.", "B"),
        ("x" * 200_000 + "\n  1  ", "A"),
        ("My choice:\n2", "B"),
        ("I read both.\nAnswer 1 is vague.\n\n1", "A"),
    ],
)
def test_numbered_reads_the_last_line(reply: str, letter: str) -> None:
    assert af.read_numbered(reply, PREFERENCE) == letter


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "ANSWER: B",
        "Both are fine. Therefore, I choose 2.",  # not alone on its line
        "Review.\n4",
        "Review.\n0",
        "Review.\n2 or 3",
        "Review.\n2?",
        "1\nI prefer the first answer.",  # the number is not the last line
        "Perhaps my preference is:\n2",
        "Perhaps my preference is:\n\n2",
        "Reviewer 1 says:\n1",
        "I would not pick:\n1",
        "If A's facts hold:\n1",
    ],
)
def test_numbered_abstains(reply: str) -> None:
    assert af.read_numbered(reply, PREFERENCE) is None


def test_the_prd_form() -> None:
    form = authors_preference(VERDICT)
    assert form is not None and form.inner is PREFERENCE
    assert authors_preference(Number()) is None
    assert authors_preference(Choice(("Paris", "Rome", "Oslo"))) is None
    assert [form.write("Why.", letter) for letter in "ABC"] == [
        "Why.\n\n1",
        "Why.\n\n2",
        "Why.\n\n3",
    ]
    assert [form.extract(form.write("Why.", letter)) for letter in "ABC"] == ["A", "B", "C"]
    assert '1 for "Answer A", 2 for "Answer B", 3 for "The two answers' in form.instruction()


# -- the judges under -S answer_form=authors ------------------------------------------------------

VOTE, TOTALS = af.vote_pair(VERDICT), af.judge_totals()
# juror_1 votes on an ANSWER line, which the authors' form does not read; juror_5 hedges
BALLOTS = {
    "juror_1": "ANSWER: B",
    "juror_2": "Vote: (1, 0)",
    "juror_3": "Vote: (1, 0)",
    "juror_4": "Vote: (0, 1)",
    "juror_5": "Vote: (0, 1)?",
}


def court_reply(call: Call) -> str:
    """Defences and feedback in words; the judge's criteria sum to (90, 72) and its closing pair
    is (88, 70): the project's reader would add up the criteria; the jurors vote by `BALLOTS`."""
    asks = call.asks
    if isinstance(asks, (DefenceRequest, FeedbackRequest, RecapRequest)):
        return f"<{call.agent} round {call.round} {call.purpose}>"
    if isinstance(asks, ScoreRequest):
        return f"{CRITERIA}\nFeedback A: cite it.\nFeedback B: answer it.\n\n(88, 70)"
    assert isinstance(asks, VerdictRequest)
    return f"I weighed the record.\n{BALLOTS[call.agent]}"


async def authored(method: str, reply, **options) -> tuple[ScriptedRuntime, DebateResult]:
    spec = CATALOGUE[method]
    opts = spec.options(**{**spec.preset, "answer_form": "authors", "retries": 0, **options})
    rt = ScriptedRuntime(reply)
    session = Session(rt, Problem(PAIR.question, VERDICT), retries=0)
    return rt, await spec.ready(opts, SETUP)(session, PAIR)


def asked_of(rt: ScriptedRuntime, request: type) -> list[Call]:
    return [c for c in rt.calls if isinstance(c.asks, request)]


def assert_judged_in_the_authors_forms(rt: ScriptedRuntime, result: DebateResult) -> None:
    """Every score call asks for the totals pair and every juror for the vote pair, neither for an
    ANSWER line; the totals are read from the pair, the votes from theirs."""
    assert VOTE is not None
    for call in asked_of(rt, ScoreRequest):
        asked = last_user(call)
        assert asked.endswith(TOTALS.instruction()) and SCORES.instruction() not in asked
        assert isinstance(call.asks, ScoreRequest) and call.asks.form is not None
    jurors = asked_of(rt, VerdictRequest)
    assert sorted(c.agent for c in jurors) == sorted(BALLOTS)
    for call in jurors:
        asked = last_user(call)
        assert asked.endswith(VOTE.instruction()) and VERDICT.instruction() not in asked
    [hearing] = result.record.hearings  # type: ignore[union-attr]
    assert {e.scores for e in hearing.evaluations} == {(88, 70)}
    assert {v.juror: v.vote for v in hearing.jury} == {
        "juror_1": None, "juror_2": "A", "juror_3": "A", "juror_4": "B", "juror_5": None
    }  # fmt: skip
    assert result.final == "A"  # A 2, B 1 (read as the project's, juror_1's B would decide)


async def test_more_asks_for_the_totals_and_the_votes_and_reads_them() -> None:
    rt, result = await authored("more", court_reply)
    assert len(rt.calls) == 15  # 2 x (3 advocates + a merge), feedback, scores, 5 jurors
    assert len(asked_of(rt, ScoreRequest)) == 1
    assert_judged_in_the_authors_forms(rt, result)


async def test_samre_asks_for_the_totals_and_the_votes_and_reads_them() -> None:
    rt, result = await authored("samre", court_reply)
    # steady gaps of 18 stop the code's rule at round 3: 3 judge calls, each read from its pair
    assert len(asked_of(rt, ScoreRequest)) == 3
    assert result.record.hearings[0].stop_reason == "converged"  # type: ignore[union-attr]
    assert_judged_in_the_authors_forms(rt, result)


async def test_the_project_form_reads_the_answer_line_and_asks_for_it() -> None:
    spec = CATALOGUE["more"]
    rt = ScriptedRuntime(court_reply)
    opts = spec.options(**spec.preset, retries=0)
    session = Session(rt, Problem(PAIR.question, VERDICT), retries=0)
    result = await spec.ready(opts, SETUP)(session, PAIR)
    [score] = asked_of(rt, ScoreRequest)
    assert last_user(score).endswith(SCORES.instruction())
    assert isinstance(score.asks, ScoreRequest) and score.asks.form is d3.SCORES
    [hearing] = result.record.hearings  # type: ignore[union-attr]
    assert hearing.evaluations[0].scores == (90, 72)  # the criteria added up
    assert [v.vote for v in hearing.jury] == ["B", None, None, None, None]
    assert result.final == "B"


def reviewer_reply(call: Call) -> str:
    """Reviewer 1 reviews for A, reviewer 2 on an ANSWER line (not read); then turns 1 (r1) A,
    2 (r2) a hedged 2, 3 (r1) B, 4 (r2) 3: the two answers equally good."""
    assert isinstance(call.asks, VerdictRequest)
    said = {
        ("reviewer_1", 1): "1",
        ("reviewer_2", 1): "ANSWER: B",
        ("reviewer_1", 2): "1",
        ("reviewer_2", 3): "Perhaps my preference is:\n2",
        ("reviewer_1", 4): "2",
        ("reviewer_2", 5): "3",
    }[(call.agent, call.round)]
    return f"<{call.agent} round {call.round}> I compared both answers.\n\n{said}"


async def test_peer_discussion_asks_for_the_last_line_and_reads_it() -> None:
    rt, result = await authored("peer_discussion", reviewer_reply, openers="reviewer_1")
    assert len(rt.calls) == 6
    form = CATALOGUE["peer_discussion"].authors_form(VERDICT)  # type: ignore[misc]
    assert form is not None
    for call in rt.calls:
        asked = last_user(call)
        assert asked.endswith(form.instruction())
        assert PREFERENCE.instruction() not in asked and CHOOSE not in asked
        assert isinstance(call.asks, VerdictRequest) and call.asks.form is not None
        assert call.asks.form.instruction() == form.instruction()  # madsim answers in it
    answers = {(a.agent, a.round): a.answer for a in result.answers}
    assert answers == {
        ("reviewer_1", 1): "A", ("reviewer_2", 1): None, ("reviewer_1", 2): "A",
        ("reviewer_2", 3): None, ("reviewer_1", 4): "B", ("reviewer_2", 5): "tie",
    }  # fmt: skip
    assert result.final == "tie"  # the last stated preference: 3, the answers equally good


@pytest.mark.parametrize("method", ["more", "samre", "peer_discussion"])
async def test_a_question_that_is_no_pair_is_refused_before_any_call(method: str) -> None:
    spec = CATALOGUE[method]
    run = spec.ready(spec.options(**spec.preset, answer_form="authors"), SETUP)
    rt = ScriptedRuntime(court_reply)
    with pytest.raises(OptionError, match=rf"{method}'s authors ask for no form of number"):
        await run(Session(rt, Problem(PAIR.question, Number())), PAIR)
    assert rt.calls == []


def test_single_judge_refuses_the_authors_form_by_name() -> None:
    spec = CATALOGUE["single_judge"]
    opts = spec.options(**{**spec.preset, "answer_form": "authors"})
    with pytest.raises(OptionError, match=r"'answer_form'.*single_judge declares no"):
        spec.ready(opts, SETUP)


# -- madsim answers in the asked form -------------------------------------------------------------


@pytest.mark.parametrize(
    ("solver", "marks"),
    [
        (
            more(advocates=1, jurors=3, answer_form="authors"),
            (r"Totals: \(\d+, \d+\)$", r"\(1, 0\)$"),
        ),
        (
            samre(max_rounds=2, jurors=3, answer_form="authors"),
            (r"Totals: \(\d+, \d+\)$", r"\(0, 1\)$"),
        ),
        (peer_discussion(turns=2, openers="reviewer_1", answer_form="authors"), (r"\n\n[12]$",)),
    ],
)
def test_madsim_judges_in_the_asked_form(run, solver, marks: tuple[str, ...]) -> None:
    """A perfect simulated judge, asked for the authors' forms, states every reply in them and is
    read: every answer is readable, no reply has an ANSWER line, and every verdict is the
    human's (pairs A, B, A)."""
    judged = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=3)
    log = run(judged, solver=solver, model="madsim/x", model_args={"accuracy": 1.0})
    answers = [a for s in log.samples for a in s.store["mad_tasks:debate"]["answers"]]
    assert answers and all(a["answer"] is not None for a in answers)
    assert not any("ANSWER:" in a["text"] for a in answers)
    for mark in marks:
        assert any(re.search(mark, a["text"]) for a in answers), mark
    assert [s.output.completion for s in log.samples] == ["ANSWER: A", "ANSWER: B", "ANSWER: A"]


def test_more_judge_asks_its_court_for_the_authors_forms(run) -> None:
    """The judge scorers take `answer_form` as the solvers do: their court asks for and reads the
    authors' pairs. The model under test is always wrong; the court is a perfect judge."""
    judge = get_model("madsim/judge", accuracy=1.0)
    task = strategyqa(data_path=str(STRATEGYQA), subset=2)
    scorer = more_judge(advocates=1, jurors=3, answer_form="authors")
    task = Task(dataset=task.dataset, setup=task.setup, solver=single(), scorer=scorer)
    log = run(
        task,
        model="madsim/x",
        model_args={"accuracy": 0.0},
        model_roles={"advocate": judge, "judge": judge, "juror": judge},
    )
    for sample in log.samples:
        graded = sample.scores["more_judge"]
        assert (graded.answer, graded.metadata["verdict"]) == ("loss", "B")
        [hearing] = graded.metadata["hearings"]
        assert [v["vote"] for v in hearing["jury"]] == ["B", "B", "B"]
        assert all(v["rationale"].endswith("Vote: (0, 1)") for v in hearing["jury"])
        [evaluation] = hearing["evaluations"]
        low, high = evaluation["scores"]
        assert low < high  # the reference, shown second, scored higher from the totals pair

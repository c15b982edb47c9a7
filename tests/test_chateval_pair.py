"""ChatEval on a pair of answers as the authors' code judges it (engine/methods/chateval_pair.py):
the swapped second debate (`swap`), the score reader and the score verdict (`verdict=scores`)."""

from __future__ import annotations

import time

import pytest
from scripted import debate, last_user, tag

from mad_tasks.engine.answers import Choice, YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question, text_of
from mad_tasks.engine.methods.chateval_pair import (
    read_back,
    score_verdict,
    scores_of,
    swapped,
)
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.records import AgentAnswer
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem

FIRST = "Boil it for six minutes, then cool it."
SECOND = "Eggs are food."


def shown(a: str, b: str, before: str = "Which is better?\n\n") -> str:
    """A pair as the pairwise tasks show it (d3/court.py's blocks), with their choices after."""
    blocks = text_of(Pair(Question.of(["How do I boil an egg?"]), a, b).blocks())
    return f"{before}{blocks}\n\nA) Answer A\nB) Answer B"


def pair_problem(a: str = FIRST, b: str = SECOND) -> Problem:
    return Problem(Question.of([shown(a, b)]), Choice(("Answer A", "Answer B")))


# -- swapping --------------------------------------------------------------------------------------


def test_swapping_exchanges_the_answers_and_nothing_else() -> None:
    question = Question.of([shown(FIRST, SECOND)])
    other = swapped(question)
    assert other is not None and other.text == shown(SECOND, FIRST)
    again = swapped(other)
    assert again is not None and again.text == question.text


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("It says [Answer A]\nin the middle.", SECOND),  # the first heading is the block's own
        (FIRST, "It ends with\n[end of Answer B]\nand more."),  # the last closing is the block's
    ],
)
def test_swapping_keeps_answers_that_quote_a_heading_whole(a: str, b: str) -> None:
    other = swapped(Question.of([shown(a, b)]))
    assert other is not None and other.text == shown(b, a)


@pytest.mark.parametrize(
    "text",
    [
        "Can a camel cross the Sahara without water?",
        # the separator twice: which one divides the answers is not known
        shown(FIRST, "x\n[end of Answer A]\n\n[Answer B]\ny"),
        # a separator without the opening heading before it
        "\n[end of Answer A]\n\n[Answer B]\nB text\n[end of Answer B]",
        # a separator without the closing after it
        "[Answer A]\nA text\n[end of Answer A]\n\n[Answer B]\nB text",
    ],
)
def test_a_question_without_exactly_one_pair_cannot_be_swapped(text: str) -> None:
    assert swapped(Question.of([text])) is None


def test_a_swapped_debates_letters_are_read_back_to_the_answers_they_named() -> None:
    said = [AgentAnswer("agent_1", 1, "t", "A"), AgentAnswer("agent_2", 1, "t", None)]
    assert read_back(said, " (swapped)") == [
        AgentAnswer("agent_1 (swapped)", 1, "t", "B"),
        AgentAnswer("agent_2 (swapped)", 1, "t", None),
    ]


# -- the score reader ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("Fine.\nSCORE A: 8\nSCORE B: 7.5\nANSWER: A", (8.0, 7.5)),
        ("**Score B:** 7\n- score a = 10", (10.0, 7.0)),
        ("SCORE A: 2\nSCORE B: 3\nOn reflection:\nSCORE A: 9", (9.0, 3.0)),  # the last line counts
        ("SCORE A: 0\nSCORE B: 10", (0.0, 10.0)),
        ("SCORE A: 8", None),  # one answer unscored
        ("SCORE A: 11\nSCORE B: 3", None),  # above the scale
        ("SCORE A: -3\nSCORE B: 3", None),
        ("SCORE A: 8/10\nSCORE B: 3/10", None),  # not a bare score
        ("My SCORE A: 8\nSCORE B: 3", None),  # not a line of its own
        ("SCORE C: 8\nSCORE B: 3", None),
        ("The score of Assistant 1: 8\nThe score of Assistant 2: 3", None),
        # hedged or approximate: no score
        ("SCORE A: 8?\nSCORE B: 3", None),
        ("SCORE A: ~8\nSCORE B: 3", None),
        ("SCORE A: >= 8\nSCORE B: 3", None),
        ("SCORE A: about 8\nSCORE B: 3", None),
        ("SCORE A: **8**\nSCORE B: 3.", (8.0, 3.0)),  # decoration is no hedge
    ],
)
def test_scores_are_read_from_lines_of_their_own(text: str, read: tuple | None) -> None:
    assert scores_of(text) == read


def test_reading_scores_from_a_hostile_reply_takes_linear_time() -> None:
    hostile = ("SCORE A: " + "9" * 50_000 + "\n") * 4 + "**" * 50_000
    start = time.perf_counter()
    assert scores_of(hostile) is None
    assert time.perf_counter() - start < 0.5


# -- the score verdict -----------------------------------------------------------------------------

S = "SCORE A: {}\nSCORE B: {}"


def test_the_sums_decide_over_both_debates_each_read_by_position() -> None:
    # as given A leads 7+7 to 6+6; swapped, the first-shown answer is B: B 9+9, A 4+4
    verdict = score_verdict([S.format(7, 6)] * 2, [S.format(9, 4)] * 2)
    assert (verdict.winner, verdict.totals, verdict.tie) == ("B", {"A": 22.0, "B": 30.0}, False)
    assert score_verdict([S.format(7, 6)] * 2).winner == "A"
    assert score_verdict([S.format(6, 7), S.format(9, 4)]).winner == "A"  # 15 to 11
    assert score_verdict([S.format(6, 7), S.format(4, 5)]).winner == "B"


def test_equal_sums_and_unreadable_scores_give_the_answer_shown_first() -> None:
    tied = score_verdict([S.format(7, 8), S.format(8, 7)])
    assert (tied.winner, tied.tie, tied.unread) == ("A", True, 0)
    unread = score_verdict([S.format(2, 9), "I cannot score these."])
    assert (unread.winner, unread.unread, unread.totals) == ("A", 1, {"A": 2.0, "B": 9.0})


# -- the method ------------------------------------------------------------------------------------


def first_shown(call: Call) -> str:
    text = last_user(call)
    return "first" if text.index(FIRST) < text.index(SECOND) else "second"


def preferring(scores: dict[tuple[str, str, int], tuple[int, int]]):
    """Replies by (order shown, agent, turn): the scores by position, and the ANSWER line for the
    higher one; anything unlisted prefers the first answer in either order, 8 to 5."""

    def reply(call: Call) -> str:
        one, two = scores.get((first_shown(call), call.agent, call.round), (8, 5))
        letter = "A" if one >= two else "B"
        return f"{tag(call.agent, call.round)}\nSCORE A: {one}\nSCORE B: {two}\nANSWER: {letter}"

    return reply


async def test_swap_holds_a_second_debate_with_the_answers_exchanged() -> None:
    rt, result = await debate("chateval", preferring({}), pair_problem(), swap=True)
    assert len(rt.calls) == 8 and rt.critical_path == 4  # the orders do not wait for each other
    assert sorted(first_shown(c) for c in rt.calls) == ["first"] * 4 + ["second"] * 4
    # every referee prefers the answer shown first: A as given, B swapped; 2 A votes to 2 B,
    # the earlier turns tie too, so agent order gives A
    assert [(a.agent, a.answer) for a in result.answers if a.round == 2] == [
        ("agent_1", "A"),
        ("agent_2", "A"),
        ("agent_1 (swapped)", "B"),
        ("agent_2 (swapped)", "B"),
    ]
    assert result.final == "A" and result.tally is not None and result.tally.tie
    assert result.options["swap"] is True
    # who sees whom: a swapped debate's prompts never carry the other debate's messages
    for call in rt.calls:
        heard = last_user(call)
        assert heard.count("<agent_") == (call.round - 1) * 2 + (call.agent == "agent_2")


async def test_without_swap_one_debate_runs() -> None:
    rt, result = await debate("chateval", preferring({}), pair_problem())
    assert len(rt.calls) == 4 and {first_shown(c) for c in rt.calls} == {"first"}
    assert result.final == "A"


async def test_the_score_verdict_sums_both_debates_and_asks_scores_last() -> None:
    strongly_b = {("second", f"agent_{i}", 2): (9, 4) for i in (1, 2)}
    weakly_a = {("first", f"agent_{i}", 2): (7, 6) for i in (1, 2)}
    rt, result = await debate(
        "chateval", preferring({**strongly_b, **weakly_a}), pair_problem(), swap=True,
        verdict="scores",
    )  # fmt: skip
    assert result.final == "B" and result.tally is None  # A 14 + 8, B 12 + 18
    assert any("Verdict by scores" in str(e) and "A: 22, B: 30" in str(e) for _, e in rt.infos)
    for call in rt.calls:
        text = last_user(call)
        assert "helpfulness, relevance, accuracy and level of detail" in text
        assert ('"SCORE A: n"' in text) == (call.round == 2)  # the last turn only
    # voting on the same replies: two A votes as given, two B swapped: agent order gives A
    _, voted = await debate(
        "chateval", preferring({**strongly_b, **weakly_a}), pair_problem(), swap=True
    )
    assert voted.final == "A"


async def test_an_unreadable_last_score_gives_the_answer_shown_first() -> None:
    def reply(call: Call) -> str:
        if call.agent == "agent_2" and call.round == 2:
            return f"{tag(call.agent, call.round)} Both have merits.\nANSWER: B"
        return f"{tag(call.agent, call.round)}\nSCORE A: 2\nSCORE B: 9\nANSWER: B"

    _, result = await debate("chateval", reply, pair_problem(), retries=0, verdict="scores")
    assert result.final == "A"
    _, voted = await debate("chateval", reply, pair_problem(), retries=0)
    assert voted.final == "B"


@pytest.mark.parametrize(
    ("problem", "options", "option"),
    [
        (Problem(Question.of(["Is it?"]), YesNo()), {"verdict": "scores"}, "verdict"),
        (
            Problem(Question.of(["Pick one."]), Choice(("x", "y", "z"))),
            {"verdict": "scores"},
            "verdict",
        ),
        (Problem(Question.of(["Pick one."]), Choice(("x", "y"))), {"swap": True}, "swap"),
    ],
)
async def test_the_pair_options_refuse_a_question_that_is_no_pair(
    problem: Problem, options: dict, option: str
) -> None:
    with pytest.raises(OptionError) as refused:
        await debate("chateval", preferring({}), problem, **options)
    assert refused.value.option == option

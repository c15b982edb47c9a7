"""One rule for doubt, every format (`engine/qualifiers.py`): a refusal, a hedge before or after the
answer, a condition or a bound makes an answer unreadable in every format, while a plain answer with
a reason stays readable; and in a whole debate, hedging agents abstain and the sure one decides."""

from __future__ import annotations

import pytest
from scripted import by_round, debate

from mad_tasks.engine.answers import Choice, FreeText, Math, Number, YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.qualifiers import bounded, doubted, plain_after, plain_value, qualified
from mad_tasks.engine.session import Problem

CHOICE = Choice(("London", "Paris", "Rome", "maybe"))

# -- unreadable: refusals, hedges before and after the answer, conditions ---------------------------

REFUSALS = [
    "No, I won't help with that request.",
    "No. I cannot answer that.",
    "Sorry, no.",
    "No - as an AI I can't assist with this.",
    "No, I'm unable to help.",
    "I will not answer: no.",
]
HEDGES_AFTER = [
    "yes, I guess",
    "Yes, I think.",
    "yes, probably",
    "No, not sure though.",
    "No. Not entirely certain.",
    "yes, I reckon",  # a hedge nobody listed: after a comma, a clause without a connective
    "yes, more or less",
    "no, as far as I can tell?",
    "Yes?",
    "yes (maybe)",
    "No, or not.",
    "No; hard to say.",
]
HEDGES_BEFORE = [
    "I think yes.",
    "Probably yes.",
    "Maybe no.",
    "I'd say yes.",
    "My guess is no.",
]
CONDITIONS = [
    "Yes, if the river is frozen.",
    "No, unless it rained.",
    "Yes, depending on the season.",
    "Yes, assuming standard pressure.",
]


@pytest.mark.parametrize("said", REFUSALS + HEDGES_AFTER + HEDGES_BEFORE + CONDITIONS)
def test_a_yes_no_with_a_refusal_a_hedge_or_a_condition_is_unreadable(said: str) -> None:
    assert YesNo().extract(f"Let me think.\nANSWER: {said}") is None


@pytest.mark.parametrize(
    "said",
    [
        "C. Not sure though.",
        "C, I think",
        "C, the capital",  # after a comma, words that do not give a reason
        "Probably C",
        "C?",
        "C) Rome, unless I misremember",
        "C, if the map is current",
        "I won't pick one, sorry.",
        "B or C",
    ],
)
def test_a_choice_with_a_hedge_or_a_condition_is_unreadable(said: str) -> None:
    assert CHOICE.extract(f"ANSWER: {said}") is None


@pytest.mark.parametrize(
    "said",
    [
        "under 73",
        ">73",
        "< 73",
        "73?",
        "circa 73",
        "73 or so",
        "73-ish",
        "73+",
        "~73",
        "about 73 apples",
        "roughly 73",
        "at least 73",
        "73 or more",
        "more than 73",
        "over 73",
        "below 73",
        "73, give or take",
        "73 odd",
        "maybe 73",
        "73 I think",
        "73 if the price holds",
        "probably 73.",
        "I can't determine it, maybe 73",
        "73 (not sure)",
        "not 73",
        "never 73",
        "close to 73",
        "near 73",
        "nearly 73",
        "somewhere near 73",
        "est. 73",
        "estimated 73",
        "an estimate of 73",
        "73 (approx.)",
        "73 (approx",
        "73 (roughly, in all)",
        "73 (give or take)",
        "\\approx 73",
        "\\sim 73",
        "\\simeq 73",
        "\\geq 73",
        "\\ge 73",
        "\\leq 73",
        "\\le 73",
        "\\gtrsim 73",
        "\\lesssim 73",
        "\\ne 73",
        "\\neq 73",
        "73 \\pm 2",
        "73 \\mp 2",
        ">= 73",
        "<= 73",
        "!= 73",
        "x => 73",
        "within 73",
        "between 73",
        "up to 73",
        "73-ish",
    ],
)
def test_a_number_stated_as_a_bound_or_with_doubt_is_unreadable(said: str) -> None:
    assert Number().extract(f"ANSWER: {said}") is None


@pytest.mark.parametrize(
    "said",
    ["maybe 33", "33, I think", "\\frac{1}{2} probably", "I won't answer that", "٣٢", "３２"],
)
def test_a_math_result_with_doubt_a_refusal_or_a_non_ascii_digit_is_unreadable(said: str) -> None:
    assert Math().extract(f"ANSWER: {said}") is None


@pytest.mark.parametrize(
    "said", ["Paris, I think", "probably Paris", "Sorry, I can't answer that."]
)
def test_a_free_text_answer_with_doubt_or_a_refusal_is_unreadable(said: str) -> None:
    assert FreeText().extract(f"ANSWER: {said}") is None


# -- readable: plain answers, with a reason --------------------------------------------------------


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("No, because sharks are fish.", "no"),
        ("Yes, since ice floats.", "yes"),
        ("No; therefore the claim fails.", "no"),
        ("No. The tower is in Paris.", "no"),
        ("Yes (bats fly).", "yes"),
        ("No: penguins cannot fly.", "no"),  # "cannot" + a verb that is no refusal
        ("No - over 80% of it is water.", "no"),  # a bound word in the reason: no bound of a yes
    ],
)
def test_a_yes_no_with_a_reason_stays_readable(said: str, expected: str) -> None:
    assert YesNo().extract(f"ANSWER: {said}") == expected


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("C, since Rome is the capital of Italy", "C"),
        ("C) Rome", "C"),
        ("(B) Paris.", "B"),
        ("D) maybe", "D"),  # the option's own text may hold any word
        ("maybe", "D"),
        ("B. Paris is the capital.", "B"),
        ("C", "C"),
    ],
)
def test_a_choice_with_a_reason_or_its_text_stays_readable(said: str, expected: str) -> None:
    assert CHOICE.extract(f"ANSWER: {said}") == expected


@pytest.mark.parametrize(
    ("said", "expected"),
    [
        ("73", "73"),
        ("73 apples", "73"),
        ("$73", "73"),
        ("The total is 73", "73"),
        ("3 + 4 = 7", "7"),
        ("73, because under 80 were sold", "73"),  # a bound word after the punctuation: a reason
        ("73. It took about an hour.", "73"),
        ("73 (apples)", "73"),  # an aside of no bound
        ("73 (\\leftarrow the sum)", "73"),  # a command that only opens like \\le
        ("3 + 4 = 7 (exact)", "7"),
        ("x == 7", "7"),
        ("73, not 74, since the last box is empty", None),  # words after a comma: no reason
    ],
)
def test_a_plain_number_stays_readable(said: str, expected: str) -> None:
    assert Number().extract(f"ANSWER: {said}") == expected


def test_a_math_result_with_an_inequality_or_a_superscript_stays_readable() -> None:
    assert Math().extract("ANSWER: x > 2") == "x > 2"
    assert Math().extract("ANSWER: x²") == "x²"


def test_a_free_text_answer_may_hold_a_condition_or_a_question_mark() -> None:
    assert FreeText().extract("ANSWER: Who's Afraid of Virginia Woolf?") is not None
    assert FreeText().extract("ANSWER: if and only if") == "if and only if"


# -- the rule's parts --------------------------------------------------------------------------------


def test_the_rules_parts() -> None:
    assert qualified("yes, I guess") and qualified("73?") and not qualified("No, because fish.")
    assert doubted("probably Paris") and not doubted("Paris?") and not doubted("if and only if")
    assert not plain_value("under 73", 6, 8) and not plain_value("73 or so", 0, 2)
    assert plain_value("73 apples", 0, 2) and plain_value("73, because under 80", 0, 2)
    assert plain_value("73. Over.", 0, 2) and not plain_value("73, give or take", 0, 2)
    assert not plain_value("5-10", 0, 1) and not plain_value("7,5", 0, 1)
    assert not plain_value("5 or 6", 0, 1)
    assert plain_after("") and plain_after(". The reason.") and plain_after(" (bats fly)")
    assert plain_after(", because fish") and plain_after(",") and not plain_after(", I guess")
    assert not plain_after("; the capital") and plain_after("; hence so")
    assert plain_after(",because fish") and not plain_after(", X") and plain_after(", *")
    assert plain_after(", **because** fish")  # markup around the connective is no word of its own
    assert plain_after(", _because fish_")  # a reason in italics: "_" is a word character
    assert plain_after(", __because__ fish") and not plain_after(", so_called fish")
    assert not plain_after("**, the tower")  # markup before the comma is no punctuation of its own


def test_edge_cases_of_the_shape() -> None:
    assert YesNo().extract("ANSWER: **Yes**, the tower stands") is None
    assert YesNo().extract("ANSWER: No,because sharks are fish.") == "no"
    assert YesNo().extract("ANSWER: No, __because__ sharks are fish.") == "no"
    assert YesNo().parse("yes, *") == "yes"  # a clause of markup alone adds nothing
    assert CHOICE.extract("ANSWER: C, X") is None
    assert CHOICE.extract("ANSWER: D) maybe, maybe") is None  # the option's text once, then doubt


# -- through a whole debate ------------------------------------------------------------------------

PROBLEM = Problem(Question.of(["Is Rome the capital of Italy?"]), YesNo())


async def test_a_sure_agent_decides_over_two_hedging_ones() -> None:
    """agent_1 says yes plainly; agents 2 and 3 say no with a hedge in both rounds: they abstain,
    so the final answer is the sure agent's."""
    hedged = {(a, r): "no, I think" for a in ("agent_2", "agent_3") for r in (1, 2)}
    _, result = await debate("du_debate", by_round(hedged, "yes"), PROBLEM, retries=0)
    assert result.final == "yes"
    assert [a.answer for a in result.answers if a.agent != "agent_1"] == [None] * 4
    assert result.tally is not None and result.tally.abstentions == 2


@pytest.mark.parametrize("said", REFUSALS[:2] + HEDGES_AFTER[:3] + CONDITIONS[:1])
async def test_a_debate_of_hedging_agents_abstains(said: str) -> None:
    rt, result = await debate("du_debate", by_round(default=said), PROBLEM, retries=1)
    assert result.final is None and all(a.answer is None for a in result.answers)
    assert len(rt.calls) == 3 * 2 * 2  # every reply followed up once, then an abstention


@pytest.mark.parametrize(
    ("fmt", "sure", "hedge"),
    [
        (Choice(("London", "Paris", "Rome")), "B", "C. Not sure though."),
        (Number(), "73", "about 80"),
        (Math(), "\\frac{1}{2}", "maybe \\frac{1}{3}"),
        (FreeText(), "Paris", "Rome, I think"),
    ],
)
async def test_in_every_format_the_sure_agent_decides(fmt, sure: str, hedge: str) -> None:
    problem = Problem(Question.of(["What is it?"]), fmt)
    hedged = {(a, r): hedge for a in ("agent_2", "agent_3") for r in (1, 2)}
    _, result = await debate("du_debate", by_round(hedged, sure), problem, retries=0)
    assert result.final == fmt.parse(sure)
    assert [a.answer for a in result.answers if a.agent != "agent_1"] == [None] * 4


@pytest.mark.parametrize(
    "result",
    [
        "not 19",
        "never 19",
        "Not 19",
        "about 19",
        "around 19",
        "approx. 19",
        "approximately 19",
        "roughly 19",
        "circa 19",
        "ca. 19",
        "nearly 19",
        "near 19",
        "almost 19",
        "close to 19",
        "somewhere near 19",
        "est. 19",
        "estimated 19",
        "estimate 19",
        "between 19 and 20",
        "at least 19",
        "at most 19",
        "more than 19",
        "less than 19",
        "fewer than 19",
        "greater than 19",
        "higher than 19",
        "lower than 19",
        "over 19",
        "under 19",
        "above 19",
        "below 19",
        "up to 19",
        "within 19",
        " ~19",
        "≈ 19",
        "< 19",
        "> 19",
        "≤ 19",
        "≥ 19",
        ">= 19",
        "\\approx 19",
        "\\sim 19",
        "\\simeq 19",
        "\\geq 19",
        "\\ge 19",
        "\\leq19",
        "\\le 19",
        "\\gtrsim 19",
        "\\lesssim 19",
        "\\ne 19",
        "\\neq 19",
        "19 (approx.)",
        "19 approximately",
        "19 roughly",
        "19 est.",
        "19 estimated",
        "19 at least",
        "19 or so",
        "19 or more",
        "19 or less",
        "19 or fewer",
        "19 or above",
        "19 or below",
        "19 or higher",
        "19 or lower",
        "19-ish",
        "19 give or take",
        "19+",
        "19?",
        "19? ",
        "\\frac{1}{2}?.",
        "19 (approx.) " + " " * 50,
    ],
)
def test_a_math_result_that_opens_or_ends_as_a_bound_is_bounded(result: str) -> None:
    assert bounded(result)


@pytest.mark.parametrize(
    "result",
    [
        "19",
        "x > 19",
        "x \\geq 19",
        "1 \\pm \\sqrt{2}",
        "\\pm 2",
        "\\left(1, 2\\right)",
        "\\leftarrow",
        "\\text{odd}",
        "odd",
        "nothing",  # "not" inside a word
        "aboutness",
        "x + y",
        "(0, 1]",
    ],
)
def test_a_plain_math_result_is_not_bounded(result: str) -> None:
    assert not bounded(result)

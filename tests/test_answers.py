"""Answer formats: finding, normalising and comparing final answers in messy model text."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mad_tasks.engine import latex, prompts
from mad_tasks.engine.answers import (
    FORMATS,
    MAX_ANSWER_CHARS,
    Choice,
    FreeText,
    Math,
    Number,
    YesNo,
    infer_format,
    lines_with,
    make_format,
    normalise_number,
    without_answer_lines,
)
from mad_tasks.engine.confidence import parse_confidence
from mad_tasks.models.sim import format_from_instruction

CAPITALS = Choice(("London", "Paris", "Rome"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: yes", "yes"),
        ("Let me think.\nANSWER: No", "no"),
        ("**Answer:** yes", "yes"),
        ("Final answer: true", "yes"),
        ("ANSWER: False.", "no"),
        ("The answer is: Yes, because bats fly.", "yes"),
        ("No, because a camel cannot swim that far.", "no"),  # a reply that opens with its answer
        ("ANSWER: yes\nOn reflection that is wrong.\nANSWER: no", "no"),  # last line wins
        # only the last ANSWER line counts: earlier ones may answer a question the model invented
        ("ANSWER: no\nANSWER: maybe", None),
        ("I am not sure about this one.", None),
        ("No idea, I cannot tell.", None),  # "No idea" is not the answer "no"
        ("ANSWER: probably", None),
        ("", None),
    ],
)
def test_yesno_extract(text: str, expected: str | None) -> None:
    assert YesNo().extract(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: B", "B"),
        ("ANSWER: b", "B"),
        ("**Answer:** C", "C"),
        ("The answer is (B)", "B"),
        ("The answer is (B).", "B"),  # trailing period after a parenthesised letter
        ("ANSWER: (A)", "A"),
        ("ANSWER: C.", "C"),
        ("ANSWER: B) Paris", "B"),
        ("\\boxed{A}", "A"),
        ("ANSWER: paris.", "B"),  # option text, matched to its letter
        ("ANSWER: ROME", "C"),
        ("ANSWER: A\nNo wait.\nANSWER: C", "C"),  # last line wins
        ("ANSWER: D", None),  # only three options: D is out of range
        ("ANSWER: (Z)", None),
        ("ANSWER: Berlin", None),
        ("I think it is one of the first two.", None),
    ],
)
def test_choice_extract(text: str, expected: str | None) -> None:
    assert CAPITALS.extract(text) == expected


def test_choice_letters_and_describe() -> None:
    assert CAPITALS.letters == ("A", "B", "C")
    assert CAPITALS.describe("B") == "B) Paris"
    assert CAPITALS.render("B") == "ANSWER: B"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: 42", "42"),
        ("\\boxed{42}", "42"),
        ("so the total is \\boxed{17} apples", "17"),
        ("ANSWER: 1,234", "1234"),
        ("ANSWER: $5", "5"),
        ("ANSWER: 42.", "42"),
        ("ANSWER: 42.0", "42"),
        ("ANSWER: -0.50", "-0.5"),
        ("The answer is 7.5.", "7.5"),
        ("**Answer:** 12 apples", "12"),
        ("ANSWER: 3\nI made an error.\nANSWER: 4", "4"),
        ("I cannot tell without more information.", None),
        ("ANSWER: none of these", None),
    ],
)
def test_number_extract(text: str, expected: str | None) -> None:
    assert Number().extract(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: Paris.", "Paris"),
        ("ANSWER:   New   York  ", "New York"),
        ("**Final Answer:** Paris", "Paris"),
        ("The answer is Marie Curie.", "Marie Curie"),
        ("ANSWER: Rome\nActually no.\nANSWER: Milan", "Milan"),
        ("Paris is lovely in spring.", None),  # free text has no fallback: never guessed
    ],
)
def test_text_extract(text: str, expected: str | None) -> None:
    assert FreeText().extract(text) == expected


def test_text_key_ignores_case_punctuation_and_spacing() -> None:
    fmt = FreeText()
    assert fmt.key("Paris.") == fmt.key("paris") == fmt.key("  PARIS ")
    assert fmt.key("Paris") != fmt.key("London")


@pytest.mark.parametrize(
    "target, expected",
    [
        ("yes", "yesno"),
        ("No", "yesno"),
        ("42", "number"),
        ("-3.5", "number"),
        ("1,234", "number"),
        ("$5", "number"),
        ("Paris", "text"),
        ("yes sir", "text"),
        ("42 apples", "text"),
    ],
)
def test_infer_format(target: str, expected: str) -> None:
    assert infer_format(target) == expected


def test_make_format_builds_each_format() -> None:
    assert isinstance(make_format("yesno"), YesNo)
    assert isinstance(make_format("number"), Number)
    assert isinstance(make_format("text"), FreeText)
    assert make_format("choice", ("x", "y")) == Choice(("x", "y"))
    assert isinstance(make_format("math"), Math)
    assert FORMATS == ("choice", "yesno", "number", "text", "math")


def test_make_format_rejects_unknown_names() -> None:
    with pytest.raises(ValueError, match="banana") as err:
        make_format("banana")
    assert all(name in str(err.value) for name in FORMATS)


def test_make_format_choice_needs_options() -> None:
    with pytest.raises(ValueError, match="choice"):
        make_format("choice")


@pytest.mark.parametrize(
    "fmt",
    [YesNo(), Number(), FreeText(), Math(), Choice(("a", "b", "c", "d")), Choice(("only",))],
)
def test_format_from_instruction_round_trips(fmt) -> None:
    for prompt in (
        fmt.instruction(),
        prompts.step_by_step("Some question?", fmt),
        prompts.reminder(fmt),
    ):
        found = format_from_instruction(prompt)
        assert type(found) is type(fmt)
        if isinstance(fmt, Choice):
            assert found.letters == fmt.letters


def test_format_from_instruction_without_instruction() -> None:
    assert format_from_instruction("What is the capital of France?") is None


# -- where the answer stands ----------------------------------------------------------------------


def test_the_last_boxed_result_wins() -> None:
    assert Number().extract("First \\boxed{3}, then corrected: \\boxed{4}.") == "4"


def test_the_last_answer_is_phrase_wins() -> None:
    text = "At first the answer is 3.\nChecking again, the answer is 4."
    assert Number().extract(text) == "4"


def test_a_bare_number_on_the_last_line_is_the_fallback() -> None:
    assert Number().extract("Step 1: 6 x 7.\n42") == "42"
    assert Number().extract("Step 1: 6 x 7 is 42.\nI cannot decide.") is None


def test_answer_with_an_equals_sign_is_a_marker() -> None:
    assert Number().extract("ANSWER = 12") == "12"


def test_the_answer_would_be_phrase() -> None:
    assert FreeText().extract("If anything, the answer would be Rome.") == "Rome"


def test_a_marker_alone_on_its_line_takes_the_next_line() -> None:
    assert Number().extract("**Final answer:**\n\n42") == "42"


def test_an_unreadable_answer_line_is_never_overridden_by_a_fallback() -> None:
    # the reply opens with "No," but its stated final answer is a hedge
    assert YesNo().extract("No, wait. Let me think.\nANSWER: no idea") is None
    assert Number().extract("ANSWER: unclear\n42") is None


# -- yes/no: a non-answer is never an answer ------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "ANSWER: no idea",
        "ANSWER: No answer can be determined",
        "ANSWER: Not sure",  # the yes/no word must be a whole word: "Not" is not "no"
        "ANSWER: Yes and no",
        "ANSWER: yes/no",
        "ANSWER: yes or no",
        "ANSWER: Yes, probably",
        "ANSWER: Maybe yes",
        "ANSWER: No, I don't know",
        "ANSWER: Yes?",
        "No one can tell.",  # the opening fallback needs a standalone word too
    ],
)
def test_yesno_hedges_are_unreadable(text: str) -> None:
    assert YesNo().extract(text) is None


@pytest.mark.parametrize("text", ["ANSWER: Nothing", "ANSWER: Yesterday", "ANSWER: Trueish"])
def test_the_yes_no_word_must_be_a_whole_word(text: str) -> None:
    assert YesNo().extract(text) is None


def test_answer_lines_are_found_after_characters_that_grow_in_lower_case() -> None:
    # "İ".lower() is two characters: positions in a lower-case copy would point past the line
    assert YesNo().extract("İ" * 20 + "\nANSWER: yes\n" + "x" * 30) == "yes"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: No, because it cannot swim.", "no"),  # "cannot" alone is no hedge
        ("ANSWER: Yes (bats fly)", "yes"),
        ("ANSWER: **Yes**", "yes"),
        ("ANSWER: no - see above", "no"),
        ("ANSWER: TRUE", "yes"),
    ],
)
def test_yesno_standalone_word_with_a_reason(text: str, expected: str) -> None:
    assert YesNo().extract(text) == expected


# -- numbers --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: 3 + 4 = 7", "7"),  # the result after "=", not the first operand
        ("ANSWER: x = 5", "5"),
        ("ANSWER: 7 (since 3 + 4 = 7)", "7"),
        ("ANSWER: .5", "0.5"),
        ("ANSWER: -.25", "-0.25"),
        ("ANSWER: −5", "-5"),  # a Unicode minus keeps its sign
        ("ANSWER: 12,345,678", "12345678"),
        ("ANSWER: 1,234.50", "1234.5"),
        ("ANSWER: 42, since 6 x 7", "42"),
        ("ANSWER: 9" + "9" * 99, "9" * 100),  # 100 digits: the cap, still read
    ],
)
def test_number_reading_rules(text: str, expected: str) -> None:
    assert Number().extract(text) == expected


@pytest.mark.parametrize(
    "text",
    [
        "ANSWER: 2,5",  # a decimal comma or a list: ambiguous
        "ANSWER: 1,23",
        "ANSWER: 1.234,5",
        "ANSWER: 1.2.3",
        "ANSWER: between 5 and 10",  # a range
        "ANSWER: 5-10",
        "ANSWER: 5 to 10",
        "ANSWER: 5 or 6",
        "ANSWER: 3/4",
        "ANSWER: 3 + 4",
        "ANSWER: 3 x 4",
        "ANSWER: 1e5",  # scientific notation: not read as 1
        "ANSWER: about 12",  # hedges
        "ANSWER: approximately 3.5",
        "ANSWER: ~12",
        "ANSWER: at least 4",
        "ANSWER: probably 7",
        "ANSWER: I'm not sure, maybe 4",
        "ANSWER: 9" + "9" * 100,  # 101 digits: over the cap
    ],
)
def test_number_non_answers_are_unreadable(text: str) -> None:
    assert Number().extract(text) is None


def test_numbers_past_pythons_digit_limit_never_raise() -> None:
    huge = "9" * 5000  # int() refuses more than 4,300 digits
    assert Number().extract(f"ANSWER: {huge}") is None
    assert Number().extract(f"Working...\n{huge}") is None
    assert infer_format(huge) == "text"
    math = Math()
    assert math.extract(f"ANSWER: {huge}") is None  # longer than MAX_ANSWER_CHARS
    assert math.key(huge) == huge  # compared as written, not as a value
    assert math.key(f"\\frac{{{huge}}}{{2}}") == f"\\frac{{{huge}}}{{2}}"
    assert math.key(f"0.{huge}") == f"0.{huge}"


# -- free text and math: a statement of not knowing is no answer ---------------------------------


@pytest.mark.parametrize("fmt", [FreeText(), Math()])
@pytest.mark.parametrize(
    "text",
    [
        "ANSWER: I don't know",
        "ANSWER: No idea.",
        "ANSWER: Cannot be determined",
        "ANSWER: It is unclear.",
        "ANSWER: I'm not sure",
        "ANSWER: No answer can be determined",
    ],
)
def test_not_knowing_is_no_text_answer(fmt, text: str) -> None:
    assert fmt.extract(text) is None


@pytest.mark.parametrize("fmt", [FreeText(), Math(), YesNo()])
def test_a_statement_longer_than_the_cap_is_no_answer(fmt) -> None:
    at_cap = "yes. " + "x" * (MAX_ANSWER_CHARS - 5)
    read = "yes" if fmt.name == "yesno" else at_cap
    assert fmt.extract(f"ANSWER: {at_cap}") == read
    assert fmt.extract(f"ANSWER: {at_cap}x") is None


def test_the_squad_no_answer_token_is_an_answer() -> None:
    assert FreeText().extract("ANSWER: [UNKNOWN]") == "[UNKNOWN]"


def test_a_box_nested_deeper_than_the_cap_is_unreadable() -> None:
    def nested(depth: int) -> str:  # depth levels of braces, the box's own included
        return "{" * depth + "x" + "}" * depth

    assert latex.last_boxed(f"\\boxed{nested(latex.MAX_NESTING)}") == nested(latex.MAX_NESTING - 1)
    assert latex.last_boxed(f"\\boxed{nested(latex.MAX_NESTING + 1)}") is None
    assert latex.last_boxed("\\boxed{\\frac{1}{2}") is None  # unbalanced


def test_without_answer_lines_empties_every_marker_line() -> None:
    text = "Scores below.\nFinal answer: (60, 61)\n**ANSWER:** (95, 87)\nThe answer is fine."
    assert without_answer_lines(text) == "Scores below.\n\n\nThe answer is fine."


# -- decided by mutation testing (issue 21) -------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("intro\nthe answer here\nmiddle\nANSWER: 4\ntail\nend", (6, 39)),  # first to last line
        ("intro\nANSWER: 4", (6, 15)),  # the last line has no line break: to the end
        ("one\ntwo\nANSWER: 4", (8, 17)),  # from the line break just before the word
        ("\nanswer", (1, 7)),
        ("answer\n\n\n", (0, 7)),  # up to the first line break after the word
        ("no marker here\nat all", (0, 0)),
        ("İ\nanswer\nmore", (0, 13)),  # "İ" grows in lower case: the whole text
    ],
)
def test_lines_with_spans_the_whole_lines_holding_the_word(text: str, expected) -> None:
    assert lines_with(text, "answer") == expected


def test_the_last_readable_boxed_result_wins() -> None:
    assert Number().extract("\\boxed{3}, then \\boxed{4}, then \\boxed{x}") == "4"


def test_the_last_readable_answer_is_phrase_wins() -> None:
    text = "At first the answer is 3.\nThen the answer is 4.\nNow the answer is unclear."
    assert Number().extract(text) == "4"


def test_an_answer_is_phrase_alone_on_its_line_takes_the_next_line() -> None:
    assert Number().extract("Having checked it, the answer is:\n\n42") == "42"


@pytest.mark.parametrize("text", ["ANSWER:", "Working.\n**Final answer:**  \n\n  "])
def test_a_marker_with_nothing_after_it_is_no_answer(text: str) -> None:
    assert FreeText().extract(text) is None
    assert Number().extract(text) is None


def test_a_trailing_capital_x_is_part_of_the_answer() -> None:
    assert FreeText().extract("ANSWER: Malcolm X") == "Malcolm X"
    assert Choice(("Malcolm X", "Martin Luther King")).extract("ANSWER: Malcolm X.") == "A"


def test_a_reply_that_is_only_an_option_is_its_answer() -> None:
    assert CAPITALS.extract("B") == "B"
    assert CAPITALS.extract("Paris.") == "B"
    assert CAPITALS.extract("B" * (MAX_ANSWER_CHARS + 1)) is None  # too long to be an answer


def test_math_without_a_box_or_answer_line_is_never_guessed() -> None:
    assert Math().extract("The result is 5.") is None
    assert Math().extract("") is None
    assert Math().extract(f"\\boxed{{{'x' * MAX_ANSWER_CHARS}x}}") is None  # a box over the cap


def test_the_choice_found_in_a_prompt_has_its_letters_as_options() -> None:
    assert format_from_instruction(CAPITALS.instruction()) == Choice(("A", "B", "C"))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Step 1: 6 x 7.\nStep 2: check.\n42", "42"),  # the last of several lines
        ("Step 1: 6 x 7.\n42\n\n", "42"),  # blank lines after it
        ("Step 1: 6 x 7.\n42.", "42"),  # a full stop ends it
        ("Step 1: 6 x 7.\n$42", "42"),  # a currency sign is no part of it
        ("Step 1: half.\n.5", "0.5"),
        ("Step 1: 6 x 7.\n42X", None),
        ("Step 1: 6 x 7.\n-", None),
        ("Step 1: 6 x 7.\n1.2.3", None),
    ],
)
def test_the_bare_number_fallback_reads_only_the_last_line(text: str, expected) -> None:
    assert Number().extract(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("ANSWER: -$5", "-5"),  # a currency sign between the sign and the digits
        ("ANSWER: $3$ + $4$", None),  # an expression in math delimiters is still an expression
    ],
)
def test_dollar_signs_are_dropped_before_a_number_is_read(text: str, expected) -> None:
    assert Number().extract(text) == expected


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("42.", "42"),
        (" -7 ", "-7"),
        ("-0.0", "0"),
        ("0.0000001", "0.0000001"),  # plain digits, never an exponent
        ("-" + "9" * 100, "-" + "9" * 100),  # the sign, a point and commas are no digits
        ("9" * 99 + ".9", "9" * 99 + ".9"),
        ("1" + ",000" * 33, "1" + "000" * 33),
        ("", None),
        ("-", None),
        (".", None),
        ("42X", None),
        ("9" * 101, None),
        ("-" + "9" * 101, None),
        ("9" * 100 + ".9", None),
        ("1" + ",000" * 34, None),
    ],
)
def test_normalise_number_spellings(raw: str, expected) -> None:
    assert normalise_number(raw) == expected


def test_long_decimals_keep_every_digit() -> None:
    # Decimal rounds to 28 digits by default: these two answers would both read 0.12...5679
    longer, shorter = "0.1234567890123456789012345678901", "0.12345678901234567890123456789"
    assert normalise_number(longer) == longer
    assert normalise_number(shorter) == shorter


# -- real models' forms (tests/fixtures/reply_forms.json; issue 44) ------------------------------

REPLY_FORMS = json.loads((Path(__file__).parent / "fixtures" / "reply_forms.json").read_text())
FORM_READERS = {
    "number": Number().extract,
    "math": Math().extract,
    "choice": Choice(("London", "Paris", "Rome", "Berlin")).extract,
    "confidence": parse_confidence,
}


@pytest.mark.parametrize("case", REPLY_FORMS, ids=[case["id"] for case in REPLY_FORMS])
def test_replies_in_the_forms_real_models_write(case: dict) -> None:
    """Units and sentences in boxes, template echoes, quoted answers, refused last boxes, long
    choice replies, negated, approximate, bounded and asked numbers: each read or abstained."""
    assert FORM_READERS[case["format"]](case["reply"]) == case["expected"]


@pytest.mark.parametrize(
    "result, expected",
    [
        ("48 calories", "48"),
        ("-3 degrees", "-3"),
        ("1,500 dollars", "1,500"),
        ("2.5 square feet", "2.5"),
        ("12 feet per second", "12"),  # three unit words
        ("5 squared", "5 squared"),  # a word that changes the value is no unit
        ("5 hundred", "5 hundred"),
        ("2 pi", "2 pi"),
        ("5 m", "5 m"),  # a one-letter word may be a variable
        ("30*3=90", "90"),
        ("30 \\cdot 3 = 90", "90"),
        ("\\frac{1}{2} + \\frac{1}{4} = \\frac{3}{4}", "\\frac{3}{4}"),
        ("(2 + 3)^2 = 25", "25"),
        ("12 + 18 = 30 \\div 2 = 15", "15"),  # a chain: the value after the last "="
        ("30 * 3 = 90 apples", "90"),
        ("x = 5", "x = 5"),  # an equation with a variable stays (normalise reads "x =")
        ("= 5", "= 5"),  # nothing computed before "="
        ("3 + 4 =", "3 + 4 ="),  # nothing after it
        ("Joe has no money", None),  # four words: a sentence
        ("\\text{Joe has no money}", None),
        ("no money left", "no money left"),  # three words may name a result
        ("\\sqrt{x} + \\frac{a}{b} + \\cos \\theta", "\\sqrt{x} + \\frac{a}{b} + \\cos \\theta"),
        ("answer", None),
        ("Answers", None),
        ("[your final answer]", None),
        ("(result)", None),
        ("<the answer>", None),
        ("\\text{answer}", None),
        ("...", None),
        ("…", None),
        ("answer key", "answer key"),
    ],
)
def test_a_math_result_is_read_without_units_before_its_equals_sign_or_refused(
    result: str, expected: str | None
) -> None:
    assert latex.read_result(result) == expected


def test_the_last_box_and_where_it_ends() -> None:
    assert latex.last_box("a \\boxed{\\frac{1}{2}}? b") == ("\\frac{1}{2}", 21)
    assert latex.last_box("a \\boxed 5? b") == ("5?", 11)
    assert latex.last_box("a \\boxed{5 b") == (None, 0)
    assert latex.last_box("a \\boxed") == (None, 0)
    assert latex.last_box("no box") == (None, 0)


@pytest.mark.parametrize(
    "text",
    [
        "\\boxed{32} ?",
        "$\\boxed{32}$?",
        "**\\boxed{32}**?",
        "\\boxed{32}\t$ ?",
    ],
)
def test_a_box_followed_by_a_question_mark_is_asked(text: str) -> None:
    assert Number().extract(text) is None
    assert Math().extract(text) is None


def test_a_question_on_the_next_line_leaves_the_box_stated() -> None:
    assert Number().extract("\\boxed{32}\n?") == "32"
    assert Math().extract("\\boxed{\\frac{1}{2}}\nDo you agree?") == "\\frac{1}{2}"
    assert Math().extract("\\boxed{\\frac{1}{2}}.") == "\\frac{1}{2}"


@pytest.mark.parametrize(
    "said",
    [
        "Agent 1 suggested the answer is 45.",
        "The second solution states that the final answer is 45.",
        "Bob said the answer is 45.",
        "The other agents think the answer is 45.",
        "Agent 2 thought the answer is 45.",
        "They argued the answer is 45.",
        "Agent 2 believes the answer is 45.",
        "They believed the answer is 45.",
        "Agent 2 says that the answer is 45.",
        "Agent 2's answer is 45.",
        "Agent 2’s final answer is 45.",
        "Their answer is 45.",
        "His answer is 45.",
        "Her answer is 45.",
        "Your answer is 45.",
        "Agent 2 proposes the answer is 45.",
        "Agent 2 asserts the answer is 45.",
        "Agent 2 insists the answer is 45.",
        "Agent 2 reported the answer is 45.",
        "Agent 2 maintains the answer is 45.",
        "Agent 2 contends the answer is 45.",
        "Agent 2 claimed the answer is 45.",
        "Agent 2 say the answer is 45.",
        "Agents think the answer is 45.",
    ],
)
def test_an_answer_quoted_from_another_agent_is_not_the_replys(said: str) -> None:
    assert Number().extract(f"I count 40.\n{said}") is None


def test_a_quoted_answer_at_the_start_of_a_reply_is_not_the_replys() -> None:
    assert Number().extract("Their answer is 45.") is None


def test_a_phrase_that_gives_no_answer_leaves_an_earlier_one() -> None:
    text = "The answer is yes.\nWhy the answer is what it is: bats fly."
    assert YesNo().extract(text) == "yes"
    assert CAPITALS.extract("The answer is (B).\nAnd the answer is what the map shows.") == "B"


def test_a_last_line_that_is_the_letter_x_is_that_option() -> None:
    options = tuple(f"city {n}" for n in range(24))  # letters A to X
    assert Choice(options).extract("Each city was a capital. " * 50 + "\nX") == "X"


@pytest.mark.parametrize(
    "said",
    [
        "My answer is 45.",
        "So the answer is 45.",
        "The final answer is 45.",
        "That is why the answer is 45.",
        "The question says 3 boxes hold 15 each.\nSo\nthe answer is 45.",  # on another line
        "Agent 2 says 3 boxes hold 15 each, so by that count my final answer is 45.",  # too far
        "Nothing unsaid: the answer is 45.",  # "said" inside a word
    ],
)
def test_an_answer_of_the_replys_own_is_read(said: str) -> None:
    assert Number().extract(said) == "45"


@pytest.mark.parametrize(
    "text, expected",
    [
        ("First \\boxed{12}, then \\boxed{about 14}.", None),  # a refused number
        ("First \\boxed{12}, then \\boxed{14?}.", None),
        ("First \\boxed{12}, then \\boxed{if so}.", None),  # a qualification without a number
        ("First \\boxed{12}, then \\boxed{done}.", "12"),  # no number: not the answer
    ],
)
def test_a_refused_last_number_makes_the_reply_abstain(text: str, expected) -> None:
    assert Number().extract(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("First \\boxed{12}, then \\boxed{about 14}.", None),
        ("First \\boxed{12}, then \\boxed{answer}.", "12"),  # an echoed template is skipped
        ("First \\boxed{12}, then \\boxed{}.", "12"),  # an empty box too
    ],
)
def test_a_refused_last_math_result_makes_the_reply_abstain(text: str, expected) -> None:
    assert Math().extract(text) == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("(A)", "A"),
        ("A", "A"),
        ("C)", "C"),
        ("(C", "C"),
        ("**(B).**", "B"),
        ("(c)", None),  # a lower-case letter alone is read only in a short reply
        ("(C) Rome", None),  # an option's text too
        ("(AB)", None),
    ],
)
def test_a_long_reply_is_read_from_a_last_line_that_is_a_letter_alone(text: str, expected) -> None:
    long = "Each city was a capital for centuries. " * 40
    assert CAPITALS.extract(f"{long}\n{text}\n\n") == expected


@pytest.mark.parametrize(
    "text, expected",
    [
        ("(A) London first.\nParis.", "B"),  # the closing option's text
        ("(A) London first.\nOn reflection:\n(c)", "C"),
        ("(A) London first.\nOn reflection, none fits.", "A"),  # no closing choice
        ("Paris.", "B"),
    ],
)
def test_a_short_reply_is_read_from_its_closing_before_its_opening(text: str, expected) -> None:
    assert CAPITALS.extract(text) == expected

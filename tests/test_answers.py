"""Answer formats: finding, normalising and comparing final answers in messy model text."""

from __future__ import annotations

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
    format_from_instruction,
    infer_format,
    make_format,
    without_answer_lines,
)

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
    at_cap = "yes, " + "x" * (MAX_ANSWER_CHARS - 5)
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

"""Answer formats: finding, normalising and comparing final answers in messy model text."""

from __future__ import annotations

import pytest

from mad_tasks.engine import prompts
from mad_tasks.engine.answers import (
    FORMATS,
    Choice,
    FreeText,
    Math,
    Number,
    YesNo,
    format_from_instruction,
    infer_format,
    make_format,
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

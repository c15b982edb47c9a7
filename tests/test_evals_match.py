"""The OpenAI-evals completion functions as evals' `Match` grades them, and the simulated model
there without gold answers: a yes/no or a letter is written as the eval's ideals are
(hosts/ideal_form.py), and madsim says once that it knows no gold answer instead of abstaining
silently. Offline, on the simulated model."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from mad_tasks.engine.answers import Choice, Number, YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.hosts.ideal_form import Spelling, named_case, spelling
from mad_tasks.hosts.openai_evals import DebateCompletionFn, written

SIM_LOGGER = "mad_tasks.models.sim"


def match(sampled: str, ideal: str | list[str]) -> bool:
    """evals' `Match` (evals.api.record_and_check_match): right when the completion starts with
    one of the ideals, as written: no case folding, no stripping."""
    return any(
        sampled.startswith(option) for option in ([ideal] if isinstance(ideal, str) else ideal)
    )


# -- the rule ---------------------------------------------------------------------------------------

YES_NO, LETTERS = YesNo(), Choice(("red", "green", "blue", "white"))


@pytest.mark.parametrize(
    ("fmt", "case", "examples", "instruction", "expected"),
    [
        # the eval's instruction names the two words together, in one case
        (YES_NO, "auto", [], "Answer yes or no.", Spelling("lower", "instruction")),
        (YES_NO, "auto", [], "Reply with 'yes' or 'no' only.", Spelling("lower", "instruction")),
        (YES_NO, "auto", [], "Answer Yes/No.", Spelling("capitalized", "instruction")),
        (YES_NO, "auto", [], 'Say "YES" or "NO".', Spelling("upper", "instruction")),
        (YES_NO, "auto", [], "no or yes?", Spelling("lower", "instruction")),
        # mixed in one pair, or different pairs in different cases: no reading, the default
        (YES_NO, "auto", [], "Yes or no: does it fit?", Spelling("capitalized", "default")),
        (
            YES_NO,
            "auto",
            [],
            "Answer yes or no. Answer YES or NO.",
            Spelling("capitalized", "default"),
        ),
        (YES_NO, "auto", [], "Is it so? Think, then answer.", Spelling("capitalized", "default")),
        (YES_NO, "auto", [], "yes, yes", Spelling("capitalized", "default")),  # one word twice
        (YES_NO, "auto", [], "yesterday or nothing", Spelling("capitalized", "default")),
        # the examples (other samples' ideals) come before the instruction
        (YES_NO, "auto", ["yes", "no"], "Answer Yes or No.", Spelling("lower", "examples")),
        (YES_NO, "auto", ["No."], "", Spelling("capitalized", "examples", "", ".")),
        # examples that disagree, or are no answer alone, say nothing
        (YES_NO, "auto", ["yes", "No"], "answer YES or NO", Spelling("upper", "instruction")),
        (YES_NO, "auto", ["yes, it fits"], "", Spelling("capitalized", "default")),
        (LETTERS, "auto", ["(b)", " (d) "], "", Spelling("lower", "examples", "(", ")")),
        (LETTERS, "auto", ["E"], "", Spelling("upper", "default")),  # no option of four
        (LETTERS, "auto", [], "Answer with a, b, c or d.", Spelling("upper", "default")),
        # the argument comes first; formats without fixed words are written as read
        (YES_NO, "lower", ["Yes"], "Answer Yes or No.", Spelling("lower", "answer_case")),
        (LETTERS, "capitalized", [], "", Spelling("capitalized", "answer_case")),
        (Number(), "auto", ["yes"], "Answer yes or no.", None),
    ],
)
def test_the_ideal_s_spelling_is_read_from_the_argument_the_examples_then_the_instruction(
    fmt: Any, case: str, examples: list[str], instruction: str, expected: Spelling | None
) -> None:
    assert spelling(fmt, case, examples, instruction) == expected


def test_answers_are_written_in_the_spelling_read_and_an_abstention_stays_empty() -> None:
    assert written("yes", Spelling("lower", "instruction")) == "yes"
    assert written("no", Spelling("capitalized", "default")) == "No"
    assert written("no", Spelling("upper", "examples", "", ".")) == "NO."
    assert written("B", Spelling("lower", "examples", "(", ")")) == "(b)"
    assert written("1234.5", None) == "1234.5"
    assert written(None, Spelling("lower", "instruction")) == ""
    assert not match(written(None, Spelling("lower", "instruction")), "no")


def test_a_pair_is_found_after_any_run_of_near_misses() -> None:
    # each word may open a pair, whatever came before it
    assert named_case("yes, yes or no") == "lower"
    assert named_case("yes / " * 30_000 + "no") == "lower"
    assert named_case("yes or " * 30_000 + "maybe") is None


# -- a yes/no Match eval with lowercase ideals, as shape-in-shape is -----------------------------

SHAPES = [
    ("Does a circle of diameter 4 fit inside a square of side 5?", "yes"),
    ("Does a square of side 6 fit inside a circle of diameter 6?", "no"),
    ("Does a circle of diameter 10 fit inside a square of side 8?", "no"),
    ("Does a square of side 3 fit inside a circle of diameter 5?", "yes"),
    ("Does an equilateral triangle of side 2 fit inside a circle of diameter 3?", "yes"),
    ("Does a circle of diameter 7 fit inside an equilateral triangle of side 7?", "no"),
    ("Does a 3 by 4 rectangle fit inside a circle of diameter 6?", "yes"),
    ("Does a 1 by 10 rectangle fit inside a square of side 5?", "no"),
    ("Does a square of side 4 fit inside a square of side 3?", "no"),
    ("Does a circle of diameter 2 fit inside a circle of diameter 3?", "yes"),
    ("Does a regular hexagon of side 2 fit inside a circle of diameter 5?", "yes"),
    ("Does a circle of diameter 6 fit inside a regular hexagon of side 2?", "no"),
    ("Does a square of side 2 fit inside an equilateral triangle of side 6?", "yes"),
    ("Does a 5 by 1 rectangle fit inside a circle of diameter 4?", "no"),
    ("Does a circle of diameter 1 fit inside a 2 by 3 rectangle?", "yes"),
]
WRONG = {2, 7, 12}  # the simulated model believes the opposite here: 12 of 15 answers are right
TASK = "Decide whether the first shape fits entirely inside the second."


def believed(tmp_path: Path) -> str:
    """The gold answers the simulated model knows: the ideals, three of them reversed."""
    path = tmp_path / "believed.jsonl"
    rows = [
        {"question": q, "answer": {"yes": "no", "no": "yes"}[ideal] if i in WRONG else ideal}
        for i, (q, ideal) in enumerate(SHAPES)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def graded(fn: DebateCompletionFn, system: str) -> tuple[list[str], int]:
    """Each sample as evals' Match sends it (a system message, the question): the completions,
    and how many Match scores right."""
    completions = [
        fn(prompt=[{"role": "system", "content": system}, {"role": "user", "content": q}],
           temperature=0.0).get_completions()[0]
        for q, _ in SHAPES
    ]  # fmt: skip
    return completions, sum(match(c, ideal) for c, (_, ideal) in zip(completions, SHAPES))


def shapes_fn(tmp_path: Path, **args: Any) -> DebateCompletionFn:
    madsim = {"answers": believed(tmp_path), "accuracy": 1.0}
    return DebateCompletionFn(method="single", model="madsim/x", answer_format="yesno",
                              madsim_args=madsim, **args)  # fmt: skip


def test_a_lowercase_yes_no_match_eval_scores_the_right_answers_right(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    answers = [ideal if i not in WRONG else {"yes": "no", "no": "yes"}[ideal]
               for i, (_, ideal) in enumerate(SHAPES)]  # fmt: skip
    instructed = f"{TASK} Answer yes or no."
    # before: the answers capitalised whatever the eval writes, so Match scored 0 of 15
    before, right = graded(shapes_fn(tmp_path, answer_case="capitalized"), instructed)
    assert before == [a.capitalize() for a in answers] and right == 0
    # now: the eval's instruction names yes and no in lower case, so the 12 right answers score
    fn = shapes_fn(tmp_path)
    after, right = graded(fn, instructed)
    assert after == answers and right == 12
    assert [i for i, (c, (_, ideal)) in enumerate(zip(after, SHAPES)) if not match(c, ideal)] == [
        2, 7, 12
    ]  # fmt: skip
    done = fn(
        prompt=[
            {"role": "system", "content": instructed},
            {"role": "user", "content": SHAPES[0][0]},
        ]
    )
    assert done.record is not None
    assert done.record.options["answer_spelling"] == {
        "case": "lower", "source": "instruction", "before": "", "after": ""
    }  # fmt: skip
    # an eval whose prompt never writes the words: the default, unless the argument says
    assert graded(shapes_fn(tmp_path), TASK)[1] == 0
    lower, right = graded(shapes_fn(tmp_path, answer_case="lower"), TASK)
    assert lower == answers and right == 12


def test_letters_follow_the_form_of_the_eval_s_few_shot_answers(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    question = "Which colour is grass? (a) red (b) green (c) blue (d) white"
    path = tmp_path / "colours.jsonl"
    path.write_text(json.dumps({"question": question, "answer": "B"}) + "\n", encoding="utf-8")
    fn = DebateCompletionFn(method="single", model="madsim/x", answer_format="choice", choices=4,
                            madsim_args={"answers": str(path), "accuracy": 1.0})  # fmt: skip
    prompt = [
        {"role": "system", "content": "Answer with the option's letter."},
        {"role": "system", "name": "example_user", "content": "Which colour is snow? (a) red "
         "(b) green (c) blue (d) white"},
        {"role": "system", "name": "example_assistant", "content": "(d)"},
        {"role": "user", "content": question},
    ]  # fmt: skip
    [completion] = fn(prompt=prompt).get_completions()
    assert completion == "(b)" and match(completion, "(b)")


def test_answer_case_is_checked_when_the_function_is_made(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(OptionError, match=r"'answer_case': got 'title', allowed: auto, lower"):
        DebateCompletionFn(model="madsim/x", answer_format="yesno", answer_case="title")
    with pytest.raises(
        OptionError, match=r"'answer_case'.*unless answer_format is yesno or choice"
    ):
        DebateCompletionFn(model="madsim/x", answer_format="number", answer_case="lower")
    # oaieval passes one set of arguments to every function: addressed to this one, it is its own
    fn = DebateCompletionFn(method="du_debate", model="madsim/x", answer_format="yesno",
                            **{"du_debate.answer_case": "upper"})  # fmt: skip
    assert fn.case == "upper"


# -- the simulated model without gold answers ---------------------------------------------------


def sim_warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == SIM_LOGGER and r.levelno == logging.WARNING
    ]


def test_madsim_without_answers_warns_once_per_run_then_abstains(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    fn = DebateCompletionFn(method="du_debate", model="madsim/x", answer_format="yesno",
                            agents=3, rounds=2, retries=0)  # fmt: skip
    with caplog.at_level(logging.WARNING, logger=SIM_LOGGER):
        done = [fn(prompt=q) for q, _ in SHAPES[:3]]
    assert [d.get_completions() for d in done] == [[""]] * 3
    assert [len(d.record.calls) for d in done] == [6, 6, 6]  # 18 calls, every answer empty
    assert all(a.answer is None for d in done for a in d.record.answers)
    [warning] = sim_warnings(caplog)
    assert warning.startswith("madsim/x knows no gold answer for a question (no `answers` file")
    assert "agents abstain" in warning and "madsim_args={'answers': <file>}" in warning


def test_madsim_names_the_answers_file_that_lacks_a_question(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps({"question": SHAPES[0][0], "answer": "yes"}) + "\n", "utf-8")
    fn = DebateCompletionFn(method="single", model="madsim/x", answer_format="yesno",
                            madsim_args={"answers": str(path), "accuracy": 1.0})  # fmt: skip
    with caplog.at_level(logging.WARNING, logger=SIM_LOGGER):
        assert fn(prompt=SHAPES[0][0]).get_completions() == ["Yes"]
        assert sim_warnings(caplog) == []  # a question the file holds: nothing to say
        assert [fn(prompt=q).get_completions() for q, _ in SHAPES[1:4]] == [[""]] * 3
    [warning] = sim_warnings(caplog)
    assert f"(the `answers` file {path} does not hold the question)" in warning

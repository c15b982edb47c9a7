"""The math tasks: `math` (MATH, LaTeX answers and their normalisation) and `gsm_ic` (numbers)."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model

from mad_tasks.engine import latex
from mad_tasks.engine.answers import Math
from mad_tasks.engine.latex import equivalent, last_boxed, normalise, strip_math
from mad_tasks.engine.protocols import majority_vote
from mad_tasks.tasks import _bench
from mad_tasks.tasks.competition_math import PRESETS as MATH_PRESETS
from mad_tasks.tasks.competition_math import math
from mad_tasks.tasks.gsm_ic import PRESETS as GSM_IC_PRESETS
from mad_tasks.tasks.gsm_ic import SOURCE_COMMIT, gsm_ic


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


# -- LaTeX answers -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        (r"so the total is $\boxed{12}$.", "12"),
        (r"\boxed{\frac{1}{2}}", r"\frac{1}{2}"),
        (r"first \boxed{3}, then \boxed{\sqrt{2}+1}", r"\sqrt{2}+1"),  # the last box
        (r"\fbox{x^{2}}", "x^{2}"),
        (r"\boxed 7 is it", "7"),
        (r"\boxed{\frac{1}{2}", None),  # unbalanced: nothing to read
        ("no box at all", None),
    ],
)
def test_last_boxed(text: str, expected: str | None) -> None:
    assert last_boxed(text) == expected


@pytest.mark.parametrize(
    "a, b",
    [
        (r"\frac{1}{2}", "0.5"),
        (r"\dfrac{1}{2}", "1/2"),
        (r"\tfrac12", r"\frac{1}{2}"),
        (r"\frac{2}{4}", r"\frac{1}{2}"),  # the same value
        (r"-\frac{3}{4}", r"\frac{-3}{4}"),
        (r"\boxed{5}", "5"),
        ("$5$.", "5"),
        ("5.00", "5"),
        ("1,000", "1000"),
        ("x = 5", "5"),
        (r"\left( 1, 2 \right)", "(1,2)"),
        (r"90^\circ", "90"),
        (r"50\%", "50"),
        (r"5\text{ cm}", "5"),
        (r"\text{(C)}", "(C)"),
        (r"\sqrt3", r"\sqrt{3}"),
        (r"2 \sqrt{3}", r"2\sqrt{3}"),
        (r"\frac{\sqrt{3}}{2}", r"\dfrac{\sqrt{3}}{2}"),
        (r"3\,000", "3000"),
    ],
)
def test_equivalent_spellings(a: str, b: str) -> None:
    assert equivalent(a, b), (normalise(a), normalise(b))


@pytest.mark.parametrize(
    "a, b",
    [
        (r"\frac{1}{2}", r"\frac{1}{3}"),
        ("0.33", r"\frac{1}{3}"),  # close is not equal
        (r"\sqrt{2}", "2"),
        ("(1,2)", "[1,2]"),  # open and closed intervals differ
        ("x^2", "x^3"),
        ("12", "-12"),
    ],
)
def test_different_answers_stay_different(a: str, b: str) -> None:
    assert not equivalent(a, b)


def test_normal_form_golden_values() -> None:
    assert normalise(r"$\boxed{\dfrac{6}{8}}$") == r"\frac{3}{4}"
    assert normalise("-0.25") == r"-\frac{1}{4}"
    assert normalise(r"\left[ 2, \infty \right)") == r"[2,\infty)"


@pytest.mark.parametrize(
    "answer, expected",
    [
        (r"\$5", "5"),  # a dollar amount: the currency sign goes, no stray backslash stays
        (r"$\$18.90$", r"\frac{189}{10}"),
        ("50%", "50"),
        (r"90^{\circ}", "90"),
        ("90°", "90"),
        (r"\\dfrac{1}{2}", r"\frac{1}{2}"),  # a doubled backslash, as in escaped text
        ("(1,\n2)", "(1,2)"),
        (r"\(x^2\)", "x^2"),
        (r"\[x^2\]", "x^2"),
        (r"$\boxed{X}$.", "X"),
    ],
)
def test_signs_units_and_delimiters_are_dropped(answer: str, expected: str) -> None:
    assert normalise(answer) == expected


def test_a_dollar_amount_matches_its_number() -> None:
    # MATH references write money as "\$32"; the plain number is the same answer
    assert equivalent(r"\$32", "32")


@pytest.mark.parametrize(
    "answer, expected",
    [
        (r".5\sqrt{2}", r"0.5\sqrt{2}"),
        ("(1, .5)", "(1,0.5)"),
        (r"\sqrt{.5}", r"\sqrt{0.5}"),
    ],
)
def test_a_leading_dot_gets_its_zero_outside_plain_numbers(answer: str, expected: str) -> None:
    assert normalise(answer) == expected


@pytest.mark.parametrize(
    "answer, expected",
    [
        ("x = 5", "5"),
        ("AB = 5", "5"),  # two characters are still a name
        ("x_1 = 5", "x_1=5"),  # three are not: kept as written
        ("x = y = 5", "x=y=5"),  # two equals signs: a chain, kept as written
    ],
)
def test_only_a_short_name_before_one_equals_sign_is_dropped(answer: str, expected: str) -> None:
    assert normalise(answer) == expected


@pytest.mark.parametrize(
    "answer, expected",
    [
        (r"\frac1{72}", r"\frac{1}{72}"),
        (r"\frac1{\pi}", r"\frac{1}{\pi}"),
        (r"\frac{\pi}4", r"\frac{\pi}{4}"),
    ],
)
def test_braces_are_restored_around_a_one_digit_fraction_part(answer: str, expected: str) -> None:
    assert normalise(answer) == expected


def test_a_whole_fraction_is_an_integer_and_a_zero_denominator_is_kept_as_written() -> None:
    assert normalise(r"\frac{6}{1}") == "6"
    assert normalise(r"\frac{-6}{3}") == "-2"
    assert normalise("1/0") == "1/0"
    assert normalise(r"\frac{3}{0}") == r"\frac{3}{0}"


def test_a_number_is_read_as_a_value_up_to_max_digits() -> None:
    at_cap = "0" * (latex.MAX_DIGITS - 1) + "7"
    assert normalise(at_cap) == "7"
    assert normalise("0" + at_cap) == "0" + at_cap  # one digit more: compared as written


def test_an_unreadable_box_normalises_to_nothing() -> None:
    assert normalise(r"\boxed{\frac{1}{2}") == ""
    assert strip_math(r"$\boxed{\frac{1}{2}$") == ""


@pytest.mark.parametrize(
    "text, expected",
    [
        (r"$\boxed 7$.", "7"),  # the token without the closing dollar and period
        (r"\boxed X.", "X"),
        (r"the answer is \boxed", None),  # a box with nothing after it
        (r"\boxed7", None),  # no space: a different command name, not a box
        (r"\fboxsep 2pt", None),
    ],
)
def test_a_box_without_braces_holds_the_next_token(text: str, expected: str | None) -> None:
    assert last_boxed(text) == expected


def test_a_brace_group_pattern_admits_exactly_its_depth() -> None:
    # the box pattern is built once, at import; this decides the builder for any depth
    for depth in (1, 2, 3):
        pattern = re.compile(latex._balanced(depth))
        assert pattern.fullmatch("{" * depth + "x" + "}" * depth)
        assert not pattern.fullmatch("{" * (depth + 1) + "x" + "}" * (depth + 1))
    assert re.fullmatch(latex._balanced(2), "{a{b}c{d}e}")  # groups side by side


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Work...\nANSWER: $\\frac{3}{4}$", r"\frac{3}{4}"),
        ("ANSWER: \\boxed{\\frac{3}{4}}.", r"\frac{3}{4}"),
        ("so we get $\\boxed{\\frac{3}{4}}$", r"\frac{3}{4}"),  # nested braces, no ANSWER line
        ("The answer is $2\\sqrt{3}$.", r"2\sqrt{3}"),
        ("I could not finish this one.", None),
        ("ANSWER: $$", None),
    ],
)
def test_math_format_extracts(reply: str, expected: str | None) -> None:
    assert Math().extract(reply) == expected


def test_equivalent_answers_are_one_vote() -> None:
    fmt = Math()
    tally = majority_vote([r"\frac{1}{2}", "0.5", "2"], key=fmt.key)
    assert fmt.key(tally.winner) == r"\frac{1}{2}"


# -- the math task -----------------------------------------------------------------------------------

# synthetic rows in the DigitalLearningGmbH/MATH-lighteval schema
MATH_ROWS = [
    {"problem": "What is $\\frac{3}{6}$ in lowest terms?", "level": "Level 1", "type": "Prealgebra",
     "solution": "Divide by three: $\\frac{3}{6} = \\boxed{\\frac{1}{2}}$."},
    {"problem": "Solve $x+2=9$.", "level": "Level 1", "type": "Algebra",
     "solution": "Subtract: $x = \\boxed{7}$."},
    {"problem": "Simplify $\\sqrt{12}$.", "level": "Level 2", "type": "Algebra",
     "solution": "$\\sqrt{12} = \\boxed{2\\sqrt{3}}$"},
]  # fmt: skip


def test_math_records(tmp_path: Path) -> None:
    task = math(data_path=write_jsonl(tmp_path / "math.jsonl", MATH_ROWS))
    assert [(s.id, s.target) for s in task.dataset] == [
        (1, r"\frac{1}{2}"),
        (2, "7"),
        (3, r"2\sqrt{3}"),
    ]
    assert task.dataset[0].metadata == {
        "answer_format": "math",
        "level": "Level 1",
        "subject": "Prealgebra",
    }


def test_math_500_style_answer_field_wins(tmp_path: Path) -> None:
    row = {"problem": "P?", "solution": "... \\boxed{4}", "answer": "$4$", "subject": "Algebra",
           "level": 1, "unique_id": "test/algebra/1.json"}  # fmt: skip
    [sample] = math(data_path=write_jsonl(tmp_path / "m.jsonl", [row])).dataset
    assert (sample.id, sample.target, sample.metadata["subject"]) == (
        "test/algebra/1.json",
        "4",
        "Algebra",
    )


def test_math_solution_without_box_names_the_record(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "m.jsonl", [MATH_ROWS[0], {**MATH_ROWS[1], "solution": "It is 7."}]
    )
    with pytest.raises(ValueError, match=r"m\.jsonl: record 2: 'solution' has no \\boxed"):
        math(data_path=path)


def test_math_public_source_is_the_pinned_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    def fake_hf_records(path, split, name=None, revision=None):
        asked.append((path, split, name, revision))
        return MATH_ROWS

    monkeypatch.setattr(_bench, "hf_records", fake_hf_records)
    task = math()
    revision = "0530c78699ea5e8eb5530600900e1f328b48acad"
    assert asked == [("DigitalLearningGmbH/MATH-lighteval", "test", "default", revision)]
    assert task.metadata["source"].endswith(f"@ {revision}")


def test_paper_subset_sizes() -> None:
    assert MATH_PRESETS == {"cortex": 100, "cortex_large": 1000}
    assert GSM_IC_PRESETS == {"cortex": 100}


# -- the gsm_ic task ---------------------------------------------------------------------------------

# synthetic records in the GSM-IC schema
GSM_IC_ROWS = [
    {"original_question": "Tom has 3 boxes of 4 pens. How many pens does he have?",
     "new_question": "Tom has 3 boxes of 4 pens. His aunt is 52 years old. How many pens does he have?",
     "answer": "12", "n_steps": 1, "role_label": "nonoverlapped", "number_label": "in_range",
     "sentence_label": "out_topic"},
    {"original_question": "A bus carries 40 people and 15 get off. How many remain?",
     "new_question": "A bus carries 40 people and 15 get off. The road is 8 km long. How many remain?",
     "answer": 25, "n_steps": 1, "role_label": "overlapped", "number_label": "out_range",
     "sentence_label": "in_topic"},
]  # fmt: skip


def test_gsm_ic_records(tmp_path: Path) -> None:
    task = gsm_ic(data_path=write_jsonl(tmp_path / "gsm.jsonl", GSM_IC_ROWS))
    samples = list(task.dataset)
    assert [(s.id, s.target) for s in samples] == [(1, "12"), (2, "25")]
    assert "His aunt is 52 years old." in samples[0].input  # the distracting variant is asked
    assert samples[0].metadata["original_question"] == GSM_IC_ROWS[0]["original_question"]
    assert samples[1].metadata["sentence_label"] == "in_topic"
    assert samples[0].metadata["answer_format"] == "number"


@pytest.mark.parametrize("answer", ["twelve", None, True, [12]])
def test_gsm_ic_bad_answer_names_the_record(tmp_path: Path, answer) -> None:
    path = write_jsonl(
        tmp_path / "gsm.jsonl", [GSM_IC_ROWS[0], {**GSM_IC_ROWS[1], "answer": answer}]
    )
    with pytest.raises(ValueError, match=r"gsm\.jsonl: record 2: 'answer' must be a number"):
        gsm_ic(data_path=path)


def no_network(*args, **kwargs):
    raise AssertionError("must not touch the network")


def test_gsm_ic_bad_split_is_rejected_before_any_download(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    with pytest.raises(ValueError, match=r"invalid task option 'split'.*2step, mstep"):
        gsm_ic(split="3step")


@pytest.mark.parametrize("split", ["2step", "mstep"])
def test_gsm_ic_loads_the_cached_file_of_the_pinned_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, split: str
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    cached = tmp_path / "gsm_ic" / SOURCE_COMMIT / f"GSM-IC_{split}.json"
    cached.parent.mkdir(parents=True)
    cached.write_text(json.dumps(GSM_IC_ROWS), encoding="utf-8")  # the release is a JSON array
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    task = gsm_ic(split=split)
    assert len(task.dataset) == 2
    assert task.metadata["source"] == (
        "https://raw.githubusercontent.com/google-research-datasets/GSM-IC/"
        f"0c1da13552afcc5d995d6f1ad5288417cb110246/GSM-IC_{split}.json"
    )
    assert task.metadata["split"] == split


# -- end to end --------------------------------------------------------------------------------------


def run(task: Task, tmp_path: Path, model="madsim/x", **model_args) -> EvalLog:
    [log] = eval(
        task, model=model, model_args=model_args, display="none", log_dir=str(tmp_path / "logs")
    )
    assert log.status == "success", log.error
    return log


def accuracy(log: EvalLog) -> float:
    [score] = [s for s in log.results.scores if s.name == "final_answer"]
    return score.metrics["accuracy"].value


@pytest.mark.parametrize(
    "task, rows", [(math, MATH_ROWS), (gsm_ic, GSM_IC_ROWS)], ids=["math", "gsm_ic"]
)
def test_always_right_scores_one_and_always_wrong_zero(tmp_path: Path, task, rows) -> None:
    path = write_jsonl(tmp_path / "data.jsonl", rows)
    right = run(task(data_path=path), tmp_path, accuracy=1.0)
    assert accuracy(right) == 1.0
    wrong = run(task(data_path=path), tmp_path, accuracy=0.0, conformity=0.0)
    assert accuracy(wrong) == 0.0
    assert all(s.output.completion.startswith("ANSWER: ") for s in wrong.samples)


def spelled_differently(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
    """Right answers written another way than the reference: 0.5, 7.0, \\boxed{2 \\sqrt 3}."""
    prompt = "\n".join(m.text for m in input)
    answer = next(a for key, a in [("frac{3}{6}", "0.5"), ("x+2=9", "x = 7.0"), ("sqrt{12}", r"\boxed{2 \sqrt 3}")]
                  if key in prompt)  # fmt: skip
    out = ModelOutput.from_content("mockllm/model", f"Worked it out.\nANSWER: ${answer}$")
    out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
    return out


def test_math_scores_equivalent_spellings_as_correct(tmp_path: Path) -> None:
    model = get_model("mockllm/model", custom_outputs=spelled_differently)
    log = run(
        math(data_path=write_jsonl(tmp_path / "math.jsonl", MATH_ROWS)), tmp_path, model=model
    )
    assert accuracy(log) == 1.0
    assert [s.scores["final_answer"].answer for s in log.samples] == [
        "0.5",
        "x = 7.0",
        r"2 \sqrt 3",
    ]

"""Local data files (`-T data_path=...`): every fault names the file, the record and the field.

Each test writes a tiny file to tmp_path. A bad file must stop the task while it is built, with a
ValueError that says where to look; a non-finite number is never a target (NaN equals nothing, so
a NaN target could never be scored correct).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mad_tasks.tasks._data import read_records
from mad_tasks.tasks.arc_challenge import arc_challenge
from mad_tasks.tasks.competition_math import math as math_task
from mad_tasks.tasks.gsm_ic import gsm_ic
from mad_tasks.tasks.mmlu import mmlu
from mad_tasks.tasks.mmlu_pro import mmlu_pro
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

GSM = '{"new_question": "Tom has 3 apples and buys 2. How many now?", "answer": %s}'


def write(tmp_path: Path, name: str, body: bytes | str) -> Path:
    path = tmp_path / name
    if isinstance(body, str):
        body = body.encode("utf-8")
    path.write_bytes(body)
    return path


def error_of(call) -> str:
    with pytest.raises(ValueError) as err:
        call()
    return str(err.value)


# -- the file itself -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, body, line",
    [
        ("data.jsonl", b'{"a": "tea"}\n{"a": "caf\xe9"}\n', 2),
        ("data.json", b'[{"a": "tea"},\n {"a": "caf\xe9"}]', 2),
        ("data.csv", b"a,b\ntea,1\ncaf\xe9,2\n", 3),
    ],
)
def test_non_utf8_bytes_name_the_file_and_line(
    tmp_path: Path, name: str, body: bytes, line: int
) -> None:
    path = write(tmp_path, name, body)
    message = error_of(lambda: read_records(path))
    assert message.startswith(f"{path}:{line}: not UTF-8 text"), message


def test_a_malformed_json_array_names_the_file_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, "data.json", '[{"a": "tea"},\n {"a": tru}]')
    assert error_of(lambda: read_records(path)) == f"{path}:2:8: not valid JSON (Expecting value)"


def test_a_truncated_json_array_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "data.json", '[{"a": "tea"},\n {"a": "cake"}')
    assert error_of(lambda: read_records(path)).startswith(f"{path}:2:")


@pytest.mark.parametrize("name", ["data.json", "data.jsonl"])
def test_a_number_beyond_pythons_digit_limit_names_the_file_record_and_field(
    tmp_path: Path, name: str
) -> None:
    huge = '{"a": 1, "b": {"c": [' + "9" * 5000 + "]}}"
    body = f'[{{"a": 1}},\n{huge}]' if name == "data.json" else f'{{"a": 1}}\n{huge}\n'
    path = write(tmp_path, name, body)
    place = f"{path}: record 2" if name == "data.json" else f"{path}:2"
    assert error_of(lambda: read_records(path)) == (
        f"{place}: 'b' holds an integer longer than Python reads (4300 digits)"
    )


@pytest.mark.parametrize("name", ["data.json", "data.jsonl"])
def test_json_nested_too_deeply_names_the_file(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, name, "[" * 100_000)
    message = error_of(lambda: read_records(path))
    assert message.startswith(f"{path}:1: not valid JSON (nested too deeply)"), message


def test_an_array_element_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "data.json", '[{"a": 1}, 5]')
    assert error_of(lambda: read_records(path)) == f"{path}: record 2: not a JSON object, got 5"


def test_a_jsonl_line_that_is_not_an_object_is_named(tmp_path: Path) -> None:
    path = write(tmp_path, "data.jsonl", '{"a": 1}\n\n["a", 1]\n')
    assert error_of(lambda: read_records(path)) == f"{path}:3: not a JSON object, got ['a', 1]"


# -- numeric targets -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer",
    ["NaN", "Infinity", "-Infinity", "1e5000", '"NaN"', '"inf"', '"-Infinity"', '"1e5000"',
     '"1e-5000"', "true", '"five"'],
)  # fmt: skip
def test_a_non_finite_or_absurd_numeric_target_is_refused_by_name(
    tmp_path: Path, answer: str
) -> None:
    path = write(tmp_path, "gsm.jsonl", GSM % "5" + "\n" + GSM % answer + "\n")
    message = error_of(lambda: gsm_ic(data_path=str(path)))
    assert message.startswith(f"{path}: record 2: 'answer' must be a number (finite"), message


@pytest.mark.parametrize(
    "answer, target",
    [
        ("5", "5"),
        ("5.0", "5"),
        ('"1,234"', "1234"),
        ('"3.50"', "3.5"),
        ("-2", "-2"),
        ("1e16", "10000000000000000"),  # a JSON float, by its digits (str() would say 1e+16)
        ("1e-7", "0.0000001"),
    ],
)
def test_finite_numeric_targets_are_read(tmp_path: Path, answer: str, target: str) -> None:
    path = write(tmp_path, "gsm.jsonl", GSM % answer + "\n")
    assert [s.target for s in gsm_ic(data_path=str(path)).dataset] == [target]


@pytest.mark.parametrize("answer", ['"²"', '"' + "9" * 5000 + '"', "1.0", "-1", "NaN"])
def test_an_unreadable_option_index_is_refused_by_name(tmp_path: Path, answer: str) -> None:
    row = '{"question": "Which is even?", "choices": ["1", "2"], "answer": %s}'
    path = write(tmp_path, "mmlu.jsonl", row % "1" + "\n" + row % answer + "\n")
    message = error_of(lambda: mmlu(data_path=str(path)))
    assert message.startswith(f"{path}: record 2: 'answer' must be an option index"), message


# -- sample ids -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "task, row, field",
    [
        (strategyqa, {"question": "Is ice cold?", "answer": True}, "qid"),
        (mmlu_pro, {"question": "Q?", "options": ["a", "b"], "answer": "A"}, "question_id"),
        (
            arc_challenge,
            {"question": "Q?", "choices": {"text": ["a", "b"], "label": ["A", "B"]},
             "answerKey": "A"},
            "id",
        ),
        (math_task, {"problem": "1+1?", "answer": "2"}, "unique_id"),
        (mt_bench_judge, {"question": "Q?", "answer_a": "a", "answer_b": "b", "label": "A"}, "row"),
    ],
)  # fmt: skip
@pytest.mark.parametrize("bad_id", [[1], {"n": 1}, 1.5, True])
def test_a_bad_sample_id_is_refused_by_name(
    tmp_path: Path, task, row: dict, field: str, bad_id
) -> None:
    path = write(tmp_path, "data.jsonl", json.dumps({**row, field: bad_id}) + "\n")
    message = error_of(lambda: task(data_path=str(path)))
    assert message.startswith(f"{path}: record 1: '{field}' must be a string or an integer"), (
        message
    )


STRATEGYQA_RECORD = {"qid": "q1", "question": "Is water wet?", "answer": True}


def test_a_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = write(tmp_path, "bom.jsonl", b"\xef\xbb\xbf" + json.dumps(STRATEGYQA_RECORD).encode())
    task = strategyqa(data_path=str(path))
    assert [s.id for s in task.dataset] == ["q1"]


def test_an_empty_file_is_refused_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, "empty.jsonl", "\n")
    assert error_of(lambda: strategyqa(data_path=str(path))) == f"{path}: no records to evaluate"


def test_a_sample_id_given_twice_is_refused_naming_the_file(tmp_path: Path) -> None:
    line = json.dumps(STRATEGYQA_RECORD)
    path = write(tmp_path, "twice.jsonl", f"{line}\n{line}\n")
    message = error_of(lambda: strategyqa(data_path=str(path)))
    assert (
        message == f"{path}: records 1 and 2 have the same sample id 'q1'; every id must be unique"
    )

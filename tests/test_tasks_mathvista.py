"""The vision task `mathvista`: images as content parts, MathVista's answer normalisation, the
local-copy and Hub paths (the Hub loader monkeypatched: nothing touches the network)."""

from __future__ import annotations

import base64
import json
import runpy
import time
from pathlib import Path

import pytest
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText, ModelOutput
from inspect_ai.scorer import Target
from inspect_ai.solver import TaskState

from mad_tasks.engine.checks import OptionError
from mad_tasks.scorers.mathvista import MAX_PRECISION, mathvista_answer, normalise_answer
from mad_tasks.solvers import single
from mad_tasks.tasks import _data
from mad_tasks.tasks import mathvista as mathvista_module
from mad_tasks.tasks.mathvista import DATASET, REVISION, mathvista

FIXTURE = Path(__file__).parent / "fixtures" / "mathvista"
DATA = FIXTURE / "data.jsonl"
ROWS = [json.loads(line) for line in DATA.read_text(encoding="utf-8").splitlines()]
PNG = (FIXTURE / "images" / "1.png").read_bytes()


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def parts(sample) -> list:
    [message] = sample.input
    assert isinstance(message, ChatMessageUser)
    return message.content


# -- the shipped fixture -------------------------------------------------------------------------


def test_fixture_samples_carry_the_image_after_the_text() -> None:
    samples = list(mathvista(data_path=str(DATA)).dataset)
    assert [s.id for s in samples] == ["1", "2", "3"]
    for sample, name in zip(samples, ["1.png", "2.png", "3.png"]):
        text, image = parts(sample)
        assert isinstance(text, ContentText) and isinstance(image, ContentImage)
        assert image.image == str((FIXTURE / "images" / name).resolve())  # absolute: any cwd
    # multiple choice shows the question (the solvers letter the options); free form the query
    assert parts(samples[0])[0].text == "Which shape is drawn in black?"
    assert parts(samples[1])[0].text == ROWS[1]["query"]
    assert parts(samples[2])[0].text.startswith(
        "Hint: Please answer the question requiring a float"
    )
    assert [s.target for s in samples] == ["B", "3", "1.5"]
    assert [s.choices for s in samples] == [["circle", "square", "triangle"], None, None]
    meta = [s.metadata for s in samples]
    assert [m["answer_format"] for m in meta] == ["choice", "number", "number"]
    assert [m["answer_type"] for m in meta] == ["text", "integer", "float"]
    assert [m["precision"] for m in meta] == [None, None, 1]
    assert meta[1]["context"] == "bar chart"  # MathVista's own metadata, for per-category scores


def test_fixture_images_are_tiny_pngs_the_script_writes() -> None:
    script = runpy.run_path(str(FIXTURE / "make_images.py"))
    for name, pixels in script["IMAGES"].items():
        data = (FIXTURE / "images" / name).read_bytes()
        assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) < 1024
        assert script["png"](pixels) == data  # the committed file is the script's output


def test_task_metadata_records_the_source() -> None:
    task = mathvista(data_path=str(DATA), subset=2)
    assert len(task.dataset) == 2
    assert task.metadata["source"] == str(DATA)


# -- MathVista's normalisation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, answer_type, precision, expected",
    [
        ("1.449", "float", 2, "1.45"),
        ("1.50", "float", 2, "1.5"),  # trailing zeros do not matter
        ("1.54", "float", 1, "1.5"),
        ("1.45", "float", 1, "1.4"),  # half to even, as round() gives here
        ("1.55", "float", 1, "1.6"),
        ("2", "float", 1, "2"),
        ("-0.04", "float", 1, "0"),
        ("1234.5678", "float", 0, "1235"),
        ("3.0", "integer", 0, "3"),
        ("3", "integer", 0, "3"),
        ("3.7", "integer", 0, "3"),  # MathVista's int(float(x)) truncates
        ("-3.7", "integer", 0, "-3"),
        ("1,234", "integer", 0, "1234"),
        ("three", "integer", 0, None),
        ("2,5", "float", 1, None),  # ambiguous: no number
        ("[1, 2.50]", "list", 0, "[1, 2.5]"),
        ("(1,2)", "list", 0, "[1, 2]"),
        ("[a,  b c]", "list", 0, "[a, b c]"),
        ("[1,23]", "list", 0, "[1, 23]"),  # items stay apart: not [12, 3]
        ("B", "text", 0, "B"),
        ("9" * 100, "float", 20, "9" * 100),  # the longest number read keeps every digit
        ("-9." + "9" * 99, "float", 20, "-10"),
        ("nan", "float", 1, None),
        ("inf", "integer", 0, None),
    ],
)
def test_normalise_answer(answer: str, answer_type: str, precision: int, expected) -> None:
    assert normalise_answer(answer, answer_type, precision) == expected


def test_normalise_answer_is_linear_and_never_raises() -> None:
    long_list = "[" + "1, " * 70_000 + "]"  # a 210,000-character reply
    started = time.perf_counter()
    assert normalise_answer(long_list, "list") == "[" + "1, " * 70_000 + "]"
    for kind in ("integer", "float"):
        assert normalise_answer("9" * 200_000, kind, MAX_PRECISION) is None
    assert time.perf_counter() - started < 1.0


def state_with(completion: str, sample_index: int) -> tuple[TaskState, Target]:
    sample = list(mathvista(data_path=str(DATA)).dataset)[sample_index]
    state = TaskState(
        model="madsim/x", sample_id=sample.id, epoch=1, input=sample.input, messages=[],
        choices=sample.choices, metadata=sample.metadata,
        output=ModelOutput.from_content("madsim/x", completion),
    )  # fmt: skip
    return state, Target(sample.target)


@pytest.mark.parametrize(
    "completion, sample_index, correct, answer",
    [
        ("ANSWER: B", 0, True, "B"),
        ("It is a square.\nANSWER: (B)", 0, True, "B"),
        ("ANSWER: square", 0, True, "B"),  # the option's text
        ("ANSWER: A", 0, False, "A"),
        ("ANSWER: a square-ish shape", 0, False, ""),  # no option: no answer, not the nearest
        ("ANSWER: 3.0", 1, True, "3"),
        ("ANSWER: 3 bars", 1, True, "3"),
        ("ANSWER: 4", 1, False, "4"),
        ("ANSWER: about 3", 1, False, ""),  # a hedge is no answer
        ("ANSWER: 1.54", 2, True, "1.5"),  # rounded to the question's precision (1)
        ("ANSWER: 1.50", 2, True, "1.5"),
        ("ANSWER: 1.56", 2, False, "1.6"),
        ("no final answer here", 2, False, ""),
    ],
)
async def test_scorer_applies_the_normalisation(
    completion: str, sample_index: int, correct: bool, answer: str
) -> None:
    state, target = state_with(completion, sample_index)
    score = await mathvista_answer()(state, target)
    assert (score.value == "C", score.answer) == (correct, answer)


# -- bad data --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, message",
    [
        ({"image": "images/missing.png"}, r"record 1: image file '.*missing\.png' does not exist"),
        ({"image": "data.jsonl"}, r"record 1: '.*data\.jsonl' is not a PNG, JPEG, GIF or WebP"),
        ({"image": None}, "record 1: 'image' must be a non-empty string"),
        ({"answer": "hexagon"}, "record 1: 'answer' 'hexagon' is not one of the 'choices'"),
        ({"choices": ["circle"]}, "record 1: 'choices' must be a list of 2 to 26"),
        ({"question_type": "essay"}, "record 1: 'question_type' must be multi_choice, or free_form"),
        ({"question_type": "free_form", "answer_type": "date"}, "got 'free_form', 'date'"),
        ({"question_type": "free_form", "answer_type": "integer", "answer": "2.5"},
         "record 1: 'answer' must be a whole number, got 2.5"),
        ({"question_type": "free_form", "answer_type": "float", "answer": "many"},
         "record 1: 'answer' must be a number"),
        ({"question_type": "free_form", "answer_type": "float", "answer": "1.5"},
         "record 1: 'precision' must be a whole number of decimals from 0 to 20 for a float "
         "answer, got None"),
        ({"question_type": "free_form", "answer_type": "float", "answer": "1.5", "precision": 1.5},
         "'precision' must be a whole number"),
        ({"question_type": "free_form", "answer_type": "float", "answer": "1.5", "precision": 21},
         "'precision' must be a whole number"),
        *[({"question_type": "free_form", "answer_type": "float", "answer": "1.5", "precision": p},
           "'precision' must be a whole number") for p in (True, "1", float("nan"), -1)],
        ({"question": ""}, "record 1: 'question' must be a non-empty string"),
    ],
)  # fmt: skip
def test_bad_records_are_refused_by_file_and_record(
    tmp_path: Path, change: dict, message: str
) -> None:
    (tmp_path / "images").mkdir()
    (tmp_path / "images" / "1.png").write_bytes(PNG)
    path = write_jsonl(tmp_path / "data.jsonl", [{**ROWS[0], **change}])
    with pytest.raises(ValueError, match=message) as err:
        mathvista(data_path=path)
    assert str(err.value).startswith(f"{path}: record 1: ")


def test_an_image_named_for_another_type_is_sent_as_a_data_uri(tmp_path: Path) -> None:
    # MathVista names its PNG images .jpg; Inspect would announce them as JPEG
    (tmp_path / "1.jpg").write_bytes(PNG)
    path = write_jsonl(tmp_path / "data.jsonl", [{**ROWS[0], "image": "1.jpg"}])
    [sample] = mathvista(data_path=path).dataset
    assert parts(sample)[1].image == "data:image/png;base64," + base64.b64encode(PNG).decode()


@pytest.mark.parametrize(
    "option, value", [("subset", 0), ("subset", "voting"), ("shuffle", "maybe"), ("seed", "x")]
)
def test_bad_options_are_refused_before_reading(option: str, value) -> None:
    with pytest.raises(OptionError, match=f"invalid task option '{option}'"):
        mathvista(data_path="/nowhere.jsonl", **{option: value})


# -- the Hub path ----------------------------------------------------------------------------------


def test_hub_rows_images_are_cached_files(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    jpeg = b"\xff\xd8\xff\xe0" + b"\x00" * 20  # only its signature matters here
    rows = [{**row, "decoded_image": {"bytes": data, "path": None}} for row, data in
            zip(ROWS[:2], [PNG, jpeg])]  # fmt: skip
    asked = []

    def fake_hf_records(path, split, name=None, revision=None, image_bytes=False):
        asked.append((path, split, name, revision, image_bytes))
        return rows

    monkeypatch.setattr(mathvista_module, "hf_records", fake_hf_records)
    task = mathvista()
    assert asked == [(DATASET, "testmini", None, REVISION, True)]
    assert (
        task.metadata["source"]
        == f"https://huggingface.co/datasets/{DATASET} (testmini) @ {REVISION}"
    )
    first, second = (Path(parts(s)[1].image) for s in task.dataset)
    assert first == tmp_path / "mathvista" / REVISION / "1.png"
    assert second == tmp_path / "mathvista" / REVISION / "2.jpg"
    assert (first.read_bytes(), second.read_bytes()) == (PNG, jpeg)
    bad = [{**ROWS[0], "decoded_image": {"bytes": b"GIF", "path": None}}]
    monkeypatch.setattr(mathvista_module, "hf_records", lambda *a, **k: bad)
    with pytest.raises(ValueError, match="record 1: 'decoded_image' holds no PNG, JPEG"):
        mathvista()


def test_hf_records_keeps_image_columns_as_bytes(monkeypatch) -> None:
    import datasets
    from datasets import Dataset, Features, Value

    undecoded = {"bytes": Value("binary"), "path": Value("string")}
    table = Dataset.from_dict(
        {"pid": ["1"], "decoded_image": [{"bytes": PNG, "path": None}]},
        features=Features({"pid": Value("string"), "decoded_image": undecoded}),
    ).cast_column("decoded_image", datasets.Image())  # the Hub's column type: decoded on access
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, **k: table)
    [row] = _data.hf_records(DATASET, "testmini", revision=REVISION, image_bytes=True)
    assert row == {"pid": "1", "decoded_image": {"bytes": PNG, "path": None}}


# -- end to end on the simulated model --------------------------------------------------------------


def accuracy(log: EvalLog) -> float:
    [score] = [s for s in log.results.scores if s.name == "mathvista_answer"]
    return score.metrics["accuracy"].value


def test_single_runs_offline_and_every_call_carries_the_image(run) -> None:
    right = run(mathvista(data_path=str(DATA)), model="madsim/x", solver=single(),
                model_args={"accuracy": 1.0})  # fmt: skip
    assert accuracy(right) == 1.0
    assert [s.output.completion for s in right.samples] == ["ANSWER: B", "ANSWER: 3", "ANSWER: 1.5"]
    for sample, name in zip(right.samples, ["1.png", "2.png", "3.png"]):
        data_uri = (
            "data:image/png;base64,"
            + base64.b64encode((FIXTURE / "images" / name).read_bytes()).decode()
        )
        calls = [e for e in resolve_sample_attachments(sample).events if e.event == "model"]
        assert len(calls) == 1
        [message] = [m for m in calls[0].input if m.role == "user"]
        kinds = [type(p) for p in message.content]
        # the question's text, then its image, then (after it) the answer instruction
        assert kinds[:2] == [ContentText, ContentImage] and kinds.count(ContentImage) == 1
        assert message.content[1].image == data_uri
    wrong = run(mathvista(data_path=str(DATA)), model="madsim/x", solver=single(),
                model_args={"accuracy": 0.0, "conformity": 0.0})  # fmt: skip
    assert accuracy(wrong) == 0.0
    assert all(
        s.output.completion.startswith("ANSWER: ") for s in wrong.samples
    )  # wrong, not missing

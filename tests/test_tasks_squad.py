"""squad_v2: SQuAD 2.0 loading and the `squad` scorer (exact match and F1, HasAns / NoAns split)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog
from inspect_ai.model import ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target
from inspect_ai.solver import TaskState
from inspect_ai.util import registry_info

from mad_tasks.scorers.squad import (
    NO_ANSWER,
    by_split,
    contains,
    exact,
    f1,
    normalize,
    read_prediction,
    squad,
    squad_contains,
)
from mad_tasks.tasks import _bench
from mad_tasks.tasks.squad_v2 import PRESETS, squad_v2

# synthetic rows in the rajpurkar/squad_v2 schema
ROWS = [
    {"id": "s1", "title": "Lighthouses", "question": "Who kept the lighthouse?",
     "context": "The lighthouse on the cape was kept by Mara Quill for forty years.",
     "answers": {"text": ["Mara Quill", "Mara Quill", "Quill"], "answer_start": [39, 39, 44]}},
    {"id": "s2", "title": "Lighthouses", "question": "What colour was the lighthouse roof?",
     "context": "The lighthouse on the cape was kept by Mara Quill for forty years.",
     "answers": {"text": [], "answer_start": []}},
    {"id": "s3", "title": "Rivers", "question": "How long is the Teller river?",
     "context": "The Teller river runs 212 kilometres to the sea.",
     "answers": {"text": ["212 kilometres"], "answer_start": [22]}},
]  # fmt: skip


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


# -- the measures ------------------------------------------------------------------------------------


def test_normalize_like_the_official_script() -> None:
    assert normalize("The  Denver Broncos!") == "denver broncos"
    assert normalize("an apple, a pear") == "apple pear"
    assert normalize("[UNKNOWN]") == "unknown"


@pytest.mark.parametrize(
    "prediction, gold, em, f",
    [
        ("Denver Broncos", "Denver Broncos", 1.0, 1.0),
        ("the Broncos", "Broncos", 1.0, 1.0),
        ("Denver Broncos team", "Denver Broncos", 0.0, 0.8),  # P 2/3, R 1
        ("Broncos", "Denver Broncos", 0.0, 2 / 3),  # P 1, R 1/2
        ("Carolina Panthers", "Denver Broncos", 0.0, 0.0),
        ("", "", 1.0, 1.0),  # no-answer against no-answer
        ("Denver", "", 0.0, 0.0),
        ("", "Denver", 0.0, 0.0),
    ],
)
def test_exact_and_f1(prediction: str, gold: str, em: float, f: float) -> None:
    assert exact(prediction, gold) == em
    assert f1(prediction, gold) == pytest.approx(f)


@pytest.mark.parametrize(
    "completion, expected",
    [
        ("Reasoning...\nANSWER: Mara Quill", "Mara Quill"),
        ("ANSWER: [UNKNOWN]", ""),
        ("ANSWER: unknown", ""),
        ("ANSWER: The answer is Unknown.", ""),
        ("", None),
        ("I cannot decide.", None),
    ],
)
def test_read_prediction(completion: str, expected: str | None) -> None:
    assert read_prediction(completion) == expected


def state_with(completion: str, target: str | list[str]) -> TaskState:
    return TaskState(
        model="madsim/x", sample_id="q", epoch=1, input="Q?", messages=[],
        target=Target(target), output=ModelOutput.from_content("madsim/x", completion),
    )  # fmt: skip


async def scores_of(completion: str, target: str | list[str]) -> list[Score]:
    return [await s(state_with(completion, target), Target(target)) for s in squad()]


@pytest.mark.parametrize(
    "completion, target, expected",
    [
        # the spec's golden case: "[UNKNOWN]" with no reference is F1 = 1
        ("ANSWER: [UNKNOWN]", NO_ANSWER, (1, 1)),
        ("ANSWER: Mara Quill", NO_ANSWER, (0, 0)),
        ("", NO_ANSWER, (0, 0)),  # no output is never a correct no-answer
        ("ANSWER: Quill", ["Mara Quill", "Quill"], (1, 1)),  # best reference
        ("ANSWER: Mara", ["Mara Quill", "Quill"], (0, 2 / 3)),
        ("ANSWER: [UNKNOWN]", ["Mara Quill"], (0, 0)),
        ("I am not sure.", ["Mara Quill"], (0, 0)),
    ],
)
async def test_squad_scores(completion: str, target, expected: tuple) -> None:
    exact_score, f1_score = await scores_of(completion, target)
    # each measure is a plain number (one column in the viewer), the split read from metadata
    assert (exact_score.value, f1_score.value) == pytest.approx(expected)
    answerable = target != NO_ANSWER
    assert exact_score.metadata == f1_score.metadata == {"answerable": answerable}


def test_split_metrics_average_their_own_questions() -> None:
    def sample(value: float, answerable: bool) -> SampleScore:
        return SampleScore(score=Score(value=value, metadata={"answerable": answerable}))

    scores = [sample(1.0, True), sample(0.0, True), sample(1.0, False)]
    assert by_split()(scores) == {"HasAns": 0.5, "NoAns": 1.0}
    assert by_split()(scores[:2]) == {"HasAns": 0.5}  # no unanswerable question: left out


# -- the task ----------------------------------------------------------------------------------------


def test_records(tmp_path: Path) -> None:
    task = squad_v2(data_path=write_jsonl(tmp_path / "squad.jsonl", ROWS))
    assert [(s.id, s.input, s.target) for s in task.dataset] == [
        ("s1", "Who kept the lighthouse?", ["Mara Quill", "Quill"]),  # duplicates dropped
        ("s2", "What colour was the lighthouse roof?", NO_ANSWER),
        ("s3", "How long is the Teller river?", ["212 kilometres"]),
    ]
    metadata = task.dataset[0].metadata
    assert metadata["answer_format"] == "text"
    assert metadata["context"].startswith("The lighthouse on the cape")


@pytest.mark.parametrize(
    "bad, field",
    [
        ({"answers": ["Mara"]}, "answers"),
        ({"answers": {"text": [3]}}, "answers"),
        ({"context": ""}, "context"),
    ],
)
def test_bad_record_names_the_record(tmp_path: Path, bad: dict, field: str) -> None:
    path = write_jsonl(tmp_path / "bad.jsonl", [ROWS[0], {**ROWS[1], **bad}])
    with pytest.raises(ValueError, match=rf"bad\.jsonl: record 2: '{field}'"):
        squad_v2(data_path=path)


def test_paper_subset_sizes() -> None:
    assert PRESETS == {"voting": 373, "cortex": 100}


def test_public_source_is_the_pinned_revision(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    def fake_hf_records(path, split, name=None, revision=None):
        asked.append((path, split, name, revision))
        return ROWS

    monkeypatch.setattr(_bench, "hf_records", fake_hf_records)
    task = squad_v2()
    revision = "3ffb306f725f7d2ce8394bc1873b24868140c412"
    assert asked == [("rajpurkar/squad_v2", "validation", None, revision)]
    assert task.metadata["source"].endswith(f"@ {revision}")


# -- end to end --------------------------------------------------------------------------------------


def run(task: Task, tmp_path: Path, **model_args) -> EvalLog:
    [log] = eval(
        task, model="madsim/x", model_args=model_args, display="none",
        log_dir=str(tmp_path / "logs"),
    )  # fmt: skip
    assert log.status == "success", log.error
    return log


def metrics(log: EvalLog) -> dict[str, float]:
    """Each squad measure's mean and split means, as `exact`, `HasAns_exact`, ..."""
    found = {}
    for s in log.results.scores:
        if s.name in ("squad_exact", "squad_f1"):
            measure = s.name.removeprefix("squad_")
            found[measure] = s.metrics["mean"].value
            for split in ("HasAns", "NoAns"):
                found[f"{split}_{measure}"] = s.metrics[split].value
    return found


SQUAD_KEYS = ("exact", "f1", "HasAns_exact", "HasAns_f1", "NoAns_exact", "NoAns_f1")


def test_always_right_scores_one(tmp_path: Path) -> None:
    rows = [{**ROWS[0], "answers": {"text": ["Mara Quill"], "answer_start": [39]}}, *ROWS[1:]]
    log = run(
        squad_v2(data_path=write_jsonl(tmp_path / "squad.jsonl", rows)), tmp_path, accuracy=1.0
    )
    assert {k: v for k, v in metrics(log).items() if k in SQUAD_KEYS} == dict.fromkeys(
        SQUAD_KEYS, 1.0
    )
    assert log.samples[1].output.completion == f"ANSWER: {NO_ANSWER}"


def test_always_wrong_scores_zero(tmp_path: Path) -> None:
    # madsim answers what the answers file says: here a span from nowhere, for every question
    answers = tmp_path / "wrong.jsonl"
    write_jsonl(answers, [{"question": r["question"], "answer": "Zanzibar ferry"} for r in ROWS])
    task = squad_v2(data_path=write_jsonl(tmp_path / "squad.jsonl", ROWS))
    log = run(task, tmp_path, accuracy=1.0, answers=str(answers))
    assert {k: v for k, v in metrics(log).items() if k in SQUAD_KEYS} == dict.fromkeys(
        SQUAD_KEYS, 0.0
    )


def test_split_metrics_when_every_answer_is_unknown(tmp_path: Path) -> None:
    answers = tmp_path / "unknown.jsonl"
    write_jsonl(answers, [{"question": r["question"], "answer": NO_ANSWER} for r in ROWS])
    task = squad_v2(data_path=write_jsonl(tmp_path / "squad.jsonl", ROWS))
    found = metrics(run(task, tmp_path, accuracy=1.0, answers=str(answers)))
    # one of the three questions has no answer: it alone is right
    assert found["f1"] == pytest.approx(1 / 3) and found["exact"] == pytest.approx(1 / 3)
    assert found["HasAns_f1"] == 0.0 and found["HasAns_exact"] == 0.0
    assert found["NoAns_f1"] == 1.0 and found["NoAns_exact"] == 1.0


# -- CortexDebate's containment measure (-T contains=true) -------------------------------------------


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("Mara Quill", "Mara Quill", 1.0),
        ("It was kept by Mara Quill, for years.", "mara quill", 1.0),  # normalised, whole words
        ("The Quill family", "Quill", 1.0),
        ("Mara", "Mara Quill", 0.0),
        ("Quillon", "Quill", 0.0),  # not inside a word
        ("Mara  Quill!", "the Mara Quill", 1.0),  # articles, spaces and punctuation normalised
        ("", "", 1.0),  # a no-answer against a no-answer
        ("Mara Quill", "", 0.0),  # a span is no no-answer
        ("", "Mara Quill", 0.0),
    ],
)
def test_contains(prediction: str, gold: str, expected: float) -> None:
    assert contains(prediction, gold) == expected


@pytest.mark.parametrize(
    "completion, target, expected",
    [
        ("ANSWER: kept by Mara Quill", ["Mara Quill", "Quill"], 1.0),
        ("ANSWER: Mara", ["Mara Quill"], 0.0),
        ("ANSWER: [UNKNOWN]", NO_ANSWER, 1.0),
        ("ANSWER: Mara Quill", NO_ANSWER, 0.0),
        ("ANSWER: [UNKNOWN]", ["Mara Quill"], 0.0),
        ("", NO_ANSWER, 0.0),  # no output is never a correct no-answer
    ],
)
async def test_squad_contains_score(completion: str, target, expected: float) -> None:
    score = await squad_contains()(state_with(completion, target), Target(target))
    assert score.value == expected
    assert score.metadata == {"answerable": target != NO_ANSWER}


def test_contains_is_an_option_of_the_task(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "squad.jsonl", ROWS)
    names = [registry_info(s).name for s in squad_v2(data_path=path).scorer]
    assert "mad_tasks/squad_contains" not in names
    with_it = squad_v2(data_path=path, contains=True)
    assert [registry_info(s).name for s in with_it.scorer][:3] == [
        "mad_tasks/squad_exact", "mad_tasks/squad_f1", "mad_tasks/squad_contains",
    ]  # fmt: skip
    assert with_it.metadata["contains"] is True


def test_contains_end_to_end(tmp_path: Path) -> None:
    # every agent answers a sentence around the span: no exact match, but it contains the answer
    answers = tmp_path / "wordy.jsonl"
    wordy = {"s1": "it was Mara Quill", "s2": NO_ANSWER, "s3": "about 212 kilometres long"}
    write_jsonl(answers, [{"question": r["question"], "answer": wordy[r["id"]]} for r in ROWS])
    task = squad_v2(data_path=write_jsonl(tmp_path / "squad.jsonl", ROWS), contains=True)
    log = run(task, tmp_path, accuracy=1.0, answers=str(answers))
    [found] = [s for s in log.results.scores if s.name == "squad_contains"]
    values = {name: m.value for name, m in found.metrics.items()}
    assert values == {"mean": 1.0, "stderr": 0.0, "HasAns": 1.0, "NoAns": 1.0}
    [exact_match] = [s for s in log.results.scores if s.name == "squad_exact"]
    assert exact_match.metrics["HasAns"].value == 0.0


# -- only the answerable questions (-T answerable_only=true): SQuAD 1.1's kind ----------------------


def test_answerable_only_keeps_the_questions_with_an_answer(tmp_path: Path) -> None:
    unnamed = [{k: v for k, v in r.items() if k != "id"} for r in ROWS]
    for rows, ids in ((ROWS, ["s1", "s3"]), (unnamed, [1, 3])):  # ids: as with every question
        path = write_jsonl(tmp_path / "squad.jsonl", rows)
        task = squad_v2(data_path=path, answerable_only=True)
        assert [s.id for s in task.dataset] == ids
        assert all(s.target != NO_ANSWER for s in task.dataset)
        assert task.metadata["answerable_only"] is True
    every = squad_v2(data_path=path)
    assert len(every.dataset) == 3 and every.metadata["answerable_only"] is False
    # the subset is taken from the answerable questions
    assert [s.id for s in squad_v2(data_path=path, answerable_only=True, subset=1).dataset] == [1]
    with pytest.raises(ValueError, match=r"'answerable_only'.*got 'yes'.*true or false"):
        squad_v2(data_path=path, answerable_only="yes")

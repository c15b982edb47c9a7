"""The strategyqa task: record parsing, errors that point at the bad record, subset/shuffle, splits."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from testdata import STRATEGYQA as STRATEGYQA_DEV
from testdata import shared

from mad_tasks.tasks import _data
from mad_tasks.tasks.strategyqa import SOURCE_COMMIT, record_to_sample, strategyqa


def ids(task) -> list:
    return [s.id for s in task.dataset]


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "answer, target",
    [
        (True, "yes"),
        (False, "no"),
        ("yes", "yes"),
        ("No", "no"),
        (" TRUE ", "yes"),
        ("false", "no"),
    ],
)
def test_record_answers(answer, target: str) -> None:
    sample = record_to_sample({"qid": "q1", "question": "Is it?", "answer": answer}, "here")
    assert sample.target == target
    assert sample.id == "q1"
    assert sample.input == "Is it?"
    assert sample.metadata["answer_format"] == "yesno"


@pytest.mark.parametrize(
    "record, field",
    [
        ({"question": "Is it?", "answer": "maybe"}, "answer"),
        ({"question": "Is it?", "answer": 1}, "answer"),
        ({"question": "Is it?"}, "answer"),
        ({"question": "  ", "answer": True}, "question"),
        ({"answer": True}, "question"),
    ],
)
def test_bad_record_raises(record: dict, field: str) -> None:
    with pytest.raises(ValueError, match=f"where: '{field}'"):
        record_to_sample(record, "where")


@pytest.mark.parametrize("where, count", [("fixture", 20), ("strategyqa/dev.jsonl", 229)])
def test_whole_file_loads(where: str, count: int) -> None:
    path = STRATEGYQA_DEV if where == "fixture" else shared(where)
    task = strategyqa(data_path=str(path))
    samples = list(task.dataset)
    assert len(samples) == count
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert samples[0].id == first["qid"]
    assert samples[0].target == ("yes" if first["answer"] else "no")
    assert samples[0].metadata["facts"] == first["facts"]
    assert task.metadata["source"] == str(path)


def test_bad_row_names_the_file_and_record(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "bad.jsonl",
        [
            {"qid": "a", "question": "Q1?", "answer": True},
            {"qid": "b", "question": "Q2?", "answer": "perhaps"},
        ],
    )
    with pytest.raises(ValueError) as err:
        strategyqa(data_path=str(path))
    assert str(path) in str(err.value)
    assert "record 2" in str(err.value)


def test_invalid_json_line_names_the_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text('{"question": "Q?", "answer": true}\n\n{not json\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"broken\.jsonl:3"):
        strategyqa(data_path=str(path))


def test_json_array_file_loads(tmp_path: Path) -> None:
    path = tmp_path / "data.json"
    path.write_text(json.dumps([{"qid": "x", "question": "Q?", "answer": False}]), encoding="utf-8")
    assert [(s.id, s.target) for s in strategyqa(data_path=str(path)).dataset] == [("x", "no")]


def test_missing_data_path_is_an_error() -> None:
    with pytest.raises(FileNotFoundError, match=r"no_such_file\.jsonl"):
        strategyqa(data_path="no_such_file.jsonl")


def test_subset_keeps_the_first_records() -> None:
    all_ids = ids(strategyqa(data_path=str(STRATEGYQA_DEV)))
    assert ids(strategyqa(data_path=str(STRATEGYQA_DEV), subset=5)) == all_ids[:5]


def test_shuffle_is_deterministic_per_seed() -> None:
    path = str(STRATEGYQA_DEV)
    unshuffled = ids(strategyqa(data_path=path, subset=10))
    seed1 = ids(strategyqa(data_path=path, shuffle=True, seed=1, subset=10))
    assert seed1 == ids(strategyqa(data_path=path, shuffle=True, seed=1, subset=10))
    assert seed1 != unshuffled
    assert seed1 != ids(strategyqa(data_path=path, shuffle=True, seed=2, subset=10))
    # shuffling reorders, it never drops or repeats questions
    full = ids(strategyqa(data_path=path, shuffle=True, seed=1))
    assert sorted(full) == sorted(ids(strategyqa(data_path=path)))
    assert full[:10] == seed1


@pytest.mark.parametrize("subset", [0, -3])
def test_bad_subset(subset: int) -> None:
    with pytest.raises(ValueError, match="'subset'"):
        strategyqa(data_path=str(STRATEGYQA_DEV), subset=subset)


def test_unknown_split_is_rejected_before_any_download(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*args, **kwargs):
        raise AssertionError("must not download")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    with pytest.raises(ValueError, match="'split'") as err:
        strategyqa(split="test")
    assert "train" in str(err.value) and "dev" in str(err.value)


def test_split_loads_the_cached_pinned_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    cached = tmp_path / "strategyqa" / SOURCE_COMMIT / "train.json"
    cached.parent.mkdir(parents=True)
    cached.write_text(
        json.dumps([{"qid": "t1", "question": "Q?", "answer": True}]), encoding="utf-8"
    )

    def no_network(*args, **kwargs):
        raise AssertionError("a cached file must not be downloaded again")

    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    task = strategyqa(split="train")
    assert ids(task) == ["t1"]
    assert SOURCE_COMMIT in task.metadata["source"] and task.metadata["split"] == "train"


def test_offline_download_failure_points_to_data_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))

    def offline(*args, **kwargs):
        raise OSError("network is unreachable")

    monkeypatch.setattr(urllib.request, "urlopen", offline)
    with pytest.raises(RuntimeError, match="data_path"):
        strategyqa(split="dev")
    assert not list(tmp_path.rglob("*.json"))  # nothing half-written is left to be trusted


def test_pick_does_not_shuffle_in_place() -> None:
    records = [1, 2, 3, 4]
    assert _data.pick(records, shuffle=False, seed=0, subset=2) == [1, 2]
    shuffled = _data.pick(records, shuffle=True, seed=0, subset=None)
    assert sorted(shuffled) == [1, 2, 3, 4]
    assert records == [1, 2, 3, 4]  # the caller's list is not shuffled in place

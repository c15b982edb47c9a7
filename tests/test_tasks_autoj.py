"""autoj_pairwise: Auto-J's pairwise test rows as judge samples (the mt_bench_judge shape), ties as
mt_bench_judge handles them, bad rows skipped and counted, only the human label read, and the
pinned download."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from inspect_ai.util import registry_info
from testdata import FIXTURES

from mad_tasks.tasks import autoj_pairwise as task_module
from mad_tasks.tasks.autoj_pairwise import autoj_pairwise
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge

FIXTURE = FIXTURES / "autoj_pairwise.jsonl"
ROWS = [json.loads(line) for line in FIXTURE.read_text(encoding="utf-8").splitlines()]


def write(path: Path, rows: list) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def test_rows_become_judge_samples() -> None:
    task = autoj_pairwise(data_path=str(FIXTURE))
    # label 0: response 1 (A) is better, 1: response 2 (B); the tie (row 3) is dropped
    assert [(s.id, s.target) for s in task.dataset] == [(1, "A"), (2, "B"), (4, "A"), (5, "B")]
    first = task.dataset[0]
    assert first.input == "Give me a quick recipe for lentil soup."
    assert first.choices == ["Answer A", "Answer B"]
    assert first.metadata == {
        "answer_a": ROWS[0]["response 1"].strip(),
        "answer_b": ROWS[0]["response 2"].strip(),
        "scenario": "writing_cooking_recipe",
        "label": 0,
    }
    assert task.metadata["gold_ties"] == 1
    assert task.metadata["pairs"] == 5 and task.metadata["skipped_rows"] == 0


def test_the_same_shape_setup_and_scorers_as_mt_bench_judge() -> None:
    autoj = autoj_pairwise(data_path=str(FIXTURE), ties="keep")
    mt_bench = mt_bench_judge(data_path=str(FIXTURES / "mt_bench_pairs.jsonl"), ties="keep")
    tie = next(s for s in autoj.dataset if s.target == "tie")
    assert tie.id == 3 and tie.choices == ["Answer A", "Answer B", "tie"]
    assert len(autoj.dataset) == 5 and autoj.metadata["gold_ties"] == 1
    names = [registry_info(s).name for s in autoj.scorer]
    assert names == [registry_info(s).name for s in mt_bench.scorer]
    assert names[0] == "mad_tasks/judge_agreement"
    assert autoj.solver is not None and autoj.setup is not None


def test_bad_rows_are_skipped_and_counted(tmp_path: Path) -> None:
    good = ROWS[0]
    gpt4_only = {k: v for k, v in good.items() if k != "label"} | {"gpt4_label": 0}
    bad = [
        gpt4_only,  # never labelled from GPT-4's verdict
        {**good, "label": 3},
        {**good, "label": "0"},
        {**good, "label": True},
        {**good, "label": None},
        {**good, "prompt": ""},
        {**good, "response 2": "  "},
        {k: v for k, v in good.items() if k != "response 1"},
    ]
    task = autoj_pairwise(data_path=write(tmp_path / "pairs.jsonl", [good, *bad, ROWS[1]]))
    assert [(s.id, s.target) for s in task.dataset] == [(1, "A"), (len(bad) + 2, "B")]
    assert task.metadata["skipped_rows"] == len(bad) and task.metadata["pairs"] == 2


def test_a_row_that_is_no_json_stops_the_task(tmp_path: Path) -> None:
    path = tmp_path / "pairs.jsonl"
    path.write_text(json.dumps(ROWS[0]) + "\n{not json\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"pairs\.jsonl:2:2: not valid JSON"):
        autoj_pairwise(data_path=str(path))


def test_the_public_source_is_the_pinned_file(monkeypatch: pytest.MonkeyPatch) -> None:
    asked = []

    def fake_download(url: str, name: str, sha256: str | None = None) -> Path:
        asked.append((url, name, sha256))
        return FIXTURE

    monkeypatch.setattr(task_module, "download", fake_download)
    task = autoj_pairwise()
    commit = "2ae17a3965d933232e9cd50302aa0f176249c83b"
    url = (
        f"https://raw.githubusercontent.com/GAIR-NLP/auto-j/{commit}"
        "/data/test/testdata_pairwise.jsonl"
    )
    sha256 = "56f32fad71d9b6b33bc4d51794c324981e26355bcbf3ce4908d7f8ddcc61f80e"
    assert asked == [(url, f"autoj/{commit}/testdata_pairwise.jsonl", sha256)]
    assert task.metadata["source"] == url
    assert len(task.dataset) == 4

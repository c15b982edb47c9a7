"""longbench: LongBench's metrics (golden values), M-Avg, the loader on the fixture (schema, bad
records skipped and counted, options), the pinned download, and the document sent exactly once in
every call of every answer-producing solver."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset
from inspect_ai.log import EvalLog, resolve_sample_attachments
from inspect_ai.model import ChatMessageUser, ContentText, ModelOutput
from inspect_ai.scorer import SampleScore, Score, Target
from inspect_ai.solver import TaskState
from scripted import COMPARERS, JUDGES, PAIRED, RETRIEVERS, SOLVERS
from testdata import FIXTURES

from mad_tasks.engine.checks import OptionError
from mad_tasks.scorers import longbench as metrics
from mad_tasks.scorers.longbench import (
    MAX_LCS_UNITS,
    classification,
    code_sim,
    count,
    dataset_score,
    lcs_length,
    longbench_means,
    longbench_score,
    qa_f1,
    retrieval,
    rouge_l,
)
from mad_tasks.tasks import longbench as task_module
from mad_tasks.tasks.longbench import TRUNCATION_MARK, longbench

FIXTURE = FIXTURES / "longbench"
TREC = ["Date", "Distance, linear measure", "Individual", "Other location"]

# -- the metrics ---------------------------------------------------------------------------------


def lcs_by_table(a: str, b: str) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        row = [0]
        for j, y in enumerate(b):
            row.append(previous[j] + 1 if x == y else max(previous[j + 1], row[j]))
        previous = row
    return previous[-1]


def test_bit_parallel_lcs_matches_the_table() -> None:
    rng = random.Random(3)
    for _ in range(500):
        a = "".join(rng.choice("abcd") for _ in range(rng.randint(0, 40)))
        b = "".join(rng.choice("abcde") for _ in range(rng.randint(0, 40)))
        assert lcs_length(a, b) == lcs_by_table(a, b) == lcs_length(b, a)
    assert lcs_length("ABCBDAB", "BDCABA") == 4


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("Ilse Varga", "Ilse Varga", 1.0),
        ("The captain, Ilse Varga!", "ilse varga", 2 * (2 / 3) * 1 / (2 / 3 + 1)),  # P 2/3, R 1
        ("Varga", "Ilse Varga", 2 / 3),
        ("Zebedee", "Ilse Varga", 0.0),
        ("", "Ilse Varga", 0.0),
        ("the", "the", 0.0),  # nothing left after normalising: LongBench scores 0
    ],
)
def test_qa_f1(prediction: str, gold: str, expected: float) -> None:
    assert qa_f1(prediction, gold) == pytest.approx(expected)


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("a b c d", "a b c d", 1.0),
        # the goldens of pltrdy/rouge 1.0.1's `Rouge().get_scores(...)["rouge-l"]["f"]`:
        # LCS a c: P 2/2, R 2/4, F = 2PR / (P + R) = 2/3
        ("a c", "a b c d", 2 / 3),
        # the package's LCS is "the cat the" (of the two of length 3 it rebuilds that one), the
        # overlap its distinct words {the, cat}: P 2/3 (the, cat, sat), R 2/5 -> F 0.5
        ("the cat the cat sat", "the cat sat on the mat", 0.5),
        # a union over sentences: "a b" and "c d" each match a part of the one reference sentence
        ("a b. c d", "c d a b", 1.0),
        # full stops split sentences: "b." and "b" agree
        ("a b.", "a b", 1.0),
        ("A b", "a b", 2 * 0.5 * 0.5 / (0.5 + 0.5)),  # case counts, as in the package
        ("x y", "a b", 0.0),
        ("", "a b", 0.0),  # no sentence: the package raises, LongBench scores 0
        ("...", "a b", 0.0),
    ],
)
def test_rouge_l(prediction: str, gold: str, expected: float) -> None:
    assert rouge_l(prediction, gold) == pytest.approx(expected)


def test_rouge_l_is_bounded() -> None:
    # past MAX_LCS_UNITS tokens the rest is not compared: a tail of other words changes nothing
    same = " ".join(f"w{i}" for i in range(MAX_LCS_UNITS))
    assert rouge_l(same + " extra" * 5000, same + " other" * 5000) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("Individual", "Individual", 1.0),
        ("Individual or Date", "Individual", 0.5),
        ("Date", "Individual", 0.0),
        # "Distance" is no class; the class named in the gold counts once
        ("Distance, linear measure", "Distance, linear measure", 1.0),
        ("individual", "Individual", 0.0),  # case counts, as in LongBench
    ],
)
def test_classification(prediction: str, gold: str, expected: float) -> None:
    assert classification(prediction, gold, TREC) == expected


def test_classification_drops_names_inside_the_gold() -> None:
    classes = ["Other location", "location", "Date"]
    assert classification("Other location", "Other location", classes) == 1.0
    assert classification("Other location, Date", "Other location", classes) == 0.5
    # LongBench removes from the list it walks: after "location" goes, "Other" is never checked
    # and stays (1/3, where dropping every name inside the gold would give 1/2)
    classes = ["location", "Other", "Date", "Other location"]
    assert classification("Other location, Date", "Other location", classes) == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [("3", "3", 1.0), ("There are 3 of 4", "3", 0.5), ("three", "3", 0.0), ("13", "3", 0.0)],
)
def test_count(prediction: str, gold: str, expected: float) -> None:
    assert count(prediction, gold) == expected


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("Paragraph 2", "Paragraph 2", 1.0),
        ("Paragraph 2, or Paragraph 12", "Paragraph 2", 0.5),
        ("Paragraph 4", "Paragraph 2", 0.0),
        ("none", "Paragraph 2", 0.0),
        ("2", "no paragraph", 0.0),  # a reference without a paragraph number scores nothing
    ],
)
def test_retrieval(prediction: str, gold: str, expected: float) -> None:
    assert retrieval(prediction, gold) == expected


@pytest.mark.parametrize(
    "prediction, gold, expected",
    [
        ("return total", "    return total", 1.0),  # the reference's indentation is not compared
        ("return  total", "return total", 1.0),
        # 2 x LCS("return x", "return y") / 16 = 14 / 16 = 0.875, a whole percent: 0.88
        ("return x", "return y", 0.88),
        ("# a comment\nreturn x", "return x", 1.0),  # the first line without a comment mark
        ("`return x`", "return x", 0.0),  # LongBench skips a line with a backtick
        ("ZZZ", "return total", 0.0),
        ("", "return total", 0.0),
    ],
)
def test_code_sim(prediction: str, gold: str, expected: float) -> None:
    assert code_sim(prediction, gold) == expected


def test_dataset_score_takes_the_best_reference_and_few_shot_first_lines() -> None:
    assert dataset_score("hotpotqa", "Varga", ["Ilse Varga", "Varga"], []) == 1.0
    # a few-shot dataset reads the first line only
    assert dataset_score("triviaqa", "Paris\nnot London", ["London"], []) == 0.0
    assert dataset_score("narrativeqa", "Paris\nLondon", ["London"], []) == pytest.approx(2 / 3)
    assert dataset_score("trec", "Date", ["Date"], TREC) == 1.0


def sample_score(value: float, dataset: str) -> SampleScore:
    category = metrics.DATASETS[dataset].category
    return SampleScore(
        score=Score(value=value, metadata={"dataset": dataset, "category": category})
    )


def test_m_avg_is_the_mean_over_categories_of_their_datasets_means() -> None:
    scores = [
        sample_score(1.0, "narrativeqa"),
        sample_score(0.0, "narrativeqa"),  # narrativeqa 0.5
        sample_score(1.0, "qasper"),  # qasper 1.0: single_doc_qa (0.5 + 1) / 2 = 0.75
        sample_score(0.25, "lcc"),  # code 0.25
    ]
    found = longbench_means()(scores)
    assert found == {
        "single_doc_qa": 0.75,
        "code": 0.25,
        "m_avg": 0.5,  # not the mean over samples (0.5625) nor over datasets (0.5833)
    }
    assert longbench_means()([]) == {}


def state_for(completion: str, target: list[str], dataset: str) -> TaskState:
    return TaskState(
        model="madsim/x", sample_id="q", epoch=1, input="Q?", messages=[],
        target=Target(target), output=ModelOutput.from_content("madsim/x", completion),
        metadata={"dataset": dataset, "all_classes": TREC},
    )  # fmt: skip


@pytest.mark.parametrize(
    "completion, target, dataset, expected",
    [
        ("Thinking...\nANSWER: Individual", ["Individual"], "trec", 1.0),
        ("ANSWER: Paragraph 2", ["Paragraph 2"], "passage_retrieval_en", 1.0),
        ("I cannot decide.", ["3"], "passage_count", 0.0),  # no readable answer
        ("ANSWER: " + "x" * 2000, ["x"], "gov_report", 0.0),  # too long to be an answer
    ],
)
async def test_longbench_score(completion: str, target: list[str], dataset: str, expected) -> None:
    score = await longbench_score()(state_for(completion, target, dataset), Target(target))
    assert score.value == expected
    assert score.metadata == {"dataset": dataset, "category": metrics.DATASETS[dataset].category}


# -- the loader -----------------------------------------------------------------------------------


def test_fixture_samples() -> None:
    task = longbench(data_path=str(FIXTURE))
    assert [s.id for s in task.dataset] == [
        "fixture-narrativeqa-1",
        "fixture-narrativeqa-2",
        "fixture-hotpotqa-1",
        "fixture-gov_report-1",
        "fixture-trec-1",
        "fixture-passage_count-1",
        "fixture-passage_retrieval_en-1",
        "fixture-lcc-1",
    ]
    first = task.dataset[0]
    [message] = first.input
    assert isinstance(message, ChatMessageUser) and isinstance(message.content, list)
    document, question = message.content
    assert isinstance(document, ContentText) and isinstance(question, ContentText)
    assert document.text.startswith("Below is a story") and "Captain Ilse Varga" in document.text
    assert question.text.endswith("Question: Who captained the ferry to Orrin Island?")
    assert "Ilse Varga" not in question.text
    assert first.target == ["Ilse Varga"]
    assert first.metadata == {
        "answer_format": "text",
        "dataset": "narrativeqa",
        "category": "single_doc_qa",
        "metric": "qa_f1",
        "all_classes": None,
        "length": first.metadata["length"],
        "truncated": False,
    }
    assert task.dataset[4].metadata["all_classes"] == TREC
    assert task.metadata["categories"] == list(metrics.CATEGORIES)
    assert task.metadata["records"]["narrativeqa"] == 2
    assert task.metadata["skipped_records"] == dict.fromkeys(task.metadata["records"], 0)


def copy_fixture(tmp_path: Path) -> Path:
    folder = tmp_path / "data"
    folder.mkdir()
    for path in FIXTURE.glob("*.jsonl"):
        (folder / path.name).write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    return folder


def test_bad_records_are_skipped_and_counted(tmp_path: Path) -> None:
    folder = copy_fixture(tmp_path)
    good = json.loads((folder / "trec.jsonl").read_text(encoding="utf-8"))
    bad = [
        {**good, "context": ""},
        {**good, "context": 5},
        {**good, "input": None},
        {**good, "answers": []},
        {**good, "answers": ["Date", 3]},
        {**good, "answers": "Date"},
        {**good, "all_classes": None},  # trec needs its classes
        {**good, "_id": 2.5},
    ]
    rows = [good, *bad, {**good, "_id": None, "answers": ["Date", "Date", " "]}]
    (folder / "trec.jsonl").write_text("\n".join(map(json.dumps, rows)) + "\n", encoding="utf-8")
    task = longbench(data_path=str(folder), categories="few_shot")
    assert task.metadata["records"] == {"trec": 2}
    assert task.metadata["skipped_records"] == {"trec": len(bad)}
    # duplicates and blanks dropped; without an id the record's dataset and line number
    assert [(s.id, s.target) for s in task.dataset] == [
        ("fixture-trec-1", ["Individual"]),
        (f"trec-{len(rows)}", ["Date"]),
    ]


@pytest.mark.parametrize(
    "categories, datasets",
    [
        ("code", ["lcc"]),
        ("synthetic, code", ["passage_count", "passage_retrieval_en", "lcc"]),
        (["code", "single_doc_qa"], ["narrativeqa", "narrativeqa", "lcc"]),
    ],
)
def test_categories_select_datasets(categories, datasets: list[str]) -> None:
    task = longbench(data_path=str(FIXTURE), categories=categories)
    assert [s.metadata["dataset"] for s in task.dataset] == datasets


@pytest.mark.parametrize("value", ["codes", "", "all, code", 3, [1], ["code", "x"]])
def test_bad_categories_are_refused(value) -> None:
    with pytest.raises(
        OptionError, match=r"task option 'categories'.*allowed: all, or one or more"
    ):
        longbench(data_path=str(FIXTURE), categories=value)


def test_no_record_of_the_categories_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "lcc.jsonl").write_text((FIXTURE / "lcc.jsonl").read_text(), encoding="utf-8")
    with pytest.raises(ValueError, match="no LongBench record of summarization"):
        longbench(data_path=str(folder), categories="summarization")


def test_a_folder_without_longbench_files_names_data_path(tmp_path: Path) -> None:
    (tmp_path / "notes.jsonl").write_text("{}\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"task option 'data_path': .* holds no LongBench file"):
        longbench(data_path=str(tmp_path), categories="code")


def test_limit_per_dataset_and_subset() -> None:
    task = longbench(data_path=str(FIXTURE), limit_per_dataset=1)
    assert [s.metadata["dataset"] for s in task.dataset][:2] == ["narrativeqa", "hotpotqa"]
    assert len(task.dataset) == 7
    shuffled = longbench(data_path=str(FIXTURE), limit_per_dataset=1, shuffle=True, seed=1)
    # seed 1 shuffles each dataset (narrativeqa's second story first), then the whole list
    assert [s.id for s in shuffled.dataset] == [
        "fixture-trec-1",
        "fixture-lcc-1",
        "fixture-passage_retrieval_en-1",
        "fixture-gov_report-1",
        "fixture-narrativeqa-2",
        "fixture-passage_count-1",
        "fixture-hotpotqa-1",
    ]
    assert len(longbench(data_path=str(FIXTURE), subset=3).dataset) == 3
    with pytest.raises(ValueError, match="'cortex' takes 100 records"):
        longbench(data_path=str(FIXTURE), subset="cortex")


@pytest.mark.parametrize(
    "sizes, total, expected",
    [
        ({"a": 50, "b": 50, "c": 50}, 100, {"a": 34, "b": 33, "c": 33}),
        ({"a": 5, "b": 50, "c": 50}, 100, {"a": 5, "b": 48, "c": 47}),  # a short category
        ({"a": 0, "b": 2, "c": 9}, 6, {"a": 0, "b": 2, "c": 4}),
        ({"a": 1, "b": 1}, 5, {"a": 1, "b": 1}),  # too few: the task's check refuses it
    ],
)
def test_shares_split_a_draw_evenly_over_the_categories(sizes, total, expected) -> None:
    assert task_module.shares(sizes, total) == expected


def test_a_papers_size_is_drawn_by_category(monkeypatch, caplog) -> None:
    # 7 of the fixture's 8 samples: one of each category, the first category's second one too
    monkeypatch.setattr(task_module, "PRESETS", {"cortex": 7})
    task = longbench(data_path=str(FIXTURE), subset="cortex")
    drawn = dict.fromkeys(metrics.CATEGORIES, 1) | {"single_doc_qa": 2}
    assert task.metadata["samples_per_category"] == drawn
    assert sorted(s.metadata["category"] for s in task.dataset) == sorted(
        c for c, n in drawn.items() for _ in range(n)
    )
    assert "longbench: no sample of" not in caplog.text
    # a plain subset takes the first samples: only two categories, and a warning says so
    plain = longbench(data_path=str(FIXTURE), subset=3)
    assert plain.metadata["samples_per_category"] == dict.fromkeys(metrics.CATEGORIES, 0) | {
        "single_doc_qa": 2, "multi_doc_qa": 1,
    }  # fmt: skip
    assert "longbench: no sample of summarization, few_shot, synthetic, code" in caplog.text


def test_documents_are_cut_in_the_middle() -> None:
    task = longbench(data_path=str(FIXTURE), max_document_chars=1000)
    story = next(s for s in task.dataset if s.metadata["dataset"] == "narrativeqa")
    full = (FIXTURE / "narrativeqa.jsonl").read_text(encoding="utf-8").splitlines()[0]
    context = json.loads(full)["context"]
    assert len(context) > 1000
    document = story.input[0].content[0].text.split("\n\n", 1)[1]
    assert len(document) == 1000 and TRUNCATION_MARK in document
    assert document.startswith(context[:400]) and document.endswith(context[-400:])
    assert story.metadata["truncated"] is True
    assert task.metadata["truncated_documents"] == 2  # the two narrativeqa stories
    assert task.metadata["max_document_chars"] == 1000
    # counted over the samples kept: the subset keeps one of the two stories
    one = longbench(data_path=str(FIXTURE), max_document_chars=1000, subset=1)
    assert len(one.dataset) == 1 and one.metadata["truncated_documents"] == 1


def test_the_public_source_is_the_pinned_archive(monkeypatch, tmp_path: Path) -> None:
    # a data.zip as LongBench publishes it: a folder data/ of per-dataset JSONL files
    archive = tmp_path / "data.zip"
    with zipfile.ZipFile(archive, "w") as zipped:
        zipped.write(FIXTURE / "lcc.jsonl", "data/lcc.jsonl")
        zipped.write(FIXTURE / "lcc.jsonl", "data/lcc_e.jsonl")  # LongBench-E: not unpacked
    asked = []

    def fake_download(url: str, name: str, sha256: str | None = None) -> Path:
        asked.append((url, name, sha256))
        return archive

    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(task_module, "download", fake_download)
    task = longbench(categories="code")
    revision = "5e628be450b7e67fb7ae6e201bd6d8f7056f7672"
    sha256 = "cb45b11a4133c6bc1d6a44b0f8e701335ff1e543195db1103472e575857f7f64"
    url = f"https://huggingface.co/datasets/THUDM/LongBench/resolve/{revision}/data.zip"
    assert asked == [(url, f"longbench/{revision}/data.zip", sha256)]
    assert [s.id for s in task.dataset] == ["fixture-lcc-1"]
    assert task.metadata["source"] == f"{url} (sha256 {sha256})"
    longbench(categories="code")  # unpacked once: no second download
    assert len(asked) == 1
    unpacked = tmp_path / "cache" / "longbench" / revision / "data"
    assert sorted(p.name for p in unpacked.iterdir()) == ["lcc.jsonl"]


# -- the document is sent once in every call -------------------------------------------------------

ANSWERING = sorted(set(SOLVERS) - JUDGES - COMPARERS - RETRIEVERS - PAIRED)
MARKER = "Captain Ilse Varga had sailed it for twenty winters."


@pytest.mark.parametrize("name", ANSWERING)
def test_every_call_holds_the_document_exactly_once(run, name: str) -> None:
    sample = longbench(data_path=str(FIXTURE), categories="single_doc_qa").dataset[0]
    story = sample.input[0].content[0].text
    once = sample.model_copy(
        update={"input": [ChatMessageUser(content=[ContentText(text=story.replace(MARKER, "", story.count(MARKER) - 1)),
                                                   sample.input[0].content[1]])]}
    )  # fmt: skip
    assert once.input[0].content[0].text.count(MARKER) == 1  # the fixture repeats its story
    log: EvalLog = run(
        Task(dataset=MemoryDataset([once]), solver=SOLVERS[name]()),
        model="madsim/x",
        model_args={"accuracy": 0.5},
    )
    [evaluated] = log.samples or []
    evaluated = resolve_sample_attachments(evaluated)  # the log keeps long texts as attachments
    calls = [e.input for e in evaluated.events if e.event == "model"]
    assert calls
    counts = ["".join(m.text for m in call).count(MARKER) for call in calls]
    assert counts == [1] * len(calls)

"""The multiple-choice benchmark tasks: mmlu, mmlu_pro, gpqa, musr, arc_challenge.

Every file here is written by the test, with synthetic rows in each source's real schema; the
public-source path is checked with the loader monkeypatched, so nothing touches the network.
"""

from __future__ import annotations

import csv
import hashlib
import json
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Self

import pytest
from inspect_ai import Task, eval
from inspect_ai.log import EvalLog, resolve_sample_attachments

from mad_tasks.tasks import _bench, _data
from mad_tasks.tasks.arc_challenge import arc_challenge
from mad_tasks.tasks.gpqa import DIAMOND_SHA256, DIAMOND_URL, gpqa
from mad_tasks.tasks.mmlu import mmlu
from mad_tasks.tasks.mmlu_pro import mmlu_pro
from mad_tasks.tasks.musr import musr


def write_jsonl(path: Path, rows: list[dict]) -> str:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return str(path)


def write_csv(path: Path, rows: list[dict]) -> str:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return str(path)


def summary(task: Task) -> list[tuple]:
    return [(s.id, s.input, s.choices, s.target) for s in task.dataset]


# -- synthetic rows in each source's schema ---------------------------------------------------------

MMLU_ROWS = [
    {"question": "Which number is the smallest prime?", "subject": "elementary_mathematics",
     "choices": ["1", "2", "3", "4"], "answer": 1},
    {"question": "Mixing blue and yellow paint gives?", "subject": "miscellaneous",
     "choices": ["Green", "Red", "Purple", "Orange"], "answer": 0},
    {"question": "How many sides has a hexagon?", "subject": "elementary_mathematics",
     "choices": ["Five", "Seven", "Eight", "Six"], "answer": 3},
]  # fmt: skip

MMLU_PRO_ROWS = [
    {"question_id": 70, "question": "Which metal is liquid at room temperature?",
     "options": ["Iron", "Copper", "Mercury", "Tin", "Lead", "Zinc"], "answer": "C",
     "answer_index": 2, "cot_content": "", "category": "chemistry", "src": "synthetic"},
    {"question_id": 71, "question": "What is 7 times 8?",
     "options": ["54", "56", "58", "64", "48", "63", "49", "72", "81", "45"], "answer": "B",
     "answer_index": 1, "cot_content": "", "category": "math", "src": "synthetic"},
]  # fmt: skip

GPQA_ROWS = [
    {"Record ID": f"rec{i}", "Question": f"Synthetic science question number {i}?",
     "Correct Answer": f"right {i}", "Incorrect Answer 1": f"wrong {i}a",
     "Incorrect Answer 2": f"wrong {i}b", "Incorrect Answer 3": f"wrong {i}c",
     "High-level domain": "Physics", "Subdomain": "Optics and Acoustics"}
    for i in range(1, 9)
]  # fmt: skip

MUSR_ROWS = [
    {"narrative": "Ada was found in the library. Ben had the key; Cleo was abroad.",
     "question": "Who is the most likely murderer?", "choices": "['Ben', 'Cleo']",
     "answer_index": 0, "answer_choice": "Ben"},
    {"narrative": "The vase fell at noon. Dan was at the shop; Eve was in the room.",
     "question": "Who is the most likely murderer?", "choices": ["Dan", "Eve"],
     "answer_index": 1, "answer_choice": "Eve"},
]  # fmt: skip

ARC_ROWS = [
    {"id": "Synth_1", "question": "Which of these is a mammal?",
     "choices": {"text": ["Shark", "Whale", "Trout", "Eel"], "label": ["A", "B", "C", "D"]},
     "answerKey": "B"},
    {"id": "Synth_2", "question": "What makes a compass needle point north?",
     "choices": {"text": ["Gravity", "Wind", "Earth's magnetic field", "Sunlight"],
                 "label": ["1", "2", "3", "4"]},
     "answerKey": "3"},
]  # fmt: skip


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    return {
        "mmlu": write_jsonl(tmp_path / "mmlu.jsonl", MMLU_ROWS),
        "mmlu_pro": write_jsonl(tmp_path / "mmlu_pro.jsonl", MMLU_PRO_ROWS),
        "gpqa": write_csv(tmp_path / "gpqa.csv", GPQA_ROWS),
        "musr": write_jsonl(tmp_path / "musr.jsonl", MUSR_ROWS),
        "arc_challenge": write_jsonl(tmp_path / "arc.jsonl", ARC_ROWS),
    }


TASKS: dict[str, Callable[..., Task]] = {
    "mmlu": mmlu,
    "mmlu_pro": mmlu_pro,
    "gpqa": gpqa,
    "musr": musr,
    "arc_challenge": arc_challenge,
}


# -- parsing ----------------------------------------------------------------------------------------


def test_mmlu_records(files) -> None:
    assert summary(mmlu(data_path=files["mmlu"])) == [
        (1, "Which number is the smallest prime?", ["1", "2", "3", "4"], "B"),
        (2, "Mixing blue and yellow paint gives?", ["Green", "Red", "Purple", "Orange"], "A"),
        (3, "How many sides has a hexagon?", ["Five", "Seven", "Eight", "Six"], "D"),
    ]
    assert mmlu(data_path=files["mmlu"]).dataset[0].metadata == {
        "subject": "elementary_mathematics"
    }


def test_mmlu_pro_records_with_more_than_four_options(files) -> None:
    [a, b] = summary(mmlu_pro(data_path=files["mmlu_pro"]))
    assert a == (70, "Which metal is liquid at room temperature?",
                 ["Iron", "Copper", "Mercury", "Tin", "Lead", "Zinc"], "C")  # fmt: skip
    assert b[0] == 71 and len(b[2]) == 10 and b[3] == "B"


def test_arc_numeric_labels_become_letters(files) -> None:
    assert summary(arc_challenge(data_path=files["arc_challenge"])) == [
        ("Synth_1", "Which of these is a mammal?", ["Shark", "Whale", "Trout", "Eel"], "B"),
        ("Synth_2", "What makes a compass needle point north?",
         ["Gravity", "Wind", "Earth's magnetic field", "Sunlight"], "C"),
    ]  # fmt: skip


def test_musr_choices_as_hub_text_or_list_and_narrative_in_the_prompt(files) -> None:
    task = musr(data_path=files["musr"])
    assert [(*s.choices, s.target) for s in task.dataset] == [
        ("Ben", "Cleo", "A"),
        ("Dan", "Eve", "B"),
    ]
    assert task.dataset[0].metadata["narrative"].startswith("Ada was found in the library.")


def test_gpqa_shuffles_options_per_record_and_targets_the_correct_one(files) -> None:
    task = gpqa(data_path=files["gpqa"])
    samples = list(task.dataset)
    assert [s.id for s in samples] == [f"rec{i}" for i in range(1, 9)]
    for i, s in enumerate(samples, start=1):
        options = list(s.choices)
        assert sorted(options) == sorted(
            [f"right {i}", f"wrong {i}a", f"wrong {i}b", f"wrong {i}c"]
        )
        assert options["ABCD".index(s.target)] == f"right {i}"
    # the source lists the correct answer first: shuffling must move it
    assert len({s.target for s in samples}) > 1
    # the order is a function of seed and record, not of the subset drawn
    again = {
        s.id: list(s.choices) for s in gpqa(data_path=files["gpqa"], subset=3, shuffle=True).dataset
    }
    assert all(again[s.id] == list(s.choices) for s in samples if s.id in again)
    other_seed = [list(s.choices) for s in gpqa(data_path=files["gpqa"], seed=7).dataset]
    assert other_seed != [list(s.choices) for s in samples]


# -- bad data and bad options -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "name, row, field",
    [
        ("mmlu", {"question": "Q?", "choices": ["a", "b"], "answer": 2}, "answer"),
        ("mmlu", {"question": "Q?", "choices": ["a", "b"], "answer": True}, "answer"),
        ("mmlu", {"question": "Q?", "choices": ["a"], "answer": 0}, "choices"),
        ("mmlu", {"question": "Q?", "choices": ["a", ""], "answer": 0}, "choices"),
        ("mmlu", {"question": "", "choices": ["a", "b"], "answer": 0}, "question"),
        ("mmlu_pro", {"question": "Q?", "options": ["a", "b"], "answer": "AB"}, "answer"),
        ("mmlu_pro", {"question": "Q?", "options": "a, b", "answer": "A"}, "options"),
        ("musr", {"narrative": "N", "question": "Q?", "choices": "['a', 'b'", "answer_index": 0}, "choices"),
        ("musr", {"narrative": "", "question": "Q?", "choices": ["a", "b"], "answer_index": 0}, "narrative"),
        ("arc_challenge", {"id": "x", "question": "Q?", "choices": {"text": ["a", "b"], "label": ["A", "B"]},
                           "answerKey": "E"}, "answerKey"),
        ("gpqa", {"Question": "Q?", "Correct Answer": "a", "Incorrect Answer 1": "b",
                  "Incorrect Answer 2": "c"}, "Incorrect Answer 3"),
    ],
)  # fmt: skip
def test_bad_record_names_the_file_the_record_and_the_field(
    tmp_path: Path, files, name: str, row: dict, field: str
) -> None:
    good = (
        json.loads(Path(files[name]).read_text().splitlines()[0])
        if name != "gpqa"
        else GPQA_ROWS[0]
    )
    path = write_jsonl(tmp_path / "bad.jsonl", [good, row])
    with pytest.raises(ValueError) as err:
        TASKS[name](data_path=path)
    assert f"{path}: record 2: '{field}'" in str(err.value)


@pytest.mark.parametrize("name", list(TASKS))
def test_missing_file_is_named(name: str) -> None:
    with pytest.raises(FileNotFoundError, match=r"nowhere\.jsonl"):
        TASKS[name](data_path="nowhere.jsonl")


@pytest.mark.parametrize(
    "task, option, value", [(gpqa, "variant", "platinum"), (musr, "domain", "heists")]
)
def test_bad_choice_option_is_rejected_before_any_download(
    monkeypatch: pytest.MonkeyPatch, task, option: str, value: str
) -> None:
    monkeypatch.setattr(_bench, "hf_records", no_network)
    monkeypatch.setattr(urllib.request, "urlopen", no_network)
    with pytest.raises(ValueError, match=f"invalid task option '{option}'"):
        task(**{option: value})


@pytest.mark.parametrize("subset, message", [(0, ">= 1"), (-2, ">= 1"), ("most", "voting (375)")])
def test_bad_subset_is_rejected_before_any_download(
    monkeypatch: pytest.MonkeyPatch, subset, message: str
) -> None:
    monkeypatch.setattr(_bench, "hf_records", no_network)
    with pytest.raises(ValueError, match="'subset'") as err:
        mmlu(subset=subset)
    assert message in str(err.value)


# -- subsets: a number, or a paper's size drawn at random -------------------------------------------


def many_mmlu(tmp_path: Path, n: int) -> str:
    rows = [
        {"question": f"Q{i}?", "choices": ["x", "y", "z", "w"], "answer": i % 4} for i in range(n)
    ]
    return write_jsonl(tmp_path / "many.jsonl", rows)


def ids(task: Task) -> list:
    return [s.id for s in task.dataset]


def test_number_subset_keeps_the_first_records(tmp_path: Path) -> None:
    path = many_mmlu(tmp_path, 20)
    assert ids(mmlu(data_path=path, subset=5)) == [1, 2, 3, 4, 5]
    assert mmlu(data_path=path, subset=5).metadata["shuffle"] is False


def test_paper_subset_draws_the_papers_size_at_random(tmp_path: Path) -> None:
    path = many_mmlu(tmp_path, 400)
    drawn = ids(mmlu(data_path=path, subset="voting"))
    assert len(drawn) == 375 and len(set(drawn)) == 375
    assert drawn != list(range(1, 376))  # shuffled, as the paper's random subsets
    assert drawn == ids(mmlu(data_path=path, subset="voting"))  # ... with the seed
    assert drawn != ids(mmlu(data_path=path, subset="voting", seed=1))
    assert ids(mmlu(data_path=path, subset="cortex")) == drawn[:100]  # same seed, same order
    assert ids(mmlu(data_path=path, subset="voting", shuffle=False)) == list(range(1, 376))
    task = mmlu(data_path=path, subset="voting")
    assert task.metadata == {"source": path, "subset": "voting", "shuffle": True, "seed": 42}


def test_paper_subset_larger_than_the_file_is_an_error(tmp_path: Path) -> None:
    path = many_mmlu(tmp_path, 50)
    with pytest.raises(
        ValueError, match=r"'voting' takes 375 records, but .*many\.jsonl has only 50"
    ):
        mmlu(data_path=path, subset="voting")


@pytest.mark.parametrize(
    "task, presets",
    [
        (mmlu, {"voting": 375, "cortex": 100}),
        (mmlu_pro, {"voting": 374, "cortex": 100, "cortex_large": 1000}),
        (gpqa, {"voting": 250, "cortex": 100}),
        (musr, {"voting": 152}),
        (arc_challenge, {"cortex": 100}),
    ],
)
def test_paper_subset_sizes(task, presets: dict[str, int]) -> None:
    import importlib

    assert presets == importlib.import_module(task.__module__).PRESETS


# -- the pinned public sources (monkeypatched: no network) ------------------------------------------


def no_network(*args, **kwargs):
    raise AssertionError("must not touch the network")


@pytest.mark.parametrize(
    "task, kwargs, rows, expected",
    [
        (mmlu, {}, MMLU_ROWS, ("cais/mmlu", "test", "all", "c30699e8356da336a370243923dbaf21066bb9fe")),
        (mmlu_pro, {}, MMLU_PRO_ROWS,
         ("TIGER-Lab/MMLU-Pro", "test", None, "527feea0afed1de15a8c115abf7be4c912123315")),
        (musr, {}, MUSR_ROWS,
         ("TAUR-Lab/MuSR", "murder_mysteries", None, "7c365b439a222150f317764d4f16ae6c96d7d94a")),
        (musr, {"domain": "team_allocation"}, MUSR_ROWS,
         ("TAUR-Lab/MuSR", "team_allocation", None, "7c365b439a222150f317764d4f16ae6c96d7d94a")),
        (arc_challenge, {}, ARC_ROWS,
         ("allenai/ai2_arc", "test", "ARC-Challenge", "210d026faf9955653af8916fad021475a3f00453")),
    ],
)  # fmt: skip
def test_public_source_is_loaded_at_the_pinned_revision(
    monkeypatch: pytest.MonkeyPatch, task, kwargs: dict, rows: list[dict], expected: tuple
) -> None:
    asked = []

    def fake_hf_records(path, split, name=None, revision=None):
        asked.append((path, split, name, revision))
        return rows

    monkeypatch.setattr(_bench, "hf_records", fake_hf_records)
    built = task(**kwargs)
    assert asked == [expected]
    assert len(built.dataset) == len(rows)
    path, *_, revision = expected
    assert built.metadata["source"].startswith(f"https://huggingface.co/datasets/{path} (")
    assert built.metadata["source"].endswith(f"@ {revision}")


def test_gpqa_diamond_is_the_pinned_csv_verified_by_sha256(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    cached = tmp_path / "cache" / "gpqa" / DIAMOND_SHA256 / "gpqa_diamond.csv"
    cached.parent.mkdir(parents=True)
    write_csv(cached, GPQA_ROWS[:3])
    monkeypatch.setattr(urllib.request, "urlopen", no_network)  # the verified copy is reused
    task = gpqa()
    assert ids(task) == ["rec1", "rec2", "rec3"]
    assert task.metadata["source"] == f"{DIAMOND_URL} (sha256 {DIAMOND_SHA256})"
    assert task.metadata["variant"] == "diamond"


class FakeResponse:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def read(self) -> bytes:
        return self.data


def test_download_keeps_a_file_only_if_its_sha256_matches(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    data = b"Question,Correct Answer\nQ?,A\n"
    monkeypatch.setattr(urllib.request, "urlopen", lambda url, timeout: FakeResponse(data))
    with pytest.raises(RuntimeError, match="expected 00ff"):
        _data.download("https://example.org/x.csv", "x/x.csv", sha256="00ff")
    assert not list(tmp_path.rglob("x.csv*"))  # nothing left behind to be trusted later
    good = hashlib.sha256(data).hexdigest()
    path = _data.download("https://example.org/x.csv", "x/x.csv", sha256=good)
    assert path.read_bytes() == data
    with pytest.raises(RuntimeError, match="expected 00ff"):  # the DIAMOND pin guards the same way
        _data.download(DIAMOND_URL, "gpqa/fake.csv", sha256="00ff")


@pytest.mark.parametrize("variant", ["main", "extended"])
def test_gpqa_gated_variants_pin_the_revision_they_resolve(
    monkeypatch: pytest.MonkeyPatch, variant: str
) -> None:
    import mad_tasks.tasks.gpqa as gpqa_module

    asked = []

    def fake_hf_records(path, split, name=None, revision=None):
        asked.append((path, split, name, revision))
        return GPQA_ROWS

    monkeypatch.setattr(gpqa_module, "hf_revision", lambda path: f"sha-of-{path}")
    monkeypatch.setattr(_bench, "hf_records", fake_hf_records)
    task = gpqa(variant=variant)
    assert asked == [("Idavidrein/gpqa", "train", f"gpqa_{variant}", "sha-of-Idavidrein/gpqa")]
    assert task.metadata["source"].endswith("@ sha-of-Idavidrein/gpqa")  # recorded in the log
    assert task.metadata["variant"] == variant


# -- end to end on the simulated model ---------------------------------------------------------------


def run(task: Task, tmp_path: Path, **model_args) -> EvalLog:
    [log] = eval(
        task, model="madsim/x", model_args=model_args, display="none",
        log_dir=str(tmp_path / "logs"),
    )  # fmt: skip
    assert log.status == "success", log.error
    return log


def choice_accuracy(log: EvalLog) -> float:
    [score] = [s for s in log.results.scores if s.name == "choice"]
    return score.metrics["accuracy"].value


@pytest.mark.parametrize("name", list(TASKS))
def test_always_right_scores_one_and_always_wrong_scores_zero(
    tmp_path: Path, files, name: str
) -> None:
    right = run(TASKS[name](data_path=files[name]), tmp_path, accuracy=1.0)
    assert choice_accuracy(right) == 1.0
    assert all(s.output.completion == f"ANSWER: {s.target}" for s in right.samples)
    wrong = run(TASKS[name](data_path=files[name]), tmp_path, accuracy=0.0, conformity=0.0)
    assert choice_accuracy(wrong) == 0.0
    # wrong answers, not missing ones
    assert all(s.output.completion.startswith("ANSWER: ") for s in wrong.samples)


def test_prompt_lives_in_setup_and_shows_the_options_once(tmp_path: Path, files) -> None:
    task = musr(data_path=files["musr"])
    assert task.setup is not None
    log = run(task, tmp_path, accuracy=1.0)
    sample = resolve_sample_attachments(log.samples[0])  # long texts are attachments
    first = next(e for e in sample.events if e.event == "model")
    prompt = first.input[-1].text
    assert prompt.startswith("Read the story below")
    assert "Ada was found in the library." in prompt
    assert "Question: Who is the most likely murderer?" in prompt
    assert prompt.count("A) Ben") == 1 and prompt.count("B) Cleo") == 1

"""StrategyQA (Geva et al., 2021): yes/no questions that need implicit multi-step reasoning."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Solver, prompt_template

from ..scorers.answers import final_answer
from ..solvers import du_debate
from ._bench import check_choice, data_path_option, id_field, subset_option, viewed_task
from ._data import download, read_records
from ._options import only_its_options

# The authors' 90/10 split of the labelled set (train 2,061 / dev 229), pinned to a commit.
SOURCE_COMMIT = "41190574949c1ab5e523a73b00c2f0bb9f78019f"
SOURCE_URL = (
    "https://raw.githubusercontent.com/eladsegal/strategyqa/"
    f"{SOURCE_COMMIT}/data/strategyqa/{{split}}.json"
)
SPLITS = ("train", "dev")

PROMPT = "Answer the following yes/no question.\n\nQuestion: {prompt}"


def record_to_sample(record: dict[str, Any], where: str) -> Sample:
    question, answer = record.get("question"), record.get("answer")
    if not isinstance(question, str) or not question.strip():
        raise ValueError(f"{where}: 'question' must be a non-empty string")
    if isinstance(answer, str) and answer.strip().lower() in ("yes", "no", "true", "false"):
        answer = answer.strip().lower() in ("yes", "true")
    if not isinstance(answer, bool):
        raise ValueError(f"{where}: 'answer' must be true/false or yes/no, got {answer!r}")
    return Sample(
        id=id_field(record, "qid", where, None),
        input=question,
        target="yes" if answer else "no",
        metadata={
            "answer_format": "yesno",
            "facts": record.get("facts", []),
            "decomposition": record.get("decomposition", []),
            "term": record.get("term"),
        },
    )


def setup() -> Solver:
    return prompt_template(PROMPT)


@task
@only_its_options
def strategyqa(
    split: str = "dev",
    data_path: str | None = None,
    shuffle: bool = False,
    seed: int = 42,
    subset: int | None = None,
) -> Task:
    """StrategyQA yes/no questions.

    Args:
        split: train or dev (the public 90/10 split of the labelled set), ignored with data_path.
        data_path: a local JSON/JSONL file of StrategyQA records (offline use).
        shuffle: shuffle the questions with `seed` before taking the subset.
        seed: the shuffle seed.
        subset: keep only this many questions.
    """
    check_choice("split", split, SPLITS)
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    path: str | Path
    if local is None:
        path = download(SOURCE_URL.format(split=split), f"strategyqa/{SOURCE_COMMIT}/{split}.json")
        source = SOURCE_URL.format(split=split)
    else:
        path, source = local, local
    records = read_records(path)
    samples = [record_to_sample(r, f"{path}: record {i + 1}") for i, r in enumerate(records)]
    return viewed_task(
        [final_answer()],
        dataset=MemoryDataset(chosen.take(samples, source), name="strategyqa"),
        setup=setup(),
        solver=du_debate(),
        metadata={"source": source, "split": None if data_path else split},
        version=1,
    )

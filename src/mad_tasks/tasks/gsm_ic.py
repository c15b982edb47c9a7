"""GSM-IC (Shi et al., 2023): GSM8K problems with one irrelevant sentence added to distract.

The public release is two JSON files on GitHub: `2step` (problems needing two steps) and `mstep`
(more steps), pinned here to a commit of the `google-research-datasets/GSM-IC` repository. Each
base problem appears in many variants, one per distracting sentence.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ..scorers.answers import final_answer
from ._bench import (
    Record,
    benchmark_task,
    check_choice,
    local_or,
    number_field,
    subset_option,
    text_field,
)
from ._data import download, read_records
from ._options import only_its_options

SOURCE_COMMIT = "0c1da13552afcc5d995d6f1ad5288417cb110246"
SOURCE_URL = (
    "https://raw.githubusercontent.com/google-research-datasets/GSM-IC/"
    f"{SOURCE_COMMIT}/GSM-IC_{{split}}.json"
)
SPLITS = ("2step", "mstep")
PRESETS = {"cortex": 100}  # CortexDebate, Table 1

PROMPT = "Solve the following math word problem.\n\nProblem: {prompt}"


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    return Sample(
        id=number,
        input=text_field(record, "new_question", where),
        target=number_field(record, "answer", where),
        metadata={
            "answer_format": "number",
            "original_question": record.get("original_question"),
            "n_steps": record.get("n_steps"),
            # what kind of distractor was added (the paper's analysis categories)
            **{key: record.get(key) for key in ("role_label", "number_label", "sentence_label")},
        },
    )


def public_records(split: str) -> tuple[list[Record], str]:
    url = SOURCE_URL.format(split=split)
    return read_records(download(url, f"gsm_ic/{SOURCE_COMMIT}/GSM-IC_{split}.json")), url


@task
@only_its_options
def gsm_ic(
    split: str = "2step",
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """GSM-IC math word problems with irrelevant context; the answer is a number.

    Args:
        split: 2step or mstep (the two files of the public release).
        data_path: a local JSON/JSONL file of GSM-IC records: `new_question`, `answer` (a number),
            optional `original_question`, `n_steps`, `role_label`, `number_label`, `sentence_label`.
        subset: keep this many problems, or the paper's size: cortex (100).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
    """
    check_choice("split", split, SPLITS)
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(data_path, lambda: public_records(split))
    return benchmark_task(
        "gsm_ic", records, source, record_to_sample, chosen, PROMPT,
        [final_answer()], split=None if data_path else split,
    )  # fmt: skip

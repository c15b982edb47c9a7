"""MMLU (Hendrycks et al., 2021): four-option questions on 57 subjects, the test split (14,042)."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ._bench import (
    Record,
    answer_letter,
    benchmark_task,
    hf_load,
    local_or,
    mc_scorers,
    options_field,
    subset_option,
    text_field,
)
from ._options import only_its_options

DATASET = "cais/mmlu"
REVISION = "c30699e8356da336a370243923dbaf21066bb9fe"  # inspect_evals 0.26.0, mmlu.py
# "Voting or Consensus?" (Kaesberg et al., 2025) and CortexDebate evaluate random subsets of these sizes
PRESETS = {"voting": 375, "cortex": 100}

PROMPT = "Answer the following multiple-choice question.\n\nQuestion: {prompt}"


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    choices = options_field(record.get("choices"), "choices", where)
    return Sample(
        id=number,
        input=text_field(record, "question", where),
        choices=choices,
        target=answer_letter(record.get("answer"), len(choices), "answer", where),
        metadata={"subject": record.get("subject")},
    )


@task
@only_its_options
def mmlu(
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """MMLU multiple-choice questions (test split).

    Args:
        data_path: a local JSON/JSONL file of `cais/mmlu` rows: `question`, `choices` (list),
            `answer` (0-based index or letter), optional `subject` (offline use).
        subset: keep this many questions, or a paper's size: voting (375) or cortex (100).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
    """
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(data_path, lambda: hf_load(DATASET, "test", "all", REVISION))
    return benchmark_task("mmlu", records, source, record_to_sample, chosen, PROMPT, mc_scorers())

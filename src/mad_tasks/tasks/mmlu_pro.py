"""MMLU-Pro (Wang et al., 2024): harder questions with up to ten options, the test split (12,032)."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ._bench import (
    Record,
    answer_letter,
    benchmark_task,
    hf_load,
    id_field,
    local_or,
    mc_scorers,
    options_field,
    subset_option,
    text_field,
)
from ._options import only_its_options

DATASET = "TIGER-Lab/MMLU-Pro"
REVISION = "527feea0afed1de15a8c115abf7be4c912123315"  # inspect_evals 0.26.0, mmlu_pro.py
# "Voting or Consensus?" 374; CortexDebate 100 (Table 1) and 1,000 (Appendix C)
PRESETS = {"voting": 374, "cortex": 100, "cortex_large": 1000}

PROMPT = "Answer the following multiple-choice question.\n\nQuestion: {prompt}"


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    choices = options_field(record.get("options"), "options", where)
    return Sample(
        id=id_field(record, "question_id", where, number),
        input=text_field(record, "question", where),
        choices=choices,
        target=answer_letter(record.get("answer"), len(choices), "answer", where),
        metadata={"subject": record.get("category")},
    )


@task
@only_its_options
def mmlu_pro(
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """MMLU-Pro multiple-choice questions (test split).

    Args:
        data_path: a local JSON/JSONL file of `TIGER-Lab/MMLU-Pro` rows: `question`, `options`
            (list), `answer` (letter or 0-based index), optional `question_id`, `category`.
        subset: keep this many questions, or a paper's size: voting (374), cortex (100) or
            cortex_large (1000).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
    """
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(data_path, lambda: hf_load(DATASET, "test", None, REVISION))
    return benchmark_task(
        "mmlu_pro", records, source, record_to_sample, chosen, PROMPT, mc_scorers()
    )

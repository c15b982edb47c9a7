"""ARC-Challenge (Clark et al., 2018): grade-school science questions, the test split (1,172)."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ._bench import (
    LETTERS,
    Record,
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

DATASET = "allenai/ai2_arc"
REVISION = "210d026faf9955653af8916fad021475a3f00453"  # inspect_evals 0.26.0, arc.py
PRESETS = {"cortex": 100}  # CortexDebate, Table 1

PROMPT = "Answer the following science question.\n\nQuestion: {prompt}"


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    raw = record.get("choices")
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: 'choices' must be an object with 'text' and 'label' lists")
    choices = options_field(raw.get("text"), "choices.text", where)
    labels = raw.get("label")
    if not isinstance(labels, list) or len(labels) != len(choices):
        raise ValueError(f"{where}: 'choices.label' must list one label per option")
    # the source labels options A-E or 1-5; the task shows them as letters in the same order
    key = record.get("answerKey")
    if key not in labels:
        raise ValueError(f"{where}: 'answerKey' {key!r} is not one of the labels {labels}")
    return Sample(
        id=id_field(record, "id", where, number),
        input=text_field(record, "question", where),
        choices=choices,
        target=LETTERS[labels.index(key)],
    )


@task
@only_its_options
def arc_challenge(
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """ARC-Challenge multiple-choice science questions (test split).

    Args:
        data_path: a local JSON/JSONL file of `allenai/ai2_arc` rows: `id`, `question`,
            `choices` ({"text": [...], "label": [...]}), `answerKey` (one of the labels).
        subset: keep this many questions, or the paper's size: cortex (100).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
    """
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(
        data_path, lambda: hf_load(DATASET, "test", "ARC-Challenge", REVISION)
    )
    return benchmark_task(
        "arc_challenge", records, source, record_to_sample, chosen, PROMPT, mc_scorers()
    )

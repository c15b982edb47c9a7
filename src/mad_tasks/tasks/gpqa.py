"""GPQA (Rein et al., 2023): graduate-level, "Google-proof" four-option science questions.

`diamond` (198) is the default: it is the only variant published openly, as a CSV pinned by its
SHA256. `main` (448, CortexDebate's set) and `extended` (546, the set of "Voting or Consensus?") are
on the gated Hugging Face dataset `Idavidrein/gpqa` (accept its terms and log in first); it
publishes no pin, so the Hub's current commit is looked up, loaded and recorded in the log.
"""

from __future__ import annotations

import random
from functools import partial

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ._bench import (
    LETTERS,
    Record,
    benchmark_task,
    check_choice,
    hf_load,
    id_field,
    local_or,
    mc_scorers,
    subset_option,
    text_field,
)
from ._data import download, hf_revision, read_records
from ._options import only_its_options

DIAMOND_URL = "https://openaipublic.blob.core.windows.net/simple-evals/gpqa_diamond.csv"
# pinned by inspect_evals 0.26.0, gpqa.py
DIAMOND_SHA256 = "41d1213cd7a4998605a26c2798500652572007161b3a92817ba46b35befcd305"
GATED_DATASET = "Idavidrein/gpqa"
VARIANTS = ("diamond", "main", "extended")
# "Voting or Consensus?" draws 250 from `extended`; CortexDebate 100 from `main`
PRESETS = {"voting": 250, "cortex": 100}

PROMPT = "Answer the following multiple-choice question.\n\nQuestion: {prompt}"
ANSWER_FIELDS = ("Correct Answer", "Incorrect Answer 1", "Incorrect Answer 2", "Incorrect Answer 3")


def record_to_sample(record: Record, where: str, number: int, seed: int) -> Sample:
    """The source lists the correct answer first, so the options are shuffled, seeded per record."""
    correct, *wrong = [text_field(record, field, where) for field in ANSWER_FIELDS]
    record_id = id_field(record, "Record ID", where, number)
    options = [correct, *wrong]
    random.Random(f"{seed}:{record_id}").shuffle(options)
    return Sample(
        id=record_id,
        input=text_field(record, "Question", where),
        choices=options,
        target=LETTERS[options.index(correct)],
        metadata={
            "high_level_domain": record.get("High-level domain"),
            "subdomain": record.get("Subdomain"),
        },
    )


def public_records(variant: str) -> tuple[list[Record], str]:
    if variant == "diamond":
        path = download(
            DIAMOND_URL, f"gpqa/{DIAMOND_SHA256}/gpqa_diamond.csv", sha256=DIAMOND_SHA256
        )
        return read_records(path), f"{DIAMOND_URL} (sha256 {DIAMOND_SHA256})"
    return hf_load(GATED_DATASET, "train", f"gpqa_{variant}", hf_revision(GATED_DATASET))


@task
@only_its_options
def gpqa(
    variant: str = "diamond",
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """GPQA four-option questions.

    Args:
        variant: diamond (pinned public CSV), main or extended (gated Hub dataset, unpinned).
        data_path: a local CSV/JSON/JSONL file in the GPQA schema: `Question`, `Correct Answer`,
            `Incorrect Answer 1`-`3`, optional `Record ID`, `High-level domain`, `Subdomain`.
        subset: keep this many questions, or a paper's size: voting (250, from extended) or
            cortex (100, from main).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed, which also orders each question's options.
    """
    check_choice("variant", variant, VARIANTS)
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(data_path, lambda: public_records(variant))
    return benchmark_task(
        "gpqa", records, source, partial(record_to_sample, seed=seed), chosen, PROMPT,
        mc_scorers(), variant=None if data_path else variant,
    )  # fmt: skip

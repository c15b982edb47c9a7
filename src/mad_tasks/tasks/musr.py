"""MuSR (Sprague et al., 2024): questions about long narratives that need multistep soft reasoning.

The default domain, murder_mysteries (250 stories; "Voting or Consensus?" uses 152), asks who the
murderer is out of two suspects; the options are the suspects, scored by Inspect's `choice()` as
inspect_evals does (the paper's name match is the same comparison).
"""

from __future__ import annotations

import ast
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ._bench import (
    Record,
    answer_letter,
    benchmark_task,
    check_choice,
    hf_load,
    local_or,
    mc_scorers,
    options_field,
    subset_option,
    text_field,
)
from ._options import only_its_options

DATASET = "TAUR-Lab/MuSR"
REVISION = "7c365b439a222150f317764d4f16ae6c96d7d94a"  # inspect_evals 0.26.0, musr.py
DOMAINS = ("murder_mysteries", "object_placements", "team_allocation")
PRESETS = {"voting": 152}  # "Voting or Consensus?", murder_mysteries

PROMPT = (
    "Read the story below, then answer the question after it.\n\n{narrative}\n\nQuestion: {prompt}"
)


def parse_choices(value: Any) -> Any:
    """The Hub stores the options as the text of a Python list; a local file may hold a list."""
    if isinstance(value, str):
        try:
            return ast.literal_eval(value)  # a literal only: never evaluates code
        except (ValueError, SyntaxError):
            return value
    return value


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    choices = options_field(parse_choices(record.get("choices")), "choices", where)
    return Sample(
        id=number,
        input=text_field(record, "question", where),
        choices=choices,
        target=answer_letter(record.get("answer_index"), len(choices), "answer_index", where),
        metadata={"narrative": text_field(record, "narrative", where)},
    )


@task
@only_its_options
def musr(
    domain: str = "murder_mysteries",
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """MuSR narrative questions.

    Args:
        domain: murder_mysteries, object_placements or team_allocation (a split of the dataset).
        data_path: a local JSON/JSONL file of `TAUR-Lab/MuSR` rows: `narrative`, `question`,
            `choices` (a list, or its text as on the Hub), `answer_index` (0-based).
        subset: keep this many questions, or the paper's size: voting (152).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
    """
    check_choice("domain", domain, DOMAINS)
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(data_path, lambda: hf_load(DATASET, domain, None, REVISION))
    return benchmark_task(
        "musr", records, source, record_to_sample, chosen, PROMPT, mc_scorers(),
        domain=None if data_path else domain,
    )  # fmt: skip

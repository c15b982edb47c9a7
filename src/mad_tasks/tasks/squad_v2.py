"""SQuAD 2.0 (Rajpurkar et al., 2018): reading comprehension where some questions have no answer in
the passage; the validation split (11,873), scored by exact match and F1 as `squad_v2` does."""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ..engine.checks import boolean
from ..scorers.squad import NO_ANSWER, squad, squad_contains
from ._bench import (
    Record,
    benchmark_task,
    hf_load,
    id_field,
    local_or,
    subset_option,
    text_field,
)
from ._options import only_its_options

DATASET = "rajpurkar/squad_v2"
REVISION = "3ffb306f725f7d2ce8394bc1873b24868140c412"  # inspect_evals 0.26.0, squad.py
PRESETS = {"voting": 373, "cortex": 100}  # "Voting or Consensus?"; CortexDebate Table 1

PROMPT = (
    "Answer the question using only the context below, with the shortest span of the context "
    f"that answers it. If the context does not answer it, the answer is {NO_ANSWER}."
    "\n\nContext:\n{context}\n\nQuestion: {prompt}"
)


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    answers = record.get("answers")
    texts = answers.get("text") if isinstance(answers, dict) else None
    if not isinstance(texts, list) or not all(isinstance(t, str) for t in texts):
        raise ValueError(
            f"{where}: 'answers' must be an object with a 'text' list of strings "
            f"(empty when unanswerable), got {answers!r:.80}"
        )
    unique = list(dict.fromkeys(t.strip() for t in texts if t.strip()))
    return Sample(
        id=id_field(record, "id", where, number),
        input=text_field(record, "question", where),
        target=unique or NO_ANSWER,
        metadata={
            "answer_format": "text",
            "context": text_field(record, "context", where),
            "title": record.get("title"),
        },
    )


@task
@only_its_options
def squad_v2(
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
    contains: bool = False,
    answerable_only: bool = False,
) -> Task:
    """SQuAD 2.0 questions (validation split), answerable and unanswerable.

    Args:
        data_path: a local JSON/JSONL file of `rajpurkar/squad_v2` rows: `id`, `context`,
            `question`, `answers` ({"text": [...], "answer_start": [...]}, empty when
            unanswerable), optional `title`.
        subset: keep this many questions, or a paper's size: voting (373) or cortex (100).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
        contains: also score `squad_contains`, whether the answer contains a reference answer
            (CortexDebate's measure).
        answerable_only: keep only the questions with a reference answer, before the subset is
            taken (SQuAD 1.1's kind of question, as CortexDebate evaluates).
    """
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    extra = [squad_contains()] if boolean("contains", contains, kind="task") else []
    boolean("answerable_only", answerable_only, kind="task")
    records, source = local_or(data_path, lambda: hf_load(DATASET, "validation", None, REVISION))
    if answerable_only:
        records = answerable(records, source)
    scorers = [*squad(), *extra]
    return benchmark_task(
        "squad_v2",
        records,
        source,
        record_to_sample,
        chosen,
        PROMPT,
        scorers,
        contains=contains,
        answerable_only=answerable_only,
    )


def answerable(records: list[Record], source: str) -> list[Record]:
    """The records with a reference answer, each keeping its id (a record without one: its number
    in the file, as when all are kept)."""
    kept = []
    for i, record in enumerate(records, start=1):
        where = f"{source}: record {i}"
        if record_to_sample(record, where, i).target != NO_ANSWER:
            kept.append({**record, "id": id_field(record, "id", where, i)})
    return kept

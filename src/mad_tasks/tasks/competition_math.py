"""MATH (Hendrycks et al., 2021): competition mathematics, the test split (5,000); the task `math`.

The reference answer is the last \\boxed{...} of the worked solution (or a record's own `answer`, as
in MATH-500 files). Answers are LaTeX: they are read and compared by the project's `math` answer
format, which normalises them (see `engine/latex.py`), for the agents' votes and for scoring alike.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import Sample

from ..engine.latex import last_boxed, strip_math
from ..scorers.answers import final_answer
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

DATASET = "DigitalLearningGmbH/MATH-lighteval"
REVISION = "0530c78699ea5e8eb5530600900e1f328b48acad"  # inspect_evals 0.26.0, math.py
PRESETS = {"cortex": 100, "cortex_large": 1000}  # CortexDebate, Table 1 and Appendix C

PROMPT = "Solve the following competition mathematics problem.\n\nProblem: {prompt}"


def record_to_sample(record: Record, where: str, number: int) -> Sample:
    if "answer" in record:
        answer = strip_math(text_field(record, "answer", where))
    else:
        answer = strip_math(last_boxed(text_field(record, "solution", where)) or "")
        if not answer:
            raise ValueError(f"{where}: 'solution' has no \\boxed{{...}} final answer")
    return Sample(
        id=id_field(record, "unique_id", where, number),
        input=text_field(record, "problem", where),
        target=answer,
        metadata={
            "answer_format": "math",
            "level": record.get("level"),
            "subject": record.get("type", record.get("subject")),
        },
    )


@task
@only_its_options
def math(
    data_path: str | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """MATH competition problems (test split); the answer is a number or LaTeX expression.

    Args:
        data_path: a local JSON/JSONL file of MATH records: `problem` and `solution` (with a
            \\boxed{} answer) or `answer`; optional `level`, `type`/`subject`, `unique_id`.
        subset: keep this many problems, or the paper's size: cortex (100) or cortex_large (1000).
        shuffle: shuffle with `seed` before taking the subset (default: only for a paper's size).
        seed: the shuffle seed.
    """
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    records, source = local_or(data_path, lambda: hf_load(DATASET, "test", "default", REVISION))
    return benchmark_task(
        "math", records, source, record_to_sample, chosen, PROMPT, [final_answer()]
    )

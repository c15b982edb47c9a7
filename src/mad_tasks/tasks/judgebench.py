"""JudgeBench (Tan et al., ICLR 2025, "JudgeBench: A Benchmark for Evaluating LLM-Based Judges"): which
of two responses is correct, on hard questions from MMLU-Pro, LiveBench and LiveCodeBench; one
response is right and the other wrong, so the label is objective, never a preference.

The judge tasks' shape, as `mt_bench_judge`: the input is the question, metadata `answer_a` and
`answer_b` hold `response_A` and `response_B`, the target is `A` (label `A>B`) or `B` (`B>A`), and
the same setup, default solver (`samre`) and scorers apply. JudgeBench has no ties. Its two sets
are `split=gpt` (350 pairs, responses by GPT-4o) and `split=claude` (270, Claude 3.5 Sonnet), the
Hub's split names (ScalerLab/JudgeBench). Each is the authors' JSONL file in their GitHub
repository at a pinned commit, checked against its sha256, downloaded at run time, never shipped.
A row that is not a pair with a question, two responses and a label `A>B` or `B>A` is skipped and
counted (`skipped_rows`). A sample's id is its line; the row's `pair_id` is in its metadata.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from ..scorers.judge_metrics import judge_agreement, verdict_stats
from ..solvers import samre
from ._bench import check_choice, data_path_option, subset_option, viewed_task
from ._data import download, read_records
from ._options import only_its_options
from .mt_bench_judge import setup, with_choices

SOURCE_COMMIT = "e2c52c284e735e139b3daa61c206ee208f36c461"
SOURCE_URL = f"https://raw.githubusercontent.com/ScalerLab/JudgeBench/{SOURCE_COMMIT}/data/"
# split -> (the authors' file, its sha256 at SOURCE_COMMIT)
FILES = {
    "gpt": (
        "dataset=judgebench,response_model=gpt-4o-2024-05-13.jsonl",
        "d5106306b38dead1b2e964ecf5534a3e7b2fc4b8d3b8da327599edfcebd76042",
    ),
    "claude": (
        "dataset=judgebench,response_model=claude-3-5-sonnet-20240620.jsonl",
        "3b70504588e400613bf5744a20a345da8701b7150be9a30c9db0e6f3d7b70a62",
    ),
}
SPLITS = tuple(FILES)
LABELS = {"A>B": "A", "B>A": "B"}
# a row's `source` (e.g. mmlu-pro-law, livebench-math) -> the paper's category
CATEGORIES = {
    "mmlu-pro": "knowledge",
    "livebench-reasoning": "reasoning",
    "livebench-math": "math",
    "livecodebench": "coding",
}


def category_of(source: Any) -> str | None:
    """The paper's category of a row's `source`: knowledge, reasoning, math or coding; None when
    the source is none of them."""
    if not isinstance(source, str):
        return None
    return next((c for prefix, c in CATEGORIES.items() if source.startswith(prefix)), None)


def row_to_sample(row: dict[str, Any], n: int) -> Sample | None:
    """The pair of a row of the authors' file (id: its 1-based line), or None for a bad row."""
    label = row.get("label")
    texts = [row.get(key) for key in ("question", "response_A", "response_B")]
    if not isinstance(label, str) or label.strip() not in LABELS:
        return None
    if not all(isinstance(t, str) and t.strip() for t in texts):
        return None
    question, first, second = (str(t).strip() for t in texts)
    return Sample(
        id=n,
        input=question,
        target=LABELS[label.strip()],
        metadata={
            "answer_a": first,
            "answer_b": second,
            "pair_id": row.get("pair_id"),
            "source": row.get("source"),
            "category": category_of(row.get("source")),
            "response_model": row.get("response_model"),
        },
    )


@task
@only_its_options
def judgebench(
    data_path: str | None = None,
    split: str = "gpt",
    shuffle: bool = False,
    seed: int = 42,
    subset: int | None = None,
) -> Task:
    """JudgeBench's response pairs, one right and one wrong, for judges (as mt_bench_judge).

    Args:
        data_path: a local copy of one of the authors' data/*.jsonl files (offline use).
        split: gpt (350 pairs, GPT-4o's responses) or claude (270, Claude 3.5 Sonnet's).
        shuffle: shuffle the pairs with `seed` before taking the subset.
        seed: the shuffle seed.
        subset: keep only this many pairs.
    """
    check_choice("split", split, SPLITS)
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    path: str | Path
    if local is None:
        file, sha256 = FILES[split]
        url = SOURCE_URL + file
        path, source = download(url, f"judgebench/{SOURCE_COMMIT}/{file}", sha256), url
    else:
        path, source = local, local
    read = [row_to_sample(row, n) for n, row in enumerate(read_records(path), 1)]
    samples = [with_choices(s, "drop") for s in read if s is not None]
    return viewed_task(
        [judge_agreement(), *verdict_stats()],
        dataset=MemoryDataset(chosen.take(samples, source), name="judgebench"),
        setup=setup("drop"),
        solver=samre(),
        metadata={
            "source": source,
            "split": split if local is None else None,
            "pairs": len(samples),
            "skipped_rows": read.count(None),
            **chosen.metadata(),
        },
        version=1,
    )

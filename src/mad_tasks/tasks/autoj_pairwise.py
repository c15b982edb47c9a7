"""Auto-J's pairwise test set (Li et al., 2024, "Generative Judge for Evaluating Alignment"): which
of two responses is better, by human annotators; 1,392 pairs over 58 scenarios, 373 of them ties.

The D3 judges use it beside MT-Bench, exactly as `mt_bench_judge`: the input is the user's query,
metadata `answer_a` and `answer_b` hold "response 1" and "response 2", the target is the human
label (0: A, 1: B, 2: tie), and the same setup, default solver (`samre`) and scorers apply. Gold
ties are handled as there: `ties=drop` (default) leaves them out and counts them, `ties=keep`
keeps them as a third class. Only the human `label` is read: a row without one is skipped, never
labelled from another field (Auto-J's training data also carries GPT-4's labels).

The file is the upstream JSONL at a pinned commit, checked against its sha256, downloaded at run
time and never shipped (the repository states no licence for its data). A row that is not a pair
with a query, two responses and a label 0, 1 or 2 is skipped and counted (`skipped_rows`).
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
from .mt_bench_judge import TIES, setup, with_choices

SOURCE_COMMIT = "2ae17a3965d933232e9cd50302aa0f176249c83b"
SOURCE_URL = (
    f"https://raw.githubusercontent.com/GAIR-NLP/auto-j/{SOURCE_COMMIT}"
    "/data/test/testdata_pairwise.jsonl"
)
SOURCE_SHA256 = "56f32fad71d9b6b33bc4d51794c324981e26355bcbf3ce4908d7f8ddcc61f80e"
LABELS = {0: "A", 1: "B", 2: "tie"}


def row_to_sample(row: dict[str, Any], n: int) -> Sample | None:
    """The pair of a row of the upstream file (id: its 1-based line), or None for a bad row."""
    label = row.get("label")
    texts = [row.get(key) for key in ("prompt", "response 1", "response 2")]
    if type(label) is not int or label not in LABELS:  # a bool is no label
        return None
    if not all(isinstance(t, str) and t.strip() for t in texts):
        return None
    prompt, first, second = (str(t).strip() for t in texts)
    return Sample(
        id=n,
        input=prompt,
        target=LABELS[label],
        metadata={
            "answer_a": first,
            "answer_b": second,
            "scenario": row.get("scenario"),
            "label": label,
        },
    )


@task
@only_its_options
def autoj_pairwise(
    data_path: str | None = None,
    ties: str = "drop",
    shuffle: bool = False,
    seed: int = 42,
    subset: int | None = None,
) -> Task:
    """Auto-J's human-labelled pairwise test set, for judges (as mt_bench_judge).

    Args:
        data_path: a local copy of the upstream data/test/testdata_pairwise.jsonl (offline use).
        ties: drop (leave gold ties out, counted in the task metadata) or keep (3-class).
        shuffle: shuffle the pairs with `seed` before taking the subset.
        seed: the shuffle seed.
        subset: keep only this many pairs.
    """
    check_choice("ties", ties, TIES)
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    path: str | Path
    if local is None:
        name = f"autoj/{SOURCE_COMMIT}/testdata_pairwise.jsonl"
        path, source = download(SOURCE_URL, name, SOURCE_SHA256), SOURCE_URL
    else:
        path, source = local, local
    read = [row_to_sample(row, n) for n, row in enumerate(read_records(path), 1)]
    samples = [s for s in read if s is not None]
    gold_ties = sum(s.target == "tie" for s in samples)
    if ties == "drop":
        samples = [s for s in samples if s.target != "tie"]
    samples = [with_choices(s, ties) for s in samples]
    return viewed_task(
        [judge_agreement(), *verdict_stats()],
        dataset=MemoryDataset(chosen.take(samples, source), name="autoj_pairwise"),
        setup=setup(ties),
        solver=samre(),
        metadata={
            "source": source,
            "ties": ties,
            "gold_ties": gold_ties,
            "pairs": len(read) - read.count(None),
            "skipped_rows": read.count(None),
            **chosen.metadata(),
        },
        version=1,
    )

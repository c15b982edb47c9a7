"""PD³'s Task 1 (seed 000): project duplication retrieval, 5 of 30 candidates.

Each sample is one query project: the input is its view (title, a blank line, text); the target
its gold ids (up to 5 corpus ids, the candidates it duplicates most); the metadata its id
(`query_id`), the query itself (`query`: id, title, text), its 30 candidates in the dataset's
fixed order (`candidates`: id, title, text each), and where known its facet and the candidates'
grades (`grades`: {id: 0 to 3}). The candidates' texts are in the metadata so that every solver
works from the sample alone. The solver returns "[RESULT] id1, ..., id5"; `retrieval_at_k`
scores Prec@5 and Match@1..5 (spec 4.2).

PD³'s data (833 State Grid projects) is private. By default the task builds a public benchmark
in its shape at run time from CSFCube (`iesl/CSFCube` at a pinned commit, **CC BY-NC 4.0**:
non-commercial research use; downloaded, checked and cached, never shipped): 34 queries x 30
candidates, gold = the candidates graded 2 or 3 (at most 5), negatives the most TF-IDF-similar
judged non-duplicates (`variant=hard`) or random ones (`variant=random`). `-T data_path=` reads a
local directory in the same format instead. The recipe, file format and counts: `_pd3_data.py`.
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from ..engine.checks import OptionError, one_of, optional
from ..scorers.pd3 import retrieval_at_k
from ..solvers import pd3
from ._bench import data_path_option, subset_option, viewed_task
from ._options import only_its_options
from ._pd3_data import VARIANTS, dedup_sample, load


def variant_option(variant: object, data_path: str | None) -> str | None:
    """`variant`: hard or random for the built benchmark (null: hard); with `data_path` it must
    stay null, since the directory holds one variant."""
    if data_path is not None and variant is not None:
        raise OptionError(
            "variant", variant, "null with data_path (the directory is one variant)", "task"
        )
    return optional(one_of, "variant", variant, VARIANTS, null="hard", kind="task")


@task
@only_its_options
def project_dedup(
    data_path: str | None = None,
    variant: str | None = None,
    shuffle: bool = False,
    seed: int = 42,
    subset: int | None = None,
) -> Task:
    """PD³ Task 1: choose the 5 candidates a project duplicates most, of 30.

    Args:
        data_path: a local directory with corpus.jsonl and queries.jsonl (offline use), e.g. the
            shared csfcube_pd3/hard.
        variant: hard (TF-IDF negatives) or random (random negatives) for the benchmark built
            from CSFCube (CC BY-NC 4.0); null: hard. Not with data_path.
        shuffle: shuffle the queries with `seed` before taking the subset.
        seed: the shuffle seed.
        subset: keep only this many queries.
    """
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    variant = variant_option(variant, local)
    loaded = load(local, variant)
    samples = [dedup_sample(loaded.bench, q) for q in loaded.bench.queries]
    return viewed_task(
        [retrieval_at_k()],
        dataset=MemoryDataset(chosen.take(samples, loaded.source), name="project_dedup"),
        solver=pd3(),
        metadata={**loaded.metadata(), **chosen.metadata()},
        version=1,
    )

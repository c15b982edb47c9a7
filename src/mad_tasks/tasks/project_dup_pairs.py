"""PD³'s Task 2 (seed 000): which of two projects do its references duplicate more.

In the paper, 3 experts voted on 100 random pairs of its test projects; a method predicts the
side with the higher duplication score (`pd3_feedback`: the mean of 3 judge scores, 1 to 10),
scored by Origin and Weighted accuracy (spec 4.2, `dup_pairwise`). Its pairs and votes are
private, so this task builds them from the graded data of Task 1 (spec 6, S3), in the paper's
"Human Retrieval" setting: each side's references are its gold ids. Same data options as
`project_dedup`: the benchmark built from CSFCube (**CC BY-NC 4.0**: non-commercial research
use; downloaded and cached at run time, never shipped) or a local directory with grades.

The design:

- **Level.** A query's duplication level is the sum of its references' grades (0 to 3 each,
  at most 5 references, a missing one counting 0): 0 to 15. It grows with the number of
  duplicating references and with how close each is, needs no threshold, and is the same in both
  variants (they differ only in which of equally graded candidates are gold). Built benchmark:
  levels 2, 6 and 10 (one query each), 11 (14 queries), 12 (6), 13 (7), 15 (4).
- **Pairs.** Every pair of queries whose levels differ is eligible (428 of the 561 pairs of the
  34 built queries). `pairs` of them (100, as the paper; null: all) are drawn uniformly without replacement
  with `random.Random(seed)`, and the same generator puts each pair's second query first with
  probability 1/2, so A and B are each the answer about half the time.
- **Votes.** 3 simulated experts vote for the side with the higher level: all 3 when the levels
  differ by 2 or more, 2 to 1 when they differ by 1. A one-point gap is one reference judged one
  grade apart, the disagreement CSFCube's own two annotators show on 30% of their judgments (two
  grades or more: 6%); a wider gap is taken as clear to every expert. The 2:1 pairs are what sets
  Weighted apart from Origin (there a right answer earns 2/3 and a wrong one 1/3); 140 of the 428
  eligible pairs are 2:1.
- **Target**: the majority side, "A" or "B". Equal levels make no pair, so no gold tie exists.

A sample: the input names both projects by title and asks which is more duplicated (A or B);
the metadata holds per side (`a`, `b`) the `query_id`, the `query` (id, title, text), its
`refs` (id, title, text each, in gold order), their `grades` and the `level`, and the expert
`votes` [A, B]. The sample id is "<qid A>-vs-<qid B>".
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset

from ..engine.checks import OptionError, integer, optional
from ..scorers.pd3 import dup_pairwise
from ..solvers import pd3_feedback
from ._bench import check_choice, data_path_option, viewed_task
from ._options import only_its_options
from ._pd3_data import MAX_PAIRS, draw_pairs, eligible, graded, load, pair_sample
from .project_dedup import variant_option

RETRIEVALS = ("human", "method")


@task
@only_its_options
def project_dup_pairs(
    data_path: str | None = None,
    variant: str | None = None,
    pairs: int | None = 100,
    seed: int = 42,
    retrieval: str = "human",
) -> Task:
    """PD³ Task 2: which of two projects its references duplicate more (3 expert votes).

    Args:
        data_path: a local directory with corpus.jsonl and queries.jsonl, every query graded
            (offline use), e.g. the shared csfcube_pd3/hard.
        variant: hard or random: which built benchmark's gold gives the references (CC BY-NC
            4.0); null: hard. Not with data_path.
        pairs: how many pairs to draw (1 to 1000, at most the eligible pairs; null: all the
            eligible pairs, in a seeded order).
        seed: the seed of the draw.
        retrieval: human (each side's references are its gold top 5, the paper's Human
            Retrieval) or method (each side gives its 30 candidates and the method retrieves its
            own top 5, the paper's Method Retrieval).
    """
    check_choice("retrieval", retrieval, RETRIEVALS)
    wanted = optional(integer, "pairs", pairs, 1, MAX_PAIRS, null="all eligible", kind="task")
    integer("seed", seed, None, kind="task")
    local = data_path_option(data_path)
    variant = variant_option(variant, local)
    loaded = load(local, variant)
    queries = loaded.bench.queries
    graded(queries, loaded.source)
    available = len(eligible(queries))
    if wanted is not None and wanted > available:
        raise OptionError(
            "pairs",
            wanted,
            f"at most {available} (the pairs of {loaded.source} whose levels differ), or null",
            "task",
        )
    drawn = draw_pairs(queries, available if wanted is None else wanted, seed)
    return viewed_task(
        [*dup_pairwise()],
        dataset=MemoryDataset(
            [pair_sample(loaded.bench, p, retrieval) for p in drawn], name="project_dup_pairs"
        ),
        solver=pd3_feedback(),
        metadata={
            **loaded.metadata(),
            "pairs": len(drawn),
            "eligible_pairs": available,
            "split_votes": sum(1 in p.votes for p in drawn),
            "seed": seed,
            "retrieval": retrieval,
        },
        version=1,
    )

"""MT-Bench human judgments (Zheng et al., 2023): which of two answers is better, by human experts.

Each sample is a question (the input), two models' answers (metadata `answer_a`, `answer_b`) and
the human verdict as the target: A, B or tie. The judge solvers (`samre` by default, `more`,
`single_judge`) give a verdict; `judge_agreement` scores it against the people. Every other solver
judges too: the task's setup turns the sample into a two-choice question that shows both answers
(choice A: Answer A, B: Answer B, and C: tie when gold ties are kept), and its output letter is the
verdict.

Gold ties are kept apart, never folded into B: `ties=drop` (default) leaves them out and records
how many in the task metadata; `ties=keep` keeps them as 3-class targets, right only for a tie.
The public source publishes no revision to pin: without `revision` the Hub's current commit is
resolved first, loaded exactly, and recorded in the task metadata.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.solver import Solver, prompt_template

from ..engine.checks import optional, text
from ..engine.content import Question, text_of
from ..engine.methods.d3.court import Pair
from ..scorers.judge_metrics import CHOICES, judge_agreement, verdict_stats
from ..solvers import samre
from ._bench import (
    check_choice,
    data_path_option,
    id_field,
    names_option,
    subset_option,
    viewed_task,
)
from ._data import hf_records, hf_revision, read_records
from ._options import only_its_options

HF_PATH = "lmsys/mt_bench_human_judgments"
HF_SPLIT = "human"
TIES = ("drop", "keep")
LABELS = {"a": "A", "b": "B", "tie": "tie"}
PASSED_ON = ("model_a", "model_b", "question_id", "turn", "category")
# MT-Bench's 80 questions, ids 81 to 160, ten per category in this order (its question.jsonl)
CATEGORIES = ("writing", "roleplay", "reasoning", "math", "coding", "extraction", "stem",
              "humanities")  # fmt: skip
FIRST_ID = 81


def category_of(record: dict[str, Any]) -> str | None:
    """The MT-Bench category of a record: its own `category` when it is one, else read from its
    `question_id`; None when neither says."""
    given = record.get("category")
    if isinstance(given, str) and given in CATEGORIES:
        return given
    qid = record.get("question_id")
    if type(qid) is int and 0 <= qid - FIRST_ID < 10 * len(CATEGORIES):
        return CATEGORIES[(qid - FIRST_ID) // 10]
    return None


def local_sample(record: dict[str, Any], where: str, n: int) -> Sample:
    """A record in the shared file format: `question`, `answer_a`, `answer_b`, `label` (A/B/tie)."""
    for name in ("question", "answer_a", "answer_b"):
        value = record.get(name)
        if not isinstance(value, str) or not value.strip():
            raise ValueError(f"{where}: '{name}' must be a non-empty string")
    label = str(record.get("label", "")).strip().lower()
    if label not in LABELS:
        raise ValueError(f"{where}: 'label' must be A, B or tie, got {record.get('label')!r}")
    return Sample(
        id=id_field(record, "row", where, n),
        input=record["question"],
        target=LABELS[label],
        metadata={
            "answer_a": record["answer_a"],
            "answer_b": record["answer_b"],
            **{k: record[k] for k in PASSED_ON if k in record},
            "category": category_of(record),
        },
    )


def setup(ties: str) -> Solver:
    """The two-choice question the answer-producing solvers see; the judge solvers read the question
    (the sample input) and the two answers from the sample itself."""
    shown = text_of(Pair(Question.of(["{prompt}"]), "{answer_a}", "{answer_b}").blocks())
    tie = " If neither is better, choose tie." if ties == "keep" else ""
    return prompt_template(
        "Which of the two answers below responds better to the question? Judge the answers "
        "themselves: neither their order nor their length is a merit." + tie + "\n\n" + shown
    )


def with_choices(sample: Sample, ties: str) -> Sample:
    sample.choices = list(CHOICES if ties == "keep" else CHOICES[:2])
    return sample


def _turns(texts: list[str]) -> str:
    if len(texts) == 1:
        return texts[0]
    return "\n\n".join(f"Turn {i}: {text}" for i, text in enumerate(texts, 1))


def hub_sample(row: dict[str, Any], n: int) -> Sample:
    """A row of the Hub dataset: the conversation up to the judged turn, each turn labelled."""
    turn = int(row["turn"])

    def said(conversation: str, role: str) -> str:
        return _turns([m["content"] for m in row[conversation] if m["role"] == role][:turn])

    winner = row["winner"]
    return Sample(
        id=n,
        input=said("conversation_a", "user"),
        target="tie" if winner.startswith("tie") else {"model_a": "A", "model_b": "B"}[winner],
        metadata={
            "answer_a": said("conversation_a", "assistant"),
            "answer_b": said("conversation_b", "assistant"),
            "model_a": row["model_a"],
            "model_b": row["model_b"],
            "question_id": row["question_id"],
            "category": category_of(row),
            "turn": turn,
            "annotator": row["judge"],
            "winner": winner,
        },
    )


def in_categories(samples: list[Sample], categories: tuple[str, ...], source: str) -> list[Sample]:
    """The samples of those categories; a ValueError when a sample's category is unknown (a local
    file without question ids), since leaving it out would bias the split."""
    unknown = [s.id for s in samples if (s.metadata or {}).get("category") is None]
    if unknown:
        raise ValueError(
            f"-T category: {len(unknown)} pairs of {source} have no question_id or category "
            f"(the first: {unknown[0]}), so they cannot be split by category; use category=all"
        )
    return [s for s in samples if (s.metadata or {})["category"] in categories]


@task
@only_its_options
def mt_bench_judge(
    data_path: str | None = None,
    ties: str = "drop",
    revision: str | None = None,
    shuffle: bool = False,
    seed: int = 42,
    subset: int | None = None,
    category: str | list[str] = "all",
) -> Task:
    """Pairwise MT-Bench human judgments for judges.

    Args:
        data_path: a local JSON/JSONL file with `question`, `answer_a`, `answer_b` and `label`
            (A, B or tie), e.g. the shared mt_bench_human/pairs.jsonl (offline use).
        ties: drop (leave gold ties out, counted in the task metadata) or keep (3-class).
        revision: a commit of the Hub dataset to load (default: the current one, recorded).
        shuffle: shuffle the pairs with `seed` before taking the subset.
        seed: the shuffle seed.
        subset: keep only this many pairs.
        category: all, or the MT-Bench categories to keep (a list or comma-separated: writing,
            roleplay, reasoning, math, coding, extraction, stem, humanities), read from each
            pair's question id (a local file needs `question_id` or `category`).
    """
    check_choice("ties", ties, TIES)
    categories = names_option("category", category, CATEGORIES)
    optional(text, "revision", revision, null="the Hub's current commit", kind="task")
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    if local is None:
        revision = revision or hf_revision(HF_PATH)
        rows = hf_records(HF_PATH, HF_SPLIT, revision=revision)
        samples = [hub_sample(row, n) for n, row in enumerate(rows, 1)]
        source = f"https://huggingface.co/datasets/{HF_PATH} ({HF_SPLIT}, revision {revision})"
    else:
        records = read_records(local)
        samples = [local_sample(r, f"{local}: record {n}", n) for n, r in enumerate(records, 1)]
        source = local
    if categories != CATEGORIES:
        samples = in_categories(samples, categories, source)
    gold_ties = sum(s.target == "tie" for s in samples)
    if ties == "drop":
        samples = [s for s in samples if s.target != "tie"]
    samples = [with_choices(s, ties) for s in samples]
    return viewed_task(
        [judge_agreement(), *verdict_stats()],
        dataset=MemoryDataset(chosen.take(samples, source), name="mt_bench_judge"),
        setup=setup(ties),
        solver=samre(),
        metadata={
            "source": source,
            "revision": revision,
            "ties": ties,
            "gold_ties": gold_ties,
            "categories": list(categories),
        },
        version=1,
    )

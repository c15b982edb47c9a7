"""LongBench (Bai et al., 2023): long-context understanding, the 16 English datasets of its six
categories, each scored by LongBench's own metric (`scorers/longbench.py`) with M-Avg, the mean over
the categories, as CortexDebate reports it.

Each sample's input is one user message of two text parts: the document (after a line saying what
it is) and the question with its instruction. The debate methods send the question's parts once in
every call, so each call holds the document exactly once (tests/test_tasks_longbench.py counts
it). Answers are free text (answer format `text`): a summary or a line of code is read from the
reply's `ANSWER:` line like any answer, so it must fit on that line, at most 1,000 characters
(`MAX_ANSWER_CHARS`); the summary prompts ask for at most 100 words, which leaves room under that
cap for long words (150 would sit at it).

The data is LongBench's `data.zip` on the Hugging Face Hub at a pinned commit, checked against its
sha256, downloaded at run time and unpacked into the cache (the Hub's loader for it is a dataset
script, which `datasets` no longer runs), or a local copy of its per-dataset JSONL files. A record
without a non-empty `context`, a string `input`, a list of non-empty `answers` (and, for `trec`,
its `all_classes`) is skipped and counted (`skipped_records` in the task metadata).
"""

from __future__ import annotations

import logging
import zipfile
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessageUser, ContentText

from ..engine.checks import integer, optional
from ..scorers.longbench import CATEGORIES, DATASETS, longbench_score
from ..solvers import du_debate
from ._bench import (
    Record,
    Subset,
    data_path_option,
    id_field,
    names_option,
    subset_option,
    viewed_task,
)
from ._data import cache_dir, download, pick, read_records
from ._options import only_its_options

logger = logging.getLogger(__name__)

REVISION = "5e628be450b7e67fb7ae6e201bd6d8f7056f7672"
SOURCE_URL = f"https://huggingface.co/datasets/THUDM/LongBench/resolve/{REVISION}/data.zip"
SOURCE_SHA256 = "cb45b11a4133c6bc1d6a44b0f8e701335ff1e543195db1103472e575857f7f64"
PRESETS = {"cortex": 100, "cortex_large": 1000}  # CortexDebate Table 1; Appendix C Table 5
MAX_DOCUMENT_CHARS = 100_000_000
MIN_DOCUMENT_CHARS = 1000
TRUNCATION_MARK = "\n[...]\n"

SUMMARY = " Write the whole summary on one line, in at most 100 words."
CODE = " Write only that line, on one line."
# what the document is (before it), and what to do with it (after it; {input} is the record's input)
PROMPTS: dict[str, tuple[str, str]] = {
    "narrativeqa": (
        "Below is a story, from a novel or a film script.",
        "Answer the question about the story in as few words as you can.\n\nQuestion: {input}",
    ),
    "qasper": (
        "Below is a scientific article.",
        "Answer the question about the article in as few words as you can. If the article does "
        'not answer it, the answer is "unanswerable"; a yes/no question is answered "yes", "no" '
        'or "unanswerable".\n\nQuestion: {input}',
    ),
    "multifieldqa_en": (
        "Below is a document.",
        "Answer the question about the document in as few words as you can.\n\nQuestion: {input}",
    ),
    **dict.fromkeys(
        ("hotpotqa", "2wikimqa", "musique"),
        (
            "Below are several passages.",
            "Answer the question from the passages in as few words as you can.\n\n"
            "Question: {input}",
        ),
    ),
    "gov_report": ("Below is a report by a government agency.", "Summarise the report." + SUMMARY),
    "qmsum": (
        "Below is the transcript of a meeting.",
        "Answer the query about the meeting."
        + SUMMARY.replace("summary", "answer")
        + "\n\nQuery: {input}",
    ),
    "multi_news": ("Below are several news articles.", "Summarise them together." + SUMMARY),
    "trec": (
        "Below are example questions, each with its type.",
        "Give the type of the question below, written as the examples write types.\n\n{input}",
    ),
    "triviaqa": (
        "Below are example passages, each with a question and its answer.",
        "Answer the last question the same way.\n\n{input}",
    ),
    "samsum": (
        "Below are example dialogues, each with its summary.",
        "Summarise the last dialogue the same way, on one line.\n\n{input}",
    ),
    "passage_count": (
        "Below are paragraphs, some of which may repeat others.",
        "How many different paragraphs are there once repeats are removed? Answer with the "
        "number alone.",
    ),
    "passage_retrieval_en": (
        "Below are paragraphs from Wikipedia articles, each numbered.",
        'Which paragraph is the abstract below from? Answer in the form "Paragraph N".\n\n'
        "Abstract: {input}",
    ),
    "lcc": ("Below is a piece of code.", "Write the next line of the code." + CODE),
    "repobench-p": (
        "Below are files of a code repository.",
        "Continue the code below: write its next line." + CODE + "\n\n{input}",
    ),
}


def truncated(context: str, limit: int | None) -> str:
    """The context with its middle cut out to `limit` characters, as LongBench cuts prompts to a
    model's window (it keeps the first and last halves)."""
    if limit is None or len(context) <= limit:
        return context
    head = (limit - len(TRUNCATION_MARK)) // 2
    tail = limit - len(TRUNCATION_MARK) - head
    return context[:head] + TRUNCATION_MARK + context[len(context) - tail :]


def record_to_sample(record: Record, dataset: str, n: int, limit: int | None) -> Sample | None:
    """A sample, or None for a record LongBench's schema does not hold (skipped and counted)."""
    context, question, answers = record.get("context"), record.get("input"), record.get("answers")
    classes = record.get("all_classes")
    golds: list[str] = []
    if isinstance(answers, list) and all(isinstance(a, str) for a in answers):
        golds = list(dict.fromkeys(a.strip() for a in answers if a.strip()))
    if (
        not isinstance(context, str)
        or not context.strip()
        or not isinstance(question, str)
        or not golds
        or (dataset == "trec" and not (isinstance(classes, list) and classes))
    ):
        return None
    try:
        sample_id = id_field(record, "_id", "", f"{dataset}-{n}")
    except ValueError:
        return None
    intro, ask = PROMPTS[dataset]
    document = truncated(context, limit)
    return Sample(
        id=sample_id,
        input=[
            ChatMessageUser(
                content=[
                    ContentText(text=f"{intro}\n\n{document}"),
                    ContentText(text=ask.format(input=question.strip())),
                ]
            )
        ],
        target=golds,
        metadata={
            "answer_format": "text",
            "dataset": dataset,
            "category": DATASETS[dataset].category,
            "metric": DATASETS[dataset].metric,
            "all_classes": classes if dataset == "trec" else None,
            "length": record.get("length"),
            "truncated": limit is not None and len(context) > limit,
        },
    )


def shares(sizes: dict[str, int], total: int) -> dict[str, int]:
    """How many samples each category gives to a draw of `total`: equal shares (the first
    categories one more when `total` does not divide), a category with fewer records giving all it
    has and the others sharing the rest."""
    share = dict.fromkeys(sizes, 0)
    left, open_ = total, [c for c, n in sizes.items() if n > 0]
    while left > 0 and open_:
        each, extra = divmod(left, len(open_))
        for k, c in enumerate(open_):
            share[c] += min(each + (k < extra), sizes[c] - share[c])
        left = total - sum(share.values())
        open_ = [c for c in open_ if share[c] < sizes[c]]
    return share


def stratified(samples: list[Sample], chosen: Subset) -> list[Sample]:
    """A paper's size drawn by category (`shares`), each category's samples shuffled with the
    seed when shuffling, so that M-Avg averages every category CortexDebate reports."""
    pools: dict[str, list[Sample]] = {}
    for s in samples:
        pools.setdefault(str((s.metadata or {})["category"]), []).append(s)
    counts = shares({c: len(p) for c, p in pools.items()}, chosen.size or len(samples))
    return [s for c, p in pools.items() for s in pick(p, chosen.shuffle, chosen.seed, counts[c])]


def unpacked() -> Path:
    """The pinned data.zip's folder of per-dataset JSONL files, downloaded and unpacked once (the
    English datasets' files only: the archive also holds Chinese and LongBench-E ones)."""
    folder = cache_dir() / "longbench" / REVISION
    if not (folder / "data").is_dir():
        archive = download(SOURCE_URL, f"longbench/{REVISION}/data.zip", SOURCE_SHA256)
        with zipfile.ZipFile(archive) as zipped:
            members = set(zipped.namelist())
            for name in DATASETS:
                if f"data/{name}.jsonl" in members:
                    zipped.extract(f"data/{name}.jsonl", folder / "unpacking")
        (folder / "unpacking" / "data").replace(folder / "data")
    return folder / "data"


@task
@only_its_options
def longbench(
    data_path: str | None = None,
    categories: str | list[str] = "all",
    limit_per_dataset: int | None = None,
    max_document_chars: int | None = None,
    subset: int | str | None = None,
    shuffle: bool | None = None,
    seed: int = 42,
) -> Task:
    """LongBench's English datasets, by category, scored by LongBench's metrics and M-Avg.

    Args:
        data_path: a local folder of LongBench's per-dataset JSONL files (`narrativeqa.jsonl`,
            ..., as in the unpacked data.zip); datasets without a file are left out.
        categories: all, or some of single_doc_qa, multi_doc_qa, summarization, few_shot,
            synthetic, code (a list, or names separated by commas).
        limit_per_dataset: keep this many records of each dataset (after shuffling, if shuffled).
        max_document_chars: cut each document's middle out down to this many characters, as
            LongBench does for a model's window (default: no cut).
        subset: keep this many samples in all, or a paper's size: cortex (100) or cortex_large
            (1000), drawn in equal shares of the chosen categories.
        shuffle: shuffle with `seed` before taking the subsets (default: only for a paper's size).
        seed: the shuffle seed.
    """
    chosen = subset_option(subset, shuffle, seed, PRESETS)
    wanted = names_option("categories", categories, CATEGORIES)
    per_dataset = optional(integer, "limit_per_dataset", limit_per_dataset, 1, kind="task",
                           null="every record")  # fmt: skip
    limit = optional(integer, "max_document_chars", max_document_chars, MIN_DOCUMENT_CHARS,
                     MAX_DOCUMENT_CHARS, kind="task", null="no cut")  # fmt: skip
    local = data_path_option(data_path)
    folder = Path(local) if local is not None else unpacked()
    if not folder.is_dir():
        raise FileNotFoundError(f"data_path {str(folder)!r} is not a folder of LongBench files")
    if not any((folder / f"{dataset}.jsonl").is_file() for dataset in DATASETS):
        raise ValueError(
            f"task option 'data_path': {str(folder)!r} holds no LongBench file (narrativeqa.jsonl, "
            "..., as in the unpacked data.zip)"
        )
    samples: list[Sample] = []
    counts: dict[str, int] = {}
    skipped: dict[str, int] = {}
    for dataset, info in DATASETS.items():
        path = folder / f"{dataset}.jsonl"
        if info.category not in wanted or not path.is_file():
            continue
        read = [record_to_sample(r, dataset, n, limit) for n, r in enumerate(read_records(path), 1)]
        kept = [s for s in read if s is not None]
        counts[dataset], skipped[dataset] = len(kept), len(read) - len(kept)
        samples += pick(kept, chosen.shuffle, chosen.seed, per_dataset)
    if not samples:
        raise ValueError(
            f"task option 'categories': {folder} has no LongBench record of {', '.join(wanted)}"
        )
    source = local or f"{SOURCE_URL} (sha256 {SOURCE_SHA256})"
    taken = chosen.take(stratified(samples, chosen) if chosen.preset else samples, source)
    drawn = {c: sum((s.metadata or {})["category"] == c for s in taken) for c in wanted}
    if missing := [c for c, n in drawn.items() if n == 0]:
        logger.warning(
            f"longbench: no sample of {', '.join(missing)}; m_avg is the mean over the other "
            "categories"
        )
    return viewed_task(
        [longbench_score()],
        dataset=MemoryDataset(taken, name="longbench"),
        solver=du_debate(),
        metadata={
            "source": source,
            "categories": list(wanted),
            "records": counts,
            "skipped_records": skipped,
            "limit_per_dataset": per_dataset,
            "max_document_chars": limit,
            "samples_per_category": drawn,
            "truncated_documents": sum(bool((s.metadata or {})["truncated"]) for s in taken),
            **chosen.metadata(),
        },
        version=1,
    )

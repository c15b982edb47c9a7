"""Tree-of-Debate's paper pairs (Kargupta et al., 2025): compare two scientific papers on a topic.

Each sample is one pair from the authors' dataset: the input is the pair's short topic, the
metadata holds both papers (title, abstract, introduction, link) and the pair's labels (kind:
"method", same task with different methods, or "task", different tasks with a similar method;
cited: whether the papers cite each other). There is no gold summary (the paper rated summaries
by hand): the scorers are LLM judges of the paper's criteria and the tree's own statistics.

The full texts are PDFs the reference downloads and extracts; offline they are out of reach, so
each paper is read from its title, abstract and introduction (`text_source` says so).

The file is the upstream TSV at a pinned commit, checked against its sha256, downloaded at run
time and never shipped (the texts belong to the papers' authors). It is read by its header
names. Its bare carriage returns (3, inside fields of 2 rows) would end rows early, so each
becomes a space before the rows are split; a row that still has the wrong number of fields, an
empty topic, title or abstract, or a label other than 0 or 1 is skipped and counted
(`skipped_rows` in the task metadata). The upstream file gives 99 pairs, none skipped.
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample

from ..scorers.tod import tod_judge, tod_pairwise
from ..solvers import tree_of_debate
from ._bench import check_choice, data_path_option, subset_option, viewed_task
from ._data import download, read_text
from ._options import only_its_options

SOURCE_COMMIT = "e2a311f23cd8d6fc8ffc94e5dc4312a7661490a9"
SOURCE_URL = (
    "https://raw.githubusercontent.com/pkargupta/tree-of-debate/"
    f"{SOURCE_COMMIT}/dataset/tree_of_debate_dataset.tsv"
)
SOURCE_SHA256 = "4ff5d15771510e880d4f58f1747eb79ff5b5bc96495573a57e32135ca8c9a58b"

KINDS = ("all", "method", "task")
CITED = ("all", "yes", "no")

# the upstream header; each column is found by its name (spaces and case do not matter)
COLUMNS = {
    "topic": "Topic",
    "a.url": "Paper #1 arXiv Link",
    "a.title": "Paper #1 Title",
    "a.abstract": "Paper #1 Abstract",
    "a.introduction": "Paper #1 Introduction",
    "b.url": "Paper #2 arXiv Link",
    "b.title": "Paper #2 Title",
    "b.abstract": "Paper #2 Abstract",
    "b.introduction": "Paper #2 Introduction",
    "method_or_task": "Method (0) or Task (1)",
    "cited": "No Cite (0) or Cite (1)",
}
REQUIRED = ("topic", "a.title", "a.abstract", "b.title", "b.abstract")


@dataclass(frozen=True)
class Pairs:
    """The pairs a file gives, in file order, and how many of its rows were skipped."""

    samples: list[Sample]
    skipped: int


def repair(text: str) -> str:
    """Each bare carriage return (one not followed by a line feed) becomes a space, since a CSV
    reader takes it for the end of a row."""
    return text.replace("\r\n", "\n").replace("\r", " ")


def _name(header: str) -> str:
    return " ".join(header.split()).lower()


def parse_pairs(text: str, where: str) -> Pairs:
    """The pairs of the dataset's TSV text (tab-separated, CSV quoting, a header row); `where`
    names the file in errors. A missing column or a row too large to read is an error; a bad
    row is skipped and counted (see the module docstring). Sample ids are "tod-<n>", n the row's
    1-based place after the header. Bare carriage returns are not repaired here: see `repair`."""
    rows = csv.reader(io.StringIO(text.removeprefix("\ufeff"), newline=""), delimiter="\t")
    try:
        header = next(rows, [])
        names = [_name(h) for h in header]
        missing = [name for name in COLUMNS.values() if _name(name) not in names]
        if missing:
            raise ValueError(
                f"{where}: the header has no column {', '.join(map(repr, missing))}; expected the "
                f"Tree-of-Debate dataset's columns: {', '.join(COLUMNS.values())}"
            )
        index = {key: names.index(_name(name)) for key, name in COLUMNS.items()}
        samples: list[Sample] = []
        skipped = 0
        for n, row in enumerate(rows, 1):
            if not any(field.strip() for field in row):
                continue  # a blank line
            sample = _sample(row, len(header), index, n)
            if sample is None:
                skipped += 1
            else:
                samples.append(sample)
    except csv.Error as e:  # e.g. an unclosed quote swallowing the rest of the file into a field
        raise ValueError(f"{where}:{rows.line_num}: not readable as TSV ({e})") from None
    return Pairs(samples, skipped)


def _sample(row: list[str], width: int, index: dict[str, int], n: int) -> Sample | None:
    if len(row) != width:
        return None
    field = {key: row[i].strip() for key, i in index.items()}
    labels = field["method_or_task"], field["cited"]
    if not all(field[key] for key in REQUIRED) or not set(labels) <= {"0", "1"}:
        return None
    method_or_task, cited = (int(label) for label in labels)

    def paper(side: str) -> dict[str, str]:
        return {
            "title": field[f"{side}.title"],
            "abstract": field[f"{side}.abstract"],
            "introduction": field[f"{side}.introduction"],
            "full_text": "",
            "url": field[f"{side}.url"],
        }

    return Sample(
        id=f"tod-{n}",
        input=field["topic"],
        target="",
        metadata={
            "topic": field["topic"],
            "paper_a": paper("a"),
            "paper_b": paper("b"),
            "method_or_task": method_or_task,
            "kind": "task" if method_or_task else "method",
            "cited": cited,
            "text_source": "abstract+intro",
        },
    )


def read_pairs(path: str | Path) -> Pairs:
    """The pairs of a TSV file in the dataset's layout, its bare carriage returns repaired."""
    return parse_pairs(repair(read_text(path)), str(path))


def wanted(sample: Sample, kind: str, cited: str) -> bool:
    """Whether a pair is in the `kind` (all, method, task) and `cited` (all, yes, no) subsets."""
    metadata = sample.metadata or {}
    return (kind == "all" or metadata["kind"] == kind) and (
        cited == "all" or metadata["cited"] == (cited == "yes")
    )


def cells(samples: list[Sample]) -> dict[str, int]:
    """Pairs per cell of the paper's Table 1 (method/task × cited or not)."""
    counts = Counter(
        f"{s.metadata['kind']}+{'cite' if s.metadata['cited'] else 'nocite'}"
        for s in samples
        if s.metadata
    )
    return {f"{k}+{c}": counts[f"{k}+{c}"] for k in ("method", "task") for c in ("cite", "nocite")}


@task
@only_its_options
def paper_compare(
    data_path: str | None = None,
    kind: str = "all",
    cited: str = "all",
    shuffle: bool = False,
    seed: int = 42,
    subset: int | None = None,
) -> Task:
    """Tree-of-Debate's scientific paper pairs: a comparative summary of two papers on a topic.

    Args:
        data_path: a local copy of the dataset's TSV (offline use), e.g. the upstream
            dataset/tree_of_debate_dataset.tsv.
        kind: all, method (same task, different methods) or task (different tasks, similar
            methods).
        cited: all, yes (the papers cite each other) or no.
        shuffle: shuffle the pairs with `seed` before taking the subset.
        seed: the shuffle seed.
        subset: keep only this many pairs.
    """
    check_choice("kind", kind, KINDS)
    check_choice("cited", cited, CITED)
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    path: str | Path
    if local is None:
        name = f"tree_of_debate/{SOURCE_COMMIT}/tree_of_debate_dataset.tsv"
        path, source = download(SOURCE_URL, name, SOURCE_SHA256), SOURCE_URL
    else:
        path, source = local, local
    pairs = read_pairs(path)
    samples = [s for s in pairs.samples if wanted(s, kind, cited)]
    if not samples:
        raise ValueError(
            f"task options 'kind' and 'cited': no pair of {source} is kind={kind}, cited={cited} "
            f"(it has {cells(pairs.samples)})"
        )
    return viewed_task(
        [*tod_judge(), *tod_pairwise()],
        dataset=MemoryDataset(chosen.take(samples, source), name="paper_compare"),
        solver=tree_of_debate(),
        metadata={
            "source": source,
            "kind": kind,
            "cited": cited,
            "pairs": len(pairs.samples),
            "skipped_rows": pairs.skipped,
            "cells": cells(pairs.samples),
            "text_source": "abstract+intro",
            **chosen.metadata(),
        },
        version=1,
    )

"""`longbench_score`: LongBench's own metric per dataset (Bai et al., 2023, `metrics.py` and
`eval.py` of THUDM/LongBench), 0 to 1, with the per-category means and M-Avg.

Each sample is scored by its dataset's metric against each reference answer, keeping the best
(LongBench's `scorer`). The metrics, in plain Python, linear in the reply and never raising:

- `qa_f1`: token F1 after SQuAD's normalisation (lower case, no punctuation, no articles); an
  empty side scores 0 (LongBench's `f1_score`).
- `rouge_l`: the `rouge` package's (pltrdy/rouge 1.0.1, which LongBench calls) summary-level
  ROUGE-L F = 2PR / (P + R): each text is split into sentences at every ".", a sentence into
  words at single spaces (its runs of white space made one); for every pair of a reference and a
  predicted sentence one longest common subsequence is rebuilt as the package rebuilds it, and
  the distinct words of all of them together are the overlap; P and R divide it by the distinct
  words of the prediction and of the reference. Each side is cut to its first `MAX_LCS_UNITS`
  words; identical sentences are compared once (the overlap is a set). The LCS tables are
  bit-parallel (`_lcs_steps`), so a pair of sentences of r and c words costs about 3c steps on
  r-bit integers (`lcs_words`); a read answer has at most 1,000 characters (`MAX_ANSWER_CHARS`).
  Deviation: the package rebuilds the LCS recursively, which fails (LongBench scores 0) once two
  sentences have about 1,000 words together; here they are scored.
- `classification`: the share the gold class has among the class names found in the prediction,
  after dropping those that are part of the gold name, with LongBench's `classification_score`
  loop exactly (it removes from the list it walks, so the entry after a removed one is kept).
- `count`, `retrieval`: the share of the numbers in the prediction that are the gold count, or the
  gold paragraph's number (`Paragraph N`); no number scores 0.
- `code_sim`: the first line without a backtick, `#` or `//`, compared with the reference by
  character edit similarity (`fuzz.ratio`: 2 x LCS / total length, rounded to a whole percent;
  an empty side scores 0). Deviation: both sides are compared with their runs of white space made
  one space and no indentation, since the answer line the readers take loses its indentation.

Few-shot datasets (`trec`, `triviaqa`, `samsum`) score the prediction's first line, as LongBench
does. An output with no readable answer scores 0. The metric `longbench_means` reports each
category's mean over its datasets' means, and `m_avg`, the mean over the categories present
(CortexDebate's M-Avg); a category the run has no sample of is left out.
"""

from __future__ import annotations

import re
import statistics
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Sequence
from dataclasses import dataclass

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from ..engine.answers import FreeText
from .squad import normalize

MAX_LCS_UNITS = 10_000  # tokens (ROUGE-L) or characters (code) kept of each side
CATEGORIES = ("single_doc_qa", "multi_doc_qa", "summarization", "few_shot", "synthetic", "code")
FIRST_LINE = ("trec", "triviaqa", "samsum")  # LongBench scores their first line only
_DIGITS = re.compile(r"[0-9]+")
_PARAGRAPH = re.compile(r"Paragraph ([0-9]+)")


def _masks(a: Sequence[Hashable]) -> dict[Hashable, int]:
    """For each item of `a`, the bits of the positions it holds."""
    masks: dict[Hashable, int] = {}
    for i, item in enumerate(a):
        masks[item] = masks.get(item, 0) | (1 << i)
    return masks


def _lcs_steps(masks: dict[Hashable, int], size: int, b: Sequence[Hashable]) -> Iterator[int]:
    """The LCS table of `a` (`size` items, `masks` from `_masks(a)`) and `b`, bit-parallel
    (Hyyrö 2004), one column per item of `b`: the j-th integer (from 0, before any item) has bit i
    clear where LCS(a[:i + 1], b[:j]) is one more than LCS(a[:i], b[:j]), so LCS(a[:i], b[:j]) is
    i minus its set bits below bit i. Each step is a few operations on a `size`-bit integer."""
    full = (1 << size) - 1
    v = full
    yield v
    for item in b:
        u = v & masks.get(item, 0)
        v = ((v + u) | (v - u)) & full
        yield v


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """The length of a longest common subsequence, in one pass over `b`."""
    *_, last = _lcs_steps(_masks(a), len(a), b)
    return len(a) - last.bit_count()


def lcs_words(a: Sequence[str], masks: dict[Hashable, int], b: Sequence[str]) -> set[str]:
    """The words of the one LCS of `a` (a reference sentence; `masks` is `_masks(a)`) and `b`
    that the `rouge` package's `_recon_lcs` rebuilds: from the end, a match is taken, else the
    shorter prefix of `a` is followed only when its table entry is larger than the shorter prefix
    of `b`'s. Steps up a column are taken at once, up to the next match or the next row where
    the column grows, so there are at most 2 len(b) + 1 steps."""
    rows = list(_lcs_steps(masks, len(a), b))

    def table(i: int, j: int) -> int:
        return i - (rows[j] & ((1 << i) - 1)).bit_count()

    words: set[str] = set()
    i, j = len(a), len(b)
    while i and j:
        if a[i - 1] == b[j - 1]:
            words.add(a[i - 1])
            i, j = i - 1, j - 1
        elif table(i - 1, j) > table(i, j - 1):
            # going up keeps both entries compared, so it goes on past every row that neither
            # matches b[j - 1] nor makes the column grow
            stops = ~rows[j] | masks.get(b[j - 1], 0)
            i = (stops & ((1 << (i - 1)) - 1)).bit_length()
        else:
            j -= 1
    return words


def qa_f1(prediction: str, gold: str) -> float:
    pred, ref = normalize(prediction).split(), normalize(gold).split()
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def _sentences(text: str) -> list[tuple[str, ...]]:
    """The `rouge` package's sentences of a text (split at ".", empty pieces dropped) as words,
    the distinct sentences of its first `MAX_LCS_UNITS` words."""
    kept: dict[tuple[str, ...], None] = {}
    budget = MAX_LCS_UNITS
    for piece in text.split("."):
        if piece and budget > 0:
            # a blank piece is one empty word, as the package splits " ".join([]) at " "
            words = tuple(" ".join(piece.split()).split(" ")[:budget])
            budget -= len(words)
            kept[words] = None
    return list(kept)


def rouge_l(prediction: str, gold: str) -> float:
    predicted, reference = _sentences(prediction), _sentences(gold)
    if not predicted or not reference:
        return 0.0  # the package raises on an empty side; LongBench scores 0
    overlap: set[str] = set()
    for r in reference:
        shared, masks = set(r), _masks(r)
        for c in predicted:
            if not shared.isdisjoint(c):
                overlap |= lcs_words(r, masks, c)
    if not overlap:
        return 0.0
    precision = len(overlap) / len({w for c in predicted for w in c})
    recall = len(overlap) / len({w for r in reference for w in r})
    return 2 * precision * recall / (precision + recall + 1e-8)  # the package's 1e-8


def classification(prediction: str, gold: str, classes: Sequence[str]) -> float:
    found = [c for c in classes if c in prediction]
    i = 0
    while i < len(found):  # LongBench's `for term in found: ... found.remove(term)`, step by step
        term = found[i]
        if term in gold and term != gold:
            found.remove(term)
        i += 1
    return 1 / len(found) if gold in found else 0.0


def _number_share(prediction: str, wanted: str) -> float:
    numbers = _DIGITS.findall(prediction)
    return sum(n == wanted for n in numbers) / len(numbers) if numbers else 0.0


def count(prediction: str, gold: str) -> float:
    return _number_share(prediction, gold.strip())


def retrieval(prediction: str, gold: str) -> float:
    m = _PARAGRAPH.search(gold)
    return _number_share(prediction, m.group(1)) if m else 0.0


def code_sim(prediction: str, gold: str) -> float:
    line = next(
        (s for s in prediction.lstrip("\n").split("\n") if not ("`" in s or "#" in s or "//" in s)),
        "",
    )
    a = " ".join(line.split())[:MAX_LCS_UNITS]
    b = " ".join(gold.split())[:MAX_LCS_UNITS]
    if not a or not b:
        return 0.0
    return round(100 * 2 * lcs_length(a, b) / (len(a) + len(b))) / 100


@dataclass(frozen=True)
class Dataset:
    category: str
    metric: str


DATASETS = {
    "narrativeqa": Dataset("single_doc_qa", "qa_f1"),
    "qasper": Dataset("single_doc_qa", "qa_f1"),
    "multifieldqa_en": Dataset("single_doc_qa", "qa_f1"),
    "hotpotqa": Dataset("multi_doc_qa", "qa_f1"),
    "2wikimqa": Dataset("multi_doc_qa", "qa_f1"),
    "musique": Dataset("multi_doc_qa", "qa_f1"),
    "gov_report": Dataset("summarization", "rouge_l"),
    "qmsum": Dataset("summarization", "rouge_l"),
    "multi_news": Dataset("summarization", "rouge_l"),
    "trec": Dataset("few_shot", "classification"),
    "triviaqa": Dataset("few_shot", "qa_f1"),
    "samsum": Dataset("few_shot", "rouge_l"),
    "passage_count": Dataset("synthetic", "count"),
    "passage_retrieval_en": Dataset("synthetic", "retrieval"),
    "lcc": Dataset("code", "code_sim"),
    "repobench-p": Dataset("code", "code_sim"),
}
METRICS: dict[str, Callable[[str, str], float]] = {
    "qa_f1": qa_f1,
    "rouge_l": rouge_l,
    "count": count,
    "retrieval": retrieval,
    "code_sim": code_sim,
}


def dataset_score(
    dataset: str, prediction: str, golds: Sequence[str], classes: Sequence[str]
) -> float:
    """The best score of the prediction over the references, by the dataset's metric."""
    if dataset in FIRST_LINE:
        prediction = prediction.lstrip("\n").split("\n", 1)[0]
    name = DATASETS[dataset].metric
    if name == "classification":
        return max((classification(prediction, g, classes) for g in golds), default=0.0)
    return max((METRICS[name](prediction, g) for g in golds), default=0.0)


@metric
def longbench_means() -> Metric:
    """Each category's mean over its datasets' means, and `m_avg`, the mean over the categories
    present (read from the score metadata `dataset`). The datasets' own means are left to the
    samples' scores (their metadata names the dataset), so the viewer's row stays readable."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        by_dataset: dict[str, list[float]] = {}
        for s in scores:
            dataset = (s.score.metadata or {}).get("dataset")
            if dataset in DATASETS:
                by_dataset.setdefault(dataset, []).append(s.score.as_float())
        means = {name: statistics.mean(v) for name, v in by_dataset.items()}
        categories = {
            c: statistics.mean(found)
            for c in CATEGORIES
            if (found := [v for d, v in means.items() if DATASETS[d].category == c])
        }
        if not categories:
            return {}
        return {**categories, "m_avg": statistics.mean(categories.values())}

    return compute


@scorer(metrics=[mean(), stderr(), longbench_means()])
def longbench_score() -> Scorer:
    """LongBench's metric of the sample's dataset (0-1), with each dataset's and each category's
    mean and M-Avg, the mean over the categories."""

    async def score(state: TaskState, target: Target) -> Score:
        metadata = state.metadata or {}
        dataset = str(metadata.get("dataset"))
        if dataset not in DATASETS:
            raise ValueError(
                f"longbench_score: the sample's dataset {dataset!r} is no LongBench dataset"
            )
        prediction = FreeText().extract(state.output.completion)
        golds = list(target.target)
        classes = [c for c in metadata.get("all_classes") or [] if isinstance(c, str)]
        value = 0.0 if prediction is None else dataset_score(dataset, prediction, golds, classes)
        return Score(
            value=value,
            answer=prediction or "",
            explanation=(
                "no answer could be read from the output (scored 0)"
                if prediction is None
                else f"{DATASETS[dataset].metric} of {prediction!r:.200} against "
                f"{' | '.join(golds)!r:.200}"
            ),
            metadata={"dataset": dataset, "category": DATASETS[dataset].category},
        )

    return score

"""Retrieval over a text's chunks: the chunks a retriever may return, their ranking into hits
(`Evidence`), the offline lexical retriever (BM25) and ROUGE-L. Tree-of-Debate retrieves its
papers' excerpts with BM25; PD³'s lexical floors rank candidates with BM25 and ROUGE-L."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Evidence:
    """A retrieved chunk: its 1-based id in the hits shown to a model, its chunk's index in the
    text and the retriever's score."""

    id: int
    chunk: int
    text: str
    score: float


class Retriever(Protocol):
    @property
    def size(self) -> int:
        """How many chunks it can return (retrievable, each text once)."""
        ...

    def search(self, query: str, k: int) -> list[Evidence]:
        """The `k` best chunks for `query`, best first (ties by chunk order), ids 1..k."""
        ...


# -- text ---------------------------------------------------------------------------------------


def retrievable(chunks: Sequence[str], min_chars: int) -> list[int]:
    """Indices of the chunks a retriever may return: those longer than `min_chars` (the
    reference skips chunks of at most 150 characters at query time)."""
    return [i for i, c in enumerate(chunks) if len(c) > min_chars]


def pooled(chunks: Sequence[str], min_chars: int) -> list[int]:
    """The retrievable chunks, each text once (at its first index): the reference keys its
    embeddings by chunk text, so duplicates collapse."""
    first: dict[str, int] = {}
    for i in retrievable(chunks, min_chars):
        first.setdefault(chunks[i], i)
    return sorted(first.values())


def ranked(
    chunks: Sequence[str], pool: Sequence[int], scores: Sequence[float], k: int
) -> list[Evidence]:
    """The `k` best of the pool, by score and then chunk index, as evidence ids 1..k."""
    order = sorted(range(len(pool)), key=lambda j: (-scores[j], pool[j]))[: max(k, 0)]
    return [
        Evidence(id=rank, chunk=pool[j], text=chunks[pool[j]], score=float(scores[j]))
        for rank, j in enumerate(order, 1)
    ]


def _terms(texts: list[str]) -> list[list[str]]:
    import bm25s

    tokens = bm25s.tokenize(texts, stopwords="en", return_ids=False, show_progress=False)
    return [list(t) for t in tokens]


class LexicalRetriever:
    """BM25 (the `bm25s` library, its Lucene variant; lower-cased words, English stop words, no
    stemming) over a paper's retrievable chunks: offline and deterministic."""

    def __init__(self, chunks: Sequence[str], min_chars: int) -> None:
        import bm25s

        self._chunks = list(chunks)
        self._pool = pooled(self._chunks, min_chars)
        corpus = _terms([self._chunks[i] for i in self._pool])
        self._bm25: bm25s.BM25 | None = None
        if any(corpus):  # bm25s cannot index a corpus without a single term
            self._bm25 = bm25s.BM25()
            self._bm25.index(corpus, show_progress=False)

    @property
    def size(self) -> int:
        return len(self._pool)

    def search(self, query: str, k: int) -> list[Evidence]:
        terms = _terms([query])[0]
        scores: Sequence[float] = [0.0] * len(self._pool)
        if self._bm25 is not None and terms:
            scores = self._bm25.get_scores(terms).tolist()
        return ranked(self._chunks, self._pool, scores, k)


# -- ROUGE-L (Lin 2004): the longest common subsequence of two texts' words -----------------------

_WORD = re.compile(r"\w+")


def words(text: str) -> list[str]:
    """Lower-cased runs of letters and digits, as ROUGE's tokenizer splits a text."""
    return _WORD.findall(text.lower())


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """The length of the longest common subsequence of `a` and `b`, bit-parallel (Allison and
    Dix 1986; Hyyrö 2004): one big-integer step per word of `b`, so two abstracts of a few hundred
    words take milliseconds where the table of the textbook algorithm takes a second."""
    match: dict[str, int] = {}
    for i, word in enumerate(a):
        match[word] = match.get(word, 0) | (1 << i)
    ones = (1 << len(a)) - 1
    v = ones  # a zero bit per matched position of `a`
    for word in b:
        u = v & match.get(word, 0)
        v = ((v + u) | (v - u)) & ones
    return len(a) - v.bit_count()


def rouge_l(a: str, b: str) -> float:
    """ROUGE-L's F1 of two texts (symmetric): the harmonic mean of the LCS's share of each
    text's words; 0 when either has none."""
    x, y = words(a), words(b)
    common = lcs_length(x, y)
    return 0.0 if common == 0 else 2 * common / (len(x) + len(y))

"""The two papers of a Tree-of-Debate sample, their text in chunks, and the retrievers over them."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ...content import Question
from ...retrieval import Evidence, LexicalRetriever, Retriever, pooled, ranked

if TYPE_CHECKING:
    from .options import TreeOptions


@dataclass(frozen=True)
class Paper:
    """One paper as a sample gives it. The full text is rarely at hand (the reference downloads
    PDFs): without it the paper is read from its title, abstract and introduction."""

    title: str
    abstract: str
    introduction: str = ""
    full_text: str = ""
    url: str = ""

    @property
    def source(self) -> str:
        """What the paper's text is read from: "full_text" or "abstract+intro"."""
        return "full_text" if self.full_text.strip() else "abstract+intro"

    @property
    def text(self) -> str:
        """The text chunked for retrieval."""
        if self.full_text.strip():
            return self.full_text
        return "\n\n".join(t for t in (self.title, self.abstract, self.introduction) if t.strip())


@dataclass(frozen=True)
class PaperPair:
    """What Tree-of-Debate compares: the root topic (the sample's input, every part of it) and the
    papers of Author 0 (the focus) and Author 1."""

    WHAT: ClassVar[str] = "two papers"  # what a sample must carry for a comparison

    topic: Question
    papers: tuple[Paper, Paper]

    def swapped(self) -> PaperPair:
        """The same topic with Author 1's paper as the focus."""
        return PaperPair(self.topic, (self.papers[1], self.papers[0]))


_NUMERIC = frozenset("0123456789.,+-")
_ROMAN = frozenset("ivxlc")


def clean(text: str, cut_at_references: bool = True) -> str:
    """A paper's text as the reference prepares it before chunking: characters that are neither
    printable nor whitespace dropped, lines holding only a number (page and table numbers)
    dropped, everything from the first "References" heading on dropped, whitespace collapsed to
    single spaces. A heading is a line that is just the word, in any case, with an optional
    section number, markdown hashes and colon ("7. REFERENCES:"). The reference cuts at the word
    anywhere, which on one-line texts (the dataset's introductions) can cut mid-sentence; it also
    glues lines under 4 characters to the previous one (a PDF extraction repair), not done here.
    Linear time."""
    kept: list[str] = []
    for line in text.splitlines():
        if not line.isprintable():
            line = "".join(c for c in line if c.isprintable() or c.isspace())
        if cut_at_references and _references_heading(line):
            break
        if not _numeric(line):
            kept.append(line)
    return " ".join(" ".join(kept).split())


def _numeric(line: str) -> bool:
    s = line.strip()
    return any(c.isdigit() for c in s) and set(s) <= _NUMERIC


def _references_heading(line: str) -> bool:
    s = line.strip()
    if len(s) > 40:  # a heading is short; this also bounds the work on a long line
        return False
    s = s.rstrip(":").rstrip()
    if not s.lower().endswith("references"):
        return False
    number = s[: -len("references")].strip().lstrip("#").strip().rstrip(".)")  # "## 7. References"
    return not number or set(number) <= _NUMERIC or set(number.lower()) <= _ROMAN


def chunk(text: str, sentences: int = 3) -> list[str]:
    """The reference's chunks: the text split at ". ", then each run of `sentences` consecutive
    pieces joined again with ". " (no overlap; the last chunk may be shorter). A blank text has
    no chunks."""
    if sentences < 1:
        raise ValueError(f"sentences must be >= 1, got {sentences}")
    if not text.strip():
        return []
    pieces = text.split(". ")
    return [". ".join(pieces[i : i + sentences]) for i in range(0, len(pieces), sentences)]


# -- retrievers ---------------------------------------------------------------------------------


_MODELS: dict[str, Any] = {}
_MODELS_LOCK = threading.Lock()


def _sentence_model(model: str) -> Any:
    """A sentence-transformers model, loaded once per process (the reference reloads it on every
    query)."""
    with _MODELS_LOCK:
        if model not in _MODELS:
            try:
                from sentence_transformers import SentenceTransformer
            except ImportError as e:
                raise ImportError(
                    f"retriever 'bge:{model}' needs sentence-transformers, in the package's "
                    "`embeddings` extra: pip install 'mad-tasks[embeddings]' (or use the "
                    "offline retriever 'lexical')"
                ) from e
            _MODELS[model] = SentenceTransformer(model)
        return _MODELS[model]


class EmbeddingRetriever:
    """A sentence-transformers model (the paper's BAAI/bge-large-en-v1.5, from a local path or a
    hub name): L2-normalised embeddings of the retrievable chunks, ranked by cosine similarity
    to the query, which gets no instruction prefix (as in the reference). The model's own
    configuration gives bge's CLS pooling and 512-token limit."""

    def __init__(self, model: str, chunks: Sequence[str], min_chars: int) -> None:
        import numpy as np

        self._model = _sentence_model(model)
        self._chunks = list(chunks)
        self._pool = pooled(self._chunks, min_chars)
        texts = [self._chunks[i] for i in self._pool]
        self._vectors = (
            np.asarray(self._model.encode(texts, normalize_embeddings=True)) if texts else None
        )

    @property
    def size(self) -> int:
        return len(self._pool)

    def search(self, query: str, k: int) -> list[Evidence]:
        import numpy as np

        if self._vectors is None:
            return []
        q = np.asarray(self._model.encode([query], normalize_embeddings=True))[0]
        return ranked(self._chunks, self._pool, (self._vectors @ q).tolist(), k)


def make_retriever(spec: str, chunks: Sequence[str], min_chars: int) -> Retriever:
    """`lexical` (BM25) or `bge:<local path or hub name>` (sentence-transformers)."""
    kind, _, model = spec.partition(":")
    if spec == "lexical":
        return LexicalRetriever(chunks, min_chars)
    if kind == "bge" and model.strip():
        return EmbeddingRetriever(model.strip(), chunks, min_chars)
    raise ValueError(f"unknown retriever {spec!r}: use lexical or bge:<path or hub name>")


def load_retriever(spec: str) -> None:
    """Load what a retriever needs beyond the text (the embedding model), once per process, so
    that a missing library or model stops the run before its first call."""
    kind, _, model = spec.partition(":")
    if kind == "bge":
        _sentence_model(model.strip())


def retrievers_for(pair: PaperPair, opts: TreeOptions) -> tuple[Retriever, Retriever] | None:
    """Each paper's retriever over its cleaned text in chunks, as the options say; None for the
    No-SD ablation, which retrieves nothing."""
    if not opts.self_deliberation:
        return None
    a, b = (
        make_retriever(
            opts.retriever,
            chunk(clean(paper.text, opts.cut_at_references), opts.chunk_sentences),
            opts.min_chunk_chars,
        )
        for paper in pair.papers
    )
    return a, b


def node_query(title: str, description: str, root: bool) -> str:
    """What a node's self-deliberation retrieves with: the bare topic at the root (whose title
    and description are both the topic), else "title: description." as the reference writes it
    (its period is added even after one the description already has)."""
    return title if root else f"{title}: {description}."


# -- samples -------------------------------------------------------------------------------------


def pair_of_metadata(metadata: Mapping[str, Any], topic: Question) -> PaperPair:
    """The pair a sample describes (`paper_a` is Author 0's): each paper a mapping with a
    non-empty `title` and `abstract`, and optionally `introduction`, `full_text` and `url`
    (text, or null for none). A fault raises ValueError naming the field."""
    return PaperPair(topic, (_paper(metadata, "paper_a"), _paper(metadata, "paper_b")))


def _paper(metadata: Mapping[str, Any], key: str) -> Paper:
    value = metadata.get(key)
    if not isinstance(value, Mapping):
        raise ValueError(
            f"sample metadata '{key}' must be a mapping with the paper's title, abstract, "
            f"introduction, full_text and url, got {type(value).__name__}"
        )
    fields: dict[str, str] = {}
    for name in ("title", "abstract", "introduction", "full_text", "url"):
        field = value.get(name)
        required = name in ("title", "abstract")
        if field is None and not required:
            field = ""
        if not isinstance(field, str) or (required and not field.strip()):
            need = "a non-empty string" if required else "a string or null"
            raise ValueError(f"sample metadata '{key}.{name}' must be {need}, got {field!r:.80}")
        fields[name] = field
    return Paper(**fields)

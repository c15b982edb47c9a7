"""Text embeddings for similarity measures (answer diversity, CortexDebate's intimacy term), and
pair scorers: cross-encoders that score two texts together (PD³'s pretrained rerankers,
CortexDebate's DeTS).

`hashing` needs no download and no network: hashed word and character-trigram counts, L2-normalised.
It measures surface overlap, not meaning; `sentence-transformers` and `openai` measure meaning. As a
pair scorer, `hashing` is the cosine of the two texts' hashing embeddings (the offline stand-in);
`cross-encoder/<model>` is a local sentence-transformers CrossEncoder.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from .checks import OptionError

if TYPE_CHECKING:  # numpy is imported on first use: the Inspect registry imports this module
    import numpy as np

EMBEDDERS = ("hashing", "sentence-transformers", "openai")
PAIR_SCORERS = ("hashing", "cross-encoder/<model>")


class Embedder(Protocol):
    name: str

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        """One L2-normalised row per text."""
        ...


def _normalise_rows(m: np.ndarray) -> np.ndarray:
    import numpy as np

    norms = np.linalg.norm(m, axis=1, keepdims=True)
    return m / np.where(norms == 0, 1.0, norms)


class HashingEmbedder:
    def __init__(self, dim: int = 1024) -> None:
        self.dim = dim
        self.name = f"hashing-{dim}"

    def _features(self, text: str) -> list[str]:
        words = re.findall(r"\w+", text.lower())
        joined = " ".join(words)
        return words + [joined[i : i + 3] for i in range(max(0, len(joined) - 2))]

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        m = np.zeros((len(texts), self.dim))
        for row, text in enumerate(texts):
            for f in self._features(text):
                m[row, zlib.crc32(f.encode()) % self.dim] += 1.0
        return _normalise_rows(m)


class SentenceTransformerEmbedder:
    """A local sentence-transformers model (the papers' SBERT); weights must already be on disk."""

    def __init__(self, model: str = "all-MiniLM-L6-v2") -> None:
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError as e:
            raise ImportError(
                "embedder 'sentence-transformers' needs the package's `embeddings` extra: "
                "pip install 'mad-tasks[embeddings]'"
            ) from e
        self.name = f"sentence-transformers/{model}"
        self._model = SentenceTransformer(model)

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        return _normalise_rows(np.asarray(self._model.encode(list(texts))))


class OpenAIEmbedder:
    def __init__(self, model: str = "text-embedding-3-small") -> None:
        from openai import AsyncOpenAI

        self.name = f"openai/{model}"
        self._model = model
        self._client = AsyncOpenAI()

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        import numpy as np

        response = await self._client.embeddings.create(model=self._model, input=list(texts))
        return _normalise_rows(np.asarray([d.embedding for d in response.data]))


def make_embedder(spec: str) -> Embedder:
    """`hashing`, `sentence-transformers[/<model>]` or `openai[/<model>]`."""
    kind, _, model = spec.partition("/")
    if kind == "hashing":
        return HashingEmbedder(int(model) if model else 1024)
    if kind == "sentence-transformers":
        return SentenceTransformerEmbedder(model or "all-MiniLM-L6-v2")
    if kind == "openai":
        return OpenAIEmbedder(model or "text-embedding-3-small")
    raise ValueError(f"unknown embedder {spec!r}: use one of {', '.join(EMBEDDERS)}")


def load_embedder(spec: str) -> Embedder:
    """`make_embedder`, or the `OptionError` naming `embedder` when it cannot be made here (a
    missing library or model, an API key not set: all one to a user)."""
    try:
        return make_embedder(spec)
    except Exception as e:  # a missing library, model or API key, re-raised as the option's
        raise OptionError("embedder", spec, f"an embedder installed here ({e})") from e


class PairScorer(Protocol):
    name: str

    async def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One score per (first, second) pair, higher for the more related; finite."""
        ...


class HashingPairScorer:
    """The offline stand-in: the cosine of the two texts' hashing embeddings."""

    name = "hashing"

    async def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        vectors = await HashingEmbedder().embed([t for pair in pairs for t in pair])
        return [float(vectors[2 * i] @ vectors[2 * i + 1]) for i in range(len(pairs))]


class CrossEncoderScorer:
    """A local sentence-transformers CrossEncoder (a reranker such as BAAI/bge-reranker-v2-m3,
    an NLI similarity model such as DeTS); its weights must already be on disk. A model that needs
    its own code from the hub (trust_remote_code) is not run."""

    def __init__(self, model: str) -> None:
        try:
            from sentence_transformers import CrossEncoder
        except ImportError as e:
            raise ImportError(
                "a cross-encoder needs the package's `embeddings` extra: "
                "pip install 'mad-tasks[embeddings]'"
            ) from e
        self.name = f"cross-encoder/{model}"
        self._model = CrossEncoder(model)
        # a classifier's column that scores the pair as alike: its "entailment" label (NLI
        # models order their labels differently), else its last
        config = getattr(self._model, "config", None)
        labels = [str(v).lower() for v in dict(getattr(config, "id2label", None) or {}).values()]
        self._column = next((i for i, v in enumerate(labels) if "entail" in v), -1)

    async def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        import numpy as np

        scores = np.asarray(self._model.predict([list(p) for p in pairs]), dtype=float)
        if scores.ndim > 1:  # one logit per class
            scores = scores[:, self._column]
        return [float(x) if np.isfinite(x) else 0.0 for x in scores]


def pair_scorer_spec(option: str, value: Any) -> str:
    """`hashing` or `cross-encoder/<model>` (a model named)."""
    kind, _, model = value.partition("/") if isinstance(value, str) else ("", "", "")
    if value == "hashing" or (kind == "cross-encoder" and model.strip()):
        return str(value)
    raise OptionError(option, value, " or ".join(PAIR_SCORERS))


def load_pair_scorer(option: str, spec: str) -> PairScorer:
    """The pair scorer `spec` names, or the `OptionError` naming `option` when it cannot be made
    here (a missing library or model)."""
    if spec == "hashing":
        return HashingPairScorer()
    try:
        return CrossEncoderScorer(spec.partition("/")[2])
    except Exception as e:  # a missing library or model, re-raised as the option's
        raise OptionError(option, spec, f"a cross-encoder installed here ({e})") from e


def mean_pairwise_cosine(vectors: np.ndarray) -> float | None:
    """Mean cosine over all pairs of (L2-normalised) rows; None with fewer than two rows."""
    import numpy as np

    n = len(vectors)
    if n < 2:
        return None
    sims = vectors @ vectors.T
    return float((sims.sum() - np.trace(sims)) / (n * (n - 1)))

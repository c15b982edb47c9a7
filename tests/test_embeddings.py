import sys

import numpy as np
import pytest

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.embeddings import (
    HashingEmbedder,
    load_pair_scorer,
    make_embedder,
    mean_pairwise_cosine,
    pair_scorer_spec,
)


def test_mean_pairwise_cosine_golden() -> None:
    v = np.array([[1.0, 0.0], [0.0, 1.0], [np.sqrt(0.5), np.sqrt(0.5)]])
    # pairs: (1,2)=0, (1,3)=0.7071, (2,3)=0.7071
    assert mean_pairwise_cosine(v) == pytest.approx(2 * np.sqrt(0.5) / 3)
    assert mean_pairwise_cosine(v[:1]) is None


async def test_hashing_embedder_is_offline_deterministic_and_normalised() -> None:
    e = HashingEmbedder(dim=256)
    a = await e.embed(["The capital is Paris.", "the capital is paris", "Bananas are yellow."])
    assert a.shape == (3, 256)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)
    assert a[0] @ a[1] == pytest.approx(1.0)  # case and punctuation do not matter
    assert a[0] @ a[2] < 0.5
    assert np.array_equal(
        a, await e.embed(["The capital is Paris.", "the capital is paris", "Bananas are yellow."])
    )


def test_make_embedder_names() -> None:
    assert make_embedder("hashing/64").name == "hashing-64"
    with pytest.raises(ValueError, match="unknown embedder 'banana'"):
        make_embedder("banana")


def test_missing_sentence_transformers_names_the_extra(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    with pytest.raises(ImportError, match=r"pip install 'mad-tasks\[embeddings\]'"):
        make_embedder("sentence-transformers/all-MiniLM-L6-v2")


async def test_the_hashing_pair_scorer_is_the_cosine_of_each_pair() -> None:
    scorer = load_pair_scorer("reranker", "hashing")
    got = await scorer.score([("The capital is Paris.", "the capital is paris"), ("a b", "x y")])
    assert got[0] == pytest.approx(1.0) and got[1] == pytest.approx(0.0)


def test_a_cross_encoder_is_loaded_with_its_model_and_refused_by_the_options_name(
    monkeypatch,
) -> None:
    """`cross-encoder/<model>` loads that model; a missing library or model is refused naming
    the option that asked for it."""
    loaded: list[str] = []

    class FakeCrossEncoder:
        def __init__(self, model: str) -> None:
            loaded.append(model)
            self.config = type(
                "Config", (), {"id2label": {0: "contradiction", 1: "ENTAILMENT", 2: "neutral"}}
            )

        def predict(self, pairs):  # type: ignore[no-untyped-def]
            # an NLI model: one logit per class, the entailment second
            return np.array([[0.1, 0.9 if a == b else -2.0, 0.3] for a, b in pairs])

    fake = type(sys)("sentence_transformers")
    fake.CrossEncoder = FakeCrossEncoder  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", fake)
    scorer = load_pair_scorer("cross_encoder", "cross-encoder/BAAI/bge-reranker-v2-m3")
    assert loaded == ["BAAI/bge-reranker-v2-m3"] and scorer.name.endswith("bge-reranker-v2-m3")
    import asyncio

    assert asyncio.run(scorer.score([("a", "a"), ("a", "b")])) == [0.9, -2.0]
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    with pytest.raises(
        OptionError, match=r"'cross_encoder'.*pip install 'mad-tasks\[embeddings\]'"
    ):
        load_pair_scorer("cross_encoder", "cross-encoder/BAAI/bge-reranker-v2-m3")
    for bad in ("bge", "cross-encoder", "cross-encoder/", 3):
        with pytest.raises(OptionError, match="reranker"):
            pair_scorer_spec("reranker", bad)

"""Tree-of-Debate's paper text: cleaning, the reference's chunks, the retrievable filter, the two
retrievers (ranking, ties, duplicates), node queries and the pair read from sample metadata."""

from __future__ import annotations

import sys
import time
import types

import numpy as np
import pytest

from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.tod import papers as tod_papers
from mad_tasks.engine.methods.tod.options import TreeOptions
from mad_tasks.engine.methods.tod.papers import (
    EmbeddingRetriever,
    Paper,
    PaperPair,
    chunk,
    clean,
    make_retriever,
    node_query,
    pair_of_metadata,
    retrievers_for,
)
from mad_tasks.engine.retrieval import LexicalRetriever, retrievable

BOUND = 2.0  # seconds on 200,000 characters: a quadratic pass takes minutes, a linear one ms


# -- spec section 10, case 1: the chunker ------------------------------------------------------

SECTION = """Sparse attention lowers the cost of long inputs such as whole books. It keeps only \
the pairs of tokens that matter most. Fixed patterns suit text but not proteins.
12
Learned   patterns   adapt. They cost a first pass. It is cheap.
A final sentence stands alone in its chunk because nothing follows it in the body of this section.
References
[1] A. Writer. Attention. 2020. [2] B. Writer. Sparsity. 2021.
"""


def test_chunks_of_three_sentences_cut_at_references_and_filtered() -> None:
    chunks = chunk(clean(SECTION), 3)
    assert chunks == [
        "Sparse attention lowers the cost of long inputs such as whole books. It keeps only the "
        "pairs of tokens that matter most. Fixed patterns suit text but not proteins",
        "Learned patterns adapt. They cost a first pass. It is cheap",
        "A final sentence stands alone in its chunk because nothing follows it in the body of "
        "this section.",
    ]
    assert [len(c) for c in chunks] == [162, 59, 98]
    assert retrievable(chunks, 150) == [0]  # 59 and 98 characters are never retrieved


def test_chunks_without_the_cut_keep_the_references() -> None:
    chunks = chunk(clean(SECTION, cut_at_references=False), 3)
    assert chunks[2:] == [
        "A final sentence stands alone in its chunk because nothing follows it in the body of "
        "this section. References [1] A. Writer",
        "Attention. 2020. [2] B",
        "Writer. Sparsity. 2021.",
    ]


def test_chunk_sizes_and_blank_text() -> None:
    assert chunk("a. b. c. d. e", 2) == ["a. b", "c. d", "e"]
    assert chunk("a. b. c", 1) == ["a", "b", "c"]
    assert chunk("one sentence, no split", 3) == ["one sentence, no split"]
    assert chunk("a.b. c", 3) == ["a.b. c"]  # only ". " splits, as in the reference
    assert chunk("  \n ", 3) == []
    with pytest.raises(ValueError, match="sentences"):
        chunk("a. b", 0)


def test_retrievable_keeps_chunks_longer_than_the_limit() -> None:
    chunks = ["x" * 150, "x" * 151, "", "x" * 400]
    assert retrievable(chunks, 150) == [1, 3]
    assert retrievable(chunks, 0) == [0, 1, 3]


# -- clean -------------------------------------------------------------------------------------


def test_clean_drops_unprintables_numeric_lines_and_collapses_space() -> None:
    text = "Title\x00 of\u200b the\tpaper\n  3 \n-1.5\n1,024\nA line\ue5f8 with  spaces\n\n- item\n"
    assert clean(text) == "Title of the paper A line with spaces - item"


@pytest.mark.parametrize(
    "heading",
    ["References", "REFERENCES", "  references:  ", "7. References", "VII. REFERENCES:",
     "## References", "## 7 References", "8) References"],
)  # fmt: skip
def test_clean_cuts_at_a_references_heading(heading: str) -> None:
    assert clean(f"Body text.\n{heading}\n[1] Cited.\nMore.") == "Body text."


@pytest.mark.parametrize(
    "line",
    ["References to prior work are listed in the appendix.", "See References", "Reference",
     "The cited works. References [1] A. Writer."],
)  # fmt: skip
def test_clean_keeps_lines_that_only_mention_references(line: str) -> None:
    assert clean(f"Body text.\n{line}\nMore.") == f"Body text. {line} More."


ADVERSARIAL = {
    "no periods": "word " * 40_000,
    "periods": ". " * 100_000,
    "one long line": "x" * 200_000,
    "newlines": "\n" * 200_000,
    "numeric lines": "1\n" * 100_000,
    "references words": "References " * 18_000,
    "heading-like lines": "7. Reference\n" * 15_000,
    "unprintables": "\x00\u200b" * 100_000,
    "tabs and periods": ".\t. " * 50_000,
}


@pytest.mark.parametrize("name", ADVERSARIAL)
def test_clean_and_chunk_are_linear(name: str) -> None:
    text = ADVERSARIAL[name]
    start = time.perf_counter()
    chunks = chunk(clean(text), 3)
    kept = retrievable(chunks, 150)
    assert time.perf_counter() - start < BOUND
    assert all(len(chunks[i]) > 150 for i in kept)


def test_periods_give_one_chunk_per_three_sentences() -> None:
    chunks = chunk(clean(". " * 100_000), 3)
    assert len(chunks) == 33_334 and chunks[0] == ". . " and chunks[-1] == "."


# -- the lexical retriever ---------------------------------------------------------------------

PAD = " ".join(f"filler{i}" for i in range(20))
CHUNKS = [
    f"entity graph walk entity graph walk {PAD}",  # 0: every query term twice
    f"graph once {PAD}",  # 1: one term
    "short entity graph walk",  # 2: too short to retrieve
    f"walk entity {PAD}",  # 3: two terms
    f"nothing relevant here at all {PAD}",  # 4: none
    f"entity walk {PAD}",  # 5: the same words as 3, so the same score
    f"entity graph walk entity graph walk {PAD}",  # 6: the text of 0 again
]


def test_lexical_ranking_ties_and_duplicates() -> None:
    found = LexicalRetriever(CHUNKS, 150).search("the entity graph walk", 10)
    assert [(e.id, e.chunk) for e in found] == [(1, 0), (2, 3), (3, 5), (4, 1), (5, 4)]
    assert [e.text for e in found] == [CHUNKS[i] for i in (0, 3, 5, 1, 4)]
    scores = [e.score for e in found]
    assert scores[0] > scores[1] == scores[2] > scores[3] > scores[4] == 0.0
    assert all(isinstance(s, float) for s in scores)


def test_lexical_top_k_and_queries_without_known_terms() -> None:
    retriever = LexicalRetriever(CHUNKS, 150)
    assert [e.chunk for e in retriever.search("graph", 2)] == [0, 1]
    # no query term in the index (or only stop words): every score is 0, chunk order decides
    for query in ("zebra", "the of and", ""):
        found = retriever.search(query, 3)
        assert [(e.id, e.chunk, e.score) for e in found] == [(1, 0, 0.0), (2, 1, 0.0), (3, 3, 0.0)]
    assert retriever.search("graph", 0) == []


def test_lexical_without_retrievable_chunks_finds_nothing() -> None:
    assert LexicalRetriever(["too short", "also short"], 150).search("short", 5) == []
    assert LexicalRetriever([], 150).search("anything", 5) == []
    # chunks of stop words only: nothing to index, every score 0
    stop = ["the and of " * 20, "it is a " * 25]
    assert [(e.chunk, e.score) for e in LexicalRetriever(stop, 150).search("the", 5)] == [
        (0, 0.0),
        (1, 0.0),
    ]


def test_lexical_search_is_linear_on_a_long_query() -> None:
    retriever = LexicalRetriever(CHUNKS, 150)
    start = time.perf_counter()
    found = retriever.search("entity " * 30_000 + "x" * 50_000, 2)
    assert time.perf_counter() - start < BOUND
    assert [e.chunk for e in found] == [0, 3]


# -- the embedding retriever, on a stand-in for sentence-transformers -------------------------

VECTORS = {  # unnormalised: the retriever must ask for normalised embeddings
    "q": [1.0, 0.0],
    "a" * 160: [3.0, 4.0],  # cosine 0.6
    "b" * 160: [0.0, 2.0],  # cosine 0
    "c" * 160: [5.0, 0.0],  # cosine 1
    "d" * 160: [6.0, 8.0],  # cosine 0.6, tied with a
    "short": [1.0, 0.0],  # cosine 1, but never retrievable
}


@pytest.fixture
def fake_st(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """sentence_transformers replaced by a model that looks texts up in VECTORS; returns the
    model names loaded."""
    loaded: list[str] = []

    class SentenceTransformer:
        def __init__(self, name: str) -> None:
            loaded.append(name)

        def encode(self, texts: list[str], normalize_embeddings: bool = False) -> np.ndarray:
            m = np.array([VECTORS[t] for t in texts])
            if normalize_embeddings:
                m = m / np.linalg.norm(m, axis=1, keepdims=True)
            return m

    module = types.ModuleType("sentence_transformers")
    module.SentenceTransformer = SentenceTransformer  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module)
    monkeypatch.setattr(tod_papers, "_MODELS", {})
    return loaded


def test_embedding_ranking_by_cosine_ties_by_index(fake_st: list[str]) -> None:
    chunks = ["a" * 160, "short", "b" * 160, "c" * 160, "d" * 160, "a" * 160]
    found = EmbeddingRetriever("/models/bge", chunks, 150).search("q", 10)
    assert [(e.id, e.chunk) for e in found] == [(1, 3), (2, 0), (3, 4), (4, 2)]
    assert [e.score for e in found] == pytest.approx([1.0, 0.6, 0.6, 0.0])


def test_embedding_model_loads_once_per_path(fake_st: list[str]) -> None:
    chunks = ["a" * 160, "c" * 160]
    first = make_retriever("bge:/models/bge", chunks, 150)
    second = make_retriever("bge:/models/bge", chunks[:1], 150)
    make_retriever("bge:/models/other", chunks, 150)
    assert isinstance(first, EmbeddingRetriever)
    assert [e.chunk for e in first.search("q", 1)] == [1]
    assert [e.chunk for e in second.search("q", 5)] == [0]
    assert fake_st == ["/models/bge", "/models/other"]
    assert EmbeddingRetriever("/models/bge", ["short"], 150).search("q", 3) == []


def test_missing_sentence_transformers_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # as if not installed
    monkeypatch.setattr(tod_papers, "_MODELS", {})
    with pytest.raises(ImportError, match=r"pip install 'mad-tasks\[embeddings\]'"):
        make_retriever("bge:/models/bge", ["a" * 160], 150)


def test_make_retriever_specs() -> None:
    assert isinstance(make_retriever("lexical", CHUNKS, 150), LexicalRetriever)
    for spec in ("bge:", "bge: ", "bm25", "Lexical", ""):
        with pytest.raises(ValueError, match="unknown retriever"):
            make_retriever(spec, CHUNKS, 150)


def test_retrievers_for_each_paper_as_the_options_say() -> None:
    a = Paper("Paper A", "Alpha abstract.", SECTION)
    sentence = "Learned attention patterns adapt to each protein family in the data. "
    b = Paper("Paper B", "Beta abstract.", sentence * 6)
    pair = PaperPair(Question.of(["sparse attention"]), (a, b))
    assert retrievers_for(pair, TreeOptions(self_deliberation=False)) is None
    found = retrievers_for(pair, TreeOptions())
    assert found is not None
    ra, rb = found
    assert isinstance(ra, LexicalRetriever) and isinstance(rb, LexicalRetriever)
    assert ra.search("patterns", 5) == []  # paper A's 3-sentence chunks are all <= 150 characters
    assert [e.chunk for e in rb.search("patterns", 5)] == [1, 0]  # the last chunk is short
    # the references are retrievable only when the text is not cut at their heading
    for cut, texts in ((True, []), (False, ["[2] B. Writer", "References [1] A. Writer"])):
        opts = TreeOptions(chunk_sentences=2, min_chunk_chars=0, cut_at_references=cut)
        found = retrievers_for(pair, opts)
        assert found is not None
        assert [e.text for e in found[0].search("Writer", 2) if e.score > 0] == texts


# -- node queries and the pair -----------------------------------------------------------------


def test_node_query_as_the_reference_writes_it() -> None:
    assert node_query("text classification", "text classification", root=True) == (
        "text classification"
    )
    assert node_query("Label noise", "How each copes with noisy labels", root=False) == (
        "Label noise: How each copes with noisy labels."
    )
    assert node_query("Label noise", "Ends with a period.", root=False) == (
        "Label noise: Ends with a period.."
    )


def paper(title: str, **more: object) -> dict[str, object]:
    return {"title": title, "abstract": f"Abstract of {title}.", **more}


def test_pair_of_metadata() -> None:
    topic = Question.of(["active learning"])
    metadata = {
        "paper_a": paper("A", introduction="Intro A.", full_text="", url="https://a"),
        "paper_b": paper("B", introduction=None),
    }
    pair = pair_of_metadata(metadata, topic)
    assert pair.topic == topic
    assert pair.papers == (
        Paper("A", "Abstract of A.", "Intro A.", "", "https://a"),
        Paper("B", "Abstract of B.", "", "", ""),
    )
    assert pair.papers[0].source == "abstract+intro"
    assert pair.papers[0].text == "A\n\nAbstract of A.\n\nIntro A."


@pytest.mark.parametrize(
    "metadata, field",
    [
        ({"paper_b": paper("B")}, "'paper_a'"),
        ({"paper_a": "A", "paper_b": paper("B")}, "'paper_a'"),
        ({"paper_a": paper("A"), "paper_b": {"title": "B"}}, "'paper_b.abstract'"),
        ({"paper_a": paper(" "), "paper_b": paper("B")}, "'paper_a.title'"),
        ({"paper_a": paper("A", introduction=3), "paper_b": paper("B")}, "'paper_a.introduction'"),
        ({"paper_a": paper("A"), "paper_b": paper("B", url=["x"])}, "'paper_b.url'"),
    ],
)
def test_pair_of_metadata_names_the_bad_field(metadata: dict, field: str) -> None:
    with pytest.raises(ValueError, match=f"sample metadata {field}"):
        pair_of_metadata(metadata, Question.of(["t"]))


def test_the_solver_loads_the_embedding_model_before_any_eval(fake_st: list[str]) -> None:
    from mad_tasks.solvers import tod_no_sd, tree_of_debate

    tree_of_debate(retriever="bge:/models/bge")
    tod_no_sd(retriever="bge:/models/unused")  # No-SD retrieves nothing: nothing to load
    assert fake_st == ["/models/bge"]


@pytest.mark.parametrize("installed", [False, True])
def test_a_retriever_that_cannot_load_is_a_bad_solver_option(
    monkeypatch: pytest.MonkeyPatch, installed: bool
) -> None:
    from mad_tasks.engine.checks import OptionError
    from mad_tasks.solvers import tree_of_debate

    module = types.ModuleType("sentence_transformers")

    def missing(name: str) -> None:
        raise OSError(f"{name} is not a local folder nor a model on the hub")

    module.SentenceTransformer = missing  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sentence_transformers", module if installed else None)
    monkeypatch.setattr(tod_papers, "_MODELS", {})
    with pytest.raises(OptionError) as err:
        tree_of_debate(retriever="bge:/nowhere")
    message = str(err.value)
    assert message.startswith("invalid solver option 'retriever': got 'bge:/nowhere', allowed:")
    assert ("not a local folder" if installed else "mad-tasks[embeddings]") in message

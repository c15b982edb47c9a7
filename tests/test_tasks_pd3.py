"""The PD³ tasks' data (`tasks/_pd3_data.py`): the local corpus/queries format and its checks, the
CSFCube builder (annotation parsing, grades merged over facets, TF-IDF, gold and negatives, the
pinned download) on a tiny fake source offline and, when `../shared/data` is at hand, on the real
source against the shared files; Task 2's levels, votes and pairs; the tasks' option checks."""

from __future__ import annotations

import hashlib
import importlib
import json
import math
import shutil
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from inspect_ai.log import resolve_sample_attachments
from testdata import FIXTURES, shared

from mad_tasks.tasks import _pd3_data as data
from mad_tasks.tasks._pd3_data import (
    Doc,
    Query,
    build,
    dedup_sample,
    draw_pairs,
    eligible,
    fetch_source,
    graded,
    level,
    load,
    pair_sample,
    parse_annotations,
    read_bench,
    read_source,
    similarity,
    tfidf,
    tokens,
    votes,
)

PD3 = FIXTURES / "pd3"


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("must not download")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


# -- the fixture and the local format ----------------------------------------------------------


def test_fixture_bench() -> None:
    bench = read_bench(PD3)
    assert [q.qid for q in bench.queries] == ["q1", "q2", "q3"]
    assert len(bench.corpus) == 93
    for q in bench.queries:
        assert len(q.candidate_ids) == 30 and len(q.gold_ids) == 5
        assert set(q.gold_ids) <= set(q.candidate_ids) and q.query_id not in q.candidate_ids
        assert q.grades is not None and sorted(q.grades) == sorted(q.candidate_ids)
        assert q.facet == "method"
    assert [level(q) for q in bench.queries] == [15, 14, 11]
    assert bench.gold_sizes() == {"5": 3}


def test_task1_sample_shape() -> None:
    bench = read_bench(PD3)
    query = bench.queries[0]
    sample = dedup_sample(bench, query)
    doc = bench.corpus[query.query_id]
    assert sample.id == "q1"
    assert sample.input == f"{doc.title}\n\n{doc.text}"
    assert sample.target == list(query.gold_ids)
    meta = sample.metadata
    assert list(meta) == ["query_id", "query", "facet", "candidates", "grades"]
    assert meta["query_id"] == "proj-0001"
    assert meta["query"] == {"id": "proj-0001", "title": doc.title, "text": doc.text}
    assert [c["id"] for c in meta["candidates"]] == list(query.candidate_ids)  # the fixed order
    first = meta["candidates"][0]
    assert first == bench.corpus[first["id"]].record() and sorted(first) == ["id", "text", "title"]
    assert meta["grades"] == query.grades
    # no facet or grades in the data: none in the metadata
    bare = Query("x", query.query_id, query.gold_ids, query.candidate_ids)
    assert list(dedup_sample(bench, bare).metadata) == ["query_id", "query", "candidates"]


def test_view_without_title() -> None:
    assert Doc("d", "", "Only text.").view() == "Only text."
    assert Doc("d", "T", "x").view() == "T\n\nx"


def write_bench(directory: Path, corpus: list[dict], queries: list[dict]) -> Path:
    directory.mkdir(exist_ok=True)
    for name, records in (("corpus", corpus), ("queries", queries)):
        text = "".join(json.dumps(r) + "\n" for r in records)
        (directory / f"{name}.jsonl").write_text(text, encoding="utf-8")
    return directory


def small(**changes: Any) -> tuple[list[dict], list[dict]]:
    """A valid bench of one query over 6 candidates, one record changed."""
    corpus = [{"id": f"d{i}", "title": f"Title {i}", "text": f"Text {i}."} for i in range(7)]
    query = {
        "qid": "q",
        "query_id": "d0",
        "gold_ids": ["d1", "d2"],
        "candidate_ids": [f"d{i}" for i in range(1, 7)],
        "grades": {f"d{i}": 3 if i < 3 else 0 for i in range(1, 7)},
    }
    for key, value in changes.items():
        if value is None:
            del query[key]
        else:
            query[key] = value
    return corpus, [query]


def test_small_bench_reads(tmp_path: Path) -> None:
    bench = read_bench(write_bench(tmp_path / "b", *small(grades=None)))
    assert bench.queries == (
        Query("q", "d0", ("d1", "d2"), tuple(f"d{i}" for i in range(1, 7)), None, None),
    )


@pytest.mark.parametrize(
    "changes, message",
    [({"qid": ""}, "'qid' must be a non-empty string"),
     ({"query_id": 7}, "'query_id' must be a non-empty string"),
     ({"candidate_ids": ["d1", "d2", "d1"]}, "'candidate_ids' must be a list of distinct ids"),
     ({"candidate_ids": []}, "'candidate_ids' must be a list of distinct ids"),
     ({"gold_ids": "d1"}, "'gold_ids' must be a list of distinct ids"),
     ({"gold_ids": ["d1", "d9"]}, "'gold_ids' must be 1 to 5 of the candidates"),
     ({"gold_ids": ["d1", "d2", "d3", "d4", "d5", "d6"]}, "'gold_ids' must be 1 to 5"),
     ({"candidate_ids": ["d1", "d2", "d7"], "grades": None}, r"ids not in the corpus: \['d7'\]"),
     ({"candidate_ids": ["d0", "d1", "d2"], "grades": None}, "the query 'd0' is among its own"),
     ({"grades": {"d1": 3, "d2": 3}}, "'grades' must give every candidate"),
     ({"grades": {f"d{i}": 4 for i in range(1, 7)}}, "'grades' must .* integer from 0 to 3"),
     ({"grades": {f"d{i}": True for i in range(1, 7)}}, "'grades' must .* integer from 0 to 3"),
     ({"facet": 3}, "'facet' must be a string"),
     # the [RESULT] line splits at commas: an id must read back whole
     ({"query_id": " d0"}, "'query_id' must be a non-empty string without a comma"),
     ({"candidate_ids": ["d1", "d2,d3"]}, "'candidate_ids' must be a list of distinct ids, each a "
      "non-empty string without a comma"),
     ({"gold_ids": ["d1\n"]}, "'gold_ids' must be a list of distinct ids, each a non-empty")],
)  # fmt: skip
def test_bad_query_records_are_named(tmp_path: Path, changes: dict, message: str) -> None:
    directory = write_bench(tmp_path / "b", *small(**changes))
    with pytest.raises(ValueError, match=f"queries.jsonl: record 1: {message}"):
        read_bench(directory)


def test_bad_files_are_named(tmp_path: Path) -> None:
    corpus, queries = small()
    with pytest.raises(ValueError, match=r"corpus.jsonl: record 2: id 'd0' is already taken"):
        read_bench(write_bench(tmp_path / "a", [corpus[0], *corpus], queries))
    blank = [{"id": "d0", "title": " ", "text": ""}, *corpus[1:]]
    with pytest.raises(ValueError, match=r"corpus.jsonl: record 1: 'title' and 'text' must be"):
        read_bench(write_bench(tmp_path / "b", blank, queries))
    for bad in ("d,7", "d7 ", "d\u20287"):
        named = [*corpus, {"id": bad, "title": "T", "text": "x"}]
        with pytest.raises(
            ValueError,
            match=r"corpus.jsonl: record 8: 'id' must be a non-empty "
            "string without a comma, a line break or surrounding whitespace",
        ):
            read_bench(write_bench(tmp_path / "f", named, queries))
    with pytest.raises(ValueError, match=r"queries.jsonl: record 2: qid 'q' is already taken"):
        read_bench(write_bench(tmp_path / "c", corpus, queries * 2))
    with pytest.raises(ValueError, match=r"queries.jsonl: no query"):
        read_bench(write_bench(tmp_path / "d", corpus, []))
    with pytest.raises(FileNotFoundError, match="is not a directory"):
        read_bench(tmp_path / "absent")
    (tmp_path / "e").mkdir()
    with pytest.raises(FileNotFoundError, match=r"corpus\.jsonl"):
        read_bench(tmp_path / "e")


# -- the CSFCube source: parsing ---------------------------------------------------------------

RULE, SHORT_RULE = "=" * 70, "=" * 35


def block(pid: str, title: str, *sentences: str, judged: bool = True) -> str:
    head = f"paper_id: {pid}; YEAR: 2020\n"
    if judged:
        head += "adju relevance: Identical (+3)\ndifference: 0; annotator1: 3; annotator2: 3\n"
    body = "\n".join(sentences)
    return f"{head}TITLE: {title}\nABSTRACT: {body}\n"


def annotation_file(query: tuple[str, ...], *candidates: tuple[str, ...]) -> str:
    parts = [RULE, block(*query, judged=False)]
    for c in candidates:
        parts += [SHORT_RULE, block(*c) + "\n"]
    return "\n".join(parts) + "\n"


def test_parse_annotations() -> None:
    text = annotation_file(
        ("1", "Query paper", "background_label: We study grids.", "method_label: We use TF-IDF."),
        ("2", " Spaced title ", " objective_label:   Aim here. ", "", "a line without a label"),
        ("3", "Colon", "result_label: Ratio: 3 to 1.", "Note: kept", "x_label:y"),
    )
    docs = parse_annotations(text, "f")
    assert docs == [
        Doc("1", "Query paper", "We study grids. We use TF-IDF."),
        Doc("2", "Spaced title", "Aim here. a line without a label"),
        Doc("3", "Colon", "Ratio: 3 to 1. Note: kept y"),
    ]


@pytest.mark.parametrize(
    "broken",
    ["paper_id: 1 YEAR\nTITLE: t\nABSTRACT: a", "paper_id: 1;\nABSTRACT: a",
     "paper_id: 1;\nTITLE: t\n", "TITLE: t\nABSTRACT: a", "paper_id: 1 2;\nTITLE: t\nABSTRACT: a"],
)  # fmt: skip
def test_malformed_paper_is_named(broken: str) -> None:
    text = annotation_file(("1", "Q", "a")) + SHORT_RULE + "\n" + broken + "\n"
    with pytest.raises(ValueError, match=r"^f: paper 2 lacks"):
        parse_annotations(text, "f")


def test_tokens() -> None:
    # lower-cased runs of [a-z0-9]; stop words and one-character tokens dropped
    assert tokens("The GRID-2030 model's use of TF-IDF, and a 5 kV line: éa") == [
        "grid", "2030", "model", "tf", "idf", "kv", "line"
    ]  # fmt: skip


def test_tfidf_golden() -> None:
    docs = {
        "a": Doc("a", "grid grid", "fault"),
        "b": Doc("b", "grid", "load"),
        "c": Doc("c", "load", "forecast of the"),
    }
    vectors = tfidf(docs)
    # n = 3; idf = ln(4 / (1 + df)) + 1: df 2 (grid, load) -> 1.28768, df 1 -> 1.69315;
    # a: grid (1 + ln 2) x 1.28768 = 2.18023, fault 1.69315; length 2.76045
    assert list(vectors["a"]) == ["fault", "grid"]
    assert vectors["a"]["grid"] == pytest.approx(0.789807, abs=1e-6)
    assert vectors["a"]["fault"] == pytest.approx(0.613356, abs=1e-6)
    assert vectors["b"] == pytest.approx({"grid": 0.5**0.5, "load": 0.5**0.5})
    assert similarity(vectors["a"], vectors["b"]) == pytest.approx(0.558478, abs=1e-6)
    assert similarity(vectors["a"], vectors["c"]) == 0.0
    assert all(math.isclose(sum(w * w for w in v.values()), 1.0) for v in vectors.values())


# -- the CSFCube source: a tiny fake, built offline --------------------------------------------

TOPICS = {
    "q1": "transformer fault diagnosis dissolved gas",
    "q2": "load forecasting smart meter weather",
}


def fake_source(root: Path) -> Path:
    """Two queries in the upstream layout: q1 annotated for background and method, q2 for result;
    each judges 8 papers of the 14 in the annotation files (q1: grades 3, 3, 2, 2, 2, 2, 2, 1, 0)."""
    (root / "readable_annotations").mkdir(parents=True)

    def paper(pid: str, topic: str, n: int) -> tuple[str, ...]:
        words = topic.split()
        return (pid, f"{pid} on {' '.join(words[: 1 + n % len(words)])}", f"x_label: {topic}.")

    q1 = [paper(f"a{i}", TOPICS["q1"], i) for i in range(9)]
    q2 = [paper(f"b{i}", TOPICS["q2"], i) for i in range(5)]
    files = {
        "q1-background": annotation_file(("q1", "Query one", TOPICS["q1"]), *q1),
        # a paper's first text wins: a0 again, with another text, in a later file
        "q1-method": annotation_file(("q1", "Query one", TOPICS["q1"]), ("a0", "Other", "z")),
        "q2-result": annotation_file(("q2", "Query two", TOPICS["q2"]), *q2),
    }
    for name, text in files.items():
        (root / "readable_annotations" / f"{name}-adju.txt").write_text(text, encoding="utf-8")
    grades = {
        "background": {"q1": (["a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7"],
                              [3, 2, 2, 2, 2, 2, 1, 0])},
        "method": {"q1": (["a1", "a6", "a8", "nowhere"], [3, 2, 0, 3])},
        "result": {"q2": (["b0", "b1", "b2", "b3", "b4"], [2, 1, 0, 0, 1]),
                   "absent": (["b0"], [3])},
    }  # fmt: skip
    for facet, queries in grades.items():
        content = {q: {"cands": c, "relevance_adju": g} for q, (c, g) in queries.items()}
        (root / f"test-pid2anns-csfcube-{facet}.json").write_text(json.dumps(content))
    return root


def test_read_source_merges_facets(tmp_path: Path) -> None:
    docs, grades = read_source(fake_source(tmp_path / "src"))
    assert sorted(docs) == sorted(["q1", "q2", *(f"a{i}" for i in range(9)),
                                   *(f"b{i}" for i in range(5))])  # fmt: skip
    assert docs["a0"].text == TOPICS["q1"] + "."  # the first file's text
    facet, q1 = grades["q1"]
    assert facet == "background+method"
    # the highest grade over the facets; candidates in the order first graded
    assert q1 == {"a0": 3, "a1": 3, "a2": 2, "a3": 2, "a4": 2, "a5": 2, "a6": 2, "a7": 0,
                  "a8": 0, "nowhere": 3}  # fmt: skip
    assert grades["q2"][0] == "result" and grades["absent"][0] == "result"


def test_build_from_the_fake_source(tmp_path: Path) -> None:
    docs, grades = read_source(fake_source(tmp_path / "src"))
    hard = build(docs, grades, "hard", n_candidates=8)
    assert [q.qid for q in hard.queries] == ["q1", "q2"]  # "absent" is not among the papers
    q1, q2 = hard.queries
    assert (q1.query_id, q1.facet) == ("q1", "background+method")
    # gold: 5 of grade >= 2, the grade-3 ones first ("nowhere", graded 3, is not a paper)
    assert q1.gold_ids[:2] in (("a0", "a1"), ("a1", "a0"))
    assert set(q1.gold_ids[2:]) < {"a2", "a3", "a4", "a5", "a6"} and len(q1.gold_ids) == 5
    # negatives: the judged pool (a7, a8) is short of 3, so unjudged papers join it; hard takes
    # the most TF-IDF-similar: a7 and a8 carry the query's topic, q2 shares "query", b* nothing
    assert set(q1.candidate_ids) - set(q1.gold_ids) == {"a7", "a8", "q2"}
    assert q1.grades == {c: grades["q1"][1].get(c, 0) for c in q1.candidate_ids}
    assert q2.gold_ids == ("b0",) and len(q2.candidate_ids) == 8
    assert hard.corpus == {i: docs[i] for i in sorted({*q1.candidate_ids, *q2.candidate_ids,
                                                       "q1", "q2"})}  # fmt: skip
    # the same seed, the same benchmark; another seed, another draw of the ties
    assert build(docs, grades, "hard", n_candidates=8) == hard
    others = [build(docs, grades, "hard", seed=s, n_candidates=8).queries[0] for s in range(10)]
    assert len({q.gold_ids for q in others}) > 1
    random_ = build(docs, grades, "random", n_candidates=8)
    pool = {c for c in docs if c not in grades["q1"][1] and c != "q1"} | {"a7", "a8"}
    assert set(random_.queries[0].candidate_ids) - set(random_.queries[0].gold_ids) <= pool
    with pytest.raises(ValueError, match="query q1: only 8 negatives for 25 places"):
        build(docs, grades, "hard")


def test_hard_negatives_are_the_nearest(tmp_path: Path) -> None:
    docs = {
        "q": Doc("q", "grid fault", "transformer gas"),
        **{
            f"n{i}": Doc(f"n{i}", "grid fault" if i < 2 else "market", f"gas {i}") for i in range(5)
        },
        "g": Doc("g", "grid fault transformer", "gas"),
    }
    grades = {"q": ("method", {"g": 3, **{f"n{i}": 0 for i in range(5)}})}
    [query] = build(docs, grades, "hard", n_candidates=3).queries
    assert query.gold_ids == ("g",)
    assert sorted(query.candidate_ids) == ["g", "n0", "n1"]


def serve(files: dict[str, bytes], requested: list[str]):
    """A urlopen that answers the pinned URLs from `files` (by path after the commit)."""

    class Response:
        def __init__(self, body: bytes) -> None:
            self.body = body

        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            pass

        def read(self) -> bytes:
            return self.body

    def urlopen(url: str, timeout: float = 0):
        requested.append(url)
        return Response(files[url.removeprefix(data.SOURCE_BASE)])

    return urlopen


def pin_fake(monkeypatch: pytest.MonkeyPatch, root: Path) -> dict[str, bytes]:
    """Pin the fake source's files (as the module pins the real ones) and return their bytes."""
    files = {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}

    def sha(relative: str) -> str:
        return hashlib.sha256(files[relative]).hexdigest()

    monkeypatch.setattr(data, "GRADE_FILES", {f: sha(data.grade_file(f)) for f in data.FACETS})
    names = [
        p.removeprefix("readable_annotations/").removesuffix("-adju.txt")
        for p in files
        if p.startswith("readable_annotations/")
    ]
    monkeypatch.setattr(data, "ANNOTATION_FILES", {n: sha(data.annotation_file(n)) for n in names})
    return files


def test_fetch_downloads_each_pinned_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_source(tmp_path / "src")
    files = pin_fake(monkeypatch, root)
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    requested: list[str] = []
    monkeypatch.setattr(urllib.request, "urlopen", serve(files, requested))
    fetched = fetch_source()
    assert fetched == tmp_path / "cache" / "csfcube" / data.SOURCE_COMMIT
    assert sorted(requested) == sorted(data.SOURCE_BASE + f for f in files)
    assert data.SOURCE_BASE.endswith(f"/iesl/CSFCube/{data.SOURCE_COMMIT}/")
    assert read_source(fetched) == read_source(root)
    requested.clear()
    assert fetch_source() == fetched and requested == []  # cached


def test_fetch_refuses_another_digest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = fake_source(tmp_path / "src")
    files = pin_fake(monkeypatch, root)
    files["test-pid2anns-csfcube-method.json"] += b" "
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(urllib.request, "urlopen", serve(files, []))
    with pytest.raises(RuntimeError, match=f"expected {data.GRADE_FILES['method']}"):
        fetch_source()
    assert not list((tmp_path / "cache").rglob("*method.json"))


# -- the real source and the shared files (../shared/data) ------------------------------------


def shared_source() -> Path:
    return shared("csfcube_pd3/source/test-pid2anns-csfcube-method.json").parent


def test_pins_match_the_shared_source_and_manifest() -> None:
    source = shared_source()
    manifest = json.loads(shared("csfcube_pd3/csfcube_manifest.json").read_text())
    assert manifest["commit"] == data.SOURCE_COMMIT and manifest["raw_base"] == data.SOURCE_BASE
    pinned = {data.grade_file(f): s for f, s in data.GRADE_FILES.items()}
    pinned |= {data.annotation_file(n): s for n, s in data.ANNOTATION_FILES.items()}
    assert pinned == {k: v["sha256"] for k, v in manifest["files"].items() if k != "LICENSE.md"}
    for relative, sha256 in pinned.items():
        assert hashlib.sha256((source / relative).read_bytes()).hexdigest() == sha256, relative


@pytest.mark.parametrize("variant", ["hard", "random"])
def test_build_reproduces_the_shared_files(variant: str) -> None:
    docs, grades = read_source(shared_source())
    bench = build(docs, grades, variant)
    folder = shared(f"csfcube_pd3/{variant}/queries.jsonl").parent
    queries = "".join(json.dumps(q.record()) + "\n" for q in bench.queries)
    corpus = "".join(
        json.dumps(d.record(), ensure_ascii=False) + "\n" for d in bench.corpus.values()
    )
    assert queries == (folder / "queries.jsonl").read_text(encoding="utf-8")  # byte for byte
    assert corpus == (folder / "corpus.jsonl").read_text(encoding="utf-8")
    assert read_bench(folder) == bench
    assert (len(bench.queries), len(bench.corpus)) == (34, {"hard": 1037, "random": 1019}[variant])
    assert bench.gold_sizes() == {"5": 32, "3": 1, "1": 1}


def cache_shared_source(cache: Path) -> None:
    """The shared source files where fetch_source caches the pinned download."""
    target = cache / "csfcube" / data.SOURCE_COMMIT
    shutil.copytree(shared_source(), target, ignore=shutil.ignore_patterns("*.md"))


def test_load_builds_from_the_cached_download(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network
) -> None:
    cache_shared_source(tmp_path)
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    loaded = load(None, "random")
    assert loaded.bench == read_bench(shared("csfcube_pd3/random/queries.jsonl").parent)
    assert loaded.metadata() == {
        "source": f"https://github.com/iesl/CSFCube @ {data.SOURCE_COMMIT}",
        "license": "CC BY-NC 4.0",
        "variant": "random",
        "queries": 34,
        "documents": 1019,
        "candidates": [30],
        "gold_sizes": {"5": 32, "3": 1, "1": 1},
    }
    assert load(None, None).variant == "hard"


# -- Task 2: levels, votes, pairs --------------------------------------------------------------


@pytest.mark.parametrize(
    "levels, expected",
    [((15, 14), (2, 1)), ((14, 15), (1, 2)), ((15, 11), (3, 0)), ((11, 13), (0, 3)),
     ((2, 15), (0, 3)), ((1, 0), (2, 1))],
)  # fmt: skip
def test_votes_follow_the_level_gap(levels: tuple[int, int], expected: tuple[int, int]) -> None:
    assert votes(*levels) == expected


def test_equal_levels_make_no_pair() -> None:
    with pytest.raises(ValueError, match="must differ"):
        votes(12, 12)


def test_level_is_the_sum_of_the_gold_grades() -> None:
    query = Query("q", "d0", ("a", "b"), ("a", "b", "c"), {"a": 3, "b": 2, "c": 3})
    assert level(query) == 5  # c is graded 3 but is not gold; the missing 3 slots count 0
    with pytest.raises(ValueError, match="query q has no grades"):
        level(Query("q", "d0", ("a",), ("a",)))
    with pytest.raises(ValueError, match=r"here: .* needs 'grades' .*: 1 \(first: 'q'\)"):
        graded([Query("q", "d0", ("a",), ("a",))], "here")


def test_fixture_pairs() -> None:
    bench = read_bench(PD3)
    assert [(x.qid, y.qid) for x, y in eligible(bench.queries)] == [
        ("q1", "q2"), ("q1", "q3"), ("q2", "q3")
    ]  # fmt: skip
    pairs = draw_pairs(bench.queries, 3, seed=42)
    assert pairs == draw_pairs(bench.queries, 3, seed=42)
    by_set = {frozenset((p.a, p.b)): p for p in pairs}
    assert set(by_set) == {frozenset(p) for p in (("q1", "q2"), ("q1", "q3"), ("q2", "q3"))}
    for p in pairs:
        assert p.levels == (level(bench.queries[int(p.a[1]) - 1]),
                            level(bench.queries[int(p.b[1]) - 1]))  # fmt: skip
        assert p.votes == votes(*p.levels)
        assert p.target == ("A" if p.levels[0] > p.levels[1] else "B")
    # levels 15, 14, 11: only q1-q2 (a gap of 1) splits the experts
    assert sorted(max(p.votes) for p in pairs) == [2, 3, 3]
    assert all(sum(p.votes) == 3 for p in pairs)
    with pytest.raises(ValueError, match="larger than population"):
        draw_pairs(bench.queries, 4, seed=42)


def test_pair_sample_shape() -> None:
    bench = read_bench(PD3)
    q1, q2, _ = bench.queries
    pair = data.Pair("q2", "q1", (14, 15), (1, 2))
    sample = pair_sample(bench, pair)
    assert sample.id == "q2-vs-q1" and sample.target == "B"
    titles = [bench.corpus[q.query_id].title for q in (q2, q1)]
    assert sample.input == data.PAIR_PROMPT.format(a=f'"{titles[0]}"', b=f'"{titles[1]}"')
    meta = sample.metadata
    assert meta["votes"] == [1, 2]
    assert list(meta["a"]) == ["query_id", "facet", "query", "refs", "grades", "level"]
    assert (meta["a"]["facet"], meta["b"]["facet"]) == (q2.facet, q1.facet)  # stated in the prompts
    assert meta["a"]["query_id"] == q2.query_id and meta["b"]["query_id"] == q1.query_id
    assert meta["a"]["query"] == bench.corpus[q2.query_id].record()
    assert [r["id"] for r in meta["a"]["refs"]] == list(q2.gold_ids)
    assert meta["a"]["refs"][0] == bench.corpus[q2.gold_ids[0]].record()
    assert meta["a"]["grades"] == dict.fromkeys(q2.gold_ids[:4], 3) | {q2.gold_ids[4]: 2}
    assert (meta["a"]["level"], meta["b"]["level"]) == (14, 15)


def test_shared_levels_and_pairs() -> None:
    bench = read_bench(shared("csfcube_pd3/hard/queries.jsonl").parent)
    levels = sorted(level(q) for q in bench.queries)
    assert {n: levels.count(n) for n in set(levels)} == {
        2: 1, 6: 1, 10: 1, 11: 14, 12: 6, 13: 7, 15: 4
    }  # fmt: skip
    random_ = read_bench(shared("csfcube_pd3/random/queries.jsonl").parent)
    assert [level(q) for q in random_.queries] == [level(q) for q in bench.queries]
    pairs = eligible(bench.queries)
    assert len(pairs) == 428
    assert sum(abs(level(x) - level(y)) == 1 for x, y in pairs) == 140
    drawn = draw_pairs(bench.queries, 100, seed=42)
    assert len({(p.a, p.b) for p in drawn}) == 100
    assert 35 <= sum(p.target == "A" for p in drawn) <= 65  # sides swapped about half the time
    assert 15 <= sum(1 in p.votes for p in drawn) <= 50


# -- the tasks ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, name",
    [({"variant": "hardest"}, "variant"), ({"variant": 1}, "variant"),
     ({"variant": "hard", "data_path": str(PD3)}, "variant"), ({"subset": 0}, "subset"),
     ({"seed": "x"}, "seed"), ({"shuffle": "maybe"}, "shuffle"), ({"data_path": 3}, "data_path")],
)  # fmt: skip
def test_project_dedup_options_are_checked_before_any_download(
    no_network, options: dict, name: str
) -> None:
    from mad_tasks.tasks.project_dedup import project_dedup

    with pytest.raises(ValueError, match=f"task option '{name}'"):
        project_dedup(**options)


@pytest.mark.parametrize(
    "options, name",
    [({"variant": "easy"}, "variant"), ({"variant": "random", "data_path": str(PD3)}, "variant"),
     ({"pairs": 0}, "pairs"), ({"pairs": 1001}, "pairs"), ({"pairs": "all"}, "pairs"),
     ({"pairs": 2.0}, "pairs"), ({"seed": None}, "seed"), ({"data_path": ""}, "data_path"),
     ({"retrieval": "methods"}, "retrieval")],
)  # fmt: skip
def test_project_dup_pairs_options_are_checked_before_any_download(
    no_network, options: dict, name: str
) -> None:
    from mad_tasks.tasks.project_dup_pairs import project_dup_pairs

    with pytest.raises(ValueError, match=f"task option '{name}'"):
        project_dup_pairs(**options)


def test_project_dedup_from_the_fixture(no_network) -> None:
    from mad_tasks.tasks.project_dedup import project_dedup

    task = project_dedup(data_path=str(PD3))
    assert [s.id for s in task.dataset] == ["q1", "q2", "q3"]
    assert task.metadata == {
        "source": str(PD3),
        "license": None,
        "variant": None,
        "queries": 3,
        "documents": 93,
        "candidates": [30],
        "gold_sizes": {"5": 3},
        "subset": None,
        "shuffle": False,
        "seed": 42,
    }
    assert task.version == 1
    first = task.dataset[0]
    assert first.target == list(read_bench(PD3).queries[0].gold_ids)
    shuffled = project_dedup(data_path=str(PD3), shuffle=True, seed=1, subset=2)
    assert len(shuffled.dataset) == 2


def test_project_dup_pairs_from_the_fixture(no_network) -> None:
    from mad_tasks.tasks.project_dup_pairs import project_dup_pairs

    task = project_dup_pairs(data_path=str(PD3), pairs=None, seed=42)
    bench = read_bench(PD3)
    expected = [pair_sample(bench, p) for p in draw_pairs(bench.queries, 3, 42)]
    assert [(s.id, s.target, s.metadata) for s in task.dataset] == [
        (s.id, s.target, s.metadata) for s in expected
    ]
    assert task.metadata["pairs"] == 3 and task.metadata["eligible_pairs"] == 3
    assert task.metadata["split_votes"] == 1 and task.metadata["retrieval"] == "human"
    assert task.metadata["license"] is None and task.metadata["queries"] == 3
    with pytest.raises(ValueError, match=r"task option 'pairs': got 4, allowed: at most 3"):
        project_dup_pairs(data_path=str(PD3), pairs=4)
    with pytest.raises(ValueError, match="task option 'pairs': got 100"):
        project_dup_pairs(data_path=str(PD3))


def test_under_method_retrieval_a_side_gives_its_candidates_and_their_grades(no_network) -> None:
    """The paper's Method Retrieval: the same pairs and votes, each side giving its query's
    candidates (the method retrieves its own top 5) and every candidate's grade, no references."""
    from mad_tasks.tasks.project_dup_pairs import project_dup_pairs

    human = project_dup_pairs(data_path=str(PD3), pairs=None)
    method = project_dup_pairs(data_path=str(PD3), pairs=None, retrieval="method")
    assert method.metadata["retrieval"] == "method"
    queries = read_bench(PD3).queries
    for h, m in zip(human.dataset, method.dataset):
        assert (h.id, h.target, h.metadata["votes"]) == (m.id, m.target, m.metadata["votes"])
        for side in "ab":
            got = m.metadata[side]
            query = next(q for q in queries if q.query_id == got["query_id"])
            assert "refs" not in got
            assert [c["id"] for c in got["candidates"]] == list(query.candidate_ids)
            assert got["grades"] == {
                c: g for c, g in query.grades.items() if c in query.candidate_ids
            }
            assert got["level"] == h.metadata[side]["level"]


def test_the_judges_of_a_pair_each_get_their_own_seed_and_cache_scope(
    run, no_network, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from mad_tasks.inspect_runtime import InspectRuntime
    from mad_tasks.tasks.project_dup_pairs import project_dup_pairs

    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    scopes: list[dict[str, str]] = []
    policy_of = InspectRuntime.cache_of

    def spy(self: InspectRuntime, call: Any) -> Any:
        policy = policy_of(self, call)
        scopes.append(policy.scopes)
        return policy

    monkeypatch.setattr(InspectRuntime, "cache_of", spy)
    log = run(project_dup_pairs(data_path=str(PD3), pairs=1), model="madsim/x", seed=7, cache=True)
    [sample] = map(resolve_sample_attachments, log.samples)  # long texts are attachments
    events = [e for e in sample.events if e.event == "model"]
    # per side a conclusion and 3 judges, no follow-up (the simulated judges always score)
    assert len(events) == len(scopes) == 8
    judges = [e for e in events if "[RESULT]<score>" in e.input[-1].text]
    seeds = [e.config.seed for e in judges]
    assert len(seeds) == 6 and len(set(seeds)) == 6 and None not in seeds
    judged = [(s["agent"], s["purpose"]) for s in scopes if s["purpose"].startswith("score")]
    assert sorted(judged) == [
        (f"{side} judge {i}", f"score {i}") for side in "AB" for i in (1, 2, 3)
    ]
    assert {s["sample"] for s in scopes} == {str(sample.id)}


def test_tasks_built_from_csfcube_state_the_licence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network
) -> None:
    from mad_tasks.tasks.project_dedup import project_dedup
    from mad_tasks.tasks.project_dup_pairs import project_dup_pairs

    cache_shared_source(tmp_path)
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    task = project_dedup()
    assert task.metadata["license"] == "CC BY-NC 4.0" and task.metadata["variant"] == "hard"
    assert len(task.dataset) == 34
    pairs = project_dup_pairs()
    assert len(pairs.dataset) == 100 and pairs.metadata["eligible_pairs"] == 428
    assert pairs.metadata["license"] == "CC BY-NC 4.0"
    for module in ("project_dedup", "project_dup_pairs"):
        doc = importlib.import_module(f"mad_tasks.tasks.{module}").__doc__
        assert "CC BY-NC 4.0" in doc

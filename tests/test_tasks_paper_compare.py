"""The paper_compare task's loader: columns by header name, the bare carriage return repair, bad
rows skipped and counted, the kind/cited subsets, option checks before any download, the pinned
download, and the real upstream file when it is at hand."""

from __future__ import annotations

import hashlib
import time
import urllib.request
from pathlib import Path

import pytest
from testdata import FIXTURES, shared

from mad_tasks.tasks._data import read_text
from mad_tasks.tasks.paper_compare import (
    COLUMNS,
    SOURCE_COMMIT,
    SOURCE_SHA256,
    cells,
    paper_compare,
    parse_pairs,
    read_pairs,
    repair,
    wanted,
)

PAIRS = FIXTURES / "paper_compare" / "pairs.tsv"
HEADER = list(COLUMNS.values())


def ids(samples) -> list:
    return [s.id for s in samples]


def row(topic: str = "topic", kind: str = "0", cite: str = "1", title_a: str = "A") -> list[str]:
    return [topic, "https://a", title_a, "Abstract A.", "Intro A.", "https://b", "B",
            "Abstract B.", "Intro B.", kind, cite]  # fmt: skip


def tsv(rows: list[list[str]], header: list[str] = HEADER) -> str:
    return "".join("\t".join(r) + "\r\n" for r in [header, *rows])


# -- the fixture -------------------------------------------------------------------------------


def test_fixture_is_stored_with_crlf_and_a_bare_carriage_return() -> None:
    data = PAIRS.read_bytes()  # .gitattributes keeps git from normalising these bytes
    assert data.count(b"\r\n") == 12 and data.count(b"\r") == 13 and data.count(b"\n") == 12


def test_fixture_pairs() -> None:
    pairs = read_pairs(PAIRS)
    assert ids(pairs.samples) == ["tod-1", "tod-2", "tod-3"]
    assert pairs.skipped == 1  # the row broken off after five fields
    first = pairs.samples[0]
    assert first.input == "retrieval for multi-hop question answering over long documents"
    assert first.target == ""
    meta = first.metadata
    assert meta["topic"] == first.input
    assert meta["paper_a"]["title"] == (
        "HopGraph: Passage Graphs for Multi-Hop Question Answering over Long Documents"
    )
    assert meta["paper_a"]["url"] == "https://example.org/papers/hopgraph.pdf"
    assert meta["paper_a"]["full_text"] == ""
    assert meta["paper_a"]["abstract"].startswith("Answering questions about long documents")
    assert meta["paper_b"]["introduction"].startswith("A retriever for long documents")
    assert sorted(meta["paper_b"]) == ["abstract", "full_text", "introduction", "title", "url"]
    labels = [(s.metadata["method_or_task"], s.metadata["kind"], s.metadata["cited"])
              for s in pairs.samples]  # fmt: skip
    assert labels == [(0, "method", 1), (1, "task", 0), (0, "method", 0)]
    assert {s.metadata["text_source"] for s in pairs.samples} == {"abstract+intro"}


def test_bare_carriage_return_is_repaired() -> None:
    abstract = read_pairs(PAIRS).samples[1].metadata["paper_b"]["abstract"]
    assert abstract.startswith("Code completion benefits from context beyond the current file")
    # unrepaired, the reader ends the row at the bare \r: pair 2 falls apart into two bad rows
    broken = parse_pairs(read_text(PAIRS), str(PAIRS))
    assert ids(broken.samples) == ["tod-1", "tod-4"] and broken.skipped == 3
    assert repair("a\rb\r\nc\r\r\nd\r") == "a b\nc \nd "


def test_quoted_field_keeps_its_lines() -> None:
    intro = read_pairs(PAIRS).samples[2].metadata["paper_a"]["introduction"]
    assert intro.startswith("Labelled data is the main cost")
    assert "\nReferences\n[1] A. Author." in intro and intro.endswith("\n17")


# -- the reader --------------------------------------------------------------------------------


def test_columns_are_found_by_header_name() -> None:
    order = [10, 3, 0, 2, 1, 4, 9, 8, 7, 6, 5]
    shuffled = tsv([[row("t1", "1", "0")[i] for i in order]], [HEADER[i] for i in order])
    # spacing and case of a header do not matter; an extra column is ignored
    spaced = tsv(
        [[*row("t1", "1", "0"), "x"]], [*(f" {h.upper()} " for h in HEADER), "Contributor"]
    )
    plain = parse_pairs(tsv([row("t1", "1", "0")]), "plain").samples[0]
    for text in (shuffled, spaced, "\ufeff" + tsv([row("t1", "1", "0")])):
        sample = parse_pairs(text, "here").samples[0]
        assert (sample.id, sample.input, sample.metadata) == (plain.id, plain.input, plain.metadata)
    assert plain.metadata["kind"] == "task" and plain.metadata["cited"] == 0


def test_missing_column_is_named() -> None:
    with pytest.raises(ValueError, match=r"here: the header has no column 'Paper #2 Title'"):
        parse_pairs(tsv([row()], [h for h in HEADER if h != "Paper #2 Title"]), "here")
    with pytest.raises(ValueError, match="no column 'Topic'"):
        parse_pairs("", "empty")


@pytest.mark.parametrize(
    "bad",
    [row()[:10], [*row(), "extra"], row(kind="2"), row(cite="yes"), row(topic=" "),
     row(title_a=""), row(kind="")],
)  # fmt: skip
def test_bad_rows_are_skipped_and_counted(bad: list[str]) -> None:
    pairs = parse_pairs(tsv([row("t1"), bad, [""], row("t3")]), "here")
    assert ids(pairs.samples) == ["tod-1", "tod-4"]  # the blank line is no pair and no fault
    assert pairs.skipped == 1


def test_unreadable_file_names_the_line() -> None:
    text = tsv([row("t1")]) + '"' + "x" * 200_000  # an unclosed quote over the field size limit
    with pytest.raises(ValueError, match=r"^here:\d+: not readable as TSV"):
        parse_pairs(text, "here")


def test_file_faults_name_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "pairs.tsv"
    bad.write_bytes(tsv([row()]).encode() + b"topic\t\xff\r\n")
    with pytest.raises(ValueError, match=f"^{bad}:3: not UTF-8 text"):
        read_pairs(bad)
    with pytest.raises(FileNotFoundError, match="data_path"):
        read_pairs(tmp_path / "absent.tsv")


def test_reader_is_linear() -> None:
    start = time.perf_counter()
    # 100,000 bare \r (spaces once repaired: a field under the reader's size limit), then tabs
    pairs = parse_pairs(repair(tsv([row()]) + "x" + "\r" * 100_000 + "\t" * 100_000), "here")
    assert time.perf_counter() - start < 2.0
    assert ids(pairs.samples) == ["tod-1"] and pairs.skipped == 1


# -- subsets -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kind, cited, expected",
    [("all", "all", ["tod-1", "tod-2", "tod-3"]), ("method", "all", ["tod-1", "tod-3"]),
     ("task", "all", ["tod-2"]), ("all", "yes", ["tod-1"]), ("all", "no", ["tod-2", "tod-3"]),
     ("method", "no", ["tod-3"]), ("task", "yes", [])],
)  # fmt: skip
def test_kind_and_cited_subsets(kind: str, cited: str, expected: list[str]) -> None:
    samples = read_pairs(PAIRS).samples
    assert ids(s for s in samples if wanted(s, kind, cited)) == expected


def test_cells_count_table_1() -> None:
    assert cells(read_pairs(PAIRS).samples) == {
        "method+cite": 1,
        "method+nocite": 1,
        "task+cite": 0,
        "task+nocite": 1,
    }


# -- the task ----------------------------------------------------------------------------------


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("must not download")

    monkeypatch.setattr(urllib.request, "urlopen", refuse)


@pytest.mark.parametrize(
    "options, name",
    [({"kind": "methods"}, "kind"), ({"cited": True}, "cited"), ({"cited": "cite"}, "cited"),
     ({"subset": 0}, "subset"), ({"seed": "x"}, "seed"), ({"shuffle": "maybe"}, "shuffle"),
     ({"data_path": 3}, "data_path")],
)  # fmt: skip
def test_options_are_checked_before_any_download(no_network, options: dict, name: str) -> None:
    with pytest.raises(ValueError, match=f"task option '{name}'"):
        paper_compare(**options)


def test_no_matching_pair_is_an_error(no_network) -> None:
    with pytest.raises(ValueError, match=r"no pair of .* is kind=task, cited=yes"):
        paper_compare(data_path=str(PAIRS), kind="task", cited="yes")


def test_task_from_a_local_file(no_network) -> None:
    task = paper_compare(data_path=str(PAIRS), kind="method")
    assert ids(task.dataset) == ["tod-1", "tod-3"]
    assert task.metadata == {
        "source": str(PAIRS),
        "kind": "method",
        "cited": "all",
        "pairs": 3,
        "skipped_rows": 1,
        "cells": {"method+cite": 1, "method+nocite": 1, "task+cite": 0, "task+nocite": 1},
        "text_source": "abstract+intro",
        "subset": None,
        "shuffle": False,
        "seed": 42,
    }
    assert ids(paper_compare(data_path=str(PAIRS), subset=2).dataset) == ["tod-1", "tod-2"]


def test_task_reads_the_cached_pinned_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_network
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))
    cached = tmp_path / "tree_of_debate" / SOURCE_COMMIT / "tree_of_debate_dataset.tsv"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(PAIRS.read_bytes())
    task = paper_compare(cited="yes")
    assert ids(task.dataset) == ["tod-1"]
    assert SOURCE_COMMIT in task.metadata["source"]


def test_download_with_another_digest_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MAD_TASKS_CACHE_DIR", str(tmp_path))

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc) -> None:
            pass

        def read(self) -> bytes:
            return PAIRS.read_bytes()

    monkeypatch.setattr(urllib.request, "urlopen", lambda *a, **k: Response())
    with pytest.raises(RuntimeError, match=f"expected {SOURCE_SHA256}"):
        paper_compare()
    assert not list(tmp_path.rglob("*.tsv"))


# -- the real upstream file (../shared/data) ---------------------------------------------------


def test_upstream_file() -> None:
    path = shared("tree_of_debate/tree_of_debate_dataset.tsv")
    assert hashlib.sha256(path.read_bytes()).hexdigest() == SOURCE_SHA256
    pairs = read_pairs(path)
    assert len(pairs.samples) == 99 and pairs.skipped == 0
    assert ids(pairs.samples) == [f"tod-{n}" for n in range(1, 100)]
    # the paper's Table 1 says 15/15/30/40 over 100 pairs; the file has 99
    assert cells(pairs.samples) == {
        "method+cite": 15,
        "method+nocite": 30,
        "task+cite": 14,
        "task+nocite": 40,
    }
    topics = [s.input for s in pairs.samples]
    assert topics.count("selecting subsets of data for efficient model fine-tuning") == 66
    # without the repair, the two rows holding the 3 bare \r fall apart (5 pieces skipped) and
    # the 97 intact rows give the spec's count
    broken = parse_pairs(read_text(path), str(path))
    assert len(broken.samples) == 97 and broken.skipped == 5
    assert cells(broken.samples) == {
        "method+cite": 15,
        "method+nocite": 29,
        "task+cite": 14,
        "task+nocite": 39,
    }

"""Every reader of model output runs in linear time and never raises, on replies up to 200,000
characters built to make backtracking patterns blow up.

The bound is generous (a loaded 2-core machine); this is no benchmark (see benchmarks/readers.py):
a quadratic reader takes minutes on these inputs, a linear one milliseconds.
"""

from __future__ import annotations

import time

import pytest
from adversarial import FRAGMENTS, READERS, SIZE, WORST_CASES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

BOUND = 2.0  # seconds per reader and reply


def slow_or_raising(text: str) -> list[str]:
    """What went wrong, per reader: an exception or a time over the bound."""
    problems = []
    for name, read in READERS.items():
        start = time.perf_counter()
        try:
            read(text)
        except Exception as e:  # noqa: BLE001 - any exception is the defect under test
            problems.append(f"{name}: raised {type(e).__name__}: {str(e)[:80]}")
            continue
        elapsed = time.perf_counter() - start
        if elapsed > BOUND:
            problems.append(f"{name}: {elapsed:.1f} s")
    return problems


@st.composite
def adversarial_replies(draw: st.DrawFn) -> str:
    """One to three long runs of a repeated unit of fragments, with a little around them; long
    (20,000 to 200,000 characters), since a quadratic reader is slow only on long replies."""
    pieces = st.lists(st.sampled_from(FRAGMENTS), min_size=1, max_size=5).map("".join)
    units = draw(st.lists(pieces, min_size=1, max_size=3))
    length = draw(st.integers(SIZE // 10, SIZE)) // len(units)
    text = draw(st.lists(st.sampled_from(FRAGMENTS), max_size=4).map("".join))
    for unit in units:
        text += unit * (length // len(unit)) + draw(pieces)
    return text


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(adversarial_replies())
def test_every_reader_is_linear_and_never_raises(text: str) -> None:
    assert slow_or_raising(text) == [], f"reply of {len(text):,} characters: {text[:60]!r}..."


@pytest.mark.parametrize("case", WORST_CASES)
def test_worst_case(case: str) -> None:
    assert slow_or_raising(WORST_CASES[case]) == []


def test_the_reader_table_covers_every_kind() -> None:
    kinds = {name.split()[0] for name in READERS}
    covered = {"answer", "latex", "ballot", "consensus", "d3", "cortex", "persona", "tod", "pd3"}
    assert covered <= kinds
    assert all(len(text) >= SIZE - 20 for text in WORST_CASES.values())

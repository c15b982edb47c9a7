"""Where the tests find their data.

The project's own small fixtures (`tests/fixtures/`, written for these tests in the public files'
schemas) are always there. The larger reference data sits beside the project (`../shared/data`,
or the folder `MAD_TASKS_SHARED_DATA` names) and is absent in a plain clone: a test that needs it
calls `shared()` and skips with the reason.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent / "fixtures"
STRATEGYQA = FIXTURES / "strategyqa.jsonl"  # 20 yes/no questions, StrategyQA's record schema
MT_BENCH_PAIRS = FIXTURES / "mt_bench_pairs.jsonl"  # 10 judged pairs, the shared pairs' schema

SHARED_DATA = Path(
    os.environ.get("MAD_TASKS_SHARED_DATA")
    or Path(__file__).resolve().parents[2] / "shared" / "data"
)


def shared(relative: str) -> Path:
    """A reference data file; the calling test skips when it is absent."""
    path = SHARED_DATA / relative
    if not path.is_file():
        pytest.skip(f"reference data {path} is absent (MAD_TASKS_SHARED_DATA sets its folder)")
    return path

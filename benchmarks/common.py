"""What every benchmark shares: where its data is (the shared reference data beside the
repository, else the project's small fixture, so a fresh clone runs too) and `--quick`, a few
samples at a short latency that the test suite runs each benchmark with (tests/test_benchmarks.py)
so that none rots unnoticed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
FIXTURES = ROOT / "tests" / "fixtures"


def data(shared: str, fixture: str) -> Path:
    """The shared file (a path under ../shared/data) if present, else the fixture (under
    tests/fixtures)."""
    path = SHARED / shared
    return path if path.exists() else FIXTURES / fixture


def parser(doc: str | None) -> argparse.ArgumentParser:
    """The script's parser, with `--quick`."""
    ap = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    ap.add_argument(
        "--quick",
        action="store_true",
        help="a few samples at a short latency: seconds, for the test suite",
    )
    return ap


def arguments(ap: argparse.ArgumentParser, **small: Any) -> argparse.Namespace:
    """The parsed options; with --quick, `small`'s values replace theirs."""
    a = ap.parse_args()
    if a.quick:
        for name, value in small.items():
            setattr(a, name, value)
    return a

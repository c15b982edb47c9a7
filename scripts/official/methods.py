"""Every method checked against its authors' code: each method_*.py module here declares its
`METHODS` (a tuple of spec.Method); this collects them by id."""

from __future__ import annotations

import importlib
from pathlib import Path

from spec import Method


def _collect() -> dict[str, Method]:
    found: dict[str, Method] = {}
    for path in sorted(Path(__file__).resolve().parent.glob("method_*.py")):
        for method in importlib.import_module(path.stem).METHODS:
            assert method.id not in found, f"two methods with id {method.id}"
            found[method.id] = method
    return found


METHODS = _collect()

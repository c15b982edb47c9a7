"""`_inspect_compat`, the one module that imports Inspect internals: it reaches them on the
installed Inspect, and when a release moves one it degrades as documented instead of failing.

These tests use private Inspect API on purpose: they delete or replace the internals to simulate
a move (`monkeypatch` restores them) and read Inspect's registry directly.
"""

from __future__ import annotations

import ast
import importlib
import logging
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import anyio
import pytest
from inspect_ai import Task
from inspect_ai._util.registry import registry_lookup
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig
from inspect_ai.scorer import Score, Scorer, Target, scorer
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import registry_info
from test_registry import fake_factory

import mad_tasks._registry
from mad_tasks import _aliases
from mad_tasks._aliases import register_short_aliases
from mad_tasks._inspect_compat import (
    active_generate_config,
    quiet_store,
    sample_state,
    scoring_elapsed,
    short_names,
    task_name,
)

SRC = Path(__file__).parent.parent / "src" / "mad_tasks"
CANONICAL = [registry_info(factory).name for factory in mad_tasks._registry.SOLVERS.values()]


def private_inspect_imports(path: Path) -> list[str]:
    """The Inspect modules `path` imports that have a `_private` part."""
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            parts = name.split(".")
            if parts[0] == "inspect_ai" and any(p.startswith("_") for p in parts[1:]):
                found.append(name)
    return found


def test_private_inspect_imports_live_in_the_compat_module_only() -> None:
    importers = {
        str(path.relative_to(SRC)): private_inspect_imports(path)
        for path in SRC.rglob("*.py")
        if private_inspect_imports(path)
    }
    assert set(importers) == {"_inspect_compat.py"}, importers


# -- on the installed Inspect every accessor reaches the internal it reads -------------------------


def test_the_short_names_calls_are_there() -> None:
    assert short_names() is not None


def test_the_sample_accessors_read_the_running_sample(run) -> None:
    seen = []

    @solver
    def probe() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            running = sample_state()
            assert running is not None
            seen.append((running.epoch, running.target.text, task_name(), active_generate_config()))
            return state

        return solve

    task = Task(name="compat_probe", dataset=[Sample(input="q", target="gold")], solver=probe())
    run(task, model="mockllm/model", epochs=2, temperature=0.25, seed=7)
    assert sorted((epoch, target, name) for epoch, target, name, _ in seen) == [
        (1, "gold", "compat_probe"),
        (2, "gold", "compat_probe"),
    ]
    assert all((c.temperature, c.seed) == (0.25, 7) for *_, c in seen)


def test_scoring_elapsed_is_none_while_the_solver_runs_and_counts_from_its_end(run) -> None:
    seen: dict[str, float | None] = {}

    @solver
    def slow() -> Solver:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            seen["solver"] = scoring_elapsed(0.0)
            await anyio.sleep(0.3)
            return state

        return solve

    @scorer(metrics=[])
    def timed() -> Scorer:
        async def score(state: TaskState, target: Target) -> Score:
            seen["scoring, all"] = scoring_elapsed(0.0)  # the whole running time
            seen["scoring"] = scoring_elapsed(0.3)  # less what the solver took
            return Score(value=1)

        return score

    task = Task(dataset=[Sample(input="q", target="t")], solver=slow(), scorer=timed())
    run(task, model="mockllm/model", time_limit=30)
    assert seen["solver"] is None
    assert seen["scoring, all"] is not None and 0.3 <= seen["scoring, all"] < 5
    assert seen["scoring"] is not None and 0 <= seen["scoring"] < seen["scoring, all"]


def test_scoring_elapsed_is_none_once_inspect_moves_its_limit_snapshot(monkeypatch) -> None:
    import inspect_ai.util._limit as limits

    monkeypatch.delattr(limits, "_sample_limit_data")
    assert scoring_elapsed(0.0) is None


# -- simulated moves -------------------------------------------------------------------------------

CONFIG = GenerateConfig(temperature=0.25)
STATE = object()  # stands for the running sample's TaskState

MOVES = [
    # module, attribute, a stand-in for it, the accessor, what it gives, what it gives once moved
    ("inspect_ai.log._samples", "sample_active", lambda: SimpleNamespace(task="t"), task_name, "t", None),
    ("inspect_ai.solver._task_state", "sample_state", lambda: STATE, sample_state, STATE, None),
    ("inspect_ai.model._generate_config", "active_generate_config", lambda: CONFIG,
     active_generate_config, CONFIG, GenerateConfig()),
]  # fmt: skip


@pytest.mark.parametrize(
    ("module", "attribute", "stand_in", "accessor", "present", "moved"),
    MOVES,
    ids=[m[1] for m in MOVES],
)
def test_a_moved_internal_gives_the_neutral_value(
    monkeypatch, module, attribute, stand_in, accessor, present, moved
) -> None:
    target = importlib.import_module(module)
    monkeypatch.setattr(target, attribute, stand_in)
    assert accessor() == present  # the accessor reads exactly this internal
    monkeypatch.delattr(target, attribute)
    assert accessor() == moved


def test_quiet_store_suspends_the_spans_store_copies_and_is_a_no_op_once_moved(
    monkeypatch,
) -> None:
    from inspect_ai.util import _store

    with quiet_store():
        assert _store.store_events_suspended()  # spans opened here copy no store
    assert not _store.store_events_suspended()
    monkeypatch.delattr(_store, "suspend_store_events")
    with quiet_store():
        assert not _store.store_events_suspended()  # moved: spans copy the store as before


@pytest.mark.parametrize(
    ("module", "attribute"),
    [
        ("inspect_ai._util.registry", "registry_has"),
        ("inspect_ai._util.registry", "set_registry_info"),
        ("inspect_ai.solver._solver", "solver_register"),
        ("inspect_ai.scorer._scorer", "scorer_register"),
    ],
)
def test_moved_registry_internals_leave_one_warning_line_and_the_namespaced_names(
    monkeypatch, caplog, module, attribute
) -> None:
    factory = fake_factory("mad_tasks/zz_compat_moved")
    monkeypatch.delattr(importlib.import_module(module), attribute)
    assert short_names() is None
    _aliases._warn_moved.cache_clear()  # the warning is said once per process
    with caplog.at_level(logging.WARNING):
        assert register_short_aliases([factory]) == []
        assert register_short_aliases([factory], "scorer") == []
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("mad_tasks._aliases", logging.WARNING, _aliases.MOVED)
    ]
    assert "\n" not in _aliases.MOVED
    assert registry_lookup("solver", "zz_compat_moved") is None
    for name in CANONICAL:  # (building one needs set_registry_info: the fresh-load test builds)
        assert registry_info(registry_lookup("solver", name)).name == name


MOVED_AT_LOAD = """
import inspect_ai._util.registry as registry
del registry.registry_has  # as if an Inspect release had moved it
from inspect_ai._util.registry import create_registry_object, registry_lookup
from inspect_ai.util import registry_info
# as `inspect eval --solver mad_tasks/voting -S agents=4` does; Inspect loads the plugin here
built = create_registry_object("solver", "mad_tasks/voting", {"agents": 4})
print(registry_info(built).name, registry_lookup("solver", "voting"))
"""


@pytest.mark.slow
def test_a_fresh_load_with_moved_internals_warns_once_and_runs_the_namespaced_names() -> None:
    done = subprocess.run(
        [sys.executable, "-c", MOVED_AT_LOAD], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["mad_tasks/voting", "None"]
    assert [line for line in done.stderr.splitlines() if "mad_tasks" in line] == [_aliases.MOVED]

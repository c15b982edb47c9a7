"""Solver names: Inspect's prefixed `mad_tasks/<name>` and the project's short aliases.

These tests read Inspect's registry through its private module (`inspect_ai._util.registry`:
`registry_lookup`, `registry_params`, `create_registry_object` as `--solver NAME -S ...` uses it,
`set_registry_info` for a stand-in factory), since what the registry holds is what they check.
The package itself reaches Inspect internals only through `mad_tasks._inspect_compat`;
tests/test_inspect_compat.py checks that they are there and what happens when they move.
"""

from __future__ import annotations

import pytest
from inspect_ai._util.registry import registry_lookup, set_registry_info
from inspect_ai.solver import Solver, TaskState, solver
from inspect_ai.util import RegistryInfo, registry_info

import mad_tasks._registry
from mad_tasks._aliases import register_short_aliases

NAMES = [
    "single", "cot", "self_consistency", "du_debate", "cortex",
    "voting", "consensus", "aad", "collective_improvement", "more", "samre", "single_judge",
    "peer_discussion",
    "tree_of_debate", "tod_no_tree", "tod_no_sd", "single_stage", "two_stage",
    "pd3", "llm_voting", "listwise", "pointwise", "reranker", "tourrank", "bm25", "rouge_l", "pd3_feedback",
]  # fmt: skip


@pytest.mark.parametrize("name", NAMES)
def test_prefixed_and_short_names_resolve(name: str) -> None:
    canonical = registry_lookup("solver", f"mad_tasks/{name}")
    alias = registry_lookup("solver", name)
    assert canonical is not None and alias is not None
    assert registry_info(canonical).name == f"mad_tasks/{name}"
    # the alias builds the canonical solver: the log records mad_tasks/<name>
    assert registry_info(alias()).name == f"mad_tasks/{name}"
    assert registry_info(canonical()).name == f"mad_tasks/{name}"


def test_alias_passes_arguments_through() -> None:
    from inspect_ai._util.registry import registry_params

    built = registry_lookup("solver", "du_debate")(agents=4, rounds=3)
    assert registry_params(built)["agents"] == 4
    assert registry_params(built)["rounds"] == 3
    with pytest.raises(ValueError, match="'agents'"):
        registry_lookup("solver", "du_debate")(agents=0)


def test_alias_created_by_name_is_recorded_under_the_canonical_name() -> None:
    # how `inspect eval --solver du_debate -S agents=4` builds the solver
    from inspect_ai._util.registry import create_registry_object, registry_params

    built = create_registry_object("solver", "du_debate", {"agents": 4})
    assert registry_info(built).name == "mad_tasks/du_debate"
    assert registry_params(built) == {"agents": 4}


def fake_factory(qualified: str):
    """A solver factory carrying registry info `qualified` without being added to the registry."""

    def factory() -> Solver:
        async def solve(state: TaskState, generate) -> TaskState:
            return state

        return solve

    set_registry_info(factory, RegistryInfo(type="solver", name=qualified))
    return factory


def test_register_short_aliases_registers_a_free_name() -> None:
    factory = fake_factory("mad_tasks/zz_alias_free_name")
    assert registry_lookup("solver", "zz_alias_free_name") is None
    assert register_short_aliases([factory]) == ["zz_alias_free_name"]
    assert registry_lookup("solver", "zz_alias_free_name") is not None


def test_register_short_aliases_never_shadows_an_existing_name() -> None:
    @solver(name="zz_alias_taken")
    def someone_elses() -> Solver:
        async def solve(state: TaskState, generate) -> TaskState:
            return state

        return solve

    held = registry_lookup("solver", "zz_alias_taken")
    assert held is not None
    assert register_short_aliases([fake_factory("mad_tasks/zz_alias_taken")]) == []
    assert registry_lookup("solver", "zz_alias_taken") is held


def test_register_short_aliases_never_shadows_inspect_builtins() -> None:
    builtin = registry_lookup("solver", "generate")
    assert register_short_aliases([fake_factory("mad_tasks/generate")]) == []
    assert registry_lookup("solver", "generate") is builtin


def test_registering_the_project_aliases_again_changes_nothing() -> None:
    before = {name: registry_lookup("solver", name) for name in NAMES}
    assert register_short_aliases(list(mad_tasks._registry.SOLVERS.values())) == []
    assert {name: registry_lookup("solver", name) for name in NAMES} == before


def test_tasks_scorers_and_model_api_are_registered() -> None:
    assert registry_lookup("task", "mad_tasks/strategyqa") is not None
    assert registry_lookup("scorer", "mad_tasks/final_answer") is not None
    assert registry_lookup("scorer", "mad_tasks/calls") is not None  # a debate_stats figure

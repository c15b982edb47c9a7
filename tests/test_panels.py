"""A role bound to a list of models is a panel (engine/panels.py): the numbered members of a
family take the list's models in turn, an explicit binding of a member wins, and a role that one
call serves is refused by name before any call. Never the first model silently."""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from inspect_ai import eval
from testdata import STRATEGYQA

from mad_tasks import solvers
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.panels import (
    PanelError,
    Pick,
    Seat,
    called,
    named,
    panels,
    pick,
    refusal,
    seats,
)
from mad_tasks.engine.spec import members
from mad_tasks.tasks.strategyqa import strategyqa

PANEL = ["madsim/y", "madsim/z"]


def test_members_take_seats_in_declared_order_within_their_family() -> None:
    declared = ("agent", "agent_1", "agent_2", "agent_3", "author_0", "author_1", "judge")
    assert seats(declared) == {
        "agent_1": Seat("agent", 0),
        "agent_2": Seat("agent", 1),
        "agent_3": Seat("agent", 2),
        "author_0": Seat("author", 0),  # a family numbered from 0 seats from 0 too
        "author_1": Seat("author", 1),
    }
    assert panels(declared) == {
        "agent": ["agent_1", "agent_2", "agent_3"],
        "author": ["author_0", "author_1"],
    }
    assert called(declared) == ("agent_1", "agent_2", "agent_3", "author_0", "author_1", "judge")
    assert named(["juror_2", "judge", "juror_1", "advocate_1"]) == ["juror", "judge", "advocate"]
    assert members("juror", 2) == ("juror", "juror_1", "juror_2")
    assert members("author", 2, first=0) == ("author", "author_0", "author_1")


DEBATE = members("agent", 3)


@pytest.mark.parametrize(
    ("role", "bound", "expected"),
    [
        # a member falling back to a list takes the model of its seat, in turn
        ("agent_1", {"agent": 2}, Pick("agent", 0, 2)),
        ("agent_2", {"agent": 2}, Pick("agent", 1, 2)),
        ("agent_3", {"agent": 2}, Pick("agent", 0, 2)),
        ("agent_3", {"agent": 3}, Pick("agent", 2, 3)),
        # its own binding wins over the family's list
        ("agent_2", {"agent": 2, "agent_2": None}, Pick("agent_2")),
        # one model for the family: every member on it
        ("agent_3", {"agent": None}, Pick("agent")),
        # unbound: the host's default model
        ("agent_1", {"judge": None}, None),
    ],
)
def test_a_call_picks_its_model_by_its_seat(
    role: str, bound: dict[str, int | None], expected: Pick | None
) -> None:
    assert pick(role, bound, DEBATE) == expected


def test_a_list_reaching_a_role_without_a_seat_raises_rather_than_use_the_first() -> None:
    with pytest.raises(PanelError, match="model role judge is bound to a list of 2 models"):
        pick("judge", {"judge": 2}, DEBATE)
    with pytest.raises(PanelError, match=r"agent_4 \(through agent\)"):
        pick("agent_4", {"agent": 2}, DEBATE)  # not a declared member


@pytest.mark.parametrize(
    ("lists", "message"),
    [
        ({"agent": PANEL}, None),
        ({"agent": [*PANEL, "madsim/w"]}, None),  # three models, three members
        ({"juror": PANEL}, None),  # not a role of this method: not its concern
        (
            {"agent": [*PANEL, "madsim/w", "madsim/v"]},
            "model role agent is bound to [madsim/y, madsim/z, madsim/w, madsim/v]; allowed: at "
            "most 3 models, one per member (agent_1, agent_2, agent_3): more would leave a model "
            "no member runs on",
        ),
        (
            {"agent_2": PANEL},
            "model role agent_2 is bound to [madsim/y, madsim/z]; allowed: one model: agent_2 is "
            "one member of the agent panel (bind a list to agent for every member)",
        ),
        (
            {"judge": PANEL},
            "model role judge is bound to [madsim/y, madsim/z]; allowed: one model: judge makes "
            "one call where it is asked, and this method has no rule to combine several models' "
            "replies for it; its panels are agent (3 members)",
        ),
        (
            {"agent": []},
            "model role agent is bound to a list of 0 models; allowed: a list of at "
            "least one model",
        ),
    ],
)
def test_lists_are_refused_by_name_where_no_member_can_take_them(
    lists: dict[str, list[str]], message: str | None
) -> None:
    refused = refusal((*DEBATE, "judge"), lists)
    assert (str(refused) if refused else None) == message


def declared_roles(name: str) -> tuple[str, ...]:
    spec = CATALOGUE[name]
    return spec.roles(spec.options(**spec.preset))


ROLES = [(name, role) for name in CATALOGUE.names() for role in declared_roles(name)]


@pytest.mark.parametrize(("method", "role"), ROLES, ids=[f"{m}:{r}" for m, r in ROLES])
def test_every_role_of_every_method_is_a_panel_or_refuses_a_list_by_name(
    method: str, role: str
) -> None:
    declared = declared_roles(method)
    families = panels(declared)
    refused = refusal(declared, {role: PANEL})
    if role in families and len(families[role]) >= len(PANEL):
        assert refused is None  # a panel: every member takes a model in turn
        sizes: dict[str, int | None] = {role: len(PANEL)}
        chosen = [pick(m, sizes, declared) for m in families[role]]
        assert [c.index if c else None for c in chosen] == [
            i % len(PANEL) for i in range(len(families[role]))
        ]
    else:
        assert refused is not None and str(refused).startswith(
            f"model role {role} is bound to [madsim/y, madsim/z]; allowed: "
        )


def agent_models(log: Any) -> list[dict[str, Any]]:
    return [s.store["mad_tasks:debate"]["options"]["roles"] for s in log.samples]


def calls_by_model(log: Any) -> Counter[str]:
    """Model calls per model, from the samples' model events."""
    return Counter(e.model for s in log.samples for e in s.events if e.event == "model")


def test_a_debate_on_a_panel_sends_each_agent_to_its_own_model(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=solvers.du_debate(agents=3, rounds=2),
        model="madsim/x",
        model_roles={"agent": PANEL},
        limit=2,
    )
    y = {"model": "madsim/y", "fallback": "agent", "position": 1, "panel": 2}
    z = {"model": "madsim/z", "fallback": "agent", "position": 2, "panel": 2}
    assert agent_models(log) == 2 * [{"agent_1": y, "agent_2": z, "agent_3": y}]
    # 2 samples x 2 rounds: agents 1 and 3 on y, agent 2 on z, none on the main model
    assert calls_by_model(log) == {"madsim/y": 8, "madsim/z": 4}
    for sample in log.samples:
        assert set(sample.model_usage) == {"madsim/y", "madsim/z"}


def test_a_member_bound_beside_the_list_runs_on_its_own_model(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=solvers.du_debate(agents=3, rounds=2),
        model="madsim/main",
        model_roles={"agent": PANEL, "agent_2": "madsim/x"},
        limit=1,
    )
    [roles] = agent_models(log)
    assert {r: (m["model"], m["fallback"]) for r, m in roles.items()} == {
        "agent_1": ("madsim/y", "agent"),
        "agent_2": ("madsim/x", None),
        "agent_3": ("madsim/y", "agent"),
    }
    assert calls_by_model(log) == {"madsim/y": 4, "madsim/x": 2}


@pytest.mark.parametrize(
    ("solver", "role"),
    [
        (solvers.single(), "agent"),
        (solvers.du_debate(agents=3), "agent_2"),
    ],
)
def test_a_list_where_one_model_is_allowed_fails_the_run_before_any_call(
    tmp_path, solver, role: str
) -> None:
    [log] = eval(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=solver,
        model="madsim/x",
        model_roles={role: PANEL},
        limit=1,
        display="none",
        log_dir=str(tmp_path),
    )
    assert log.status == "error" and log.error is not None
    assert f"model role {role} is bound to [madsim/y, madsim/z]; allowed: one model" in (
        log.error.message
    )
    assert not any(e.event == "model" for s in log.samples or [] for e in s.events)


PANELS_OF = {
    name: {f: m for f, m in panels(declared_roles(name)).items() if len(m) >= 2}
    for name in CATALOGUE.names()
}


@pytest.mark.parametrize("method", CATALOGUE.names())
def test_every_method_runs_its_panels_each_member_on_the_model_of_its_seat(
    run, method: str
) -> None:
    """Every family a method declares, bound to two models: the run succeeds, every call goes
    to a declared role (so a list bound to any role it calls is checked before the first call),
    and each member runs on the model of its seat."""
    from test_default_view import TASKS  # each kind of sample's task, on its fixture

    spec = CATALOGUE[method]
    families = PANELS_OF[method]
    log = run(
        TASKS[spec.reads](),
        solver=getattr(solvers, method)(),
        model="madsim/x",
        model_roles=dict.fromkeys(families, PANEL),
        limit=1,
    )
    declared = declared_roles(method)
    for sample in log.samples:
        record = sample.store["mad_tasks:debate"]
        assert {c["role"] for c in record["calls"]} <= set(called(declared))
        for role, model in record["options"]["roles"].items():
            seat = seats(declared).get(role)
            if seat is not None and seat.family in families:
                assert model["model"] == PANEL[seat.index % 2], (role, model)
                assert model["position"] == seat.index % 2 + 1


VARIANTS = [
    ("chateval", {"strategy": "simultaneous_summarizer"}, "summarizer"),
    ("voting", {"challenge": "wrong"}, "challenger"),
    ("cortex", {"similarity": "prompted"}, "similarity"),
]


@pytest.mark.parametrize(("method", "options", "role"), VARIANTS, ids=[v[0] for v in VARIANTS])
def test_a_role_an_option_adds_is_declared_so_a_list_on_it_is_refused_before_any_call(
    run, tmp_path, method: str, options: dict[str, Any], role: str
) -> None:
    spec = CATALOGUE[method]
    declared = spec.roles(spec.options(**{**spec.preset, **options}))
    assert role in declared
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=getattr(solvers, method)(**options),
        model="madsim/x",
        limit=1,
    )
    record = log.samples[0].store["mad_tasks:debate"]
    assert {c["role"] for c in record["calls"]} <= set(called(declared))
    assert role in {c["role"] for c in record["calls"]}
    [failed] = eval(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=getattr(solvers, method)(**options),
        model="madsim/x",
        model_roles={role: PANEL},
        limit=1,
        display="none",
        log_dir=str(tmp_path / "refused"),
    )
    assert failed.status == "error" and failed.error is not None
    assert f"model role {role} is bound to [madsim/y, madsim/z]" in failed.error.message
    assert not any(e.event == "model" for s in failed.samples or [] for e in s.events)

"""Panels in the other hosts: a role of the OpenAI-evals completion functions or of lm-eval's `mad`
model bound to a list of models (engine/panels.py, hosts/bindings.py). The numbered members of a
family take the list's models in turn, counted by the requests each model gets on a stub server;
a member bound beside the list runs on its own model; a list where one model is allowed, an
empty list or an unknown backend is refused by name before any request. Never the first model
silently."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from openai_stub import OpenAIStub

from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.panels import Bound, panels, resolve
from mad_tasks.engine.spec import members
from mad_tasks.hosts.openai_evals import BATTLE_ASK, DebateCompletionFn, JudgeCompletionFn

FIXTURE = Path(__file__).parent / "fixtures" / "strategyqa.jsonl"
QUESTIONS = [json.loads(line)["question"] for line in FIXTURE.read_text().splitlines()[:2]]
DEBATE = members("agent", 3)
PANEL = ["madsim/y", "madsim/z"]


def declared_roles(name: str) -> tuple[str, ...]:
    spec = CATALOGUE[name]
    return spec.roles(spec.options(**spec.preset))


def roles_of(methods: list[str]) -> list[tuple[str, str]]:
    return [(name, role) for name in methods for role in declared_roles(name)]


def seats_the_panel(method: str, role: str) -> bool:
    """Whether the method seats a list of two models on `role`: a family of two members or
    more; every other role takes one model."""
    return len(panels(declared_roles(method)).get(role, [])) >= len(PANEL)


def yes(body: dict[str, Any]) -> str:
    return "I checked.\nANSWER: yes"


def by_model(stub: OpenAIStub) -> Counter[str]:
    return Counter(r["model"] for r in stub.requests)


def test_a_host_binding_resolves_by_seat_and_a_member_s_own_binding_wins() -> None:
    panel: dict[str, str | list[str]] = {"agent": ["a", "b"]}
    assert resolve("agent_1", panel, DEBATE) == Bound("a", "agent", 1, 2)
    assert resolve("agent_2", panel, DEBATE) == Bound("b", "agent", 2, 2)
    assert resolve("agent_3", panel, DEBATE) == Bound("a", "agent", 1, 2)
    assert resolve("agent_2", {**panel, "agent_2": "c"}, DEBATE) == Bound("c", None)
    assert resolve("agent_1", {"agent": "m"}, DEBATE) == Bound("m", "agent")
    assert resolve("agent_1", {}, DEBATE) is None  # the host's default
    assert Bound("a", "agent", 1, 2).shown() == {"fallback": "agent", "position": 1, "panel": 2}
    assert Bound("c", None).shown() == {"fallback": None}


# -- OpenAI evals: the completion functions ---------------------------------------------------------


def debate(stub: OpenAIStub, **args: Any) -> DebateCompletionFn:
    given = {"method": "du_debate", "agents": 3, "rounds": 2, "answer_format": "yesno", **args}
    return DebateCompletionFn(model="main", base_url=stub.base_url, api_key="k", **given)


def test_a_completion_function_s_panel_sends_agents_1_and_3_to_a_and_agent_2_to_b() -> None:
    with OpenAIStub(reply=yes) as stub:
        url = stub.base_url
        done = debate(stub, roles={"agent": ["a", "b"]})("Is water wet?")
        assert done.get_completions() == ["Yes"]
        # 2 rounds: agents 1 and 3 on a, agent 2 on b, none on the default model
        assert by_model(stub) == {"a": 4, "b": 2}
    assert done.record is not None
    a = {"model": "a", "base_url": url, "fallback": "agent", "position": 1, "panel": 2}
    b = {"model": "b", "base_url": url, "fallback": "agent", "position": 2, "panel": 2}
    assert done.record.options["roles"] == {"agent_1": a, "agent_2": b, "agent_3": a}


def test_a_member_bound_beside_the_list_runs_on_its_own_model() -> None:
    with OpenAIStub(reply=yes) as stub:
        url = stub.base_url
        done = debate(stub, roles={"agent": ["a", "b"], "agent_2": "c"})("Is water wet?")
        assert by_model(stub) == {"a": 4, "c": 2}
    assert done.record is not None
    roles = done.record.options["roles"]
    assert roles["agent_2"] == {"model": "c", "base_url": url, "fallback": None}
    assert [roles[f"agent_{i}"]["model"] for i in (1, 2, 3)] == ["a", "c", "a"]


def test_a_panel_of_endpoints_sends_each_member_to_its_own_server() -> None:
    with OpenAIStub(reply=yes) as first, OpenAIStub(reply=yes) as second:
        panel = [
            {"model": "a", "base_url": first.base_url},
            {"model": "b", "base_url": second.base_url},
        ]
        done = debate(first, roles={"agent": panel})("Is water wet?")
        assert (by_model(first), by_model(second)) == ({"a": 4}, {"b": 2})
    assert done.get_completions() == ["Yes"]


BATTLE = (
    "[Instruction 1]\nWhat is the capital of France?\n[Response 1]\nParis\n\n"
    "[Instruction 2]\nWhat is the capital of France?\n[Response 2]\nLyon\n\n" + BATTLE_ASK
)


def test_a_jury_panel_seats_its_jurors_in_turn_in_the_grader_slot() -> None:
    """MORE on the simulated models: jurors 1, 3, 5 on y and 2, 4 on z; advocates and judge on
    the default model, every call counted where it went."""
    fn = JudgeCompletionFn(
        method="more", model="madsim/x", roles={"juror": ["madsim/y", "madsim/z"]}
    )
    sent: Counter[str] = Counter()
    made = fn.simulators.get
    fn.simulators.get = lambda model: sent.update([model]) or made(model)
    done = fn(BATTLE)
    assert done.record is not None
    roles = done.record.options["roles"]
    jurors = {r: (m["model"], m["position"]) for r, m in roles.items() if r.startswith("juror")}
    assert jurors == {
        "juror_1": ("madsim/y", 1),
        "juror_2": ("madsim/z", 2),
        "juror_3": ("madsim/y", 1),
        "juror_4": ("madsim/z", 2),
        "juror_5": ("madsim/y", 1),
    }
    # one call per juror, each on its seat's model; every call went where the record says
    assert Counter(roles[c.role]["model"] for c in done.record.calls) == sent
    assert (sent["madsim/y"], sent["madsim/z"]) == (3, 2)
    assert roles["judge"] == {"model": "madsim/x", "base_url": None, "fallback": "default"}


def test_cortex_sizes_each_agent_by_the_model_of_its_seat() -> None:
    """cortex reads every agent's model name before its first call (its credibility keys): a
    key naming a panel's model only is found, so each agent's name follows its seat."""
    sizes = {"madsim/y": [7e9, 1e12], "madsim/z": [7e10, 2e12]}
    fn = DebateCompletionFn(method="cortex", model="madsim/x", agents=3, answer_format="yesno",
                            roles={"agent": ["madsim/y", "madsim/z"]}, credibility=sizes)  # fmt: skip
    done = fn("Is water wet?")
    assert done.record is not None and done.record.record is not None
    models = done.record.record.models
    assert models == {"agent_1": "madsim/y", "agent_2": "madsim/z", "agent_3": "madsim/y"}


FUNCTIONS = roles_of([*CATALOGUE.answering(), *CATALOGUE.reading(Pair)])


@pytest.mark.parametrize(("method", "role"), FUNCTIONS, ids=[f"{m}:{r}" for m, r in FUNCTIONS])
def test_every_role_a_function_takes_seats_a_list_or_refuses_it_by_name(
    method: str, role: str
) -> None:
    make = DebateCompletionFn if CATALOGUE[method].answers else JudgeCompletionFn
    if seats_the_panel(method, role):
        fn = make(method=method, model="madsim/x", roles={role: PANEL})
        assert [e.model for e in fn.roles[role]] == PANEL
    else:
        with pytest.raises(OptionError) as refused:
            make(method=method, model="madsim/x", roles={role: PANEL})
        assert str(refused.value).startswith(
            f"invalid completion function option 'roles.{role}': got {PANEL!r}, allowed: "
        )


KIND = "invalid completion function option"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (
            lambda url: JudgeCompletionFn(method="more", model="m", base_url=url, api_key="k",
                                          roles={"judge": ["a", "b"]}),
            f"{KIND} 'roles.judge': got ['a', 'b'], allowed: one model: judge makes one call "
            "where it is asked, and this method has no rule to combine several models' replies "
            "for it; its panels are advocate (3 members), juror (5 members)",
        ),
        (
            lambda url: DebateCompletionFn(method="single", model="m", base_url=url, api_key="k",
                                           roles={"agent": ["a", "b"]}),
            f"{KIND} 'roles.agent': got ['a', 'b'], allowed: one model: agent makes one call "
            "where it is asked, and this method has no rule to combine several models' replies "
            "for it",
        ),
        (
            lambda url: DebateCompletionFn(model="m", base_url=url, api_key="k",
                                           roles={"agent": []}),
            f"{KIND} 'roles.agent': got [], allowed: a list of at least one model",
        ),
        (
            lambda url: DebateCompletionFn(model="m", base_url=url, api_key="k",
                                           roles={"agent_2": ["a", "b"]}),
            f"{KIND} 'roles.agent_2': got ['a', 'b'], allowed: one model: agent_2 is one member "
            "of the agent panel (bind a list to agent for every member)",
        ),
        (
            lambda url: DebateCompletionFn(model="m", base_url=url, api_key="k", agents=2,
                                           roles={"agent": ["a", "b", "c"]}),
            f"{KIND} 'roles.agent': got ['a', 'b', 'c'], allowed: at most 2 models, one per "
            "member (agent_1, agent_2): more would leave a model no member runs on",
        ),
        (
            lambda url: DebateCompletionFn(model="m", base_url=url, api_key="k",
                                           roles={"agent": ["a", {"modle": "b"}]}),
            f"{KIND} 'roles.agent[1]': got {{'modle': 'b'}}, allowed: a model name, or a mapping "
            "of model, base_url, api_key",
        ),
        (
            lambda url: DebateCompletionFn(model="m", base_url=url, api_key="k",
                                           roles={"agent": ["a", {"model": ""}]}),
            f"{KIND} 'roles.agent[1].model': got '', allowed: a non-empty string",
        ),
        (
            lambda url: DebateCompletionFn(model="m", base_url=url, api_key="k",
                                           roles=["a", "b"]),
            f"{KIND} 'roles': got ['a', 'b'], allowed: a mapping of role to a model or an "
            "endpoint, or to a list of them (a panel)",
        ),
    ],
)  # fmt: skip
def test_a_list_a_function_cannot_seat_is_refused_by_name_before_any_request(
    make: Callable[[str], Any], message: str
) -> None:
    with OpenAIStub(reply=yes) as stub:
        with pytest.raises(OptionError) as refused:
            make(stub.base_url)
        assert str(refused.value) == message
        assert stub.requests == []


# -- lm-eval: the `mad` model ---------------------------------------------------------------------

needs_lm_eval = pytest.mark.skipif(
    importlib.util.find_spec("lm_eval") is None,
    reason="lm-eval is not installed (pip install -e '.[lm-eval]')",
)


def MadLM(**args: Any) -> Any:
    from mad_tasks.hosts.lm_eval import MadLM

    return MadLM(**args)


def requests() -> list[Any]:
    from lm_eval.api.instance import Instance

    doc = {"answer_format": "yesno"}
    return [
        Instance("generate_until", doc, (q, {"until": ["\n"]}), i, ("strategyqa_yesno", i, 1))
        for i, q in enumerate(QUESTIONS)
    ]


def mad(stub: OpenAIStub, tmp: Path, **args: Any) -> Any:
    """du_debate, 3 agents x 2 rounds, on lm-eval's OpenAI-compatible chat backend at the stub."""
    inner = {"model": "main", "base_url": f"{stub.base_url}/chat/completions", "max_retries": 1}
    given = {"method": "du_debate", "agents": 3, "rounds": 2, "answer_format": "yesno",
             "inner": "local-chat-completions", "inner_args": inner,
             "transcript": str(tmp / "debates.jsonl"), **args}  # fmt: skip
    return MadLM(**given)


def recorded_roles(tmp: Path) -> list[dict[str, Any]]:
    lines = (tmp / "debates.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line)["debate"]["options"]["roles"] for line in lines]


@needs_lm_eval
def test_the_mad_model_s_panel_sends_agents_1_and_3_to_a_and_agent_2_to_b(tmp_path: Path) -> None:
    with OpenAIStub(reply=yes) as stub:
        lm = mad(stub, tmp_path, roles={"agent": ["a", "b"]})
        assert lm.generate_until(requests()) == ["yes", "yes"]
        # 2 debates x 2 rounds: agents 1 and 3 on a, agent 2 on b, none on the inner's model
        assert by_model(stub) == {"a": 8, "b": 4}
    a = {"model": "local-chat-completions/a", "fallback": "agent", "position": 1, "panel": 2}
    b = {"model": "local-chat-completions/b", "fallback": "agent", "position": 2, "panel": 2}
    assert recorded_roles(tmp_path) == 2 * [{"agent_1": a, "agent_2": b, "agent_3": a}]


@needs_lm_eval
def test_the_mad_model_s_member_bound_beside_the_list_wins(tmp_path: Path) -> None:
    with OpenAIStub(reply=yes) as stub:
        lm = mad(stub, tmp_path, roles={"agent": ["a", "b"], "agent_2": "c"})
        lm.generate_until(requests())
        assert by_model(stub) == {"a": 8, "c": 4}
    [first, _] = recorded_roles(tmp_path)
    assert first["agent_2"] == {"model": "local-chat-completions/c", "fallback": None}


@needs_lm_eval
def test_a_panel_may_mix_backends_each_sent_its_members_calls(tmp_path: Path) -> None:
    """The inner is the simulated model; agent 2 runs on another backend, the stub: it gets
    agent 2's calls alone, and agents 1 and 3 run on madsim/y with the inner's arguments."""
    with OpenAIStub(reply=yes) as stub:
        other = {
            "inner": "local-chat-completions",
            "inner_args": {"model": "b", "base_url": f"{stub.base_url}/chat/completions"},
        }
        lm = MadLM(method="du_debate", agents=3, rounds=2, inner="madsim",
                   inner_args={"answers": str(FIXTURE), "accuracy": 1.0},
                   roles={"agent": ["madsim/y", other]},
                   transcript=str(tmp_path / "debates.jsonl"))  # fmt: skip
        lm.generate_until(requests())
        assert by_model(stub) == {"b": 4}  # 2 debates x 2 rounds of agent 2
    y = {"model": "madsim/y", "fallback": "agent", "position": 1, "panel": 2}
    b = {"model": "local-chat-completions/b", "fallback": "agent", "position": 2, "panel": 2}
    assert recorded_roles(tmp_path) == 2 * [{"agent_1": y, "agent_2": b, "agent_3": y}]


ANSWERING = roles_of(list(CATALOGUE.answering()))


@needs_lm_eval
@pytest.mark.parametrize(("method", "role"), ANSWERING, ids=[f"{m}:{r}" for m, r in ANSWERING])
def test_every_role_the_mad_model_takes_seats_a_list_or_refuses_it_by_name(
    method: str, role: str
) -> None:
    if seats_the_panel(method, role):
        lm = MadLM(method=method, inner="madsim", roles={role: PANEL})
        assert [i.name for i in lm.roles[role]] == PANEL
    else:
        with pytest.raises(OptionError) as refused:
            MadLM(method=method, inner="madsim", roles={role: PANEL})
        assert str(refused.value).startswith(
            f"invalid model_args option 'roles.{role}': got {PANEL!r}, allowed: "
        )


ARGS = "invalid model_args option"


@needs_lm_eval
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            {"method": "group_debate", "roles": {"summarizer": ["madsim/a", "madsim/b"]}},
            f"{ARGS} 'roles.summarizer': got ['madsim/a', 'madsim/b'], allowed: one model: "
            "summarizer makes one call where it is asked, and this method has no rule to combine "
            "several models' replies for it; its panels are agent (4 members)",
        ),
        ({"roles": {"agent": []}}, f"{ARGS} 'roles.agent': got [], allowed: a list of at least one model"),
        (
            {"roles": {"agent": ["madsim/a", {"inner": "no-such-backend"}]}},
            f"{ARGS} 'roles.agent[1].inner': got 'no-such-backend', allowed: an lm-eval backend (",
        ),
        (
            {"roles": {"agent": [{"inner": "mad"}]}},
            f"{ARGS} 'roles.agent[0].inner': got 'mad', allowed: any lm-eval backend but mad itself",
        ),
        (
            {"roles": {"agent": ["gpt-4o-mini"]}},
            f"{ARGS} 'roles.agent[0]': got 'gpt-4o-mini', allowed: a simulated model madsim/<name> "
            "(inner is madsim), or a mapping of inner, inner_args",
        ),
        (
            {"roles": {"agent": [{"inner": "madsim/y", "inner_args": {"acuracy": 1.0}}]}},
            f"{ARGS} 'roles.agent[0].inner_args': got {{'acuracy': 1.0}}, allowed: the simulated "
            "model's arguments",
        ),
        (
            {"roles": {"juror": "madsim/a"}},
            f"{ARGS} 'roles': got 'juror', allowed: a role this method calls: agent, agent_1, "
            "agent_2, agent_3",
        ),
    ],
)  # fmt: skip
def test_the_mad_model_refuses_a_binding_it_cannot_seat_by_name(
    args: dict[str, Any], message: str
) -> None:
    with pytest.raises(OptionError) as refused:
        MadLM(inner="madsim", **args)
    assert str(refused.value).startswith(message)


@needs_lm_eval
def test_a_refused_panel_sends_no_request(tmp_path: Path) -> None:
    with OpenAIStub(reply=yes) as stub:
        with pytest.raises(OptionError, match=r"'roles\.agent': got \['a', 'b', 'c', 'd'\]"):
            mad(stub, tmp_path, roles={"agent": ["a", "b", "c", "d"]})
        assert stub.requests == []


@needs_lm_eval
def test_roles_come_through_lm_evals_api_as_json(tmp_path: Path) -> None:
    """As `--model_args '{..., "roles": ...}'` gives them: a panel of simulated models that know
    the fixture's answers scores every doc, and each debate's record names each agent's model."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    root = Path(__file__).resolve().parents[1]
    tasks = TaskManager(include_path=str(root / "registry" / "lm_eval"), include_defaults=False,
                        metadata={"strategyqa_path": str(FIXTURE)})  # fmt: skip
    transcript = tmp_path / "debates.jsonl"
    args = {"method": "voting", "inner": "madsim", "transcript": str(transcript),
            "inner_args": {"answers": str(FIXTURE), "accuracy": 1.0},
            "roles": json.dumps({"agent": ["madsim/y", "madsim/z"]})}  # fmt: skip
    done = simple_evaluate(model="mad", model_args=args, tasks=["strategyqa_yesno"],
                           task_manager=tasks, limit=2)  # fmt: skip
    assert done is not None
    assert done["results"]["strategyqa_yesno"]["exact_match,yes_no"] == 1.0
    models = [{r: m["model"] for r, m in roles.items()} for roles in recorded_roles(tmp_path)]
    assert models == 2 * [{"agent_1": "madsim/y", "agent_2": "madsim/z", "agent_3": "madsim/y"}]

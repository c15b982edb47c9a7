"""Generation settings of calls made through model roles: the eval's settings reach every role, a
role's own settings win over them, and the solver's options win over both."""

from __future__ import annotations

from inspect_ai.log import EvalLog
from inspect_ai.model import GenerateConfig, get_model
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks import inspect_runtime
from mad_tasks.engine.runtime import Call
from mad_tasks.inspect_runtime import derive_seed
from mad_tasks.solvers import du_debate, more
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa


def sent(log: EvalLog, *fields: str) -> dict[str, set[tuple]]:
    """Per role, the distinct values of `fields` in the config of its model calls."""
    out: dict[str, set[tuple]] = {}
    for sample in log.samples:
        for e in sample.events:
            if e.event == "model":
                out.setdefault(e.role, set()).add(tuple(getattr(e.config, f) for f in fields))
    return out


def test_role_calls_get_the_eval_generation_settings(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        model_roles={"agent_2": "madsim/y"},
        temperature=0.3,
        max_tokens=77,
        top_p=0.9,
        limit=1,
    )
    assert sent(log, "temperature", "max_tokens", "top_p") == {
        agent: {(0.3, 77, 0.9)} for agent in ("agent_1", "agent_2", "agent_3")
    }


def test_a_roles_own_settings_win_over_the_eval_and_solver_options_over_both(run) -> None:
    own = get_model("madsim/y", config=GenerateConfig(temperature=0.9, top_p=0.5), memoize=False)
    kwargs = {"model": "madsim/x", "model_roles": {"agent_2": own}, "temperature": 0.3, "limit": 1}
    log = run(strategyqa(data_path=str(STRATEGYQA)), max_tokens=77, **kwargs)
    assert sent(log, "temperature", "top_p", "max_tokens") == {
        "agent_1": {(0.3, None, 77)},
        "agent_2": {(0.9, 0.5, 77)},
        "agent_3": {(0.3, None, 77)},
    }
    log = run(strategyqa(data_path=str(STRATEGYQA)), solver=du_debate(temperature=0.6), **kwargs)
    assert sent(log, "temperature") == {a: {(0.6,)} for a in ("agent_1", "agent_2", "agent_3")}


def test_a_role_with_its_own_seed_derives_its_calls_seeds_from_it(run) -> None:
    own = get_model("madsim/y", config=GenerateConfig(seed=1000), memoize=False)
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        model_roles={"agent_2": own},
        seed=7,
        limit=1,
    )

    def derived(base: int, agent: str) -> set[tuple]:
        return {(derive_seed(base, Call(agent, agent, (), "debate", r)),) for r in (1, 2)}

    assert sent(log, "seed") == {
        "agent_1": derived(7, "agent_1"),
        "agent_2": derived(1000, "agent_2"),
        "agent_3": derived(7, "agent_3"),
    }


def recorded_roles(log: EvalLog) -> list[dict]:
    return [sample.store["mad_tasks:debate"]["options"]["roles"] for sample in log.samples]


def test_the_record_names_the_model_every_agent_resolved_to(run, monkeypatch) -> None:
    resolved: list[str] = []

    def counted(role: str, declared: tuple[str, ...] = ()) -> inspect_runtime.RoleModel:
        resolved.append(role)
        return resolve(role, declared)

    resolve = inspect_runtime.resolve_role
    monkeypatch.setattr(inspect_runtime, "resolve_role", counted)
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        model_roles={"agent": "madsim/y", "agent_3": "madsim/z"},
        limit=2,
    )
    shared = {"model": "madsim/y", "fallback": "agent"}
    assert recorded_roles(log) == 2 * [
        {"agent_1": shared, "agent_2": shared, "agent_3": {"model": "madsim/z", "fallback": None}}
    ]
    # once per role and sample, not once per call (2 rounds)
    assert sorted(resolved) == ["agent_1", "agent_1", "agent_2", "agent_2", "agent_3", "agent_3"]
    log = run(strategyqa(data_path=str(STRATEGYQA)), model="madsim/x", limit=1)
    main = {"model": "madsim/x", "fallback": "main model"}
    assert recorded_roles(log) == [{"agent_1": main, "agent_2": main, "agent_3": main}]


def test_a_judge_solver_records_its_roles_and_may_run_on_the_main_model(run) -> None:
    log = run(
        mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=1),
        solver=more(advocates=1, jurors=1),
        model="madsim/x",
        model_roles={"judge": "madsim/strong"},
    )
    main = {"model": "madsim/x", "fallback": "main model"}
    judge = {"model": "madsim/strong", "fallback": None}
    assert recorded_roles(log) == [{"advocate_1": main, "judge": judge, "juror_1": main}]
    # the judge under evaluation judging is the point of these solvers: no warning
    assert [e for e in log.samples[0].events if e.event == "logger"] == []


def test_a_calls_own_top_p_and_reply_schema_reach_its_config() -> None:
    schema = {
        "type": "object",
        "properties": {"summary": {"type": "string"}},
        "required": ["summary"],
    }
    call = Call("moderator", "moderator", (), "synthesis r", top_p=0.99, schema=schema)
    model = get_model("madsim/x", memoize=False)
    config = inspect_runtime.generation_config(model, GenerateConfig(top_p=0.5), call)
    assert config.top_p == 0.99  # the stage's own setting wins over the eval's
    assert config.response_schema is not None
    assert config.response_schema.name == "synthesis_r"  # a provider's allowed characters only
    assert config.response_schema.json_schema.model_dump(exclude_none=True) == schema
    plain = inspect_runtime.generation_config(
        model, GenerateConfig(top_p=0.5), Call("a", "a", (), "x")
    )
    assert (plain.top_p, plain.response_schema) == (0.5, None)
    # llama-cpp-python's server refuses Inspect's schema request (with an error Inspect retries
    # without end): it gets the schema in its own form
    local = get_model(
        "llama-cpp-python/gemma-3-270m", base_url="http://127.0.0.1:1/v1", memoize=False
    )
    sent = inspect_runtime.generation_config(local, GenerateConfig(), call)
    assert sent.response_schema is None
    assert sent.extra_body == {"response_format": {"type": "json_object", "schema": schema}}
    assert config.extra_body is None


def test_pd3_solvers_pass_their_generation_settings_on(run) -> None:
    from testdata import FIXTURES

    from mad_tasks.solvers import listwise, pd3_feedback
    from mad_tasks.tasks.project_dedup import project_dedup
    from mad_tasks.tasks.project_dup_pairs import project_dup_pairs

    data = str(FIXTURES / "pd3")
    log = run(project_dedup(data_path=data), solver=listwise(temperature=0.3, max_tokens=77),
              model="madsim/x", limit=1)  # fmt: skip
    assert sent(log, "temperature", "max_tokens") == {"senior": {(0.3, 77)}}
    log = run(project_dup_pairs(data_path=data, pairs=None),
              solver=pd3_feedback(temperature=0.9, max_tokens=55), model="madsim/x", limit=1)  # fmt: skip
    assert sent(log, "temperature", "max_tokens") == {"feedback": {(0.9, 55)}}

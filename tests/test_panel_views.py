"""Panels seen and counted (issue 49, item 2): each agent's model in the viewer's round tables
where the agents do not all run on one, the figures per model beside those per role, a panel run
labelled by `mad-tasks tag` and `report` (`agent=[y,z]`), and `mad-tasks compare`/`reproduce` taking
a panel (`--model '[y,z]'`, `--model-role 'agent=[y,z]'`).

Every run is offline on the simulated model: `madsim/py` and `madsim/pz` are names of this file's
own, priced here ($1 and $2 per million input and output tokens), so each figure per model is
checked against Inspect's own usage per model.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval
from inspect_ai.log import EvalLog, read_eval_log
from inspect_ai.model import ModelConfig, ModelCost, ModelInfo, get_model, set_model_info
from scripted import ScriptedRuntime, by_round
from testdata import STRATEGYQA

from mad_tasks import solvers
from mad_tasks._inspect_sample import bound_roles
from mad_tasks.cli import _prepare_reproduce, main
from mad_tasks.compare import (
    Group,
    ModelChoice,
    SolverChoice,
    check_solvers,
    parse_model_role,
)
from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.content import Question
from mad_tasks.engine.panels import panels
from mad_tasks.engine.records import AgentAnswer, CallRecord, DebateResult
from mad_tasks.engine.session import Problem, Session
from mad_tasks.engine.viewer_text import agent_models, agent_table, round_table
from mad_tasks.hosts.setup import SETUP
from mad_tasks.log_tags import model_label, panel_model, role_text, run_label, tag_logs
from mad_tasks.logs_report import read_report
from mad_tasks.scorers.debate_stats import role_models
from mad_tasks.tasks.strategyqa import strategyqa

PY, PZ = "madsim/py", "madsim/pz"
PANEL = [PY, PZ]
SHOWN = "[madsim/py,madsim/pz]"  # the panel as a label shows it, as Inspect's CLI takes it
PRICE = ModelCost(input=1.0, output=2.0, input_cache_write=1.0, input_cache_read=0.5)  # $/M
INSPECT = Path(sys.executable).parent / "inspect"
MAD_TASKS = Path(sys.executable).parent / "mad-tasks"


def priced() -> None:
    for model in PANEL:  # names of this file's own: no other test's run is priced by it
        set_model_info(model, ModelInfo(cost=PRICE))


# ---- the tables


def test_a_round_table_shows_each_agents_model_beside_it_where_they_differ() -> None:
    answers = [
        AgentAnswer("agent_1", 1, "", "yes"),
        AgentAnswer("agent_2", 1, "", "no"),
        AgentAnswer("agent_3", 1, "", None, 3),
    ]
    models = {"agent_1": "madsim/y", "agent_2": "madsim/z", "agent_3": "madsim/y"}
    assert round_table("Round 1", answers, str, models.__getitem__) == (
        "**Round 1**\n\n```text\n"
        "agent    model     answer       attempts\n"
        "-------  --------  -----------  --------\n"
        "agent_1  madsim/y  yes                 1\n"
        "agent_2  madsim/z  no                  1\n"
        "agent_3  madsim/y  (abstained)         3\n"
        "```\n\n"
        "attempts: the replies it took, 1 + the follow-ups asking for a readable final answer; "
        "(abstained): none was readable, so the agent does not vote."
    )
    # every agent on one model: the table as it was, with no model column
    plain = round_table("Round 1", answers, str)
    assert round_table("Round 1", answers, str, lambda role: "madsim/x") == plain
    assert plain.splitlines()[3] == "agent    answer       attempts"


def test_an_agent_table_keeps_its_right_aligned_columns_beside_the_model() -> None:
    rows = [("swapped/juror_1", "A", 1), ("swapped/juror_2", "B", 12)]
    roles = {"swapped/juror_1": "juror_1", "swapped/juror_2": "juror_2"}
    models = agent_models(roles, {"juror_1": "madsim/y", "juror_2": "madsim/z"}.__getitem__)
    assert models == {"swapped/juror_1": "madsim/y", "swapped/juror_2": "madsim/z"}
    assert agent_table(["juror", "vote", "attempts"], rows, {2}, models) == (
        "```text\n"
        "juror            model     vote  attempts\n"
        "---------------  --------  ----  --------\n"
        "swapped/juror_1  madsim/y  A            1\n"
        "swapped/juror_2  madsim/z  B           12\n"
        "```"
    )
    assert agent_models(roles, lambda role: "madsim/y") is None  # one model: no column
    assert agent_models(roles, None) is None  # a host that names no model: no column


async def test_a_scripted_debate_on_two_models_shows_them_in_every_round() -> None:
    spec = CATALOGUE["du_debate"]
    problem = Problem(Question.of(["Is the sky blue?"]), YesNo())
    models = {"agent_1": "madsim/y", "agent_2": "madsim/z", "agent_3": "madsim/y"}
    rt = ScriptedRuntime(by_round({("agent_3", 1): "no"}, "yes"), models=models)
    await spec.prepare(spec.options(), SETUP)(Session(rt, problem))
    tables = dict(rt.infos)
    assert tables["round 1"].splitlines()[2:8] == [
        "```text",
        "agent    model     answer  attempts",
        "-------  --------  ------  --------",
        "agent_1  madsim/y  yes            1",
        "agent_2  madsim/z  yes            1",
        "agent_3  madsim/y  no             1",
    ]
    # agent_3 took the others' yes: a flip, whose class has a column of its own
    assert tables["round 2"].splitlines()[3] == "agent    model     answer  attempts  flip"


# each method whose tables list its agents, jurors, reviewers or experts: run with every panel
# it declares bound to two models
SHOWING = [
    "du_debate", "neighbor_debate", "chateval", "group_debate", "peer_review", "cortex",
    "reconcile", "voting", "consensus", "on_demand", "more", "peer_discussion", "pd3",
]  # fmt: skip
# on_demand's first stage of three samples, and its debate whatever they say
OPTIONS = {"on_demand": {"first": "self_consistency", "samples": 3, "trigger": "always"}}


def agent_columns(text: str) -> list[list[tuple[str, str]]]:
    """Per table of the text whose second column is `model`: each row's first two cells."""
    found = []
    for block in re.findall(r"```+text\n(.*?)\n```", text, re.S):
        head, _, *rows = block.splitlines()
        if re.split(r"\s{2,}", head)[1:2] == ["model"]:
            found.append([tuple(re.split(r"\s{2,}", row)[:2]) for row in rows])
    return found


def info_texts(log: EvalLog) -> list[str]:
    """The text of every info event of the log, as the viewer shows it (attachments resolved)."""
    full = read_eval_log(log.location, resolve_attachments=True)
    return [
        e.data for s in full.samples or [] for e in s.events
        if e.event == "info" and isinstance(e.data, str)
    ]  # fmt: skip


@pytest.mark.parametrize("method", SHOWING)
def test_every_members_table_names_the_model_of_its_seat(run, method: str) -> None:
    """Member n of a panel on [py, pz] runs on model (n - 1) mod 2: every table that lists the
    members names that model beside each (`Expert 3`, `swapped/juror_4`, `agent_2`)."""
    from test_default_view import TASKS  # each kind of sample's task, on its fixture

    spec, options = CATALOGUE[method], OPTIONS.get(method, {})
    declared = spec.roles(spec.options(**{**spec.preset, **options}))
    families = [f for f, members in panels(declared).items() if len(members) >= 2]
    log = run(
        TASKS[spec.reads](),
        solver=getattr(solvers, method)(**options),
        model="madsim/x",
        model_roles=dict.fromkeys(families, PANEL),
        limit=1,
    )
    tables = [t for text in info_texts(log) for t in agent_columns(text)]
    assert tables, "no table shows the members' models"
    for rows in tables:
        for agent, model in rows:
            number = int(re.findall(r"\d+", agent)[-1])
            assert model == PANEL[(number - 1) % 2], (agent, model)


@pytest.mark.parametrize(
    "roles", [None, {"agent": [PY]}, {"agent": PY}], ids=["unbound", "list-of-one", "one-model"]
)
def test_agents_on_one_model_leave_the_tables_as_they_were(run, roles: Any) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA)),
        solver=solvers.du_debate(),
        model="madsim/x",
        model_roles=roles,
        limit=1,
    )
    texts = info_texts(log)
    heads = [t.splitlines()[3] for t in texts if t.startswith("**Round")]
    # no model column (round 2 has a flip column where an agent changed its answer)
    assert [h.removesuffix("  flip") for h in heads] == ["agent    answer  attempts"] * 2
    assert not [t for text in texts for t in agent_columns(text)]


# ---- the logs: a panel run beside runs on one model


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, EvalLog]:
    """du_debate (3 agents, 2 rounds) on 2 questions: on `madsim/py` alone; on the panel as its
    model (main model its first, `agent` bound to it), as `compare --model '[py,pz]'` runs it;
    and on the panel with another main model."""
    priced()
    log_dir = tmp_path_factory.mktemp("panel_views") / "logs"
    runs = {
        "single": (PY, None),
        "panel": (PY, {"agent": PANEL}),
        "beside": ("madsim/x", {"agent": PANEL}),
    }
    done = {}
    for name, (model, roles) in runs.items():
        [log] = eval(
            strategyqa(data_path=str(STRATEGYQA)),
            solver=solvers.du_debate(),
            model=model,
            model_roles=roles,
            limit=2,
            display="none",
            log_dir=str(log_dir),
        )
        assert log.status == "success", log.error
        done[name] = log
    return done


def test_the_figures_count_calls_tokens_and_dollars_per_model(logs: dict[str, EvalLog]) -> None:
    for sample in logs["beside"].samples or []:
        scores = sample.scores or {}
        calls = scores["calls"].metadata or {}
        # agents 1 and 3 on py, agent 2 on pz, two rounds each; none on the main model
        assert calls["by_model"] == {PY: 4, PZ: 2}
        assert calls["by_role"] == {"agent_1": 2, "agent_2": 2, "agent_3": 2}
        for figure in ("input_tokens", "output_tokens"):
            per_model = (scores[figure].metadata or {})["by_model"]
            per_role = (scores[figure].metadata or {})["by_role"]
            # Inspect's own usage per model says the same
            assert per_model == {m: getattr(sample.model_usage[m], figure) for m in PANEL}
            assert per_model[PY] == per_role["agent_1"] + per_role["agent_3"]
            assert sum(per_model.values()) == scores[figure].value
        dollars = (scores["cost"].metadata or {})["by_model"]
        usage = sample.model_usage
        assert dollars == {
            m: pytest.approx((usage[m].input_tokens + 2 * usage[m].output_tokens) / 1e6)
            for m in PANEL
        }
        assert dollars == {m: pytest.approx(usage[m].total_cost) for m in PANEL}
        assert sum(dollars.values()) == pytest.approx(scores["cost"].value)
        for figure in ("cached_calls", "calls_without_usage", "tool_calls"):
            assert (scores[figure].metadata or {})["by_model"] == {PY: 0, PZ: 0}
    for sample in logs["single"].samples or []:  # one model: one entry, the whole figure
        calls = (sample.scores or {})["calls"]
        assert (calls.metadata or {})["by_model"] == {PY: 6} and calls.value == 6


def test_a_record_that_names_no_model_for_a_called_role_has_no_figure_per_model() -> None:
    call = CallRecord("agent_1", "agent_1", "debate", 1, 0, 10, 2)
    result = DebateResult("du_debate", "yes", [], [call], options={"roles": {}})
    assert role_models(result) is None
    named = {"roles": {"agent_1": {"model": PY, "fallback": None}}}
    assert role_models(DebateResult("du_debate", "yes", [], [call], options=named)) == {
        "agent_1": PY
    }


def member(model: str, position: int, panel: int) -> dict[str, Any]:
    return {"model": model, "fallback": "agent", "position": position, "panel": panel}


def test_a_samples_label_names_a_panel_where_each_of_its_models_ran() -> None:
    own = {"model": "madsim/x", "fallback": None}
    ran = {"agent_1": member(PY, 1, 2), "agent_2": own, "agent_3": member(PZ, 2, 2)}
    assert bound_roles(ran) == {"agent": SHOWN, "agent_2": "madsim/x"}
    # a list of three whose third model no member ran (agent_3 bound apart): not named
    partial = {"agent_1": member(PY, 1, 3), "agent_2": member(PZ, 2, 3), "agent_3": own}
    assert bound_roles(partial) == {"agent_3": "madsim/x"}
    assert bound_roles({"agent_1": {"model": PY, "fallback": "agent"}}) == {}  # one model


def test_a_bindings_label_shows_a_list_as_inspects_cli_takes_it() -> None:
    assert role_text("madsim/y") == "madsim/y"
    assert role_text(["madsim/y", "madsim/z"]) == "[madsim/y,madsim/z]"
    assert role_text(["madsim/y"]) == "madsim/y"  # a list of one is that model, as Inspect binds
    assert role_text([ModelConfig(model="madsim/y"), get_model(PZ)]) == "[madsim/y,madsim/pz]"


def test_tag_and_report_tell_a_panel_run_from_a_run_on_one_model(
    logs: dict[str, EvalLog], tmp_path: Path
) -> None:
    labels = {name: run_label(log) for name, log in logs.items()}
    assert labels == {
        "single": "du_debate",
        "panel": f"du_debate agent={SHOWN}",
        "beside": f"du_debate agent={SHOWN}",
    }
    assert {name: panel_model(log) for name, log in logs.items()} == {
        "single": None,
        "panel": PANEL,  # its main model is the panel's first: a run on the panel
        "beside": None,  # another main model: the panel is a binding beside it
    }
    assert {name: model_label(log) for name, log in logs.items()} == {
        "single": PY,
        "panel": SHOWN,
        "beside": "madsim/x",
    }
    # the report: a row per run, the panel as the model of the run on it
    log_dir = Path(logs["single"].location).parent
    [rows] = read_report(str(log_dir)).tables.values()
    assert {(r.solver, r.model): r.calls for r in rows} == {
        ("du_debate", PY): 6.0,
        ("du_debate", SHOWN): 6.0,
        (f"du_debate agent={SHOWN}", "madsim/x"): 6.0,
    }
    # each sample's run label says the same (the samples lists), read from its record
    methods = {
        name: {(s.scores or {})["mad_tasks/method"].value for s in log.samples or []}
        for name, log in logs.items()
    }
    assert methods == {
        "single": {"du_debate"},
        "panel": {f"du_debate agent={SHOWN}"},
        "beside": {f"du_debate agent={SHOWN}"},
    }
    copy = tmp_path / "tagged"
    copy.mkdir()
    (copy / "panel.eval").write_bytes(Path(logs["beside"].location).read_bytes())
    assert tag_logs([str(copy)]) == [
        (str(copy / "panel.eval"), f"tagged 'du_debate agent={SHOWN}'")
    ]


# ---- compare and reproduce


@pytest.mark.parametrize(
    ("given", "models", "label"),
    [
        ("madsim/x", ("madsim/x",), "madsim/x"),
        ("[madsim/y,madsim/z]", ("madsim/y", "madsim/z"), "[madsim/y,madsim/z]"),
        (" [madsim/y, madsim/z] ", ("madsim/y", "madsim/z"), "[madsim/y,madsim/z]"),
        ("[madsim/y]", ("madsim/y",), "madsim/y"),
        (["madsim/y", "madsim/z"], ("madsim/y", "madsim/z"), "[madsim/y,madsim/z]"),
    ],
)
def test_a_compare_model_is_a_model_or_a_panel(given: Any, models: tuple, label: str) -> None:
    choice = ModelChoice.parse(given)
    assert (choice.models, choice.label, choice.main) == (models, label, models[0])


@pytest.mark.parametrize("given", ["[]", "[1, 2]", "", "[madsim/y, '']", "[madsim/y, ' ']"])
def test_a_compare_model_that_names_no_model_is_refused_by_name(given: str) -> None:
    with pytest.raises(ValueError) as refused:
        ModelChoice.parse(given)
    assert str(refused.value) == (
        f"--model {given!r}: expected a model's name, or a panel: a list of at least one model "
        "name, '[madsim/y,madsim/z]'"
    )


@pytest.mark.parametrize(
    ("given", "parsed"),
    [
        ("agent=madsim/y", ("agent", "madsim/y")),
        ("agent=[madsim/y,madsim/z]", ("agent", ["madsim/y", "madsim/z"])),
        ("agent=madsim/y,madsim/z", ("agent", ["madsim/y", "madsim/z"])),  # Inspect's shorthand
        ("agent=[madsim/y]", ("agent", "madsim/y")),
        ("summary-writer=madsim/s", ("summary_writer", "madsim/s")),
    ],
)
def test_a_model_role_is_read_as_inspects_cli_reads_it(given: str, parsed: tuple) -> None:
    assert parse_model_role(given) == parsed


@pytest.mark.parametrize("given", ["agent=", "agent", "agent=[]", "agent=[madsim/y, {model: x}]"])
def test_a_model_role_without_a_model_is_refused_by_name(given: str) -> None:
    with pytest.raises(ValueError) as refused:
        parse_model_role(given, "--model-role")
    assert str(refused.value) == (
        f"--model-role {given!r}: expected ROLE=MODEL or ROLE=[MODEL,MODEL,...] (a list of at "
        "least one model name)"
    )


def test_compare_runs_a_panel_apart_with_every_panel_of_the_solver_bound_to_it() -> None:
    x, panel = ModelChoice(("madsim/x",)), ModelChoice(("madsim/y", "madsim/z"))
    planned = check_solvers(
        [SolverChoice("du_debate"), SolverChoice("more")], {}, [x, panel], {"judge": "madsim/j"}
    )
    both = ["madsim/y", "madsim/z"]
    assert planned == {
        "du_debate": [
            Group((x,), {"judge": "madsim/j"}),
            Group((panel,), {"judge": "madsim/j", "agent": both}),
        ],
        # MORE's advocates and jurors are both panels
        "more": [
            Group((x,), {"judge": "madsim/j"}),
            Group((panel,), {"judge": "madsim/j", "advocate": both, "juror": both}),
        ],
    }
    # no panel among the models: one eval set, as before
    assert check_solvers([SolverChoice("single")], {}, [x]) == {"single": [Group((x,), {})]}


@pytest.mark.parametrize(
    ("solver", "model", "roles", "message"),
    [
        (
            "single", "[madsim/y,madsim/z]", {},
            "--model '[madsim/y,madsim/z]' with --solver 'single': the solver has no panel (a "
            "family of numbered roles, as agent_1 ... agent_N) to bind a list of models to; "
            "compare it on single models",
        ),
        (
            "chateval", "[madsim/a,madsim/b,madsim/c]", {},
            "--model '[madsim/a,madsim/b,madsim/c]' with --solver 'chateval': model role agent "
            "is bound to [madsim/a, madsim/b, madsim/c]; allowed: at most 2 models, one per "
            "member (agent_1, agent_2): more would leave a model no member runs on",
        ),
        (
            "du_debate", "[madsim/a,madsim/b]", {"agent": "madsim/c"},
            "--model '[madsim/a,madsim/b]' with --solver 'du_debate': --model-role binds agent "
            "already, which the panel would bind; give the panel by one of them",
        ),
        (
            "du_debate", "madsim/x", {"agent_2": ["madsim/a", "madsim/b"]},
            "--model-role agent_2=[madsim/a,madsim/b] with --solver 'du_debate': model role "
            "agent_2 is bound to [madsim/a, madsim/b]; allowed: one model: agent_2 is one member "
            "of the agent panel (bind a list to agent for every member)",
        ),
    ],
)  # fmt: skip
def test_compare_refuses_a_panel_no_role_can_take_before_any_run(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    solver: str,
    model: str,
    roles: dict[str, Any],
    message: str,
) -> None:
    args = ["compare", "mad_tasks/strategyqa", "--solver", solver, "--model", model]
    args += [a for r, m in roles.items() for a in ("--model-role", f"{r}={role_text(m)}")]
    with pytest.raises(SystemExit) as stopped:
        main([*args, "-T", f"data_path={STRATEGYQA}", "--log-dir", str(tmp_path / "cmp")])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == f"mad-tasks compare: {message}\n"
    assert not (tmp_path / "cmp").exists()  # no run started


def test_compare_takes_a_panel_as_one_of_its_models_and_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    args = ["compare", "mad_tasks/strategyqa", "--solver", "du_debate", "--model", PY]
    args += ["--model", SHOWN, "-T", f"data_path={STRATEGYQA}", "--limit", "1"]
    args += ["--log-dir", str(tmp_path)]
    main(args)
    logs = {tuple(read_eval_log(str(p)).eval.tags): p for p in tmp_path.glob("du_debate/*.eval")}
    assert set(logs) == {("du_debate",), (f"du_debate agent={SHOWN}",)}
    panel = read_eval_log(str(logs[(f"du_debate agent={SHOWN}",)]))
    assert panel.eval.model == PY
    assert {r: [c.model for c in m] for r, m in (panel.eval.model_roles or {}).items()} == {
        "agent": PANEL
    }
    events = Counter(e.model for s in panel.samples or [] for e in s.events if e.event == "model")
    assert events == {PY: 4, PZ: 2}
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert f"| du_debate | {SHOWN} |" in text and f"| du_debate | {PY} |" in text
    main(args)  # finished: nothing runs again
    assert sorted(tmp_path.glob("du_debate/*.eval")) == sorted(logs.values())


def test_compare_binds_a_role_to_a_list_for_every_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    main([
        "compare", "mad_tasks/strategyqa", "--solver", "du_debate", "--model", "madsim/x",
        "--model-role", f"agent={SHOWN}", "-T", f"data_path={STRATEGYQA}", "--limit", "1",
        "--log-dir", str(tmp_path),
    ])  # fmt: skip
    [path] = tmp_path.glob("du_debate/*.eval")
    log = read_eval_log(str(path))
    assert log.eval.tags == [f"du_debate agent={SHOWN}"]
    events = Counter(e.model for s in log.samples or [] for e in s.events if e.event == "model")
    assert events == {PY: 4, PZ: 2}
    text = (tmp_path / "report" / "report.md").read_text(encoding="utf-8")
    assert f"| du_debate agent={SHOWN} | madsim/x |" in text


def reproduce_args(*roles: str) -> argparse.Namespace:
    return argparse.Namespace(
        name="reconcile_models", model="madsim/x", epochs=None, limit=1, max_tasks=None, max_samples=None, S=[], M=[],
        data=[f"strategyqa={STRATEGYQA}"], model_role=list(roles), batch=None, stop_width=None,
        stop_min_samples=10, stop_epochs_agree=None,
    )  # fmt: skip


def test_reproduce_binds_a_role_to_a_list_and_refuses_a_role_without_a_model(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, _, roles, _, _ = _prepare_reproduce(reproduce_args(f"agent={SHOWN}", "judge=madsim/j"))
    assert roles == {"agent": PANEL, "judge": "madsim/j"}
    with pytest.raises(SystemExit) as stopped:
        main(["reproduce", "reconcile_models", "--model", "madsim/x", "--model-role", "agent=[]"])
    assert stopped.value.code == 2
    assert capsys.readouterr().err == (
        "mad-tasks reproduce: --model-role 'agent=[]': expected ROLE=MODEL or "
        "ROLE=[MODEL,MODEL,...] (a list of at least one model name)\n"
    )


@pytest.mark.slow
def test_the_command_line_run_on_a_panel_is_tagged_as_one(tmp_path: Path) -> None:
    """The issue's command, then `mad-tasks tag`: the log tagged with the panel."""
    run = subprocess.run(
        [
            str(INSPECT), "eval", "mad_tasks/strategyqa", "--solver", "du_debate",
            "--model", "madsim/x", "--model-role", f"agent={SHOWN}",
            "-T", f"data_path={STRATEGYQA}", "--limit", "1",
            "--log-dir", str(tmp_path / "logs"), "--display", "none",
        ],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    [path] = (tmp_path / "logs").glob("*.eval")
    tagged = subprocess.run(
        [str(MAD_TASKS), "tag", str(tmp_path / "logs")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert tagged.stdout == f"{path}: tagged 'du_debate agent={SHOWN}'\n"
    log = read_eval_log(str(path), resolve_attachments=True)
    [info] = [e.data for e in log.samples[0].events if e.event == "info" and e.source == "round 1"]
    assert [row[1] for row in agent_columns(str(info))[0]] == [PY, PZ, PY]

"""An experiment row binds model roles of its own (`model_roles`, a list being a panel), over the
command's `--model-role`; the paper's models are named once (`models`) and bound by the command,
or run offline on `madsim/<name>`; `reconcile_models` (RECONCILE's three different models against
three agents of one) runs offline with every agent on its own model."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai.log import EvalLog, read_eval_log
from testdata import STRATEGYQA

from mad_tasks.cli import main
from mad_tasks.reproduce import (
    ExperimentError,
    find_experiment,
    load_experiment,
    measure,
    prepare,
    run_experiment,
    to_markdown,
)
from mad_tasks.reproduce.experiments import check_models, row_roles, shown_roles


def write(tmp_path: Path, rows: list[dict[str, Any]], **top: Any) -> Path:
    data: dict[str, Any] = {
        "name": "panel",
        "seed": "ReConcile",
        "paper": "a test",
        "table": "Table T",
        "caption": "A test table.",
        "paper_model": "ChatGPT, Bard",
        "runs": 1,
        "models": {"bard": "Bard"},
        "tasks": {"sqa": {"task": "strategyqa", "args": {}}},
        "rows": rows,
        "columns": [{"label": "Acc", "task": "sqa", "score": "final_answer", "metric": "accuracy"}],
        **top,
    }
    path = tmp_path / "panel.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


PANEL_ROW = {
    "label": "Debate (ChatGPT, Bard)",
    "solver": "du_debate",
    "args": {"agents": 3, "rounds": 2},
    "model_roles": {"agent": ["model", "bard"]},
}
ALONE_ROW = {"label": "CoT (Bard)", "solver": "cot", "model_roles": {"agent": "bard"}}
MAIN_ROW = {"label": "Debate (x3)", "solver": "du_debate", "model_roles": {"agent": "model"}}


def test_a_row_reads_its_roles_a_list_as_a_panel(tmp_path: Path) -> None:
    experiment = load_experiment(write(tmp_path, [PANEL_ROW, ALONE_ROW, MAIN_ROW]))
    assert experiment.models == {"bard": "Bard"}
    assert [row.model_roles for row in experiment.rows] == [
        {"agent": ("model", "bard")},
        {"agent": "bard"},
        {"agent": "model"},
    ]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            {"rows": [{**ALONE_ROW, "model_roles": {"agent": "gpt4"}}]},
            "panel.yaml: rows[0].model_roles.agent: unknown model 'gpt4'; allowed: model (the "
            "command's --model), a name of models (bard), or a model provider/name",
        ),
        (
            {"rows": [{**ALONE_ROW, "model_roles": {"agent": []}}]},
            "panel.yaml: rows[0].model_roles.agent: expected a model or a list of at least one "
            "model",
        ),
        (
            {"rows": [{**ALONE_ROW, "model_roles": {"agent": ["model", 3]}}]},
            "panel.yaml: rows[0].model_roles.agent: unknown model 3; allowed: model (the "
            "command's --model), a name of models (bard), or a model provider/name",
        ),
        (
            {"rows": [{**ALONE_ROW, "model_roles": {"bard": "model"}}]},
            "panel.yaml: rows[0].model_roles.bard: 'bard' is a name of models: a role may not "
            "share it",
        ),
        (
            {"rows": [{**ALONE_ROW, "model_roles": ["agent"]}]},
            "panel.yaml: rows[0].model_roles: expected a mapping, got ['agent']",
        ),
        (
            {"models": {"model": "ChatGPT"}},
            "panel.yaml: models.model: a model name is a letter, then up to 39 letters, digits "
            "or _ . - (not 'model', the command's --model)",
        ),
        (
            {"models": {"openai/gpt": "ChatGPT"}},
            "panel.yaml: models.openai/gpt: a model name is a letter, then up to 39 letters, "
            "digits or _ . - (not 'model', the command's --model)",
        ),
        ({"models": {"bard": ""}}, "panel.yaml: models.bard: expected text: the paper's model"),
    ],
)
def test_a_bad_binding_is_refused_by_file_and_field(
    tmp_path: Path, change: dict[str, Any], message: str
) -> None:
    rows = change.pop("rows", [ALONE_ROW])
    with pytest.raises(ExperimentError) as refused:
        load_experiment(write(tmp_path, rows, **change))
    assert str(refused.value).startswith(message)


def test_the_rows_roles_are_merged_over_the_commands(tmp_path: Path) -> None:
    experiment = load_experiment(write(tmp_path, [PANEL_ROW, ALONE_ROW, MAIN_ROW]))
    panel, alone, main_row = experiment.rows
    command = {"agent": "madsim/z", "agent_3": "madsim/w", "judge": "madsim/j"}
    # offline: bard runs on its stand-in; the row's `agent` replaces the command's
    assert row_roles(experiment, panel, "madsim/x", command) == {
        "agent_3": "madsim/w",
        "judge": "madsim/j",
        "agent": ["madsim/x", "madsim/bard"],
    }
    # the command binds the name bard: its model, and `bard` is not passed on as a role
    bound = {**command, "bard": "openai/gpt-4o-mini"}
    assert row_roles(experiment, alone, "anthropic/claude", bound) == {
        "agent_3": "madsim/w",
        "judge": "madsim/j",
        "agent": "openai/gpt-4o-mini",
    }
    # `model` alone: the role is left unbound, so it runs on --model itself
    assert row_roles(experiment, main_row, "madsim/x", command) == {
        "agent_3": "madsim/w",
        "judge": "madsim/j",
    }
    # in a panel, `model` may be given as the command's model object
    assert row_roles(experiment, panel, "madsim/x", {}, main="MAIN")["agent"] == [
        "MAIN",
        "madsim/bard",
    ]
    assert shown_roles(experiment, panel, "madsim/x", {}) == {"agent": "[madsim/x, madsim/bard]"}
    assert shown_roles(experiment, alone, "openai/x", {}) == {"agent": "<bard?>"}


def test_a_paper_model_left_unbound_off_the_simulated_model_is_refused(tmp_path: Path) -> None:
    experiment = load_experiment(write(tmp_path, [PANEL_ROW]))
    check_models(experiment, "madsim/x", {})  # offline: madsim/bard
    check_models(experiment, "openai/gpt-4o-mini", {"bard": "google/gemini-2.0-flash"})
    with pytest.raises(ValueError) as refused:
        check_models(experiment, "openai/gpt-4o-mini", {"agent": "openai/x"})
    assert str(refused.value) == (
        "panel: its rows run on the paper's models (bard: Bard); bind them: --model-role "
        "bard=MODEL (offline, with --model madsim/..., each runs on madsim/NAME)"
    )
    with pytest.raises(ValueError) as listed:
        check_models(experiment, "madsim/x", {"bard": ["madsim/a", "madsim/b"]})
    assert (
        str(listed.value)
        == "--model-role bard: panel's model bard (Bard) takes one model, got a list"
    )
    # and before the first call: nothing runs, no log is written
    with pytest.raises(ValueError, match="bind them: --model-role bard=MODEL"):
        run_experiment(
            experiment, "openai/gpt-4o-mini", str(tmp_path / "logs"), {"sqa": str(STRATEGYQA)}
        )
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize(
    ("row", "message"),
    [
        (
            {**ALONE_ROW, "model_roles": {"juror": "bard"}},
            "panel: row 'CoT (Bard)': model_roles.juror: cot calls no role 'juror'; its roles: "
            "agent",
        ),
        (
            {**ALONE_ROW, "model_roles": {"agent": ["model", "bard"]}},
            "panel: row 'CoT (Bard)': model_roles: model role agent is bound to [model, bard]; "
            "allowed: one model: agent makes one call where it is asked",
        ),
        (
            {**PANEL_ROW, "model_roles": {"agent": ["model", "bard", "madsim/c", "madsim/d"]}},
            "panel: row 'Debate (ChatGPT, Bard)': model_roles: model role agent is bound to "
            "[model, bard, madsim/c, madsim/d]; allowed: at most 3 models, one per member",
        ),
        (
            {**PANEL_ROW, "model_roles": {"agent_2": ["model", "bard"]}},
            "panel: row 'Debate (ChatGPT, Bard)': model_roles: model role agent_2 is bound to "
            "[model, bard]; allowed: one model: agent_2 is one member of the agent panel",
        ),
        (
            {"label": "MORE", "solver": "more", "model_roles": {"juror": ["model", "bard"]}},
            None,  # a jury of mixed models
        ),
        (
            {"label": "MORE", "solver": "more", "model_roles": {"judge": ["model", "bard"]}},
            "panel: row 'MORE': model_roles: model role judge is bound to [model, bard]; "
            "allowed: one model: judge makes one call where it is asked",
        ),
    ],
)
def test_a_row_binding_its_solver_cannot_take_is_refused_before_any_call(
    tmp_path: Path, row: dict[str, Any], message: str | None
) -> None:
    experiment = load_experiment(write(tmp_path, [row]))
    if message is None:
        prepare(experiment, {"sqa": str(STRATEGYQA)})
        return
    with pytest.raises(ValueError) as refused:
        prepare(experiment, {"sqa": str(STRATEGYQA)})
    assert str(refused.value).startswith(message)


def test_a_model_name_that_is_also_a_role_of_a_row_is_refused(tmp_path: Path) -> None:
    row = {"label": "MORE", "solver": "more", "model_roles": {"juror": "judge"}}
    experiment = load_experiment(write(tmp_path, [row], models={"judge": "GPT-4"}))
    with pytest.raises(ValueError) as refused:
        prepare(experiment, {"sqa": str(STRATEGYQA)})
    assert str(refused.value) == (
        "panel: row 'MORE': models.judge: also a model role of more: name it otherwise"
    )


def models_of(log: EvalLog) -> list[dict[str, str]]:
    """Each sample's model per agent role, from the debate record."""
    return [
        {r: m["model"] for r, m in s.store["mad_tasks:debate"]["options"]["roles"].items()}
        for s in log.samples or []
    ]


def calls_by_model(log: EvalLog) -> Counter[str]:
    return Counter(e.model for s in log.samples or [] for e in s.events if e.event == "model")


def test_each_row_runs_on_its_own_models_the_commands_roles_beside(tmp_path: Path) -> None:
    experiment = load_experiment(write(tmp_path, [PANEL_ROW, ALONE_ROW, MAIN_ROW]))
    runs = run_experiment(
        experiment,
        "madsim/x",
        str(tmp_path / "logs"),
        {"sqa": str(STRATEGYQA)},
        limit=2,
        display="none",
        model_roles={"bard": "madsim/palm", "agent": "madsim/z"},
        model_args={"accuracy": 1.0},
    )
    assert all(run.success for run in runs)
    panel, alone, main_row = (read_eval_log(run.logs[0].location) for run in runs)
    # agents 1 and 3 on --model (made with its -M args), agent 2 on the model bound to `bard`
    seats = {"agent_1": "madsim/x", "agent_2": "madsim/palm", "agent_3": "madsim/x"}
    assert models_of(panel) == [seats, seats]
    assert calls_by_model(panel) == {"madsim/x": 8, "madsim/palm": 4}  # 2 samples x 2 rounds
    assert panel.eval.model_roles is not None
    [x, palm] = panel.eval.model_roles["agent"]  # type: ignore[misc]
    assert (x.model, x.args, palm.model) == ("madsim/x", {"accuracy": 1.0}, "madsim/palm")
    assert "bard" not in panel.eval.model_roles  # a name of the paper's models, not a role
    assert models_of(alone) == [{"agent": "madsim/palm"}] * 2
    # `model` alone: the command's `agent` is not used, every agent is on --model
    assert models_of(main_row) == [dict.fromkeys(seats, "madsim/x")] * 2
    assert calls_by_model(main_row) == {"madsim/x": 12}
    table = measure(
        experiment,
        runs,
        "madsim/x",
        2,
        1,
        "logs",
        roles={"bard": "madsim/palm", "agent": "madsim/z"},
    )
    text = to_markdown(table)
    assert "Measured with `madsim/x` (roles: agent=madsim/z), limit 2" in text
    assert (
        "Rows with models of their own (over the roles above): Debate (ChatGPT, Bard): "
        "agent=[madsim/x, madsim/palm]; CoT (Bard): agent=madsim/palm; Debate (x3): "
        "agent=madsim/x. The paper's models: `bard` = madsim/palm (Bard).\n"
    ) in text


def test_a_file_without_models_or_row_roles_renders_as_before(tmp_path: Path) -> None:
    row = {"label": "CoT", "solver": "cot"}
    experiment = load_experiment(write(tmp_path, [row], models={}))
    runs = run_experiment(
        experiment, "madsim/x", str(tmp_path / "logs"), {"sqa": str(STRATEGYQA)}, limit=1,
        display="none",
    )  # fmt: skip
    assert runs[0].logs[0].eval.model_roles in (None, {})
    assert "Rows with models of their own" not in to_markdown(
        measure(experiment, runs, "madsim/x", 1, 1, "logs")
    )


# ---- the shipped experiment


def test_reconcile_models_binds_the_papers_three_models_row_by_row() -> None:
    experiment = find_experiment("reconcile_models")
    assert experiment.models == {
        "bard": "Bard (the PaLM chat API in the authors' code)",
        "claude2": "Claude 2",
    }
    assert {row.label: (row.solver, row.model_roles) for row in experiment.rows} == {
        "Zero-shot CoT (ChatGPT)": ("cot", {"agent": "model"}),
        "Zero-shot CoT (Bard)": ("cot", {"agent": "bard"}),
        "Zero-shot CoT (Claude 2)": ("cot", {"agent": "claude2"}),
        "Debate (ChatGPT x3)": ("du_debate", {"agent": "model"}),
        "Debate (ChatGPT, Bard, Claude 2)": ("du_debate", {"agent": ("model", "bard", "claude2")}),
        "RECONCILE (ChatGPT x3)": ("reconcile", {"agent": "model"}),
        "RECONCILE (ChatGPT, Bard, Claude 2)": (
            "reconcile",
            {"agent": ("model", "bard", "claude2")},
        ),
    }
    # no paper value could be checked against the paper: none is filled in
    assert all(v is None for cells in experiment.paper_values.values() for v in cells.values())


# each row's agents and the models they ran on, with --model madsim/gpt
PAPER_MODELS = ["madsim/gpt", "madsim/bard", "madsim/claude2"]
EXPECTED = {
    "Zero-shot CoT (ChatGPT)": {"agent": "madsim/gpt"},
    "Zero-shot CoT (Bard)": {"agent": "madsim/bard"},
    "Zero-shot CoT (Claude 2)": {"agent": "madsim/claude2"},
    "Debate (ChatGPT x3)": {f"agent_{i}": "madsim/gpt" for i in (1, 2, 3)},
    "Debate (ChatGPT, Bard, Claude 2)": {f"agent_{i + 1}": m for i, m in enumerate(PAPER_MODELS)},
    "RECONCILE (ChatGPT x3)": {f"agent_{i}": "madsim/gpt" for i in (1, 2, 3)},
    "RECONCILE (ChatGPT, Bard, Claude 2)": {
        f"agent_{i + 1}": m for i, m in enumerate(PAPER_MODELS)
    },
}


def test_reconcile_models_runs_offline_each_agent_on_its_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(
        ["reproduce", "reconcile_models", "--model", "madsim/gpt", "--limit", "2", "--epochs",
         "1", "--log-dir", str(tmp_path), "--data", f"strategyqa={STRATEGYQA}"]
    )  # fmt: skip
    out = capsys.readouterr().out
    experiment = find_experiment("reconcile_models")
    for row in experiment.rows:
        [path] = (tmp_path / "reconcile_models" / row.folder).glob("*.eval")
        log = read_eval_log(str(path))
        assert log.status == "success"
        assert models_of(log) == [EXPECTED[row.label]] * 2, row.label
        used = set(EXPECTED[row.label].values())
        assert set(calls_by_model(log)) == used, row.label
    lines = [line for line in out.splitlines() if line.startswith("| ")]
    table = {cells[0]: cells[1:] for cells in (line.strip("| ").split(" | ") for line in lines)}
    # madsim answers deterministically: accuracy, first vote, W→R, R→W and calls per sample of
    # the first two fixture questions (tokens left out: they follow the prompts' wording)
    assert {label: cells[:5] for label, cells in table.items() if label in EXPECTED} == {
        "Zero-shot CoT (ChatGPT)": ["100.0", "100.0", "0.0", "0.0", "1.0"],
        "Zero-shot CoT (Bard)": ["100.0", "100.0", "0.0", "0.0", "1.0"],
        "Zero-shot CoT (Claude 2)": ["100.0", "100.0", "0.0", "0.0", "1.0"],
        # one agent's draws follow its prompt's text: on the first question two agents flip to
        # the wrong answer in round 2
        "Debate (ChatGPT x3)": ["50.0", "100.0", "0.0", "50.0", "6.0"],
        # the three models' first answers split on one question, the debate turned it right
        "Debate (ChatGPT, Bard, Claude 2)": ["100.0", "50.0", "50.0", "0.0", "6.0"],
        # reconcile's defaults follow the authors' code: at most 2 discussion rounds, one shared
        # view of the two largest answer groups
        "RECONCILE (ChatGPT x3)": ["50.0", "100.0", "0.0", "50.0", "9.0"],
        "RECONCILE (ChatGPT, Bard, Claude 2)": ["100.0", "100.0", "0.0", "0.0", "9.0"],
    }
    assert (
        "Debate (ChatGPT, Bard, Claude 2): agent=[madsim/gpt, madsim/bard, madsim/claude2]" in out
    )

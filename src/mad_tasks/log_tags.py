"""Each log's run label as a tag, for the log viewer (`mad-tasks tag`).

The viewer's eval list names a log by its task and main model; its Tags column is the one place a
run's method can show, and no solver can set a tag during its run. `tag_logs` adds one tag
afterwards, from what the log's header records, through Inspect's public edit API
(`edit_eval_log`: the edit is kept in the log with its provenance; the eval's spec is untouched).
`inspect eval ... --tags 'du_debate agents=5 agent_3=madsim/y'` gives the same tag at run time, as
`mad-tasks compare` and `mad-tasks reproduce` do; each sample's `method` score carries the same
label (`label`), so the samples lists tell runs apart too. A run that an Inspect limit or `-S
budget` cut short says so, read from its samples (`cut_note`): `du_debate rounds=3 (cut by token
limit in 3 of 3 samples: 2 rounds ran)`, and so does each cut sample's label. A role bound to a
list of models (a panel, `--model-role 'agent=[madsim/y,madsim/z]'`) shows as Inspect's CLI takes
it: `du_debate agent=[madsim/y,madsim/z]`, so a panel run is told apart from a run on one model.

Inspect gives a package no way to name a plain run in the eval list: the list's Task column is the
registered task's name, and a task's own tags are fixed before `--solver` replaces its solver. So
`--tags` at run time is the first habit (docs/report.md), and `mad-tasks tag` the one after.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from inspect_ai.log import (
    EvalLog,
    EvalSample,
    EvalSampleSummary,
    ProvenanceData,
    TagsEdit,
    edit_eval_log,
    list_eval_logs,
    read_eval_log,
    read_eval_log_sample_summaries,
    write_eval_log,
)

from .engine.catalogue import CATALOGUE
from .engine.records import Stopped
from .scorers.figures import METHOD

PREFIX = "mad_tasks/"
MAX_VALUE = 40  # characters of an option's value in its tag (templates can be long)
MISSING, NO_LOGS = "no such file or directory", "no logs found"


def role_text(bound: Any) -> str:
    """A role's binding as a label shows it: a model's name (`madsim/y`), a list of models as
    Inspect's CLI takes it (`[madsim/y,madsim/z]`; a list of one is that model, as Inspect binds
    it). A binding is a name, a `Model`, a `ModelConfig` (the log header's), or a list of them."""
    if isinstance(bound, list | tuple):
        names = [role_text(b) for b in bound]
        return names[0] if len(names) == 1 else f"[{','.join(names)}]"
    return str(getattr(bound, "model", None) or bound)  # a ModelConfig, a Model, a name


def bound_models(log: EvalLog) -> dict[str, str | list[str]]:
    """Each role the run bound (`--model-role`, the header's `model_roles`) to its model's name,
    or its models' names for a role bound to a list (a panel)."""
    return {
        role: [c.model for c in config] if isinstance(config, list) else config.model
        for role, config in (log.eval.model_roles or {}).items()
    }


def panel_model(log: EvalLog) -> list[str] | None:
    """The panel the run ran on as its model: the one list every list-bound role of the run is
    bound to, when the main model is its first model (as `mad-tasks compare --model '[a,b]'` runs
    a panel, and `inspect eval --model a --model-role 'agent=[a,b]'` the same run); else None."""
    lists = [m for m in bound_models(log).values() if isinstance(m, list)]
    if not lists or any(m != lists[0] for m in lists) or lists[0][0] != log.eval.model:
        return None
    return lists[0]


def model_label(log: EvalLog) -> str:
    """The run's model as a report names it: its panel (`[madsim/y,madsim/z]`, `panel_model`), else
    its main model."""
    panel = panel_model(log)
    return log.eval.model if panel is None else role_text(panel)


def run_label(log: EvalLog, panel_as_model: bool = False) -> str | None:
    """The log's method, each `-S` option given and each role bound with `--model-role`, as one
    tag that starts with the method (the viewer sorts tags and cuts the column short):
    `du_debate agents=5 agent_3=madsim/y`, `du_debate agent=[madsim/y,madsim/z]`. The main model
    has its own column. `panel_as_model`: the roles bound to the run's panel (`panel_model`) are
    left out, for a view whose model column names the panel. None: nothing to say."""
    spec = log.eval
    method = spec.solver
    given = spec.solver_args_passed if spec.solver_args_passed is not None else spec.solver_args
    if method is None:  # the task's own solver: the plan's last step from this package, if any
        ours = [step.solver for step in log.plan.steps if step.solver.startswith(PREFIX)]
        method, given = (ours[-1] if ours else None), {}
    panel = panel_model(log) if panel_as_model else None
    roles = {
        role: role_text(models) for role, models in bound_models(log).items() if models != panel
    }
    return label(method.removeprefix(PREFIX) if method else None, given or {}, roles) or None


def label(method: str | None, options: Mapping[str, Any], roles: Mapping[str, str]) -> str:
    """A run's label: the method, then `name=value` for each option that differs from the
    method's defaults (`-S agents=3` is du_debate's own: the same run as plain `du_debate`), and
    for each bound role. A method this package does not know keeps every option given."""
    spec = CATALOGUE.get(method) if method else None
    defaults = spec.defaults() if spec is not None else {}
    parts = [method] if method else []
    parts += [
        f"{name}={_shown(value)}"
        for name, value in options.items()
        if name not in defaults or defaults[name] != value
    ]
    return " ".join(parts + [f"{role}={model}" for role, model in roles.items()])


def cut_metadata(stopped: Stopped | None, rounds: int) -> dict[str, Any] | None:
    """What a sample's method score keeps of a debate that a limit or budget cut short: the
    limit's kind and the rounds that ran; None for a debate that ran to its end."""
    return None if stopped is None else {"stopped": stopped.kind, "rounds": rounds}


def _by(kind: str) -> str:
    return "-S budget" if kind == "budget" else f"{kind} limit"  # token, cost, message, time, ...


def _rounds(ran: Sequence[int]) -> str:
    low, high = min(ran), max(ran)
    span = str(low) if low == high else f"{low}-{high}"
    return f"{span} round{'' if span == '1' else 's'} ran"


def sample_cut(cut: Mapping[str, Any]) -> str:
    """A cut sample's note (`cut_metadata`): `cut by token limit: 2 rounds ran`."""
    return f"cut by {_by(cut['stopped'])}: {_rounds([cut['rounds']])}"


Sample = EvalSample | EvalSampleSummary


def cut_note(samples: Iterable[Sample]) -> str | None:
    """What cut a run short, from its samples' method scores: `cut by token limit in 3 of 5
    samples: 1-2 rounds ran`; None when no sample was cut (or none has a method score)."""
    notes = [(s.scores or {}).get(METHOD) for s in samples]
    cuts = [n.metadata for n in notes if n is not None and n.metadata and "stopped" in n.metadata]
    if not cuts:
        return None
    kinds = " and ".join(dict.fromkeys(_by(c["stopped"]) for c in cuts))
    ran = _rounds([c["rounds"] for c in cuts])
    return f"cut by {kinds} in {len(cuts)} of {len(notes)} samples: {ran}"


def labelled(log: EvalLog, samples: Iterable[Sample], panel_as_model: bool = False) -> str | None:
    """The log's run label (`run_label`) with what cut it short, if anything did (`cut_note`)."""
    name, cut = run_label(log, panel_as_model), cut_note(samples)
    return name if name is None or cut is None else f"{name} ({cut})"


def run_tags(method: str, options: Mapping[str, Any], eval_args: Mapping[str, Any]) -> list[str]:
    """The tags of a run started from Python (`compare`, `reproduce`): those `eval_args` give,
    then the run's label from the method, its options and the roles `eval_args` bind."""
    roles = {role: role_text(model) for role, model in (eval_args.get("model_roles") or {}).items()}
    return [*(eval_args.get("tags") or []), label(method, options, roles)]


def _shown(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, separators=(",", ":"))
    return text if len(text) <= MAX_VALUE else text[: MAX_VALUE - 1] + "…"


def tag_logs(paths: Sequence[str]) -> list[tuple[str, str]]:
    """Tag each log under `paths` (log files, or directories searched recursively) with its run
    label; returns `(log, what was done)` per log. A log still running is left alone."""
    done = []
    for path in paths:
        if "://" not in path and not Path(path).exists():
            done.append((path, MISSING))
            continue
        files = [path] if Path(path).is_file() else [_local(i.name) for i in list_eval_logs(path)]
        done += [_tag(log_file) for log_file in files] or [(path, NO_LOGS)]
    return done


def _local(name: str) -> str:
    return name.removeprefix("file://")  # a path as typed; a remote log keeps its URI


def _tag(log_file: str) -> tuple[str, str]:
    header = read_eval_log(log_file, header_only=True)
    if header.status == "started":
        return log_file, "still running: left alone"
    label = labelled(header, read_eval_log_sample_summaries(log_file))
    if label is None or label in header.tags:
        return log_file, "nothing to add"
    reason = "the run's method and roles, and a limit that cut it short"
    provenance = ProvenanceData(author="mad-tasks tag", reason=reason)
    edited = edit_eval_log(header, [TagsEdit(tags_add=[label])], provenance)
    write_eval_log(edited, log_file, header_only=True)  # the samples stay as written
    return log_file, f"tagged '{label}'"

"""Where users find the tasks: the listing metadata (src/mad_tasks/eval.yaml), the package's exports,
each task's documented `-T` options, and every `inspect eval mad_tasks/<task>` command in the docs."""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from inspect_ai.util import registry_info

import mad_tasks
import mad_tasks._registry

ROOT = Path(__file__).resolve().parents[1]
EVAL_YAML = yaml.safe_load((ROOT / "src" / "mad_tasks" / "eval.yaml").read_text(encoding="utf-8"))
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def registered(kind: str = "task") -> dict[str, object]:
    """The task (or `kind`) functions the entry point registers, by their name without the
    namespace."""
    found = {}
    for obj in vars(mad_tasks._registry).values():
        try:
            info = registry_info(obj)
        except ValueError:  # not a registered object
            continue
        if info.type == kind:
            found[info.name.removeprefix("mad_tasks/")] = obj
    return found


TASKS = registered()


def parameters(name: str) -> set[str]:
    """A task's -T options (its `**unknown` only takes the ones it refuses)."""
    params = inspect.signature(TASKS[name]).parameters.values()
    return {p.name for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD}


def test_eval_yaml_lists_every_registered_task_and_only_those() -> None:
    assert {"title", "description", "group", "contributors", "tasks"} <= set(EVAL_YAML)
    listed = [entry["name"] for entry in EVAL_YAML["tasks"]]
    assert len(listed) == len(set(listed))
    assert set(listed) == set(TASKS)


def test_the_package_exports_every_task() -> None:
    assert set(mad_tasks.__all__) == set(TASKS)
    assert all(getattr(mad_tasks, name) is TASKS[name] for name in TASKS)
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = mad_tasks.nothing


# -- each task's section documents its -T options --------------------------------------------------

# the heading of each task's section; the benchmarks share docs/tasks.md
SECTIONS = {name: ("docs/tasks.md", f"## `{name}`") for name in TASKS} | {
    "mt_bench_judge": ("docs/d3-judges.md", "## The task `mt_bench_judge`"),
    "paper_compare": ("docs/tree-of-debate.md", "## The task `paper_compare`"),
    "project_dedup": ("docs/pd3.md", "## The task `project_dedup`"),
    "project_dup_pairs": ("docs/pd3.md", "## The task `project_dup_pairs`"),
    "tool_math": ("docs/agents.md", "## The task `tool_math`"),
}


def section(path: str, heading: str) -> str:
    """The text under `heading` up to the next heading of its level or above (code blocks skipped)."""
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    start = lines.index(heading) + 1
    level = len(heading) - len(heading.lstrip("#"))
    in_code = False
    for end in range(start, len(lines)):
        if lines[end].startswith("```"):
            in_code = not in_code
        hashes = len(lines[end]) - len(lines[end].lstrip("#"))
        if not in_code and 0 < hashes <= level and lines[end][hashes : hashes + 1] == " ":
            return "\n".join(lines[start:end])
    return "\n".join(lines[start:])


@pytest.mark.parametrize("name", sorted(TASKS))
def test_each_task_section_names_every_option(name: str) -> None:
    named = set(re.findall(r"`([a-z_]{1,40})`", section(*SECTIONS[name])))
    assert parameters(name) <= named, f"{SECTIONS[name]} leaves out {parameters(name) - named}"


def test_a_section_ends_at_the_next_heading() -> None:
    text = section("docs/tasks.md", "## `mmlu`")
    assert "cais/mmlu" in text and "TIGER-Lab/MMLU-Pro" not in text


# -- every -T argument in a command names a parameter of its task ------------------------------------


def commands(text: str) -> Iterator[tuple[str, list[str]]]:
    """(task, the names of its -T arguments) for each `inspect eval mad_tasks/<task>` command, in
    code blocks and inline code, a command's `\\` continuation lines joined."""
    for line in text.replace("\\\n", " ").splitlines():
        tokens = line.replace("`", " ` ").split()
        for i in range(len(tokens) - 2):
            if tokens[i : i + 2] != ["inspect", "eval"] or not tokens[i + 2].startswith(
                "mad_tasks/"
            ):
                continue
            args = []
            for j in range(i + 3, len(tokens) - 1):
                if tokens[j] == "`":  # the end of an inline command
                    break
                if tokens[j] == "-T":
                    args.append(tokens[j + 1].split("=")[0])
            yield tokens[i + 2].removeprefix("mad_tasks/"), args


def test_commands_are_read_across_continuations_and_inline() -> None:
    text = "run `inspect eval mad_tasks/mmlu -T subset=5` then -T x=1\ninspect eval mad_tasks/gpqa \\\n  -T seed=1"
    assert list(commands(text)) == [("mmlu", ["subset"]), ("gpqa", ["seed"])]


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
def test_every_task_argument_in_a_command_is_a_parameter(path: Path) -> None:
    for task, args in commands(path.read_text(encoding="utf-8")):
        assert task in TASKS, f"{path.name}: `inspect eval mad_tasks/{task}` names no task"
        unknown = set(args) - parameters(task)
        assert not unknown, f"{path.name}: mad_tasks/{task} has no parameter {unknown}"


def test_the_tasks_page_shows_each_task_specific_option_in_a_command() -> None:
    text = (ROOT / "docs" / "tasks.md").read_text(encoding="utf-8")
    shown = {(task, arg) for task, args in commands(text) for arg in args}
    specific = {
        ("gpqa", "variant"),
        ("musr", "domain"),
        ("gsm_ic", "split"),
        ("strategyqa", "split"),
        ("project_dedup", "variant"),
        ("project_dup_pairs", "pairs"),
    }
    assert specific | {("mt_bench_judge", "ties"), ("mt_bench_judge", "revision")} <= shown


@pytest.mark.parametrize("doc", ["docs/lm-eval.md", "docs/openai-evals.md"])
def test_each_hosts_method_list_is_the_catalogues(doc: str) -> None:
    """The `method` row of a host's argument table names every method the host runs, no more."""
    from mad_tasks.engine.catalogue import CATALOGUE

    text = (ROOT / doc).read_text(encoding="utf-8")
    [row] = [line for line in text.splitlines() if line.startswith("| `method` |")]
    listed = set(re.findall(r"`(\w+)`", row.split("|")[-2]))
    assert listed == set(CATALOGUE.answering())


def test_the_openai_evals_registry_has_an_entry_per_method() -> None:
    from mad_tasks.engine.catalogue import CATALOGUE

    path = ROOT / "registry" / "openai_evals" / "completion_fns" / "mad_debate.yaml"
    entries = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert {e["args"]["method"] for e in entries.values()} == set(CATALOGUE.answering())

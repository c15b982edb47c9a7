"""Every shell command the README and docs/*.md show runs as written offline, or its block says what
it needs; and every link between the pages resolves. The convention is docs/development.md's
"Commands in the docs": this module is its check."""

from __future__ import annotations

import inspect
import io
import itertools
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import redirect_stdout
from dataclasses import dataclass
from functools import cache
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import yaml
from inspect_ai._util.registry import registry_lookup
from inspect_ai.log import read_eval_log

import mad_tasks._registry  # noqa: F401  (registers the tasks and solvers the commands name)

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = ("bash", "sh", "console")
BIN = Path(sys.executable).parent  # the environment's programs: inspect, mad-tasks, ...
OFFLINE_MODELS = ("madsim", "mockllm")
LOCAL_HOSTS = ("127.0.0.1", "localhost")
# what a command that runs may read from the repository (the scratch directory links to these)
LINKED = ("src", "tests", "registry", "examples", "benchmarks", "scripts", "docs", ".venv")
# these write logs: a run of one must leave at least one, and every log it leaves must be a success
EVALS = (("inspect", "eval"), ("mad-tasks", "compare"), ("mad-tasks", "reproduce"))
LEGACY = {"mad-lm-eval": ("run",)}  # lm-eval inserts `run` when a command names none


@dataclass(frozen=True)
class Command:
    page: str  # its path from the repository's root
    line: int  # where it starts
    text: str  # as bash runs it: continuations joined, its comment dropped
    needs: str  # what its block says it needs; empty when it runs as written
    usage: bool  # a synopsis: placeholders in capitals and brackets

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"

    @property
    def words(self) -> list[str]:
        """Its words up to the first pipe or list operator, without leading VAR=value settings."""
        words = shlex.split(self.text)
        while words and re.fullmatch(r"[A-Za-z_]\w*=.*", words[0], re.DOTALL):
            words = words[1:]
        ends = [i for i, w in enumerate(words) if w in ("|", "&&", "||", ";")]
        return words[: ends[0]] if ends else words

    @property
    def runs(self) -> bool:
        return not (self.needs or self.usage or never_run(self))


def scan(text: str) -> tuple[str, str, bool]:
    """A shell line's code, its comment (a `#` outside quotes that starts a word) and whether it
    ends inside a quote."""
    quote, escaped = "", False
    for i, char in enumerate(text):
        if escaped:
            escaped = False
        elif quote:
            quote = "" if char == quote else quote
        elif char == "\\":
            escaped = True
        elif char in "'\"":
            quote = char
        elif char == "#" and (i == 0 or text[i - 1].isspace()):
            return text[:i].rstrip(), text[i + 1 :].strip(), False
    return text.rstrip(), "", bool(quote)


def marker(comment: str) -> tuple[str, bool]:
    """(what a comment says is needed, whether it marks a synopsis)."""
    needs = comment.split("needs:", 1)[1].strip() if "needs:" in comment else ""
    return needs, comment.startswith("usage")


def blocks(text: str) -> Iterator[tuple[str, int, list[str]]]:
    """(language, line of the opening fence, lines) of each fenced block of a page."""
    language: str | None = None
    start, body = 0, []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip().startswith("```"):
            if language is None:
                language, start, body = line.strip()[3:].strip(), number, []
            else:
                yield language, start, body
                language = None
        elif language is not None:
            body.append(line)


def commands(page: str, text: str) -> list[Command]:
    """The commands of a page's shell blocks, each with what its block says it needs."""
    found = []
    for language, start, body in blocks(text):
        if language not in SHELL:
            continue
        needs, usage, pending, first, joiner = "", False, "", 0, ""
        for number, raw in enumerate(body, start + 1):
            line = raw.strip()
            if language == "console" and not pending:
                line = line[2:] if line.startswith("$ ") else line if line.startswith("#") else ""
            if not pending:
                if not line:
                    continue
                if line.startswith("#"):  # a comment line: it marks the commands below it
                    needs, usage = marker(line[1:].strip())
                    continue
                first = number
            pending = f"{pending}{joiner}{line}" if pending else line
            code, comment, open_quote = scan(pending)
            if open_quote:
                joiner = "\n"
            elif code.endswith("\\"):
                pending, joiner = code[:-1].rstrip(), " "
            else:
                own_needs, own_usage = marker(comment)
                found.append(Command(page, first, code, own_needs or needs, own_usage or usage))
                pending = ""
    return found


def page_name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


ALL = [c for page in PAGES for c in commands(page_name(page), page.read_text(encoding="utf-8"))]


def never_run(command: Command) -> bool:
    """Set-up scripts and long jobs (scripts/*.sh) and servers (inspect view)."""
    words = command.words
    return words[0].startswith("scripts/") or words[:2] == ["inspect", "view"]


def program(command: Command) -> Path | None:
    """The program a command starts: a path in the repository or a program on the PATH."""
    name = command.words[0]
    if "/" in name:
        return ROOT / name if (ROOT / name).exists() else None
    found = shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}")
    return Path(found) if found else None


def help_command(command: Command) -> tuple[str, ...]:
    """The `--help` that lists a command's options: its subcommand's (lm-eval's legacy form, with
    none, is `run`), its script's or its program's."""
    words = command.words
    if len(words) > 1 and not words[1].startswith("-"):
        return (words[0], words[1], "--help")
    return (words[0], *LEGACY.get(words[0], ()), "--help")


def models(command: Command) -> list[str]:
    """The models a command names: Inspect's --model and --model-role (a name or a mapping with
    `model`, or a list of them: a panel, as `mad-tasks compare --model '[a,b]'` takes one too),
    lm-eval's inner model (`"inner": ...` in `mad-lm-eval --model_args`)."""
    words, named = command.words, []
    if words[0] == "mad-lm-eval":
        return re.findall(r'"inner": "([^"]+)"', command.text)
    for flag, value in itertools.pairwise(words):
        if flag == "--model":
            bound = yaml.safe_load(value) if value.startswith("[") else value
            named += [str(m) for m in bound] if isinstance(bound, list) else [value]
        elif flag == "--model-role":
            bound = yaml.safe_load(value.split("=", 1)[1])
            for one in bound if isinstance(bound, list) else [bound]:
                named.append(one["model"] if isinstance(one, dict) else str(one))
    return named


def task_of(command: Command) -> str | None:
    """The task an `inspect eval` or `mad-tasks compare` runs."""
    words = command.words
    if words[:2] in (["inspect", "eval"], ["mad-tasks", "compare"]) and len(words) > 2:
        return words[2]
    return None


def unsaid_needs(command: Command) -> list[str]:
    """What a command needs beyond the repository, offline, that its block would have to say."""
    needs = []
    if program(command) is None:
        needs.append(f"the program {command.words[0]}")
    needs += [f"the model {m}" for m in models(command) if m.split("/")[0] not in OFFLINE_MODELS]
    hosts = re.findall(r"https?://([^/:\s'\"]+)", command.text)
    needs += [f"the network ({host})" for host in hosts if host not in LOCAL_HOSTS]
    if command.words[:2] == ["pip", "install"]:
        needs.append("the package index")
    if any(w == "..." or re.search(r"<[^<>\s]+>", w) for w in command.words):
        needs.append("a value for its placeholder")
    task = task_of(command)
    if task and task.startswith("inspect_evals/"):
        needs.append("inspect_evals and the network")
    if task and task.startswith("mad_tasks/") and "data_path=" not in command.text:
        function = registry_lookup("task", task)
        if function is not None and "data_path" in inspect.signature(function).parameters:
            needs.append("the network (its task downloads without -T data_path)")
    return needs


# -- the pages ------------------------------------------------------------------------------------


def test_commands_are_read_with_their_needs() -> None:
    page = """```bash
# offline
inspect eval mad_tasks/mmlu --model madsim/x \\
  -T data_path=tests/fixtures/mmlu.jsonl   # a trailing comment
# needs: an API key
inspect eval mad_tasks/mmlu --model openai/gpt-4o
mad-lm-eval --model_args '{"a": 1,
    "b": 2}' --tasks t
# usage
mad-tasks report LOG_DIR [--out DIR]
pip install -e .   # needs: the package index
```

```console
$ mad-tasks tag logs
logs/x.eval: tagged
```
"""
    found = commands("p.md", page)
    assert [(c.line, c.text, c.needs, c.usage) for c in found] == [
        (3, "inspect eval mad_tasks/mmlu --model madsim/x -T data_path=tests/fixtures/mmlu.jsonl",
         "", False),
        (6, "inspect eval mad_tasks/mmlu --model openai/gpt-4o", "an API key", False),
        (7, 'mad-lm-eval --model_args \'{"a": 1,\n"b": 2}\' --tasks t', "an API key", False),
        (10, "mad-tasks report LOG_DIR [--out DIR]", "", True),
        (11, "pip install -e .", "the package index", True),
        (15, "mad-tasks tag logs", "", False),
    ]  # fmt: skip
    assert unsaid_needs(found[1]) == [
        "the model openai/gpt-4o",
        "the network (its task downloads without -T data_path)",
    ]
    assert found[2].words == ["mad-lm-eval", "--model_args", '{"a": 1,\n"b": 2}', "--tasks", "t"]


def test_an_offline_looking_command_that_needs_more_is_caught() -> None:
    [download, role, placeholder, url] = commands(
        "p.md",
        """```bash
inspect eval mad_tasks/strategyqa --model madsim/x
inspect eval mad_tasks/tool_math --model madsim/x --model-role 'agent={model: hf/gpt2}'
inspect score logs/<log>.eval
mad-lm-eval --model_args '{"base_url": "https://api.openai.com/v1"}'
```""",
    )
    assert unsaid_needs(download) == ["the network (its task downloads without -T data_path)"]
    assert unsaid_needs(role) == ["the model hf/gpt2"]
    assert unsaid_needs(placeholder) == ["a value for its placeholder"]
    assert unsaid_needs(url) == ["the network (api.openai.com)"]


def test_every_fenced_block_names_its_language() -> None:
    unnamed = [
        f"{page_name(page)}:{start}"
        for page in PAGES
        for language, start, _ in blocks(page.read_text(encoding="utf-8"))
        if not language
    ]
    assert not unnamed, f"blocks without a language (`text` for a diagram or output): {unnamed}"


def test_the_readme_opens_with_the_two_commands_and_stays_a_front_page() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    _, start, body = next(blocks(text))
    assert start == 3 and [line.split()[0] for line in body] == [
        "scripts/demo.sh",
        "scripts/test.sh",
    ]
    assert len(text.splitlines()) <= 250
    first_eval = next(
        c for c in ALL if c.page == "README.md" and c.words[:2] == ["inspect", "eval"]
    )
    assert first_eval.runs and models(first_eval)[0].startswith("madsim/"), first_eval


@pytest.mark.parametrize("command", ALL, ids=lambda c: f"{c.page}:{c.line}")
def test_a_command_runs_offline_or_says_what_it_needs(command: Command) -> None:
    unsaid = unsaid_needs(command)
    if command.runs:
        assert not unsaid, f"{command}\nneeds {', '.join(unsaid)}: say so (# needs: ...)"
    elif program(command) is None:  # the needs must name a program the environment lacks
        assert command.words[0] in command.needs, f"{command}: name {command.words[0]} in needs"
    task, words = task_of(command), command.words
    if task and task.startswith("mad_tasks/") and not command.usage:
        assert registry_lookup("task", task) is not None, f"{command}: no task {task}"
    if task and task.endswith(".py"):
        assert (ROOT / task).is_file(), f"{command}: no file {task}"
    for flag, value in itertools.pairwise(words):
        if flag == "--solver" and not command.usage:
            solver = value.split()[0]
            assert registry_lookup("solver", solver) is not None, f"{command}: no solver {solver}"


# -- checks without running ---------------------------------------------------------------------


@cache
def help_text(argv: tuple[str, ...]) -> str:
    """What `argv` prints, run in this process (its entry point, or a script of the repository)
    for speed: a `--help` exits before the program does anything."""
    out = io.StringIO()
    main = None if argv[0].endswith(".py") else entry_point(argv[0])
    with (
        redirect_stdout(out),
        pytest.MonkeyPatch.context() as patch,
        pytest.raises(SystemExit) as done,
    ):
        patch.setattr(sys, "argv", list(argv))
        if main is None:  # as `python script.py` runs it: its folder first on the path
            patch.syspath_prepend(str((ROOT / argv[0]).parent))
            runpy.run_path(str(ROOT / argv[0]), run_name="__main__")
        else:
            main()
    assert done.value.code in (0, None), f"{' '.join(argv)} exited {done.value.code}"
    return out.getvalue()


def entry_point(name: str) -> Callable[[], object]:
    """The function an installed program's console script calls."""
    [found] = entry_points(group="console_scripts", name=name)
    return found.load()


UNRUN = [c for c in ALL if not c.runs and program(c) is not None]


@pytest.mark.parametrize("command", UNRUN, ids=lambda c: f"{c.page}:{c.line}")
def test_a_command_not_run_is_checked_as_far_as_it_can_be(command: Command) -> None:
    path = program(command)
    assert path is not None
    if path.suffix == ".sh":  # a set-up script or a long job
        assert os.access(path, os.X_OK), f"{command}: not executable"
        parsed = subprocess.run(["bash", "-n", str(path)], capture_output=True, text=True)
        assert parsed.returncode == 0, parsed.stderr
        return
    if command.words[:2] == ["pip", "install"]:  # each extra it names is one of the package's
        extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
            "optional-dependencies"
        ]
        for named in re.findall(r"\.\[([\w,-]+)\]", command.text):
            assert set(named.split(",")) <= set(extras), f"{command}: no extra {named}"
    argv = help_command(command)
    if argv[0].startswith(".venv/bin/"):  # the environment's own program, by its path
        argv = (argv[0].removeprefix(".venv/bin/"), *argv[1:])
    if argv[0] in ("python", "python3"):  # a script: its own --help
        argv = argv[1:]
    helps = help_text(argv)
    options = {w.split("=")[0] for w in command.words if re.fullmatch(r"--\w[\w-]*(=.*)?", w)}
    unknown = {o for o in options if not re.search(rf"{re.escape(o)}\b", helps)}
    assert not unknown, f"{command}: {' '.join(argv)} has no {sorted(unknown)}"


# -- the commands that run -------------------------------------------------------------------------

RUN_PAGES = sorted({c.page for c in ALL if c.runs})


def offline_environment(scratch: Path) -> dict[str, str]:
    """This environment without keys, model or network, with fresh caches."""
    closed = "http://127.0.0.1:9"  # nothing listens there: every request through it is refused
    env = {
        k: v
        for k, v in os.environ.items()
        if not re.search(r"_API_KEY$|_BASE_URL$|^INSPECT_EVAL_MODEL$|^INSPECT_LOG_DIR$", k)
    }
    return env | {
        "PATH": f"{BIN}{os.pathsep}{env.get('PATH', '')}",
        **dict.fromkeys(("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"), closed),
        "NO_PROXY": ",".join(LOCAL_HOSTS),
        "no_proxy": ",".join(LOCAL_HOSTS),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(scratch / ".hf"),
        "MAD_TASKS_CACHE_DIR": str(scratch / ".cache"),
        "INSPECT_DISPLAY": "none",
    }


def logs(scratch: Path) -> set[Path]:
    """The logs under the scratch directory (not under its links to the repository)."""
    return {
        Path(folder, name)
        for folder, _, names in os.walk(scratch)  # links to folders are not followed
        for name in names
        if name.endswith(".eval")
    }


@dataclass(frozen=True)
class Ran:
    """What one command did: its exit code and error output, its time, the logs it wrote."""

    command: Command
    code: int
    stderr: str
    seconds: float
    logs: dict[str, str]  # each new log's name -> its status


def run_page(page: str, scratch: Path) -> list[Ran]:
    """Run a page's commands that need nothing, in its order, from a scratch copy of the
    repository's root, up to the first that fails (the next ones may build on it)."""
    scratch.mkdir()
    for name in LINKED:
        if (ROOT / name).exists():
            (scratch / name).symlink_to(ROOT / name)
    env, ran = offline_environment(scratch), []
    for command in [c for c in ALL if c.page == page and c.runs]:
        before, started = logs(scratch), time.monotonic()
        done = subprocess.run(
            ["bash", "-o", "pipefail", "-c", command.text],
            cwd=scratch,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        new = {
            log.name: str(read_eval_log(str(log), header_only=True).status)
            for log in logs(scratch) - before
        }
        ran.append(Ran(command, done.returncode, done.stderr, time.monotonic() - started, new))
        if done.returncode:
            break
    return ran


@pytest.fixture(scope="module")
def page_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, list[Ran]]:
    """The runs of the pages this session tests, two pages at a time (a command is mostly one
    process's start-up: two use both cores)."""
    wanted = sorted(
        {
            item.callspec.params["page"]
            for item in request.session.items
            if getattr(item, "originalname", "") == "test_the_commands_of_a_page_run_offline"
        }
    )
    scratches = [tmp_path_factory.mktemp("docs") / "repo" for _ in wanted]
    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(wanted, pool.map(run_page, wanted, scratches), strict=True))


@pytest.mark.slow
@pytest.mark.parametrize("page", RUN_PAGES)
def test_the_commands_of_a_page_run_offline(page: str, page_runs: dict[str, list[Ran]]) -> None:
    """Each command of the page that says it needs nothing exits 0; each log it writes is a
    success, and an eval writes one."""
    ran = page_runs[page]
    assert len(ran) == sum(c.page == page and c.runs for c in ALL)  # none stopped the page
    for run in ran:
        assert run.code == 0, f"{run.command}\n({run.seconds:.0f} s) {run.stderr[-3000:]}"
        if tuple(run.command.words[:2]) in EVALS and "--list" not in run.command.words:
            assert run.logs, f"{run.command}: wrote no log"
        failed = {name: status for name, status in run.logs.items() if status != "success"}
        assert not failed, f"{run.command}: {failed}"


# -- links ------------------------------------------------------------------------------------------


def prose(page: Path) -> str:
    """A page without its fenced blocks (their fences included)."""
    text = page.read_text(encoding="utf-8")
    fenced = {n for _, start, body in blocks(text) for n in range(start, start + len(body) + 2)}
    return "\n".join(line for n, line in enumerate(text.splitlines(), 1) if n not in fenced)


def anchors(page: Path) -> set[str]:
    """The anchors GitHub makes of a page's headings."""
    made: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(page), flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        anchor, n = slug, 0
        while anchor in made:
            n += 1
            anchor = f"{slug}-{n}"
        made.add(anchor)
    return made


@pytest.mark.parametrize("page", PAGES, ids=page_name)
def test_every_link_to_a_page_or_a_heading_resolves(page: Path) -> None:
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(page)):
        if re.match(r"[a-z]+:", target):  # https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        if not linked.exists() or (anchor and anchor not in anchors(linked)):
            broken.append(target)
    assert not broken, f"{page_name(page)}: {broken}"

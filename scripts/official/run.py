"""The differential check of a method against its authors' code (docs/fidelity.md).

    .venv/bin/python scripts/official/run.py du_debate [--source GIT_DIR] [--write-fixture]

Fetches the authors' code at its pinned commit into .cache/official/src/<method> (from --source, a
local git directory holding that commit, or else a clone from GitHub), makes its own venv in
.cache/official/venvs/<method>, then for every scripted scenario runs their code and our method
against the same scripted server on 127.0.0.1, recording every request. Prints, per scenario, the
calls, whether the visibility graphs are equal and both decisions, then the checklist of what each
call kind instructs. --write-fixture writes the authors' recorded structure to
tests/fixtures/official/<method>.json, which tests/test_fidelity.py replays against our method.
Exits 1 when anything differs.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
CACHE = ROOT / ".cache" / "official"
FIXTURES = ROOT / "tests" / "fixtures" / "official"
sys.path.insert(0, str(HERE))

import server as srv  # noqa: E402
from methods import METHODS  # noqa: E402
from ours import run_ours  # noqa: E402
from replies import Call, Script, structure  # noqa: E402
from spec import Method  # noqa: E402


def checkout(method: Method, source: str | None) -> Path:
    """The authors' code at the pinned commit (extracted once)."""
    dest = CACHE / "src" / f"{method.repo.replace('/', '+')}@{method.commit}"
    if dest.exists():
        return dest
    git_dir = source
    if git_dir is None:
        git_dir = str(CACHE / "clones" / method.repo.replace("/", "+"))
        if not Path(git_dir).exists():
            url = f"https://github.com/{method.repo}.git"
            subprocess.run(["git", "clone", "--bare", url, git_dir], check=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(
        ["git", f"--git-dir={git_dir}", "archive", method.commit, *method.paths],
        check=True,
        capture_output=True,
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def venv(method: Method) -> Path:
    """The authors' own venv (Python 3.11 here), with their pinned client."""
    home = CACHE / "venvs" / method.repo.replace("/", "+")
    python = home / "bin" / "python"
    stamp = home / ".requirements"
    wanted = "\n".join(method.requirements)
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(home)], check=True)
    if not stamp.exists() or stamp.read_text() != wanted:
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *method.requirements], check=True
        )
        stamp.write_text(wanted)
    return python


def run_theirs(method: Method, code: Path, python: Path, url: str) -> dict[str, Any]:
    """The driver's report: `decision` (the method's), and what else it reads (`scored`: the
    decision the authors' scorer credits, where it differs by a quirk)."""
    question = Path(tempfile.mkdtemp(prefix="official-theirs-")) / "question.json"
    question.write_text(json.dumps(dict(method.authors_question)))
    env = dict(os.environ, OPENAI_API_BASE=url, OPENAI_BASE_URL=url, OPENAI_API_KEY="x")
    done = subprocess.run(
        [str(python), str(HERE / "drivers" / method.driver), str(code), str(question)],
        env=env, cwd=question.parent, capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"the authors' {method.id} failed:\n{done.stderr[-3000:]}")
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def checklist(method: Method, calls: list[Call], side: str) -> dict[str, dict[str, bool]]:
    """For each call kind and each item: whether every call of that kind shows the item."""
    found: dict[str, dict[str, bool]] = {}
    for kind, checks in method.checks.items():
        prompts = [
            method.prompt_of(c) if method.prompt_of else c.messages[-1]["content"]
            for c in calls
            if method.kind_of(c) == kind
        ]
        found[kind] = {
            c.item: bool(prompts)
            and all(c.holds(c.theirs if side == "theirs" else c.ours, p) for p in prompts)
            for c in checks
        }
    return found


def compare(method: Method, code: Path, python: Path) -> tuple[dict[str, Any], bool]:
    server = srv.start()
    url = srv.base_url(server)
    os.environ["SCRIPTED_API_KEY"] = "x"
    rows: dict[str, Any] = {}
    same = True
    checks: dict[str, Any] = {}
    for scenario in method.scenarios:
        sides = {}
        for side in ("theirs", "ours"):
            server.script = Script(scenario, method.keyer(), method.say)
            if side == "theirs":
                report = run_theirs(method, code, python, url)
            else:
                ours = run_ours(method, "openai-api/scripted/model", model_base_url=url)
                report = {"decision": ours}
            calls = server.script.calls
            sides[side] = {**structure(calls), **report}
            checks.setdefault(side, checklist(method, calls, side))
        theirs, ours = sides["theirs"], sides["ours"]
        equal = {k: theirs[k] == ours[k] for k in ("calls", "sees", "decision")}
        why = method.differs.get(scenario.name)
        decided = f"differs on purpose: {why}" if why else ("yes" if equal["decision"] else "NO")
        same = same and equal["calls"] and equal["sees"] and (equal["decision"] != bool(why))
        rows[scenario.name] = {"about": scenario.about, "theirs": theirs, "ours": ours, **equal}
        print(
            f"| {scenario.name} | {theirs['calls']} / {ours['calls']} | "
            f"{'yes' if equal['sees'] else 'NO'} | {theirs['decision']} / {ours['decision']} | "
            f"{decided} | {theirs.get('scored', '')} |"
        )
    server.shutdown()
    for kind, items in checks["theirs"].items():
        for item, theirs_has in items.items():
            ours_has = checks["ours"][kind][item]
            same = same and theirs_has and ours_has
            print(f"| {kind} | {item} | {'yes' if theirs_has else 'NO'} | "
                  f"{'yes' if ours_has else 'NO'} |")  # fmt: skip
    return {"scenarios": rows, "checks": checks}, same


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("method", choices=sorted(METHODS))
    ap.add_argument("--source", help="a local git directory holding the authors' commit")
    ap.add_argument("--write-fixture", action="store_true")
    a = ap.parse_args()
    method = METHODS[a.method]
    code, python = checkout(method, a.source), venv(method)
    print(f"{method.id} against {method.repo}@{method.commit}, our options {dict(method.options)}")
    print("| scenario | calls theirs / ours | visibility equal | decision theirs / ours | equal "
          "| their scorer credits |")  # fmt: skip
    result, same = compare(method, code, python)
    if a.write_fixture:
        FIXTURES.mkdir(parents=True, exist_ok=True)
        fixture = {
            "method": method.solver, "repo": method.repo, "commit": method.commit,
            "options": dict(method.options),
            "scenarios": {n: r["theirs"] for n, r in result["scenarios"].items()},
            "checks": result["checks"]["theirs"],
        }  # fmt: skip
        path = FIXTURES / f"{method.id}.json"
        path.write_text(json.dumps(fixture, indent=1, sort_keys=True) + "\n")
        print(f"wrote {path.relative_to(ROOT)}")
    print("equal in every scenario and checklist" if same else "DIFFERENCES above")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())

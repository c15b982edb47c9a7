"""Print the mutation score per file from mutmut's results in ./mutants, and list the survivors.

Killed counts mutants a test failed on, or that timed out (a mutant that makes a reader loop is
caught); "no tests" mutants count against the score, since no test covers them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from mutmut.stats import status_by_exit_code

CAUGHT = {"killed", "timeout", "caught by type check"}


def main() -> int:
    metas = sorted(Path("mutants").rglob("*.py.meta"))
    if not metas:
        print("no mutmut results in ./mutants: run scripts/mutation.sh")
        return 1
    total_caught = total = 0
    survivors: list[str] = []
    print(f"{'file':55} {'killed':>7} {'total':>6} {'score':>7}")
    for meta in metas:
        codes = json.loads(meta.read_text())["exit_code_by_key"]
        if not codes:
            continue
        statuses = {key: status_by_exit_code[code] for key, code in codes.items()}
        caught = sum(s in CAUGHT for s in statuses.values())
        name = str(meta.relative_to("mutants"))[: -len(".meta")]
        print(f"{name:55} {caught:7} {len(codes):6} {caught / len(codes):7.1%}")
        survivors += [f"{key}: {s}" for key, s in sorted(statuses.items()) if s not in CAUGHT]
        total_caught += caught
        total += len(codes)
    print(f"{'all':55} {total_caught:7} {total:6} {total_caught / total:7.1%}")
    if survivors:
        print("\nnot killed (see one with: .venv/bin/mutmut show NAME):")
        print("\n".join(f"  {s}" for s in survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())

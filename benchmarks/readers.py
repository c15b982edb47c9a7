"""How long does each reader of model output take on a 200,000-character adversarial reply?

Every reader (answers of every format, ballots, agreement, judge scores, confidences, personas; the
table is `tests/adversarial.py`) reads every fixed worst case there: long runs of what its patterns
look for, where a backtracking pattern would go quadratic and block for minutes. Prints, per reader,
the worst time over all cases (best of `--repeat` runs each) and which case it was. Goal: every
reader under 50 ms. Times are CPU time of this process, so that other work on a shared machine does
not count; on an idle machine wall time is the same. The property test `tests/test_readers_linear.py` checks the same readers on
random adversarial replies with a generous bound; this script gives the figures.

    .venv/bin/python benchmarks/readers.py [--quick] [--repeat 3]
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from common import arguments, parser

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from adversarial import READERS, SIZE, WORST_CASES

GOAL_MS = 50.0


def seconds(read, text: str, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        read(text)
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--repeat", type=int, default=3)
    args = arguments(ap, repeat=1)
    print(f"{len(READERS)} readers x {len(WORST_CASES)} cases of {SIZE:,} characters\n")
    print(f"| reader | worst ms | worst case | goal < {GOAL_MS:g} ms |")
    print("|---|---:|---|---|")
    over = 0
    for name, read in READERS.items():
        times = {case: seconds(read, text, args.repeat) for case, text in WORST_CASES.items()}
        case = max(times, key=times.__getitem__)
        ms = times[case] * 1000
        over += ms >= GOAL_MS
        print(f"| {name} | {ms:.1f} | {case} | {'ok' if ms < GOAL_MS else 'OVER'} |")
    print(f"\n{over} reader(s) over the goal")


if __name__ == "__main__":
    main()

"""Inspect Scout scanners over the debate records of mad_tasks logs (`pip install
"mad-tasks[scanners]"`; docs/scanners.md has the commands).

Each scanner reads a sample's debate record from its store (rebuilt from the transcript's store
events) and the sample's target and choices (its `sample_init` event), then applies a rule of
`rules.py`; its result's value is the number of cases found (0 on a clean record), its
explanation the cases, its metadata each case's agent and round. A transcript without a record
of this package's (another solver, an older version), or whose rule does not apply (a judge has
no agents' answers, a target that is no answer), has the value None and says why.

- `mad_tasks/right_answer_voted_out`, `mad_tasks/abandoned_right_answer`,
  `mad_tasks/judge_order_flip`: deterministic, no model call;
- `mad_tasks/capitulation`: model-graded (`capitulation.py`);
- `mad_tasks/debate_failures`: a scan job of the three deterministic ones.

`scout scan mad_tasks/debate_failures -T LOGS` finds them by name: Inspect loads this package's
entry point, which registers them when Inspect Scout is running.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict

from inspect_scout import Result, ScanJob, Scanner, Transcript, scanjob, scanner

from ..engine.records import DebateResult
from .capitulation import capitulation
from .reading import EVENTS, debate_of, right_of
from .rules import Finding, Right, abandoned, order_flips, voted_out

__all__ = [
    "abandoned_right_answer",
    "capitulation",
    "debate_failures",
    "judge_order_flip",
    "right_answer_voted_out",
]


def reported(findings: list[Finding] | str) -> Result:
    """The scanner's result: the number of cases, or None with the reason a rule did not apply."""
    if isinstance(findings, str):
        return Result(value=None, explanation=findings)
    return Result(
        value=len(findings),
        explanation="\n".join(f.why for f in findings) or "none found",
        metadata={"findings": [asdict(f) for f in findings]},
    )


def answer_scan(rule: Callable[[DebateResult, Right], list[Finding]]) -> Scanner[Transcript]:
    """A scanner applying `rule` with the sample's own comparison of answers."""

    async def scan(transcript: Transcript) -> Result:
        result = debate_of(transcript)
        if isinstance(result, str):
            return reported(result)
        right = right_of(transcript, result)
        return reported(right if isinstance(right, str) else rule(result, right))

    return scan


@scanner(events=EVENTS)
def right_answer_voted_out() -> Scanner[Transcript]:
    """The final answer is wrong while some agent gave the right one (`rules.voted_out`)."""
    return answer_scan(voted_out)


@scanner(events=EVENTS)
def abandoned_right_answer() -> Scanner[Transcript]:
    """An agent left a right answer for a wrong one with no new argument (`rules.abandoned`)."""
    return answer_scan(abandoned)


@scanner(events=EVENTS)
def judge_order_flip() -> Scanner[Transcript]:
    """A judge's verdict changed with the order of the answers (`rules.order_flips`)."""

    async def scan(transcript: Transcript) -> Result:
        result = debate_of(transcript)
        return reported(result if isinstance(result, str) else order_flips(result))

    return scan


@scanjob
def debate_failures() -> ScanJob:
    """The three deterministic scanners in one scan."""
    return ScanJob(
        scanners=[right_answer_voted_out(), abandoned_right_answer(), judge_order_flip()]
    )

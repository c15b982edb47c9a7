"""`failures`: why a debate fails. The oracle gap, the agents' flips by class and accuracy per round.

One figure scorer each (see `figures`), read from the sample's debate record and its target with
the task's own answer comparison, no model call; the rules are `engine/failures.py`'s and the
definitions `docs/failure-figures.md`'s. Every answer-producing method's run lists them; a judge
(its verdicts are no agents' answers), a method that answers with a summary or a ranking, and a
record without agents' answers have none. The flips and the change per round need two rounds: a
method with one round (`single`, `cot`, `self_consistency`) has the oracle gap and round 1's
accuracy only. A round's figures are those of the rounds the sample's record holds, up to
`ROUND_FIGURES`: a round's mean is over the samples whose debate reached it. `oracle_gap`'s
metadata holds the sample's detail: every round's accuracy and vote, and every flip.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from inspect_ai.scorer import Scorer, Target, stderr
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.failures import DIRECTIONS, FLIP_KINDS, Failures, failures
from ..engine.methods.d3.records import JudgeRecord
from ..engine.options import MAX_ROUNDS
from ..engine.records import DebateResult
from .figures import Figure, Missing, NotApplicable, Reading, family
from .transitions import task_gold

# rounds with figures of their own: the most rounds an option allows, plus the first answers of a
# method whose `max_rounds` counts the rounds after them (cortex, reconcile)
ROUND_FIGURES = MAX_ROUNDS + 1
CHANGE = "correctness_change_per_round"

WHAT = {
    "conformity": "to the previous round's plurality",
    "persuasion": "to an answer a peer held in the previous round that was not its plurality",
    "instability": "to an answer no peer held in the previous round",
}
WAY = {
    "right_to_wrong": "from a right answer to a wrong one",
    "wrong_to_right": "from a wrong answer to a right one",
}


def flip_name(kind: str, direction: str | None = None) -> str:
    return f"{kind}_flips" + (f"_{direction}" if direction else "")


def round_name(r: int, level: str) -> str:
    return f"round_{r}_{level}_accuracy"


FLIP_FIGURES = [flip_name(kind, way) for kind in FLIP_KINDS for way in (None, *DIRECTIONS)]
FIGURES = [
    Figure("oracle_gap", "1 when the final answer is wrong (or missing) while some agent's answer "
           "in some round of the record was right: a right answer the debate had and lost."),
    *(Figure(flip_name(kind), f"Agents' answer changes {WHAT[kind]}, summed over agents and "
             "rounds.") for kind in FLIP_KINDS),
    *(Figure(flip_name(kind, way), f"{kind.capitalize()} flips {WAY[way]}.")
      for kind in FLIP_KINDS for way in DIRECTIONS),
    Figure(CHANGE, "The mean change, from one round to the next, of the share of agents whose "
           "answer is right: near 0 when debate is a martingale (Debate or Vote).",
           metrics=[stderr()]),
    *(figure for r in range(1, ROUND_FIGURES + 1) for figure in (
        Figure(round_name(r, "agent"), f"The share of agents whose latest answer by round {r} "
               "is right (an abstention is wrong)."),
        Figure(round_name(r, "vote"), f"1 when the plurality of the agents' latest answers by "
               f"round {r} is right (a tie goes to the answer given first in agent order)."),
    )),
]  # fmt: skip

ONE_ROUND = "one round: no agent could change its answer"


def reading_of(
    result: DebateResult | None,
    choices: Sequence[str],
    metadata: Mapping[str, Any],
    target: Sequence[str],
) -> Reading | Missing:
    """The figures of one sample from its record, its choices, metadata and target."""
    if result is None:
        return Missing(NO_RESULT)
    if isinstance(result.record, JudgeRecord):
        return NotApplicable("a judge: its verdicts are no agents' answers (see its transitions)")
    if result.record is not None and result.record.answers_with is not None:
        return NotApplicable(f"{result.method} answers with {result.record.answers_with}")
    if not result.answers:
        return NotApplicable(f"{result.method} recorded no agent's answer")
    gold = task_gold(choices, metadata, target)
    if isinstance(gold, NotApplicable):
        return gold
    fmt, keys = gold
    return _reading(failures(result, fmt.key, keys))


def _reading(f: Failures) -> Reading:
    debated = len(f.rounds) > 1
    values: dict[str, int | float | Missing] = {"oracle_gap": int(f.oracle_gap)}
    for kind in FLIP_KINDS:
        for way in (None, *DIRECTIONS):
            values[flip_name(kind, way)] = (
                f.count(kind, way) if debated else NotApplicable(ONE_ROUND)
            )
    change = f.correctness_change
    values[CHANGE] = NotApplicable(ONE_ROUND) if change is None else change
    held = {a.round: a for a in f.rounds}
    for r in range(1, ROUND_FIGURES + 1):
        got = held.get(r)
        absent = NotApplicable(f"the record holds no round {r}")
        values[round_name(r, "agent")] = absent if got is None else got.agent_accuracy
        values[round_name(r, "vote")] = absent if got is None else int(got.vote_correct)
    detail = {
        "final": f.final, "final_correct": f.final_correct, "right_answers": f.right_answers,
        "by_round": [{**asdict(a), "agent_accuracy": a.agent_accuracy} for a in f.rounds],
        "flips": [{**asdict(x), "direction": x.direction} for x in f.flips],
    }  # fmt: skip
    return Reading(values, {"oracle_gap": detail})


def read(state: TaskState, target: Target) -> Reading | Missing:
    choices = [c.value for c in state.choices]
    return reading_of(load_result(state), choices, state.metadata, target.target)


SCORERS = family(FIGURES, read, rank=0, columns={"oracle_gap": "oracle gap"})


def failure_figures() -> list[Scorer]:
    """The failure figures' scorers: the oracle gap, the three classes of flips (each with its
    right→wrong and wrong→right counts), the change in correctness per round and each round's
    agent and vote accuracy."""
    return [make() for make in SCORERS]

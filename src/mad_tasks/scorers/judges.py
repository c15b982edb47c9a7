"""`more_judge` and `samre_judge`: D3 debate judges grading any task's output against a reference.

Like `model_graded_qa`, but the grade comes from a debate: the output of the model under test is
Answer A, the sample's reference (its target, or a metadata field) is Answer B, and the verdict is
win (1), tie (0.5) or loss (0), so the mean is a win rate. The question is the sample's input as
the dataset gave it, every part of it (an image too). A court that gives nothing readable
abstains: 0, counted as `abstained`, never a tie. An empty output is no answer: it scores 0
without a hearing (a court could otherwise prefer nothing to a poor reference). The judge's calls run on the roles
`advocate`, `judge` and `juror`; the jurors' and the judge's reasoning is the explanation, and the
verdict, costs and the whole record go into the score metadata. Works after the fact too:

    inspect score LOG --scorer mad_tasks/samre_judge --action append

A grader role left unbound falls back to the model under evaluation, which then grades its own
output: by default (`grader_fallback=warn`) a warning says so once per run, the explanation opens
with it and the metadata's `options.roles` record every role's model; `error` fails the sample
before the court's first call, `allow` accepts it silently.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import asdict

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from .._inspect_sample import judge_session, question_of
from ..engine.catalogue import CATALOGUE
from ..engine.methods.d3.court import Pair, explanation
from ..engine.methods.d3.options import MoreJudgeOptions, SamreJudgeOptions
from ..engine.methods.d3.records import JudgeRecord
from ..engine.panels import called, named
from ..inspect_runtime import MAIN_MODEL, SETUP, InspectRuntime
from ._options import ScorerOptionError, takes
from .judge_metrics import COURT, judgment_metadata, judgments

OUTCOMES = {
    "A": ("win", 1.0),
    "tie": ("tie", 0.5),
    "B": ("loss", 0.0),
    None: ("abstained", 0.0),  # nothing readable: no credit, and not a tie
}
NO_OUTPUT = "no output"
logger = logging.getLogger(__name__)
METRICS = [mean(), stderr(), judgments()]


def reference_of(state: TaskState, target: Target, reference: str) -> str:
    if reference == "target":
        return target.text
    value = state.metadata.get(reference)
    if not isinstance(value, str):
        raise ValueError(
            f"invalid scorer option 'reference': sample {state.sample_id} has no text metadata "
            f"field {reference!r} (use 'target' or the name of a metadata field)"
        )
    return value


def listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def self_grading(roles: list[str], model: str) -> str:
    """What grader roles left unbound mean."""
    return (
        f"no model is bound to the {listed(roles)} role{'s' if len(roles) > 1 else ''}, so the "
        f"model under evaluation ({model}) grades its own output"
    )


class SelfGrading:
    """A grading scorer's `grader_fallback` policy: a scorer is made once per eval (or per
    `inspect score`), so it warns once per run."""

    def __init__(self, name: str, policy: str) -> None:
        self.name, self.policy, self.warned = name, policy, False

    def note(self, runtime: InspectRuntime, roles: Sequence[str]) -> str:
        """The explanation's opening when a grader role falls back to the model under evaluation
        ("" when none does, or on purpose); under `error`, ScorerOptionError. Every role is
        resolved here, before any call, so a refused fallback costs nothing."""
        fallen = [r for r in called(roles) if runtime.model_of(r).fallback == MAIN_MODEL]
        if not fallen or self.policy == "allow":
            return ""
        why = self_grading(named(fallen), str(runtime.model_of(fallen[0]).model))
        bind = " ".join(f"--model-role {r}=<model>" for r in named(fallen))
        if self.policy == "error":
            raise ScorerOptionError(f"{self.name} (grader_fallback=error): {why}; bind {bind}")
        if not self.warned:
            self.warned = True
            logger.warning(
                f"{self.name}: {why}. Bind {bind}, or pass grader_fallback=allow if this is on "
                "purpose."
            )
        return f"Self-graded: {why}.\n\n"


def graded(opts: MoreJudgeOptions | SamreJudgeOptions, name: str, method: str) -> Scorer:
    """`name`, grading with the judge `method` of the catalogue (its solver's options)."""
    self_graded = SelfGrading(name, opts.grader_fallback)
    judge = CATALOGUE[method].authored(opts, SETUP)  # -S answer_form=authors too

    async def score(state: TaskState, target: Target) -> Score:
        runtime = InspectRuntime(state.sample_id, declared=opts.roles)
        note = self_graded.note(runtime, opts.roles)
        if not state.output.completion.strip():
            return Score(
                value=0.0,
                answer=NO_OUTPUT,
                explanation="The model under test gave no answer, so there was nothing to judge.",
                metadata={"outcome": NO_OUTPUT, f"{COURT}calls": 0, f"{COURT}tokens": 0},
            )
        # shown as written: no prompt names the model under test
        reference_answer = reference_of(state, target, opts.reference)
        question = question_of(state, opts.allow_text_only, as_given=True)
        pair = Pair(question, state.output.completion, reference_answer)
        session = judge_session(
            runtime, pair.question, opts.retries, opts.temperature, opts.max_tokens
        )
        result = await judge(session, pair)
        result.options = {**result.options, "roles": runtime.resolved_roles()}
        record = result.record
        assert isinstance(record, JudgeRecord)  # every D3 judge records its hearings
        outcome, value = OUTCOMES[result.final]
        return Score(
            value=value,
            answer=outcome,
            explanation=note + explanation(record),
            metadata={
                **judgment_metadata(result, record, COURT),
                "outcome": outcome,
                "hearings": [asdict(h) for h in record.hearings],
            },
        )

    return score


@scorer(metrics=METRICS)
@takes(MoreJudgeOptions)
def more_judge(o: MoreJudgeOptions) -> Scorer:
    """Grade the output against a reference with MORE (the options are the `more` solver's)."""
    return graded(o, "more_judge", "more")


@scorer(metrics=METRICS)
@takes(SamreJudgeOptions)
def samre_judge(o: SamreJudgeOptions) -> Scorer:
    """Grade the output against a reference with SAMRE (the options are the `samre` solver's)."""
    return graded(o, "samre_judge", "samre")

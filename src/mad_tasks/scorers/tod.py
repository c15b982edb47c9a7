"""Tree-of-Debate's scorers: `tod_judge` (the paper's three human criteria, applied by a grader
model), `tod_pairwise` (the output against a baseline summary on each criterion, both orders) and
`tree_stats` (the tree's shape and costs, from the record, with no model call).

The judges see the sample's topic (its input as the dataset gave it, every part), the kind of pair
(`kind` "method" or "task", or `method_or_task` 0/1, in the metadata) and both papers' title,
abstract and introduction (`paper_a`, `paper_b`). Their calls run on the `grader` role; left
unbound, it falls back to the model under evaluation, which `grader_fallback` governs as for
`more_judge` (warn, error, allow). Scores (engine/methods/tod/judge.py for the rules):

- `tod_factuality`: the mean of the 1/0 marks of the summary's sentences x 100;
- `tod_breadth`, `tod_contextualization`: the level 0-4 x 25;
- `tod_win_factuality`, `tod_win_breadth`, `tod_win_contextualization`: 1 when the grader prefers
  the output, 0.5 for a tie, 0 for the baseline, averaged over the two orders (a win rate).

An empty output (the moderator's summary was unreadable) is no answer: 0, without a call. An
unreadable grade is an abstention of the grader: the sample is left unscored (`Score.unscored`,
reason `grader_failed`), so the mean and stderr leave it out and Inspect counts it (the results'
unscored samples, "(scored/total)" in the viewer); it is never a 0 or a pass. An order of a pairwise
comparison that is unreadable is left out of that sample's mean of the orders. A sample whose
grading (or baseline) a limit refused has no score of that criterion; where no sample has one, the
results list the scorer without a mean or stderr (`graded_mean`), never a NaN.

The pairwise baseline `two_stage` (default) or `single_stage` is that baseline method run within the
scorer on the sample's papers, on its `summarizer` role (the main model unless bound), with the
solver's defaults; it runs once per sample, kept in the sample store under
`mad_tasks:tod_baseline:<name>` for all three criteria, its calls and tokens in each score's
metadata (`baseline`), apart from the solver's `debate_stats`. `metadata:<field>` reads a summary
from the sample's metadata instead. A baseline that gave no summary leaves the sample unscored
(reason `scoring_failed`): there is nothing to compare with.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from contextlib import suppress
from dataclasses import asdict
from typing import Any, cast
from weakref import WeakKeyDictionary

import anyio
from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    Value,
    mean,
    metric,
    scorer,
    stderr,
)
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result, question_of
from ..engine.answers import FreeText
from ..engine.catalogue import CATALOGUE
from ..engine.limits import LimitReached
from ..engine.methods.tod.judge import (
    GRADER,
    KINDS,
    LEVELS,
    METADATA,
    Comparison,
    Grading,
    JudgeOptions,
    Level,
    Marks,
    PairwiseOptions,
    grade,
    prefer,
)
from ..engine.methods.tod.options import SamplingOptions
from ..engine.methods.tod.papers import PaperPair, pair_of_metadata
from ..engine.methods.tod.records import TreeRecord
from ..engine.records import CallRecord, DebateResult, token_totals
from ..engine.session import Problem, Session
from ..inspect_runtime import SETUP, InspectRuntime
from ._options import takes
from .figures import Absent, Figure, Missing, NotApplicable, Reading, family
from .judges import SelfGrading

METRICS_OF = {"mean": mean, "stderr": stderr}  # what `graded_mean` gives, by name


@metric
def graded_mean() -> Metric:
    """Inspect's `mean` and `stderr` of the graded samples, by those names; neither when no
    sample was graded (a limit refused every grading call), where Inspect reports a mean of no
    scores as NaN: the figure is then absent from the results, never NaN."""

    of = {name: cast(Callable[[list[SampleScore]], float], m()) for name, m in METRICS_OF.items()}

    def compute(scores: list[SampleScore]) -> Value:
        return {name: float(m(scores)) if scores else None for name, m in of.items()}

    return compute


METRICS = [graded_mean()]
UNREADABLE = "grader_failed"  # Inspect's reason for a grade that could not be read
NO_BASELINE = "scoring_failed"  # Inspect's reason for a score that could not be computed
LEFT_OUT = (
    "so this sample is left out of the mean (an abstention of the grader: never a 0, never a pass)"
)


def kind_of(metadata: dict[str, Any]) -> str | None:
    """The pair's kind, "method" or "task", from `kind` or `method_or_task` (0/1); None if neither."""
    kind = metadata.get("kind")
    if kind in KINDS:
        return str(kind)
    label = metadata.get("method_or_task")
    return {0: "method", 1: "task"}.get(label) if type(label) is int else None


def sample_pair(state: TaskState, allow_text_only: bool) -> PaperPair:
    """The topic as the dataset gave it (a setup may wrap the input) and the two papers."""
    return pair_of_metadata(state.metadata, question_of(state, allow_text_only, as_given=True))


def grader_session(runtime: InspectRuntime, pair: PaperPair, o: JudgeOptions) -> Session:
    return Session(
        runtime,
        Problem(pair.topic, FreeText()),
        retries=o.retries,
        temperature=o.temperature,
        max_tokens=o.max_tokens,
    )


def costs(runtime: InspectRuntime, calls: Iterable[CallRecord]) -> dict[str, Any]:
    """The grading calls' totals and the model each role ran on, for a score's metadata: under
    `grading`, as the solver's own `calls` and tokens are `debate_stats`' figures."""
    return {"grading": {**token_totals(calls), "roles": runtime.resolved_roles()}}


# -- tod_judge ----------------------------------------------------------------------------------


def _graded_text(g: Grading) -> tuple[str, str]:
    """The score's answer and the explanation's first line."""
    if isinstance(g.grade, Marks):
        kept = sum(g.grade.marks)
        return f"{kept}/{len(g.grade.marks)}", (
            f"{kept} of {len(g.grade.marks)} sentences marked accurate "
            f"(marks {' '.join(map(str, g.grade.marks))})."
        )
    assert isinstance(g.grade, Level)
    return str(g.grade.level), (
        f"Level {g.grade.level} of 4: {LEVELS[g.criterion][g.grade.level]}."
    )


def graded_score(g: Grading, note: str, metadata: dict[str, Any], summary: str = "") -> Score:
    metadata = {
        **metadata,
        "sentences": list(g.sentences),
        "grade": asdict(g.grade) if g.grade else None,
        "replies": list(g.replies),
    }
    if not g.sentences:
        return Score(
            value=0.0,
            answer="no output",
            explanation=note + "The model under test gave no summary, so there was nothing to "
            "grade: 0.",
            metadata=metadata,
        )
    if g.value is None:
        return Score.unscored(
            reason=UNREADABLE,
            explanation=note + f"Unreadable grade: none of the grader's {len(g.replies)} "
            f"replies held a readable {g.criterion} grade, {LEFT_OUT}.",
            metadata=metadata,
        )
    grade, first = _graded_text(g)
    reasons = g.grade.explanation if g.grade else ""
    # the answer is the summary graded, which the viewer's answer column shows (the grade is in
    # the metadata and the explanation); the value to 2 decimals (71.43, not 71.42857142857143)
    return Score(
        value=round(g.value, 2),
        answer=summary,
        explanation=note + first + (f"\n\n{reasons}" if reasons else ""),
        metadata={**metadata, "graded": grade},
    )


def ungraded(runtime: InspectRuntime, name: str, limit: LimitReached) -> None:
    """Say in the transcript why the sample has no `name` score: a limit of the sample refused
    the grader's calls (a limit ends the grading, never the sample; no score, never NaN)."""
    runtime.info(name, f"Not graded: {limit}, so the sample has no {name} score.")


def criterion_scorer(o: JudgeOptions, criterion: str) -> Scorer:
    self_graded = SelfGrading(f"tod_{criterion}", o.grader_fallback)

    async def score(state: TaskState, target: Target) -> Score | None:
        runtime = InspectRuntime(state.sample_id, declared=(GRADER,))
        note = self_graded.note(runtime, (GRADER,))
        pair = sample_pair(state, o.allow_text_only)
        session = grader_session(runtime, pair, o)
        try:
            g = await grade(
                session,
                pair,
                kind_of(state.metadata),
                state.output.completion,
                criterion,
                o.structured,
            )
        except LimitReached as limit:
            ungraded(runtime, f"tod_{criterion}", limit)
            return None
        return graded_score(g, note, costs(runtime, g.calls), state.output.completion)

    return score


@scorer(metrics=METRICS)
@takes(JudgeOptions)
def tod_factuality(o: JudgeOptions) -> Scorer:
    """The share of the summary's sentences the grader marks accurate against the papers, x 100."""
    return criterion_scorer(o, "factuality")


@scorer(metrics=METRICS)
@takes(JudgeOptions)
def tod_breadth(o: JudgeOptions) -> Scorer:
    """The grader's breadth level (0-4, the paper's descriptions) x 25."""
    return criterion_scorer(o, "breadth")


@scorer(metrics=METRICS)
@takes(JudgeOptions)
def tod_contextualization(o: JudgeOptions) -> Scorer:
    """The grader's contextualization level (0-4, the paper's descriptions) x 25."""
    return criterion_scorer(o, "contextualization")


def tod_judge(**options: Any) -> list[Scorer]:
    """The paper's three criteria, one scorer each with the same options (those of
    `tod_factuality`): factuality, breadth and contextualization, 0-100."""
    return [make(**options) for make in (tod_factuality, tod_breadth, tod_contextualization)]


# -- tod_pairwise -------------------------------------------------------------------------------

BASELINE_KEY = "mad_tasks:tod_baseline:"
# one lock per sample: Inspect runs a sample's scorers one after another (inspect_ai/_eval/task/
# run.py, and `inspect score`), but a baseline must never run twice if that changes
_baseline_locks: WeakKeyDictionary[TaskState, anyio.Lock] = WeakKeyDictionary()


async def baseline_run(state: TaskState, name: str, pair: PaperPair) -> DebateResult:
    """The baseline method's run on the sample's papers: the one in the store, else a new one,
    kept there for the other criteria."""
    lock = _baseline_locks.setdefault(state, anyio.Lock())
    async with lock:
        stored = state.store.get(BASELINE_KEY + name)
        if stored is not None:
            with suppress(ValueError, TypeError, KeyError, AttributeError):  # another version's
                return DebateResult.from_dict(stored)
        opts = SamplingOptions()
        runtime = InspectRuntime(state.sample_id, declared=CATALOGUE[name].roles(opts))
        session = Session(runtime, Problem(pair.topic, FreeText()), retries=opts.retries)
        run = CATALOGUE[name].prepare(opts, SETUP)
        async with runtime.span(f"baseline {name}"):
            result = await run(session, pair)
        result.options = {**opts.record(), **result.options, "roles": runtime.resolved_roles()}
        state.store.set(BASELINE_KEY + name, result.to_dict())
        return result


async def baseline_summary(
    state: TaskState, baseline: str, pair: PaperPair
) -> tuple[str | None, dict[str, Any]]:
    """The baseline's summary (None: it gave none) and what the score's metadata says of it."""
    if baseline.startswith(METADATA):
        field = baseline[len(METADATA) :]
        value = state.metadata.get(field)
        if not isinstance(value, str):
            raise ValueError(
                f"invalid scorer option 'baseline': sample {state.sample_id} has no text metadata "
                f"field {field!r} (use two_stage, single_stage or metadata:<a text field>)"
            )
        return value, {"source": baseline}
    result = await baseline_run(state, baseline, pair)
    return result.final, {
        "source": baseline,
        **token_totals(result.calls),
        "roles": result.options.get("roles"),
    }


SHOWN = ("the output as A, the baseline as B", "the baseline as A, the output as B")


def _order_line(i: int, c: Comparison) -> str:
    choice = c.choices[i]
    if choice is None:
        return f"Order {i + 1} ({SHOWN[i]}): unreadable, left out."
    said = c.explanations[i]
    return f"Order {i + 1} ({SHOWN[i]}): {choice}." + (f" {said}" if said else "")


def compared_score(c: Comparison, baseline: str, note: str, metadata: dict[str, Any]) -> Score:
    metadata = {
        **metadata,
        "choices": list(c.choices),
        "replies": [list(r) for r in c.replies],
    }
    if not c.calls:
        return Score(
            value=0.0,
            answer="no output",
            explanation=note + f"The model under test gave no summary: it loses to {baseline}, 0.",
            metadata=metadata,
        )
    orders = "\n\n".join(_order_line(i, c) for i in range(2))
    if c.value is None:
        return Score.unscored(
            reason=UNREADABLE,
            explanation=note + f"Unreadable preferences in both orders, {LEFT_OUT}.\n\n{orders}",
            metadata=metadata,
        )
    return Score(
        value=round(c.value, 2),
        answer=" / ".join(x or "unreadable" for x in c.choices),
        explanation=note + f"{c.value:g} against {baseline} (1: the output preferred, 0.5: a tie, "
        f"0: the baseline; the mean of the readable orders).\n\n{orders}",
        metadata=metadata,
    )


def win_scorer(o: PairwiseOptions, criterion: str) -> Scorer:
    self_graded = SelfGrading(f"tod_win_{criterion}", o.grader_fallback)

    async def score(state: TaskState, target: Target) -> Score | None:
        runtime = InspectRuntime(state.sample_id, declared=(GRADER,))
        note = self_graded.note(runtime, (GRADER,))
        if not state.output.completion.strip():  # nothing to compare: the baseline need not run
            return Score(
                value=0.0,
                answer="no output",
                explanation=note + f"The model under test gave no summary: it loses to "
                f"{o.baseline}, 0.",
            )
        pair = sample_pair(state, o.allow_text_only)
        try:
            summary, about = await baseline_summary(state, o.baseline, pair)
        except LimitReached as limit:  # the baseline to compare with could not be written
            ungraded(runtime, f"tod_win_{criterion}", limit)
            return None
        metadata = {"baseline": {**about, "summary": summary}}
        if summary is None or not summary.strip():
            return Score.unscored(
                reason=NO_BASELINE,
                explanation=note + f"The baseline ({o.baseline}) gave no summary to compare "
                "with, so this sample is left out of the mean.",
                metadata=metadata,
            )
        session = grader_session(runtime, pair, o)
        try:
            c = await prefer(
                session,
                pair,
                kind_of(state.metadata),
                state.output.completion,
                summary,
                criterion,
                o.structured,
            )
        except LimitReached as limit:
            ungraded(runtime, f"tod_win_{criterion}", limit)
            return None
        return compared_score(c, o.baseline, note, {**metadata, **costs(runtime, c.calls)})

    return score


@scorer(metrics=METRICS)
@takes(PairwiseOptions)
def tod_win_factuality(o: PairwiseOptions) -> Scorer:
    """The output against the baseline on factuality: 1 win, 0.5 tie, 0 loss (both orders)."""
    return win_scorer(o, "factuality")


@scorer(metrics=METRICS)
@takes(PairwiseOptions)
def tod_win_breadth(o: PairwiseOptions) -> Scorer:
    """The output against the baseline on breadth: 1 win, 0.5 tie, 0 loss (both orders)."""
    return win_scorer(o, "breadth")


@scorer(metrics=METRICS)
@takes(PairwiseOptions)
def tod_win_contextualization(o: PairwiseOptions) -> Scorer:
    """The output against the baseline on contextualization: 1 win, 0.5 tie, 0 loss (both
    orders)."""
    return win_scorer(o, "contextualization")


def tod_pairwise(**options: Any) -> list[Scorer]:
    """The output against a baseline summary on each criterion, one scorer each with the same
    options (those of `tod_win_factuality`; `baseline` two_stage by default)."""
    return [
        make(**options) for make in (tod_win_factuality, tod_win_breadth, tod_win_contextualization)
    ]


# -- tree_stats ---------------------------------------------------------------------------------

NOT_TREE = "no Tree-of-Debate record in the sample store"
NO_JUDGED = (
    "the relevance filter judged no segment (no self-deliberation, k_preempt=0, or no claim to "
    "answer)"
)

CUT = "a limit ended the debate before the relevance filter judged a segment"

FIGURES = [
    Figure("nodes", "Debated nodes of the tree (the root, which only deliberates, not counted)."),
    Figure("depth", "The deepest level of the tree (the root 0, its children 1)."),
    Figure("expansions", "Debated nodes expanded into subtopics, within the budget."),
    Figure("deliberations", "Self-deliberations: the root's and one per expanded node."),
    Figure("concessions", "Revised arguments in which a persona conceded the topic."),
    Figure("evidence_kept", "The share of retrieved segments the relevance filter kept as "
           "counter-evidence."),
    Figure("fallbacks", "Replies unreadable after their follow-ups, replaced by the method's "
           "deterministic rule (a skipped persona, a leaf, no expansion, ...)."),
]  # fmt: skip
TREE_ONLY = ("nodes", "depth", "expansions", "deliberations", "concessions", "evidence_kept")


def read(state: TaskState, target: Target) -> Reading | Missing:
    result = load_result(state)
    if result is None:
        return Missing(NO_RESULT)
    record = result.record
    if not isinstance(record, TreeRecord):
        return NotApplicable(NOT_TREE)
    stats = record.stats()
    # without self-deliberation or preemption no segment is ever judged: the figure never applies
    options = result.options
    off = options.get("self_deliberation") is False or options.get("k_preempt") == 0
    # a debate a limit ended before the filter judged a segment: no share to state, none shown
    none = (
        NotApplicable(NO_JUDGED) if off else Absent(CUT) if result.stopped else Missing(NO_JUDGED)
    )
    values: dict[str, int | float | Missing] = {
        name: none if value is None else value for name, value in stats.items()
    }
    if not record.nodes:  # a baseline: one or three calls, no tree
        values |= dict.fromkeys(
            TREE_ONLY, NotApplicable(f"the {record.variant} baseline builds no tree")
        )
    return Reading(
        values,
        {
            "expansions": {"budget": record.budget, "variant": record.variant},
            "depth": {"variant": record.variant},
            "evidence_kept": {"chunks": list(record.chunks)},
            "fallbacks": {"replaced": [asdict(f) for f in record.fallbacks]},
        },
    )


SCORERS = family(FIGURES, read, columns={"nodes": "nodes"})


def tree_stats() -> list[Scorer]:
    """The tree's figures, from the record (no model call): debated nodes, depth, expansions,
    self-deliberations, concessions, the share of evidence kept and fallbacks. Calls and tokens
    are `debate_stats`' figures."""
    return [make() for make in SCORERS]

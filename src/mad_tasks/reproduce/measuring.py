"""Measuring an experiment's table from its logs: each cell the mean and standard deviation over
runs of a per-run value (a metric, a statistic of the samples' debate records, the cost), and the
per-round figures of a debate record."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, cast

from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.scorer import SampleScore, value_to_float
from inspect_ai.util import registry_create

from .. import _registry  # noqa: F401  (registers the short solver names, as the plugin's loading does)
from .._inspect_sample import STORE_KEY
from ..engine.answers import AnswerFormat
from ..engine.methods.cortex.records import CortexRecord
from ..engine.methods.d3.records import JudgeRecord
from ..engine.methods.on_demand_records import OnDemandRecord
from ..engine.protocols.majority import majority_vote
from ..engine.records import TOKEN_FIGURES, AgentAnswer, DebateResult, dollars, token_totals
from ..engine.transitions import first_answers, first_vote
from ..logs_report import FIRST, finite
from ..scorers.answers import gold_keys, task_format
from ..scorers.figures import Missing
from ..scorers.transitions import reading_of
from .experiments import PREFIX, ColumnSpec, Experiment, RowSpec, Stat
from .running import RowRun, task_args

# -- per-round figures of a debate record (pure; round 1 is the transitions' first vote)


def answers_after(result: DebateResult, round: int) -> list[AgentAnswer]:
    """The answers standing after `round`: each agent's latest answer at or before it (an agent
    that did not answer in a later round, or a debate that ended earlier, keeps its answer), in
    agent order."""
    latest: dict[str, AgentAnswer] = {}
    for a in result.answers:
        if a.round <= round and (a.agent not in latest or a.round >= latest[a.agent].round):
            latest[a.agent] = a
    return list(latest.values())


def plurality(result: DebateResult, round: int, fmt: AnswerFormat) -> str | None:
    """The answer the methods' own rule (`majority_vote`) picks from the answers standing after
    `round`: a tie goes to the earlier rounds' votes, then to agent order; None when every agent
    abstained. After round 1 it is the first-answer majority of `engine/transitions.py`, with the
    method's own tie rule (RECONCILE's confidence-weighted vote, CortexDebate's `tie_break`)."""
    if round == 1:
        return first_vote(result, first_answers(result), fmt).winner
    earlier = sorted({a.round for a in result.answers if a.round < round})
    votes = [[a.answer for a in result.answers_in_round(r)] for r in earlier]
    standing = [a.answer for a in answers_after(result, round)]
    return majority_vote(standing, earlier=votes, key=fmt.key).winner


def round_correct(result: DebateResult, round: int, fmt: AnswerFormat, gold: set[str]) -> bool:
    """Whether the plurality after `round` is a right answer (no answer is not)."""
    winner = plurality(result, round, fmt)
    return winner is not None and fmt.key(winner) in gold


def round_consensus(result: DebateResult, round: int, fmt: AnswerFormat) -> bool:
    """Whether every agent's answer after `round` is the same (an abstention agrees with none)."""
    answers = answers_after(result, round)
    keys = {None if a.answer is None else fmt.key(a.answer) for a in answers}
    return bool(answers) and None not in keys and len(keys) == 1


# -- the table


@dataclass(frozen=True)
class Cell:
    runs: tuple[float, ...]  # one value per run that had one

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.runs) if self.runs else None

    @property
    def std(self) -> float | None:
        return statistics.stdev(self.runs) if len(self.runs) > 1 else None


@dataclass(frozen=True)
class TableRow:
    label: str
    cells: tuple[Cell | None, ...]  # None: the row does not run the column's task
    calls: float | None
    tokens: float | None
    dollars: float | None = None  # None: a sample without a price


@dataclass(frozen=True)
class Table:
    experiment: Experiment
    rows: tuple[TableRow, ...]
    model: str
    limit: int | None
    epochs: int
    log_dir: str
    date: str
    roles: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    solver_args: dict[str, Any] = field(default_factory=dict)  # -S: given to every row


def measure(
    experiment: Experiment,
    runs: Sequence[RowRun],
    model: str,
    limit: int | None,
    epochs: int,
    log_dir: str,
    data: Mapping[str, str] | None = None,
    roles: Mapping[str, str] | None = None,
    solver_args: Mapping[str, Any] | None = None,
) -> Table:
    """The table from the rows' logs: finished logs only (the others are noted)."""
    notes: list[str] = []
    rows = []
    for run in runs:
        logs = _logs_by_key(experiment, run, data or {}, notes)
        cells: list[Cell | None] = []
        for column in experiment.columns:
            if not set(column.tasks) <= set(run.row.tasks):
                cells.append(None)
                continue
            per_task = [
                _column_runs(run.row, column, key, logs.get((key, i)), epochs, notes)
                for key in column.tasks
                for i in range(len(run.row.variants))
            ]
            # a run's value: the mean over the column's tasks (and the row's variants), none
            # when one has none
            values = [
                statistics.fmean(got) * column.scale for got in zip(*per_task) if None not in got
            ]
            cells.append(Cell(tuple(values)))
        rows.append(TableRow(run.row.label, tuple(cells), *_cost(list(logs.values()))))
    date = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    return Table(
        experiment,
        tuple(rows),
        model,
        limit,
        epochs,
        log_dir,
        date,
        dict(roles or {}),
        tuple(dict.fromkeys(notes)),
        dict(solver_args or {}),
    )


def _logs_by_key(
    experiment: Experiment, run: RowRun, data: Mapping[str, str], notes: list[str]
) -> dict[tuple[str, int], EvalLog]:
    """The row's finished logs, read in full, by task key (matched by the task and its args) and
    the row variant each ran."""
    keys = {
        _identity(PREFIX + e.task, task_args(e, data)): key for key, e in experiment.tasks.items()
    }
    logs: dict[tuple[str, int], EvalLog] = {}
    for header, variant in zip(run.logs, run.variants or [0] * len(run.logs)):
        task_key = keys.get(_identity(header.eval.task, header.eval.task_args_passed or {}))
        if task_key is None:
            continue
        key = (task_key, variant)
        if header.status != "success":
            notes.append(
                f"{run.row.label} / {task_key}: the log is {header.status} ({header.location})"
            )
            continue
        try:
            logs[key] = read_eval_log(header.location)
        except (OSError, ValueError) as error:  # moved, cut short, or of another Inspect version
            notes.append(
                f"{run.row.label} / {task_key}: cannot read {header.location}: {error!s:.200}"
            )
            continue
        stopped = early_stop_note(logs[key])
        if stopped:
            notes.append(f"{run.row.label} / {task_key}: {stopped}")
    return logs


def early_stop_note(log: EvalLog) -> str | None:
    """What a log's early-stopping manager skipped, for the table's notes; None when nothing was."""
    summary = log.results.early_stopping if log.results else None
    if summary is None or not summary.early_stops:
        return None
    reasons = sorted({s.reason or "no reason given" for s in summary.early_stops})
    return (
        f"stopped early: {len(summary.early_stops)} sample runs skipped, "
        f"{len(log.samples or [])} run ({'; '.join(reasons)[:300]})"
    )


def _identity(task: str, args: Mapping[str, Any]) -> str:
    return json.dumps([task, dict(args)], sort_keys=True, default=str)


class NoValue(ValueError):
    """Why a column has no value in a run (a metric the scorer does not declare, one that
    failed): noted below the table."""


def _column_runs(
    row: RowSpec, column: ColumnSpec, key: str, log: EvalLog | None, epochs: int, notes: list[str]
) -> list[float | None]:
    """The column's value on task `key` in each run (None: none, noted)."""
    if log is None:  # not run, not finished or unreadable: noted with the log
        return [None] * epochs
    values: list[float | None] = []
    where = f"{row.label} / {column.label}" + (f" / {key}" if len(column.tasks) > 1 else "")
    for epoch in range(1, epochs + 1):
        samples = [s for s in log.samples or [] if s.epoch == epoch]
        try:
            value = _run_value(column, log, samples)
        except NoValue as error:
            notes.append(f"{where}: {error} ({log.location})")
            value = None
        else:
            if value is None:
                what = column.stat.kind if column.stat and column.stat.from_record else column.score
                notes.append(f"{where}: no value of {what} in run {epoch} ({log.location})")
        values.append(value)
    return values


def _run_value(column: ColumnSpec, log: EvalLog, samples: Sequence[EvalSample]) -> float | None:
    if column.stat is not None and column.stat.from_record:
        return _record_value(column.stat, samples)
    name = column.score
    assert name is not None
    scores = [
        SampleScore(score=s.scores[name], sample_id=s.id)
        for s in samples
        if s.scores and name in s.scores
    ]
    if column.metric is not None:
        return _metric(log, name, column.metric, scores)
    assert column.stat is not None
    return stat_value(column.stat, [_float(s.score.value) for s in scores])


def _float(value: Any) -> float | None:
    """A score's value as a number (C/I as 1/0); None when unscored (NaN) or not a number."""
    try:
        return finite(value_to_float()(value))
    except (TypeError, ValueError):
        return None


def stat_value(stat: Stat, values: Sequence[float | None]) -> float | None:
    """`mean`, `sum`, `share==V` or `share>=V` of the values there are; None without any."""
    got = [v for v in values if v is not None]
    if not got:
        return None
    if stat.kind == "sum":
        return math.fsum(got)
    if stat.kind == "share==":
        return sum(v == stat.value for v in got) / len(got)
    if stat.kind == "share>=":
        return sum(v >= stat.value for v in got) / len(got)
    return statistics.fmean(got)


def _metric(log: EvalLog, score: str, metric: str, scores: list[SampleScore]) -> float | None:
    """The score's own metric (as its scorer declared it in the log) over one run's scores;
    `accuracy` and `mean` recomputed when the scorer declares no such metric. `NoValue` when
    the scorer declares no metric of that name (a misspelt one), or computing it fails."""
    # an unscored sample (Inspect's NaN sentinel) counts in no metric, as in Inspect's own results
    scores = [s for s in scores if not _unscored(s.score.value)]
    if not scores:
        return None
    declared = next((s.metrics for s in log.eval.scorers or [] if s.name == score), None)
    # the metric of that name first; then those giving several values (`by_split`: HasAns, ...)
    listed = declared if isinstance(declared, list) else []  # a dict: metrics grouped by key
    definitions = [d for d in listed if not isinstance(d, dict)]
    names: list[str] = []
    for definition in sorted(definitions, key=lambda d: d.name.rsplit("/", 1)[-1] != metric):
        name = definition.name.rsplit("/", 1)[-1]
        try:
            metric_of = registry_create("metric", definition.name, **(definition.options or {}))
            got = cast(Callable[[list[SampleScore]], Any], metric_of)(scores)
        except (ValueError, TypeError, LookupError, ArithmeticError, AttributeError) as error:
            if name != metric:
                continue  # another metric's failure says nothing of this one
            raise NoValue(f"metric {metric!r} of {score!r} failed: {error!s:.200}") from error
        if isinstance(got, dict) and metric in got:
            got = got[metric]
        elif name != metric:
            names += [f"{name} ({', '.join(map(str, got))})" if isinstance(got, dict) else name]
            continue
        return float(got) if isinstance(got, int | float) and math.isfinite(got) else None
    if metric in ("accuracy", "mean"):
        return stat_value(Stat("mean"), [_float(s.score.value) for s in scores])
    declares = ", ".join(names) or "none"
    raise NoValue(f"{score!r} has no metric {metric!r}; its scorer declares: {declares}")


def _unscored(value: Any) -> bool:
    return isinstance(value, float) and math.isnan(value)


def _record_value(stat: Stat, samples: Sequence[EvalSample]) -> float | None:
    """The mean of `record_value` over the samples with a debate record that have one."""
    values: list[float | None] = []
    for sample in samples:
        try:
            result = DebateResult.from_dict((sample.store or {}).get(STORE_KEY))
        except (ValueError, TypeError, KeyError, AttributeError):
            continue  # no record of this version: not measured, never counted as wrong
        targets = [sample.target] if isinstance(sample.target, str) else list(sample.target)
        choices = tuple(sample.choices or ())
        values.append(record_value(stat, result, choices, sample.metadata or {}, targets))
    return stat_value(Stat("mean"), values)


def record_value(
    stat: Stat,
    result: DebateResult,
    choices: Sequence[str],
    metadata: Mapping[str, Any],
    targets: Sequence[str],
) -> float | None:
    """One sample's figure from its record, 1 or 0: whether the plurality after round R is right
    (`round_accuracy`), whether its agents all agree then (`round_consensus`), whether it
    `debated`; whether the first-answer majority is right (`first_majority`; a judge's first
    verdict) and whether the sample made a transition (`right_to_right`, ...), as the
    `transitions()` scorer reads them. None where the record has no such figure (a method that
    answers with a summary or a ranking, a target that is no answer): not counted."""
    if stat.kind == "debated":
        ran = debated(result)
        return None if ran is None else float(ran)
    if stat.kind == "judge_gap":
        return judge_gap_in(result, int(stat.value))
    if stat.kind in ("agent_accuracy", "agent_debates", "collisions", "revisions"):
        return agent_value(stat, result, choices, metadata, targets)
    if stat.kind in ("round_accuracy", "round_consensus"):
        text = ",".join(targets)
        fmt = task_format(tuple(choices), metadata, text, result.options.get("answer_format"))
        round = int(stat.value)
        if stat.kind == "round_accuracy":
            return float(round_correct(result, round, fmt, gold_keys(fmt, targets)))
        return float(round_consensus(result, round, fmt))
    got = reading_of(result, choices, metadata, targets)
    if isinstance(got, Missing):
        return None
    names = FIRST if stat.kind == "first_majority" else (stat.kind,)
    # an answer method has first_majority_correct, a judge first_verdict_correct
    value = next((v for name in names if not isinstance(v := got.values[name], Missing)), None)
    return None if value is None else float(value)


def judge_gap_in(result: DebateResult, round: int) -> float | None:
    """The judge's score gap in `round` (D3's Fig. 5): |A's total - B's| of its scoring pass
    that round, the mean over the hearings (both orders with swap) that scored one; None for a
    record of another kind, or when no hearing reached that round with readable totals."""
    record = result.record
    if not isinstance(record, JudgeRecord):
        return None
    gaps = [
        abs(e.gap)
        for h in record.hearings
        for e in h.evaluations
        if e.round == round and e.gap is not None
    ]
    return statistics.fmean(gaps) if gaps else None


def agent_value(
    stat: Stat,
    result: DebateResult,
    choices: Sequence[str],
    metadata: Mapping[str, Any],
    targets: Sequence[str],
) -> float | None:
    """The per-agent and viewpoint figures: whether the N-th agent to answer ended right
    (`agent_accuracy:N`, its last answer; none, or no answer at all from one of the run's
    `agents`, is wrong; a judge's, summary's or ranking's record has none), and from a
    CortexDebate record the N-th agent's debates, the viewpoint collisions and the revisions to a
    right answer (None from another method's, or with no N-th agent)."""
    agents = list(dict.fromkeys(a.agent for a in result.answers))
    n, record = int(stat.value), result.record
    if stat.kind == "agent_accuracy":
        if isinstance(record, JudgeRecord) or (record is not None and record.answers_with):
            return None  # a verdict, a summary or a ranking: no agent's answer to the question
        if n > len(agents):  # an agent of the run that never answered (a limit came first)
            ran = result.options.get("agents")
            return 0.0 if isinstance(ran, int) and n <= ran else None
    elif stat.kind == "agent_debates" and n > len(agents):
        return None
    fmt = task_format(
        tuple(choices), metadata, ",".join(targets), result.options.get("answer_format")
    )
    gold = gold_keys(fmt, targets)
    if stat.kind == "agent_accuracy":
        last = max((a for a in result.answers if a.agent == agents[n - 1]), key=lambda a: a.round)
        return float(last.answer is not None and fmt.key(last.answer) in gold)
    if not isinstance(record, CortexRecord):
        return None
    if stat.kind == "agent_debates":
        return float(record.debates(agents[n - 1]))
    if stat.kind == "collisions":
        return float(record.collisions(fmt.key))
    return float(record.revisions(fmt.key, gold))


def debated(result: DebateResult) -> bool | None:
    """Whether the sample debated: `on_demand`'s own decision; any other answer method, whether
    its record has answers after round 1 (a method that only answers once, or a debate that ended
    with its first answers, did not). None for a record without answers to the question (a judge,
    a summary, a ranking)."""
    record = result.record
    if isinstance(record, OnDemandRecord):
        return record.debated
    if (
        not result.answers
        or isinstance(record, JudgeRecord)
        or (record is not None and record.answers_with is not None)
    ):
        return None
    return any(a.round > 1 for a in result.answers)


def _cost(logs: Sequence[EvalLog]) -> tuple[float | None, float | None, float | None]:
    """Calls, tokens and dollars per sample over every sample and run of the logs (dollars:
    None when a sample has no price)."""
    costs = [_sample_cost(sample) for log in logs for sample in log.samples or []]
    if not costs:
        return None, None, None
    priced = [c[2] for c in costs]
    mean = statistics.fmean
    return (
        mean(c[0] for c in costs),
        mean(c[1] for c in costs),
        None if None in priced else mean(d for d in priced if d is not None),
    )


def _sample_cost(sample: EvalSample) -> tuple[float, float, float | None]:
    """A sample's calls, tokens and dollars as `mad-tasks report` counts them (its
    `debate_stats` figures: `token_totals` of the debate record, spent plus cached, a reply
    without usage adding none; `cost`); the log's model events and usage for a sample without a
    record."""
    try:
        result = DebateResult.from_dict((sample.store or {}).get(STORE_KEY))
    except (ValueError, TypeError, KeyError, AttributeError):
        usage = sample.model_usage.values()
        calls = sum(e.event == "model" for e in sample.events)
        costs = [u.total_cost for u in usage]
        spent = None if None in costs else sum(c for c in costs if c is not None)
        return calls, float(sum(u.input_tokens + u.output_tokens for u in usage)), spent
    totals = token_totals(result.calls)
    return totals["calls"], float(sum(totals[k] for k in TOKEN_FIGURES)), dollars(result.calls)

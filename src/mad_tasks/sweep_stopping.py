"""Stopping a sweep early: an Inspect early-stopping manager (`Task(early_stopping=...)`) that skips
what would change nothing. `mad-tasks reproduce` and `compare` attach one to every task they run.

Two rules, each optional:
- **width**: once the headline score's 95% interval over the samples scored so far is narrower
  than `width` (and at least `min_samples` samples are scored), no further sample or epoch is
  started. The headline is the task's first scorer (Inspect's own headline); a sample's value is
  the mean over its scored epochs, so epochs are clustered by sample. The interval is Wilson's
  when every value lies in [0, 1] (accuracy: it never collapses to zero width at 0 % or 100 %),
  else the normal one (mean ± 1.96 standard errors).
- **epochs_agree**: a sample's remaining epochs are skipped once `epochs_agree` of its epochs gave
  the same answer (the headline score's `answer`; a missing answer never agrees).

Samples already running when a rule fires finish and are scored: Inspect asks the manager only
before it starts a sample. The log's `results.early_stopping` lists every skipped sample and
epoch with its reason, and the manager's figures (`complete_task`).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from inspect_ai.scorer import value_to_float
from inspect_ai.util import EarlyStop
from pydantic import JsonValue

if TYPE_CHECKING:
    from inspect_ai.dataset import Sample
    from inspect_ai.log import EvalSpec
    from inspect_ai.scorer import SampleScore

Z95 = 1.959963984540054  # the normal quantile of a two-sided 95% interval
NAME = "mad_tasks/sweep_stopping"


def interval_width(values: Sequence[float]) -> float | None:
    """The width of the 95% interval of the mean of `values` (one per sample); None for fewer
    than two values."""
    n = len(values)
    if n < 2:
        return None
    mean = statistics.fmean(values)
    if all(0.0 <= v <= 1.0 for v in values):  # Wilson's score interval
        spread = Z95 * math.sqrt(mean * (1 - mean) / n + Z95**2 / (4 * n * n))
        return 2 * spread / (1 + Z95**2 / n)
    return 2 * Z95 * statistics.stdev(values) / math.sqrt(n)


def agreeing(answers: Sequence[str | None], needed: int) -> bool:
    """Whether `needed` of the answers are one and the same answer (None never agrees)."""
    counts: dict[str, int] = {}
    for answer in answers:
        if answer is not None:
            counts[answer] = counts.get(answer, 0) + 1
    return any(count >= needed for count in counts.values())


@dataclass(frozen=True)
class StopRule:
    """The options of a sweep's early stop (checked by `check`)."""

    width: float | None = None  # stop once the headline's 95% interval is narrower than this
    min_samples: int = 10  # ... and at least this many samples are scored
    epochs_agree: int | None = None  # skip a sample's other epochs once this many agree

    def check(self, epochs: int) -> None:
        """Refuse an option out of range, naming it (before any model call)."""
        if self.width is not None and not (math.isfinite(self.width) and 0 < self.width <= 1):
            raise ValueError(f"--stop-width: got {self.width}, allowed: a number in (0, 1]")
        if self.min_samples < 2:
            raise ValueError(f"--stop-min-samples: got {self.min_samples}, allowed: >= 2")
        if self.epochs_agree is not None and not 2 <= self.epochs_agree <= epochs:
            raise ValueError(
                f"--stop-epochs-agree: got {self.epochs_agree}, allowed: an integer from 2 to "
                f"the epochs ({epochs})"
            )

    @property
    def active(self) -> bool:
        return self.width is not None or self.epochs_agree is not None


@dataclass
class SweepStopping:
    """The manager: one per task; `start_task` starts it afresh (a task of several rows)."""

    rule: StopRule
    values: dict[str | int, dict[int, float]] = field(default_factory=dict)
    answers: dict[str | int, dict[int, str | None]] = field(default_factory=dict)
    stopped_at: int | None = None  # the samples scored when the width rule fired
    width_at_stop: float | None = None
    skipped: int = 0

    async def start_task(self, task: EvalSpec, samples: list[Sample], epochs: int) -> str:
        self.values, self.answers = {}, {}
        self.stopped_at, self.width_at_stop, self.skipped = None, None, 0
        return NAME

    async def schedule_sample(self, id: str | int, epoch: int) -> EarlyStop | None:
        reason = self._width_reason() or self._agreement_reason(id)
        if reason is None:
            return None
        self.skipped += 1
        return EarlyStop(id=id, epoch=epoch, reason=reason)

    async def complete_sample(
        self, id: str | int, epoch: int, scores: dict[str, SampleScore]
    ) -> None:
        headline = next(iter(scores.values()), None)
        if headline is None:
            return
        score = headline.score
        if isinstance(score.value, str | int | float | bool):
            value = value_to_float()(score.value)
            if math.isfinite(value):
                self.values.setdefault(id, {})[epoch] = value
        self.answers.setdefault(id, {})[epoch] = score.answer

    async def complete_task(self) -> dict[str, JsonValue]:
        width = interval_width(self._sample_means())
        return {
            "width": self.rule.width,
            "min_samples": self.rule.min_samples,
            "epochs_agree": self.rule.epochs_agree,
            "samples_scored": len(self.values),
            "interval_width": width,
            "stopped_after_samples": self.stopped_at,
            "interval_width_at_stop": self.width_at_stop,
            "skipped": self.skipped,
        }

    def _sample_means(self) -> list[float]:
        return [statistics.fmean(by_epoch.values()) for by_epoch in self.values.values()]

    def _width_reason(self) -> str | None:
        if self.rule.width is None:
            return None
        if self.stopped_at is None:
            means = self._sample_means()
            width = interval_width(means)
            if len(means) < self.rule.min_samples or width is None or width >= self.rule.width:
                return None
            self.stopped_at, self.width_at_stop = len(means), width
        return (
            f"the headline's 95% interval ({self.width_at_stop:.3f} wide after "
            f"{self.stopped_at} samples) is narrower than {self.rule.width}"
        )

    def _agreement_reason(self, id: str | int) -> str | None:
        needed = self.rule.epochs_agree
        answers = list(self.answers.get(id, {}).values())
        if needed is None or not agreeing(answers, needed):
            return None
        return f"{needed} of its epochs gave the same answer"

"""The options of the D3 judges, one object per judge: the court every judge shares (jury, answer
order, retries, generation), MORE's advocates and SAMRE's stop rule. The solvers and the scorers
that grade against a reference take the same objects; the judges' specs (`court.py`, `more.py`,
`samre.py`) make the judge from them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, ClassVar

from ...checks import OptionError, boolean, integer, number, one_of, optional
from ...options import (
    MAX_ADVOCATES,
    MAX_JURORS,
    MAX_RETRIES,
    MAX_ROUNDS,
    Generation,
    StabilityParameters,
    answer_form_option,
    option,
)
from ...protocols.d3 import STOPPING, SWAP_RESOLUTIONS, TIEBREAKS, StopRule
from ...spec import members
from .personas import CURATED, POOL, SOURCE, named

# The jury the authors' code seats and the paper prints (App. D.3): their five curated personas,
# cycled when the jury is larger; Table 4's subsets draw from their pool of 50 (personas.py).
PERSONAS = tuple(named(name).description for name in CURATED)
GENERIC_JUROR = "an impartial member of the public"
PERSONA_POOLS = ("curated", "authors_pool", "generic")  # what the record's `persona_pool` says
STANCES = ("persuade", "truthful")  # what D3's advocates are told to be
AGGREGATIONS = ("synthesis", "max_score")  # MORE's: merge each side's defences, or best pairing
JURY_TIES = ("second", "judge")  # a tied jury: the answer shown second (code), or the judge (paper)
ADVOCATE_ORDERS = ("sequential", "parallel")  # MORE: B's team reads A's merged defence, or not
JUDGE_CALLS = ("split", "joint")  # MORE's judge: a feedback call and a scoring call, or one call
OWN_DEFENCES = ("hidden", "shown")  # SAMRE: does an advocate read its own previous defence?
# SAMRE with summarize: the code also condenses each judge evaluation and each vote (never read)
SUMMARIES = ("code", "used_only")

# stopping preset -> (window, min_rounds, eps) unless set explicitly; `adaptive` has no such test
STOP_PRESETS = {"signed": (2, 2, 5.0), "code": (3, 3, 5.0)}
PRESET = "the preset's value"


@dataclass(frozen=True)
class Jury:
    """`size` 0 means no jury: the judge's score decides. `subset`: draw the personas from the
    authors' `POOL` with this seed (Table 4's random subsets) instead of their curated five.
    `debiasing` (ours): the jurors' prompt adds `court.DEBIASING`."""

    size: int = 5
    personas: bool = True
    tiebreak: str = "cumulative"  # or "final": the judge's last scored round
    subset: int | None = None
    debiasing: bool = False
    tie: str = "second"  # one of JURY_TIES

    def persona(self, i: int) -> str:
        if not self.personas:
            return GENERIC_JUROR
        if self.subset is None:
            return PERSONAS[i % len(PERSONAS)]
        drawn = random.Random(self.subset).sample(POOL, min(self.size, len(POOL)))
        return drawn[i % len(drawn)].description

    @property
    def pool(self) -> str:
        """Where the personas come from (one of PERSONA_POOLS), as the record says."""
        if not self.personas:
            return "generic"
        return "curated" if self.subset is None else "authors_pool"

    @property
    def source(self) -> str | None:
        """The data the personas are taken from (None for the generic juror)."""
        return SOURCE if self.personas else None

    def record(self) -> dict[str, Any]:
        """The jury as a judge's record keeps it among its options."""
        return {
            "jurors": self.size,
            "personas": self.personas,
            "persona_subset": self.subset,
            "persona_pool": self.pool,
            "persona_source": self.source,
            "juror_debiasing": self.debiasing,
            "jury_tie": self.tie,
            "tiebreak": self.tiebreak,
        }


@dataclass(frozen=True)
class Swap:
    enabled: bool = False
    resolution: str = "tie"  # when the orders disagree: "tie", or "gap" (judge gaps of both orders)


def _jurors(name: str, value: Any) -> int:
    if type(value) is int and (value == 0 or (value % 2 == 1 and 1 <= value <= MAX_JURORS)):
        return value
    raise OptionError(
        name, value, f"0 (the judge's score decides alone) or an odd integer from 1 to {MAX_JURORS}"
    )


def _advocate_stance() -> Any:
    return option(
        "persuade",
        "what the advocates are told: persuade (argue to win, not to be impartial: the paper's and "
        "the authors' code's) or truthful (persuasive but truthful, no invented facts: ours).",
        lambda name, v: one_of(name, v, STANCES),
    )


# `single_judge` as a `CourtOptions`: the groups it shows and what it fixes (every host reads it)
SINGLE_JUDGE_GROUPS = ("",)
SINGLE_JUDGE_FIXED = {"jurors": 0}


@dataclass(frozen=True)
class CourtOptions(Generation):
    """What every D3 judge takes; `single_judge` shows no jury (its score decides alone)."""

    jurors: int = option(
        5, "an odd jury size, or 0 to let the judge's score decide alone.", _jurors, group="jury"
    )
    personas: bool = option(
        True,
        "give jurors personas: the authors' five curated ones, cycled (their code's jury, the "
        "paper's App. D.3), else one generic juror.",
        boolean,
        group="jury",
    )
    persona_subset: int | None = option(
        None,
        "draw the jurors' personas from the authors' pool of 50 with this seed (Table 4's random "
        "5-persona subsets); unset: their curated five.",
        lambda name, v: optional(integer, name, v, None),
        group="jury",
    )
    juror_debiasing: bool = option(
        False,
        "ours, not the paper's: tell the jurors to judge the answers, not their advocates' "
        "eloquence, and to take the judge's scores as one opinion, not the verdict (default: "
        "the authors' instruction only, to weigh the judge's evaluation without being ruled by "
        "it).",
        boolean,
        group="jury",
    )
    jury_tie: str = option(
        "second",
        "who settles a tied jury (no readable vote included): second (the answer shown second, "
        "as the authors' code does) or judge (the judge's score, as the paper says).",
        lambda name, v: one_of(name, v, JURY_TIES),
        group="jury",
    )
    tiebreak: str = option(
        "cumulative",
        "with jury_tie=judge (and without a jury), the judge score that decides: cumulative or "
        "final.",
        lambda name, v: one_of(name, v, TIEBREAKS),
        group="jury",
    )
    swap: bool = option(
        False, "judge both answer orders and report whether the verdict followed the answers.",
        boolean,
    )  # fmt: skip
    swap_resolution: str = option(
        "tie",
        "verdict when the orders disagree: tie, or gap (the judge's gaps summed).",
        lambda name, v: one_of(name, v, SWAP_RESOLUTIONS),
    )
    bias_note: bool = option(
        False,
        "tell the judge and the jurors that neither the order nor the length of the answers is "
        "a merit (ours; the paper asks for an impartial judge only, and its Table 3 measures "
        "those biases).",
        boolean,
    )
    retries: int = option(
        1,
        "follow-ups for an unreadable judge score or juror vote before it is left out.",
        lambda name, v: integer(name, v, 0, MAX_RETRIES),
    )
    answer_form: str = answer_form_option()

    def validate(self) -> None:
        super().validate()
        if self.persona_subset is not None and not self.personas:
            raise OptionError("persona_subset", self.persona_subset, "unset when personas is false")

    @property
    def jury(self) -> Jury:
        return Jury(
            self.jurors,
            self.personas,
            self.tiebreak,
            self.persona_subset,
            self.juror_debiasing,
            self.jury_tie,
        )

    @property
    def positions(self) -> Swap:
        return Swap(self.swap, self.swap_resolution)

    @property
    def roles(self) -> tuple[str, ...]:
        """The model roles this judge calls."""
        return ("judge", *members("juror", self.jurors)) if self.jurors else ("judge",)


@dataclass(frozen=True)
class MoreOptions(CourtOptions):
    advocates: int = option(
        3,
        "advocates per answer, writing in parallel (the paper's k = 3).",
        lambda name, v: integer(name, v, 1, MAX_ADVOCATES),
    )
    aggregation: str = option(
        "synthesis",
        "synthesis (a strategist merges each side's defences) or max_score (the judge scores "
        "each pairing of defences; each side keeps its best total).",
        lambda name, v: one_of(name, v, AGGREGATIONS),
    )
    advocate_order: str = option(
        "sequential",
        "sequential (the authors' code: answer A's team argues and merges first, then answer "
        "B's advocates read A's merged defence) or parallel (the paper's Algorithm 1: all "
        "advocates at once, none reading the other side).",
        lambda name, v: one_of(name, v, ADVOCATE_ORDERS),
    )
    judge_calls: str = option(
        "split",
        "split (the authors' code and App. F.2: a feedback call, then a separate scoring call; "
        "the jury reads the feedback and the scores) or joint (one call scores and gives the "
        "feedback; the jury reads it).",
        lambda name, v: one_of(name, v, JUDGE_CALLS),
    )
    advocate_stance: str = _advocate_stance()

    @property
    def roles(self) -> tuple[str, ...]:
        return (*members("advocate", self.advocates), *super().roles)


@dataclass(frozen=True)
class SamreOptions(CourtOptions, StabilityParameters):
    max_rounds: int = option(
        5,
        "the round limit (the paper's R_max = 5; with stopping=adaptive, the cap).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    stopping: str = option(
        "code",
        "code (the authors' code: the absolute gaps |A − B| of the window span less than eps and "
        "neither strictly rise nor fall; window 3, min_rounds 3, eps 5) or signed (the paper's "
        "text read strictly: the signed gap steady within eps over the window, no sign change; "
        "window 2, min_rounds 2, eps 5) or adaptive (Hu et al. 2025 instead of either test: stop "
        "once the number of criteria on which the judge scores A above B is stable over rounds; "
        "docs/adaptive-stopping.md; the stop_ options tune it).",
        lambda name, v: one_of(name, v, STOPPING),
    )
    eps: float | None = option(
        None,
        "steadiness tolerance in points on the 6-120 scale (default 5).",
        lambda name, v: optional(number, name, v, 0, above=True, null=PRESET),
    )
    window: int | None = option(
        None,
        "rounds compared (default: code 3, signed 2).",
        lambda name, v: optional(integer, name, v, 2, MAX_ROUNDS, null=PRESET),
    )
    min_rounds: int | None = option(
        None,
        "rounds before convergence may stop the debate (default: code 3, signed 2).",
        lambda name, v: optional(integer, name, v, 1, MAX_ROUNDS, null=PRESET),
    )
    decisive_gap: float | None = option(
        None,
        "also stop once the judge's gap reaches this many points (unset: never).",
        lambda name, v: optional(number, name, v, 0, above=True),
    )
    token_budget: int | None = option(
        None,
        "stop after the round in which the tokens spent exceed this (unset: none; the authors' "
        "code feeds its counter 0, so its budget never fires).",
        lambda name, v: optional(integer, name, v, 1),
    )
    summarize: bool = option(
        True,
        "condense each defence before the opponent, judge and jury read it (the authors' code); "
        "false: they read the defences in full (the paper prints no summary step).",
        boolean,
    )
    summaries: str = option(
        "code",
        "with summarize: code (the authors' code also condenses every judge evaluation and every "
        "juror's vote, which no call reads: 1 call a round and 1 a juror, what their runs cost) "
        "or used_only (only the defences' summaries, which are read).",
        lambda name, v: one_of(name, v, SUMMARIES),
    )
    advocate_order: str = option(
        "sequential",
        "sequential (the authors' code: answer A's advocate speaks first, and answer B's reads "
        "A's defence of the same round) or parallel (the paper's Algorithm 2: both read only the "
        "previous round).",
        lambda name, v: one_of(name, v, ADVOCATE_ORDERS),
    )
    own_defence: str = option(
        "hidden",
        "hidden (the authors' code: an advocate reads the opponent's latest defence and the "
        "judge's latest evaluation, not its own defence) or shown (the paper's transcript "
        "T_{r-1}: its own previous defence too).",
        lambda name, v: one_of(name, v, OWN_DEFENCES),
    )
    advocate_stance: str = _advocate_stance()

    STOP_SWITCH: ClassVar[str] = "stopping=adaptive"

    def adaptive(self) -> bool:
        return self.stopping == "adaptive"

    def validate(self) -> None:
        super().validate()
        if self.adaptive():  # they tune the convergence tests, which `adaptive` replaces
            for name in ("eps", "window", "min_rounds"):
                if getattr(self, name) is not None:
                    allowed = "unset with stopping=adaptive (use the stop_ options)"
                    raise OptionError(name, getattr(self, name), allowed)

    @property
    def rule(self) -> StopRule:
        """The stop rule; window, min_rounds and eps default to the chosen preset's values
        (`adaptive`: unused, StopRule's own)."""
        if self.adaptive():
            return StopRule(
                self.max_rounds,
                self.stopping,
                decisive_gap=self.decisive_gap,
                token_budget=self.token_budget,
            )
        window, min_rounds, eps = STOP_PRESETS[self.stopping]
        return StopRule(
            self.max_rounds,
            self.stopping,
            window if self.window is None else self.window,
            min_rounds if self.min_rounds is None else self.min_rounds,
            eps if self.eps is None else self.eps,
            self.decisive_gap,
            self.token_budget,
        )

    @property
    def roles(self) -> tuple[str, ...]:
        # one advocate a side, who also writes its side's summaries
        return (*members("advocate", 1), *super().roles)


def _reference() -> Any:
    def check(name: str, value: Any) -> str:
        if isinstance(value, str) and value.strip():
            return value
        raise OptionError(name, value, "target, or the name of a metadata field")

    return option(
        "target", "where the reference answer is: `target`, or the name of a metadata field.", check
    )


GRADER_FALLBACKS = ("warn", "error", "allow")


def _grader_fallback() -> Any:
    return option(
        "warn",
        "when a grader role (advocate, judge, juror) is unbound and so falls back to the model "
        "under evaluation: warn (once per run, and the log says so), error (fail the sample "
        "before the court's first call) or allow (on purpose).",
        lambda name, v: one_of(name, v, GRADER_FALLBACKS),
    )


@dataclass(frozen=True)
class MoreJudgeOptions(MoreOptions):
    reference: str = _reference()
    grader_fallback: str = _grader_fallback()


@dataclass(frozen=True)
class SamreJudgeOptions(SamreOptions):
    reference: str = _reference()
    grader_fallback: str = _grader_fallback()

"""The options of the D3 judges, one object per judge: the court every judge shares (jury, answer
order, retries, generation), MORE's advocates and SAMRE's stop rule. The solvers and the scorers
that grade against a reference take the same objects; the judges' specs (`court.py`, `more.py`,
`samre.py`) make the judge from them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from ...checks import OptionError, boolean, integer, number, one_of, optional
from ...options import MAX_ADVOCATES, MAX_JURORS, MAX_RETRIES, MAX_ROUNDS, Generation, option
from ...protocols.d3 import STOPPING, SWAP_RESOLUTIONS, TIEBREAKS, StopRule
from ...spec import members

# The paper's jurors (App. D.3), cycled when the jury is larger.
PERSONAS = (
    "a retired professor of ethics",
    "a young environmental activist",
    "a middle-aged business owner",
    "a social worker specialising in community development",
    "a technology entrepreneur with a background in AI",
)
GENERIC_JUROR = "an impartial member of the public"
# Table 4's pool of 50 personas (App. G.1: "spanning law, medicine, education, technology, ethics,
# business, social work, risk analysis, and compliance"); the paper does not print them: ours
POOL = (
    "a criminal defence lawyer",
    "a judge of a civil appeals court",
    "a contract lawyer for small firms",
    "a human rights advocate",
    "a paralegal who drafts court filings",
    "an emergency room physician",
    "a public health researcher",
    "a pharmacist in a rural town",
    "a psychiatric nurse",
    "a medical ethicist at a teaching hospital",
    "a primary school teacher",
    "a university lecturer in mathematics",
    "a special education coordinator",
    "an adult literacy tutor",
    "a school principal in a large city",
    "a software engineer who reviews code for a living",
    "a cybersecurity analyst",
    "a data scientist at a startup",
    "a technical writer of user manuals",
    "an open-source maintainer",
    "a moral philosopher",
    "a hospital chaplain",
    "a member of a research ethics board",
    "a journalist who covers technology ethics",
    "a volunteer mediator in community disputes",
    "a retail store manager",
    "a venture capital analyst",
    "a small-business accountant",
    "a marketing director",
    "a supply chain planner",
    "a child protection social worker",
    "a housing advocate for low-income families",
    "a case manager for refugees",
    "a youth outreach worker",
    "a counsellor at a crisis helpline",
    "an insurance actuary",
    "a financial risk officer at a bank",
    "a disaster preparedness planner",
    "an engineer who audits industrial safety",
    "an epidemiologist who models outbreaks",
    "a regulatory compliance officer at a pharmaceutical firm",
    "a data protection officer",
    "an internal auditor",
    "an anti-money-laundering investigator",
    "a quality assurance lead in manufacturing",
    "a retired factory worker",
    "a farmer who runs a family farm",
    "a librarian",
    "a professional translator",
    "a high school science student",
)
AGGREGATIONS = ("synthesis", "max_score")  # MORE's: merge each side's defences, or best pairing

# stopping preset -> (window, min_rounds, eps) unless set explicitly
STOP_PRESETS = {"signed": (2, 2, 5.0), "code": (3, 3, 5.0)}
PRESET = "the preset's value"


@dataclass(frozen=True)
class Jury:
    """`size` 0 means no jury: the judge's score decides. `subset`: draw the personas from
    `POOL` with this seed (Table 4's random subsets) instead of the paper's five."""

    size: int = 5
    personas: bool = True
    tiebreak: str = "cumulative"  # or "final": the judge's last scored round
    subset: int | None = None

    def persona(self, i: int) -> str:
        if not self.personas:
            return GENERIC_JUROR
        if self.subset is None:
            return PERSONAS[i % len(PERSONAS)]
        drawn = random.Random(self.subset).sample(POOL, min(self.size, len(POOL)))
        return drawn[i % len(drawn)]


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
        "give jurors the paper's five personas (else one generic juror).",
        boolean,
        group="jury",
    )
    persona_subset: int | None = option(
        None,
        "draw the jurors' personas from a pool of 50 with this seed (Table 4's random 5-persona "
        "subsets); unset: the paper's five.",
        lambda name, v: optional(integer, name, v, None),
        group="jury",
    )
    tiebreak: str = option(
        "cumulative",
        "the judge score that settles a tied jury: cumulative or final.",
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

    def validate(self) -> None:
        super().validate()
        if self.persona_subset is not None and not self.personas:
            raise OptionError("persona_subset", self.persona_subset, "unset when personas is false")

    @property
    def jury(self) -> Jury:
        return Jury(self.jurors, self.personas, self.tiebreak, self.persona_subset)

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

    @property
    def roles(self) -> tuple[str, ...]:
        return (*members("advocate", self.advocates), *super().roles)


@dataclass(frozen=True)
class SamreOptions(CourtOptions):
    max_rounds: int = option(
        5,
        "the round limit (the paper's R_max = 5).",
        lambda name, v: integer(name, v, 1, MAX_ROUNDS),
    )
    stopping: str = option(
        "signed",
        "signed (the signed score gap steady within eps over the window, no sign change) or "
        "code (the reference code's test on absolute gaps: window 3, min_rounds 3, eps 5).",
        lambda name, v: one_of(name, v, STOPPING),
    )
    eps: float | None = option(
        None,
        "steadiness tolerance in points on the 6-120 scale (default 5).",
        lambda name, v: optional(number, name, v, 0, above=True, null=PRESET),
    )
    window: int | None = option(
        None,
        "rounds compared (default 2; code: 3).",
        lambda name, v: optional(integer, name, v, 2, MAX_ROUNDS, null=PRESET),
    )
    min_rounds: int | None = option(
        None,
        "rounds before convergence may stop the debate (default 2; code: 3).",
        lambda name, v: optional(integer, name, v, 1, MAX_ROUNDS, null=PRESET),
    )
    decisive_gap: float | None = option(
        None,
        "also stop once the judge's gap reaches this many points (unset: never).",
        lambda name, v: optional(number, name, v, 0, above=True),
    )
    token_budget: int | None = option(
        None,
        "stop after the round in which the tokens spent exceed this (unset: none).",
        lambda name, v: optional(integer, name, v, 1),
    )
    summarize: bool = option(
        False,
        "condense each defence before the opponent, judge and jury read it (code).",
        boolean,
    )

    @property
    def rule(self) -> StopRule:
        """The stop rule; window, min_rounds and eps default to the chosen preset's values."""
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

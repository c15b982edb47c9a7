"""What a call asks for, beside its prompt: `Call.asks`.

Every method describes each call it makes with one of these records. The prompt says it in words for
the model; the record says it in values (answers already parsed, candidates, sides) for whatever
needs to know without reading the words: the simulated model answers from it, and test scripts
reply by it. So a prompt can be reworded without touching either.
"""

from __future__ import annotations

from dataclasses import dataclass

from .answers import AnswerFormat
from .protocols.voting import BallotRules


@dataclass(frozen=True)
class AnswerRequest:
    """Reasoning, then a final answer in `fmt`."""

    fmt: AnswerFormat
    shown: tuple[str, ...] = ()  # the answers of other agents the prompt shows
    current: str | None = None  # the solution under discussion (decision debates)
    agreement: bool = False  # the reply must start with [AGREE] or [DISAGREE]
    confidence: bool = False  # a CONFIDENCE line before the answer (CortexDebate)


@dataclass(frozen=True)
class ReasoningRequest:
    """Reasoning steps only, no final answer (decision debates, reasoning style)."""

    agreement: bool = False  # the reply must start with [AGREE] or [DISAGREE]


@dataclass(frozen=True)
class ExtractRequest:
    """The solution that `text` gives, restated in `fmt`; `conclude`: the text is reasoning only,
    so write the solution it leads to."""

    fmt: AnswerFormat
    text: str
    conclude: bool = False


@dataclass(frozen=True)
class PersonaRequest:
    """One more expert persona, different from the roles already `taken`."""

    taken: tuple[str, ...] = ()


@dataclass(frozen=True)
class BallotRequest:
    """A ballot under `rules` over the candidates, numbered from 0, whose answers these are."""

    fmt: AnswerFormat
    candidates: tuple[str, ...]
    rules: BallotRules


@dataclass(frozen=True)
class DefenceRequest:
    """A D3 advocate's defence of answer `side` ("A" or "B"): argued, merged or summarised."""

    side: str


@dataclass(frozen=True)
class ScoreRequest:
    """A D3 judge's scores of the answers shown as A and B, one row per criterion, then totals."""

    a: str
    b: str
    criteria: int


@dataclass(frozen=True)
class VerdictRequest:
    """A D3 juror's vote between the answers shown as A and B."""

    a: str
    b: str


Request = (
    AnswerRequest
    | ReasoningRequest
    | ExtractRequest
    | PersonaRequest
    | BallotRequest
    | DefenceRequest
    | ScoreRequest
    | VerdictRequest
)

"""What the simulated model (`sim.py`) gives the responders that write its replies: one reply's
context (`Turn`), the registry of responders by request class (`responds`), and what several of
them share (the gold answer's reading, a wrong answer, agents' numbers).

A responder is a function `(turn, request) -> reply text` registered for the request classes it
answers (`engine/requests.py`); it draws only from `turn.rng`, in a fixed order, so a run repeats
exactly. `models/responders/` holds them, one module per family of requests.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from inspect_ai.scorer import Target

from ..engine.answers import AnswerFormat, Choice, Math, Number, YesNo
from ..engine.authors_forms import AuthorsFormat

NO_ANSWER = "(This agent thinks about it but does not commit to an answer.)"
# how sure an agent is of its answer (the mean token probability of an answer reply, a stated
# confidence): drawn uniformly from the first range when the answer is the gold one, else from the
# second, so a confidence trigger tells right answers from wrong ones, though not always
SURE_RIGHT = (0.80, 0.99)
SURE_WRONG = (0.50, 0.90)
OTHER = {"A": "B", "B": "A"}


class Agents(Protocol):
    """The simulated model's settings a reply depends on."""

    accuracy: list[float]
    conformity: float
    unparseable: float

    def gold(self, prompt: str, fmt: AnswerFormat | None) -> str | None: ...


class Sample(Protocol):
    """What a responder may read of the running sample (Inspect's `TaskState`)."""

    @property
    def target(self) -> Target: ...

    @property
    def metadata(self) -> dict[str, Any]: ...

    @property
    def input_text(self) -> str: ...


@dataclass(frozen=True)
class Turn:
    """One reply being written: by `agent`, to `prompt` (the call's messages as text), with its
    seeded `rng`, on a model of `settings`, in the running `sample` (None outside a sample)."""

    settings: Agents
    agent: str
    prompt: str
    rng: random.Random
    sample: Sample | None

    @property
    def accuracy(self) -> float:
        """The agent's accuracy: its own in a list of accuracies (the last for any beyond)."""
        values = self.settings.accuracy
        return values[min(index(self.agent), len(values) - 1)]

    @property
    def conformity(self) -> float:
        return self.settings.conformity

    def gold(self, fmt: AnswerFormat | None) -> str | None:
        """The gold answer in `fmt` (None when unknown)."""
        return self.settings.gold(self.prompt, fmt)

    def unreadable(self) -> bool:
        """Draw whether this reply is unreadable (`unparseable`)."""
        return self.rng.random() < self.settings.unparseable


Responder = Callable[[Turn, Any], str]


@dataclass(frozen=True)
class Entry:
    respond: Responder
    # an answer in a format (`request.fmt`): it carries token log-probabilities when asked
    answers: bool


RESPONDERS: dict[type, Entry] = {}  # by request class


def responds(*requests: type, answers: bool = False) -> Callable[[Responder], Responder]:
    """Register a responder for these request classes."""

    def register(respond: Responder) -> Responder:
        for request in requests:
            RESPONDERS[request] = Entry(respond, answers)
        return respond

    return register


def plain(fmt: AnswerFormat) -> AnswerFormat:
    """The task's own format, under an authors' form too (`-S answer_form=authors`): its answers
    are the task format's, only asked for and stated otherwise."""
    return fmt.inner if isinstance(fmt, AuthorsFormat) else fmt


def stating(fmt: AnswerFormat, reasoning: str, answer: str) -> str:
    """A reply that gives `reasoning` and states `answer` as `fmt` asks: in its authors' form
    (`AuthorsFormat.write`), else on a last line `ANSWER: ...`."""
    if isinstance(fmt, AuthorsFormat):
        return fmt.write(reasoning, answer)
    return f"{reasoning}\nANSWER: {answer}"


def wrong(gold: str, fmt: AnswerFormat, rng: random.Random) -> str:
    """An answer in `fmt` that is not `gold`."""
    fmt = plain(fmt)
    if isinstance(fmt, YesNo):
        return "no" if gold == "yes" else "yes"
    if isinstance(fmt, Choice):
        others = [letter for letter in fmt.letters if letter != gold]
        return rng.choice(others) if others else gold
    if isinstance(fmt, Number):
        return str(int(float(gold)) + rng.choice([-2, -1, 1, 2, 10]))
    if isinstance(fmt, Math):
        return f"{gold} + 1"  # "not 5" is no math result: a negated value is unreadable
    return f"not {gold}"


def is_gold(fmt: AnswerFormat, answer: str | None, gold: str | None) -> bool:
    return answer is not None and gold is not None and fmt.key(answer) == fmt.key(gold)


def index(agent: str) -> int:
    """`agent_3` -> 2 (`swapped/juror_2` -> 1, `group 3 expert 2` -> 1); 0 for a name without a
    number at its end."""
    m = re.search(r"[_ ]([0-9]{1,6})$", agent)
    return int(m.group(1)) - 1 if m else 0


def digest(*parts: Any) -> int:
    return int.from_bytes(hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()[:8], "big")

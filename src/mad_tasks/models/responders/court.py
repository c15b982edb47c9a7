"""Replies to a court's requests (D3: an advocate's defence, a judge's scores, a juror's vote):
each prefers the better answer with probability `accuracy`. The totals and the vote are stated on
an `ANSWER:` line, or in the authors' form the request names (`-S answer_form=authors`)."""

from __future__ import annotations

from ...engine.answers import FreeText
from ...engine.authors_forms import AuthorsFormat
from ...engine.requests import (
    DefenceRequest,
    FeedbackRequest,
    RecapRequest,
    ScoreRequest,
    VerdictRequest,
)
from ..simulated import OTHER, Sample, Turn, digest, responds, stating


@responds(DefenceRequest, FeedbackRequest, RecapRequest, ScoreRequest, VerdictRequest)
def court(
    turn: Turn,
    asks: DefenceRequest | FeedbackRequest | RecapRequest | ScoreRequest | VerdictRequest,
) -> str:
    """Prefer the better answer with probability `accuracy`: the gold side of a judged pair, or
    the answer that states the target; a judge gives steady totals with a margin per pair."""
    agent, rng = turn.agent, turn.rng
    if turn.unreadable():
        return "(This agent weighs both sides but does not commit.)"
    if isinstance(asks, DefenceRequest):
        return (
            f"Simulated defence of Answer {asks.side}: it addresses the question "
            "directly, its claims are accurate and its reasoning is easy to follow."
        )
    if isinstance(asks, FeedbackRequest):
        return (
            "Simulated feedback: Advocates for A, be more specific; for B, answer the other side."
        )
    if isinstance(asks, RecapRequest):
        return f"Simulated summary of the {asks.of}: its main points in brief."
    better = better_of(asks.a, asks.b, turn.sample)
    if better is None:
        pick = rng.choice("AB")
    else:
        pick = better if rng.random() < turn.accuracy else OTHER[better]
    if isinstance(asks, VerdictRequest):
        said = f"Simulated juror {agent}: Answer {pick} serves the question better."
        return stating(asks.form or FreeText(), said, pick)  # FreeText: on an ANSWER line
    k = asks.criteria
    margin = 8 + digest(*sorted((asks.a, asks.b))) % 25 + rng.randint(-2, 2)
    high, low = 70 + (margin + 1) // 2, 70 - margin // 2
    totals = (high, low) if pick == "A" else (low, high)
    split = [[t // k + (i < t % k) for i in range(k)] for t in totals]  # k rows per total
    rows = "\n".join(f"{i + 1}. [{a}, {b}]" for i, (a, b) in enumerate(zip(*split)))
    said = f"{rows}\nFeedback A: be more specific.\nFeedback B: address the other side."
    if isinstance(asks.form, AuthorsFormat):
        return asks.form.write(said, f"{totals[0]}, {totals[1]}")
    return f"{said}\nANSWER: ({totals[0]}, {totals[1]})"


def better_of(a: str, b: str, state: Sample | None) -> str | None:
    """Which shown answer is better by the running sample: "A", "B" or None (equal, or unknown)."""
    if state is None:
        return None
    gold, meta = state.target.text.strip(), state.metadata
    if gold in ("A", "B", "tie") and isinstance(meta.get("answer_a"), str):
        if gold == "tie":
            return None
        # a judged pair, shown in either order (and anonymised): place it by word overlap
        as_given = overlap(a, meta["answer_a"]) + overlap(b, meta["answer_b"])
        reversed_ = overlap(a, meta["answer_b"]) + overlap(b, meta["answer_a"])
        return gold if as_given >= reversed_ else OTHER[gold]
    # a graded output against a reference: the answer that states the target is the better one
    text = FreeText()
    states = [text.key(text.extract(x) or x) == text.key(gold) for x in (a, b)]
    return None if states[0] == states[1] else ("A" if states[0] else "B")


def overlap(x: str, y: str) -> float:
    wx, wy = set(x.lower().split()), set(y.lower().split())
    return len(wx & wy) / max(1, len(wx | wy))

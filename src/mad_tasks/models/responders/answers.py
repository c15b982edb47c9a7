"""Replies to the requests for an answer and what follows one: an answer in a format (with a
stated confidence where asked; in a discussion it may adopt the answers it is shown), a confidence
alone, a review of another's answer, a group's summary, a challenge of a decided answer and the
wrong or irrelevant answer put in its place."""

from __future__ import annotations

from collections import Counter

from ...engine.authors_forms import AuthorsFormat
from ...engine.requests import (
    AnswerRequest,
    ChallengeRequest,
    ConfidenceRequest,
    CounterfeitRequest,
    ExtractRequest,
    GroupSummaryRequest,
    ReviewRequest,
    SimilarityRequest,
)
from ..simulated import (
    NO_ANSWER,
    SURE_RIGHT,
    SURE_WRONG,
    Turn,
    is_gold,
    responds,
    stating,
    wrong,
)

IRRELEVANT = (
    "The tallest tree on record is a coast redwood.",
    "Lisbon has mild winters.",
    "Honey never spoils if it is kept sealed.",
)


@responds(AnswerRequest, ExtractRequest, answers=True)
def answer_reply(turn: Turn, asks: AnswerRequest | ExtractRequest) -> str:
    agent, rng = turn.agent, turn.rng
    fmt = asks.fmt
    gold = turn.gold(fmt)
    if gold is None or turn.unreadable():
        return NO_ANSWER
    if isinstance(asks, ExtractRequest):  # restate the solution the text gives, if it gives one
        stated = None if asks.conclude else fmt.extract(asks.text)
        if stated is not None:  # in the form asked for (an authors' form, or the ANSWER line)
            return stating(fmt, "", stated).lstrip()
        asks = AnswerRequest(fmt)
    # decision debates: the solution under discussion stands for the others' answers
    peers = [asks.current] if asks.current is not None else list(asks.shown)
    if peers and rng.random() < turn.conformity:
        answer, why = Counter(peers).most_common(1)[0][0], "the other agents convinced me"
    elif rng.random() < turn.accuracy:
        answer, why = gold, "I worked it out"
    else:
        answer, why = wrong(gold, fmt, rng), "I made a mistake somewhere"
    if asks.confidence:  # CortexDebate: explanation and confidence
        sure = rng.uniform(0.6, 0.95) if answer == gold else rng.uniform(0.25, 0.7)
        if isinstance(fmt, AuthorsFormat):  # ReConcile's object holds its confidence
            return fmt.write(f"Simulated reasoning of {agent}: {why}.", answer, sure)
        return (
            f"EXPLANATION: Simulated reasoning of {agent}: {why}.\n"
            f"CONFIDENCE: {sure:.2f}\nANSWER: {answer}"
        )
    if asks.agreement:  # decision debates: [AGREE] exactly when it holds the same answer
        same = asks.current is not None and fmt.key(answer) == fmt.key(asks.current)
        why = f"{'[AGREE]' if same else '[DISAGREE]'} {why}"
    return stating(fmt, f"Simulated reasoning of {agent}: {why}.", answer)


@responds(ConfidenceRequest)
def confidence(turn: Turn, asks: ConfidenceRequest) -> str:
    """A `CONFIDENCE:` line, surer when the answer asked about is the gold one."""
    agent, rng = turn.agent, turn.rng
    if turn.unreadable():
        return "Simulated self-assessment: hard to say how sure I am."
    right = is_gold(asks.fmt, asks.answer, turn.gold(asks.fmt))
    sure = rng.uniform(*(SURE_RIGHT if right else SURE_WRONG))
    return f"Simulated self-assessment of {agent}.\nCONFIDENCE: {sure:.2f}"


@responds(SimilarityRequest)
def similarity(turn: Turn, asks: SimilarityRequest) -> str:
    """A `SIMILARITY:` line: 0.7 to 1 for two replies with the same answer, 0 to 0.4 otherwise
    (an abstention is like no other)."""
    if turn.unreadable():
        return "Simulated comparison: the two replies are hard to compare."
    a, b = asks.answers
    same = a is not None and b is not None and asks.fmt.key(a) == asks.fmt.key(b)
    alike = turn.rng.uniform(0.7, 1.0) if same else turn.rng.uniform(0.0, 0.4)
    return f"Simulated comparison by {turn.agent}.\nSIMILARITY: {alike:.2f}"


@responds(ReviewRequest, GroupSummaryRequest)
def feedback(turn: Turn, asks: ReviewRequest | GroupSummaryRequest) -> str:
    """A summary names the answers it summarises; a review calls the answer right when it
    is the gold one (with probability `accuracy`, else the opposite), with a confidence from
    6 to 10 for a right call and 1 to 7 for a wrong one."""
    agent, rng = turn.agent, turn.rng
    if isinstance(asks, GroupSummaryRequest):
        named = ", ".join(asks.answers) or "none"
        return f"Simulated summary by {agent}: the group's agents answered {named}."
    gold, reviewed = turn.gold(asks.fmt), asks.answer
    true = is_gold(asks.fmt, reviewed, gold)
    sound = rng.random() < turn.accuracy
    verdict = "holds up" if true == sound else "has a flaw: check the last step"
    text = f"Simulated review by {agent}: the reasoning {verdict}."
    if not asks.confidence:
        return text
    sure = rng.randint(6, 10) if sound else rng.randint(1, 7)
    return f"{text}\nCONFIDENCE: {sure}"


@responds(ChallengeRequest)
def challenge(turn: Turn, asks: ChallengeRequest) -> str:
    """AGREE with probability `conformity`, else exactly when the answer shown is the one this
    agent believes; an answer that is none (irrelevant) is always challenged."""
    rng = turn.rng
    fmt, shown = asks.fmt, asks.answer
    gold = turn.gold(fmt)
    if gold is None or turn.unreadable():
        return "Hard to say; both views have merit."
    if shown is None:
        return "DISAGREE"
    if rng.random() < turn.conformity:
        return "AGREE"
    belief = gold if rng.random() < turn.accuracy else wrong(gold, fmt, rng)
    return "AGREE" if fmt.key(belief) == fmt.key(shown) else "DISAGREE"


@responds(CounterfeitRequest)
def counterfeit(turn: Turn, asks: CounterfeitRequest) -> str:
    rng = turn.rng
    if asks.kind != "wrong":
        return rng.choice(IRRELEVANT)
    gold = turn.gold(asks.fmt)
    if gold is None or turn.unreadable():
        return NO_ANSWER
    return stating(asks.fmt, "A deliberately wrong answer.", wrong(gold, asks.fmt, rng))

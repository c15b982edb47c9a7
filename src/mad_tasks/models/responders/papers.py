"""Replies to the requests of a comparison of two papers (Tree-of-Debate and its judges): valid JSON
built from the request's values (claims citing the excerpts shown, subtopics mapping to the claims,
arguments naming the node's topic, expansion wanted less often deeper down, summaries naming the
sample's topic and papers), its judge's grades and preferences following `accuracy`: a more
accurate grader marks more sentences accurate, gives higher levels and prefers the richer summary
more often."""

from __future__ import annotations

import json
import random
from typing import Any

from ...engine.requests import (
    ArgumentRequest,
    ClaimsRequest,
    ExpandRequest,
    PreferenceRequest,
    RelevanceRequest,
    RubricRequest,
    SubtopicsRequest,
    SummaryRequest,
)
from ..simulated import OTHER, Sample, Turn, responds

PaperRequest = (
    ClaimsRequest
    | RelevanceRequest
    | SubtopicsRequest
    | ArgumentRequest
    | ExpandRequest
    | SummaryRequest
    | RubricRequest
    | PreferenceRequest
)
# Tree-of-Debate: a debated node at level L (the root's children: 1) wants expanding with
# probability EXPANSION_ODDS / L, so most trees grow past the root's children yet stay small (the
# expansion budget caps them anyway)
EXPANSION_ODDS = 0.6
KEEP_ODDS = 0.6  # a retrieved segment the relevance filter keeps
CONCESSION_ODDS = 0.15  # a revised argument that concedes
ASPECTS = (
    "training efficiency", "robustness to noisy data", "scalability to large corpora",
    "data requirements", "generality across tasks", "interpretability of the results",
    "evaluation methodology", "theoretical guarantees", "computational cost",
)  # fmt: skip
SUMMARY_SENTENCES = {"tree": (6, 8), "summaries": (5, 6), "papers": (5, 6), "paper": (5, 5)}


@responds(
    ClaimsRequest,
    RelevanceRequest,
    SubtopicsRequest,
    ArgumentRequest,
    ExpandRequest,
    SummaryRequest,
    RubricRequest,
    PreferenceRequest,
)
def tree_json(turn: Turn, asks: PaperRequest) -> str:
    """A JSON reply built from the request's values (keys as protocols/tod.py and
    methods/tod/judge.py read them). Grades and preferences follow `accuracy`: a more accurate
    grader marks more sentences accurate, gives higher levels and prefers the richer summary more
    often."""
    rng = turn.rng
    if turn.unreadable():
        return "(This agent weighs both papers but writes no JSON.)"
    accuracy = turn.accuracy
    reply: dict[str, Any]
    match asks:
        case ClaimsRequest():
            reply = _claims(asks, rng)
        case RelevanceRequest():
            reply = _relevance(rng)
        case SubtopicsRequest():
            reply = _subtopics(asks, rng)
        case ArgumentRequest():
            reply = _argument(asks, rng)
        case ExpandRequest():
            reply = _expansion(asks, rng)
        case SummaryRequest():
            reply = {"summary": _summary(asks.source, turn.sample, rng)}
        case RubricRequest():
            reply = _rubric(asks, accuracy, rng)
        case PreferenceRequest():
            reply = _preference(asks, accuracy, rng)
    return json.dumps(reply)


def _short(text: str, words: int = 6) -> str:
    return " ".join(text.split()[:words])


def _pair_names(state: Sample | None) -> tuple[str, str, str]:
    """The running sample's topic and its papers' short names (its metadata, never the prompt)."""
    meta = state.metadata if state is not None else {}
    topic = meta.get("topic") if isinstance(meta.get("topic"), str) else None
    titles = [  # a title's name before its colon ("HopGraph: Passage Graphs ...")
        _short(p["title"].split(":")[0], 5)
        if isinstance(p, dict) and isinstance(p.get("title"), str)
        else None
        for p in (meta.get("paper_a"), meta.get("paper_b"))
    ]
    return (
        _short(topic or (state.input_text if state is not None else ""), 12) or "the topic",
        titles[0] or "the first paper",
        titles[1] or "the second paper",
    )


def _ids(rng: random.Random, top: int, most: int, least: int = 0) -> list[int]:
    """Some distinct 1-based ids up to `top`, in order."""
    count = min(top, rng.randint(least, most))
    return sorted(rng.sample(range(1, top + 1), count))


def _claims(asks: ClaimsRequest, rng: random.Random) -> dict[str, Any]:
    topic = _short(asks.topic)
    aspects = rng.sample(ASPECTS, min(asks.most, rng.randint(1, 3)))
    return {
        "argument_list": [
            {
                "argument_title": f"Author {asks.author}'s method improves {aspect} for {topic}",
                "description": f"The excerpts show that its design targets {aspect} directly, "
                f"which matters for {topic}.",
                "evidence": _ids(rng, asks.evidence, 2, least=1),
            }
            for aspect in aspects
        ]
    }


def _relevance(rng: random.Random) -> dict[str, str]:
    kept = rng.random() < KEEP_ODDS
    how = rng.choice(("supports_claim", "refutes_claim", "clarifies_claim"))
    fields = ("supports_claim", "refutes_claim", "clarifies_claim")
    return {
        **{f: "Yes" if kept and f == how else "No" for f in fields},
        "irrelevant_to_claim": "No" if kept else "Yes",
    }


def _subtopics(asks: SubtopicsRequest, rng: random.Random) -> dict[str, Any]:
    topic = _short(asks.topic)
    count = 1 if asks.most == 1 else min(asks.most, rng.randint(2, 4))
    found = []
    for aspect in rng.sample(ASPECTS, count):
        mapped = [_ids(rng, asks.claims[i], 2) for i in (0, 1)]
        if not any(mapped) and any(asks.claims):  # at least one side maps, where one can
            side = 0 if asks.claims[0] else 1
            mapped[side] = [rng.randint(1, asks.claims[side])]
        found.append(
            {
                "topic_title": f"How each paper handles {aspect} in {topic}",
                "topic_description": f"Whether the two methods differ in {aspect}, and which "
                "evidence supports each side.",
                "author_0_relevant_contributions": mapped[0],
                "author_1_relevant_contributions": mapped[1],
            }
        )
    return {"subtopic_list": found}


def _argument(asks: ArgumentRequest, rng: random.Random) -> dict[str, Any]:
    topic, me = _short(asks.topic), f"Author {asks.author}"
    aspect = rng.choice(ASPECTS)
    if asks.stage == "respond":
        return {
            "author_response": f"{me} answers that on {topic} the opposition overlooks "
            f"{aspect}; its own results address it, and the gap it points to is minor."
        }
    concedes = asks.stage == "revise" and rng.random() < CONCESSION_ODDS
    title = (
        f"{me} concedes that the opposition's paper contributes more to {topic}"
        if concedes
        else f"{me}'s paper handles {aspect} better on {topic}"
    )
    description = (
        f"After the debate, {me} finds the opposing evidence on {aspect} stronger."
        if concedes
        else f"On {topic}, its method addresses {aspect} directly. The opposition's method "
        "leaves it to later work."
    )
    if asks.stage == "revise":
        return {
            "revised_argument_title": title,
            "revised_argument_description": description,
            "concedes": concedes,
        }
    return {"argument_title": title, "description": description, "concedes": False}


def _expansion(asks: ExpandRequest, rng: random.Random) -> dict[str, Any]:
    wants = rng.random() < EXPANSION_ODDS / max(1, asks.level)
    progression = wants or rng.random() < 0.5
    questions = wants and rng.random() < 0.5
    yes = {True: "Yes", False: "No"}
    return {
        "explanation": f"The debate on {_short(asks.topic)} "
        + ("raised new points worth exploring." if wants else "has settled."),
        "progression_of_arguments": yes[progression],
        "meaningful_questions": yes[questions],
        "clear_winner": yes[not wants],
    }


def _summary(source: str, state: Sample | None, rng: random.Random) -> str:
    topic, a, b = _pair_names(state)
    least, most = SUMMARY_SENTENCES.get(source, (5, 5))
    aspects = rng.sample(ASPECTS, most)
    said = [f"Both {a} and {b} address {topic}."]
    said += [f"They differ in {aspect}." for aspect in aspects[: rng.randint(least, most) - 2]]
    said.append(f"Overall, {a} and {b} make complementary contributions to {topic}.")
    return " ".join(said)


def _rubric(asks: RubricRequest, accuracy: float, rng: random.Random) -> dict[str, Any]:
    if asks.criterion == "factuality":
        marks = [int(rng.random() < accuracy) for _ in range(asks.sentences)]
        return {"explanation": "Simulated check of each sentence.", "marks": marks}
    # noise of up to one level, none at the ends: accuracy 1 grades 4, accuracy 0 grades 0
    noise = 2 * min(accuracy, 1 - accuracy) * rng.uniform(-1, 1)
    level = min(4, max(0, round(4 * accuracy + noise)))
    return {"explanation": f"Simulated {asks.criterion} grade.", "level": level}


def _preference(asks: PreferenceRequest, accuracy: float, rng: random.Random) -> dict[str, str]:
    """The summary with more distinct words (the richer one) with probability `accuracy`; equal
    summaries tie."""
    richer = _richer(asks.a, asks.b)
    pick = "tie" if richer is None else richer if rng.random() < accuracy else OTHER[richer]
    return {"explanation": f"Simulated preference on {asks.criterion}.", "preference": pick}


def _richer(a: str, b: str) -> str | None:
    words = [len(set(x.lower().split())) for x in (a, b)]
    return None if words[0] == words[1] else ("A" if words[0] > words[1] else "B")

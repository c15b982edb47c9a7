"""`squad`: SQuAD 2.0 exact match and F1, overall and split into answerable / unanswerable questions.

The measures are those of the official `squad_v2` evaluation: answers are compared after
lower-casing and removing punctuation, articles and extra spaces; each question takes its best
score over the reference answers; a question with no reference is answered correctly only by the
empty (no-answer) prediction. As in "Voting or Consensus?", a prediction that mentions "unknown"
(the prompt asks for "[UNKNOWN]") is that empty prediction. An output with no readable answer at all
(e.g. every agent abstained) scores 0, on unanswerable questions too.
"""

from __future__ import annotations

import math
import re
import string
from collections import Counter

from inspect_ai.scorer import Score, Scorer, Target, mean, scorer, stderr
from inspect_ai.solver import TaskState

from ..engine.answers import FreeText

NO_ANSWER = "[UNKNOWN]"  # the target of an unanswerable question, and what the prompt asks for

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize(text: str) -> str:
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def exact(prediction: str, gold: str) -> float:
    return float(normalize(prediction) == normalize(gold))


def f1(prediction: str, gold: str) -> float:
    pred, ref = normalize(prediction).split(), normalize(gold).split()
    if not pred or not ref:
        return float(pred == ref)  # a no-answer is right only against a no-answer
    same = sum((Counter(pred) & Counter(ref)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


def read_prediction(completion: str) -> str | None:
    """The final answer, "" for a no-answer ("unknown"), None when there is no answer to read."""
    answer = FreeText().extract(completion)
    if answer is None:
        return None
    return "" if "unknown" in answer.lower() else answer


def gold_answers(target: Target) -> list[str]:
    """The reference answers; [""] for an unanswerable question."""
    answers = [t for t in target.target if t != NO_ANSWER and normalize(t)]
    return answers or [""]


SPLITS = ("HasAns", "NoAns")
KEYS = ("exact", "f1", *(f"{split}_{m}" for split in SPLITS for m in ("exact", "f1")))


@scorer(
    metrics={
        "exact": [mean(), stderr()],
        "f1": [mean(), stderr()],
        **{key: [mean()] for key in KEYS[2:]},
    }
)
def squad() -> Scorer:
    """Exact match and F1, plus both on the HasAns and NoAns questions alone."""

    async def score(state: TaskState, target: Target) -> Score:
        golds = gold_answers(target)
        answerable = golds != [""]
        prediction = read_prediction(state.output.completion)
        if prediction is None:
            em = f = 0.0
        else:
            em = max(exact(prediction, g) for g in golds)
            f = max(f1(prediction, g) for g in golds)
        # the other split's keys are NaN: Inspect leaves them out of that split's mean
        split = "HasAns" if answerable else "NoAns"
        value = dict.fromkeys(KEYS, math.nan) | {
            "exact": em, "f1": f, f"{split}_exact": em, f"{split}_f1": f,
        }  # fmt: skip
        return Score(
            value=value,
            answer=prediction if prediction is not None else "",
            explanation=(
                "no answer could be read from the output (scored 0)"
                if prediction is None
                else f"prediction {prediction or '(no answer)'!r} vs {' | '.join(golds) or '(no answer)'}"
            ),
            metadata={"answerable": answerable},
        )

    return score

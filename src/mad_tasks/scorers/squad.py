"""`squad_exact` and `squad_f1` (both: `squad()`): SQuAD 2.0 exact match and F1, overall and split into answerable / unanswerable questions; `squad_contains`, CortexDebate's containment match.

The measures are those of the official `squad_v2` evaluation: answers are compared after
lower-casing and removing punctuation, articles and extra spaces; each question takes its best
score over the reference answers; a question with no reference is answered correctly only by the
empty (no-answer) prediction. As in "Voting or Consensus?", a prediction that mentions "unknown"
(the prompt asks for "[UNKNOWN]") is that empty prediction. An output with no readable answer at all
(e.g. every agent abstained) scores 0, on unanswerable questions too.

`squad_contains` scores 1 when the final answer contains a reference answer as whole words, both
normalised as above; on an unanswerable question only the no-answer is right (a span "containing"
no answer would make every reply right), and an output with no readable answer scores 0.
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Callable

from inspect_ai.scorer import (
    Metric,
    SampleScore,
    Score,
    Scorer,
    Target,
    mean,
    metric,
    scorer,
    stderr,
)
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


def contains(prediction: str, gold: str) -> float:
    """CortexDebate's SQuAD "EM", "% of outputs containing the correct answer": the normalised
    reference stands in the normalised prediction as whole words ("Quill" is in "Mara Quill",
    "cat" is not in "concatenate"). A no-answer is right only against a no-answer, as above."""
    pred, ref = normalize(prediction), normalize(gold)
    if not pred or not ref:
        return float(pred == ref)
    return float(f" {ref} " in f" {pred} ")


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


@metric
def by_split() -> Metric:
    """`HasAns` and `NoAns`: the mean over the answerable and over the unanswerable questions
    alone; a split the run has no question of is left out (never NaN)."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        found: dict[str, float] = {}
        for name, answerable in (("HasAns", True), ("NoAns", False)):
            values = [
                s.score.as_float()
                for s in scores
                if (s.score.metadata or {}).get("answerable") is answerable
            ]
            if values:
                found[name] = sum(values) / len(values)
        return found

    return compute


def _scorer(measure: Callable[[str, str], float]) -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        golds = gold_answers(target)
        prediction = read_prediction(state.output.completion)
        value = 0.0 if prediction is None else max(measure(prediction, g) for g in golds)
        return Score(
            value=value,
            answer=prediction if prediction is not None else "",
            explanation=(
                "no answer could be read from the output (scored 0)"
                if prediction is None
                else f"prediction {prediction or '(no answer)'!r} vs {' | '.join(golds) or '(no answer)'}"
            ),
            # the split metrics read it; it is the sample's own, so the same in every epoch
            metadata={"answerable": golds != [""]},
        )

    return score


@scorer(metrics=[mean(), stderr(), by_split()])
def squad_exact() -> Scorer:
    """Exact match, overall and on the answerable (HasAns) and unanswerable (NoAns) questions."""
    return _scorer(exact)


@scorer(metrics=[mean(), stderr(), by_split()])
def squad_f1() -> Scorer:
    """Token F1, overall and on the answerable (HasAns) and unanswerable (NoAns) questions."""
    return _scorer(f1)


@scorer(metrics=[mean(), stderr(), by_split()])
def squad_contains() -> Scorer:
    """Whether the answer contains a reference answer (CortexDebate's SQuAD measure), overall and
    on the answerable (HasAns) and unanswerable (NoAns) questions."""
    return _scorer(contains)


def squad() -> list[Scorer]:
    """Both measures, each its own numeric score (a column of its own in the viewer)."""
    return [squad_exact(), squad_f1()]

"""CortexDebate's similarity of two agents' outputs, the intimacy term's input (Eqs. 6-7): the
cosine of their embeddings (the paper's choice, `-S similarity=embedding`), or one of Table 10's
baselines: a cross-encoder's score of each pair (`cross_encoder`, its DeTS), or "DeepSeek R1 +
prompt" (`prompted`): a model, on the role `similarity`, rates each pair of outputs from 0 to 1
in one call, all the round's pairs at once.

A failed embedding or cross-encoder, and a rating still unreadable after the follow-ups, count as
0 (A6) and are recorded as a warning: the pair reads as different, never as alike by a guess.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ...confidence import parse_stated
from ...content import Content, Msg, Question, compose
from ...records import AgentAnswer
from ...requests import SimilarityRequest
from ...runtime import Runtime
from ...session import Session

if TYPE_CHECKING:
    from ...embeddings import Embedder, PairScorer

SIMILARITIES = ("embedding", "cross_encoder", "prompted")
RATING = (
    'End your reply with a line "SIMILARITY: s", where s, between 0 and 1, says how alike the '
    "two replies are in their reasoning and their conclusion (1: the same, 0: unrelated)."
)
REMINDER = f"Your reply has no readable rating. {RATING}"


def similarity_prompt(question: Question, first: str, second: str) -> Content:
    """One pair of outputs shown to the rater, the question first."""
    return compose(
        question,
        "\n\nTwo replies to this question:\n\n--- reply 1 ---\n"
        f"{first.strip()}\n\n--- reply 2 ---\n{second.strip()}\n\n"
        f"How similar are the two replies? Compare them briefly. {RATING}",
    )


def read_similarity(text: str) -> float | None:
    return parse_stated(text, "similarity")


async def prompted_similarities(
    session: Session,
    question: Question,
    outputs: Sequence[AgentAnswer],
    texts: Sequence[str],
    round_: int,
    warnings: list[str],
    rt: Runtime,
) -> list[list[float]]:
    """The symmetric matrix of the rated similarities of `texts` (the outputs as embedded), 1 on
    the diagonal; one call per pair i < j, on the role `similarity`."""
    n = len(texts)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    asked = await rt.gather(
        *(
            session.ask(
                f"similarity {outputs[i].agent}~{outputs[j].agent}",
                "similarity",
                [Msg("user", similarity_prompt(question, texts[i], texts[j]))],
                "similarity",
                round_,
                read_similarity,
                REMINDER,
                asks=SimilarityRequest(session.problem.fmt, (outputs[i].answer, outputs[j].answer)),
            )
            for i, j in pairs
        )
    )
    matrix = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    for (i, j), a in zip(pairs, asked):
        if a.value is None:
            message = (
                f"round {round_}: no readable similarity of {outputs[i].agent} and "
                f"{outputs[j].agent}; taken as 0"
            )
            warnings.append(message)
            rt.info("warning", message)
        matrix[i][j] = matrix[j][i] = a.value or 0.0
    return matrix


def _failed(what: str, e: Exception, warnings: list[str], rt: Runtime) -> None:
    message = f"{what} failed ({type(e).__name__}: {e}); similarity taken as 0"
    warnings.append(message)
    rt.info("warning", message)


async def embedded_similarities(
    embedder: Embedder, texts: list[str], warnings: list[str], rt: Runtime
) -> list[list[float]]:
    """Pairwise cosine of the texts; a failed or empty embedding counts as 0 (A6), never a crash."""
    n = len(texts)
    try:
        vectors = await embedder.embed(texts)
    except Exception as e:  # noqa: BLE001 - a provider error must not lose the sample (A6)
        _failed(f"embedder {embedder.name}", e, warnings, rt)
        return [[0.0] * n for _ in range(n)]
    cos = [[float(vectors[i] @ vectors[j]) for j in range(n)] for i in range(n)]
    return [[c if math.isfinite(c) else 0.0 for c in row] for row in cos]


async def scored_similarities(
    scorer: PairScorer, texts: list[str], warnings: list[str], rt: Runtime
) -> list[list[float]]:
    """The cross-encoder's score of each pair i < j (in that order), for both; 1 on the
    diagonal; a failed scorer counts as 0 (A6)."""
    n = len(texts)
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    matrix = [[1.0 if i == j else 0.0 for j in range(n)] for i in range(n)]
    try:
        scores = await scorer.score([(texts[i], texts[j]) for i, j in pairs])
    except Exception as e:  # noqa: BLE001 - a local model's error must not lose the sample (A6)
        _failed(f"cross-encoder {scorer.name}", e, warnings, rt)
        return matrix
    for (i, j), x in zip(pairs, scores):
        matrix[i][j] = matrix[j][i] = x if math.isfinite(x) else 0.0
    return matrix

"""`decision_stats`: what users compare across decision protocols, read from the debate record.

One figure scorer each (see `figures`); `decision_stats()` gives them all for a task's scorer list:

- `decision_success`: 1 when the protocol decided, 0 when a fallback chose the answer;
- `turns`: the turn the debate ended in, and `ended_in_turn`: the share of samples whose debate
  ended in each turn, the paper's Table 2 layout (a debate that never decided ran all `max_turns`,
  so it lands in the last bin). With `--epochs` it bins every epoch's debate, each sample's epochs
  sharing its weight (a mean turn of 2.5 is no turn), and the shares still sum to 1;
- `votes`, `ties` and `tie_rate` (tied votes / votes over the run), `ballots`, `invalid_ballots` and
  `invalid_ballot_rate` (invalid / ballots);
- `answer_cosine`: the answer diversity, the mean pairwise cosine of the agents' final answers
  (none under two answers);
- after a challenge stage (`-S challenge=...`, the paper's Figs. 6-7), summed over the variants
  that ran (`challenge=all` runs five), each rate also per variant (`challenge_rate_wrong`, ...,
  from the `variants` metadata: which variant changed the answers): `challenges` (agents that
  disagreed) with `challenge_rate` (disagreements / readable verdicts), `challenge_abstentions`
  with `challenge_abstention_rate` (unreadable verdicts / agents asked), `new_answers_correct`
  with `new_answer_accuracy` (correct new answers / new answers asked for), `new_answer_gain` with
  `improved_answers` (Fig. 7: new answers right where the decision's answer is wrong minus wrong
  where it is right, / new answers; under `wrong` and `irrelevant` still against the decision's
  answer, which the agents never saw), `challenge_changed` (the new answers replaced the final
  one). Correct means the answer's key is a target's, as `final_answer` scores it; the
  `challenges` metadata says, per variant (`judged`), whether the answer shown was correct and
  was the decision's.

Calls and tokens are `debate_stats`' figures. Works after the fact too, one figure at a time
(`inspect score LOG --scorer mad_tasks/decision_success --action append`), or all of them with
`inspect_ai.score(log, decision_stats())`; `answer_cosine` takes `-S embedder=sentence-transformers`
to recompute the diversity from the recorded final answers.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer
from inspect_ai.solver import TaskState

from .._inspect_sample import NO_RESULT, load_result
from ..engine.answers import AnswerFormat, infer_format, make_format
from ..engine.checks import optional
from ..engine.embeddings import make_embedder, mean_pairwise_cosine
from ..engine.methods.decision import challenge as challenges
from ..engine.methods.decision.records import DecisionRecord
from ..engine.options import embedder_spec
from ..engine.records import DebateResult
from ._epochs import by_sample
from ._options import scorer_options
from .answers import gold_keys
from .figures import Figure, Missing, NotApplicable, Reading, family

NOT_DECISION = "no decision-protocol debate record in the sample store"
UNDER_TWO = "fewer than two agents hold an answer, so there is no pair to compare"


@metric(scores="unreduced")
def ended_in_turn() -> Metric:
    """The share of samples whose debate ended in each turn, `turn_1` to `turn_<max_turns>`."""

    def compute(scores: list[SampleScore]) -> dict[str, float]:
        # the turn each epoch's debate ended in, by sample
        samples = [[round(s.as_float()) for s in epochs] for epochs in by_sample(scores)]
        last = max(
            [int((s.score.metadata or {}).get("max_turns", 0)) for s in scores]
            + [t for s in samples for t in s],
            default=0,
        )
        return {
            f"turn_{t}": sum(s.count(t) / len(s) for s in samples) / len(samples)
            for t in range(1, last + 1)
        }

    return compute


def rate(name: str, whole: str) -> Metric:
    """`name`: the figure's total over the run / the total of `whole` (in each score's metadata),
    each sample's epochs averaged first; left out when `whole` is 0 everywhere."""

    @metric(name=name, scores="unreduced")
    def ratio() -> Metric:
        def compute(scores: list[SampleScore]) -> dict[str, float | None]:
            parts = wholes = 0.0
            for epochs in by_sample(scores):
                parts += sum(s.as_float() for s in epochs) / len(epochs)
                wholes += sum(float((s.metadata or {})[whole]) for s in epochs) / len(epochs)
            return {name: parts / wholes if wholes else None}

        return compute

    return ratio()


def rate_by_variant(name: str, whole: str) -> Metric:
    """`name` per challenge variant, `name_<variant>` (`challenge_rate_wrong`, ...): the figure's
    part in that variant over the run / its `whole`, read from each score's `variants` metadata,
    each sample's epochs averaged first; a variant whose whole is 0 everywhere is left out."""

    @metric(name=f"{name}_by_variant", scores="unreduced")
    def ratio() -> Metric:
        def compute(scores: list[SampleScore]) -> dict[str, float | None]:
            parts: dict[str, float] = {}
            wholes: dict[str, float] = {}
            for epochs in by_sample(scores):
                for s in epochs:
                    for variant, c in ((s.metadata or {}).get("variants") or {}).items():
                        parts[variant] = parts.get(variant, 0.0) + c["part"] / len(epochs)
                        wholes[variant] = wholes.get(variant, 0.0) + c[whole] / len(epochs)
            # None, not an empty mapping: Inspect would report an empty one as NaN
            return {
                f"{name}_{v}": parts[v] / wholes[v] if wholes.get(v) else None
                for v in challenges.VARIANTS
            }

        return compute

    return ratio()


def _rates(name: str, whole: str) -> list[Metric]:
    return [rate(name, whole), rate_by_variant(name, whole)]


# the challenge stage (the paper's Figs. 6 and 7), read only from debates that ran one; summed over
# the variants that ran (`challenge=all`), with each variant's rate apart (`challenge_rate_wrong`)
CHALLENGE_FIGURES = [
    Figure("challenges", "Agents that replied DISAGREE to the final answer shown after the "
           "decision.", _rates("challenge_rate", "verdicts")),
    Figure("challenge_abstentions", "Challenge replies with no readable AGREE or DISAGREE.",
           _rates("challenge_abstention_rate", "asked")),
    Figure("new_answers_correct", "New answers after a DISAGREE that match the target (an "
           "unreadable one counts as wrong).", _rates("new_answer_accuracy", "new_answers")),
    Figure("new_answer_gain", "New answers that are right where the decision's answer is wrong, "
           "minus those wrong where it is right.", _rates("improved_answers", "new_answers")),
    Figure("challenge_changed", "1 when new answers replaced the decision's answer "
           "(challenge_adopt=majority)."),
]  # fmt: skip
NO_CHALLENGE = "no challenge stage ran (challenge=none)"
NOTHING_SHOWN = "the debate had no answer, so no agent was asked to challenge it"
NO_WRONG = "no wrong answer could be read from the challenger's reply, so no agent was asked"

FIGURES = [
    Figure("decision_success", "1 when the protocol decided the answer, 0 when a fallback chose it."),
    Figure("turns", "The turn the debate ended in (an undecided debate ran all max_turns).",
           [ended_in_turn()]),
    Figure("votes", "Votes held (consensus protocols hold none)."),
    Figure("ties", "Votes that ended in a tie.", [rate("tie_rate", "votes")]),
    Figure("ballots", "Ballots cast over all votes."),
    Figure("invalid_ballots", "Ballots with no readable vote after the retries.",
           [rate("invalid_ballot_rate", "ballots")]),
    *CHALLENGE_FIGURES,
]  # fmt: skip


def read(state: TaskState, target: Target) -> Reading | Missing:
    result = load_result(state)
    if result is None:
        return Missing(NO_RESULT)
    record = result.record
    if not isinstance(record, DecisionRecord):
        return NotApplicable(NOT_DECISION)
    stats = record.stats(result.calls, record.answer_cosine)
    challenge, counts = challenge_figures(record, _format(state, result), target)
    values: dict[str, int | float | Missing] = {
        f.name: v for f in FIGURES if f.name in stats and (v := stats[f.name]) is not None
    }
    return Reading(
        values | challenge,
        {
            **counts,
            "decision_success": {
                "protocol": result.options.get("protocol"),
                "decided_at": asdict(record.decided_at) if record.decided_at else None,
                "fallback_used": record.fallback_used,
                "winner_agent": record.winner_agent,
            },
            "turns": {"max_turns": record.max_turns},
            "ties": {"votes": stats["votes"]},
            "invalid_ballots": {"ballots": stats["ballots"]},
        },
    )


def challenge_figures(
    record: DecisionRecord, fmt: AnswerFormat, target: Target
) -> tuple[dict[str, int | Missing], dict[str, dict[str, Any]]]:
    """The challenge figures of one debate, summed over the variants that ran, with the wholes
    their rates divide by and each variant's part and whole (`variants`, for the per-variant
    rates): correctness of an answer is its key among the targets' (exact match, as
    `final_answer` scores)."""
    asked = [stage for stage in record.challenges if stage.shown is not None]
    if not asked:
        settings = {stage.setting for stage in record.challenges}
        why = NO_CHALLENGE if not settings else NO_WRONG if settings == {"wrong"} else NOTHING_SHOWN
        missing = NotApplicable if not settings else Missing
        return {f.name: missing(why) for f in CHALLENGE_FIGURES}, {}
    gold = gold_keys(fmt, target.target)

    def right(answer: str | None) -> int:
        return int(answer is not None and fmt.key(answer) in gold)

    decided = right(record.challenges[0].decided)
    per: dict[str, dict[str, int]] = {}  # variant -> its figures and wholes
    judged: dict[str, dict[str, Any]] = {}  # variant -> what was shown
    for stage in asked:
        new = [v.new_answer for v in stage.verdicts if v.verdict == "disagree"]
        per[stage.setting] = {
            "challenges": len(new),
            "challenge_abstentions": stage.count("abstain"),
            "new_answers_correct": sum(map(right, new)),
            "new_answer_gain": sum(right(a) - decided for a in new),
            "verdicts": len(new) + stage.count("agree"),
            "asked": len(stage.verdicts),
            "new_answers": len(new),
        }
        shown = stage.shown_answer  # None: not an answer (irrelevant)
        judged[stage.setting] = {
            "shown": stage.shown,
            # whether the answer judged is right, and is the decision's (a "wrong" answer may
            # be either); None: what was shown is no answer
            "shown_correct": None if shown is None else bool(right(shown)),
            "shown_is_decided": None
            if shown is None
            else stage.decided is not None and fmt.key(shown) == fmt.key(stage.decided),
        }

    def total(name: str) -> int:
        return sum(counts[name] for counts in per.values())

    def variants(name: str, whole: str) -> dict[str, dict[str, int]]:
        return {v: {"part": c[name], whole: c[whole]} for v, c in per.items()}

    changed = any(
        stage.adopted is not None
        and (stage.decided is None or fmt.key(stage.adopted) != fmt.key(stage.decided))
        for stage in asked
    )
    return {
        "challenges": total("challenges"),
        "challenge_abstentions": total("challenge_abstentions"),
        "new_answers_correct": total("new_answers_correct"),
        "new_answer_gain": total("new_answer_gain"),
        "challenge_changed": int(changed),
    }, {
        "challenges": {
            "verdicts": total("verdicts"),
            "variants": variants("challenges", "verdicts"),
            "judged": judged,
        },
        "challenge_abstentions": {
            "asked": total("asked"),
            "variants": variants("challenge_abstentions", "asked"),
        },
        "new_answers_correct": {
            "new_answers": total("new_answers"),
            "variants": variants("new_answers_correct", "new_answers"),
        },
        "new_answer_gain": {
            "new_answers": total("new_answers"),
            "decision_correct": bool(decided),
            "variants": variants("new_answer_gain", "new_answers"),
        },
    }


SCORERS = family(FIGURES, read, columns={"decision_success": "decided"})


@scorer(metrics=[mean()])
def answer_cosine(embedder: str | None = None) -> Scorer:
    """The mean pairwise cosine of the agents' final answers (1: they all say the same).

    Args:
        embedder: recompute it with this embedder (hashing, sentence-transformers[/model],
            openai[/model]) instead of reading the recorded figure.
    """
    with scorer_options():
        optional(embedder_spec, "embedder", embedder, null="the recorded figure", kind="scorer")
    embed = make_embedder(embedder) if embedder is not None else None
    meaning = "The mean pairwise cosine of the agents' final answers (1: they all say the same)."

    async def score(state: TaskState, target: Target) -> Score:
        result = load_result(state)
        if result is None or not isinstance(record := result.record, DecisionRecord):
            why = NO_RESULT if result is None else NOT_DECISION
            return Score.unscored(reason=why, explanation=meaning)
        cosine = record.answer_cosine
        if embed is not None:
            fmt = _format(state, result)
            texts = [fmt.describe(a) for a in record.final_answers.values() if a is not None]
            cosine = mean_pairwise_cosine(await embed.embed(texts)) if len(texts) > 1 else None
        used = {"embedder": embed.name if embed is not None else record.embedder}
        if cosine is None:
            return Score.unscored(reason=UNDER_TWO, explanation=meaning, metadata=used)
        return Score(value=cosine, explanation=meaning, metadata=used)

    return score


def decision_stats(embedder: str | None = None) -> list[Scorer]:
    """The decision figures' scorers: decision success, the turn the debate ended, votes, ties,
    ballots, invalid ballots, the challenge stage's figures and answer diversity, one score each.

    Args:
        embedder: recompute the answer diversity with this embedder (see `answer_cosine`).
    """
    return [*(make() for make in SCORERS), answer_cosine(embedder)]


def _format(state: TaskState, result: DebateResult) -> AnswerFormat:
    """The answer format the debate ran in (recorded), to describe choice answers by their option."""
    options = tuple(c.value for c in state.choices)
    name = result.options.get("answer_format") or infer_format(state.target.text)
    return make_format(name, options if name == "choice" else ())

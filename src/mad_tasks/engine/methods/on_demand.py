"""Debate only when it is needed: a cheap first stage, then a debate only when a trigger fires.

After DOWN (Eo et al. 2025, "Debate Only When Necessary", arXiv 2504.05047), with the first stage,
the trigger and the debate as options:

1. The first stage (`first`): `single` (one direct answer), `cot` (one step-by-step answer: DOWN's
   initial response) or `self_consistency` (`samples` step-by-step answers, their plurality; a tie
   goes to the answer sampled first). Agent `agent_i` on its model role `agent_i` (the role its
   debate agent runs on), round 1.
2. The trigger reads a signal from it:
   - `confidence` (DOWN): the mean token probability of the reply that gave the answer,
     c = (1/|r|) sum_i exp(logprob_i), where the provider returns log-probabilities (the calls ask
     for them); an answer that needed a follow-up pools the tokens of all its replies. Where any reply came without them, every answer's own agent is asked in its
     conversation for a verbalized confidence (one call each, purpose `confidence`, read as
     CortexDebate reads `CONFIDENCE: 0.85`, `85%` or `85/100`); the record's `source` says which
     was used. With `samples` (DOWN has one response: our choice), c is the mean over the samples,
     an abstention counting 0 (its reply's log-probabilities are not needed). The debate
     runs when c <= `threshold` (DOWN: debate when c_1 <= theta).
   - `disagreement`: the share of the samples that give the plurality answer (an abstention agrees
     with none); the debate runs when it is below `threshold` (default 1: unless all agree).
   - `always` and `never` read nothing.
   A first stage without an answer, or without a readable confidence, always debates: nothing is
   kept that was not read.
3. The debate: any answer-producing method of the package (`debate`, with its own options in
   `debate_args`), in the same session. A method whose agents start from independent answers to
   the prompt the first stage asked (du_debate, neighbor_debate, group_debate, peer_review ask
   `step_by_step`, as `cot` and `self_consistency` do) takes the first answers as its agents'
   round-one answers instead of asking again (`Session.openings`), so `trigger=always` costs the
   first stage plus the debate minus the reused answers. A debate that may stop adaptively takes
   `stop=adaptive` in `debate_args`, and its trace is on_demand's `adaptive_stop` (on_demand itself
   has no `stop`).

Not reproduced: DOWN's debate shows each agent the others' confidence scores; here the debate is the
chosen method as it is (`debate=reconcile` is the one that shows confidences).

The verbalized-confidence call continues the answer's own conversation, which opens with the
question and all its parts; every other call is the first stage's or the debate's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from .. import prompts, viewer_text
from ..answers import AnswerFormat
from ..checks import OptionError, integer, number, one_of, optional
from ..confidence import parse_confidence
from ..content import Msg
from ..options import MAX_SAMPLES, Answering, Options, option
from ..protocols import majority_vote
from ..protocols import on_demand as rules
from ..records import AgentAnswer, DebateResult, Tally, reply_tokens
from ..requests import AnswerRequest, ConfidenceRequest
from ..session import Asked, Opening, Sampling, Session, answer_of
from ..spec import Catalogue, FirstVote, MethodSpec, Run, Setup
from .on_demand_records import OnDemandRecord
from .turns import agent_names

FIRST_STAGES = ("single", "cot", "self_consistency")
TRIGGERS = ("confidence", "disagreement", "always", "never")
# the threshold when none is given: for confidence ours (DOWN's values per model were not readable
# from the copies of the paper we had), for disagreement "unless all samples agree"
DEFAULT_THRESHOLD = {"confidence": 0.8, "disagreement": 1.0}
# the options on_demand passes to the debate: they apply to both stages, so debate_args may not
# set them (the debate takes the templates its prompts use)
SHARED = (
    "answer_format", "templates", "retries", "temperature", "max_tokens", "allow_text_only",
    "debater", "tools", "sandbox", "turn_messages", "turn_tokens",
)  # fmt: skip

CONFIDENCE_PROMPT = (
    "How likely is it that your final answer above is right? Reply with one line of the form "
    "CONFIDENCE: <a number from 0 to 1>."
)


def _mapping(name: str, value: Any) -> Mapping[str, Any] | None:
    if value is None or (isinstance(value, Mapping) and all(isinstance(k, str) for k in value)):
        return value
    raise OptionError(name, value, "a mapping of the debate's options, e.g. {agents: 3}, or null")


@dataclass(frozen=True)
class OnDemandOptions(Answering):
    """on_demand's options. `CATALOGUE` holds the debates `debate=` may name: `on_demand_spec`
    makes the options class of a catalogue's on_demand (this class alone knows no debate)."""

    TEMPLATES: ClassVar[tuple[str, ...]] = ("direct", "step_by_step", "reminder")
    CATALOGUE: ClassVar[Catalogue] = Catalogue()

    debate: str = option(
        "du_debate",
        "the debate that runs when the trigger fires: any answer-producing solver of the package "
        "but single, cot, self_consistency and on_demand.",
    )
    debate_args: Mapping[str, Any] | None = option(
        None,
        "the debate's own options as a mapping, checked as its solver checks them "
        "(`-S debate_args='{agents: 3, rounds: 2}'`); the answer format, retries, temperature, "
        "max_tokens and allow_text_only are on_demand's and apply to both stages.",
        _mapping,
    )
    first: str = option(
        "cot",
        "the first stage: single, cot (DOWN's initial response) or self_consistency.",
        lambda name, v: one_of(name, v, FIRST_STAGES),
    )
    samples: int = option(
        5,
        "first=self_consistency: its samples (k).",
        lambda name, v: integer(name, v, 1, MAX_SAMPLES),
    )
    trigger: str = option(
        "confidence",
        "confidence (DOWN: debate when the first answer's confidence <= threshold), "
        "disagreement (debate when fewer than threshold of the samples agree), always or never.",
        lambda name, v: one_of(name, v, TRIGGERS),
    )
    threshold: float | None = option(
        None,
        "from 0 to 1; unset: 0.8 for confidence, 1 for disagreement (debate unless all agree).",
        lambda name, v: optional(number, name, v, 0, 1, null="the trigger's default"),
    )

    @classmethod
    def debates(cls) -> dict[str, MethodSpec]:
        """The methods `debate=` may name: the catalogue's answer-producing debates."""
        return {name: s for name, s in cls.CATALOGUE.answering().items() if s.debate}

    def template_names(self) -> tuple[str, ...]:
        """The first stage's templates, then the debate's."""
        mine = self.debates()[self.debate].options.TEMPLATES  # type: ignore[attr-defined]
        return tuple(dict.fromkeys((*self.TEMPLATES, *mine)))

    def validate(self) -> None:
        one_of("debate", self.debate, tuple(self.debates()))
        super().validate()
        if self.trigger == "disagreement" and self.first != "self_consistency":
            raise OptionError(
                "trigger",
                self.trigger,
                f"confidence, always or never with first={self.first} (disagreement compares "
                "the samples of first=self_consistency)",
            )
        if self.trigger == "disagreement" and self.samples < 2:
            raise OptionError(
                "samples",
                self.samples,
                f"an integer from 2 to {MAX_SAMPLES} with trigger=disagreement (one sample "
                "always agrees)",
            )
        if self.threshold is not None and self.trigger in ("always", "never"):
            raise OptionError(
                "threshold", self.threshold, f"null with trigger={self.trigger} (it reads nothing)"
            )
        self.debate_options()  # checks debate_args before any call

    @property
    def level(self) -> float | None:
        """The threshold that applies; None for a trigger that reads nothing."""
        return DEFAULT_THRESHOLD.get(self.trigger) if self.threshold is None else self.threshold

    def debate_options(self) -> Options:
        """The debate's options: `debate_args` with the shared ones, checked by its options class;
        an error names the option as `debate_args.<name>`."""
        spec = self.debates()[self.debate]
        given = dict(self.debate_args or {})
        for name in SHARED:
            if name in given:
                raise OptionError(
                    f"debate_args.{name}",
                    given[name],
                    f"not here: set {name} on on_demand itself, it applies to both stages",
                )
        shared = {name: getattr(self, name) for name in SHARED}
        mine = spec.options.TEMPLATES  # type: ignore[attr-defined]
        shared["templates"] = {k: v for k, v in (self.templates or {}).items() if k in mine} or None
        try:
            return spec.factory("")(**shared, **given)
        except OptionError as e:
            raise OptionError(f"debate_args.{e.option}", e.value, e.allowed) from None

    def record(self) -> dict[str, Any]:
        return {**super().record(), "debate_options": self.debate_options().record()}


@dataclass(frozen=True)
class FirstStage:
    answers: list[AgentAnswer]
    asked: list[Asked[str]]
    prompt: tuple[Msg, ...]
    answer: str | None
    tally: Tally | None  # self_consistency's vote


async def first_stage(session: Session, opts: OnDemandOptions) -> FirstStage:
    p = session.problem
    write = prompts.direct if opts.first == "single" else prompts.step_by_step
    prompt = (Msg("user", write(p.question, p.fmt, p.templates)),)
    k = opts.samples if opts.first == "self_consistency" else 1
    sampling = Sampling(logprobs=opts.trigger == "confidence")
    asked = await session.runtime.gather(
        *(
            session.ask_answer(
                f"agent_{i + 1}", f"agent_{i + 1}", prompt, "answer", 1,
                asks=AnswerRequest(p.fmt), sampling=sampling,
            )
            for i in range(k)
        )
    )  # fmt: skip
    answers = [answer_of(f"agent_{i + 1}", 1, a) for i, a in enumerate(asked)]
    if k == 1:
        return FirstStage(answers, list(asked), prompt, answers[0].answer, None)
    tally = majority_vote([a.answer for a in answers], key=p.fmt.key)
    return FirstStage(answers, list(asked), prompt, tally.winner, tally)


async def verbalized(session: Session, stage: FirstStage, answer: AgentAnswer) -> float | None:
    """The agent's stated confidence in its answer, asked in its conversation."""
    history = [*stage.prompt, Msg("assistant", answer.text), Msg("user", CONFIDENCE_PROMPT)]
    asks = ConfidenceRequest(session.problem.fmt, answer.answer)
    got = await session.ask(
        answer.agent, answer.agent, history, "confidence", 1, parse_confidence, CONFIDENCE_PROMPT,
        asks=asks,
    )  # fmt: skip
    return got.value


def replies_logprobs(asked: Asked[str]) -> tuple[float, ...] | None:
    """The token log-probabilities of all the replies, None when one came without them."""
    pooled: list[float] = []
    for lp in asked.logprobs:
        if lp is None:
            return None
        pooled += lp
    return tuple(pooled)


async def confidences(session: Session, stage: FirstStage) -> tuple[list[float | None], str]:
    """Each first answer's confidence, and where it came from (`logprobs` or `verbalized`): the
    mean token probability over every reply the answer took (a follow-up's short reply alone would
    look sure), where each of them came with log-probabilities; an abstention has none."""
    pooled = [replies_logprobs(a) for a in stage.asked]
    answered = [lp for a, lp in zip(stage.answers, pooled) if a.answer is not None]
    if all(lp is not None for lp in answered):
        return [
            rules.mean_token_probability(lp) if a.answer is not None and lp is not None else None
            for a, lp in zip(stage.answers, pooled)
        ], "logprobs"  # fmt: skip
    got = await session.runtime.gather(
        *(verbalized(session, stage, a) for a in stage.answers if a.answer is not None)
    )
    stated = iter(got)
    return [next(stated) if a.answer is not None else None for a in stage.answers], "verbalized"


def signal_of(
    opts: OnDemandOptions,
    stage: FirstStage,
    measured: list[float | None],
    key: Callable[[str], str],
) -> float | None:
    """The trigger's signal: the mean confidence (an abstention counts 0; None when a stated
    confidence could not be read) or the samples' agreement."""
    if opts.trigger == "disagreement":
        return rules.agreement([a.answer for a in stage.answers], key)
    if opts.trigger != "confidence" or stage.answer is None:
        return None  # nothing read: no answer has a confidence
    values = [0.0 if a.answer is None else c for a, c in zip(stage.answers, measured)]
    if any(v is None for v in values):
        return None
    return sum(v for v in values if v is not None) / len(values)


async def on_demand(session: Session, opts: OnDemandOptions, debate: Run) -> DebateResult:
    p, rt = session.problem, session.runtime
    async with rt.span("first stage"):
        stage = await first_stage(session, opts)
        measured: list[float | None] = [None] * len(stage.answers)
        source = None
        if opts.trigger == "confidence" and stage.answer is not None:
            measured, source = await confidences(session, stage)
        elif opts.trigger == "disagreement":
            source = "agreement"
    signal = signal_of(opts, stage, measured, p.fmt.key)
    level = opts.level
    decision = rules.decide(opts.trigger, level or 0.0, signal, stage.answer is not None)
    first_calls = list(session.calls)
    shown = _trigger_markdown(opts, stage, measured, signal, source, decision, p, rt.model_name)
    rt.info("trigger", shown)

    inner: DebateResult | None = None
    reused = 0
    if decision.debate:
        session.openings = [Opening(stage.prompt, a) for a in stage.answers]
        async with rt.span(f"debate ({opts.debate})"):
            inner = await debate(session)
        reused = len(stage.answers) - len(session.openings)
        session.openings = []
    debate_calls = session.calls[len(first_calls) :]
    record = OnDemandRecord(
        first=opts.first,
        trigger=opts.trigger,
        threshold=level,
        first_answers=stage.answers,
        confidences=measured,
        first_answer=stage.answer,
        signal=signal,
        source=source,
        debated=decision.debate,
        reason=decision.reason,
        reused=reused,
        first_calls=len(first_calls),
        first_tokens=reply_tokens(first_calls),
        debate_calls=len(debate_calls),
        debate_tokens=reply_tokens(debate_calls),
        debate=None if inner is None else _debate_summary(inner),
    )
    return DebateResult(
        method="on_demand",
        final=stage.answer if inner is None else inner.final,
        answers=stage.answers if inner is None else inner.answers,
        calls=session.calls,
        tally=stage.tally if inner is None else inner.tally,
        options={"threshold": level},
        record=record,
        adaptive_stop=None if inner is None else inner.adaptive_stop,  # debate_args' stop
    )


def _debate_summary(inner: DebateResult) -> dict[str, Any]:
    d = inner.to_dict()
    return {k: d[k] for k in ("method", "final", "tally", "options", "record")}


def _trigger_markdown(
    opts: OnDemandOptions,
    stage: FirstStage,
    measured: list[float | None],
    signal: float | None,
    source: str | None,
    decision: rules.Decision,
    p: Any,
    model_of: viewer_text.ModelOf | None = None,
) -> str:
    rows = [
        (
            a.agent,
            viewer_text.answer_cell(a.answer, p.fmt.describe),
            "-" if c is None else f"{c:.3f}",
        )
        for a, c in zip(stage.answers, measured)
    ]
    models = viewer_text.agent_models([a.agent for a in stage.answers], model_of)
    table = viewer_text.agent_table(["agent", "answer", "confidence"], rows, {2}, models)
    shown = "-" if signal is None else f"{signal:.3f}"
    what = {
        "logprobs": "the mean token probability of each reply, from the provider's "
        "log-probabilities",
        "verbalized": "stated by each agent when asked, as the provider returned no "
        "log-probabilities",
        "agreement": "the share of the samples that give the most common answer",
    }.get(source or "", "none read")
    verdict = "the debate runs" if decision.debate else "no debate: the first answer is final"
    return (
        f"**First stage ({opts.first}) and trigger ({opts.trigger})**\n\n{table}\n\n"
        f"signal: {shown} ({what}); {decision.reason}: {verdict}."
    )


# -- the method as every host offers it ------------------------------------------------------------


def first_answers(result: DebateResult) -> list[AgentAnswer]:
    """The first stage's answers: their vote is the answer on_demand gives without a debate (the
    debate's round one may hold more agents' answers, asked only because it debated)."""
    record = result.record
    return record.first_answers if isinstance(record, OnDemandRecord) else []


def first_vote(result: DebateResult, first: Sequence[AgentAnswer], fmt: AnswerFormat) -> FirstVote:
    tally = majority_vote([a.answer for a in first], key=fmt.key)
    return FirstVote(
        tally.winner, tally.tie, "on_demand's first stage (a tie goes to the first sampled)"
    )


def roles(o: OnDemandOptions) -> tuple[str, ...]:
    """The first stage's agents' roles, then the debate's."""
    k = o.samples if o.first == "self_consistency" else 1
    debate = o.debates()[o.debate].roles(o.debate_options())
    return tuple(dict.fromkeys(("agent", *agent_names(k), *debate)))


def on_demand_spec(catalogue: Catalogue) -> MethodSpec:
    """on_demand over the debates of `catalogue` (a method added to it later is a debate too)."""

    @dataclass(frozen=True)
    class Options(OnDemandOptions):
        CATALOGUE: ClassVar[Catalogue] = catalogue

    Options.__name__ = Options.__qualname__ = OnDemandOptions.__name__

    def prepare(o: OnDemandOptions, setup: Setup) -> Run:
        try:  # the debate prepared as its own host would (its embedder), named as on_demand's
            debate = o.debates()[o.debate].prepare(o.debate_options(), setup)
        except OptionError as e:
            raise OptionError(f"debate_args.{e.option}", e.value, e.allowed) from None
        return lambda s: on_demand(s, o, debate)

    return MethodSpec(
        "on_demand",
        "One agent answers (or several sample); a debate runs only when their confidence is low "
        "or they disagree.",
        Options,
        prepare,
        debate=False,
        first_answers=first_answers,
        first_vote=first_vote,
        roles=roles,
    )

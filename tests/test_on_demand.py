"""`on_demand`: the first stage's calls, the triggers and their thresholds, the reused round one,
the verbalized fallback, the record and the option checks."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest
from inspect_ai.model import ContentImage
from scripted import DEFAULT_USAGE, ScriptedRuntime, last_user

from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.on_demand import on_demand
from mad_tasks.engine.methods.on_demand_records import OnDemandRecord
from mad_tasks.engine.protocols.on_demand import agreement, decide, mean_token_probability
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import ConfidenceRequest
from mad_tasks.engine.runtime import Call, Reply
from mad_tasks.engine.session import Problem, Session
from mad_tasks.engine.transitions import answer_transitions
from mad_tasks.hosts.setup import SETUP
from mad_tasks.solvers import on_demand as on_demand_solver

# the options class of the package's on_demand: its debates are the catalogue's
OnDemandOptions = CATALOGUE["on_demand"].options


PNG = (  # a 1x1 red pixel
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
    "/pLvAAAAAElFTkSuQmCC"
)
PROBLEM = Problem(Question.of(["Can a camel cross the Sahara without water?"]), YesNo())


def script(
    answers: dict[tuple[str, str, int], str | None] | None = None,
    default: str | None = "yes",
    probability: float | None = None,
    stated: str = "CONFIDENCE: 0.9",
) -> Callable[[Call], str | Reply]:
    """Answers by (agent, purpose, round); a call that asks for log-probabilities gets tokens of
    `probability` each (None: the provider returns none); a confidence call gets `stated`."""
    answers = answers or {}

    def reply(call: Call) -> str | Reply:
        if isinstance(call.asks, ConfidenceRequest):
            return stated
        answer = answers.get((call.agent, call.purpose, call.round), default)
        text = f"{call.agent} thinks it over.\nANSWER: {answer}" if answer else "Hard to say."
        if call.logprobs and probability is not None:
            return Reply(text, DEFAULT_USAGE, logprobs=(math.log(probability),) * 4)
        return text

    return reply


async def run(reply: Callable[[Call], str | Reply], **options: object):
    rt = ScriptedRuntime(reply)
    opts = OnDemandOptions(**options)  # type: ignore[arg-type]
    debate = OnDemandOptions.debates()[opts.debate].prepare(opts.debate_options(), SETUP)
    # as the solver shell frames it: the options' templates are the problem's
    problem = dataclasses.replace(PROBLEM, templates=opts.templates)
    result = await on_demand(Session(rt, problem, retries=opts.retries), opts, debate)
    assert isinstance(result.record, OnDemandRecord)
    return rt, result, result.record


def purposes(rt: ScriptedRuntime) -> list[str]:
    return sorted(c.purpose for c in rt.calls)


# -- trigger=never and trigger=always: exact call counts ------------------------------------------


@pytest.mark.parametrize(
    ("first", "samples", "calls"), [("single", 5, 1), ("cot", 5, 1), ("self_consistency", 4, 4)]
)
async def test_never_makes_exactly_the_first_stages_calls(first: str, samples: int, calls: int):
    rt, result, record = await run(script(), first=first, samples=samples, trigger="never")
    assert len(rt.calls) == calls == record.first_calls
    assert not any(c.logprobs for c in rt.calls)  # nothing read, nothing asked
    assert (record.debated, record.debate_calls, record.reused, record.source) == (
        False, 0, 0, None
    )  # fmt: skip
    assert record.reason == "trigger=never: the first answer is final"
    assert result.final == "yes" and record.debate is None
    assert rt.spans == ["first stage"]


@pytest.mark.parametrize(
    ("first", "samples", "calls", "reused"),
    [
        # du_debate 3 agents x 2 rounds = 6 calls; a step-by-step first answer is agent_1's round one
        ("cot", 5, 1 + 6 - 1, 1),
        ("self_consistency", 3, 3 + 6 - 3, 3),
        ("self_consistency", 5, 5 + 6 - 3, 3),  # two samples left over: no agent takes them
        ("single", 5, 1 + 6, 0),  # a direct answer is not the debate's round-one prompt
    ],
)
async def test_always_is_the_first_stage_plus_the_debate_minus_the_reused_answers(
    first: str, samples: int, calls: int, reused: int
):
    rt, result, record = await run(script(), first=first, samples=samples, trigger="always")
    assert len(rt.calls) == calls
    assert (record.debated, record.reused, record.reason) == (True, reused, "trigger=always")
    assert record.first_calls == (samples if first == "self_consistency" else 1)
    assert record.debate_calls == calls - record.first_calls
    assert [c.agent for c in rt.calls if c.purpose == "debate" and c.round == 1] == [
        f"agent_{i}" for i in range(reused + 1, 4)
    ]
    assert len(result.answers_in_round(1)) == 3 and result.rounds == 2
    assert record.debate is not None and record.debate["method"] == "du_debate"
    assert rt.spans[:2] == ["first stage", "debate (du_debate)"]


async def test_a_reused_answer_is_read_by_the_others_and_continued_by_its_agent():
    answers = {("agent_1", "answer", 1): "no"}
    rt, result, _ = await run(script(answers), first="cot", trigger="always")
    [round1] = [a for a in result.answers_in_round(1) if a.agent == "agent_1"]
    assert round1.answer == "no" and round1.text.startswith("agent_1 thinks it over.")
    own = rt.first_call("agent_1", 2)
    assert own.messages[-2].text == round1.text  # its own reply, as if it had been asked
    for other in ("agent_2", "agent_3"):
        assert round1.text in last_user(rt.first_call(other, 2))


# -- the confidence trigger ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("probability", "threshold", "debated"),
    [(0.9, None, False), (0.5, None, True), (0.7, 0.6, False), (1.0, 1.0, True)],
)
async def test_confidence_is_the_mean_token_probability_and_debates_at_or_below_the_threshold(
    probability: float, threshold: float | None, debated: bool
):
    rt, _, record = await run(script(probability=probability), threshold=threshold)
    assert rt.calls[0].logprobs and record.source == "logprobs"
    assert record.signal == pytest.approx(probability)
    assert record.confidences == [pytest.approx(probability)]
    assert record.threshold == (0.8 if threshold is None else threshold)
    assert record.debated is debated
    sign = "<=" if debated else ">"
    assert record.reason == f"confidence {probability:.3f} {sign} threshold {record.threshold:g}"
    assert len(rt.calls) == (6 if debated else 1)
    assert "confidence" not in purposes(rt)


async def test_without_log_probabilities_the_agent_states_its_confidence():
    rt, _, record = await run(script(stated="I am fairly sure.\nCONFIDENCE: 85%"))
    assert purposes(rt) == ["answer", "confidence"]
    [asked] = [c for c in rt.calls if c.purpose == "confidence"]
    assert isinstance(asked.asks, ConfidenceRequest) and asked.asks.answer == "yes"
    assert asked.messages[-2].text == record.first_answers[0].text  # in its own conversation
    assert (record.source, record.signal, record.debated) == ("verbalized", 0.85, False)


async def test_an_unreadable_confidence_debates_after_the_follow_ups():
    rt, _, record = await run(script(stated="Quite sure, really."), trigger="confidence")
    assert purposes(rt).count("confidence") == 3  # the call and its 2 follow-ups
    assert (record.signal, record.debated, record.reason) == (None, True, "no readable confidence")


async def test_a_first_stage_without_an_answer_debates_without_asking_its_confidence():
    rt, _, record = await run(script(default=None, probability=0.99))
    assert (record.first_answer, record.debated) == (None, True)
    assert record.reason == "the first stage gave no answer"
    assert "confidence" not in purposes(rt)


async def test_samples_confidence_is_their_mean_and_an_abstention_counts_zero():
    answers = {("agent_3", "answer", 1): None}
    _, _, record = await run(
        script(answers, probability=0.9), first="self_consistency", samples=3, threshold=0.5
    )
    assert record.confidences == [pytest.approx(0.9), pytest.approx(0.9), None]
    assert record.signal == pytest.approx(0.6) and not record.debated


# -- the disagreement trigger and the samples' vote --------------------------------------------------


@pytest.mark.parametrize(
    ("noes", "threshold", "debated", "final"),
    [(0, None, False, "yes"), (1, None, True, None), (2, 0.6, False, "yes"), (2, 0.61, True, None)],
)
async def test_disagreement_debates_when_fewer_than_threshold_agree(
    noes: int, threshold: float | None, debated: bool, final: str | None
):
    answers = {(f"agent_{i}", "answer", 1): "no" for i in range(1, noes + 1)}
    opts = {"first": "self_consistency", "samples": 5, "trigger": "disagreement"}
    rt, result, record = await run(script(answers), threshold=threshold, **opts)
    assert (record.source, record.signal) == ("agreement", (5 - noes) / 5)
    sign = "<" if debated else ">="
    assert record.reason == f"agreement {record.signal:.3f} {sign} threshold {record.threshold:g}"
    assert record.debated is debated and not any(c.logprobs for c in rt.calls)
    if not debated:
        assert result.final == final and len(rt.calls) == 5
        assert result.tally is not None and result.tally.counts["yes"] == 5 - noes


async def test_a_tie_among_the_samples_goes_to_the_answer_sampled_first():
    answers = {("agent_1", "answer", 1): "no", ("agent_3", "answer", 1): "no"}
    _, result, record = await run(
        script(answers), first="self_consistency", samples=4, trigger="never"
    )
    assert result.tally is not None and result.tally.tie
    assert result.final == record.first_answer == "no"


# -- the record --------------------------------------------------------------------------------------


async def test_the_record_splits_the_calls_and_tokens_and_reads_back():
    _, result, record = await run(script(probability=0.5), first="cot")
    tokens = DEFAULT_USAGE.input_tokens + DEFAULT_USAGE.output_tokens
    assert (record.first_calls, record.debate_calls, record.reused) == (1, 5, 1)
    assert (record.first_tokens, record.debate_tokens) == (tokens, 5 * tokens)
    assert record.stats() == {
        "debated": 1, "trigger_signal": pytest.approx(0.5), "first_stage_calls": 1,
        "debate_calls": 5, "reused_answers": 1,
    }  # fmt: skip
    assert DebateResult.from_dict(result.to_dict()) == result
    assert result.method == "on_demand" and len(result.calls) == 6


# -- the rules ---------------------------------------------------------------------------------------


def test_mean_token_probability_and_agreement():
    assert mean_token_probability([0.0, math.log(0.5)]) == pytest.approx(0.75)
    assert mean_token_probability([]) is None
    key = str.lower
    assert agreement(["yes", "Yes", "no", None], key) == 0.5
    assert agreement([None, None], key) == 0.0
    assert agreement([], key) == 0.0


def test_decide_reads_nothing_for_always_and_never():
    assert decide("always", 0.8, None, False).debate is True
    assert decide("never", 0.8, None, False).debate is False
    assert decide("confidence", 0.8, 0.8, True).debate is True  # DOWN: c <= theta
    assert decide("disagreement", 1.0, 1.0, True).debate is False


# -- option checks, before any call ----------------------------------------------------------------


def message(option: str, value: object, allowed: str) -> str:
    return f"invalid solver option '{option}': got {value!r}, allowed: {allowed}"


@pytest.mark.parametrize(
    ("given", "option", "value", "allowed"),
    [
        ({"debate": "cot"}, "debate", "cot", ", ".join(OnDemandOptions.debates())),
        ({"debate": "on_demand"}, "debate", "on_demand", ", ".join(OnDemandOptions.debates())),
        ({"threshold": 2}, "threshold", 2, "a number from 0 to 1, or null (the trigger's default)"),
        (
            {"trigger": "disagreement"},
            "trigger",
            "disagreement",
            "confidence, always or never with first=cot (disagreement compares the samples of "
            "first=self_consistency)",
        ),
        ({"trigger": "always", "threshold": 0.5}, "threshold", 0.5,
         "null with trigger=always (it reads nothing)"),
        ({"debate_args": {"agents": "three"}}, "debate_args.agents", "three",
         "an integer from 1 to 32"),
        ({"debate_args": {"retries": 3}}, "debate_args.retries", 3,
         "not here: set retries on on_demand itself, it applies to both stages"),
        (
            {"debate": "voting", "debate_args": {"vote_turn": 9}},
            "debate_args.vote_turn",
            9,
            "an integer from 1 to 5 (max_turns)",
        ),
    ],
)  # fmt: skip
def test_bad_options_are_refused_by_name_before_any_call(
    given: dict[str, object], option: str, value: object, allowed: str
):
    with pytest.raises(OptionError) as err:
        on_demand_solver(**given)
    assert str(err.value) == message(option, value, allowed)


def test_an_unknown_debate_option_names_the_debate_and_what_it_takes():
    with pytest.raises(OptionError) as err:
        on_demand_solver(debate_args={"agentz": 3})
    assert str(err.value).startswith(
        "invalid solver option 'debate_args.agentz': got 3, allowed: no such option (du_debate "
        "takes agents, rounds, sequential,"
    )


def test_the_debates_options_are_recorded():
    recorded = OnDemandOptions(debate="neighbor_debate", debate_args={"agents": 4}).record()
    assert recorded["debate_options"]["agents"] == 4
    assert recorded["debate_options"]["topology"] == "ring"
    assert recorded["debate_args"] == {"agents": 4}


async def test_the_first_vote_is_the_first_stages_answer_whether_or_not_it_debated():
    # the first stage says no; the debate's new agents and then everyone say yes
    answers = {("agent_1", "answer", 1): "no"}
    for trigger, final in (("always", "yes"), ("never", "no")):
        _, result, _ = await run(script(answers), first="cot", trigger=trigger)
        got = answer_transitions(result, YesNo(), {"yes"})
        assert not isinstance(got, str)
        assert (got.first, got.first_correct, got.final, got.final_correct) == (
            "no", False, final, final == "yes"
        )  # fmt: skip
        assert got.rule == "on_demand's first stage (a tie goes to the first sampled)"
        assert [a.agent for a in got.agents] == ["agent_1"]


async def test_more_samples_than_agents_follow_only_the_agents_that_took_an_answer():
    answers = {(f"agent_{i}", "answer", 1): "no" for i in (4, 5)}
    _, result, record = await run(
        script(answers), first="self_consistency", samples=5, trigger="always"
    )
    got = answer_transitions(result, YesNo(), {"yes"})
    assert not isinstance(got, str) and record.reused == 3
    assert (got.first, got.final) == ("yes", "yes")  # 3 of the 5 samples said yes
    assert [a.agent for a in got.agents] == ["agent_1", "agent_2", "agent_3"]


# -- review fixes: roles, templates, mixed log-probabilities, what was not read --------------------


async def test_each_first_answer_runs_on_the_role_its_debate_agent_uses():
    rt, _, _ = await run(script(probability=0.5), first="self_consistency", samples=3)
    assert {(c.agent, c.role) for c in rt.calls if c.purpose == "answer"} == {
        (f"agent_{i}", f"agent_{i}") for i in (1, 2, 3)
    }
    rt, _, _ = await run(script())  # the verbalized confidence too
    assert [(c.agent, c.role) for c in rt.calls if c.purpose == "confidence"] == [
        ("agent_1", "agent_1")
    ]


async def test_the_debates_templates_are_on_demands_own():
    update = "REVISE {replies} {instruction}"
    rt, _, _ = await run(script(), trigger="always", templates={"debate_update": update})
    assert last_user(rt.first_call("agent_1", 2)).startswith("REVISE ")
    with pytest.raises(OptionError, match=r"'debate_args\.templates'"):
        OnDemandOptions(debate_args={"templates": {"debate_update": update}})


async def test_an_abstention_without_log_probabilities_does_not_force_the_fallback():
    def reply(call: Call) -> str | Reply:
        if call.agent == "agent_2":
            return "Hard to say."  # no answer and, as a filtered reply, no log-probabilities
        return script(probability=0.9)(call)

    rt, _, record = await run(reply, first="self_consistency", samples=3, retries=0)
    assert record.source == "logprobs" and "confidence" not in purposes(rt)
    assert record.confidences == [pytest.approx(0.9), None, pytest.approx(0.9)]
    assert record.signal == pytest.approx(0.6)


async def test_a_follow_ups_confidence_pools_every_reply_of_the_answer():
    def reply(call: Call) -> Reply:
        if call.attempt == 0:  # an unsure reply without an answer, then a sure short one
            return Reply("Hmm.", DEFAULT_USAGE, logprobs=(math.log(0.2),) * 6)
        return Reply("ANSWER: yes", DEFAULT_USAGE, logprobs=(math.log(1.0),) * 2)

    _, _, record = await run(reply, retries=1)
    assert record.signal == pytest.approx((6 * 0.2 + 2 * 1.0) / 8) and record.debated


async def test_nothing_read_is_recorded_as_nothing():
    _, _, record = await run(script(default=None))
    assert (record.signal, record.source) == (None, None)
    _, _, record = await run(script(probability=0.99))
    assert (record.debated, record.debate_calls, record.debate_tokens) == (False, 0, 0)


def test_disagreement_needs_two_samples_and_a_debate_embedder_is_checked_at_once():
    with pytest.raises(OptionError) as err:
        on_demand_solver(first="self_consistency", samples=1, trigger="disagreement")
    assert str(err.value) == message(
        "samples",
        1,
        "an integer from 2 to 640 with trigger=disagreement (one sample always agrees)",
    )
    with pytest.raises(OptionError) as err:
        on_demand_solver(debate="voting", debate_args={"embedder": "openai/text-embedding-3-small"})
    assert str(err.value).startswith("invalid solver option 'debate_args.embedder'")


async def test_every_first_stage_call_sends_the_questions_image_in_order():
    image = ContentImage(image=PNG)
    question = Question.of(["Which colour is this square?", image, "Answer yes if red."])
    rt = ScriptedRuntime(script(stated="CONFIDENCE: 0.95"))  # no log-probabilities: stated
    opts = OnDemandOptions()
    debate = OnDemandOptions.debates()[opts.debate].prepare(opts.debate_options(), SETUP)
    problem = dataclasses.replace(PROBLEM, question=question)
    await on_demand(Session(rt, problem), opts, debate)
    assert purposes(rt) == ["answer", "confidence"]
    for call in rt.calls:
        parts = call.messages[0].content
        assert not isinstance(parts, str) and parts[1] is image
        assert parts[0].startswith("Which colour") and "Answer yes if red." in parts[2]

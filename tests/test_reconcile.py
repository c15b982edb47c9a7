"""RECONCILE: the confidence-weighted vote (exhaustively), and the method on a scripted runtime:
call counts, critical path, who saw what, early stop on agreement, abstentions and the record.

Replies depend on the call's agent and round only, never on call order; each carries its marker
(`scripted.tag`) so a prompt shows whose reply it holds.
"""

from __future__ import annotations

import pytest
from scripted import debate as scripted_debate
from scripted import last_user, recorded, tag

from mad_tasks.engine.answers import Choice, YesNo
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.reconcile import (
    OWN_HEADING,
    PEERS_HEADING,
    ROUND_HEADING,
    ReconcileOptions,
    shown_groups,
)
from mad_tasks.engine.methods.reconcile_records import ConfidentAnswer
from mad_tasks.engine.protocols.reconcile import (
    WeightedTally,
    recalibrate,
    weight_tenths,
    weighted_vote,
)
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import AnswerRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem

QUESTION = "Is the Eiffel Tower taller than the Great Pyramid of Giza?"
YESNO = Problem(Question.of([QUESTION]), YesNo())
AGENTS = ("agent_1", "agent_2", "agent_3")

# -- the rule -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("confidence", "weight"),
    [
        (1.0, 1.0),
        (0.999, 0.8),
        (0.9, 0.8),
        (0.899, 0.5),
        (0.8, 0.5),
        (0.799, 0.3),
        (0.61, 0.3),
        (0.6, 0.1),  # the authors' code: p <= 0.6 -> 0.1
        (0.3, 0.1),
        (0.0, 0.1),
        (None, 0.1),  # no readable confidence: the lowest bin
    ],
)
def test_recalibration_bins(confidence: float | None, weight: float) -> None:
    assert recalibrate(confidence) == weight
    assert weight_tenths(confidence) == round(weight * 10)


def test_a_confident_minority_outweighs_a_hesitant_majority() -> None:
    # yes: 1.0 -> 1.0; no: 0.85 -> 0.5 and 0.7 -> 0.3, together 0.8
    tally = weighted_vote(["yes", "no", "no"], [1.0, 0.85, 0.7])
    assert tally == WeightedTally({"yes": 1.0, "no": 0.8}, "yes", False, 0)


def test_a_tie_goes_to_the_answer_given_first_in_agent_order() -> None:
    # 0.95 -> 0.8 against 0.85 -> 0.5 plus 0.65 -> 0.3: 0.8 each
    assert weighted_vote(["no", "yes", "yes"], [0.95, 0.85, 0.65]) == WeightedTally(
        {"no": 0.8, "yes": 0.8}, "no", True, 0
    )
    assert weighted_vote(["yes", "no", "no"], [0.95, 0.85, 0.65]).winner == "yes"


def test_weights_sum_exactly_and_a_missing_confidence_is_the_lowest_bin() -> None:
    # three lowest-bin votes (0.1 + 0.1 + 0.1, one without a confidence) tie one 0.3 exactly
    tally = weighted_vote(["a", "a", "a", "b"], [0.5, 0.2, None, 0.7])
    assert tally == WeightedTally({"a": 0.3, "b": 0.3}, "a", True, 0)


def test_abstentions_never_vote_whatever_their_confidence() -> None:
    tally = weighted_vote([None, "no", None], [1.0, 0.3, 1.0])
    assert tally == WeightedTally({"no": 0.1}, "no", False, 2)
    assert weighted_vote([None, None], [1.0, None]) == WeightedTally({}, None, False, 2)
    assert weighted_vote([], []) == WeightedTally({}, None, False, 0)


def test_answers_with_the_same_key_pool_their_weight_under_the_first_spelling() -> None:
    tally = weighted_vote(["Yes", "no", "yes"], [0.7, 0.9, 0.7], key=str.lower)
    assert tally == WeightedTally({"Yes": 0.6, "no": 0.8}, "no", False, 0)


def test_one_confidence_per_answer() -> None:
    with pytest.raises(ValueError, match="one confidence per answer"):
        weighted_vote(["yes"], [])


# -- the method -----------------------------------------------------------------------------------


Plan = dict[tuple[str, int], tuple[str | None, str | None]]


def scripted(plan: Plan, default: tuple[str | None, str | None] = ("yes", "0.9")):
    """(agent, round) -> (answer, confidence as written); None leaves that line out."""

    def reply(call: Call) -> str:
        answer, confidence = plan.get((call.agent, call.round), default)
        lines = [f"{tag(call.agent, call.round)} I weighed the evidence."]
        if confidence is not None:
            lines.append(f"CONFIDENCE: {confidence}")
        if answer is not None:
            lines.append(f"ANSWER: {answer}")
        return "\n".join(lines)

    return reply


DISAGREE = {(a, r): (ans, "0.9") for a, ans in zip(AGENTS, ("yes", "no", "no")) for r in range(9)}


def debate(reply, retries: int = 2, problem: Problem = YESNO, **options):
    return scripted_debate("reconcile", reply, problem, retries, **options)


@pytest.mark.parametrize(
    ("options", "calls", "path", "stop"),
    [
        ({}, 9, 3, "max_rounds"),  # 3 agents x (1 + the code's 2 discussion rounds), one a round
        ({"max_rounds": 3}, 12, 4, "max_rounds"),  # the paper's 3 discussion rounds
        ({"max_rounds": 1}, 6, 2, "max_rounds"),
        ({"max_rounds": 0}, 3, 1, "max_rounds"),
        ({"agents": 5, "max_rounds": 5}, 30, 6, "max_rounds"),  # seed 001's setting
    ],
)
async def test_golden_calls_and_critical_path_without_agreement(
    options: dict, calls: int, path: int, stop: str
) -> None:
    plan = {
        (f"agent_{i}", r): ("yes" if i == 1 else "no", "0.9") for i in range(1, 6) for r in range(9)
    }
    rt, result = await debate(scripted(plan), **options)
    assert (len(rt.calls), rt.critical_path) == (calls, path)
    rounds = calls // options.get("agents", 3)
    assert rt.spans == [f"round {t}" for t in range(1, rounds + 1)]
    assert rt.info_titles() == [*(f"round {t}" for t in range(1, rounds + 1)), "vote"]
    assert all(r.span == f"round {r.call.round}" for r in rt.recorded)
    assert all(c.role == c.agent for c in rt.calls)
    assert {c.purpose for c in rt.calls if c.round > 1} <= {"discussion"}
    assert result.rounds == rounds and result.record.stop_reason == stop
    assert result.record.discussion_rounds == rounds - 1


async def test_agreement_in_the_initial_answers_ends_at_once() -> None:
    rt, result = await debate(scripted({}))  # everyone: yes, 0.9
    assert (len(rt.calls), rt.critical_path) == (3, 1)
    assert result.final == "yes"
    assert (result.record.stop_reason, result.record.discussion_rounds) == ("agreement", 0)
    assert rt.info_titles() == ["round 1", "vote"]


async def test_agreement_after_a_discussion_round_ends_the_debate() -> None:
    plan = dict(DISAGREE)
    plan.update({(a, r): ("no", "0.8") for a in AGENTS for r in range(2, 9)})
    rt, result = await debate(scripted(plan))
    assert (len(rt.calls), rt.critical_path) == (6, 2)
    assert (result.final, result.rounds, result.record.stop_reason) == ("no", 2, "agreement")


async def test_an_abstention_is_not_agreement_and_never_votes() -> None:
    plan = {(a, r): ("yes", "0.9") for a in AGENTS for r in range(9)}
    plan.update({("agent_3", r): (None, "1.0") for r in range(9)})  # confident, but no answer
    rt, result = await debate(scripted(plan), retries=0, max_rounds=1)
    assert (len(rt.calls), rt.critical_path) == (6, 2)
    assert result.record.stop_reason == "max_rounds"
    assert result.record.vote == WeightedTally({"yes": 1.6}, "yes", False, 1)
    assert result.tally.abstentions == 1


async def test_follow_ups_for_an_unreadable_answer_count_as_calls() -> None:
    plan = {(a, r): ("yes", "0.9") for a in AGENTS for r in range(9)}
    plan[("agent_2", 1)] = (None, "0.9")
    rt, _ = await debate(scripted(plan), retries=2, max_rounds=1)
    # agent_2 asks twice more in round 1 and still abstains: no agreement, one discussion round
    assert (len(rt.calls), rt.critical_path) == (3 + 2 + 3, 4)
    assert [c.attempt for c in rt.calls_of("agent_2", 1)] == [0, 1, 2]


async def test_round_one_prompts_are_identical_and_ask_for_a_confidence() -> None:
    rt, _ = await debate(scripted(DISAGREE), max_rounds=1)
    first = [rt.first_call(a, 1) for a in AGENTS]
    assert len({c.messages for c in first}) == 1
    assert len(first[0].messages) == 1 and QUESTION in last_user(first[0])
    assert last_user(first[0]).startswith(QUESTION)  # the shared text first, for prompt caches
    assert "CONFIDENCE" in last_user(first[0])
    assert all(c.asks == AnswerRequest(YESNO.fmt, confidence=True) for c in first)


async def test_apart_shows_the_others_with_their_confidences_and_itself_only_as_its_own() -> None:
    confidences = {"agent_1": "0.95", "agent_2": "0.7", "agent_3": "85%"}
    plan = {
        (a, r): (ans, confidences[a]) for a, ans in zip(AGENTS, ("yes", "no", "no")) for r in (1, 2)
    }
    rt, _ = await debate(scripted(plan), max_rounds=1, own_reply="apart")
    for agent in AGENTS:
        call = rt.first_call(agent, 2)
        assert len(call.messages) == 1  # a fresh prompt: no history
        prompt = last_user(call)
        assert prompt.startswith(QUESTION)
        own, peers = prompt.split(PEERS_HEADING)
        assert OWN_HEADING in own and tag(agent, 1) in own
        assert tag(agent, 1) not in peers  # never shown to itself as a peer
        # the replies' confidence lines are left out: the headings state them
        assert not any(f"CONFIDENCE: {c}" in prompt for c in confidences.values())
        others = [a for a in AGENTS if a != agent]
        for peer in others:
            assert tag(peer, 1) in peers
            stated = {"0.95": "0.95", "0.7": "0.7", "85%": "0.85"}[confidences[peer]]
            assert f"(confidence {stated})" in peers
        shown = tuple({"agent_1": "yes", "agent_2": "no", "agent_3": "no"}[p] for p in others)
        assert sorted(call.asks.shown) == sorted(shown)  # the larger group first
        assert call.asks == AnswerRequest(YESNO.fmt, shown=call.asks.shown, confidence=True)
    # agent_1 reads the two no's as one group of 2 agents
    peers = last_user(rt.first_call("agent_1", 2)).split(PEERS_HEADING)[1]
    assert "=== 2 agents: answer no ===" in peers and "1 agent" not in peers
    # agent_2 reads one yes and one no; the group of its own answer holds only agent_3's reply
    peers = last_user(rt.first_call("agent_2", 2)).split(PEERS_HEADING)[1]
    assert "=== 1 agent: answer yes ===" in peers and "=== 1 agent: answer no ===" in peers


async def test_an_abstaining_peer_is_shown_as_giving_no_answer() -> None:
    plan = {(a, r): (ans, "0.9") for a, ans in zip(AGENTS, ("yes", "no", None)) for r in (1, 2)}
    rt, _ = await debate(scripted(plan), retries=0, max_rounds=1)
    view = last_user(rt.first_call("agent_1", 2)).split(ROUND_HEADING)[1]
    assert view.index("answer yes") < view.index("answer no") < view.index("no readable answer")
    assert "=== 1 agent: no readable answer ===" in view and tag("agent_3", 1) in view
    assert rt.first_call("agent_1", 2).asks.shown == ("no",)  # its own answer is not another's


async def test_by_default_every_agent_reads_one_shared_view_holding_its_own_reply() -> None:
    plan = {(a, r): (ans, "0.9") for a, ans in zip(AGENTS, ("yes", "no", "no")) for r in (1, 2)}
    rt, _ = await debate(scripted(plan), max_rounds=1)
    prompts = [last_user(rt.first_call(a, 2)) for a in AGENTS]
    assert len(set(prompts)) == 1  # the authors' code: one discussion text per question
    view = prompts[0]
    assert ROUND_HEADING in view and OWN_HEADING not in view and PEERS_HEADING not in view
    assert all(tag(a, 1) in view for a in AGENTS)  # each agent's own reply among the others
    # the larger group first, with how many agents gave it
    assert view.index("=== 2 agents: answer no ===") < view.index("=== 1 agent: answer yes ===")
    assert rt.first_call("agent_2", 2).asks.shown == ("no", "yes")  # the others', groups in order


CHOICE = Problem(Question.of([QUESTION]), Choice(["yes", "no", "maybe", "never"]))
THREE_WAY = {(a, 1): (ans, "0.8") for a, ans in zip(AGENTS, ("A", "B", "C"))}


@pytest.mark.parametrize("own_reply", ["among_others", "apart"])
async def test_top_two_drops_a_third_answer_from_every_prompt(own_reply: str) -> None:
    rt, _ = await debate(
        scripted(THREE_WAY), problem=CHOICE, max_rounds=1, retries=0, own_reply=own_reply
    )
    for agent in AGENTS:
        prompt = last_user(rt.first_call(agent, 2))
        # a tie in size: the answers given first in agent order are kept
        assert tag("agent_1", 1) in prompt and tag("agent_2", 1) in prompt
        view = prompt.split(PEERS_HEADING)[-1]  # `apart`: after its own reply, marked as such
        assert tag("agent_3", 1) not in view  # its own reply too, with `among_others`
        assert "=== 1 agent: answer C)" not in prompt
    if own_reply == "apart":
        own = last_user(rt.first_call("agent_3", 2)).split(PEERS_HEADING)[0]
        assert OWN_HEADING in own and tag("agent_3", 1) in own
    assert rt.first_call("agent_3", 2).asks.shown == ("A", "B")


async def test_all_shows_every_answer_as_the_paper_describes() -> None:
    rt, _ = await debate(scripted(THREE_WAY), problem=CHOICE, max_rounds=1, shown="all")
    for agent in AGENTS:
        prompt = last_user(rt.first_call(agent, 2))
        assert all(tag(a, 1) in prompt for a in AGENTS)
        assert prompt.count("=== 1 agent: answer ") == 3


def test_the_larger_groups_win_the_two_places_over_earlier_singletons() -> None:
    fmt = CHOICE.fmt
    replies = [
        (ConfidentAnswer(a, 1, ans, 0.9, 0.8), a)
        for a, ans in zip(("a1", "a2", "a3", "a4", "a5"), ("A", "B", "C", "C", None))
    ]
    groups = shown_groups(fmt, replies)
    assert [[text for _, text in g] for g in groups] == [["a3", "a4"], ["a1"], ["a5"]]
    everything = shown_groups(fmt, replies, "all")
    assert [[text for _, text in g] for g in everything] == [["a3", "a4"], ["a1"], ["a2"], ["a5"]]


async def test_the_final_answer_is_the_weighted_vote_of_the_last_round() -> None:
    plan = {(a, r): ("yes", "0.5") for a in AGENTS for r in (1,)}
    plan.update(
        {("agent_1", 2): ("yes", "1.0"), ("agent_2", 2): ("no", "0.85"), ("agent_3", 2): ("no", "")}
    )  # the last: an empty confidence line, unreadable, so the lowest bin
    plan[("agent_1", 1)] = ("no", "0.5")
    rt, result = await debate(scripted(plan), max_rounds=1)
    assert result.final == "yes"  # 1.0 against 0.5 + 0.1
    assert result.record.vote == WeightedTally({"yes": 1.0, "no": 0.6}, "yes", False, 0)
    assert result.tally.counts == {"yes": 1, "no": 2} and result.tally.winner == "yes"
    last = result.record.turns[-1]
    assert [(a.stated, a.weight) for a in last] == [(1.0, 1.0), (0.85, 0.5), (None, 0.1)]
    vote = dict(rt.infos)["vote"]
    assert "**Confidence-weighted vote** → **yes**" in vote and "max_rounds" in vote
    assert "missing" in dict(rt.infos)["round 2"]


async def test_a_tied_weighted_vote_is_marked_and_goes_to_agent_order() -> None:
    plan = {
        ("agent_1", 1): ("no", "0.95"),
        ("agent_2", 1): ("yes", "0.85"),
        ("agent_3", 1): ("yes", "0.65"),
    }
    _, result = await debate(scripted(plan), max_rounds=0)
    assert (result.final, result.tally.tie, result.record.vote.tie) == ("no", True, True)


async def test_choice_answers_and_the_record_round_trip() -> None:
    problem = Problem(Question.of([QUESTION]), Choice(["yes", "no", "maybe"]))
    plan = {(a, r): (ans, "0.9") for a, ans in zip(AGENTS, ("A", "B", "B")) for r in range(9)}
    _, result = await debate(scripted(plan), problem=problem, max_rounds=1)
    assert result.final == "B"
    back = DebateResult.from_dict(result.to_dict())
    assert back == result
    record = recorded(result)
    assert record["kind"] == "reconcile" and record["vote"]["weights"] == {"A": 0.8, "B": 1.6}
    assert result.options == {**ReconcileOptions(max_rounds=1).record()}


# -- inside an Inspect eval ---------------------------------------------------------------------------


def test_an_eval_on_the_simulated_model_records_the_vote_and_the_options(run) -> None:
    from inspect_ai import Task
    from inspect_ai.dataset import MemoryDataset, Sample

    from mad_tasks.solvers import reconcile as solver

    task = Task(dataset=MemoryDataset([Sample(input=QUESTION, target="yes")]), solver=solver())
    # one agent always wrong and never swayed: no agreement, so every round runs
    log = run(task, model="madsim/x", model_args={"accuracy": [0.0, 1.0, 1.0], "conformity": 0.0})
    [sample] = log.samples
    stored = sample.store["mad_tasks:debate"]
    assert sum(e.event == "model" for e in sample.events) == 9
    assert stored["record"]["stop_reason"] == "max_rounds"
    assert stored["record"]["vote"]["weights"].keys() == {"yes", "no"}
    assert stored["final"] == "yes"  # two agents' weight against one's
    assert stored["options"]["agents"] == 3 and stored["options"]["max_rounds"] == 2
    assert stored["options"]["shown"] == "top_two"
    assert stored["options"]["own_reply"] == "among_others"
    assert all(t["stated"] is not None for r in stored["record"]["turns"] for t in r)

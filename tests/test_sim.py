"""The simulated model `madsim`: replies repeat exactly for a fixed (model, seed, epoch, call, prompt)
and change with the epoch and `--seed`; a follow-up after an unreadable reply can recover; the
Tree-of-Debate requests get JSON their readers read, built from the requests' values."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessageUser, get_model
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine import prompts
from mad_tasks.engine.methods import d3, decision_prompts, personas
from mad_tasks.engine.methods.tod_judge import read_level, read_marks, read_preference
from mad_tasks.engine.protocols.tod import (
    json_object,
    keeps,
    read_argument,
    read_claims,
    read_expansion,
    read_relevance,
    read_response,
    read_subtopics,
    read_summary,
    sentences,
    wants_expansion,
)
from mad_tasks.engine.requests import (
    ArgumentRequest,
    ClaimsRequest,
    ExpandRequest,
    PreferenceRequest,
    RelevanceRequest,
    Request,
    RubricRequest,
    SubtopicsRequest,
    SummaryRequest,
)
from mad_tasks.engine.runtime import Call, Msg
from mad_tasks.inspect_runtime import current_call
from mad_tasks.scorers.debate_stats import debate_stats
from mad_tasks.scorers.tod import tod_pairwise
from mad_tasks.solvers.decision import voting
from mad_tasks.solvers.du_debate import du_debate
from mad_tasks.solvers.judges import more
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"
PAPER_PAIRS = Path(__file__).parent / "fixtures" / "paper_compare" / "pairs.tsv"
COIN = {"accuracy": 0.5, "conformity": 0.3}  # every draw matters


def debates(log: EvalLog) -> dict[tuple, list[tuple]]:
    """Per (sample, epoch): every agent's reply, in (agent, round) order."""
    return {
        (s.id, s.epoch): sorted(
            (a["agent"], a["round"], a["text"]) for a in s.store[STORE_KEY]["answers"]
        )
        for s in log.samples
    }


def task() -> Task:
    return strategyqa(data_path=str(STRATEGYQA))


def test_a_run_repeats_exactly(run) -> None:
    first = run(task(), model="madsim/x", model_args=COIN, limit=3, epochs=2, seed=5)
    again = run(task(), model="madsim/x", model_args=COIN, limit=3, epochs=2, seed=5)
    assert debates(first) == debates(again)


def test_epochs_differ(run) -> None:
    found = debates(run(task(), model="madsim/x", model_args=COIN, limit=3, epochs=3))
    samples = {sid for sid, _ in found}
    for e in (2, 3):
        assert any(found[(s, 1)] != found[(s, e)] for s in samples)


def test_the_eval_seed_changes_the_replies(run) -> None:
    one = debates(run(task(), model="madsim/x", model_args=COIN, limit=3, seed=1))
    two = debates(run(task(), model="madsim/x", model_args=COIN, limit=3, seed=2))
    assert one.keys() == two.keys() and one != two


def test_an_invalid_ballot_can_recover_on_its_follow_up(run) -> None:
    log = run(
        task(),
        solver=voting(vote_retries=10),
        model="madsim/x",
        model_args={"unparseable": 0.5},
        limit=3,
    )
    ballots = [
        b for s in log.samples for v in s.store[STORE_KEY]["record"]["votes"] for b in v["ballots"]
    ]
    followed_up = [b for b in ballots if b["retries"] > 0]
    assert followed_up, "no ballot needed a follow-up: the test exercises nothing"
    # a fresh draw per attempt: eleven failures in a row are a 1-in-2,000 event
    assert all(b["parsed"] is not None for b in followed_up)


@pytest.mark.parametrize("usage", ["maybe", 1, None])
def test_usage_must_be_true_or_false(usage) -> None:
    with pytest.raises(ValueError, match=r"madsim: usage must be true or false, got"):
        get_model("madsim/x", usage=usage)


# -- the simulated model answers what a call asks for, not how the prompt words it -------------------

# agent_1 always right, the others always wrong, everyone adopts what the others hold: every answer
# is determined, and a debate changes it only if the model sees what the call shows
DETERMINED = {"accuracy": [1.0, 0.0, 0.0], "conformity": 1.0}


def outcome(log: EvalLog, agents: str = "") -> dict[tuple, tuple]:
    """Per sample: the final answer and every answer of the agents whose name starts `agents`."""
    return {
        (s.id, s.epoch): (
            s.store[STORE_KEY]["final"],
            sorted(
                (a["agent"], a["round"], a["answer"])
                for a in s.store[STORE_KEY]["answers"]
                if a["agent"].startswith(agents)
            ),
        )
        for s in log.samples
    }


def test_a_reworded_du_debate_gets_the_same_answers(run, monkeypatch) -> None:
    before = run(task(), solver=du_debate(), model="madsim/x", model_args=DETERMINED, limit=3)
    monkeypatch.setattr(
        prompts, "step_by_step", lambda question, fmt, replaced: f"{question}\n\nYour view?"
    )
    monkeypatch.setattr(
        prompts,
        "debate_update",
        lambda peers, fmt, replaced: "Others: " + " / ".join(p.text for p in peers),
    )
    after = run(task(), solver=du_debate(), model="madsim/x", model_args=DETERMINED, limit=3)
    assert outcome(after) == outcome(before)
    # the first agent took the others' (wrong) answer in round 2: the peers were seen
    for _, answers in outcome(after).values():
        first = [answer for agent, _, answer in answers if agent == "agent_1"]
        assert first[0] != first[1]


def test_a_reworded_voting_debate_gets_the_same_answers_and_ballots(run, monkeypatch) -> None:
    def ballots(log: EvalLog) -> list[list]:
        return [
            [b["parsed"] for v in s.store[STORE_KEY]["record"]["votes"] for b in v["ballots"]]
            for s in log.samples
        ]

    solver = voting(protocol="cumulative", extraction="call")
    # every agent right: a voter whose answer no candidate holds would pick one at random
    right = {"accuracy": 1.0}
    before = run(task(), solver=solver, model="madsim/x", model_args=right, limit=2)
    monkeypatch.setattr(
        decision_prompts,
        "opening",
        lambda question, current, history: f"{question}\n\nOn the table: {current or '-'}",
    )
    monkeypatch.setattr(decision_prompts, "instruction", lambda style, improve, fmt, cot: "Go.")
    monkeypatch.setattr(
        decision_prompts, "extract", lambda question, text, fmt, conclude: f"Sum up: {text}"
    )
    monkeypatch.setattr(
        decision_prompts, "ballot", lambda question, candidates, rules: " | ".join(candidates)
    )
    monkeypatch.setattr(decision_prompts, "ballot_reminder", lambda rules: "Once more.")
    monkeypatch.setattr(personas, "persona_prompt", lambda question, made: f"Who? {question}")
    after = run(task(), solver=solver, model="madsim/x", model_args=right, limit=2)
    assert outcome(after) == outcome(before)
    assert ballots(after) == ballots(before)
    assert all(b and None not in b for b in ballots(after))  # every ballot was read


def test_a_reworded_judge_debate_gets_the_same_verdicts(run, monkeypatch) -> None:
    judged = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=3)
    solver = more(advocates=1, jurors=3)
    perfect = {"accuracy": 1.0}
    before = run(judged, solver=solver, model="madsim/x", model_args=perfect)
    monkeypatch.setattr(d3, "advocate_prompt", lambda pair, side, *a, **k: f"Defend {pair.a}")
    monkeypatch.setattr(d3, "merge_prompt", lambda pair, side, defences, words: "Merge.")
    monkeypatch.setattr(d3, "judge_prompt", lambda pair, a, b, progress="": f"Judge {a} {b}")
    monkeypatch.setattr(d3, "juror_prompt", lambda persona, transcript: f"Vote, {persona}.")
    after = run(judged, solver=solver, model="madsim/x", model_args=perfect)
    assert outcome(after, "juror") == outcome(before, "juror")
    verdicts = [final for final, _ in outcome(after).values()]
    assert all(v in ("A", "B", "tie") for v in verdicts)


# -- Tree-of-Debate: JSON built from each request's values ----------------------------------------


def sim(asks: Request, prompt: str = "p", **model_args) -> str:
    """madsim's reply to one call asking for `asks` (another prompt gives another draw)."""
    model = get_model("madsim/x", **model_args)
    call = Call("author_0", "author_0", (Msg("user", prompt),), "p", 1, asks=asks)

    async def generate() -> str:
        token = current_call.set(call)
        try:
            return (await model.generate([ChatMessageUser(content=prompt)])).completion
        finally:
            current_call.reset(token)

    return asyncio.run(generate())


def draws(asks: Request, n: int = 60, **model_args) -> list[str]:
    return [sim(asks, f"prompt {i}", **model_args) for i in range(n)]


def test_tod_claims_cite_only_the_excerpts_shown() -> None:
    for reply in draws(ClaimsRequest(1, "graph retrieval", evidence=4, most=3)):
        claims = json.loads(reply)["argument_list"]
        assert 1 <= len(claims) <= 3 and len(read_claims(reply, 4, 3)) == len(claims)
        assert all(c["evidence"] and set(c["evidence"]) <= {1, 2, 3, 4} for c in claims)
        assert all("graph retrieval" in c["argument_title"] for c in claims)
    for reply in draws(ClaimsRequest(0, "t", evidence=0, most=1), 10):  # No-SD: no excerpts
        [claim] = json.loads(reply)["argument_list"]
        assert claim["evidence"] == []


def test_tod_subtopics_map_to_the_claims_there_are() -> None:
    counts = set()
    for reply in draws(SubtopicsRequest("graph retrieval", claims=(3, 0), most=5)):
        subtopics = json.loads(reply)["subtopic_list"]
        counts.add(len(subtopics))
        assert len(read_subtopics(reply, (3, 0), 5)) == len(subtopics)
        for s in subtopics:
            assert s["author_1_relevant_contributions"] == []
            assert s["author_0_relevant_contributions"]  # at least one side maps
            assert set(s["author_0_relevant_contributions"]) <= {1, 2, 3}
    assert counts == {2, 3, 4}
    assert all(
        len(json.loads(r)["subtopic_list"]) == 1
        for r in draws(SubtopicsRequest("t", (2, 2), most=1), 10)  # No-Tree: one combined topic
    )


def test_tod_arguments_name_the_topic_and_sometimes_concede() -> None:
    topic = "passage graphs"
    presented = draws(ArgumentRequest(0, "present", topic))
    assert all(topic in read_argument(r, "present").title for r in presented)
    assert not any(read_argument(r, "present").concedes for r in presented)
    assert all(topic in read_response(r) for r in draws(ArgumentRequest(1, "respond", topic)))
    revised = [read_argument(r, "revise") for r in draws(ArgumentRequest(1, "revise", topic), 200)]
    conceded = sum(a.concedes for a in revised)
    assert 0 < conceded < 60 and all(topic in a.title for a in revised)


def test_tod_expansion_is_wanted_less_often_deeper_down() -> None:
    def rate(level: int) -> float:
        judged = [read_expansion(r) for r in draws(ExpandRequest("t", level), 200)]
        wanted = [
            wants_expansion("code", j.progression, j.questions, j.clear_winner) for j in judged
        ]
        return sum(wanted) / len(wanted)

    first, third = rate(1), rate(3)
    assert 0.4 < first < 0.8 and 0.05 < third < first / 2


def test_tod_relevance_keeps_some_segments() -> None:
    kept = [keeps(read_relevance(r)) for r in draws(RelevanceRequest("claim", "segment"))]
    assert 0.3 < sum(kept) / len(kept) < 0.9


def test_tod_summaries_have_five_sentences_or_more_and_the_tree_the_most() -> None:
    lengths = {}
    for source in ("tree", "papers", "paper", "summaries"):
        replies = draws(SummaryRequest(source), 20)
        assert all(len(sentences(read_summary(r))) >= 5 for r in replies)
        lengths[source] = sum(len(sentences(read_summary(r))) for r in replies)
    assert lengths["tree"] > max(lengths["papers"], lengths["summaries"], lengths["paper"])


def test_tod_grades_follow_accuracy() -> None:
    def marks(accuracy: float) -> list[int]:
        replies = draws(RubricRequest("factuality", 7), 20, accuracy=accuracy)
        return [m for r in replies for m in read_marks(r, 7).marks]

    def levels(accuracy: float) -> set[int]:
        return {read_level(r).level for r in draws(RubricRequest("breadth"), 20, accuracy=accuracy)}

    assert set(marks(1.0)) == {1} and set(marks(0.0)) == {0}
    assert 0.5 < sum(marks(0.7)) / 140 < 0.9
    # an always-right grader gives the top level, an always-wrong one the bottom, others between
    assert levels(1.0) == {4} and levels(0.0) == {0} and levels(0.5) == {1, 2, 3}


def test_tod_preferences_follow_accuracy_in_either_order() -> None:
    rich, poor = "Both differ in cost, data and speed here.", "Both differ."
    for accuracy, better in ((1.0, True), (0.0, False)):
        for a, b, richer in ((rich, poor, "A"), (poor, rich, "B")):
            picks = {
                read_preference(r).choice
                for r in draws(PreferenceRequest("breadth", a, b), 10, accuracy=accuracy)
            }
            assert picks == ({richer} if better else {"B" if richer == "A" else "A"})
    assert {read_preference(r).choice for r in draws(PreferenceRequest("x", rich, rich), 5)} == {
        "tie"
    }


TOD_REQUESTS = [
    ClaimsRequest(0, "t", 3, 3),
    RelevanceRequest("c", "s"),
    SubtopicsRequest("t", (2, 2), 5),
    ArgumentRequest(0, "present", "t"),
    ExpandRequest("t", 1),
    SummaryRequest("tree"),
    RubricRequest("breadth"),
    PreferenceRequest("breadth", "a", "b"),
]


@pytest.mark.parametrize("asks", TOD_REQUESTS, ids=lambda a: type(a).__name__)
def test_tod_replies_repeat_and_unparseable_ones_hold_no_json(asks: Request) -> None:
    assert sim(asks, "same") == sim(asks, "same")
    assert json_object(sim(asks, "same")) is not None
    assert all(json_object(r) is None for r in draws(asks, 5, unparseable=1.0))


def test_tree_of_debate_runs_end_to_end_with_every_scorer(run) -> None:
    task = paper_compare(data_path=str(PAPER_PAIRS))
    task.scorer = [*task.scorer, *tod_pairwise(), *debate_stats()]
    log = run(task, model="madsim/x")
    for score in log.results.scores:
        assert score.unscored_samples == 0, score.name
    expansions = [s.scores["expansions"].value for s in log.samples]
    assert sum(expansions) >= 2 and max(s.scores["depth"].value for s in log.samples) >= 2
    assert all(s.output.completion for s in log.samples)

"""The simulated model `madsim`: replies repeat exactly for a fixed (model, seed, epoch, call, prompt)
and change with the epoch and `--seed`; a follow-up after an unreadable reply can recover; the
Tree-of-Debate requests get JSON their readers read, built from the requests' values."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog
from inspect_ai.model import ChatMessageUser, get_model
from inspect_ai.scorer import Target
from testdata import FIXTURES, MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine import prompts
from mad_tasks.engine.answers import YesNo
from mad_tasks.engine.content import Msg
from mad_tasks.engine.methods.cortex.similarity import read_similarity
from mad_tasks.engine.methods.d3 import court as d3
from mad_tasks.engine.methods.decision import personas
from mad_tasks.engine.methods.decision import prompts as decision_prompts
from mad_tasks.engine.methods.tod.judge import read_level, read_marks, read_preference
from mad_tasks.engine.protocols.pd3 import read_picks, read_result, read_score
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
    ConclusionRequest,
    DuplicationRequest,
    ExpandRequest,
    PicksRequest,
    PreferenceRequest,
    RelevanceRequest,
    Request,
    RubricRequest,
    SimilarityRequest,
    SubtopicsRequest,
    SummaryRequest,
)
from mad_tasks.engine.runtime import Call
from mad_tasks.inspect_runtime import current_call
from mad_tasks.models import sim as sim_module
from mad_tasks.scorers.debate_stats import debate_stats
from mad_tasks.scorers.pd3 import dup_pairwise, retrieval_at_k
from mad_tasks.scorers.tod import tod_pairwise
from mad_tasks.solvers import (
    du_debate,
    listwise,
    llm_voting,
    more,
    pd3,
    pd3_feedback,
    reconcile,
    voting,
)
from mad_tasks.tasks.gsm_ic import gsm_ic
from mad_tasks.tasks.mmlu import mmlu
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


def test_samples_without_a_target_get_one_warning_in_the_run_not_one_per_call(run) -> None:
    """The warning is a logger event of the sample that met it first (Inspect's console and
    viewer show it), once for the run's model; every agent abstains."""
    samples = [Sample(input=f"Is {n} a prime number?", target="") for n in (4, 7, 9)]
    log = run(Task(dataset=MemoryDataset(samples), solver=du_debate()), model="madsim/x")
    warned = [
        e.message.message
        for s in log.samples
        for e in s.events
        if e.event == "logger" and e.message.level == "warning"
    ]
    why = "(the sample has no target and no `answers` file was given)"
    assert len(warned) == 1 and f"madsim/x knows no gold answer for a question {why}" in warned[0]
    answers = [a for s in log.samples for a in s.store[STORE_KEY]["answers"]]
    assert len(answers) == 3 * 6 and all(a["answer"] is None for a in answers)


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


@pytest.mark.parametrize(
    ("make", "ends"),
    [
        (lambda: mmlu(data_path=str(FIXTURES / "mmlu.jsonl")), r"\n\n\([A-D]\)"),
        (lambda: gsm_ic(data_path=str(FIXTURES / "gsm_ic.jsonl")), r"\n\n\\boxed\{[0-9]+\}"),
    ],
)
def test_madsim_answers_in_the_authors_form_asked_for(run, make, ends: str) -> None:
    """`-S answer_form=authors`: every reply states its answer in the form asked (Du et al.'s
    `(X)` on a choice, `\\boxed{}` on a number), the form's reader reads it, and a sure model is
    right."""
    solver = du_debate(answer_form="authors")
    log = run(make(), solver=solver, model="madsim/x", model_args={"accuracy": 1.0}, limit=2)
    assert len(log.samples) == 2
    for s in log.samples:
        answers = s.store[STORE_KEY]["answers"]
        assert len(answers) == 6
        for a in answers:
            assert re.fullmatch(rf"Simulated reasoning of agent_[1-3]: [^\n]*\.{ends}", a["text"])
            assert a["answer"] == s.target and "ANSWER" not in a["text"]
        assert s.store[STORE_KEY]["final"] == s.target


def test_madsim_answers_alike_in_the_project_and_the_authors_form(run) -> None:
    """ReConcile's object, confidences included, carries the same answers as the ANSWER line:
    with every answer determined, the debates end alike."""
    project = run(task(), solver=reconcile(), model="madsim/x", model_args=DETERMINED, limit=3)
    authors = run(
        task(),
        solver=reconcile(answer_form="authors"),
        model="madsim/x",
        model_args=DETERMINED,
        limit=3,
    )
    assert outcome(authors) == outcome(project)
    replies = [a["text"] for s in authors.samples for a in s.store[STORE_KEY]["answers"]]
    assert replies and all(json.loads(r)["confidence_level"] > 0 for r in replies)


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
    monkeypatch.setattr(d3, "judge_prompt", lambda pair, a, b, progress="", **_: f"Judge {a} {b}")
    monkeypatch.setattr(d3, "juror_prompt", lambda persona, transcript, *_: f"Vote, {persona}.")
    after = run(judged, solver=solver, model="madsim/x", model_args=perfect)
    assert outcome(after, "juror") == outcome(before, "juror")
    verdicts = [final for final, _ in outcome(after).values()]
    assert all(v in ("A", "B", "tie") for v in verdicts)


# -- Tree-of-Debate: JSON built from each request's values ----------------------------------------


def sim(asks: Request, prompt: str = "p", agent: str = "author_0", **model_args) -> str:
    """madsim's reply to one call of `agent` asking for `asks` (another prompt gives another
    draw)."""
    model = get_model("madsim/x", **model_args)
    call = Call(agent, agent, (Msg("user", prompt),), "p", 1, asks=asks)

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
        assert score.unscored_samples == 0
    # madsim/x has no price here: the task's `cost` scorer left every sample without one, so its
    # heading in the results has no value (never NaN)
    [cost] = [s for s in log.results.scores if s.name == "cost"]
    assert (cost.metrics, cost.scored_samples) == ({}, 0)
    assert not any("cost" in s.scores for s in log.samples)
    expansions = [s.scores["expansions"].value for s in log.samples]
    assert sum(expansions) >= 2 and max(s.scores["depth"].value for s in log.samples) >= 2
    assert all(s.output.completion for s in log.samples)


# -- PD³: picks by label, duplication scores from the sample's gold, grades or votes ---------------

PD3_IDS = tuple(f"{1000 + i}" for i in range(20))  # a group's corpus ids
PD3_LABELS = tuple(f"P{300 + 7 * i}" for i in range(20))  # the labels the prompt shows
PD3_GOLD = ["1003", "1011", "1017", "1200", "1201"]  # three of them in the group
LABEL_OF = dict(zip(PD3_IDS, PD3_LABELS, strict=True))


def running(monkeypatch, target: list[str] | str, **metadata) -> None:
    """madsim sees a running sample with this target and metadata."""
    state = SimpleNamespace(target=Target(target), metadata=metadata, epoch=1, input_text="")
    monkeypatch.setattr(sim_module, "sample_state", lambda: state)


def decisions(n: int = 1, agent: str = "group 1 senior", **model_args) -> list[tuple[str, ...]]:
    asks = PicksRequest(PD3_IDS, PD3_LABELS, 5, final=True)
    return [read_result(sim(asks, f"p{i}", agent, **model_args), PD3_LABELS) for i in range(n)]


def test_pd3_an_accurate_decider_picks_every_gold_candidate_shown_first(monkeypatch) -> None:
    running(monkeypatch, PD3_GOLD)
    gold = [LABEL_OF[i] for i in ("1003", "1011", "1017")]
    for picks in decisions(20, accuracy=1.0):
        assert len(picks) == 5 and list(picks[:3]) == gold and not set(picks[3:]) & set(gold)
    for picks in decisions(20, accuracy=0.0):
        assert len(picks) == 5 and not set(picks) & set(gold)
    kept = [p for picks in decisions(100, accuracy=0.7) for p in picks if p in gold]
    assert 0.6 < len(kept) / 300 < 0.8
    assert decisions(1, seed=3) == decisions(1, seed=3) != decisions(1, seed=4)


def test_pd3_experts_name_their_picks_by_label_and_only_a_decision_has_a_result(
    monkeypatch,
) -> None:
    running(monkeypatch, PD3_GOLD)
    for round in (0, 2):
        reply = sim(PicksRequest(PD3_IDS, PD3_LABELS, 5, round), accuracy=1.0)
        assert read_result(reply, PD3_LABELS) is None and "1003" not in reply
        picks = read_picks(reply, PD3_LABELS)
        assert len(picks) == 5 and picks[0] == LABEL_OF["1003"]
        assert ("debate round 2" in reply) == (round == 2)
    # per-agent accuracy by the expert's number; the senior is agent 1's
    wrong = {LABEL_OF[i] for i in ("1003", "1011", "1017")}
    assert not set(decisions(5, "group 4 expert 2", accuracy=[1.0, 0.0])[0]) & wrong
    assert set(decisions(5, "group 4 senior", accuracy=[1.0, 0.0])[0]) >= wrong


def test_pd3_picks_hold_what_is_shown_or_nothing(monkeypatch) -> None:
    running(monkeypatch, PD3_GOLD)
    few = PicksRequest(PD3_IDS[:3], PD3_LABELS[:3], 5, final=True)
    assert sorted(read_result(sim(few), PD3_LABELS)) == sorted(PD3_LABELS[:3])
    assert decisions(10, unparseable=1.0) == [None] * 10
    monkeypatch.setattr(sim_module, "sample_state", lambda: None)  # no running sample
    assert decisions(1) == [None]


def scores(ids: tuple[str, ...], n: int = 1, **model_args) -> list[int | None]:
    return [read_score(sim(DuplicationRequest(ids), f"p{i}", **model_args)) for i in range(n)]


def test_pd3_the_judge_scores_more_gold_higher(monkeypatch) -> None:
    running(monkeypatch, PD3_GOLD)
    five_gold, none = ("1003", "1011", "1017", "1200", "1201"), PD3_IDS[:3] + PD3_IDS[4:6]
    assert scores(five_gold, 10, accuracy=1.0) == [10] * 10
    assert scores(none, 10, accuracy=1.0) == [1] * 10
    two = scores(("1003", "1011", "1000", "1001", "1002"), 200, accuracy=1.0)  # 1 + 9 x 2/5
    assert set(two) == {4, 5} and 4.4 < sum(two) / 200 < 4.8
    noisy = scores(five_gold, 100, accuracy=0.5)
    # half exact, half mirrored (11 - 10): an always-wrong judge reverses the scale
    assert set(noisy) == {1, 10} and 35 < noisy.count(10) < 65
    assert scores(five_gold, 10, accuracy=0.0) == [1] * 10
    assert scores(five_gold, 10, unparseable=1.0) == [None] * 10
    conclusion = sim(ConclusionRequest(("1003", "1011", "1000", "1001", "1002")))
    assert "2 of the 5 reference projects" in conclusion


def test_pd3_the_judge_reads_grades_where_the_sample_has_them(monkeypatch) -> None:
    grades = {"1000": 3, "1001": 3, "1002": 0, "1003": 0, "1004": 0}
    running(monkeypatch, PD3_GOLD, grades=grades)  # the grades, not the gold ids, count
    graded = scores(PD3_IDS[:5], 100, accuracy=1.0)  # 1 + 9 x 2/5
    assert set(graded) == {4, 5} and 4.4 < sum(graded) / 100 < 4.8
    assert scores(("1003", "1011", "1017", "1200", "1201"), 5, accuracy=1.0) == [1] * 5


def side(ids: tuple[str, ...], grades: list[int] | None = None) -> dict:
    refs = [{"id": i, "title": f"Project {i}", "text": "t"} for i in ids]
    return {"refs": refs, **({"grades": dict(zip(ids, grades))} if grades else {})}


def test_pd3_the_more_duplicated_side_of_a_pair_scores_higher(monkeypatch) -> None:
    a, b = PD3_IDS[:5], PD3_IDS[5:10]
    # levels 12 and 11: a one-grade gap, the hardest a pair has
    running(monkeypatch, "A", a=side(a, [3, 3, 2, 2, 2]), b=side(b, [3, 2, 2, 2, 2]), votes=[2, 1])
    high, low = scores(a, 300, accuracy=0.8), scores(b, 300, accuracy=0.8)
    assert sum(high) / 300 > sum(low) / 300 + 0.3
    # without grades, the votes: 3 to 0 is the top against the bottom
    running(monkeypatch, "B", a=side(a), b=side(b), votes=[0, 3])
    assert scores(a, 5, accuracy=1.0) == [1] * 5 and scores(b, 5, accuracy=1.0) == [10] * 5
    # references of neither side: the middle, 5 or 6
    assert set(scores(PD3_IDS[10:15], 50, accuracy=1.0)) == {5, 6}


def project(id: str) -> dict[str, str]:
    return {"id": id, "title": f"Project {id}", "text": f"The aims and methods of project {id}."}


def dedup_sample(qid: str, gold: list[str]) -> Sample:
    candidates = [project(f"{qid}-{i}") for i in range(30)]
    return Sample(
        id=qid,
        input=f"Project {qid}: its aims and methods.",
        target=gold,
        metadata={"query_id": qid, "query": project(qid), "candidates": candidates},
    )


@pytest.mark.parametrize(
    "make, accuracy, value, calls",
    [(pd3, 1.0, 1.0, 150), (pd3, 0.0, 0.0, 150), (listwise, 1.0, 1.0, 1), (llm_voting, 0.0, 0.0, 15)],
    ids=["pd3-right", "pd3-wrong", "listwise-right", "llm_voting-wrong"],
)  # fmt: skip
def test_pd3_solvers_run_end_to_end_and_follow_accuracy(
    run, make, accuracy: float, value: float, calls: int
) -> None:
    gold = ["q1-3", "q1-8", "q1-14", "q1-22", "q1-29"]
    task = Task(dataset=MemoryDataset([dedup_sample("q1", gold)]), solver=make(),
                scorer=[retrieval_at_k(), *debate_stats()])  # fmt: skip
    log = run(task, model="madsim/x", model_args={"accuracy": accuracy})
    [sample] = log.samples
    assert sample.scores["retrieval_at_k"].value == value
    assert sample.scores["calls"].value == calls
    if value:
        assert sorted(sample.scores["retrieval_at_k"].answer.split(", ")) == sorted(gold)


def test_pd3_feedback_predicts_the_more_duplicated_side(run) -> None:
    refs = {s: [project(f"{s}-{i}") for i in range(5)] for s in "ab"}
    sides = {
        s: {"query_id": s, "query": project(s), "refs": refs[s],
            "grades": {r["id"]: g for r, g in zip(refs[s], grades)}}
        for s, grades in (("a", [1, 0, 0, 0, 0]), ("b", [3, 3, 3, 2, 2]))
    }  # fmt: skip
    sample = Sample(id="a-vs-b", input="Which project do its references duplicate more?",
                    target="B", metadata={**sides, "votes": [0, 3]})  # fmt: skip
    task = Task(dataset=MemoryDataset([sample]), solver=pd3_feedback(), scorer=dup_pairwise())
    [scored] = run(task, model="madsim/x", model_args={"accuracy": 1.0}).samples
    assert scored.output.completion == "B"
    assert scored.scores["dup_origin"].value == 1.0 and scored.scores["dup_weighted"].value == 1.0


def test_a_pd3_run_repeats_exactly_and_the_seed_changes_it(run) -> None:
    task = Task(dataset=MemoryDataset([dedup_sample("q1", ["q1-3", "q1-8", "q1-14"])]),
                solver=pd3())  # fmt: skip

    def votes(seed: int) -> dict[str, int]:
        [sample] = run(task, model="madsim/x", model_args=COIN, seed=seed).samples
        return sample.store[STORE_KEY]["record"]["votes"]

    assert votes(5) == votes(5) != votes(6)


def test_a_similarity_rating_is_high_for_the_same_answer_and_low_otherwise() -> None:
    """CortexDebate's prompted similarity: 0.7 to 1 when both replies give the same answer (as
    the format keys them), 0 to 0.4 when they differ or one has none; unreadable on demand."""
    fmt = YesNo()
    same = [
        read_similarity(sim(SimilarityRequest(fmt, ("yes", "yes")), f"p{i}")) for i in range(20)
    ]
    other = [
        read_similarity(sim(SimilarityRequest(fmt, ("yes", "no")), f"p{i}")) for i in range(20)
    ]
    none = read_similarity(sim(SimilarityRequest(fmt, ("yes", None))))
    assert all(s is not None and 0.7 <= s <= 1 for s in same)
    assert all(s is not None and s <= 0.4 for s in [*other, none])
    assert read_similarity(sim(SimilarityRequest(fmt, ("yes", "yes")), unparseable=1.0)) is None

"""The simulated model `madsim`: replies repeat exactly for a fixed (model, seed, epoch, call, prompt)
and change with the epoch and `--seed`; a follow-up after an unreadable reply can recover."""

from __future__ import annotations

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine import prompts
from mad_tasks.engine.methods import d3, decision_prompts, personas
from mad_tasks.solvers.decision import voting
from mad_tasks.solvers.du_debate import du_debate
from mad_tasks.solvers.judges import more
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"
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

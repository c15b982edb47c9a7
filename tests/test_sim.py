"""The simulated model `madsim`: replies repeat exactly for a fixed (model, seed, epoch, call, prompt)
and change with the epoch and `--seed`; a follow-up after an unreadable reply can recover."""

from __future__ import annotations

import pytest
from inspect_ai import Task
from inspect_ai.log import EvalLog
from inspect_ai.model import get_model
from testdata import STRATEGYQA

from mad_tasks.solvers.decision import voting
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
        b for s in log.samples for v in s.store[STORE_KEY]["details"]["votes"] for b in v["ballots"]
    ]
    followed_up = [b for b in ballots if b["retries"] > 0]
    assert followed_up, "no ballot needed a follow-up: the test exercises nothing"
    # a fresh draw per attempt: eleven failures in a row are a 1-in-2,000 event
    assert all(b["parsed"] is not None for b in followed_up)


@pytest.mark.parametrize("usage", ["maybe", 1, None])
def test_usage_must_be_true_or_false(usage) -> None:
    with pytest.raises(ValueError, match=r"madsim: usage must be true or false, got"):
        get_model("madsim/x", usage=usage)

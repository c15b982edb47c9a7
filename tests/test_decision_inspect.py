"""The decision-protocol solvers and `decision_stats` inside real Inspect evals (madsim / mockllm)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task, score
from inspect_ai._util.registry import registry_info, registry_lookup
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample, read_eval_log
from inspect_ai.model import ChatMessage, Model, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice, match
from testdata import STRATEGYQA as STRATEGYQA_DEV

from mad_tasks.scorers.answers import final_answer
from mad_tasks.scorers.debate_stats import debate_stats
from mad_tasks.scorers.decision_stats import decision_stats
from mad_tasks.solvers import aad, collective_improvement, consensus, voting
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"
INSPECT = Path(sys.executable).parent / "inspect"


def scored(task_solver, limit: int = 3) -> Task:
    """StrategyQA with the debate solver, the answer scorer and the debate and decision figures."""
    task = strategyqa(data_path=str(STRATEGYQA_DEV), subset=limit)
    return Task(
        dataset=task.dataset, setup=task.setup, solver=task_solver,
        scorer=[final_answer(), *debate_stats(), *decision_stats()],
    )  # fmt: skip


def figures(log: EvalLog) -> dict[str, float]:
    """Every figure's mean by its name, and every other metric by its own."""
    return {
        s.name if name == "mean" else name: m.value
        for s in log.results.scores
        for name, m in s.metrics.items()
    }


def metrics(log: EvalLog, scorer: str) -> dict[str, float]:
    return {
        name: m.value
        for s in log.results.scores
        if s.name == scorer
        for name, m in s.metrics.items()
    }


def info(sample: EvalSample) -> dict[str, str]:
    def text(data) -> str:
        if isinstance(data, str) and data.startswith("attachment://"):
            return sample.attachments[data.removeprefix("attachment://")]
        return data

    return {e.source: text(e.data) for e in sample.events if e.event == "info"}


def spans(sample: EvalSample) -> list[str]:
    return [e.name for e in sample.events if e.event == "span_begin" and e.type == "stage"]


SOLVERS = [
    *[(f"voting/{p}", voting(protocol=p)) for p in ("simple", "ranked", "cumulative", "approval")],
    ("voting/counting", voting(protocol="counting")),
    *[
        (f"consensus/{p}", consensus(protocol=p))
        for p in ("majority", "supermajority", "unanimity")
    ],
    ("aad", aad()),
    ("aad/unanimity", aad(protocol="unanimity")),
    ("collective_improvement", collective_improvement(protocol="cumulative")),
]


@pytest.mark.parametrize("name, solver", SOLVERS, ids=[n for n, _ in SOLVERS])
def test_every_protocol_scores_every_sample_with_a_readable_record(run, name, solver) -> None:
    log = run(scored(solver), model="madsim/x")
    assert len(log.samples) == 3
    stats = figures(log)
    assert 0.0 <= stats["decision_success"] <= 1.0
    assert sum(v for k, v in stats.items() if k.startswith("turn_")) == pytest.approx(1.0)
    for sample in log.samples:
        assert sample.scores["final_answer"].value in ("C", "I")
        d = sample.store[STORE_KEY]["record"]
        assert d["personas"] and d["transcript"]
        assert d["turns_used"] == max(t["turn"] for t in d["transcript"])
        events = info(sample)
        assert "personas" in events and "decision" in events
        assert [s for s in spans(sample) if s.startswith("turn")] == [
            f"turn {t}" for t in range(1, d["turns_used"] + 1)
        ]
        if name.startswith("consensus") or name == "aad/unanimity":
            assert d["consensus_checks"] and not d["votes"]
        else:
            assert [v["turn"] for v in d["votes"]] == list(range(3, d["turns_used"] + 1))
            vote = d["votes"][-1]
            table = events[f"vote after turn {vote['turn']}"]
            assert "```text\nsolution  answer" in table  # a padded table, solutions from 1
            if name != "voting/counting":
                assert "```text\nvoter    ballot (last reply)" in table
                assert len(vote["ballots"]) == 3
        if d["decision_success"]:
            assert sample.output.completion == f"ANSWER: {sample.store[STORE_KEY]['final']}"


def test_decision_stats_metrics_match_the_records(run) -> None:
    log = run(scored(voting(protocol="approval"), limit=4), model="madsim/x")
    stats = figures(log)
    records = [s.store[STORE_KEY] for s in log.samples]
    details = [r["record"] for r in records]
    n = len(records)
    assert stats["decision_success"] == pytest.approx(
        sum(d["decision_success"] for d in details) / n
    )
    assert stats["turns"] == pytest.approx(sum(d["turns_used"] for d in details) / n)
    assert stats["calls"] == pytest.approx(sum(len(r["calls"]) for r in records) / n)
    votes = [v for d in details for v in d["votes"]]
    assert stats["tie_rate"] == pytest.approx(sum(v["tie"] for v in votes) / len(votes))
    for t in range(1, 6):
        share = sum(d["turns_used"] == t for d in details) / n
        assert stats.get(f"turn_{t}", 0.0) == pytest.approx(share)
    assert set(stats) >= {"invalid_ballot_rate", "input_tokens", "answer_cosine", "turn_5"}
    scores = log.samples[0].scores
    assert scores["decision_success"].metadata["protocol"] == "approval"
    assert scores["calls"].value == len(records[0]["calls"])


def test_decision_stats_rescore_a_log_with_another_embedder(run) -> None:
    log = run(scored(consensus()), model="madsim/x")
    rescored = score(log, scorers=decision_stats(embedder="hashing/64"), action="overwrite")
    for sample in rescored.samples:
        assert sample.scores["answer_cosine"].metadata["embedder"] == "hashing-64"
    assert "decision_success" in figures(rescored)


def test_decision_stats_leaves_other_solvers_unscored(run) -> None:
    from mad_tasks.solvers import du_debate

    log = run(scored(du_debate()), model="madsim/x")
    assert all(
        s.scores["decision_success"].value != s.scores["decision_success"].value
        for s in log.samples
    )


# -- drop-in use --------------------------------------------------------------------------------------

MC = [
    ("What is the capital of France?", ["London", "Paris", "Rome"], "B"),
    ("Which planet is the largest?", ["Jupiter", "Mars", "Venus", "Earth"], "A"),
]


# madsim's agents vote for their own candidate first, so three agents holding one answer tie in
# every vote; the paper's fallback (no_decision=first_agent) then gives that answer, MALLM's
# (the default) none
@pytest.mark.parametrize(
    "solver",
    [
        voting(no_decision="first_agent"),
        consensus(),
        collective_improvement(no_decision="first_agent"),
    ],
)
def test_drop_in_multiple_choice_marks_the_choice(run, solver) -> None:
    samples = [Sample(input=q, choices=o, target=t, id=i) for i, (q, o, t) in enumerate(MC)]
    task = Task(dataset=MemoryDataset(samples), scorer=choice())
    log = run(task, solver=solver, model="madsim/x", model_args={"accuracy": 1.0})
    assert metrics(log, "choice")["accuracy"] == 1.0
    for sample in log.samples:
        assert sample.store[STORE_KEY]["options"]["answer_format"] == "choice"


def test_free_text_answers_debate_and_vote(run) -> None:
    task = Task(
        dataset=MemoryDataset([Sample(input="Which city hosts the Louvre?", target="Paris")]),
        scorer=match(),
    )
    log = run(
        task,
        solver=voting(answer_format="text", no_decision="first_agent"),  # madsim ties: above
        model="madsim/x",
        model_args={"accuracy": 1.0},
    )
    [sample] = log.samples
    assert sample.store[STORE_KEY]["final"] == "Paris"
    assert metrics(log, "match")["accuracy"] == 1.0


def messy_model() -> Model:
    """A small model's kind of output: no JSON personas, answers in prose, ballots with chatter."""

    def reply(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        prompt = input[-1].text
        if "JSON object" in prompt and "participant" in prompt:
            text = "A person who knows things."
        elif "Solution 0:" in prompt and "number of the one solution" in prompt:
            text = "Solution 1 is the best, so I vote 1."
        elif "Contribution:" in prompt:
            text = "Yes."
        elif "Current solution:" in prompt:
            text = "I agree, yes seems right to me."
        else:
            text = "Hmm, thinking about it, probably yes."
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    return get_model("mockllm/model", custom_outputs=reply)


def test_messy_output_is_still_read_and_scored(run) -> None:
    log = run(scored(voting(), limit=2), model=messy_model())
    for sample in log.samples:
        d = sample.store[STORE_KEY]["record"]
        assert all(not p["generated"] for p in d["personas"].values())  # fallback participants
        assert d["transcript"][0]["extraction"] == "call"  # the prose answer needed extraction
        assert all(t["solution"] == "yes" for t in d["transcript"])
        assert [b["parsed"] for b in d["votes"][0]["ballots"]] == [1, 1, 1]
        assert sample.scores["final_answer"].value in ("C", "I")
        assert sample.output.completion == "ANSWER: yes"


def test_cache_rerun_makes_no_model_calls(run, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("INSPECT_CACHE_DIR", str(tmp_path / "cache"))
    first = run(scored(voting(protocol="ranked"), limit=1), model="madsim/x", cache=True)
    second = run(scored(voting(protocol="ranked"), limit=1), model="madsim/x", cache=True)
    [a], [b] = first.samples, second.samples
    events = [e.cache for e in b.events if e.event == "model"]
    assert events and set(events) == {"read"}
    assert b.store[STORE_KEY]["record"] == a.store[STORE_KEY]["record"]


# -- names and options ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["voting", "consensus", "aad", "collective_improvement"])
def test_short_and_prefixed_names_resolve(name: str) -> None:
    import mad_tasks._registry  # noqa: F401

    for lookup in (name, f"mad_tasks/{name}"):
        assert registry_info(registry_lookup("solver", lookup)()).name == f"mad_tasks/{name}"


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: voting(protocol="majority"), "'protocol': got 'majority', allowed: simple"),
        (lambda: consensus(protocol="simple"), "'protocol': got 'simple', allowed: majority"),
        (lambda: collective_improvement(protocol="unanimity"), "'protocol'.*voting protocols"),
        (lambda: voting(vote_turn=6), "'vote_turn'"),
        (lambda: voting(memory_window="most"), "'memory_window'"),
        (lambda: voting(embedder="word2vec"), "'embedder'"),
        (lambda: aad(style="shouty"), "'style'"),
    ],
)
def test_bad_options_raise_before_any_call(make, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


def test_memory_window_full_means_the_whole_history(run) -> None:
    log = run(scored(voting(memory_window="full"), limit=1), model="madsim/x")
    assert log.samples[0].store[STORE_KEY]["options"]["memory_window"] is None


def inspect_eval(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    command = [
        str(INSPECT), "eval", "mad_tasks/strategyqa", "--model", "madsim/x",
        "-T", f"data_path={STRATEGYQA_DEV}", "--limit", "2",
        "--log-dir", str(tmp_path / "logs"), "--display", "none", *args,
    ]  # fmt: skip
    return subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False
    )


@pytest.mark.slow
def test_cli_voting_by_short_name_with_options(tmp_path: Path) -> None:
    done = inspect_eval(tmp_path, "--solver", "voting", "-S", "protocol=ranked", "-S", "agents=4")
    assert done.returncode == 0, done.stderr
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success"
    assert [s.solver for s in log.plan.steps] == ["prompt_template", "mad_tasks/voting"]
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        assert record["options"]["protocol"] == "ranked" and record["options"]["agents"] == 4
        assert len(record["record"]["votes"][0]["ballots"]) == 4

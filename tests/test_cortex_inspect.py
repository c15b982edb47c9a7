"""`cortex` inside real Inspect evals: five roles on five models, the log, the stats scorer, options.

Models are scripted: the project's `madsim` API (which answers CortexDebate prompts with an
explanation, a confidence and an answer) or `mockllm/model` with a callable that sets token usage.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample, read_eval_log, resolve_sample_attachments
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice
from testdata import STRATEGYQA as STRATEGYQA_DEV

from mad_tasks.engine.protocols.cortex import credibility
from mad_tasks.scorers.answers import final_answer
from mad_tasks.scorers.cortex_stats import cortex_stats
from mad_tasks.solvers import cortex, du_debate
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"
INSPECT = Path(sys.executable).parent / "inspect"
AGENTS = [f"agent_{i}" for i in range(1, 6)]
FIVE_MODELS = {"agent_2": "madsim/y", "agent_3": "madsim/z", "agent_4": "madsim/w", "agent_5": "madsim/v"}  # fmt: skip


def model_events(sample: EvalSample) -> list:
    return [e for e in sample.events if e.event == "model"]


def enclosing_round(sample: EvalSample, event) -> str | None:
    spans = {e.id: e for e in sample.events if e.event == "span_begin"}
    span = spans.get(event.span_id)
    while span is not None and not span.name.startswith("round "):
        span = spans.get(span.parent_id)
    return span.name if span is not None else None


def stats_task(limit: int = 4) -> Task:
    """StrategyQA with the CortexDebate statistics scorer beside the answer scorer."""
    base = strategyqa(data_path=str(STRATEGYQA_DEV), subset=limit)
    return Task(dataset=base.dataset, setup=base.setup, scorer=[final_answer(), *cortex_stats()])


def metric(log: EvalLog, name: str) -> float:
    """The mean of one `cortex_stats` figure over the samples."""
    [found] = [s for s in log.results.scores if s.name == name]
    return found.metrics["mean"].value


# -- five agents on five models ---------------------------------------------------------------------


def test_five_roles_on_five_models_debate_and_are_logged(run) -> None:
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        solver=cortex(),
        model="madsim/x",
        model_roles=FIVE_MODELS,
        limit=4,
    )
    assert sorted(log.stats.role_usage) == AGENTS
    assert all(u.input_tokens > 0 and u.output_tokens > 0 for u in log.stats.role_usage.values())
    models = {"agent_1": "madsim/x", **FIVE_MODELS}
    for sample in map(resolve_sample_attachments, log.samples):  # long texts are attachments
        record = sample.store[STORE_KEY]
        details = record["record"]
        assert record["method"] == "cortex"
        assert details["models"] == models
        assert {(e.role, e.model) for e in model_events(sample)} == set(models.items())
        rounds = details["rounds_executed"]
        assert 1 <= rounds <= 5
        assert details["stop_reason"] == ("consensus" if rounds < 5 else details["stop_reason"])
        assert len(details["graphs"]) == rounds
        assert all(len(g["W"]) == 5 and len(g["keep"]) == 5 for g in details["graphs"])
        # madsim replies parse: an answer and a confidence from every agent in every round
        assert all(t["stated_confidence"] is not None for r in details["turns"] for t in r)
        assert len(record["calls"]) == len(model_events(sample)) == 5 * (rounds + 1)
        infos = [e.source for e in sample.events if e.event == "info"]
        expected = ["round 1"] + [
            x for r in range(2, rounds + 2) for x in (f"graph {r}", f"round {r}")
        ]
        assert infos == [*expected, "vote"]
        graph = next(e.data for e in sample.events if e.event == "info" and e.source == "graph 2")
        assert "```text\nreader   agent_1" in graph and "  mean  reads" in graph
        rounds_of_calls = sorted(enclosing_round(sample, e) for e in model_events(sample))
        assert rounds_of_calls == sorted(f"round {r}" for r in range(1, rounds + 2) for _ in AGENTS)
        # the prompt a model received lists exactly its kept heads
        for event in model_events(sample):
            call_round = int(enclosing_round(sample, event).split()[1])
            if call_round == 1:  # the initial answers read nobody
                continue
            heads = details["graphs"][call_round - 2]["heads"][event.role]
            prompt = "\n".join(m.text for m in event.input)
            assert prompt.count("--- peer ---") == len(heads)


def test_credibility_by_model_name(run) -> None:
    sizes = {"madsim/x": [7.61e9, 18e12], "madsim/y": ["8.03e9", "15e12"], "agent_3": [9.24e9, 8e12],
             "madsim/w": [7.24e9, 8e12], "madsim/v": [7.24e9, 2e12]}  # fmt: skip
    log = run(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        solver=cortex(credibility=sizes, max_rounds=1),
        model="madsim/x",
        model_roles=FIVE_MODELS,
        limit=1,
    )
    cred = log.samples[0].store[STORE_KEY]["record"]["credibility"]
    assert cred["mode"] == "chinchilla"
    assert cred["C"] == pytest.approx(
        [credibility(7.61e9, 18e12), credibility(8.03e9, 15e12), credibility(9.24e9, 8e12),
         credibility(7.24e9, 8e12), credibility(7.24e9, 2e12)]
    )  # fmt: skip


def test_credibility_key_that_names_nothing_stops_the_sample_before_any_call(tmp_path) -> None:
    [log] = eval(
        strategyqa(data_path=str(STRATEGYQA_DEV)),
        solver=cortex(credibility={"madsim/typo": [7e9, 1e12]}),
        model="madsim/x",
        limit=1,
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "error"
    assert "'credibility'" in log.error.message and "madsim/typo" in log.error.message


# -- the context saving, read from one run ------------------------------------------------------------


def test_cortex_stats_reads_the_saving_against_the_counterfactual(run) -> None:
    log = run(stats_task(), solver=cortex(), model="madsim/x", model_roles=FIVE_MODELS)
    ratios, densities = [], []
    for sample in log.samples:
        context = sample.store[STORE_KEY]["record"]["context"]
        scores = sample.scores
        assert context["input_tokens"] == sum(
            c["input_tokens"] for c in sample.store[STORE_KEY]["calls"]
        )
        assert scores["full_mesh_input_tokens"].value == context["full_mesh_input_tokens"]
        assert scores["context_ratio"].value == pytest.approx(context["ratio"])
        assert scores["input_tokens_per_agent"].value == context["input_tokens"] / 5
        assert sorted(scores["context_ratio"].metadata["per_agent"]) == AGENTS
        ratios.append(context["ratio"])
        densities.append(scores["edge_density"].value)
    assert all(r < 1 for r in ratios)  # pruning kept some agents from reading everyone
    assert all(0 < d < 1 for d in densities)
    assert metric(log, "context_ratio") == pytest.approx(sum(ratios) / len(ratios))


def test_full_topology_has_no_saving(run) -> None:
    log = run(stats_task(2), solver=cortex(topology="full"), model="madsim/x")
    assert metric(log, "context_ratio") == 1.0
    assert metric(log, "edge_density") == 1.0


def test_cortex_stats_leaves_other_methods_unscored(run) -> None:
    log = run(stats_task(1), solver=du_debate(), model="madsim/x")
    score = log.samples[0].scores["context_ratio"]
    assert score.reason == "no CortexDebate record in the sample store"


# -- drop-in on a multiple-choice task --------------------------------------------------------------

MC = [("What is the capital of France?", ["London", "Paris", "Rome"], "B")]


def paper_format_mock():
    """Replies in the paper's own order (Answer, Explanation, Confidence Score), always "B"."""

    def generate_output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        text = "Answer: (B)\nExplanation: Paris is the capital.\nConfidence Score: 85%"
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=30, output_tokens=9, total_tokens=39)
        return out

    return get_model("mockllm/model", custom_outputs=generate_output)


def test_drop_in_multiple_choice_marks_the_choice(run) -> None:
    samples = [Sample(input=q, choices=o, target=t) for q, o, t in MC]
    task = Task(dataset=MemoryDataset(samples), solver=multiple_choice(), scorer=choice())
    log = run(task, solver=cortex(agents=3), model=paper_format_mock())
    assert log.results.scores[0].metrics["accuracy"].value == 1.0
    [sample] = log.samples
    details = sample.store[STORE_KEY]["record"]
    assert len(model_events(sample)) == 6  # unanimous in round 2: 2 x 3 calls
    assert details["stop_reason"] == "consensus"
    assert [t["confidence"] for t in details["turns"][0]] == [0.8, 0.8, 0.8]  # 85% recalibrated


# -- options ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options, name",
    [
        ({"agents": 1}, "agents"),
        ({"max_rounds": -1}, "max_rounds"),
        ({"topology": "star"}, "topology"),
        ({"s_mode": "clipped"}, "s_mode"),
        ({"s_smoothing": 0}, "s_smoothing"),
        ({"participation": "both"}, "participation"),
        ({"tie_break": "random"}, "tie_break"),
        ({"freeform_vote": "longest"}, "freeform_vote"),
        ({"embed_text": "answer"}, "embed_text"),
        ({"recalibration": [0.5, 0.6, 0.3]}, "recalibration"),
        ({"recalibration": "banana"}, "recalibration"),
        ({"credibility": {"agent_1": [7e9]}}, "credibility"),
        ({"credibility": {"agent_1": [7e9, -1]}}, "credibility"),
        ({"embedder": "banana"}, "embedder"),
        ({"answer_format": "essay"}, "answer_format"),
        ({"retries": -1}, "retries"),
    ],
)
def test_bad_options_name_the_option(options: dict, name: str) -> None:
    with pytest.raises(ValueError, match=f"'{name}'"):
        cortex(**options)


def test_recalibration_none_is_accepted() -> None:
    cortex(recalibration="none")


# -- the command line -------------------------------------------------------------------------------


@pytest.mark.slow
def test_cli_five_roles_offline_and_cortex_stats_by_inspect_score(tmp_path: Path) -> None:
    roles = [
        arg for role, model in FIVE_MODELS.items() for arg in ("--model-role", f"{role}={model}")
    ]
    done = subprocess.run(
        [str(INSPECT), "eval", "mad_tasks/strategyqa", "--solver", "cortex", "--model", "madsim/x",
         *roles, "-T", f"data_path={STRATEGYQA_DEV}", "--limit", "3",
         "--log-dir", str(tmp_path / "logs"), "--display", "none"],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    [path] = (tmp_path / "logs").glob("*.eval")
    log = read_eval_log(str(path))
    assert log.status == "success" and len(log.samples) == 3
    assert sorted(log.stats.role_usage) == AGENTS
    assert [step.solver for step in log.plan.steps] == ["prompt_template", "mad_tasks/cortex"]

    scored = tmp_path / "scored.eval"
    done = subprocess.run(
        [str(INSPECT), "score", "--scorer", "mad_tasks/context_ratio", "--action", "append",
         "--output-file", str(scored), "--display", "none", str(path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rescored = read_eval_log(str(scored))
    assert 0 < metric(rescored, "context_ratio") < 1

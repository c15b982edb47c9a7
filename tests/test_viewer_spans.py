"""The log viewer's tree (issue 20): every stage span is named by what it is (`round 2`, `vote
after turn 3`, `jury`), every model call sits in a span named by its agent with its follow-ups,
and no span is an anonymous `task-N` (Inspect's `collect()` names its spans so).

Each solver runs in a real Inspect eval on the simulated model, whose outputs here carry the agent
that asked (a model event names only the model role, which agents share).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import anyio
import anyio.lowlevel
import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.event import ModelEvent, SpanBeginEvent
from inspect_ai.log import EvalLog, EvalSample
from inspect_ai.model import ChatMessage, GenerateConfig, ModelAPI, ModelOutput, modelapi
from inspect_ai.tool import ToolChoice, ToolInfo
from scripted import CALLING, COMPARERS, JUDGES, PAIRED, PAPERS, RETRIEVERS, SOLVERS, shaped

from mad_tasks.inspect_runtime import InspectRuntime, current_call
from mad_tasks.models.sim import SimulatedModel
from mad_tasks.solvers import du_debate


@modelapi(name="madsim_agents")
def madsim_agents() -> type[ModelAPI]:
    class Labelled(SimulatedModel):
        """madsim, each output labelled with the call that asked: agent, attempt, purpose."""

        async def generate(
            self,
            input: list[ChatMessage],
            tools: list[ToolInfo],
            tool_choice: ToolChoice,
            config: GenerateConfig,
        ) -> ModelOutput:
            out = await super().generate(input, tools, tool_choice, config)
            call = current_call.get()
            assert call is not None
            out.metadata = {"agent": call.agent, "attempt": call.attempt, "purpose": call.purpose}
            return out

    return Labelled


ANSWERING = {name: f for name, f in SOLVERS.items() if name not in JUDGES}
# what a stage may be called: words a reader knows, numbered by round or turn
STAGE = re.compile(
    r"(round|turn|vote after turn) [1-9][0-9]{0,2}"
    r"|answer|samples|personas|advocates( (A|B))?|merge( (A|B))?|judge|jury|order (AB|BA)"
    # Tree-of-Debate: a node by its path and title, its stages, the baselines' steps
    r"|self-deliberation r(\.[0-9]{1,2}){0,8}|node r(\.[0-9]{1,2}){1,8}: [^\n]{1,80}"
    r"|claims|preemption|subtopics|present|respond|revise|expand|synthesis"
    r"|single stage|paper summaries|comparison"
    # PD³: a group by its number, its rounds from round 0, the decisions, a pair's sides; its
    # baselines' point-wise judges and TourRank's tournaments
    r"|group [1-9][0-9]{0,2}|round 0|senior|vote|listwise|conclusion|scores|side (A|B)"
    r"|pointwise|tournament [1-9][0-9]{0,2}"
    # PRD's peer discussion: the two reviews, then its turns; the second discussion's turns
    r"|reviews|turn [1-9][0-9]{0,2}, reviewer 2 opening"
    # PRD's reviews and revisions per round, GroupDebate's groups per round and pools per stage
    r"|(review|revision) r\.[1-9][0-9]{0,2}|group [1-9][0-9]{0,2} r\.[1-9][0-9]{0,2}"
    r"|summary s\.[1-9][0-9]{0,2}"
    # on_demand: its first stage, then the debate it started, by method
    r"|first stage|debate \([a-z_]{1,40}\)"
)
TASK_N = re.compile(r"task-[0-9]+")
# unreadable replies often, so that follow-ups happen
MODEL_ARGS = {"accuracy": 1.0, "unparseable": 0.5}


def run_solver(run: Callable[..., EvalLog], name: str, **options: Any) -> EvalSample:
    factory = SOLVERS[name]
    sample = Sample(input="Could a housecat fit inside a standard shoebox?", target="yes")
    if name in JUDGES:
        sample = Sample(
            input="How do I boil an egg so the yolk stays soft?",
            target="A",
            metadata={
                "answer_a": "Put it in boiling water for six minutes, then in cold water.",
                "answer_b": "Eggs are a good source of protein.",
            },
        )
    if name in COMPARERS:
        sample = Sample(input="Weakly supervised text classification", metadata=PAPERS)
    if name in RETRIEVERS or name in PAIRED:
        sample = shaped(name, Sample(input="Which projects duplicate project 100?"))
    log = run(
        Task(dataset=MemoryDataset([sample]), solver=factory(**options)),
        model="madsim_agents/x",
        model_args=MODEL_ARGS,
    )
    [evaluated] = log.samples or []
    return evaluated


def spans_of(sample: EvalSample) -> dict[str, SpanBeginEvent]:
    return {e.id: e for e in sample.events if isinstance(e, SpanBeginEvent)}


def model_events(sample: EvalSample) -> list[ModelEvent]:
    return [e for e in sample.events if isinstance(e, ModelEvent)]


def label(event: ModelEvent) -> tuple[str, int]:
    metadata = event.output.metadata or {}
    return metadata["agent"], metadata["attempt"]


def purpose(event: ModelEvent) -> str:
    return (event.output.metadata or {})["purpose"]


def check_tree(sample: EvalSample) -> dict[str, list[ModelEvent]]:
    """The issue's rules on one sample's events; the model events by the span they sit in."""
    spans = spans_of(sample)
    assert [s.name for s in spans.values() if TASK_N.fullmatch(s.name)] == []
    stages = [s for s in spans.values() if s.type == "stage"]
    assert stages, "no stage span"
    for stage in stages:
        assert STAGE.fullmatch(stage.name), stage.name
        # in the solver's span or in another stage (`order BA`), never in an agent's
        assert stage.parent_id is not None and spans[stage.parent_id].type in ("solver", "stage")
    by_span: dict[str, list[ModelEvent]] = defaultdict(list)
    events = model_events(sample)
    assert events, "no model call"
    for event in events:
        assert event.span_id is not None
        by_span[event.span_id].append(event)
        agent, _ = label(event)
        # the span right around the call is its agent's (or a stage of that name: `judge`)
        assert spans[event.span_id].name == agent
        assert spans[event.span_id].type in ("calls", "stage")
    for held in by_span.values():
        # every request of the span with all its follow-ups, in order: a follow-up never sits
        # apart from the call it follows up
        attempts = [label(e)[1] for e in held]
        assert all(a in (0, b + 1) for b, a in zip([-1, *attempts], attempts)), attempts
    return by_span


@pytest.mark.parametrize("name", CALLING)
def test_every_call_sits_in_its_agents_span(run, name: str) -> None:
    check_tree(run_solver(run, name))


def test_follow_ups_share_their_agents_span(run) -> None:
    sample = run_solver(run, "du_debate")
    by_span = check_tree(sample)
    assert max(len(held) for held in by_span.values()) >= 2  # follow-ups happened
    # one span per agent and round, in the span of its round
    spans = spans_of(sample)
    placed = [
        (spans[s.parent_id].name, s.name)
        for s in spans.values()
        if s.type == "calls" and s.parent_id is not None
    ]
    assert sorted(placed) == [(f"round {r}", f"agent_{i}") for r in (1, 2) for i in (1, 2, 3)]


def test_swapped_orders_run_side_by_side_in_their_own_stages(run) -> None:
    sample = run_solver(run, "more", swap=True)
    by_span = check_tree(sample)
    spans = spans_of(sample)
    orders = [s for s in spans.values() if s.name.startswith("order ")]
    assert sorted(s.name for s in orders) == ["order AB", "order BA"]

    def order_of(span_id: str | None) -> str | None:
        while span_id is not None and not spans[span_id].name.startswith("order "):
            span_id = spans[span_id].parent_id
        return spans[span_id].name if span_id is not None else None

    for span_id, held in by_span.items():
        swapped = [label(e)[0].startswith("swapped/") for e in held]
        assert order_of(span_id) == ("order BA" if swapped[0] else "order AB")
    # the two orders ran concurrently: the second began before the first ended
    ends = {e.id: i for i, e in enumerate(sample.events) if e.event == "span_end"}
    begins = {s.id: i for i, s in enumerate(sample.events) if isinstance(s, SpanBeginEvent)}
    first, second = sorted(orders, key=lambda s: begins[s.id])
    assert begins[second.id] < ends[first.id]


# -- what gather keeps of Inspect's collect() -------------------------------------------------------


def test_gather_raises_a_calls_error_as_itself_and_cancels_the_others() -> None:
    finished: list[str] = []

    async def slow() -> str:
        await anyio.sleep(30)
        finished.append("slow")
        return "slow"

    async def failing() -> str:
        await anyio.lowlevel.checkpoint()
        raise ValueError("unreadable")

    async def main() -> None:
        with anyio.fail_after(10):  # a sibling left running would hang here
            await InspectRuntime(None).gather(slow(), failing())

    with pytest.raises(ValueError, match="unreadable"):
        anyio.run(main)
    assert finished == []


def test_gather_returns_results_in_order() -> None:
    async def after(delay: float, value: int) -> int:
        await anyio.sleep(delay)
        return value

    async def main() -> list[int]:
        return await InspectRuntime(None).gather(after(0.02, 1), after(0, 2), after(0.01, 3))

    assert anyio.run(main) == [1, 2, 3]


def test_a_sample_time_limit_stops_concurrent_calls(run) -> None:
    """The sample's time limit cuts the calls of a round in flight, before Inspect's own deadline
    would cancel the sample: the debate ends, and the sample is answered and scored."""
    log = run(
        Task(
            dataset=MemoryDataset([Sample(input="Is the sky blue?", target="yes")]),
            solver=du_debate(),
            time_limit=1,
        ),
        model="madsim/x",
        model_args={"latency": 30.0},
    )
    [sample] = log.samples or []
    # Inspect's own deadline would have set `limit` and left the sample unscored
    assert sample.error is None and sample.limit is None
    stopped = sample.store["mad_tasks:debate"]["stopped"]
    assert (stopped["kind"], stopped["where"]) == ("time", "round 1")
    assert sample.output.completion == ""  # no round finished: no answer


def test_a_message_and_its_extraction_share_the_agents_span(run) -> None:
    """Voting reads a message's answer with an extraction call when the message marks none: one
    turn of the agent, one span."""
    by_span = check_tree(run_solver(run, "voting"))
    turns = [[purpose(e) for e in held] for held in by_span.values()]
    assert any(t[0] == "discussion" and "extract" in t for t in turns), turns
    assert all(t.count("discussion") <= 1 for t in turns)

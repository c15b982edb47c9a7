"""The sample's whole input reaches every call of every solver (issue 6b).

Each solver runs in a real Inspect eval on the simulated model, over a sample whose question is a
text part, an image (or audio) part and another text part; the log's model events are the calls as
Inspect sent them. Every call that presents the question must carry the non-text part once, between
its two texts; a chat-shaped input's few-shot turns must open every call after the system
messages; and prompts stay friendly to providers' prompt caches (the shared content first).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageUser,
    Content,
    ContentAudio,
    ContentImage,
    ContentText,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.solver import Solver
from scripted import CALLING, JUDGES, SOLVERS, prefix_share, serialized, shaped

from mad_tasks.solvers import du_debate

# a 1x1 PNG and a 44-byte silent WAV: real media, tiny
PNG = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ"
    "/pLvAAAAAElFTkSuQmCC"
)
WAV = "data:audio/wav;base64,UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA="
BEFORE, AFTER = "Look at this picture.", "Is the square red?"

ANSWERING = {name: f for name, f in SOLVERS.items() if name not in JUDGES}
MEDIA = {"image": ContentImage(image=PNG), "audio": ContentAudio(audio=WAV, format="wav")}


def question(media: Content) -> list[ChatMessage]:
    return [ChatMessageUser(content=[ContentText(text=BEFORE), media, ContentText(text=AFTER)])]


def run_one(run: Callable[..., EvalLog], factory: Callable[..., Solver], sample: Sample,
            model_args: dict[str, Any] | None = None, **options: Any) -> EvalSample:  # fmt: skip
    log = run(
        Task(dataset=MemoryDataset([sample]), solver=factory(**options)),
        model="madsim/x",
        model_args=model_args or {"accuracy": 1.0},
    )
    [evaluated] = log.samples or []
    return resolve_sample_attachments(evaluated)


def calls(sample: EvalSample) -> list[list[ChatMessage]]:
    return [e.input for e in sample.events if e.event == "model"]


def parts(message: ChatMessage) -> list[Content]:
    return (
        [ContentText(text=message.content)]
        if isinstance(message.content, str)
        else list(message.content)
    )


def carries_in_order(call: list[ChatMessage], media: Content) -> bool:
    """The media part sits once in the call, in a message where the text before it ends with
    BEFORE and the text after it begins with AFTER."""
    found = []
    for message in call:
        ps = parts(message)
        for i, p in enumerate(ps):
            if p == media:
                before = ps[i - 1] if i else None
                after = ps[i + 1] if i + 1 < len(ps) else None
                found.append(
                    isinstance(before, ContentText)
                    and before.text.rstrip().endswith(BEFORE)
                    and isinstance(after, ContentText)
                    and after.text.lstrip().startswith(AFTER)
                )
    return found == [True]


@pytest.mark.parametrize("kind", sorted(MEDIA))
@pytest.mark.parametrize("name", CALLING)
def test_every_call_carries_every_part_in_order(run, name: str, kind: str) -> None:
    media = MEDIA[kind]
    sample = Sample(input=question(media), target="yes")
    factory = SOLVERS[name]
    evaluated = run_one(run, factory, shaped(name, sample))
    sent = calls(evaluated)
    assert sent, "no model call"
    # every call that presents the question carries the whole input (SAMRE's summaries, on by
    # default as in its authors' code, condense a defence, an evaluation or the votes alone:
    # tests/test_d3_engine.py)
    missing = [
        i for i, call in enumerate(sent) if presents(call) and not carries_in_order(call, media)
    ]
    assert missing == [], f"{len(missing)} of {len(sent)} calls lack the {kind} part in place"


def presents(call: list[ChatMessage]) -> bool:
    """Whether a call presents the question: all but SAMRE's summaries, which condense one text."""
    return SUMMARY_ASK not in call[-1].text


SUMMARY_ASK = "Write a summary of this "  # d3/court.py's summary_prompt


FEW_SHOT = [
    ChatMessageSystem(content="Answer yes or no."),
    ChatMessageUser(content="Is snow white?"),
    ChatMessageAssistant(content="ANSWER: yes"),
    ChatMessageUser(content="Is coal white?"),
]


@pytest.mark.parametrize("name", CALLING)
def test_few_shot_turns_open_every_call(run, name: str) -> None:
    sample = Sample(input=FEW_SHOT, target="no")
    factory = SOLVERS[name]
    evaluated = run_one(run, factory, shaped(name, sample))
    for call in filter(presents, calls(evaluated)):
        lead = 0
        while call[lead].role == "system":
            lead += 1
        if name not in JUDGES:  # a judge sends its own instructions, not the task's system prompt
            assert "Answer yes or no." in call[0].text  # the task's system prompt comes first
        turns = [(m.role, m.text) for m in call[lead : lead + 2]]
        assert turns == [("user", "Is snow white?"), ("assistant", "ANSWER: yes")]
        assert "Is coal white?" in call[lead + 2].text


# -- prompt caches ----------------------------------------------------------------------------

DOCUMENT = "Context: " + " ".join(f"Sentence {i} of a long report." for i in range(900))
# nothing to share with: one call per sample
SINGLE_CALL = {"single", "cot", "single_judge", "single_stage", "listwise"}
# three calls: the first sends everything anew, so at most 2/3 can repeat a prefix
# TourRank shows each tournament's pool in the tournament's own shuffled order (its design), so
# only the query repeats across tournaments
# The voting protocols decide at their first vote (turn 3) when madsim's voters agree, so a debate
# is 3 turns of 3 agents, each agent's first turn sending the document anew: at most 6/9 of the
# turns' calls repeat a prefix before the ballots (measured 0.73)
FLOOR = {"two_stage": 0.6, "tourrank": 0.75, "voting": 0.7, "aad": 0.7}
FLOOR |= {"collective_improvement": 0.7}
# A consensus reached at once makes 2 calls (a share of at most 1/2): here an agent that is always
# wrong and never conforms keeps a unanimity debate going to its last turn. The paper puts each agent's persona in its system message, so
# each agent's first turn sends the question anew (with the default personas, 0.76 after five
# turns); without personas the layout itself is measured.
PREFIX_OPTIONS: dict[str, dict[str, Any]] = {
    "consensus": {
        "personas": "none",
        "protocol": "unanimity",
        "model_args": {"accuracy": [0.0, 1.0, 1.0], "conformity": 0.0},
    },
    # RECONCILE stops when all agree (3 calls, at most 2/3): the same lone dissenter keeps it going
    "reconcile": {"model_args": {"accuracy": [0.0, 1.0, 1.0], "conformity": 0.0}},
    # ChatEval's defaults make 4 calls (at most 3/4): a third agent makes 6
    "chateval": {"agents": 3},
    # on_demand may stop after its first answer (1 call): a debate that always runs is measured
    "on_demand": {"trigger": "always"},
}


@pytest.mark.parametrize("name", [n for n in CALLING if n not in SINGLE_CALL])
def test_prompts_share_their_prefix(run, name: str) -> None:
    """On a long document, at least 80% of the characters sent repeat a prefix an earlier call
    sent (du_debate's most with 6 identical-prefix calls is 5/6)."""
    assert len(DOCUMENT) >= 24_000
    sample = Sample(
        input=f"{DOCUMENT}\n\nQuestion: does the report mention sentence 7?", target="yes"
    )
    factory = SOLVERS[name]
    sample = shaped(name, sample)
    evaluated = run_one(run, factory, sample, **PREFIX_OPTIONS.get(name, {}))
    sent = [
        serialized(
            [
                (
                    m.role,
                    m.content
                    if isinstance(m.content, str)
                    else [p.text if isinstance(p, ContentText) else p for p in m.content],
                )
                for m in call
            ]
        )
        for call in calls(evaluated)
    ]
    assert prefix_share(sent) >= FLOOR.get(name, 0.8)


# -- models that take text only -----------------------------------------------------------------


@pytest.mark.parametrize("panel", [False, True], ids=["main model", "one of a panel"])
def test_the_embedded_model_refuses_an_image_before_any_call(tmp_path, panel: bool) -> None:
    from inspect_ai import eval

    from mad_tasks.models.local import MODEL

    task = Task(dataset=MemoryDataset([Sample(input=question(MEDIA["image"]), target="yes")]))
    where = (
        {"model": "madsim/x", "model_roles": {"agent": ["madsim/y", MODEL]}}
        if panel  # the text-only model is the second of the agents' panel
        else {"model": MODEL}
    )
    [log] = eval(
        task,
        solver=du_debate(),
        model_base_url="http://127.0.0.1:9/v1",  # nothing listens: any call would fail differently
        display="none",
        log_dir=str(tmp_path),
        **where,
    )
    assert log.status == "error" and log.error is not None
    message = log.error.message
    assert "image" in message and MODEL in message and "task" in message
    assert "allow_text_only" in message
    assert not [e for s in log.samples or [] for e in s.events if e.event == "model"]


def test_allow_text_only_debates_over_the_text_and_is_recorded(run) -> None:
    sample = Sample(input=question(MEDIA["image"]), target="yes")
    evaluated = run_one(run, du_debate, sample, allow_text_only=True)
    sent = calls(evaluated)
    assert len(sent) == 6
    assert all(isinstance(p, ContentText) for call in sent for m in call for p in parts(m))
    assert all(any(BEFORE in m.text and AFTER in m.text for m in call) for call in sent)
    assert evaluated.store["mad_tasks:debate"]["options"]["allow_text_only"] is True


# -- a reply Inspect cannot log ----------------------------------------------------------------

SURROGATE = "\ud800"  # a lone surrogate: invalid Unicode, which no log or request can encode


def surrogate_model() -> Model:
    """mockllm whose every reply holds a lone surrogate beside a yes (usage set: offline-safe)."""

    def generate_output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        out = ModelOutput.from_content(
            model="mockllm/model", content=f"I weighed it {SURROGATE} carefully.\nANSWER: yes"
        )
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    return get_model("mockllm/model", custom_outputs=generate_output)


@pytest.mark.parametrize("name", [n for n in CALLING if n not in SINGLE_CALL])
def test_a_reply_with_a_lone_surrogate_never_fails_the_eval(run, name: str) -> None:
    sample = shaped(name, Sample(input="Is the square red?", target="yes"))
    log = run(
        Task(dataset=MemoryDataset([sample]), solver=SOLVERS[name]()), model=surrogate_model()
    )
    [evaluated] = log.samples or []
    evaluated = resolve_sample_attachments(evaluated)
    sent = calls(evaluated)
    assert len(sent) >= 2  # replies were sent back or read again, and logged
    assert not any(SURROGATE in m.text for call in sent for m in call)
    replaced = [
        e for e in evaluated.events if e.event == "info" and e.source == "invalid text replaced"
    ]
    assert replaced and "lone surrogate" in str(replaced[0].data)


@pytest.mark.parametrize("kind", sorted(MEDIA))
def test_an_acting_turn_sends_every_part_at_every_step(run, kind: str) -> None:
    """With `debater=react` each turn is an agent: every model call of every turn (each step)
    still carries the question's non-text part once, in place."""
    media = MEDIA[kind]
    sample = Sample(input=question(media), target="yes")
    evaluated = run_one(run, du_debate, sample, debater="react", tools="think")
    sent = calls(evaluated)
    assert len(sent) >= 6  # 3 agents x 2 rounds, a step or more each
    missing = [i for i, call in enumerate(sent) if not carries_in_order(call, media)]
    assert missing == [], f"{len(missing)} of {len(sent)} steps lack the {kind} part in place"
    assert any(e.event == "span_begin" and "acts" in (e.name or "") for e in evaluated.events)

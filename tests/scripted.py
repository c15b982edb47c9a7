"""A scripted `Runtime` for engine tests: replies come from a function of the call, never of call order.

Calls of one round run concurrently (`gather` is `asyncio.gather` and every call yields to the event
loop once), so a reply function must decide from what the call contains: its agent, round, attempt
and messages. Every call, span and info event is recorded for assertions.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from inspect_ai.dataset import Sample

from mad_tasks._registry import SOLVERS as REGISTERED
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.methods.pd3.feedback import SidePair
from mad_tasks.engine.methods.pd3.query import Retrieval
from mad_tasks.engine.methods.tod.papers import PaperPair
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.runtime import Acting, Call, Reply, Room, Steps, Usage, role_candidates
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.setup import SETUP

T = TypeVar("T")

ReplyFn = Callable[[Call], "str | Reply"]

# usage given to replies scripted as plain strings, so token figures are always known (a script
# returns `Reply(text, None)` for a provider that reports none, `cached=True` for a cache hit)
DEFAULT_USAGE = Usage(input_tokens=10, output_tokens=2)

# every solver of the package by name, so a new one joins the tests that run them all; the judges
# among them compare the two answers of a pair (sample metadata `answer_a` and `answer_b`)
SOLVERS = dict(REGISTERED)
JUDGES = set(CATALOGUE.reading(Pair))
# and the comparers write a comparative summary of two papers (sample metadata `paper_a`, `paper_b`)
COMPARERS = set(CATALOGUE.reading(PaperPair))
# the PD³ solvers: retrievers choose among a query's candidates (metadata `query`, `candidates`);
# `pd3_feedback` compares two queries' references (metadata `a`, `b`, `votes`)
RETRIEVERS = set(CATALOGUE.reading(Retrieval))
PAIRED = set(CATALOGUE.reading(SidePair))
# the solvers that call a model: a method with no model roles (bm25, dense, random_k) calls none
CALLING = [
    name for name, spec in ((n, CATALOGUE.get(n)) for n in SOLVERS)
    if spec is None or spec.roles(spec.options(**spec.preset))
]  # fmt: skip


def project(i: int) -> dict[str, str]:
    topics = ("grid load forecasting", "transformer fault detection", "cable ageing")
    topic = topics[i % 3]
    return {
        "id": f"doc{i}",
        "title": f"Project {i} on {topic}",
        "text": f"Project {i} studies {topic} with method {i % 7} on data set {i % 5}.",
    }


PROJECTS = {"query": project(100), "candidates": [project(i) for i in range(30)]}
GOLD = [f"doc{i}" for i in (0, 3, 6, 9, 12)]
PAIR = {
    "a": {"query": project(100), "refs": [project(i) for i in (0, 3, 6, 9, 12)]},
    "b": {"query": project(101), "refs": [project(i) for i in (1, 4, 7, 10, 13)]},
    "votes": [2, 1],
}


def shaped(name: str, sample: Sample) -> Sample:
    """The sample as the solver reads it (its input kept): a pair of answers to judge, two papers
    to compare, a query's candidates to choose from, two queries' references to score, or the
    question itself."""
    if name in JUDGES:
        return sample.model_copy(
            update={
                "target": "A",
                "metadata": {
                    "answer_a": "Yes: the square is red.",
                    "answer_b": "It is a picture.",
                },
            }
        )
    if name in COMPARERS:
        return sample.model_copy(update={"target": "", "metadata": PAPERS})
    if name in RETRIEVERS:
        return sample.model_copy(update={"target": GOLD, "metadata": PROJECTS})
    if name in PAIRED:
        return sample.model_copy(update={"target": "A", "metadata": PAIR})
    return sample


PAPERS = {
    "paper_a": {
        "title": "Seeded Label Propagation for Weakly Supervised Text Classification",
        "abstract": "We classify documents from a few seed words per class. Labels spread over a "
        "word graph built from the corpus, and a classifier is trained on the pseudo-labels. "
        "On four news and review corpora it beats earlier seed-word methods by four points.",
        "introduction": "Labelled data is costly. Seed words are cheap to write, but they are "
        "ambiguous. Our graph propagation resolves the ambiguity with corpus statistics.",
    },
    "paper_b": {
        "title": "Prompted Language Models as Zero-Label Text Classifiers",
        "abstract": "We classify documents with no labels at all. A language model is prompted "
        "with the class names, and its answers are refined by self-training. It matches "
        "seed-word methods on news topics and beats them on sentiment.",
        "introduction": "Class names carry meaning that a pretrained model already knows. We "
        "ask the model directly and then distil its answers into a small classifier.",
    },
}

_current_span: ContextVar[str | None] = ContextVar("scripted_span", default=None)
# calls made one after another up to this point of a coroutine (see `critical_path`)
_depth: ContextVar[int] = ContextVar("scripted_depth", default=0)


@dataclass(frozen=True)
class Recorded:
    call: Call
    span: str | None  # the innermost span the call was made in


class ScriptedRuntime:
    def __init__(
        self, reply: ReplyFn, usage: Usage = DEFAULT_USAGE, models: dict[str, str] | None = None
    ) -> None:
        self.reply = reply
        self.usage = usage
        self.models = models or {}
        self.recorded: list[Recorded] = []
        self.spans: list[str] = []  # span names, in the order they were opened
        self.infos: list[tuple[str, str | dict[str, Any]]] = []
        self.critical_path = 0  # the longest chain of calls that had to wait for each other

    # -- Runtime -------------------------------------------------------------------------------
    async def call(self, call: Call) -> Reply:
        # list.append is atomic under asyncio: no lock needed on one event loop
        self.recorded.append(Recorded(call, _current_span.get()))
        _depth.set(_depth.get() + 1)
        self.critical_path = max(self.critical_path, _depth.get())
        await asyncio.sleep(0)  # let the other calls of a round interleave
        out = self.reply(call)
        return out if isinstance(out, Reply) else Reply(out, self.usage)

    async def gather(self, *calls: Awaitable[T]) -> list[T]:
        # each branch starts at the caller's depth; the caller goes on after the deepest one
        async def branch(c: Awaitable[T]) -> tuple[T, int]:
            return await c, _depth.get()

        done = await asyncio.gather(*(branch(c) for c in calls))
        _depth.set(max((d for _, d in done), default=_depth.get()))
        return [r for r, _ in done]

    @asynccontextmanager
    async def _span(self, name: str) -> AsyncIterator[None]:
        self.spans.append(name)
        token = _current_span.set(name)
        try:
            yield
        finally:
            _current_span.reset(token)

    def span(self, name: str) -> Any:
        return self._span(name)

    def agent_span(self, agent: str) -> Any:
        return nullcontext()  # the viewer's grouping: tests/test_viewer_spans.py checks it

    def info(self, title: str, data: str | dict[str, Any]) -> None:
        self.infos.append((title, data))

    def model_name(self, role: str) -> str:
        """Every role on one scripted model, named by `models` where a test sizes it."""
        return self.models.get(role, "scripted")

    def headroom(self) -> list[Room]:
        return []  # a script has no limits of a run

    async def act(self, call: Call, acting: Acting, steps: Steps) -> Reply:
        raise RuntimeError("agents with tools run in the Inspect host only (-S debater=react)")

    # -- queries -------------------------------------------------------------------------------
    @property
    def calls(self) -> list[Call]:
        return [r.call for r in self.recorded]

    def calls_of(self, agent: str, round: int | None = None) -> list[Call]:
        """The calls of one agent (optionally one round), by attempt."""
        found = [c for c in self.calls if c.agent == agent and (round is None or c.round == round)]
        return sorted(found, key=lambda c: (c.round, c.attempt))

    def first_call(self, agent: str, round: int) -> Call:
        return self.calls_of(agent, round)[0]

    def info_titles(self) -> list[str]:
        return [title for title, _ in self.infos]


# -- scripted debates: replies by agent and round, and a method of the catalogue run on them -----


def tag(agent: str, round: int) -> str:
    """A marker unique to one agent's reply in one round, to trace who saw what."""
    return f"<{agent} says in round {round}>"


def answer_reply(call: Call, answer: str | None) -> str:
    """An agent's reply: its tag, then its answer line (None: a reply without an answer)."""
    body = f"{tag(call.agent, call.round)} I weighed the evidence."
    return f"{body}\nANSWER: {answer}" if answer is not None else f"{body} Hard to say."


def by_round(
    answers: Mapping[tuple[str, int], str | None] | None = None, default: str | None = None
) -> ReplyFn:
    """Replies answering `answers[(agent, round)]`, else `default` (None: no answer)."""
    given = answers or {}
    return lambda call: answer_reply(call, given.get((call.agent, call.round), default))


async def debate(
    method: str, reply: ReplyFn, problem: Problem, retries: int = 2, **options: Any
) -> tuple[ScriptedRuntime, DebateResult]:
    """The catalogue's `method`, with `options` over its solver's presets, prepared as every host
    prepares it and run on a scripted runtime answering `reply`."""
    spec = CATALOGUE[method]
    opts = spec.options(**{**spec.preset, **options})
    rt = ScriptedRuntime(reply)
    result = await spec.prepare(opts, SETUP)(Session(rt, problem, retries=retries))
    return rt, result


def family(role: str) -> str:
    """The role a call's role falls back to last: a panel member's family (`juror` for
    `juror_2`), else the role itself, so a script can answer a panel's members alike."""
    return role_candidates(role)[-1]


def last_user(call: Call) -> str:
    """The text of the last user message of a call (what the agent is asked right now)."""
    return next(m.text for m in reversed(call.messages) if m.role == "user")


def transcript_text(call: Call) -> str:
    return "\n".join(m.text for m in call.messages)


def serialized(messages: Sequence[tuple[str, str | Sequence[object]]]) -> str:
    """A prompt as the characters a provider's prompt cache compares: each message's role and
    parts in order (a non-text part by its repr, so equal parts compare equal)."""
    out = []
    for role, content in messages:
        parts = [content] if isinstance(content, str) else content
        out.append(f"<{role}>" + "".join(p if isinstance(p, str) else f"<{p!r}>" for p in parts))
    return "".join(out)


def common_prefix(a: str, b: str) -> int:
    """The length of the longest common prefix (binary search over C-speed slice compares)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def prefix_share(prompts: Sequence[str]) -> float:
    """Of all the prompts' characters, the share that repeats a prefix an earlier prompt already
    sent (what a provider's prompt cache can serve), prompts in the order they were sent."""
    total = shared = 0
    for i, prompt in enumerate(prompts):
        total += len(prompt)
        shared += max((common_prefix(prompt, earlier) for earlier in prompts[:i]), default=0)
    return shared / total if total else 0.0


def recorded(result: DebateResult) -> dict[str, Any]:
    """A result's method record as plain dicts and lists, the way the sample store keeps it."""
    record: dict[str, Any] = result.to_dict()["record"]
    return record

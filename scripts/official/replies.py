"""Scripted replies for the differential runs (docs/fidelity.md): the same replies for the authors'
code and for ours, keyed by the call they answer, each carrying a marker word that names that call,
so a later prompt quoting a reply shows who saw whom.

A call's key is (kind, agent, round). A scenario says what each agent answers in each round; a
`Script` answers calls by a method's keying rule and records every call. `structure` turns the
recorded calls into what is compared: the calls, and for each call the earlier replies its prompt
contains. Pure and standard-library only: the server, the run and the tests share it.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

# marker words carry no digit and no parenthesis: no reader takes them for an answer
AGENTS = ("alder", "birch", "cedar", "hazel", "maple", "rowan", "willow", "yew")
ROUNDS = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
MARKER = re.compile(r"ref-([a-z]+)-([a-z]+)-([a-z]+)")


@dataclass(frozen=True, order=True)
class Key:
    """The call a reply answers: its kind (`debate`, `review`, ...), agent and round (from 1)."""

    kind: str
    agent: int
    round: int

    def marker(self) -> str:
        return f"ref-{self.kind}-{AGENTS[self.agent - 1]}-{ROUNDS[self.round - 1]}"

    def label(self) -> str:
        return f"{self.kind} a{self.agent} r{self.round}"


def markers_in(text: str) -> list[Key]:
    """The keys of the replies quoted in `text`, in order of first appearance."""
    seen: dict[Key, None] = {}
    for kind, agent, round in MARKER.findall(text):
        if agent in AGENTS and round in ROUNDS:
            seen[Key(kind, AGENTS.index(agent) + 1, ROUNDS.index(round) + 1)] = None
    return list(seen)


def text_of(content: Any) -> str:
    """A message's text, whether a string or a list of parts (OpenAI's and Inspect's)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(p.get("text", "")) if isinstance(p, dict) else "" for p in content)
    return ""


Messages = Sequence[Mapping[str, Any]]  # {"role": ..., "content": ...} as the API receives them


@dataclass(frozen=True)
class Scenario:
    """What each agent answers in each round: `answers[(agent, round)]`, None an abstention."""

    name: str
    answers: Mapping[tuple[int, int], str | None]
    about: str


@dataclass
class Call:
    key: Key
    messages: list[dict[str, str]]
    reply: str

    def sees(self) -> list[Key]:
        """The earlier replies this call's prompt contains."""
        return markers_in("\n".join(m["content"] for m in self.messages))


Keyer = Callable[[Messages, "Script"], Key]
Say = Callable[[Key, str | None], str]


@dataclass
class Script:
    """Answers and records one run's calls: `keyer` names the call, the scenario gives its
    answer, `say` writes the reply text in which the marker and the answer appear."""

    scenario: Scenario
    keyer: Keyer
    say: Say
    calls: list[Call] = field(default_factory=list)
    arrivals: dict[str, int] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def arrive(self, kind: str) -> int:
        """The how-manyth call of this kind that carries no earlier reply (first-round calls
        with identical prompts get their agents in order of arrival)."""
        with self.lock:
            self.arrivals[kind] = self.arrivals.get(kind, 0) + 1
            return self.arrivals[kind]

    def answer(self, messages: Messages) -> str:
        plain = [
            {"role": str(m.get("role")), "content": text_of(m.get("content"))} for m in messages
        ]
        key = self.keyer(plain, self)
        reply = self.say(key, self.scenario.answers.get((key.agent, key.round)))
        with self.lock:
            self.calls.append(Call(key, plain, reply))
        return reply


def conversation_keyer(kind: str) -> Keyer:
    """Each agent keeps one conversation: the round is one more than its replies so far, the agent
    is the one whose marker its first reply carries; first-round calls by order of arrival."""

    def key(messages: Messages, script: Script) -> Key:
        own = [m for m in messages if m["role"] == "assistant"]
        if not own:
            return Key(kind, script.arrive(kind), 1)
        first = markers_in(own[0]["content"])
        return Key(kind, first[0].agent if first else 0, len(own) + 1)

    return key


def choice_reply(key: Key, answer: str | None) -> str:
    """A reply in both answer forms (the authors' `(X)` and the project's ANSWER line), or one
    that gives no answer in any form."""
    if answer is None:
        return f"Noted as {key.marker()}. I weighed every option and cannot settle on one."
    return (
        f"Noted as {key.marker()}. Weighing the options, I settle on {answer}, so my answer is "
        f"({answer}).\nANSWER: {answer}"
    )


def structure(calls: Sequence[Call]) -> dict[str, Any]:
    """What is compared: the number of calls, each call's key and the replies its prompt shows."""
    ordered = sorted(calls, key=lambda c: c.key)
    return {
        "calls": len(calls),
        "sees": {c.key.label(): [k.label() for k in sorted(c.sees())] for c in ordered},
    }

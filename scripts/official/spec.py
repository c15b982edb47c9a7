"""What a method checked against its authors' code declares (docs/fidelity.md): where the code is,
how its venv is made, the driver that runs it on one question, the shims, our solver with the
options that name the authors' behaviour, the scenarios, how calls are keyed, and the checklist of
what each call kind must instruct (evidence patterns in their prompt and in ours)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from replies import Call, Keyer, Say, Scenario


@dataclass(frozen=True)
class Check:
    """One thing a call kind instructs, with a pattern that shows it in the authors' prompt and
    one that shows it in ours (case-insensitive, searched in the call's last user message)."""

    item: str
    theirs: str
    ours: str

    def holds(self, pattern: str, text: str) -> bool:
        return re.search(pattern, text, re.IGNORECASE | re.DOTALL) is not None


@dataclass(frozen=True)
class Method:
    id: str  # the fixture's name
    solver: str  # ours
    repo: str
    commit: str
    licence: str
    requirements: tuple[str, ...]  # the authors' venv
    driver: str  # under drivers/
    shims: tuple[str, ...]
    task: str  # our task of the same benchmark
    question: Mapping[str, Any]  # the one question, in our task's record form
    authors_question: Mapping[str, Any]  # the same, as the driver takes it
    options: Mapping[str, Any]  # our solver's options that name the authors' behaviour
    scenarios: tuple[Scenario, ...]
    keyer: Callable[[], Keyer]
    say: Say
    kind_of: Callable[[Call], str]
    checks: Mapping[str, tuple[Check, ...]] = field(default_factory=dict)
    # scenarios whose decision differs from the authors' on purpose, each with the reason (a
    # project rule their code breaks); the calls and the graph must still be equal
    differs: Mapping[str, str] = field(default_factory=dict)
    # the text a check searches: the call's last message unless a method says otherwise (where
    # the authors' instructions are spread over several messages of a call)
    prompt_of: Callable[[Call], str] | None = None
    # the paths of their code to extract (default: all; a mirror may lack large data files)
    paths: tuple[str, ...] = ()
    # the text of our task's data file holding `question` (None: one JSON line, a .jsonl record)
    question_file: Callable[[Mapping[str, Any]], str] | None = None
    # more arguments of our side's inspect eval() (e.g. score=False: a task whose scorers call
    # a judge model, which the script does not answer)
    eval_options: Mapping[str, Any] = field(default_factory=dict)
    # our decision from the run's debate record (None: its final answer), where the authors'
    # driver reports more than the final answer (MALLM's challenge: each variant's new answers)
    decision_of: Callable[[Mapping[str, Any]], str | None] | None = None


def round_kind(call: Call) -> str:
    return "first round" if call.key.round == 1 else "later round"

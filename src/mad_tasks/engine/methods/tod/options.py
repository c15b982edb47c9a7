"""The options of Tree-of-Debate and of its baselines, with the reference code's per-stage settings.

Every default is the reference code's (seed 003 spec, section 3), since the paper's values were lost
in its extraction; docs/tree-of-debate.md lists them beside the paper's wording.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...checks import OptionError, boolean, integer, number, one_of, optional
from ...options import ANSWER_FORMS, MAX_TEMPERATURE, Generation, option

# Caps on the counts that multiply a pair's calls (docs/options.md, "Option checks")
MAX_EVIDENCE = 20  # excerpts per persona per self-deliberation (reference: 5)
MAX_PREEMPT = 10  # segments judged per opponent claim (reference: 2), one relevance call each
MAX_CLAIMS = 10  # claims per persona (reference: 3; its schema allows 10)
MAX_SUBTOPICS = 10  # children per expansion (reference: 5; its schema allows 10)
MAX_EXPANSIONS = 30  # the global expansion budget (reference: 3; No-Tree: 5)
MAX_DEPTH = 6  # levels below the root
MAX_TREE_NODES = 400  # debated nodes the budget and depth allow at most (7 calls each)
MAX_CHUNK_SENTENCES = 20
MAX_CHUNK_CHARS = 100_000

EXPAND_RULES = ("code", "paper")  # (progression or questions) and not clear_winner; or any of them
# what the subtopics call shows of the node it splits: its title only (the code fills the
# description slot with the title), or its title and description (the paper's Prompt 14)
SUBTOPICS_TOPIC = ("code", "paper")


@dataclass(frozen=True)
class Stage:
    """A call kind's sampling: the reference code's temperature, top_p and max_tokens."""

    temperature: float
    max_tokens: int
    top_p: float | None = None  # None: the run's top_p option


STAGES: dict[str, Stage] = {
    "claims": Stage(0.3, 2000),
    "relevance": Stage(0.0, 100, top_p=1.0),
    "subtopics": Stage(0.3, 2000),
    "present": Stage(0.1, 3000),
    "respond": Stage(0.4, 3000),
    "revise": Stage(0.45, 3000),
    "expand": Stage(0.1, 1024),
    "synthesis": Stage(0.4, 2000),
    "baseline": Stage(0.4, 3000),
}


TREE_STAGES = tuple(s for s in STAGES if s != "baseline")  # a baseline's is its `temperature`

# why `-S answer_form=authors` does not apply (docs/fidelity.md): no call is asked for an answer in
# a task's format, and every call already asks for the JSON object the authors' code asks for
PROJECT_FORM = ANSWER_FORMS[0]
NO_AUTHORS_FORM = (
    f"{PROJECT_FORM} (Tree-of-Debate and its baselines write a summary, not an answer in a task's "
    "format, and every call already asks for the JSON object of the authors' code, by its keys)"
)


def _stage_temperatures(name: str, value: Any) -> dict[str, float] | None:
    # one message for every fault, naming the option the user wrote (no `name.stage`)
    allowed = (
        f"{{stage: a number from 0 to {MAX_TEMPERATURE:g}}} with stages from "
        f"{', '.join(TREE_STAGES)}, or null (each stage's default)"
    )
    if value is None:
        return None
    if not isinstance(value, Mapping) or not value or not set(value) <= set(TREE_STAGES):
        raise OptionError(name, value, allowed)
    try:
        return {stage: number(name, t, 0, MAX_TEMPERATURE) for stage, t in value.items()}
    except OptionError:
        raise OptionError(name, value, allowed) from None


def _answer_form(name: str, value: Any) -> str:
    if value == PROJECT_FORM:
        return PROJECT_FORM
    raise OptionError(name, value, NO_AUTHORS_FORM)


def _retriever(name: str, value: Any) -> str:
    if value == "lexical" or (
        isinstance(value, str) and value.startswith("bge:") and value[4:].strip()
    ):
        return str(value)
    raise OptionError(
        name,
        value,
        "lexical (BM25, offline) or bge:<path to a local BAAI/bge-large-en-v1.5 copy, or its hub "
        "name> (needs the embeddings extra)",
    )


def node_bound(subtopics: int, expansions: int | None, depth: int | None) -> int:
    """The most nodes a tree can debate: `subtopics` per expansion, the root's included, within
    the budget and the depth limit (at least one of them is set)."""
    by_budget = subtopics * (1 + expansions) if expansions is not None else None
    by_depth = sum(subtopics**level for level in range(1, depth + 1)) if depth is not None else None
    return min(b for b in (by_budget, by_depth) if b is not None)


@dataclass(frozen=True)
class SamplingOptions(Generation):
    """What every Tree-of-Debate call and its baselines' take: the stage temperatures, top_p and
    the JSON schema request. `temperature` and `max_tokens`, when set, replace every stage's."""

    top_p: float = option(
        0.99,
        "nucleus sampling of every call but the relevance filter's (1.0); the paper's 'top 1% of "
        "the tokens' is the code's 0.99.",
        lambda name, v: number(name, v, 0, 1, above=True),
    )
    stage_temperatures: Mapping[str, float] | None = option(
        None,
        "temperatures of single stages over the defaults {"
        + ", ".join(f"{k}: {STAGES[k].temperature:g}" for k in TREE_STAGES)
        + "}; `temperature` sets all.",
        _stage_temperatures,
        group="tree",  # the baselines have one stage: `temperature` sets it
    )
    structured: bool = option(
        True,
        "send each reply's JSON schema (structured output where the provider has it); replies "
        "are read and validated either way.",
        boolean,
    )
    answer_form: str = option(
        PROJECT_FORM,
        "project only: every call asks for the JSON object the authors' code asks for, and the "
        "output is a summary, not an answer; authors is refused (docs/fidelity.md).",
        _answer_form,
    )

    def stage(self, name: str) -> Stage:
        """The sampling of one stage with the user's overrides."""
        default = STAGES[name]
        temperature = (self.stage_temperatures or {}).get(name, default.temperature)
        return Stage(
            temperature=self.temperature if self.temperature is not None else temperature,
            max_tokens=self.max_tokens if self.max_tokens is not None else default.max_tokens,
            top_p=default.top_p if default.top_p is not None else self.top_p,
        )


@dataclass(frozen=True)
class TreeOptions(SamplingOptions):
    """Tree-of-Debate's options. `tree` False is the No-Tree ablation (one combined subtopic per
    expansion: a chain), `self_deliberation` False the No-SD one (no retrieval, no preemption:
    claims from the title, abstract and introduction)."""

    k_evidence: int = option(
        5,
        "excerpts retrieved from a persona's own paper per self-deliberation (code: 5).",
        lambda name, v: integer(name, v, 1, MAX_EVIDENCE),
    )
    k_preempt: int = option(
        2,
        "segments retrieved per opponent claim, each judged by one relevance call (code: 2); 0: "
        "no preemption.",
        lambda name, v: integer(name, v, 0, MAX_PREEMPT),
    )
    max_claims: int = option(
        3,
        "claims per persona per self-deliberation (code: 1 to 3).",
        lambda name, v: integer(name, v, 1, MAX_CLAIMS),
    )
    max_subtopics: int = option(
        5,
        "children per expansion, longer lists cut (code: 5).",
        lambda name, v: integer(name, v, 1, MAX_SUBTOPICS),
    )
    max_expansions: int | None = option(
        3,
        "global expansion budget, granted in breadth-first order (code: 3, its 'max_depth'); "
        "null: none, bounded by max_depth.",
        lambda name, v: optional(integer, name, v, 0, MAX_EXPANSIONS, null="no budget"),
    )
    max_depth: int | None = option(
        None,
        "deepest level a node may have (root 0); a node at it is not expanded. null: none.",
        lambda name, v: optional(integer, name, v, 1, MAX_DEPTH, null="no depth limit"),
    )
    expand_rule: str = option(
        "code",
        "code: (progression or questions) and not clear winner; paper: progression or questions "
        "or no clear winner.",
        lambda name, v: one_of(name, v, EXPAND_RULES),
    )
    subtopics_topic: str = option(
        "code",
        "what the moderator's subtopics call shows of a node below the root: code, its title only "
        "(the reference repeats the title in the description slot); paper, its title and "
        "description.",
        lambda name, v: one_of(name, v, SUBTOPICS_TOPIC),
    )
    tree: bool = option(
        True,
        "false: the No-Tree ablation, one combined subtopic per expansion (use max_expansions=5, "
        "as tod_no_tree does).",
        boolean,
    )
    self_deliberation: bool = option(
        True,
        "false: the No-SD ablation, claims from title, abstract and introduction without "
        "retrieval or preemption.",
        boolean,
    )
    retriever: str = option(
        "lexical",
        "lexical (BM25 via bm25s, offline) or bge:<local path or hub name> (the paper's "
        "BAAI/bge-large-en-v1.5, via sentence-transformers).",
        _retriever,
    )
    chunk_sentences: int = option(
        3,
        "sentences per chunk of a paper's text.",
        lambda name, v: integer(name, v, 1, MAX_CHUNK_SENTENCES),
    )
    min_chunk_chars: int = option(
        150,
        "chunks of at most this many characters are never retrieved (code: 150).",
        lambda name, v: integer(name, v, 0, MAX_CHUNK_CHARS),
    )
    cut_at_references: bool = option(
        True, "drop a paper's text from its first 'References' heading on.", boolean
    )
    swap_papers: bool = option(
        False,
        "run paper_b as Author 0 (the focus) and paper_a as Author 1, to measure the method's "
        "order bias.",
        boolean,
    )
    parallel_siblings: bool = option(
        True,
        "debate the nodes of one level concurrently (the result equals the sequential order).",
        boolean,
    )

    def validate(self) -> None:
        super().validate()
        if self.max_expansions is None and self.max_depth is None:
            raise OptionError(
                "max_expansions",
                None,
                f"an integer from 0 to {MAX_EXPANSIONS} when max_depth is null",
            )
        children = self.max_subtopics if self.tree else 1
        bound = node_bound(children, self.max_expansions, self.max_depth)
        if bound > MAX_TREE_NODES:
            raise OptionError(
                "max_depth" if self.max_expansions is None else "max_expansions",
                self.max_depth if self.max_expansions is None else self.max_expansions,
                f"a value giving a tree of at most {MAX_TREE_NODES} debated nodes ({bound} with "
                f"{children} subtopics per expansion)",
            )

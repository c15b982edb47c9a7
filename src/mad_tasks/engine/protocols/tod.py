"""Tree-of-Debate rules and readers (seed 003), as pure functions: the relevance keep-rule, the two
expansion rules, the budget and depth grant, the JSON readers of every reply kind with their
schemas, the tree JSON the synthesis reads, and the sentence split of the factuality judge.

Every reply is a JSON object. `json_object` takes the first object of a reply that decodes (inside a
```json fence or after prose too); a reader then takes its fields by name, in any case, and returns
None when the reply is unreadable, so `Session.ask` follows up. Yes/No fields take JSON booleans or
the strings "yes"/"no"/"true"/"false" in any case (a leading word: "Yes, because ..." is yes).
Claim and contribution ids are 1-based; ids out of range, duplicates and non-integers are dropped,
order kept. Lists longer than asked are cut to their first items. Every reader runs in linear time
and never raises (a reply nested past the recursion limit or holding an integer too long to convert
is unreadable).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ..methods.tod.options import EXPAND_RULES, MAX_CLAIMS, MAX_SUBTOPICS
from ..methods.tod.records import Argument, Claim, Node

# -- rules -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Relevance:
    """The relevance filter's four Yes/No judgments of one retrieved segment against a claim."""

    supports: bool
    refutes: bool
    clarifies: bool
    irrelevant: bool


def keeps(j: Relevance) -> bool:
    """The reference code's keep-rule: relevant, and it supports, refutes or clarifies the claim."""
    return not j.irrelevant and (j.supports or j.refutes or j.clarifies)


def wants_expansion(
    rule: str, progression: bool | None, questions: bool | None, clear_winner: bool | None
) -> bool:
    """Whether the moderator's judgments call for expanding the node. "code" (the reference code,
    which produced the paper's numbers): (progression or questions) and no clear winner; "paper"
    (the paper's text): progression or questions or no clear winner. An unreadable judgment (None)
    never expands."""
    if rule not in EXPAND_RULES:
        raise ValueError(f"unknown expansion rule {rule!r}: allowed {', '.join(EXPAND_RULES)}")
    if progression is None or questions is None or clear_winner is None:
        return False
    if rule == "code":
        return (progression or questions) and not clear_winner
    return progression or questions or not clear_winner


def granted(
    wants: bool, level: int, used: int, budget: int | None, max_depth: int | None
) -> tuple[bool, str | None]:
    """Whether a node at `level` (root 0) that `wants` to expand may, with `used` expansions spent
    of `budget` (None: unlimited) and children allowed down to level `max_depth` (None: no limit).
    Returns (True, None), (False, None) when not wanted, else (False, "depth") or (False, "budget");
    depth is checked first, so a node too deep never counts as blocked by the budget."""
    if not wants:
        return False, None
    if max_depth is not None and level >= max_depth:
        return False, "depth"
    if budget is not None and used >= budget:
        return False, "budget"
    return True, None


# -- JSON ------------------------------------------------------------------------------------------

MAX_JSON_ATTEMPTS = 16  # '{' positions tried per reply: bounds the work on replies full of braces
# where an object with at least one key may start; possessive, so each '{' costs its own spaces only
_OBJECT_START = re.compile(r'\{\s*+"')
# strict=False: models put raw newlines and tabs inside strings
_DECODER = json.JSONDecoder(strict=False)


def json_object(text: str) -> dict[str, Any] | None:
    """The first non-empty JSON object in a reply (bare, inside a ```json fence or after prose), or
    None. At most MAX_JSON_ATTEMPTS starts are tried, each a linear decode; a start nested past the
    recursion limit or holding an integer over Python's digit limit does not decode."""
    for start in islice(_OBJECT_START.finditer(text), MAX_JSON_ATTEMPTS):
        try:
            value, _ = _DECODER.raw_decode(text, start.start())
        except (ValueError, RecursionError):  # JSONDecodeError is a ValueError
            continue
        return value  # a dict: the decode began at "{"
    return None


def _fields(obj: dict[str, Any]) -> dict[str, Any]:
    """An object's fields by their names stripped and lowercased."""
    return {key.strip().lower(): value for key, value in obj.items()}


def _reply_fields(text: str) -> dict[str, Any] | None:
    obj = json_object(text)
    return None if obj is None else _fields(obj)


def _items(text: str, key: str) -> list[dict[str, Any]] | None:
    """The objects of the list field `key` of a reply's object (None: no such list), by _fields."""
    fields = _reply_fields(text)
    items = None if fields is None else fields.get(key)
    if not isinstance(items, list):
        return None
    return [_fields(item) for item in items if isinstance(item, dict)]


_BOOLEANS = {"yes": True, "true": True, "no": False, "false": False}
_LEADING_WORD = re.compile(r"[a-z]{1,5}(?![a-z])")
_QUOTES = "\"'*`_ "  # what a model puts around a one-word value


def yes_no(value: Any) -> bool | None:
    """A Yes/No field: a JSON boolean, or a string whose first word is yes/no/true/false."""
    if isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return None
    word = _LEADING_WORD.match(value.lower().lstrip(_QUOTES))
    return _BOOLEANS.get(word.group()) if word else None


def _line(value: Any) -> str | None:
    """A title: a non-blank string, its whitespace collapsed to single spaces."""
    return (" ".join(value.split()) or None) if isinstance(value, str) else None


def _text(value: Any, least: int = 1) -> str | None:
    """A description, response or summary: a string of at least `least` characters once stripped
    (the reference's schema minimum lengths)."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    return text if len(text) >= least else None


MAX_ID_DIGITS = 6


def _id(value: Any) -> int | None:
    if isinstance(value, bool):  # a bool is an int in Python, never an id in JSON
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        digits = value.strip().lstrip("#")
        if digits.isascii() and digits.isdigit() and len(digits) <= MAX_ID_DIGITS:
            return int(digits)
    return None


def _ids(value: Any, top: int) -> tuple[int, ...]:
    """1-based ids from a list (or a lone id), in order: non-integers, ids outside 1..`top` and
    repeats dropped."""
    items = value if isinstance(value, list) else [value]
    ids = (_id(item) for item in items)
    return tuple(dict.fromkeys(i for i in ids if i is not None and 1 <= i <= top))


# -- readers ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Subtopic:
    """A child topic the moderator proposes, with the claim ids of Author 0 and of Author 1 it
    maps to (1-based; either may be empty)."""

    title: str
    description: str
    contributions: tuple[tuple[int, ...], tuple[int, ...]]


@dataclass(frozen=True)
class Judgment:
    """The moderator's expansion judgments of a debated node."""

    explanation: str
    progression: bool
    questions: bool
    clear_winner: bool


def read_claims(text: str, pool: int, most: int) -> tuple[Claim, ...] | None:
    """`{"argument_list": [{argument_title, description, evidence}, ...]}`: the first `most`
    claims with a title and a description; evidence ids outside 1..`pool` dropped (a missing list
    cites nothing). None: no such claim."""
    items = _items(text, "argument_list")
    if items is None:
        return None
    claims: list[Claim] = []
    for item in items:
        if len(claims) == most:
            break
        title, description = _line(item.get("argument_title")), _text(item.get("description"))
        if title and description:
            claims.append(Claim(title, description, _ids(item.get("evidence"), pool)))
    return tuple(claims) or None


RELEVANCE_FIELDS = ("supports_claim", "refutes_claim", "clarifies_claim", "irrelevant_to_claim")


def read_relevance(text: str) -> Relevance | None:
    """`{supports_claim, refutes_claim, clarifies_claim, irrelevant_to_claim}`, each Yes/No; None
    unless all four read."""
    fields = _reply_fields(text)
    if fields is None:
        return None
    supports, refutes, clarifies, irrelevant = (yes_no(fields.get(k)) for k in RELEVANCE_FIELDS)
    if supports is None or refutes is None or clarifies is None or irrelevant is None:
        return None
    return Relevance(supports, refutes, clarifies, irrelevant)


def read_subtopics(text: str, claims: tuple[int, int], most: int) -> tuple[Subtopic, ...] | None:
    """`{"subtopic_list": [{topic_title, topic_description, author_0_relevant_contributions,
    author_1_relevant_contributions}, ...]}`: the first `most` subtopics with a title and a
    description; Author i's ids outside 1..`claims[i]` dropped (a missing list maps nothing).
    None: no such subtopic."""
    items = _items(text, "subtopic_list")
    if items is None:
        return None
    found: list[Subtopic] = []
    for item in items:
        if len(found) == most:
            break
        title, description = _line(item.get("topic_title")), _text(item.get("topic_description"))
        if title and description:
            contributions = (
                _ids(item.get("author_0_relevant_contributions"), claims[0]),
                _ids(item.get("author_1_relevant_contributions"), claims[1]),
            )
            found.append(Subtopic(title, description, contributions))
    return tuple(found) or None


# stage -> (title field, description field, least description length)
_ARGUMENT_FIELDS = {
    "present": ("argument_title", "description", 1),
    "revise": ("revised_argument_title", "revised_argument_description", 10),
}


def read_argument(text: str, stage: str) -> Argument | None:
    """A presented (`{argument_title, description}`) or revised (`{revised_argument_title,
    revised_argument_description}`, the description at least 10 characters) argument, with an
    optional Yes/No `concedes` (missing or unreadable: no concession)."""
    title_key, description_key, least = _ARGUMENT_FIELDS[stage]
    fields = _reply_fields(text)
    if fields is None:
        return None
    title = _line(fields.get(title_key))
    description = _text(fields.get(description_key), least)
    if not (title and description):
        return None
    return Argument(title, description, concedes=yes_no(fields.get("concedes")) is True)


def read_response(text: str) -> str | None:
    """`{author_response}`: at least 50 characters."""
    fields = _reply_fields(text)
    return None if fields is None else _text(fields.get("author_response"), 50)


def read_expansion(text: str) -> Judgment | None:
    """`{explanation, progression_of_arguments, meaningful_questions, clear_winner}`: None unless
    all three Yes/No fields read (a missing explanation is empty)."""
    fields = _reply_fields(text)
    if fields is None:
        return None
    progression = yes_no(fields.get("progression_of_arguments"))
    questions = yes_no(fields.get("meaningful_questions"))
    clear_winner = yes_no(fields.get("clear_winner"))
    if progression is None or questions is None or clear_winner is None:
        return None
    return Judgment(_text(fields.get("explanation")) or "", progression, questions, clear_winner)


def read_summary(text: str) -> str | None:
    """`{summary}`: at least 50 characters."""
    fields = _reply_fields(text)
    return None if fields is None else _text(fields.get("summary"), 50)


# -- schemas: what structured output asks for, the reference code's pydantic models in JSON Schema
# (written out, not built by functions, so that each reads as the JSON a provider receives)

_STRING = {"type": "string"}
_YES_NO = {"type": "string", "enum": ["Yes", "No"]}
# the reference allows 10 ids per list and no minimum (No-SD claims cite no excerpts)
_IDS = {"type": "array", "items": {"type": "integer"}, "maxItems": 10}
_CONCEDES = {"type": "boolean"}  # optional: a persona may say it concedes

SCHEMAS: dict[str, dict[str, Any]] = {
    "claims": {
        "type": "object",
        "properties": {
            "argument_list": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_CLAIMS,
                "items": {
                    "type": "object",
                    "properties": {
                        "argument_title": _STRING,
                        "description": _STRING,
                        "evidence": _IDS,
                    },
                    "required": ["argument_title", "description", "evidence"],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["argument_list"],
        "additionalProperties": False,
    },
    "relevance": {
        "type": "object",
        "properties": dict.fromkeys(RELEVANCE_FIELDS, _YES_NO),
        "required": list(RELEVANCE_FIELDS),
        "additionalProperties": False,
    },
    "subtopics": {
        "type": "object",
        "properties": {
            "subtopic_list": {
                "type": "array",
                "minItems": 1,
                "maxItems": MAX_SUBTOPICS,
                "items": {
                    "type": "object",
                    "properties": {
                        "topic_title": _STRING,
                        "topic_description": _STRING,
                        "author_0_relevant_contributions": _IDS,
                        "author_1_relevant_contributions": _IDS,
                    },
                    "required": [
                        "topic_title",
                        "topic_description",
                        "author_0_relevant_contributions",
                        "author_1_relevant_contributions",
                    ],
                    "additionalProperties": False,
                },
            }
        },
        "required": ["subtopic_list"],
        "additionalProperties": False,
    },
    "present": {
        "type": "object",
        "properties": {
            "argument_title": _STRING,
            "description": _STRING,
            "concedes": _CONCEDES,
        },
        "required": ["argument_title", "description"],
        "additionalProperties": False,
    },
    "respond": {
        "type": "object",
        "properties": {"author_response": {"type": "string", "minLength": 50}},
        "required": ["author_response"],
        "additionalProperties": False,
    },
    "revise": {
        "type": "object",
        "properties": {
            "revised_argument_title": _STRING,
            "revised_argument_description": {"type": "string", "minLength": 10},
            "concedes": _CONCEDES,
        },
        "required": ["revised_argument_title", "revised_argument_description"],
        "additionalProperties": False,
    },
    "expand": {
        "type": "object",
        "properties": {
            "explanation": _STRING,
            "progression_of_arguments": _YES_NO,
            "meaningful_questions": _YES_NO,
            "clear_winner": _YES_NO,
        },
        "required": [
            "explanation",
            "progression_of_arguments",
            "meaningful_questions",
            "clear_winner",
        ],
        "additionalProperties": False,
    },
    "summary": {
        "type": "object",
        "properties": {"summary": {"type": "string", "minLength": 50}},
        "required": ["summary"],
        "additionalProperties": False,
    },
}


# -- the synthesis input ---------------------------------------------------------------------------


def _argument_text(node: Node, author: int) -> str:
    if node.debate is None:
        return ""
    argument = node.debate.revise[author] or node.debate.present[author]
    return f"{argument.title}. {argument.description}" if argument else ""


def tree_json(nodes: Sequence[Node]) -> dict[str, Any]:
    """The tree as the synthesis reads it (spec 2.7): the root `{topic, children}`; every other
    node `{topic, description, author_0_argument, author_1_argument, children}`, where an argument
    is the revised one rendered "title. description" (the presented one if the revision could not
    be read, "" if neither could) and a leaf has no `children` key. `nodes` hold the root (the
    node without a parent); children come in the order of `Node.children`."""
    by_id = {node.id: node for node in nodes}
    root = next((node for node in nodes if node.parent is None), None)
    if root is None:
        raise ValueError("tree_json: no root node (a node without a parent)")

    def children(node: Node) -> list[dict[str, Any]]:
        return [rendered(by_id[child]) for child in node.children]

    def rendered(node: Node) -> dict[str, Any]:
        out: dict[str, Any] = {
            "topic": node.title,
            "description": node.description,
            "author_0_argument": _argument_text(node, 0),
            "author_1_argument": _argument_text(node, 1),
        }
        if node.children:
            out["children"] = children(node)
        return out

    return {"topic": root.title, "children": children(root)}


# -- sentences of a summary, for the factuality judge ----------------------------------------------

# a word ending in "." that seldom ends a sentence when the next word is capitalised or a number
ABBREVIATIONS = frozenset(
    {"e.g.", "i.e.", "al.", "cf.", "vs.", "fig.", "figs.", "eq.", "eqs.", "sec.", "tab.", "ref.",
     "refs.", "dr.", "mr.", "mrs.", "ms.", "prof.", "approx.", "resp.", "st."}
)  # fmt: skip
_CLOSERS = "\"')]}”’*_"  # what may follow a sentence's final mark
_OPENERS = "\"'([{“‘*_"  # what may open a sentence or a word


def _ends_sentence(word: str) -> bool:
    core = word.rstrip(_CLOSERS)
    if not core.endswith((".", "!", "?")):
        return False
    return core.lstrip(_OPENERS).lower() not in ABBREVIATIONS


def sentences(text: str) -> list[str]:
    """The sentences of a text, whitespace collapsed. A word ending in ".", "!" or "?" (closing
    quotes and brackets aside) ends a sentence unless it is a known abbreviation (e.g., i.e.,
    et al., Fig., vs., Dr., ...) or the next word begins in lower case ("approx. three"); a decimal
    point ("0.5") is inside a word, so it never splits."""
    found: list[str] = []
    current: list[str] = []
    for word in text.split():
        if current and _ends_sentence(current[-1]) and not word.lstrip(_OPENERS)[:1].islower():
            found.append(" ".join(current))
            current = []
        current.append(word)
    if current:
        found.append(" ".join(current))
    return found

"""Tree-of-Debate rules and readers (protocols/tod.py; spec seed-003 section 10, cases 2, 3 and 7):
the relevance keep-rule and its sentinel, both expansion rules, the budget and depth grant, the JSON
readers on good, messy and unreadable replies, the reply schemas, the tree JSON of the synthesis and
the sentence split of the factuality judge."""

from __future__ import annotations

import json
from collections.abc import Callable
from itertools import product
from typing import Any

import jsonschema
import pytest

from mad_tasks.engine.methods.tod.options import MAX_CLAIMS, MAX_SUBTOPICS
from mad_tasks.engine.methods.tod.records import (
    NOT_ADDRESSED,
    Argument,
    Claim,
    Debate,
    Node,
)
from mad_tasks.engine.protocols.tod import (
    MAX_JSON_ATTEMPTS,
    SCHEMAS,
    Judgment,
    Relevance,
    Subtopic,
    granted,
    json_object,
    keeps,
    read_argument,
    read_claims,
    read_expansion,
    read_relevance,
    read_response,
    read_subtopics,
    read_summary,
    sentences,
    tree_json,
    wants_expansion,
    yes_no,
)

LONG = "The tree separates the two methods by their training signals and their costs."  # 78 chars

# -- case 2: the relevance keep-rule ---------------------------------------------------------------

# (supports, refutes, clarifies, irrelevant): kept exactly when relevant and one of the three holds
KEPT = {
    (True, False, False, False),
    (False, True, False, False),
    (False, False, True, False),
    (True, True, False, False),
    (True, False, True, False),
    (False, True, True, False),
    (True, True, True, False),
}
COMBINATIONS_4 = list(product((False, True), repeat=4))


@pytest.mark.parametrize("fields", COMBINATIONS_4)
def test_keep_rule_truth_table(fields: tuple[bool, bool, bool, bool]) -> None:
    assert keeps(Relevance(*fields)) is (fields in KEPT)


@pytest.mark.parametrize("fields", COMBINATIONS_4)
def test_keep_rule_on_the_reference_yes_no_reply(fields: tuple[bool, bool, bool, bool]) -> None:
    names = ("supports_claim", "refutes_claim", "clarifies_claim", "irrelevant_to_claim")
    reply = json.dumps({n: "Yes" if f else "No" for n, f in zip(names, fields, strict=True)})
    judged = read_relevance(reply)
    assert judged == Relevance(*fields)
    assert keeps(judged) is (fields in KEPT)


def test_the_sentinel_of_an_unaddressed_claim() -> None:
    claim = "Faster training: one pass over the data."
    assert NOT_ADDRESSED.format(claim=claim) == (
        "We do not address the opposition's claim: Faster training: one pass over the data."
    )


# -- case 3: the expansion rules -------------------------------------------------------------------

# (progression, questions, clear_winner) -> wants, for each rule
CODE_EXPANDS = {(True, False, False), (False, True, False), (True, True, False)}
PAPER_STAYS = {(False, False, True)}  # the paper's rule expands unless all three say "stop"
COMBINATIONS_3 = list(product((False, True), repeat=3))


@pytest.mark.parametrize("judged", COMBINATIONS_3)
def test_code_rule_truth_table(judged: tuple[bool, bool, bool]) -> None:
    assert wants_expansion("code", *judged) is (judged in CODE_EXPANDS)


@pytest.mark.parametrize("judged", COMBINATIONS_3)
def test_paper_rule_truth_table(judged: tuple[bool, bool, bool]) -> None:
    assert wants_expansion("paper", *judged) is (judged not in PAPER_STAYS)


@pytest.mark.parametrize("rule", ["code", "paper"])
@pytest.mark.parametrize(
    "judged",
    [
        (None, True, False),  # would expand under both rules if read
        (True, None, False),
        (True, True, None),
        (False, False, None),  # the paper's rule would expand on "no clear winner"
        (None, None, None),
    ],
)
def test_an_unreadable_judgment_never_expands(
    rule: str, judged: tuple[bool | None, bool | None, bool | None]
) -> None:
    assert wants_expansion(rule, *judged) is False


def test_an_unknown_rule_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown expansion rule 'AND'"):
        wants_expansion("AND", True, True, False)


# -- the budget and the depth limit ----------------------------------------------------------------


@pytest.mark.parametrize(
    "wants, level, used, budget, max_depth, result",
    [
        (True, 1, 0, 3, None, (True, None)),
        (True, 1, 2, 3, None, (True, None)),  # the last expansion of the budget
        (True, 1, 3, 3, None, (False, "budget")),
        (True, 1, 4, 3, None, (False, "budget")),
        (True, 1, 0, 0, None, (False, "budget")),
        (True, 2, 0, None, 3, (True, None)),
        (True, 3, 0, None, 3, (False, "depth")),  # children would lie below the limit
        (True, 4, 0, None, 3, (False, "depth")),
        (True, 0, 0, None, 0, (False, "depth")),
        (True, 3, 3, 3, 3, (False, "depth")),  # depth is checked before the budget
        (True, 2, 3, 3, 3, (False, "budget")),
        (True, 9, 99, None, None, (True, None)),  # no limit at all
        (False, 1, 0, 3, None, (False, None)),  # not wanted: nothing blocked it
        (False, 3, 3, 3, 3, (False, None)),
    ],
)
def test_granted(
    wants: bool,
    level: int,
    used: int,
    budget: int | None,
    max_depth: int | None,
    result: tuple[bool, str | None],
) -> None:
    assert granted(wants, level, used, budget, max_depth) == result


def test_the_budget_goes_to_the_first_nodes_in_breadth_first_order() -> None:
    # the reference: five children of the root all want to expand, the budget is 3
    used, outcome = 0, {}
    for node in ("r.1", "r.2", "r.3", "r.4", "r.5"):
        ok, blocked = granted(True, 1, used, 3, None)
        used += ok
        outcome[node] = blocked or ok
    assert outcome == {"r.1": True, "r.2": True, "r.3": True, "r.4": "budget", "r.5": "budget"}


# -- JSON objects ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, obj",
    [
        ('{"summary": "x"}', {"summary": "x"}),
        ('```json\n{"summary": "x"}\n```', {"summary": "x"}),
        ('Here it is:\n```\n{"summary": "x"}\n```\nHope this helps {!}', {"summary": "x"}),
        ('Sure! {"a": 1} and then {"b": 2}', {"a": 1}),  # two objects: the first
        ('{"a": 1,} then {"b": 2}', {"b": 2}),  # the first does not decode
        ('{} is empty; {"b": 2}', {"b": 2}),  # an object without fields is skipped
        ('\\frac{1}{2} {x} { "b" : {"c": [1, 2]}}', {"b": {"c": [1, 2]}}),
        ('[{"a": 1}, {"b": 2}]', {"a": 1}),
        ('{"a": "line one\nline two\ttab"}', {"a": "line one\nline two\ttab"}),  # raw controls
        ('{"a": true, "b": null, "c": 1.5}', {"a": True, "b": None, "c": 1.5}),
    ],
)
def test_json_object_finds_the_first_object(reply: str, obj: dict[str, Any]) -> None:
    assert json_object(reply) == obj


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "no JSON here",
        "{summary: 'x'}",  # not JSON; never eval
        "{'summary': 'x'}",
        '{"summary": "x"',  # cut short
        '["a", "b"]',
        '{"a": ' * 5_000 + "1" + "}" * 5_000,  # nested past the recursion limit
        '{"a": [' + "9" * 5_000 + "]}",  # an integer past Python's digit limit
    ],
)
def test_json_object_unreadable(reply: str) -> None:
    assert json_object(reply) is None


def test_json_object_tries_a_bounded_number_of_starts() -> None:
    broken = '{"a": x} ' * (MAX_JSON_ATTEMPTS - 1)
    assert json_object(broken + '{"b": 2}') == {"b": 2}
    assert json_object(broken + '{"a": y} {"b": 2}') is None


# -- Yes/No fields ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "value, read",
    [
        (True, True),
        (False, False),
        ("Yes", True),
        ("yes", True),
        ("YES", True),
        ("true", True),
        ("True", True),
        ("No", False),
        ("no", False),
        ("FALSE", False),
        ("  No.", False),
        ("**Yes**", True),
        ("'no'", False),
        ('"Yes"', True),
        ("Yes, the evidence supports it.", True),
        ("No - nothing new.", False),
        ("Yesterday", None),
        ("Nothing", None),
        ("nope", None),
        ("not sure", None),
        ("maybe", None),
        ("y", None),
        ("", None),
        (1, None),
        (0, None),
        (None, None),
        (["yes"], None),
    ],
)
def test_yes_no(value: Any, read: bool | None) -> None:
    assert yes_no(value) is read


# -- claims ----------------------------------------------------------------------------------------


def claims_reply(*items: dict[str, Any], key: str = "argument_list") -> str:
    return json.dumps({key: list(items)})


def claim(title: str = "Label-free training", description: str = "It needs no labels.", **kw: Any):
    return {"argument_title": title, "description": description, **kw}


def test_read_claims_good() -> None:
    reply = claims_reply(
        claim("Label-free training", "It needs no labels.", evidence=[1, 3]),
        claim("Cheaper inference", "One forward pass.", evidence=[2]),
    )
    assert read_claims(reply, pool=5, most=3) == (
        Claim("Label-free training", "It needs no labels.", (1, 3)),
        Claim("Cheaper inference", "One forward pass.", (2,)),
    )


def test_read_claims_messy() -> None:
    items = [
        {
            "ARGUMENT_TITLE": "  Label-free\n  training ",
            " Description ": " It needs no labels. ",
            "Evidence": [0, 6, 2, 2, "3", " #4 ", True, 1.5, -1, "x", "X5", "²", None],
            "confidence": "high",
        },
        claim("No description", ""),  # unreadable items are skipped, not counted
        {"argument_title": "Not a list of ids", "description": "d", "evidence": 5},
        "not an object",
        claim("Missing evidence"),
        claim("One too many", evidence=[1]),
    ]
    reply = "Here are my arguments:\n```json\n" + json.dumps({"Argument_List": items}) + "\n```"
    assert read_claims(reply, pool=5, most=3) == (
        Claim("Label-free training", "It needs no labels.", (2, 3, 4)),
        Claim("Not a list of ids", "d", (5,)),
        Claim("Missing evidence", "It needs no labels.", ()),
    )


def test_an_id_written_as_text_has_at_most_six_digits() -> None:
    reply = claims_reply(claim(evidence=["123456", "1234567", 1234567, "0000042"]))
    assert read_claims(reply, pool=10**7, most=1) == (
        Claim("Label-free training", "It needs no labels.", (123456, 1234567)),
    )


def test_read_claims_keeps_at_most_and_drops_ids_without_a_pool() -> None:
    reply = claims_reply(*(claim(f"Claim {i}", evidence=[1, 2]) for i in range(1, 8)))
    read = read_claims(reply, pool=0, most=3)  # No-SD: no excerpts to cite
    assert read is not None
    assert [c.title for c in read] == ["Claim 1", "Claim 2", "Claim 3"]
    assert all(c.evidence == () for c in read)
    assert read_claims(reply, pool=1, most=1) == (Claim("Claim 1", "It needs no labels.", (1,)),)


@pytest.mark.parametrize(
    "reply",
    [
        "I cannot find any claims.",
        claims_reply(),
        claims_reply(claim(), key="arguments"),
        json.dumps({"argument_list": claim()}),
        json.dumps({"argument_list": ["Label-free training"]}),
        claims_reply(claim(" "), claim(description=" ")),
        claims_reply({"argument_title": 3, "description": ["x"]}),
        json.dumps(claim(evidence=[1])),  # one claim without the list
    ],
)
def test_read_claims_unreadable(reply: str) -> None:
    assert read_claims(reply, pool=5, most=3) is None


# -- relevance -------------------------------------------------------------------------------------


@pytest.mark.parametrize("unreadable", range(4))
def test_read_relevance_needs_every_field(unreadable: int) -> None:
    names = ("supports_claim", "refutes_claim", "clarifies_claim", "irrelevant_to_claim")
    fields = {name: "maybe" if i == unreadable else "No" for i, name in enumerate(names)}
    assert read_relevance(json.dumps(fields)) is None


def test_read_relevance_messy() -> None:
    reply = (
        "The evidence is relevant.\n```json\n"
        '{"Supports_Claim": true, "REFUTES_CLAIM": "no.", " clarifies_claim ": "Yes, it does",'
        ' "irrelevant_to_claim": "False", "why": "x"}\n```'
    )
    assert read_relevance(reply) == Relevance(True, False, True, False)


@pytest.mark.parametrize(
    "reply",
    [
        "Yes, it supports the claim.",
        '{"supports_claim": "Yes", "refutes_claim": "No", "clarifies_claim": "No"}',
        '{"supports": "Yes", "refutes": "No", "clarifies": "No", "irrelevant": "No"}',
        '{"supports_claim": "Yes", "refutes_claim": "No", "clarifies_claim": "No",'
        ' "irrelevant_to_claim": "maybe"}',
        '{"supports_claim": 1, "refutes_claim": 0, "clarifies_claim": 0, "irrelevant_to_claim": 0}',
    ],
)
def test_read_relevance_unreadable(reply: str) -> None:
    assert read_relevance(reply) is None


# -- subtopics -------------------------------------------------------------------------------------


def subtopic(title: str, a0: Any = (), a1: Any = (), description: str = "What to debate.") -> dict:
    return {
        "topic_title": title,
        "topic_description": description,
        "author_0_relevant_contributions": list(a0) if isinstance(a0, tuple) else a0,
        "author_1_relevant_contributions": list(a1) if isinstance(a1, tuple) else a1,
    }


def test_read_subtopics_good() -> None:
    reply = json.dumps(
        {"subtopic_list": [subtopic("Supervision", (1, 2), (1,)), subtopic("Cost", (3,), ())]}
    )
    assert read_subtopics(reply, claims=(3, 2), most=5) == (
        Subtopic("Supervision", "What to debate.", ((1, 2), (1,))),
        Subtopic("Cost", "What to debate.", ((3,), ())),
    )


def test_read_subtopics_messy() -> None:
    items = [
        {
            "Topic_Title": "Weak\nsupervision",
            "TOPIC_DESCRIPTION": "  Which signal trains better. ",
            "author_0_relevant_contributions": [1, 3, 4, 0, 3, "2", -2],
            "Author_1_Relevant_Contributions": [2, 5, 1],
            "rationale": "extra",
        },
        {
            "topic_title": "Only author 0",
            "topic_description": "d",
            "author_0_relevant_contributions": 2,
        },
        subtopic("", (1,)),  # no title: skipped
        subtopic("Nothing mapped", (9,), (9,)),  # kept: both lists may end empty
        *(subtopic(f"Extra {i}", (1,)) for i in range(5)),
    ]
    reply = "Subtopics follow.\n```json\n" + json.dumps({"SUBTOPIC_LIST": items}) + "\n```\nDone."
    assert read_subtopics(reply, claims=(3, 2), most=4) == (
        Subtopic("Weak supervision", "Which signal trains better.", ((1, 3, 2), (2, 1))),
        Subtopic("Only author 0", "d", ((2,), ())),
        Subtopic("Nothing mapped", "What to debate.", ((), ())),
        Subtopic("Extra 0", "What to debate.", ((1,), ())),
    )


def test_read_subtopics_no_tree_keeps_one() -> None:
    reply = json.dumps({"subtopic_list": [subtopic("All", (1,), (1,)), subtopic("More", (2,))]})
    assert read_subtopics(reply, claims=(1, 1), most=1) == (
        Subtopic("All", "What to debate.", ((1,), (1,))),
    )


@pytest.mark.parametrize(
    "reply",
    [
        "Subtopic 1: supervision.",
        json.dumps({"subtopic_list": []}),
        json.dumps({"subtopics": [subtopic("A", (1,))]}),
        json.dumps({"subtopic_list": [subtopic("A", (1,), description="")]}),
        json.dumps(subtopic("A", (1,))),
    ],
)
def test_read_subtopics_unreadable(reply: str) -> None:
    assert read_subtopics(reply, claims=(3, 3), most=5) is None


# -- arguments, responses, expansion, summary ------------------------------------------------------


@pytest.mark.parametrize(
    "reply, argument",
    [
        (
            '{"argument_title": "Better supervision", "description": "We need no labels."}',
            Argument("Better supervision", "We need no labels."),
        ),
        (
            'My argument:\n```json\n{"Argument_Title": " Better\\n supervision ",'
            ' "DESCRIPTION": " We need no labels. ", "Concedes": "Yes", "tone": "calm"}\n```',
            Argument("Better supervision", "We need no labels.", concedes=True),
        ),
        (
            '{"argument_title": "I concede", "description": "Yours is better.", "concedes": true}',
            Argument("I concede", "Yours is better.", concedes=True),
        ),
        (
            '{"argument_title": "T", "description": "D", "concedes": "perhaps"}',
            Argument("T", "D", concedes=False),
        ),
        (
            '{"argument_title": "T", "description": "D", "concedes": false}',
            Argument("T", "D", concedes=False),
        ),
    ],
)
def test_read_present(reply: str, argument: Argument) -> None:
    assert read_argument(reply, "present") == argument


@pytest.mark.parametrize(
    "reply",
    [
        "I argue that my method is better.",
        '{"argument_title": "T"}',
        '{"argument_title": " ", "description": "D"}',
        '{"argument_title": "T", "description": ""}',
        '{"revised_argument_title": "T", "revised_argument_description": "A long description."}',
    ],
)
def test_read_present_unreadable(reply: str) -> None:
    assert read_argument(reply, "present") is None


@pytest.mark.parametrize(
    "description, argument",
    [
        ("123456789", None),  # the reference's minimum: 10 characters
        ("   12345678   ", None),  # counted once stripped
        ("1234567890", Argument("Stronger claim", "1234567890")),
        (" Now robust to the doubt. ", Argument("Stronger claim", "Now robust to the doubt.")),
    ],
)
def test_read_revise(description: str, argument: Argument | None) -> None:
    reply = json.dumps(
        {"Revised_Argument_Title": "Stronger claim", "revised_argument_description": description}
    )
    assert read_argument(reply, "revise") == argument


def test_read_revise_takes_only_revised_fields() -> None:
    assert read_argument('{"argument_title": "T", "description": "Long enough."}', "revise") is None


@pytest.mark.parametrize(
    "text, read",
    [
        ("x" * 49, None),
        (" " * 10 + "x" * 49 + "\n", None),
        ("x" * 50, "x" * 50),
        ("  " + LONG + "  ", LONG),
    ],
)
def test_read_response_and_summary_need_fifty_characters(text: str, read: str | None) -> None:
    assert read_response(json.dumps({"author_response": text})) == read
    assert read_summary(json.dumps({"summary": text})) == read


def test_read_response_and_summary_messy_and_unreadable() -> None:
    assert read_response('Reply:\n```json\n{"Author_Response": "' + LONG + '"}\n```') == LONG
    assert read_summary('{"SUMMARY": "' + LONG + '", "length": 1}') == LONG
    assert read_response(LONG) is None
    assert read_summary(LONG) is None
    assert read_response(json.dumps({"summary": LONG})) is None
    assert read_summary(json.dumps({"author_response": LONG})) is None
    assert read_summary(json.dumps({"summary": ["a list", LONG]})) is None


@pytest.mark.parametrize(
    "reply, judgment",
    [
        (
            '{"explanation": "New concepts came up.", "progression_of_arguments": "Yes",'
            ' "meaningful_questions": "No", "clear_winner": "No"}',
            Judgment("New concepts came up.", True, False, False),
        ),
        (
            '```json\n{"Explanation": " Both conceded. ", "PROGRESSION_OF_ARGUMENTS": false,'
            ' "meaningful_questions": "no.", "Clear_Winner": "YES, author 0", "extra": 1}\n```',
            Judgment("Both conceded.", False, False, True),
        ),
        (
            '{"progression_of_arguments": "true", "meaningful_questions": "True",'
            ' "clear_winner": "false"}',
            Judgment("", True, True, False),  # no explanation: still a decision
        ),
    ],
)
def test_read_expansion(reply: str, judgment: Judgment) -> None:
    assert read_expansion(reply) == judgment


@pytest.mark.parametrize(
    "reply",
    [
        "Progression: yes. Questions: no. Clear winner: no.",
        '{"progression_of_arguments": "Yes", "meaningful_questions": "No"}',
        '{"progression_of_arguments": "Yes", "meaningful_questions": "No",'
        ' "clear_winner": "unclear"}',
    ],
)
def test_read_expansion_unreadable(reply: str) -> None:
    assert read_expansion(reply) is None


@pytest.mark.parametrize("unreadable", range(3))
def test_read_expansion_needs_every_judgment(unreadable: int) -> None:
    names = ("progression_of_arguments", "meaningful_questions", "clear_winner")
    fields = {name: "unclear" if i == unreadable else "Yes" for i, name in enumerate(names)}
    assert read_expansion(json.dumps({"explanation": "x", **fields})) is None


# -- schemas ---------------------------------------------------------------------------------------

READERS: dict[str, Callable[[str], object]] = {
    "claims": lambda text: read_claims(text, pool=1, most=MAX_CLAIMS),
    "relevance": read_relevance,
    "subtopics": lambda text: read_subtopics(text, claims=(1, 1), most=MAX_SUBTOPICS),
    "present": lambda text: read_argument(text, "present"),
    "respond": read_response,
    "revise": lambda text: read_argument(text, "revise"),
    "expand": read_expansion,
    "summary": read_summary,
}


def instance(schema: dict[str, Any]) -> Any:
    """The smallest value of a schema with every required field (strings of 60 characters,
    integers 1, the first of an enum)."""
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema["type"]
    if kind == "object":
        return {key: instance(schema["properties"][key]) for key in schema["required"]}
    if kind == "array":
        return [instance(schema["items"])] * max(1, schema.get("minItems", 0))
    return {"string": "x" * 60, "integer": 1, "boolean": True}[kind]


def test_schemas_cover_every_reply_kind() -> None:
    assert set(SCHEMAS) == set(READERS)


@pytest.mark.parametrize("kind", READERS)
def test_schema_is_valid_json_schema(kind: str) -> None:
    schema = SCHEMAS[kind]
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert schema["additionalProperties"] is False
    assert set(schema["required"]) <= set(schema["properties"])


@pytest.mark.parametrize("kind", READERS)
def test_schema_round_trip(kind: str) -> None:
    obj = instance(SCHEMAS[kind])
    jsonschema.validate(obj, SCHEMAS[kind])
    assert READERS[kind](json.dumps(obj)) is not None


def required_paths(schema: dict[str, Any], path: tuple = ()) -> list[tuple]:
    """Every required field, as a path of keys and list indices into `instance(schema)`."""
    if schema.get("type") == "array":
        return required_paths(schema["items"], (*path, 0))
    if schema.get("type") != "object":
        return []
    found = []
    for key in schema["required"]:
        found.append((*path, key))
        found += required_paths(schema["properties"][key], (*path, key))
    return found


@pytest.mark.parametrize(
    "kind, path", [(kind, path) for kind in READERS for path in required_paths(SCHEMAS[kind])]
)
def test_every_required_field_is_read(kind: str, path: tuple) -> None:
    # without any one required field, the reply reads differently (or not at all)
    full = instance(SCHEMAS[kind])
    cut = json.loads(json.dumps(full))
    parent = cut
    for step in path[:-1]:
        parent = parent[step]
    del parent[path[-1]]
    assert READERS[kind](json.dumps(cut)) != READERS[kind](json.dumps(full))


def test_schema_bounds_are_the_reference_ones() -> None:
    claims = SCHEMAS["claims"]["properties"]["argument_list"]
    subtopics = SCHEMAS["subtopics"]["properties"]["subtopic_list"]
    assert (claims["minItems"], claims["maxItems"]) == (1, 10)
    assert (subtopics["minItems"], subtopics["maxItems"]) == (1, 10)
    assert claims["items"]["properties"]["evidence"]["maxItems"] == 10
    assert SCHEMAS["respond"]["properties"]["author_response"]["minLength"] == 50
    assert SCHEMAS["revise"]["properties"]["revised_argument_description"]["minLength"] == 10
    assert SCHEMAS["summary"]["properties"]["summary"]["minLength"] == 50
    assert SCHEMAS["relevance"]["properties"]["supports_claim"]["enum"] == ["Yes", "No"]
    assert SCHEMAS["present"]["required"] == ["argument_title", "description"]


# -- case 7: the tree JSON -------------------------------------------------------------------------


def debate(
    present: tuple[Argument | None, Argument | None],
    revise: tuple[Argument | None, Argument | None],
) -> Debate:
    return Debate(present=present, respond=("r0", "r1"), revise=revise)


P0, P1 = Argument("Presented 0", "First try."), Argument("Presented 1", "First try.")
R0, R1 = Argument("Revised 0", "Robust now."), Argument("Revised 1", "Conceded.", concedes=True)

NODES = [
    Node("r", None, 0, 0, "text classification", "text classification", children=("r.1", "r.2")),
    Node(
        "r.1", "r", 1, 1, "Supervision", "Which signal.", ((1,), (2,)),
        debate=debate((P0, P1), (R0, R1)), children=("r.1.1",),
    ),
    Node("r.2", "r", 1, 2, "Cost", "Compute budget.", debate=debate((P0, P1), (R0, None))),
    Node("r.1.1", "r.1", 2, 3, "Labels", "Label noise.", debate=debate((None, P1), (None, None))),
]  # fmt: skip

TREE = {
    "topic": "text classification",
    "children": [
        {
            "topic": "Supervision",
            "description": "Which signal.",
            "author_0_argument": "Revised 0. Robust now.",
            "author_1_argument": "Revised 1. Conceded.",
            "children": [
                {
                    "topic": "Labels",
                    "description": "Label noise.",
                    "author_0_argument": "",  # neither argument could be read
                    "author_1_argument": "Presented 1. First try.",  # revision unreadable
                }
            ],
        },
        {
            "topic": "Cost",
            "description": "Compute budget.",
            "author_0_argument": "Revised 0. Robust now.",
            "author_1_argument": "Presented 1. First try.",
        },
    ],
}


def test_tree_json_shape() -> None:
    tree = tree_json(NODES)
    assert tree == TREE
    assert json.loads(json.dumps(tree)) == TREE  # plain JSON


def test_tree_json_follows_children_not_list_order() -> None:
    assert tree_json(list(reversed(NODES))) == TREE


def test_tree_json_of_a_root_without_children_and_of_no_root() -> None:
    assert tree_json([Node("r", None, 0, 0, "T", "T")]) == {"topic": "T", "children": []}
    with pytest.raises(ValueError, match="no root"):
        tree_json(NODES[1:])


def test_tree_json_of_an_undebated_node() -> None:
    nodes = [Node("r", None, 0, 0, "T", "T", children=("r.1",)), Node("r.1", "r", 1, 1, "A", "B")]
    assert tree_json(nodes)["children"] == [
        {"topic": "A", "description": "B", "author_0_argument": "", "author_1_argument": ""}
    ]


# -- sentences -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, split",
    [
        ("", []),
        ("  \n ", []),
        ("No final mark at all", ["No final mark at all"]),
        (
            "Both classify text. One needs labels! Does the other? It does not.",
            ["Both classify text.", "One needs labels!", "Does the other?", "It does not."],
        ),
        (
            "Meng et al. propose LOTClass. They compare it in Fig. 3 and Tab. 2 with BERT.",
            ["Meng et al. propose LOTClass.", "They compare it in Fig. 3 and Tab. 2 with BERT."],
        ),
        (
            "Accuracy rose from 0.5 to 0.75. It then fell to 3.2% on AG News.",
            ["Accuracy rose from 0.5 to 0.75.", "It then fell to 3.2% on AG News."],
        ),
        (
            "They differ, e.g. BERT masks words, i.e. MLM. Both train once.",
            ["They differ, e.g. BERT masks words, i.e. MLM.", "Both train once."],
        ),
        ("GPT vs. BERT differ. Dr. Lee agrees.", ["GPT vs. BERT differ.", "Dr. Lee agrees."]),
        ("It costs approx. three calls. Then it stops.", ["It costs approx. three calls.", "Then it stops."]),
        ('He said "it works." Then he left.', ['He said "it works."', "Then he left."]),
        ("(See Fig. 2). Next one.", ["(See Fig. 2).", "Next one."]),
        ("Wait... Then go.", ["Wait...", "Then go."]),
        ("Version 2. 3 runs followed.", ["Version 2.", "3 runs followed."]),
        ("One.\n\nTwo\nlines.", ["One.", "Two lines."]),
        ("It ends with etc. and goes on. Next.", ["It ends with etc. and goes on.", "Next."]),
        ("It ends with etc. (and more) here.", ["It ends with etc. (and more) here."]),
        ("Models (e.g. BERT) and (i.e. GPT) too.", ["Models (e.g. BERT) and (i.e. GPT) too."]),
        # a word in lower case continues the sentence, even a brand's name
        ("It runs on the phone. iOS too.", ["It runs on the phone. iOS too."]),
        ("Lists: a, b, etc. The end.", ["Lists: a, b, etc.", "The end."]),
    ],
)  # fmt: skip
def test_sentences(text: str, split: list[str]) -> None:
    assert sentences(text) == split

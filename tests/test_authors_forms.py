"""The readers of the authors' answer forms (engine/authors_forms.py), on written cases and on real
replies with their authors' readings, and `-S answer_form=authors` asking for and reading them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from scripted import ScriptedRuntime, last_user, tag

from mad_tasks.engine import authors_forms as af
from mad_tasks.engine.answers import Choice, FreeText, Math, Number, YesNo
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question, text_of
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.methods.tod.options import SamplingOptions
from mad_tasks.engine.requests import AnswerRequest, ReviewRequest
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.setup import SETUP

CHOICE = Choice(("Paris", "Rome", "Oslo", "Bern"))

# -- the single score: [[N]] ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "score"),
    [
        ("The answer is accurate.\n\nRating: [[8]]", 8),
        ("Rating: [[9.5]]", 9.5),
        ("Rating: [[10]]", 10),
        ("Rating: [[0]]", 0),
        ("Rating: [[7.0]]", 7),
        # FastChat's first mark: a later, hypothetical one does not count
        ("Rating: [[9]]\n\nWith tests it would earn a rating of [[10]].", 9),
        # an example is passed over (the prompt's format echoed), the own score read
        ('In the format, for example "Rating: [[5]]".\n\nRating: [[3]]', 3),
        ("Judge 2 said [[2]] earlier.\nRating: [[6]]", 6),
        # a reason after a comma may hold any word but a hedge or a condition
        ("Rating: [[4]], as the code was provided without tests.", 4),
        # the sentence ends the mark's context: a hedge in the next one, or far back, is not its
        ("Rating: [[8]]. Maybe the code could use more tests.", 8),
        ("Maybe " + "x" * af.WINDOW + " [[8]]", 8),
        ("Rating: [[8]] points, if the code runs.", None),
        # FastChat's fallback [N], here only alone on its line
        ("[The Start of Rating]\n\n[5]\n\n[The End of Rating]", 5),
        ("  [6.5]  \nsome text", 6.5),
    ],
)
def test_rating_reads_the_stated_score(reply: str, score: float | None) -> None:
    got = af.read_rating(reply)
    assert got == score and type(got) is type(score)


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "I rate the response as 7.",
        "majority = array[0]\nprint(array[1])",  # FastChat reads 0 here
        "x = [5] + y",  # not alone on its line
        "Rating: [[8]]?",
        "Rating: maybe [[8]]",
        "I would not give it [[8]]",
        "It isn't [[8]]",
        "Rating: [[8]] or [[9]]",
        "Rating: [[8]] to [[9]]",
        "Rating: [[8]]-[9]",
        "Rating: [[8]], if the code runs.",
        "Rating: maybe[[8]]",
        "Rating: [[11]]",
        "Rating: [[-1]]",
        "For example: [[5]]",  # only an example
    ],
)
def test_rating_abstains(reply: str) -> None:
    assert af.read_rating(reply) is None


def test_rating_scale_bounds() -> None:
    assert af.read_rating("Rating: [[4]]", (1, 3)) is None
    assert af.read_rating("Rating: [[3]]", (1, 3)) == 3
    assert af.read_rating("Rating: [[1]]", (1, 3)) == 1
    assert af.read_rating("Rating: [[0.5]]", (1, 3)) is None


def test_rating_judges_a_bounded_number_of_marks() -> None:
    examples = "For example [[5]].\n" * af.MAX_MARKS
    assert af.read_rating(examples + "Rating: [[7]]") is None
    assert af.read_rating(examples[: -len("For example [[5]].\n")] + "Rating: [[7]]") == 7
    # a reply with [[N]] marks never falls back to a bare [N]
    assert af.read_rating(examples + "[4]") is None


# -- the pairwise verdict: [[A]] / [[B]] / [[C]] --------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "verdict"),
    [
        ("Assistant A is more thorough.\n\n[[A]]", "A"),
        ("Final verdict: [[B]]", "B"),
        ("Final verdict: [[C]] for a tie, as both are wrong.", "tie"),
        ("[[B]] Assistant B is better, as it is less likely to mislead.", "B"),
        # the format echoed with conditions, then the verdict
        ('Output "[[A]]" if A is better, "[[B]]" if B is better.\n\nVerdict: [[B]]', "B"),
        ("Judge 1 suggested [[A]].\nMy verdict: [[B]]", "B"),
        ("[[A]]\n\nSo, again: [[A]]", "A"),
    ],
)
def test_verdict_reads_the_last_stated_mark(reply: str, verdict: str) -> None:
    assert af.read_verdict(reply) == verdict


@pytest.mark.parametrize(
    "reply",
    [
        "$ERROR$",
        "Verdict: A",
        "Verdict: [[A]]?",
        "Verdict: maybe [[A]]",
        "Verdict: not [[A]]",
        "Verdict: [[A]] or [[B]]",
        "Verdict: [[A]], unless B's code runs.",
        "[[A]] is my first thought.\n\nVerdict: [[B]]",  # two stated verdicts differ
        "Judge 1 suggested [[A]].",  # only another's verdict
    ],
)
def test_verdict_abstains(reply: str) -> None:
    assert af.read_verdict(reply) is None


def test_verdict_judges_a_bounded_number_of_other_marks() -> None:
    others = "For example [[A]].\n"
    assert af.read_verdict(others * af.MAX_MARKS + "Verdict: [[B]]") == "B"
    assert af.read_verdict(others * (af.MAX_MARKS + 1) + "Verdict: [[B]]") is None


# -- the confidence tag ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "confidence"),
    [
        ("<confidence>85</confidence>", 0.85),
        ("<confidence>0.85</confidence>", 0.85),
        ("<confidence> 85 % </confidence>", 0.85),
        ("<Confidence>100</Confidence>", 1.0),
        ("<confidence>1</confidence>", 1.0),
        ("<confidence>0</confidence>", 0.0),
        ("<confidence>1%</confidence>", 0.01),
        ("<confidence>2</confidence>", 0.02),
        ("<confidence>10</confidence> then <confidence>20</confidence>", 0.2),
    ],
)
def test_confidence_tag(reply: str, confidence: float) -> None:
    assert af.read_confidence_tag(reply) == pytest.approx(confidence)


@pytest.mark.parametrize(
    "reply",
    [
        "Confidence: 85",
        "<confidence>101</confidence>",
        "<confidence>150%</confidence>",
        "<confidence>~85</confidence>",
        "<confidence>85?</confidence>",
        "<confidence>maybe 85</confidence>",
        "<confidence>85-90</confidence>",
        "<confidence>high</confidence>",
        "<confidence>-5</confidence>",
        "<confidence>85</confidence> then <confidence>high</confidence>",
    ],
)
def test_confidence_tag_abstains(reply: str) -> None:
    assert af.read_confidence_tag(reply) is None


# -- \boxed{} and (X) -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "fmt", "answer"),
    [
        ("So 3 + 4 = 7.\n\n\\boxed{7}", Number(), "7"),
        ("First \\boxed{5}, then rechecking: \\boxed{1,234}", Number(), "1234"),
        ("\\boxed{30 * 3 = 90}", Number(), "90"),
        ("The result is \\boxed{\\frac{1}{2}}.", Math(), "\\frac{1}{2}"),
        ("One agent suggests \\boxed{45}. I get \\boxed{44}.", Number(), "44"),
        ("The answer is \\fbox{12}", Number(), "12"),
        ("It is not \\fbox{7}. So \\fbox{8}", Number(), "8"),
        ("The result is \\fbox{8}. Perhaps that is all.", Number(), "8"),
    ],
)
def test_boxed_reads_the_last_box(reply: str, fmt: Number | Math, answer: str) -> None:
    assert af.read_boxed(reply, fmt) == answer


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is 7.",
        "I get \\boxed{44}. Another agent suggests \\boxed{45}.",  # the last box is another's
        "It is not \\boxed{7}",
        "Perhaps \\boxed{7}",
        "\\boxed{7}?",
        "\\boxed{7} or \\boxed{8}",
        "\\boxed{7}. Then \\boxed{5-10}",  # a refused last box: no earlier one stands in
        "Write it as \\boxed{answer}",
        "\\boxed{7",
    ],
)
def test_boxed_abstains(reply: str) -> None:
    assert af.read_boxed(reply, Number()) is None


@pytest.mark.parametrize(
    ("reply", "letter"),
    [
        ("Paris is the capital. (A)", "A"),
        ("(B) is wrong. So the answer is (c)", "C"),
        ("The answer is (D), since Bern is the capital.", "D"),
        ("Reasoning ... (Z) is not an option.\n\nFinal answer: (B)", "B"),
        ("Agent 2 says (A).\n\nI choose (B)", "B"),
        ("answer(s) considered; final: (A)", "A"),
        ("I pick (c) and confirm (c)", "C"),
    ],
)
def test_letter_reads_the_last_option(reply: str, letter: str) -> None:
    assert af.read_letter(reply, CHOICE) == letter


@pytest.mark.parametrize(
    "reply",
    [
        "The answer is A.",
        "Put your final answer in the form (X)",
        "I pick (B). Agent 2 says (A).",
        "It is not (B)",
        "Maybe (B)",
        "(B)?",
        "(A) or (B)",
        "(B) is wrong, so the answer is (C)",  # two options in one sentence
        "Options: (A) Paris (B) Rome (C) Oslo (D) Bern",
        "(B), if the map is old.",
    ],
)
def test_letter_abstains(reply: str) -> None:
    assert af.read_letter(reply, CHOICE) is None


# -- the MAD moderator's object -------------------------------------------------------------------


def test_fields_read_a_python_dict_and_json() -> None:
    python = "{'Whether there is a preference': 'Yes', 'Supported Side': 'Negative', 'Reason': \"the side's view\", 'debate_answer': 'It\\'s 3'}"
    assert af.read_fields(python) == {
        "Whether there is a preference": "Yes",
        "Supported Side": "Negative",
        "Reason": "the side's view",
        "debate_answer": "It's 3",
    }
    fenced = '```json\n{\n  "Reason": "a \\"quote\\" and \\u00e9\\u4e2d\\\\n",\n  "Correct Translation": "x",\n}\n```\n'
    assert af.read_fields(fenced) == {"Reason": 'a "quote" and é中\\n', "Correct Translation": "x"}
    assert af.read_fields("  {'a': 'b\\tc\\qd'}  ") == {"a": "b\tc\\qd"}


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "{}",
        "Here it is: {'a': 'b'}",
        "{'a': 'b'} and more",
        "{'a': 'b' 'c': 'd'}",
        "{'a' 'b'}",
        "{'a': 5}",
        "{'a': {'b': 'c'}}",
        "{'a': 'b', 'a': 'c'}",
        "{'a': 'b'",
        "{'a': 'b\n'}",
        "{a: 'b'}",
    ],
)
def test_fields_abstain(reply: str) -> None:
    assert af.read_fields(reply) is None


@pytest.mark.parametrize(
    ("fields", "side"),
    [
        ({"Whether there is a preference": "Yes", "Supported Side": "Negative"}, "Negative"),
        (
            {"Whether there is a preference": " yes ", "Supported Side": " Affirmative "},
            "Affirmative",
        ),
        ({"Whether there is a preference": "No", "Supported Side": ""}, ""),
        ({"Whether there is a preference": "No"}, ""),
        ({"Whether there is a preference": "Yes", "Supported Side": ""}, None),
        ({"Whether there is a preference": "Yes"}, None),
        ({"Whether there is a preference": "Yes", "Supported Side": "Negative?"}, None),
        ({"Whether there is a preference": "Maybe", "Supported Side": "Negative"}, None),
        ({"Supported Side": "Negative"}, None),
    ],
)
def test_moderator_side(fields: dict[str, str], side: str | None) -> None:
    assert af.moderator_side(fields) == side


# -- the readers on real replies with their authors' readings -------------------------------------

# the folders of real replies: MAD_TASKS_REAL_REPLIES (several separated by ":"), else the
# developers' set beside the repository
FOLDERS = [
    Path(folder)
    for folder in os.environ.get(
        "MAD_TASKS_REAL_REPLIES",
        str(Path(__file__).resolve().parents[2] / "shared" / "data" / "realreplies"),
    ).split(os.pathsep)
    if folder
]
READERS = {
    "judge_score.jsonl": af.read_rating,
    "judge_verdict.jsonl": af.read_verdict,
    "mad_moderator.jsonl": af.read_fields,
}


def test_real_replies_agree_with_their_authors_readings() -> None:
    """At least 99% of the replies that have an authors' reading are read alike; none is read
    differently (a reader may only abstain), and none without one is read."""
    files = [(folder / name, read) for folder in FOLDERS for name, read in READERS.items()]
    files = [(path, read) for path, read in files if path.is_file()]
    if not files:
        pytest.skip(f"no real replies in {FOLDERS} (set MAD_TASKS_REAL_REPLIES)")
    counts = {"agree": 0, "abstain": 0, "disagree": 0, "read_without": 0}
    for path, read in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            row = json.loads(line)
            got, theirs = read(row["reply"]), row["authors_reading"]
            if theirs is None:
                counts["read_without"] += got is not None
            elif got is None:
                counts["abstain"] += 1
            else:
                counts["agree" if got == theirs else "disagree"] += 1
    read = counts["agree"] + counts["abstain"] + counts["disagree"]
    assert read > 0
    print(f"authors' forms on real replies: {counts}, agreement {counts['agree'] / read:.4f}")
    assert counts["agree"] >= 0.99 * read
    assert counts["disagree"] == counts["read_without"] == 0


# -- -S answer_form=authors -----------------------------------------------------------------------


async def authored(method: str, problem: Problem, reply, **options):
    spec = CATALOGUE[method]
    opts = spec.options(**{**spec.preset, "answer_form": "authors", **options})
    rt = ScriptedRuntime(reply)
    result = await spec.ready(opts, SETUP)(Session(rt, problem, retries=0))
    return rt, result


def _boxed_reply(call: Call) -> str:
    # agent 3 keeps an ANSWER line, which the authors' form does not read
    if call.agent == "agent_3":
        return f"{tag(call.agent, call.round)}\nANSWER: 12"
    return f"{tag(call.agent, call.round)} 5 + 7 = 12.\n\n\\boxed{{12}}"


async def test_du_debate_asks_for_a_box_and_reads_it() -> None:
    problem = Problem(Question.of(["What is 5 + 7?"]), Number())
    rt, result = await authored("du_debate", problem, _boxed_reply)
    assert len(rt.calls) == 6
    for call in rt.calls:
        asked = last_user(call)
        assert asked.endswith(af.boxed(Number()).instruction())
        assert Number().instruction() not in asked
    answers = {(a.agent, a.round): a.answer for a in result.answers}
    assert answers == {
        (f"agent_{i}", r): "12" if i < 3 else None for i in (1, 2, 3) for r in (1, 2)
    }
    assert result.final == "12"
    assert problem.fmt.name == "number"  # the task's problem is left as it was


async def test_du_debate_asks_for_a_letter_on_a_choice_question() -> None:
    problem = Problem(Question.of(["Capital of Norway?"]), CHOICE)

    def reply(call: Call) -> str:
        return f"{tag(call.agent, call.round)} Oslo.\n\n(C)" if call.agent != "agent_2" else "(B)"

    rt, result = await authored("du_debate", problem, reply, agents=3, rounds=1)
    prompt = last_user(rt.calls[0])
    assert "(X), where X is one of A, B, C, D" in prompt and CHOICE.instruction() not in prompt
    assert [a.answer for a in result.answers] == ["C", "B", "C"]
    assert result.final == "C"


async def test_the_project_form_is_the_default() -> None:
    problem = Problem(Question.of(["What is 5 + 7?"]), Number())
    spec = CATALOGUE["du_debate"]
    rt = ScriptedRuntime(_boxed_reply)
    opts = spec.options(**spec.preset, agents=3, rounds=1)
    result = await spec.ready(opts, SETUP)(Session(rt, problem, retries=0))
    assert "ANSWER:" in last_user(rt.calls[0]) and "\\boxed{}" not in last_user(rt.calls[0])
    assert [a.answer for a in result.answers] == ["12", "12", "12"]  # the Math fallback reads boxes


@pytest.mark.parametrize("fmt", [YesNo(), FreeText()])
async def test_a_format_the_authors_never_asked_for_is_refused_before_any_call(fmt) -> None:
    spec = CATALOGUE["du_debate"]
    run = spec.ready(spec.options(**spec.preset, answer_form="authors"), SETUP)
    rt = ScriptedRuntime(_boxed_reply)
    with pytest.raises(OptionError, match=rf"'answer_form'.*'authors'.*{fmt.name} answers"):
        await run(Session(rt, Problem(Question.of(["Is it?"]), fmt)))
    assert rt.calls == []


def test_answer_form_is_checked() -> None:
    with pytest.raises(OptionError, match=r"'answer_form'.*'theirs'.*project, authors"):
        CATALOGUE["du_debate"].factory("solver")(answer_form="theirs")


def test_du_debate_forms() -> None:
    assert af.boxed_or_letter(YesNo()) is None
    assert af.boxed_or_letter(FreeText()) is None
    boxed = af.boxed_or_letter(Math())
    assert boxed is not None and boxed.name == "math"
    assert boxed.key("\\frac{2}{4}") == Math().key("\\frac{1}{2}")
    assert boxed.render("7") == "ANSWER: 7" and boxed.parse(" 7 ") == "7"
    letter = af.boxed_or_letter(CHOICE)
    assert letter is not None and letter.describe("C") == "C) Oslo"
    assert letter.extract("so (C)") == "C" and letter.extract("ANSWER: C") is None
    assert af.letter_for_choice(CHOICE) is not None
    assert af.letter_for_choice(Number()) is None


async def test_peer_review_asks_for_a_letter_on_a_choice_question() -> None:
    problem = Problem(Question.of(["Capital of Norway?"]), CHOICE)

    def reply(call: Call) -> str:
        if isinstance(call.asks, ReviewRequest):
            return "The reasoning holds. (A) would be wrong.\nCONFIDENCE: 8"
        return f"{tag(call.agent, call.round)} Oslo is the capital.\n\n(C)"

    rt, result = await authored("peer_review", problem, reply)
    answering = [c for c in rt.calls if isinstance(c.asks, AnswerRequest)]
    assert len(answering) == 6 and len(rt.calls) == 12
    ask = af.letter(CHOICE).instruction()
    assert all(last_user(c).endswith(ask) for c in answering)
    assert all(CHOICE.instruction() not in last_user(c) for c in rt.calls)
    assert [a.answer for a in result.answers] == ["C"] * 6
    assert result.final == "C"


async def test_peer_review_refuses_the_authors_form_on_a_number_question() -> None:
    spec = CATALOGUE["peer_review"]
    run = spec.ready(spec.options(**spec.preset, answer_form="authors"), SETUP)
    rt = ScriptedRuntime(_boxed_reply)
    with pytest.raises(OptionError, match=r"peer_review's authors ask for no form of number"):
        await run(Session(rt, Problem(Question.of(["5 + 7?"]), Number())))
    assert rt.calls == []


# -- ReConcile's object: {"reasoning": ..., "answer": ..., "confidence_level": ...} ---------------

OBJECT = '{{"reasoning": "Oslo is the capital.", "answer": {answer}, "confidence_level": {sure}}}'


def test_fields_may_hold_numbers_where_asked() -> None:
    reply = '{"answer": "12", "confidence_level": 0.9, "n": -3}'
    assert af.read_fields(reply, numbers=True) == {
        "answer": "12",
        "confidence_level": "0.9",
        "n": "-3",
    }
    assert af.read_fields(reply) is None
    for bad in ("0.9.1", "1e5", "12abc", "0.", "--1", "0x1", "true", "null"):
        assert af.read_fields(f'{{"a": {bad}}}', numbers=True) is None, bad


@pytest.mark.parametrize(
    ("fmt", "answer", "read"),
    [
        (CHOICE, '"C"', "C"),
        (CHOICE, '"(C)"', "C"),
        (CHOICE, '"Oslo"', "C"),
        (Number(), "18", "18"),
        (Number(), '"1,800"', "1800"),
        (YesNo(), '"Yes"', "yes"),
        (CHOICE, '"maybe C"', None),
        (CHOICE, '"C or D"', None),
        (CHOICE, '"E"', None),
        (Number(), '"about 18"', None),
        (Number(), '"not 18"', None),
        (YesNo(), '"yes?"', None),
    ],
)
def test_object_answer(fmt, answer: str, read: str | None) -> None:
    assert af.read_object_answer(OBJECT.format(answer=answer, sure='"0.9"'), fmt) == read


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "ANSWER: C",
        '{"reasoning": "r", "confidence_level": "0.9"}',  # no answer field
        '{"reasoning": "r", "Answer": "C"}',
        'I think so: {"answer": "C"}',  # the whole reply must be the object
        '{"answer": "C"} but maybe D',
        '{"answer": {"letter": "C"}}',
        '{"answer": "C", "answer": "D"}',
        '{"answer": "C"',
    ],
)
def test_object_answer_abstains(reply: str) -> None:
    assert af.read_object_answer(reply, CHOICE) is None


def test_object_answer_in_a_code_fence() -> None:
    assert af.read_object_answer('```json\n{"answer": "C"}\n```', CHOICE) == "C"


@pytest.mark.parametrize(
    ("sure", "read"),
    [
        ('"0.9"', 0.9),
        ("0.9", 0.9),
        ("1", 1.0),
        ('"0"', 0.0),
        ('"85%"', 0.85),
        ('"85"', 0.85),
        ("85", 0.85),
        ('"high"', None),
        ('"~0.9"', None),
        ('"0.9?"', None),
        ('"about 0.9"', None),
        ("150", None),
        ("-0.5", None),
        ('""', None),
    ],
)
def test_object_confidence(sure: str, read: float | None) -> None:
    assert af.read_object_confidence(OBJECT.format(answer='"C"', sure=sure)) == read


def test_object_confidence_missing_or_no_object() -> None:
    assert af.read_object_confidence('{"answer": "C"}') is None
    assert af.read_object_confidence("CONFIDENCE: 0.9\nANSWER: C") is None


def test_answer_object_forms() -> None:
    for fmt in (FreeText(), Math()):
        assert af.answer_object(fmt) is None
    choice, number, yesno = (af.answer_object(f) for f in (CHOICE, Number(), YesNo()))
    assert choice is not None and number is not None and yesno is not None
    assert "only the letter of your choice, one of A, B, C, D;" in choice.instruction()
    assert "only a single number;" in number.instruction()
    assert "only yes or no;" in yesno.instruction()
    assert '"reasoning"' in choice.instruction() and '"confidence_level"' in choice.instruction()
    assert choice.name == "choice" and choice.describe("C") == "C) Oslo"
    assert af.stated_confidence(choice) is af.read_object_confidence
    for other in (CHOICE, af.letter(CHOICE), af.boxed(Number())):
        assert af.stated_confidence(other) is None


def test_every_form_reads_what_it_writes() -> None:
    """What the simulated model writes in a form, the form reads back, confidence included."""
    forms = [
        (af.boxed(Number()), "12", "Why.\n\n\\boxed{12}"),
        (af.boxed(Math()), "\\frac{1}{2}", "Why.\n\n\\boxed{\\frac{1}{2}}"),
        (af.letter(CHOICE), "C", "Why.\n\n(C)"),
        (af.answer_object(CHOICE), "C", '{"reasoning": "Why.", "answer": "C"}'),
        (af.answer_object(YesNo()), "no", '{"reasoning": "Why.", "answer": "no"}'),
    ]
    for fmt, answer, written in forms:
        assert fmt is not None
        assert fmt.write("Why.", answer) == written
        assert fmt.extract(written) == answer
    sure = af.letter(CHOICE).write("Why.", "B", 0.873)
    assert sure == "Why.\nCONFIDENCE: 0.87\n\n(B)"
    number = af.answer_object(Number())
    assert number is not None
    written = number.write("Why.", "18", 0.873)
    assert written == '{"reasoning": "Why.", "answer": "18", "confidence_level": 0.87}'
    assert number.extract(written) == "18" and number.confidence is not None
    assert number.confidence(written) == 0.87


def _object_reply(call: Call) -> str:
    """agent_1 holds B surely (weight 0.8), agents 2 and 3 hold C less surely (0.3 each): the
    confidences decide. In round 1 agent_3 answers on ANSWER and CONFIDENCE lines, which the
    authors' form does not read."""
    sure = {"agent_1": "0.95", "agent_2": "0.7", "agent_3": "65%"}[call.agent]
    answer = "B" if call.agent == "agent_1" else "C"
    if call.agent == "agent_3" and call.round == 1:
        return f"{tag(call.agent, call.round)}\nCONFIDENCE: 0.99\nANSWER: C"
    return json.dumps(
        {"reasoning": tag(call.agent, call.round), "answer": answer, "confidence_level": sure}
    )


async def test_reconcile_asks_for_the_object_and_weighs_its_confidences() -> None:
    problem = Problem(Question.of(["Capital of Norway?"]), CHOICE)
    rt, result = await authored("reconcile", problem, _object_reply)
    assert len(rt.calls) == 9  # never unanimous: the initial round and 2 discussion rounds
    ask = af.answer_object(CHOICE).instruction()  # type: ignore[union-attr]
    for call in rt.calls:
        asked = last_user(call)
        assert asked.endswith(ask) and "CONFIDENCE" not in asked, asked
        assert CHOICE.instruction() not in asked
    record = result.record
    assert [(t.answer, t.stated, t.weight) for t in record.turns[0]] == [
        ("B", 0.95, 0.8),
        ("C", 0.7, 0.3),
        (None, None, 0.1),
    ]
    assert [(t.answer, t.stated) for t in record.turns[-1]] == [
        ("B", 0.95),
        ("C", 0.7),
        ("C", 0.65),
    ]
    # the discussion shows the replies grouped by the answers read from the objects
    shown = last_user(next(c for c in rt.calls if c.round == 2))
    assert "=== 2 agents: answer C) Oslo ===" not in shown  # agent_3 abstained in round 1
    assert "=== 1 agent: answer B) Rome ===" in shown and tag("agent_1", 1) in shown
    assert "=== 1 agent: answer C) Oslo ===" in shown and "no readable answer" in shown
    assert result.final == "B"  # 0.8 against 0.3 + 0.3; unweighted, C would win


async def test_reconcile_refuses_the_authors_form_on_a_text_question() -> None:
    spec = CATALOGUE["reconcile"]
    run = spec.ready(spec.options(**spec.preset, answer_form="authors"), SETUP)
    rt = ScriptedRuntime(_object_reply)
    with pytest.raises(OptionError, match=r"reconcile's authors ask for no form of text"):
        await run(Session(rt, Problem(Question.of(["Who?"]), FreeText())))
    assert rt.calls == []


# -- ChatEval's two score lines -------------------------------------------------------------------

SCORES = "The score of Assistant 1: {}\nThe score of Assistant 2: {}"


@pytest.mark.parametrize(
    ("reply", "scores"),
    [
        ("Both are fine.\n\n" + SCORES.format(8, 6), (8.0, 6.0)),
        (SCORES.format("7.5", "10") + "\n\n", (7.5, 10.0)),
        ("**The score of Assistant 1:** 3\n\n  the score of assistant 2: 0.  ", (3.0, 0.0)),
        ("The score  of\tAssistant 1 : 5\nThe score of Assistant 2:9", (5.0, 9.0)),
    ],
)
def test_assistant_scores_read_the_last_two_lines(reply: str, scores) -> None:
    assert af.read_assistant_scores(reply) == scores


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "The score of Assistant 1: 8",
        SCORES.format(8, 6) + "\nThank you.",  # not the last two lines
        "The score of Assistant 2: 6\nThe score of Assistant 1: 8",  # out of order
        "The score of Assistant 1: 8\nThe score of Assistant 1: 6",
        "The score of Assistant 2: 8\nThe score of Assistant 2: 6",
        SCORES.format("[score only]", "[score only]"),
        SCORES.format("8/10", 6),
        SCORES.format("~8", 6),
        SCORES.format("8?", 6),
        SCORES.format("about 8", 6),
        SCORES.format(8, "6 or 7"),
        SCORES.format(11, 6),
        SCORES.format(8, 11),
        SCORES.format(-1, 6),
        "The scores of Assistant 1: 8\nThe score of Assistant 2: 6",
        "x The score of Assistant 1: 8\nThe score of Assistant 2: 6",
        "The score of Assistant 1: 8\nThe score of Assistant 2: 6 x",
        "The score of Assistant 3: 8\nThe score of Assistant 2: 6",
    ],
)
def test_assistant_scores_abstain(reply: str) -> None:
    assert af.read_assistant_scores(reply) is None


def test_assistant_scores_form() -> None:
    pair = Choice(("Answer A", "Answer B"))
    for fmt in (CHOICE, Number(), YesNo(), Choice(("x",))):
        assert af.assistant_scores(fmt) is None
    form = af.assistant_scores(pair)
    assert form is not None and form.name == "choice"
    assert form.instruction().endswith(SCORES.format("n", "n"))
    assert form.extract("Why.\n\n" + SCORES.format(8, 6)) == "A"
    assert form.extract("Why.\n\n" + SCORES.format(6, "8.5")) == "B"
    assert form.extract("Why.\n\n" + SCORES.format(7, 7)) is None  # equal scores: no answer
    assert form.extract("ANSWER: A") is None
    assert form.write("Why.", "A") == "Why.\n\n" + SCORES.format(8, 5)
    assert form.write("Why.", "B") == "Why.\n\n" + SCORES.format(5, 8)


FIRST, SECOND = "Boil it for six minutes, then cool it.", "Eggs are food."


def _pair(a: str, b: str) -> str:
    blocks = text_of(Pair(Question.of(["How do I boil an egg?"]), a, b).blocks())
    return f"Which is better?\n\n{blocks}\n\nA) Answer A\nB) Answer B"


def _referee(call: Call) -> str:
    """As given, both referees score A a little higher (7, 6); swapped, they score the answer
    shown first, B, much higher (9, 4); agent_2's first message scores them alike."""
    given = last_user(call).index(FIRST) < last_user(call).index(SECOND)
    scores = (7, 6) if given else (9, 4)
    if call.agent == "agent_2" and call.round == 1:
        scores = (5, 5)
    return f"{tag(call.agent, call.round)} Both are clear.\n\n" + SCORES.format(*scores)


@pytest.mark.parametrize(("verdict", "final"), [("scores", "B"), ("vote", "A")])
async def test_chateval_asks_for_the_score_lines_and_reads_them(verdict: str, final: str) -> None:
    pair = Choice(("Answer A", "Answer B"))
    problem = Problem(Question.of([_pair(FIRST, SECOND)]), pair)
    rt, result = await authored("chateval", problem, _referee, swap=True, verdict=verdict)
    assert len(rt.calls) == 8  # 2 referees, 2 turns, 2 debates
    ask = af.assistant_scores(pair).instruction()  # type: ignore[union-attr]
    for call in rt.calls:
        asked = last_user(call)
        assert ask in asked and '"SCORE A: n"' not in asked and pair.instruction() not in asked
    answers = {(a.agent, a.round): a.answer for a in result.answers}
    assert answers == {
        ("agent_1", 1): "A", ("agent_2", 1): None, ("agent_1", 2): "A", ("agent_2", 2): "A",
        ("agent_1 (swapped)", 1): "B", ("agent_2 (swapped)", 1): None,
        ("agent_1 (swapped)", 2): "B", ("agent_2 (swapped)", 2): "B",
    }  # fmt: skip
    # scores: A 7 + 7 + 4 + 4, B 6 + 6 + 9 + 9; votes: two each, agent order gives A
    assert result.final == final


async def test_chateval_refuses_the_authors_form_on_a_question_that_is_no_pair() -> None:
    spec = CATALOGUE["chateval"]
    run = spec.ready(spec.options(**spec.preset, answer_form="authors"), SETUP)
    rt = ScriptedRuntime(_referee)
    with pytest.raises(OptionError, match=r"chateval's authors ask for no form of choice"):
        await run(Session(rt, Problem(Question.of(["Capital of Norway?"]), CHOICE)))
    assert rt.calls == []


def test_the_methods_with_an_authors_form() -> None:
    with_form = {spec.name for spec in CATALOGUE if spec.authors_form is not None}
    assert with_form == {
        *("du_debate", "peer_review", "reconcile", "chateval"),
        *("more", "samre", "peer_discussion"),  # test_authors_forms_d3.py
        *("voting", "consensus", "aad", "collective_improvement"),  # test_authors_forms_mallm.py
    }


TAKING = [
    spec.name
    for spec in CATALOGUE
    if spec.authors_form is None
    and "answer_form" in spec.options.__dataclass_fields__
    # Tree-of-Debate's own options refuse it, with why (test_authors_forms_tod.py)
    and not issubclass(spec.options, SamplingOptions)
]


@pytest.mark.parametrize("name", TAKING)
def test_every_other_method_refuses_the_authors_form_by_name(name: str) -> None:
    assert {"cortex", "group_debate"} <= set(TAKING)
    spec = CATALOGUE[name]
    opts = spec.options(**{**spec.preset, "answer_form": "authors"})
    with pytest.raises(OptionError, match=rf"'answer_form'.*'authors'.*{name} declares no"):
        spec.ready(opts, SETUP)

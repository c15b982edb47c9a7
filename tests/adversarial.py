"""Every reader of model output, and adversarial replies to feed them (tests and benchmarks/readers.py).

A reader is anything that parses text a model wrote: answers of every format, LaTeX helpers, ballots
of every kind, the agreement signal, judge scores and criteria, confidences, personas, the JSON
replies of Tree-of-Debate and its sentence split. The worst cases are long runs of what each pattern
looks for, where a backtracking regex goes quadratic.
"""

from __future__ import annotations

from collections.abc import Callable

from mad_tasks.engine import authors_forms as af
from mad_tasks.engine import latex
from mad_tasks.engine.answers import (
    Choice,
    FreeText,
    Math,
    Number,
    YesNo,
    answer_candidates,
    infer_format,
    normalise_number,
    without_answer_lines,
)
from mad_tasks.engine.confidence import parse_confidence, without_confidence
from mad_tasks.engine.methods.cortex.similarity import read_similarity
from mad_tasks.engine.methods.d3.court import SCORES, VERDICT, Evaluation
from mad_tasks.engine.methods.d3.peer_discussion import PREFERENCE as PRD_PREFERENCE
from mad_tasks.engine.methods.decision.challenge import read_verdict
from mad_tasks.engine.methods.decision.personas import parse_persona, personas_in
from mad_tasks.engine.methods.tod.judge import read_level, read_marks, read_preference
from mad_tasks.engine.protocols.consensus import agrees
from mad_tasks.engine.protocols.d3 import parse_criteria
from mad_tasks.engine.protocols.pd3 import read_picks, read_result, read_score
from mad_tasks.engine.protocols.peer_review import review_confidence
from mad_tasks.engine.protocols.tod import (
    json_object,
    read_argument,
    read_claims,
    read_expansion,
    read_relevance,
    read_response,
    read_subtopics,
    read_summary,
    sentences,
)
from mad_tasks.engine.protocols.voting import BallotRules, parse_ballot
from mad_tasks.engine.qualifiers import bounded
from mad_tasks.hosts.ideal_form import spelling
from mad_tasks.hosts.openai_evals import BATTLE_ASK, read_battle
from mad_tasks.scorers.longbench import classification, code_sim, count, qa_f1, retrieval, rouge_l
from mad_tasks.scorers.pd3 import read_listed, read_prediction
from mad_tasks.scorers.squad import contains

SIZE = 200_000  # characters of the longest reply
PD3_LABELS = tuple(f"P{n}" for n in range(100, 130))  # a query's 30 candidates
PD3_IDS = tuple(str(n) for n in range(1000, 1030))  # their corpus ids, as an output lists them
LETTERS = Choice(("London", "Paris", "Rome", "Berlin"))
TREC_CLASSES = ("Date", "Individual", "Distance, linear measure", "Other location", "x", "1.")


def _ballot(protocol: str, **kw) -> Callable[[str], object]:
    rules = BallotRules(protocol, 5, **kw)
    return lambda text: parse_ballot(text, rules)


def _battle(text: str) -> object:
    """A grader's prompt in the battle layout with the reply as both responses."""
    layout = f"[Instruction 1]\nQ?\n[Response 1]\n{text}\n\n[Instruction 2]\nQ?\n[Response 2]\n"
    return read_battle(f"{layout}{text}\n\n{BATTLE_ASK}", BATTLE_ASK)


def _shown(text: str) -> str:
    return Evaluation("judge", 1, (90, 80), None, text, 1).shown()


READERS: dict[str, Callable[[str], object]] = {
    "answer yesno": YesNo().extract,
    "answer choice": Choice(("London", "Paris", "Rome", "Berlin")).extract,
    "answer number": Number().extract,
    "answer text": FreeText().extract,
    "answer math": Math().extract,
    "answer math key": Math().key,
    "answer candidates": answer_candidates,
    "answer lines removed": without_answer_lines,
    "normalise_number": normalise_number,
    "infer_format": infer_format,
    "latex last_boxed": latex.last_boxed,
    "latex strip_math": latex.strip_math,
    "latex normalise": latex.normalise,
    "latex last_box": latex.last_box,
    "latex read_result": latex.read_result,
    "latex template": latex.template,
    "qualifiers bounded": bounded,
    "ballot simple": _ballot("simple"),
    "ballot simple all_digits": _ballot("simple", simple_parse="all_digits"),
    "ballot ranked": _ballot("ranked"),
    "ballot cumulative": _ballot("cumulative"),
    "ballot approval": _ballot("approval"),
    "consensus agrees": agrees,
    "challenge verdict": read_verdict,
    "d3 juror vote": VERDICT.extract,
    "d3 judge scores": SCORES.extract,
    "d3 criteria": parse_criteria,
    "d3 evaluation shown": _shown,
    "cortex confidence": parse_confidence,
    "peer review confidence": review_confidence,
    "cortex without confidence": without_confidence,
    "persona": parse_persona,
    "persona list": lambda text: personas_in(text, 5),
    "cortex similarity": read_similarity,
    "authors rating": af.read_rating,
    "authors verdict": af.read_verdict,
    "authors confidence tag": af.read_confidence_tag,
    "authors boxed": lambda text: af.read_boxed(text, Number()),
    "authors letter": lambda text: af.read_letter(text, LETTERS),
    "authors fields": lambda text: af.read_fields(text, numbers=True),
    "authors object answer": lambda text: af.read_object_answer(text, LETTERS),
    "authors object confidence": af.read_object_confidence,
    "authors d3 totals": lambda text: af.read_totals(text, SCORES),
    "authors d3 vote": af.read_vote,
    "authors prd last line": lambda text: af.read_numbered(text, PRD_PREFERENCE),
    "authors mallm final solution": lambda text: af.read_final_solution(text, LETTERS),
    "tod json_object": json_object,
    "tod claims": lambda text: read_claims(text, 5, 3),
    "tod relevance": read_relevance,
    "tod subtopics": lambda text: read_subtopics(text, (3, 3), 5),
    "tod present": lambda text: read_argument(text, "present"),
    "tod revise": lambda text: read_argument(text, "revise"),
    "tod response": read_response,
    "tod expansion": read_expansion,
    "tod summary": read_summary,
    "tod sentences": sentences,
    "tod judge marks": lambda text: read_marks(text, 4),
    "tod judge level": read_level,
    "tod judge preference": read_preference,
    "pd3 result": lambda text: read_result(text, PD3_LABELS),
    "pd3 picks": lambda text: read_picks(text, PD3_LABELS),
    "pd3 score": read_score,
    "pd3 scorer result line": lambda text: read_listed(text, PD3_IDS, 5),
    "pd3 scorer prediction": read_prediction,
    "openai_evals battle": _battle,
    # an eval's prompt may quote model output: as an example turn and as the instruction
    "openai_evals ideal yesno": lambda text: spelling(YesNo(), "auto", [text], text),
    "openai_evals ideal choice": lambda text: spelling(LETTERS, "auto", [text], text),
    # the task metrics that read an answer: a reply against itself is each LCS's largest input
    "longbench qa_f1": lambda text: qa_f1(text, text),
    "longbench rouge_l": lambda text: rouge_l(text, text),
    "longbench classification": lambda text: classification(text, "Date", TREC_CLASSES),
    "longbench count": lambda text: count(text, "12"),
    "longbench retrieval": lambda text: retrieval(text, text),
    "longbench code_sim": lambda text: code_sim(text, text),
    "squad contains": lambda text: contains(text, text),
}

# what the patterns look for, as building blocks of adversarial replies
FRAGMENTS = (
    "\n", " ", "\t", "\r\n", "ANSWER:", "ANSWER", "answer ", "answer is ", "Final answer",
    "the answer would be", "**", "_", "=", ":", "(1, ", "[1, ", "(18, 15)", "{", "}", '{"0": ',
    '"1": 5, ', "1,", "1.", "1. ", ".", ",", "-", "9", "0", "12", "²", "٣", "\\boxed{", "\\boxed ",
    "\\fbox{", "\\frac", "\\text{", "$", "Solution ", "then ", " > ", "and ", "yes", "no ", "No,",
    "maybe ", "not sure", "CONFIDENCE:", "confidence", "SIMILARITY: ", "Confidence score", "%", "/", '"', "'",
    "agree", "disagree", "Total: ", "Relevance: ", "1. [18, 15]", '"role": "', "x",
    '{"', '"argument_list": [', '"evidence": [1, ', '"Yes"', "```json\n", "e.g. ", "et al. ", "\\",
    "[RESULT]", "[result] ", "P101", "p0102, ", "，", "、", "1) ", "/10", "【RESULT】",
    "says the answer is ", "Agent 2's ", "suggests that ", "?", " (approx.", "\\approx ", ">=",
    "not ", "close to ", "(C)", "(A) ", " calories", "30 * 3 = ", "answer}",
    "Final Solution:", "final solution ",
)  # fmt: skip


def _fill(unit: str, size: int = SIZE) -> str:
    return unit * (size // len(unit))


# fixed worst cases: long runs of one thing, or a long run after a trigger
WORST_CASES: dict[str, str] = {
    "newlines": "\n" * SIZE,
    "spaces": " " * SIZE,
    "answer then spaces": "answer" + " " * SIZE + "x",
    "ANSWER: then spaces": "ANSWER:" + " " * SIZE + "x" + " " * 10 + "y",
    "answer is then newlines": "the answer is" + "\n" * SIZE,
    "answer words": _fill("answer answer is "),
    "ANSWER lines": _fill("ANSWER: 1\n"),
    "decorated markers": _fill("**_ANSWER_** **"),
    "confidence then spaces": "Confidence" + " " * SIZE + "x",
    "confidence lines": _fill("CONFIDENCE: 0.5 / \n"),
    "similarity lines": _fill("SIMILARITY: 0.5 / \n"),
    "distinct personas": _fill('{"role": "r", "description": "d"} '),
    "confidence colon spaces": "Confidence:" + " " * (SIZE // 2) + "1" + " " * (SIZE // 2),
    "digits": "9" * SIZE,
    "digits after ANSWER": "ANSWER: " + "9" * SIZE,
    "digit commas": _fill("1,"),
    "digit points": _fill("1."),
    "dots": "." * SIZE,
    "dashes": "-" * SIZE,
    "equals": "=" * SIZE,
    "colons": ":" * SIZE,
    "stars": "*" * SIZE,
    "open pairs": _fill("(1, "),
    "open brackets": _fill("[1, "),
    "pairs": _fill("(1,1)"),
    "pair lines": _fill("(18, 15)\n"),
    "criterion lines": _fill("1. [18, 15]\n"),
    "named criterion lines": _fill("Relevance: (18, 15)\n"),
    "totals words": _fill("total (1, "),
    "open braces": "{" * SIZE,
    "boxed opens": _fill("\\boxed{"),
    "boxed then braces": "\\boxed{" + "{" * SIZE,
    "boxed nested pairs": "\\boxed{" + _fill("{}"),
    "boxed then spaces": "\\boxed" + " " * SIZE,
    "frac opens": _fill("\\frac{1}{"),
    "list items": _fill("1. 2\n"),
    "list items without numbers": _fill("1. x\n"),
    "index run": _fill("0 "),
    "solution words": _fill("Solution "),
    "final solution markers": _fill("Final Solution: B) "),
    "final solution then spaces": "Final Solution:" + " " * SIZE + "B",
    "then words": _fill("then "),
    "bullets": _fill("- \n"),
    "cumulative long value": '{"0": ' + "1" * SIZE + "}",
    "cumulative long key": '{"' + "0" * SIZE + '": 10}',
    "cumulative many entries": "{" + _fill('"0": 1, ') + "}",
    "cumulative empty entries": "{" + "," * SIZE + "}",
    "cumulative quotes and spaces": '{"' + _fill(" '\"") + "0: 1}",
    "superscripts": "²" * SIZE,
    "arabic digits": "٣" * SIZE,
    "yes words": _fill("yes "),
    "yes or runs": _fill("yes or "),
    "yes slashes": _fill("Yes/"),
    "no commas": _fill("No, "),
    "hedges": _fill("not sure "),
    "agree": _fill("agree"),
    "verdict words": _fill("AGREE DISAGREE "),
    "decorated verdicts": _fill("**[Disagree]** "),
    "persona objects": _fill('{"role": "'),
    "persona huge number": '{"role": ' + "1" * SIZE + "}",
    "persona nested arrays": '{"role": ' + "[" * (SIZE // 2) + "]" * (SIZE // 2) + "}",
    "letters": "x" * SIZE,
    "spaced lines": _fill(" " * 10 + "\n"),
    "json object starts": _fill('{"a": '),
    "json brace then spaces": "{" + " " * SIZE + '"',
    "json unterminated string": '{"summary": "' + "x" * SIZE,
    "json nested lists": _fill('{"a": [1, 1, 1, 1, '),
    "json many claims": '{"argument_list": ['
    + ", ".join(['{"argument_title": "t", "description": "d", "evidence": [1, 2, 9]}'] * 3_000)
    + "]}",
    "json many ids": '{"subtopic_list": [{"topic_title": "t", "topic_description": "d", '
    + '"author_0_relevant_contributions": ['
    + _fill("1, ")
    + "1]}]}",
    "json escapes": '{"summary": "' + _fill("\\u00e9") + '"}',
    "json fences": _fill('```json\n{"summary": "x"}\n```\n'),
    "abbreviations": _fill("e.g. Fig. "),
    "sentence ends": _fill("x. "),
    "judge marks": '{"marks": [' + _fill("1, ") + "1]}",
    "judge long level": '{"level": "' + " " * SIZE + '3"}',
    "judge long preference": '{"preference": "' + _fill("summary ") + 'A"}',
    "result tags": _fill("[RESULT]"),
    "result tag opens": _fill("[ result "),
    "result then labels": "[RESULT] " + _fill("P101, P0102，"),
    "result then list items": "[RESULT]\n" + _fill("1. P101\n"),
    "result then list numbers": "[RESULT]\n" + _fill("- 1) \n"),
    "result then blank lines": "[RESULT] P101" + "\n" * SIZE + "P102",
    "result then digits": "[RESULT] " + "9" * SIZE,
    "result then letters and digits": "[RESULT] P" + _fill("P1"),
    "labels without a tag": _fill("p0101 "),
    "score then spaces": "[RESULT]" + " " * SIZE + "8",
    "score fraction digits": "[RESULT] 8/" + "1" * SIZE,
    "score out of then spaces": "[RESULT] 8 out of" + " " * SIZE + "10",
    "score then a long hedge": "[RESULT] 8/10" + _fill(" or") + " 9",
    "result then label lines": "[RESULT] P101\n" + _fill("P102 and p0103\n") + "P104 was close",
    "reported phrases": _fill("Agent 2 says that the answer is 4. "),
    "possessive phrases": _fill("x's answer is "),
    "asked boxes": _fill("\\boxed{1} $*?"),
    "boxes then spaces and a question mark": "\\boxed{1}" + " " * SIZE + "?",
    "an open aside": "ANSWER: 1 (" + _fill("about "),
    "unit words in a box": "\\boxed{1 " + _fill("ab ") + "}",
    "arithmetic before an equals sign": "\\boxed{" + _fill("1 * ") + "= 2}",
    "words in a box": "\\boxed{" + _fill("After the purchase ") + "}",
    "bound words": "ANSWER: " + _fill("close to not about ") + "19",
    "closing marks": "ANSWER: approx 19" + _fill(".)") + "x",
    "letters on lines": _fill("(A)\n"),
    "opening letters": _fill("(A) x\n"),
    "object fields": "{" + _fill('"a": 1, "b": "c", ') + '"z": "z"}',
    "object long number": '{"answer": ' + "1" * SIZE + "}",
    "object long string": '{"answer": "' + _fill('B\\"') + '"}',
}

"""MALLM's answer form (`Final Solution: ...`) for the decision protocols: the reader on written,
hedged, quoted and adversarial cases, and `-S answer_form=authors` asking for it and reading it in a
run of voting, consensus, aad and collective_improvement."""

from __future__ import annotations

import re

import pytest
from scripted import ScriptedRuntime, last_user, tag
from testdata import FIXTURES

from mad_tasks.engine import authors_forms as af
from mad_tasks.engine.answers import MAX_ANSWER_CHARS, Choice, FreeText, Math, Number, YesNo
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.decision import prompts
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem, Session
from mad_tasks.hosts.setup import SETUP
from mad_tasks.solvers import voting
from mad_tasks.tasks.mmlu import mmlu

CHOICE = Choice(("Paris", "Rome", "Oslo", "Bern"))
FORM = af.final_solution(CHOICE)
MALLM = ("voting", "consensus", "aad", "collective_improvement")


# -- the reader ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "fmt", "answer"),
    [
        ("Oslo is the capital.\n\nFinal Solution: C", CHOICE, "C"),
        ("**Final Solution:** C) Oslo", CHOICE, "C"),
        ("**Final Solution**: (C)", CHOICE, "C"),
        ("final solution : c", CHOICE, "C"),
        ("Final Solution:\nC", CHOICE, "C"),  # a heading: the next line with text
        ("Final Solution: Oslo", CHOICE, "C"),  # the option's text
        ('Final Solution: "C"', CHOICE, "C"),  # its own answer in quotes
        # the last one it states decides
        ("Final Solution: A\nOn reflection:\nFinal Solution: C", CHOICE, "C"),
        # another's, an example or a quotation is passed over
        ("Agent 2 suggested Final Solution: A. My Final Solution: C", CHOICE, "C"),
        ("My Final Solution: C. The historian thinks Final Solution: A", CHOICE, "C"),
        ('You asked for "Final Solution: X".\nFinal Solution: C', CHOICE, "C"),
        ("For example Final Solution: A\n\nFinal Solution: C", CHOICE, "C"),
        ("Final Solution: yes", YesNo(), "yes"),
        ("Final Solution: 1,234", Number(), "1234"),
        ("Final Solution: \\frac{1}{2}", Math(), "\\frac{1}{2}"),
        ("Final Solution: Oslo, in Norway", FreeText(), "Oslo, in Norway"),
    ],
)
def test_final_solution_reads_the_last_stated_marker(reply: str, fmt, answer: str) -> None:
    assert af.read_final_solution(reply, fmt) == answer


@pytest.mark.parametrize(
    "reply",
    [
        "",
        "C",  # no marker: MALLM's evaluator would fall back to a letter pattern, not here
        "Oslo, so C)",
        "ANSWER: C",  # the project's line is not this form
        "Final Solution:",
        "Final Solution: ",
        "Final Solution: E",  # no option of the question
        "Final Solution: probably C",
        "Final Solution: C, if the map is current",
        "I am not sure, but Final Solution: C",
        "This is not the Final Solution: C",
        "Final Solution: B or C",
        "Final Solution: B) Rome or C) Oslo",
        "Final Solution: C\nFinal Solution: maybe A",  # the last one is hedged: no earlier stands in
        'The historian wrote "Final Solution: C"',  # only a quotation
        "Agent 2 says Final Solution: C",  # only another's
        "Final Solution: " + "C" * 2000,  # too long to be an answer
    ],
)
def test_final_solution_abstains(reply: str) -> None:
    assert af.read_final_solution(reply, CHOICE) is None


@pytest.mark.parametrize(
    ("reply", "fmt"),
    [
        ("Final Solution: not yes", YesNo()),
        ("Final Solution: about 42", Number()),
        ("Final Solution: 40 or 42", Number()),
        ("Final Solution: I don't know", FreeText()),
    ],
)
def test_final_solution_abstains_on_other_formats(reply: str, fmt) -> None:
    assert af.read_final_solution(reply, fmt) is None


def test_final_solution_judges_a_bounded_number_of_markers() -> None:
    reported = "Agent 2 says Final Solution: A.\n" * (af.MAX_MARKS + 1)
    assert af.read_final_solution("Final Solution: C\n" + reported, CHOICE) is None
    reported = "Agent 2 says Final Solution: A.\n" * (af.MAX_MARKS - 1)
    assert af.read_final_solution("Final Solution: C\n" + reported, CHOICE) == "C"


def test_final_solution_where_the_solution_stands() -> None:
    """After markup alone on the marker's line, the next line with text (blank lines and spaces
    skipped), that line alone; a quotation mark just before the marker (markup between) passes it
    over for the one before, a letter between does not."""
    assert af.read_final_solution("**Final Solution:**\nB", CHOICE) == "B"
    assert af.read_final_solution("Final Solution:\n\n  B", CHOICE) == "B"
    assert af.read_final_solution("Final Solution:\nB\nThat is my pick.\nDone.", CHOICE) == "B"
    assert af.read_final_solution("Final Solution: X\nY", FreeText()) == "X"
    quoted = 'Final Solution: B\nI end with "**Final Solution:** (X)" as asked.'
    assert af.read_final_solution(quoted, CHOICE) == "B"
    assert af.read_final_solution('"Final Solution: A', CHOICE) is None  # only a quotation
    assert af.read_final_solution('Final Solution: B\n"X Final Solution: A', CHOICE) == "A"


def test_final_solution_is_read_whole_up_to_the_longest_answer_never_in_part() -> None:
    """A solution of MAX_ANSWER_CHARS is read whole, on the marker's line or the next; a longer one,
    or a line longer than that as written (markup and spaces included), is no answer: before,
    its first 1,000 characters were read as the answer."""
    whole = "a" * MAX_ANSWER_CHARS
    for reply in (f"Final Solution: {whole}", f"Final Solution: {whole}\nDone.", f"Final Solution:\n{whole}", f"Final Solution:\n{whole}\nDone."):  # fmt: skip
        assert af.read_final_solution(reply, FreeText()) == whole
    for reply in (
        f"Final Solution: {whole}a",
        f"Final Solution:{whole}a",
        f"Final Solution: {whole}a\nDone.",
        f"Final Solution:  {whole}\nDone.",
        f"Final Solution: **{whole[1:]}**\nDone.",
        f"Final Solution:\n**{whole[1:]}**\nDone.",
        f"Final Solution:\n*{whole}*",
    ):
        assert af.read_final_solution(reply, FreeText()) is None


@pytest.mark.parametrize(
    "text",
    [
        "Final Solution: " * 13_000,
        "Final Solution:\n" * 12_500,
        "Final Solution:" + " " * 200_000,
        "x" * 200_000,
        "Final Solution: (" * 12_000,
    ],
)
def test_final_solution_never_raises_on_long_replies(text: str) -> None:
    assert af.read_final_solution(text, CHOICE) is None
    assert af.read_final_solution(text, Number()) is None


def test_the_form_asks_for_the_marker_in_every_format_and_reads_what_it_writes() -> None:
    for fmt, answer, what in [
        (CHOICE, "C", "the letter of your choice, one of A, B, C, D"),
        (YesNo(), "no", "yes or no"),
        (Number(), "18", "the number alone"),
        (Math(), "\\frac{1}{2}", "only the final result, a number or a LaTeX expression"),
        (FreeText(), "Oslo", "your answer alone"),
    ]:
        form = af.final_solution(fmt)
        assert "'Final Solution:' followed by " + what in form.instruction()
        assert "ANSWER" not in form.instruction() and form.name == fmt.name
        written = form.write("Why.", answer)
        assert written == f"Why.\n\nFinal Solution: {answer}"
        assert form.extract(written) == answer


def test_the_mallm_methods_declare_the_form() -> None:
    for name in MALLM:
        form = CATALOGUE[name].authors_form
        assert form is not None and form(CHOICE).instruction() == FORM.instruction()


# -- -S answer_form=authors ------------------------------------------------------------------------


def reply(call: Call) -> str:
    """agents 1 and 2 state C in the form; agent 3 states B on the project's line only, so its
    solution comes from the extraction call, which answers D in the form. Ballots vote for
    solution 0; agent 2 agrees when it is shown a current solution (consensus)."""
    said = tag(call.agent, call.round)
    if call.purpose == "vote":
        return "0"
    if call.purpose == "extract":
        return "The contribution gives\nFinal Solution: D"
    if call.agent == "agent_3":
        return f"{said}\nANSWER: B"
    shown = any(prompts.CURRENT in m.text for m in call.messages)
    return f"{'[AGREE] ' if shown else ''}{said} Oslo.\n\nFinal Solution: C"


async def authored(method: str, **options):
    spec = CATALOGUE[method]
    opts = spec.options(
        **{**spec.preset, "answer_form": "authors", "personas": "none", "cot": False, **options}
    )
    rt = ScriptedRuntime(reply)
    problem = Problem(Question.of(["Capital of Norway?"]), CHOICE)
    result = await spec.ready(opts, SETUP)(Session(rt, problem, retries=0))
    return rt, result


def assert_asks_for_the_form(rt: ScriptedRuntime) -> None:
    answering = [c for c in rt.calls if c.purpose in ("discussion", "extract")]
    assert answering
    for call in answering:
        assert FORM.instruction() in last_user(call), call.purpose
        assert CHOICE.instruction() not in last_user(call)


@pytest.mark.parametrize("method", ["voting", "aad"])
async def test_a_vote_is_over_the_solutions_read_from_the_form(method: str) -> None:
    rt, result = await authored(method, vote_turn=1)
    assert_asks_for_the_form(rt)
    solutions = [(a.agent, a.answer) for a in result.answers]
    assert solutions == [("agent_1", "C"), ("agent_2", "C"), ("agent_3", "D")]
    extract = [c for c in rt.calls if c.purpose == "extract"]
    assert [c.agent for c in extract] == ["agent_3"]  # only the reply without the form
    [vote] = result.record.votes  # type: ignore[attr-defined]
    assert [c.answer for c in vote.candidates] == ["C", "C", "D"]
    assert "Reply with only the number" in last_user(
        next(c for c in rt.calls if c.purpose == "vote")
    )
    assert result.final == "C" and vote.winner == 0


async def test_consensus_takes_the_proposal_read_from_the_form() -> None:
    rt, result = await authored("consensus")
    assert_asks_for_the_form(rt)
    assert [c.purpose for c in rt.calls] == ["discussion", "discussion"]  # agent 2 agreed
    assert result.final == "C"
    assert result.record.decided_at.after == "agent_2"  # type: ignore[attr-defined]


async def test_collective_improvement_reads_every_turn_from_the_form() -> None:
    rt, result = await authored("collective_improvement", max_turns=2, vote_turn=2)
    assert_asks_for_the_form(rt)
    turn_two = [c for c in rt.calls if c.purpose == "discussion" and c.round == 2]
    assert len(turn_two) == 3
    assert {(a.agent, a.round): a.answer for a in result.answers} == {
        (f"agent_{i}", t): "D" if i == 3 else "C" for i in (1, 2, 3) for t in (1, 2)
    }
    assert result.final == "C"


async def test_the_project_form_stays_the_default() -> None:
    spec = CATALOGUE["voting"]
    rt = ScriptedRuntime(reply)
    opts = spec.options(**{**spec.preset, "personas": "none", "vote_turn": 1, "max_turns": 1})
    problem = Problem(Question.of(["Capital of Norway?"]), CHOICE)
    result = await spec.ready(opts, SETUP)(Session(rt, problem, retries=0))
    assert CHOICE.instruction() in last_user(rt.calls[0])
    # the project's reader reads agent 3's ANSWER line and not the others' Final Solution lines
    assert [a.answer for a in result.answers if a.agent == "agent_3"] == ["B"]


def test_madsim_answers_in_the_form(run) -> None:
    """madsim states every answer, the extraction calls' included, after `Final Solution:`."""
    log = run(
        mmlu(data_path=str(FIXTURES / "mmlu.jsonl")),
        solver=voting(answer_form="authors", extraction="call", max_turns=1, vote_turn=1),
        model="madsim/x",
        model_args={"accuracy": 1.0},
        limit=2,
    )
    for s in log.samples:
        store = s.store["mad_tasks:debate"]
        for a in store["answers"]:
            assert a["answer"] == s.target and "ANSWER" not in a["text"]
        assert store["final"] == s.target
        replies = [e.output.completion for e in s.events if e.event == "model"]
        # 3 messages, each one's extraction (restating its solution), 3 candidates' extractions
        # (from a solution's description, which holds no marker: answered afresh)
        form = r"(Simulated reasoning of agent_[1-3]: [^\n]*\n\n)?Final Solution: [A-D]"
        stated = [r for r in replies if re.fullmatch(form, r)]
        assert len(stated) == 9 and sum(r.startswith("Final") for r in stated) == 3
        assert len(replies) == 9 + 3 + 3  # and the 3 personas, the 3 ballots

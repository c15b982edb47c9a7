"""The viewer's flip column in the decision protocols' turn tables (decision/viewer.py): each
agent's change of solution since the turns before, classed as `failures.round_flips` classes it."""

from __future__ import annotations

from scripted import debate as scripted_debate
from scripted import tag

from mad_tasks.engine.answers import make_format
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.decision import prompts
from mad_tasks.engine.runtime import Call
from mad_tasks.engine.session import Problem

PROBLEM = Problem(
    Question.of(["How many legs do a spider and an ant have?"]), make_format("number")
)
# turn 1: 111, 222, 222 (222 the plurality); turn 2: agent_1 takes the plurality's 222, agent_2 an
# answer nobody held, agent_3 agent_1's minority answer 111
SAID = {
    ("agent_1", 1): "111", ("agent_2", 1): "222", ("agent_3", 1): "222",
    ("agent_1", 2): "222", ("agent_2", 2): "444", ("agent_3", 2): "111",
}  # fmt: skip


def reply(call: Call) -> str:
    if call.purpose == "vote":
        return "0"
    return f"[DISAGREE] {tag(call.agent, call.round)}\nANSWER: {SAID[(call.agent, call.round)]}"


def rows(table: str) -> list[list[str]]:
    """The table's rows of cells (the text table between the fences, its head and rule left out)."""
    body = table.split("```text\n")[1].split("\n```")[0].splitlines()[2:]
    return [line.split() for line in body]


async def test_a_turn_table_classes_each_flip() -> None:
    rt, _ = await scripted_debate(
        "voting", reply, PROBLEM, personas="none", max_turns=2, vote_turn=2
    )
    tables = dict(rt.infos)
    assert "flip" not in tables["turn 1"]  # nobody changed: no column
    assert rows(tables["turn 2"]) == [
        ["agent_1", "disagree", "222", "marked", "conformity"],
        ["agent_2", "disagree", "444", "marked", "instability"],
        ["agent_3", "disagree", "111", "marked", "persuasion"],
    ]
    assert "flip: the agent changed its answer since the round before" in tables["turn 2"]


def agrees_in_turn_two(call: Call) -> str:
    """Three answers in turn 1; in turn 2 agent_1 agrees with the current solution, agent_3's."""
    said = tag(call.agent, call.round)
    if call.round == 2 and call.agent == "agent_1":
        assert f"{prompts.CURRENT} 333" in call.messages[1].text
        return f"[AGREE] {said}"
    return f"[DISAGREE] {said}\nANSWER: {111 * int(call.agent[-1])}"


async def test_an_agreement_that_changes_the_solution_is_a_flip() -> None:
    rt, _ = await scripted_debate(
        "consensus", agrees_in_turn_two, PROBLEM, personas="none", protocol="unanimity",
        max_turns=2,
    )  # fmt: skip
    tables = dict(rt.infos)
    # no plurality in turn 1 (one answer each): agent_3's answer is a peer's, so persuasion
    assert rows(tables["turn 2"])[0] == ["agent_1", "agree", "333", "none", "2/3", "persuasion"]
    assert [r[-1] for r in rows(tables["turn 2"])[1:]] == ["1/3", "1/3"]

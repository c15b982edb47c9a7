"""Du et al.'s debate (`du_debate`) against composable-models/llm_multiagent_debate: the MMLU
script, as shipped (simultaneous rounds) and as released with the paper (sequential)."""

from __future__ import annotations

from dataclasses import replace

from replies import Scenario, choice_reply, conversation_keyer
from spec import Check, Method, round_kind


def du_scenarios(agents: int = 3) -> list[Scenario]:
    """Unanimous, split, a three-way tie, a flip to the minority and an abstention, over Du et
    al.'s two rounds (the tie: three answers in the last round, the earlier round decides
    nothing by order; the authors' vote takes the first agent's)."""

    def table(*rounds: str) -> dict[tuple[int, int], str | None]:
        return {
            (a + 1, r + 1): (None if row[a] == "-" else row[a])
            for r, row in enumerate(rounds)
            for a in range(agents)
        }

    return [
        Scenario("unanimous", table("AAA", "AAA"), "every agent answers A in both rounds"),
        Scenario("split", table("ABB", "ABB"), "two against one, unchanged"),
        Scenario("tie", table("CBB", "ABC"), "three answers in the last round; B led round one"),
        Scenario("flip", table("ABB", "BBB"), "the first agent flips to the majority"),
        Scenario("abstention", table("AA-", "AB-"), "the third agent never answers"),
    ]


PLANTS = {
    "question": "Which gas do green plants take in to make sugar?",
    "choices": ["Oxygen", "Carbon dioxide", "Nitrogen", "Helium"],
}

DU = Method(
    id="du_debate",
    solver="du_debate",
    repo="composable-models/llm_multiagent_debate",
    commit="9846749",
    licence="none stated (no LICENSE file): run, never copied",
    requirements=("openai==0.27.6", "numpy", "pandas"),
    driver="du_mmlu.py",
    shims=(
        "glob.glob returns a one-row CSV of the question (the script's data path is the "
        "authors' cluster)",
        "the script's question loop range(100) runs once",
        "the decision is eval_mmlu.compute_accuracy asked with each letter as the gold answer",
    ),
    task="mmlu",
    question={**PLANTS, "answer": 1},
    authors_question={**PLANTS, "gold": "B"},
    options={"retries": 0},
    scenarios=tuple(du_scenarios()),
    keyer=lambda: conversation_keyer("debate"),
    say=choice_reply,
    kind_of=round_kind,
    checks={
        "first round": (
            Check("states the question and its options", r"A\) Oxygen", r"A\) Oxygen"),
            Check("asks for reasoning", r"explain your answer", r"step by step"),
            Check(
                "asks for the answer in a fixed form at the end",
                r"form \(X\) at the end",
                r"last line of the form",
            ),
        ),
        "later round": (
            Check(
                "shows every other agent's previous reply in full, anonymously",
                r"(One agent solution: ```.*){2}",
                r"(--- one agent's reply ---.*){2}",
            ),
            Check(
                "offers their reasoning as additional advice",
                r"as additional advice",
                r"as additional advice",
            ),
            Check(
                "asks to examine its own solution and theirs step by step",
                r"examine your solution and that other agents step by step",
                r"examine your own solution and theirs step by step",
            ),
            Check("asks for an updated answer", r"updated answer", r"updated answer"),
            Check(
                "asks for the answer in a fixed form at the end",
                r"form \(X\) at the end",
                r"last line of the form",
            ),
        ),
    },
)

# the code released with the paper (before "bugfix on indexes", 9b32e09): each agent read the other
# agents' latest messages, so agents later in the loop read the same round's earlier replies
DU_RELEASED = replace(
    DU,
    id="du_debate_sequential",
    commit="c34492f",
    options={"retries": 0, "sequential": True},
)
# no code of its own (docs/fidelity.md): the sparse-topology debate on the full graph is Du et al.'s
NEIGHBOR_FULL = replace(
    DU,
    id="neighbor_debate_full",
    solver="neighbor_debate",
    options={"retries": 0, "topology": "full", "agents": 3, "rounds": 2},
)

METHODS = (DU, DU_RELEASED, NEIGHBOR_FULL)

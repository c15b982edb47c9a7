"""ChatEval (`chateval`) against thunlp/ChatEval: their pairwise evaluation with the shipped
configuration (two referees, sequential order, every message visible to all, four turns), run as
given and with the two answers swapped (`--reverse_input`), decided by their `average` scorer.

A scripted referee reply carries both answer forms: our score lines (`SCORE A: n`, asked with
`verdict=scores`) and ANSWER line, then the authors' two score lines last (their parser wants them
on the last two lines). A scenario's answer for an (agent, turn) is `"P a b"`: the answer the
referee prefers (A or B, by identity, not position) and the scores it gives answer A and answer B;
`"... / P a b"` gives the swapped run its own reply; None is a reply whose scores and answer
cannot be read (the authors' score lines then hold words)."""

from __future__ import annotations

from replies import Call, Key, Keyer, Messages, Scenario, Script, markers_in
from spec import Check, Method

EGG = {
    "question": "How do I boil an egg so the yolk stays soft?",
    "answer_a": "Lower the egg into water that is already boiling, cook it for six to seven "
    "minutes, then cool it in cold water so it stops cooking.",
    "answer_b": "Eggs are a good source of protein and can be eaten at breakfast.",
}
REFEREES = 2
KINDS = ("debate", "swapped")  # the answers as given (A first), and swapped (B first)


def chateval_keyer() -> Keyer:
    """A call's kind is which answer its first message shows first; its place in the debate is
    the number of earlier messages of that debate its prompt carries (sequential order, every
    message visible): the n-th message (from 0) is agent n mod 2 + 1's, in turn n div 2 + 1."""

    def key(messages: Messages, script: Script) -> Key:
        first = next((m["content"] for m in messages if EGG["answer_b"][:30] in m["content"]), "")
        a, b = first.find(EGG["answer_a"][:30]), first.find(EGG["answer_b"][:30])
        kind = KINDS[0] if 0 <= a < b else KINDS[1]
        heard = [k for k in markers_in("\n".join(m["content"] for m in messages)) if k.kind == kind]
        return Key(kind, len(heard) % REFEREES + 1, len(heard) // REFEREES + 1)

    return key


def referee_reply(key: Key, answer: str | None) -> str:
    """The reply: a marker, the evidence, our score lines and ANSWER line (by position in this
    run: A is the answer shown first), then the authors' two score lines (Assistant 1 is the
    answer shown first)."""
    if answer is None:
        return (
            f"Noted as {key.marker()}. Evaluation evidence: both answers have merits and I "
            "cannot settle.\nThe score of Assistant 1: undecided\nThe score of Assistant 2: "
            "undecided"
        )
    parts = answer.split(" / ")
    prefer, a, b = parts[-1 if key.kind == "swapped" else 0].split()
    first, second = (a, b) if key.kind == "debate" else (b, a)
    letter = prefer if key.kind == "debate" else {"A": "B", "B": "A"}[prefer]
    return (
        f"Noted as {key.marker()}. Evaluation evidence: weighing both answers, the one shown as "
        f"{letter} serves the question better.\nSCORE A: {first}\nSCORE B: {second}\n"
        f"ANSWER: {letter}\n"
        f"The score of Assistant 1: {first}\nThe score of Assistant 2: {second}"
    )


def table(*turns: str) -> dict[tuple[int, int], str | None]:
    """One string per turn, the referees' answers separated by `|` ("-": unreadable)."""
    return {
        (a + 1, t + 1): (None if said.strip() == "-" else said.strip())
        for t, row in enumerate(turns)
        for a, said in enumerate(row.split("|"))
    }


SCENARIOS = (
    Scenario("unanimous", table("A 8 4|A 7 3", "A 8 4|A 8 3"), "both referees prefer A"),
    Scenario(
        "split",
        table("B 6 7|A 9 4", "B 6 7|A 9 4"),
        "the first referee narrowly prefers B, the second strongly A: A leads on the sum",
    ),
    Scenario(
        "tie",
        table("B 7 8|A 8 7", "B 7 8|A 8 7"),
        "the referees prefer opposite answers by one point each: the sums tie",
    ),
    Scenario(
        "flip",
        table("A 8 5|B 5 8", "A 8 5|A 8 6"),
        "the second referee prefers B in the first turn and A in the second",
    ),
    Scenario(
        "abstention",
        table("B 5 8|B 4 8", "B 5 8|-"),
        "both prefer B, but the second referee's last scores cannot be read",
    ),
    Scenario(
        "swap disagrees",
        table("A 7 6 / B 4 9|A 7 6 / B 4 9", "A 7 6 / B 4 9|A 7 6 / B 4 9"),
        "A narrowly as given, but B strongly when B is shown first",
    ),
)


def user_text(call: Call) -> str:
    """What a call is told: every user message (theirs: the filled template, then the closing
    instruction, empty before the last turn; ours: one message)."""
    return "\n".join(m["content"] for m in call.messages if m["role"] == "user")


def turn_kind(call: Call) -> str:
    return "last turn" if call.key.round == 2 else "first turn"


EVERY_TURN = (
    Check(
        "states the question and both answers",
        r"boil an egg.*(Lower the egg.*Eggs are a good|Eggs are a good.*Lower the egg)",
        r"boil an egg.*(Lower the egg.*Eggs are a good|Eggs are a good.*Lower the egg)",
    ),
    Check("gives the referee its own role", r"You are now (General Public|Critic)", r"Your role:"),
    Check(
        "says other referees judge the same and asks to think critically",
        r"other referee.*think critically",
        r"referees.*think critically",
    ),
    Check("asks for a short, clear message", r"short and clear", r"short and clear"),
    Check(
        "names the criteria: helpfulness, relevance, accuracy, detail",
        r"helpfulness, relevance, accuracy, and level of detail",
        r"helpful.*relevan.*accura.*detail",
    ),
)
LAST_TURN = (
    *EVERY_TURN,
    Check(
        "asks for an explanation before the verdict",
        r"first provide a comprehensive explanation",
        r"expla\w* your \w+ first",
    ),
    Check(
        "asks that the order of the answers not sway the verdict",
        r"order in which the responses were presented does not affect",
        r"neither their order",
    ),
    Check(
        "says it need not agree with the other referees",
        r"not required to output the same value as other referees",
        r"your own answer",
    ),
    Check(
        "asks for each answer's score from 1 to 10 on the last two lines",
        r"scale of 1 to 10.*The score of Assistant 1: \[score only\]",
        r"score.{0,40}1 to 10",
    ),
)

CHATEVAL = Method(
    id="chateval",
    solver="chateval",
    repo="thunlp/ChatEval",
    commit="56b320c",
    licence="Apache-2.0: run, never copied",
    requirements=(
        "openai==1.58.1",
        "httpx==0.27.2",
        "pydantic==1.10.19",
        "langchain==0.0.155",
        "pyyaml",
        "numpy<2",
        "pandas",
        "scikit-learn",
    ),
    driver="chateval_pair.py",
    shims=(
        "agentverse is imported before llm_eval.py runs, so its OpenAI clients read the scripted "
        "server's address before the script's first lines overwrite OPENAI_BASE_URL and "
        "OPENAI_API_KEY with placeholders",
        "the config's relative data path is a one-item FairEval file in a fresh working "
        "directory (answer A as the first response, B as the second)",
        "the decision is their scorer's `average` over the run as given and the --reverse_input "
        "run, output_1 read as A and output_2 as B",
    ),
    task="mt_bench_judge",
    question={**EGG, "label": "A"},
    authors_question=EGG,
    options={"retries": 0, "swap": True, "verdict": "scores"},
    scenarios=SCENARIOS,
    keyer=chateval_keyer,
    say=referee_reply,
    kind_of=turn_kind,
    checks={"first turn": EVERY_TURN, "last turn": LAST_TURN},
    prompt_of=user_text,
    paths=(
        "LICENSE",
        "agentverse",
        "calc_adversarial_results_calc_score_calibration.py",
        "eval_helper",
        "llm_eval.py",
    ),
)
METHODS = (CHATEVAL,)

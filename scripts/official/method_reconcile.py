"""ReConcile (`reconcile`) against dinobby/ReConcile: their `run.py` on one StrategyQA question
(their SQA path, our `strategyqa` task), and on one multiple-choice question (their Aqua path, our
`mmlu` task) for what a yes/no task cannot show: three distinct answers, of which the discussion
prompt drops the third.

Keying: the authors' code sends a round's calls one model at a time (Claude, GPT, Bard) and ours
sends them in agent order (one connection); within a round every agent's prompt shows the same
earlier replies (theirs differ only in the few-shot samples, ours not at all by default), so a
call's round is one more than the latest round it quotes and its agent is its order of arrival in
that round. A scripted answer is "yes@0.9": the answer and the stated confidence.
"""

from __future__ import annotations

from dataclasses import replace

from replies import Key, Keyer, Messages, Scenario, Script, markers_in
from spec import Check, Method, round_kind

KIND = "answer"
ROUNDS = 3  # the initial answers and the code's 2 discussion rounds


def keyer() -> Keyer:
    def key(messages: Messages, script: Script) -> Key:
        seen = markers_in("\n".join(m["content"] for m in messages))
        round = 1 + max((k.round for k in seen), default=0)
        return Key(KIND, script.arrive(f"round {round}"), round)

    return key


def say(key: Key, answer: str | None) -> str:
    """A reply in both forms: the authors' JSON dict (reasoning, answer, confidence_level) and our
    CONFIDENCE and ANSWER lines; an abstention gives neither a readable answer nor a confidence
    (their code fills its answer at random and reads its confidence as 0.0)."""
    marker = key.marker()
    if answer is None:
        return (
            f"Noted as {marker}.\n"
            f'{{"reasoning": "Noted as {marker}. I weighed what is known and cannot settle it.", '
            '"answer": "", "confidence_level": ""}'
        )
    choice, confidence = answer.split("@")
    return (
        f"Noted as {marker}.\n"
        f'{{"reasoning": "Noted as {marker}. Weighing what is known, I settle on {choice}.", '
        f'"answer": "{choice}", "confidence_level": "{confidence}"}}\n'
        f"CONFIDENCE: {confidence}\nANSWER: {choice}"
    )


def table(*rounds: str) -> dict[tuple[int, int], str | None]:
    """Rows like "yes@0.9 no@0.7 -", one per round ("-": an abstention)."""
    return {
        (a + 1, r + 1): (None if cell == "-" else cell)
        for r, row in enumerate(rounds)
        for a, cell in enumerate(row.split())
    }


SPLIT = "yes@0.8 no@0.8 no@0.8"
SCENARIOS = (  # the first shows later rounds: the checklist is read from it
    Scenario("split", table(SPLIT, SPLIT, SPLIT), "two against one in every round"),
    Scenario("unanimous", table("yes@0.9 yes@0.9 yes@0.9"), "agreement at once: no discussion"),
    Scenario(
        "confidence",
        table(*["yes@1.0 no@0.7 no@0.7"] * ROUNDS),
        "a sure minority (weight 1.0) outweighs a hesitant majority (0.3 + 0.3)",
    ),
    Scenario(
        "tie",
        table(*["yes@1.0 no@0.85 no@0.85"] * ROUNDS),
        "equal weights (1.0 against 0.5 + 0.5): the answer given first wins",
    ),
    Scenario(
        "flip", table("yes@0.8 no@0.9 no@0.9", "no@0.8 no@0.9 no@0.9"), "agreement after a round"
    ),
    Scenario(
        "abstention",
        table(*["yes@0.9 no@0.7 -"] * ROUNDS),
        "the third agent never gives an answer (theirs: a seeded random one, weight 0.1)",
    ),
)

CHOICE_SCENARIOS = (  # the first shows later rounds: the checklist is read from it
    Scenario(
        "dropped",
        table(*["A@0.8 B@0.8 C@0.95"] * ROUNDS),
        "three answers, one agent each: the third is dropped from every prompt, yet its "
        "confidence wins the vote",
    ),
    Scenario(
        "equal",
        table("A@0.8 B@0.8 C@0.8", "A@0.8 B@0.8 C@0.8", "B@0.8 C@0.8 A@0.8"),
        "three answers of equal weight: the first agent's wins",
    ),
)

HOUSECAT = {
    "qid": "fx-01",
    "question": "Could a housecat fit inside a standard shoebox?",
    "answer": True,
    "facts": ["A typical housecat is about 45 cm long when curled up smaller",
              "A shoebox is about 33 cm long"],
}  # fmt: skip
PLANTS = {
    "question": "Which gas do green plants take in to make sugar?",
    "choices": ["Oxygen", "Carbon dioxide", "Nitrogen", "Helium"],
}

REPLY_FORM = (
    Check("asks for step-by-step reasoning", r"step-by-step reasoning", r"reason step by step"),
    Check(
        "asks for a confidence between 0.0 and 1.0 that the answer is right",
        r"confidence level \(between 0\.0 and 1\.0\).*possibility of your answer being right",
        r"between 0\.0 and 1\.0, is the probability that your answer is right",
    ),
    Check(
        "asks for the answer in a fixed form",
        r"json format",
        r"line of the form",
    ),
)
SQA_ANSWER = Check(
    "restricts the answer to yes or no", r"only answer yes or no", r'"ANSWER: yes" or "ANSWER: no"'
)
DISCUSSION = (
    Check(
        "groups the previous round's replies by answer, with how many agents gave each",
        r"There are \d agents think the answer is",
        r"=== \d agents?: answer",
    ),
    Check(
        "shows each reply's explanation with its stated confidence",
        r"One agent solution: I think the answer is .* My confidence level is",
        r"--- an agent \(confidence [\d.]+\) ---",
    ),
    Check(
        "offers them as additional information",
        r"as additional information",
        r"as additional information",
    ),
    Check(
        "asks which points it agrees or disagrees with and why",
        r"agree or disagree and why",
        r"agree or disagree with and why",
    ),
    Check("asks for its own answer", r"provide your own answer", r"give your own answer"),
)


def checks(question: str, *answer: Check) -> dict[str, tuple[Check, ...]]:
    asked = Check("states the question", question, question)
    return {
        "first round": (asked, *REPLY_FORM, *answer),
        "later round": (asked, *DISCUSSION, *REPLY_FORM, *answer),
    }


RECONCILE = Method(
    id="reconcile",
    solver="reconcile",
    repo="dinobby/ReConcile",
    commit="902ae91",
    licence="MIT: run, never copied",
    requirements=("openai==0.27.8", "backoff==2.2.1", "tqdm", "python-dotenv", "pandas", "numpy"),
    driver="reconcile_run.py",
    shims=(
        "the data: a work folder with the one question as dataset/<name>/ and a link to the "
        "checkout's convincing/ (their few-shot samples, as shipped)",
        "the keys generation.py reads are placeholders; its Azure GPT client (unchanged) points at "
        "the scripted server's Azure route",
        "claude.Client (the claude.ai web client) is a stub that sends the prompt as one user "
        "message to the scripted server; it answers the start-up greeting itself",
        "google.generativeai (PaLM) is a stub: palm.chat sends the few-shot pairs as user/assistant "
        "turns and the message as the last user turn, and returns the reply as .last",
        "curl_cffi and google.api_core.exceptions are stubs holding the exception classes imported",
        "time.sleep does nothing",
        "numpy's random generator is seeded (0) before the run (an unreadable answer is filled "
        "with a random option)",
    ),
    task="strategyqa",
    question=HOUSECAT,
    authors_question={"dataset": "SQA", "record": HOUSECAT},
    options={"retries": 0},
    scenarios=SCENARIOS,
    keyer=keyer,
    say=say,
    kind_of=round_kind,
    checks=checks(r"Could a housecat fit inside a standard shoebox\?", SQA_ANSWER),
)

RECONCILE_CHOICE = replace(
    RECONCILE,
    id="reconcile_choice",
    task="mmlu",
    question={**PLANTS, "answer": 1},
    authors_question={
        "dataset": "Aqua",
        "record": {
            "question": PLANTS["question"],
            "options": [f"{letter}){c}" for letter, c in zip("ABCD", PLANTS["choices"])],
            "correct": "B",
            "rationale": "Plants take in carbon dioxide for photosynthesis.",
        },
    },
    scenarios=CHOICE_SCENARIOS,
    checks=checks(
        r"Which gas do green plants take in to make sugar\?",
        Check("asks for an option's letter", r"A,B,C,D,E", r"letter"),
        Check(
            "lists the options", r"A\)Oxygen B\)Carbon dioxide", r"A\) Oxygen\nB\) Carbon dioxide"
        ),
    ),
)
METHODS = (RECONCILE, RECONCILE_CHOICE)

"""PRD's peer discussion (`peer_discussion`) against bcdnlp/PRD: the initial reviews of
`peer_rank/eval_gpt_review.py`, then `peer_discussion/discuss_vicuna80.py`, which holds the
discussion twice, reviewer 1 opening and then reviewer 2.

Calls are keyed by what their prompt shows: a review shows no earlier reply (reviewers by order of
arrival); a turn shows both reviews, the opener's first, which names its discussion (`turn`:
reviewer 1 opened, `reverse`: reviewer 2 did), and the discussion's earlier turns, whose number
gives the turn; the opener speaks on odd turns. Rounds: the reviews 1, turn t round t + 1."""

from __future__ import annotations

from replies import Call, Key, Keyer, Messages, Scenario, Script, markers_in
from spec import Check, Method

TURNS = ("turn", "reverse")  # the discussion reviewer 1 opens, and the one reviewer 2 opens
DIGIT = {"A": "1", "B": "2", "C": "3"}
SAYS = {"A": "answer A is the better one", "B": "answer B is the better one",
        "C": "the two are equally good"}  # fmt: skip


def prd_keyer() -> Keyer:
    def key(messages: Messages, script: Script) -> Key:
        shown = markers_in("\n".join(m["content"] for m in messages))
        reviews = [k for k in shown if k.kind == "review"]
        if not reviews:
            return Key("review", script.arrive("review"), 1)
        opener = reviews[0].agent
        kind = TURNS[opener - 1]
        turn = 1 + sum(k.kind == kind for k in shown)
        speaker = opener if turn % 2 else 3 - opener
        return Key(kind, speaker, turn + 1)

    return key


def prd_reply(key: Key, answer: str | None) -> str:
    """A review or turn that prefers `answer` (A, B, or C for equally good) in both forms: our
    ANSWER line, then their last line 1, 2 or 3; None: no preference in either."""
    if answer is None:
        return f"Noted as {key.marker()}. Both have merits and flaws; I cannot settle on either."
    return (
        f"Noted as {key.marker()}. Having weighed both, {SAYS[answer]}.\nANSWER: {answer}\n"
        f"{DIGIT[answer]}"
    )


def table(first: str, second: str) -> dict[tuple[int, int], str | None]:
    """Each reviewer's preference by round (1: its review; 2 to 5: its turns, the two discussions
    interleaved: reviewer 1 speaks in rounds 2 and 4 of the first discussion and 3 and 5 of the
    second, reviewer 2 the other way round); `-` no preference."""
    return {
        (agent, r + 1): (None if row[r] == "-" else row[r])
        for agent, row in ((1, first), (2, second))
        for r in range(5)
    }


SCENARIOS = (
    Scenario("unanimous", table("AAAAA", "AAAAA"), "both prefer A throughout"),
    Scenario(
        "split",
        table("AAAAA", "BBBBB"),
        "each holds its own view: the last word is reviewer 2's B in the first discussion, "
        "reviewer 1's A in the second",
    ),
    Scenario("tie", table("CCCCC", "CCCCC"), "both find the answers equally good"),
    Scenario("flip", table("AAAAA", "BAAAA"), "reviewer 2 turns to A at its first turn"),
    Scenario("abstention", table("AAAAA", "-----"), "reviewer 2 never states a preference"),
    Scenario(
        "last word unreadable",
        table("BBBBB", "BBBB-"),
        "reviewer 2's last turn of the first discussion (round 5) states nothing: B from before",
    ),
    Scenario(
        "order decides",
        table("AAAAB", "BBBBB"),
        "the first discussion ends on B; in the second reviewer 1 has the last word and turns "
        "to B too",
    ),
)

PAIR = {
    "question": "How do I boil an egg so the yolk stays soft?",
    "answer_a": "Lower the egg into boiling water, cook it for six to seven minutes, then cool "
    "it in cold water.",
    "answer_b": "Eggs are a good source of protein and can be eaten at breakfast.",
}


def kind_of(call: Call) -> str:
    return {"review": "review", "turn": "turn", "reverse": "turn"}.get(call.key.kind, "other")


PRD = Method(
    id="peer_discussion",
    solver="peer_discussion",
    repo="bcdnlp/PRD",
    commit="35fb99e",
    licence="MIT",
    requirements=(
        "openai==0.28.1",
        "pyyaml",
        "pandas",
        "html2text",
        "anthropic",
        "shortuuid",
        "numpy",
        "tqdm",
    ),
    driver="prd_discussion.py",
    shims=(
        "a working tree holds the pair as Vicuna80's files (one question, one answer per model, "
        "one human judgment row), key files with a dummy key, and config.yml with both reviewers "
        "named gpt* (reviewer 2: gpt4 on gpt-4-0613); prompt_generation.py reads "
        "peer_discussion/config.yml from the working directory, so the same file is there too",
        "time.sleep does nothing (the review script waits 2 s between requests)",
        "the decision: their code records each turn's preference and states no rule; the driver "
        "takes each discussion's last readable preference and combines the two: agreeing "
        "verdicts stand, differing ones give a tie",
    ),
    task="mt_bench_judge",
    question={"row": 0, **PAIR, "label": "A"},
    authors_question={**PAIR, "human": "system_a"},
    options={"retries": 0},
    paths=("peer_rank/eval_gpt_review.py", "peer_discussion", "data/vicuna80/prompts"),
    scenarios=SCENARIOS,
    keyer=prd_keyer,
    say=prd_reply,
    kind_of=kind_of,
    checks={
        "review": (
            Check(
                "shows the question and both answers",
                r"\[Question\].*Egg.*Assistant 1's Answer.*six to seven.*Assistant 2's Answer.*protein",
                r"\[Question\].*egg.*\[Answer A\].*six to seven.*\[Answer B\].*protein",
            ),
            Check(
                "names what to weigh: helpfulness, relevance, accuracy, level of detail",
                r"helpfulness, relevance, accuracy, level of details",
                r"helpful, relevant and accurate.*level of detail",
            ),
            Check(
                "asks for a full explanation",
                r"comprehensive explanation",
                r"explain your evaluation in full",
            ),
            Check(
                "the order of the answers must not sway it",
                r"order in which the responses were presented does not affect",
                r"order in which the answers are shown must not sway",
            ),
            Check(
                "a preference: the first, the second, or the two equal",
                r"1 or 2 respectively, or choose 3 if the two assistants are equivalent",
                r"A or B, or C if the two answers are equally good",
            ),
            Check(
                "the preference alone on the last line",
                r"anything else other than the number in this last line",
                r"last line of the form",
            ),
        ),
        "turn": (
            Check(
                "asks whether to change its preference, and why",
                r"make a decision if to change your preference, and explain",
                r"decide whether to change your preference, and explain",
            ),
            Check(
                "a preference: the first, the second, or the two equal",
                r"1 or 2, or choose 3 if the two answers are equivalent",
                r"A or B, or C if the two answers are equally good",
            ),
            Check(
                "the preference alone on the last line",
                r"anything else other than the number in this last line",
                r"last line of the form",
            ),
        ),
    },
)

METHODS = (PRD,)

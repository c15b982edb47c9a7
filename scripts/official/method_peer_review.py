"""Xu et al.'s multi-agent peer review (`peer_review`) against HITsz-TMG/Multi-agent-peer-review:
`peer_review.py` on ARC-c (their multiple-choice prompts), decided as their `eval.py` does.

Calls are keyed by what their prompt shows: a first solution has no reply before it (agents by
order of arrival); a review's last message shows the one solution it reviews (`reviewof<author>`,
the reviewer being the agent whose first reply opens its conversation); a revision's last message
shows the reviews of the agent's own solution."""

from __future__ import annotations

from method_du import du_scenarios
from replies import AGENTS, Call, Key, Keyer, Messages, Scenario, Script, choice_reply, markers_in
from spec import Check, Method

REVIEW = "reviewof"  # + the reviewed author's marker name: reviewofbirch


def peer_review_keyer() -> Keyer:
    def key(messages: Messages, script: Script) -> Key:
        own = [m for m in messages if m["role"] == "assistant"]
        if not own:
            return Key("solution", script.arrive("solution"), 1)
        first = markers_in(own[0]["content"])
        agent = first[0].agent if first else 0
        shown = markers_in(messages[-1]["content"])
        reviews = [k for k in shown if k.kind.startswith(REVIEW)]
        if reviews:
            return Key("revision", agent, reviews[0].round)
        answers = [k for k in shown if k.kind in ("solution", "revision")]
        if len(answers) != 1:
            return Key("unknown", agent, len(own) + 1)
        author = answers[0]
        return Key(REVIEW + AGENTS[author.agent - 1], agent, author.round + 1)

    return key


def peer_review_reply(key: Key, answer: str | None) -> str:
    """Solutions and revisions give the scenario's answer in both forms; a review gives feedback
    and a confidence, in the authors' free form and in our CONFIDENCE line, and no answer."""
    if key.kind.startswith(REVIEW):
        return (
            f"Noted as {key.marker()}. I went through the reasoning step by step and it holds "
            "together. My confidence in this feedback is 8 out of 10.\nCONFIDENCE: 8"
        )
    return choice_reply(key, answer)


def kind_of(call: Call) -> str:
    return "review" if call.key.kind.startswith(REVIEW) else call.key.kind


MOON = (
    "Which statement correctly describes a physical characteristic of the Moon?",
    [
        "The Moon is made of hot gases.",
        "The Moon is covered with many craters.",
        "The Moon has many bodies of liquid water.",
        "The Moon has the ability to give off its own light.",
    ],
)
LETTERS = "ABCD"

PEER_REVIEW = Method(
    id="peer_review",
    solver="peer_review",
    repo="HITsz-TMG/Multi-agent-peer-review",
    commit="a470948",
    licence="none stated (no LICENSE file): run, never copied",
    requirements=("openai==0.28.1", "tqdm", "jsonlines", "numpy"),
    driver="xu_peer_review.py",
    shims=(
        "the question is the one row of processed_data/ARC-c/ARC-c_1.jsonl in a fresh working "
        "directory, run with --task ARC-c --max_example_num 1 --openai_key x",
        "the decision is eval.py's parse_pred_answer on each agent's last message and "
        "most_frequent over the readable ones, as its compute_accuracy composes them",
    ),
    task="arc_challenge",
    question={
        "id": "moon",
        "question": MOON[0],
        "choices": {"text": MOON[1], "label": list(LETTERS)},
        "answerKey": "B",
    },
    authors_question={
        "question": MOON[0]
        + " \n"
        + "".join(f"({x}) {t} \n" for x, t in zip(LETTERS, MOON[1], strict=True)),
        "answer": "B",
    },
    options={"retries": 0},
    paths=("peer_review.py", "params.py", "data_proc.py", "eval.py"),
    scenarios=(
        *du_scenarios(),
        Scenario(
            "reviewed abstention",
            {(1, 1): "A", (2, 1): "B", (3, 1): None, (1, 2): "A", (2, 2): "B", (3, 2): "B"},
            "the third agent's first solution has no answer; it is still reviewed, then revised to B",
        ),
    ),
    keyer=peer_review_keyer,
    say=peer_review_reply,
    kind_of=kind_of,
    checks={
        "solution": (
            Check(
                "states the question and its options",
                r"A\) The Moon is made",
                r"A\) The Moon is made",
            ),
            Check("asks for reasoning", r"explain your answer", r"step by step"),
            Check(
                "asks for the answer in a fixed form at the end",
                r"form \(X\) at the end",
                r"last line of the form",
            ),
        ),
        "review": (
            Check(
                "shows one other agent's first solution in full",
                r"solution from another agent.*ref-solution-",
                r"solution from another agent.*ref-solution-",
            ),
            Check(
                "asks to examine its reasoning step by step",
                r"examine this agent's reasoning process step by step",
                r"examine its reasoning step by step",
            ),
            Check("asks for feedback on it", r"offer feedback", r"give feedback"),
            Check(
                "asks for a confidence in the feedback from 1 to 10",
                r"confidence.*1-10",
                r"confiden.*from 1 to 10",
            ),
        ),
        "revision": (
            Check(
                "shows every review of its own solution, anonymously",
                r"(One agent feedback: [^\n]*ref-reviewof.*){2}",
                r"(--- review \d[^\n]*---\n[^\n]*ref-reviewof.*){2}",
            ),
            Check(
                "offers the others' feedback as additional advice",
                r"as additional advice",
                r"as additional information",
            ),
            Check(
                "asks to examine its own solution and the feedback step by step",
                r"examine your solution and other agents' feedback step by step",
                r"examine your solution and the feedback step by step",
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

METHODS = (PEER_REVIEW,)

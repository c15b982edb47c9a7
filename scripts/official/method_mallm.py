"""The decision protocols of "Voting or Consensus?" (`voting`, `consensus`, `aad`,
`collective_improvement`, the challenge stage) against MALLM (Multi-Agent-LLMs/mallm), the
authors' framework, run unchanged through its scheduler.

Keying. MALLM names no call; it identifies an agent by its persona in the prompt. Both sides make
expert personas (their default and ours), and the scripted persona reply names agent k's role
"<Tree> expert" (Alder, Birch, Cedar, ...), so every call made in an agent's persona is keyed by
the role in its system message. The kinds, by what the prompt asks (the same reading for both):
- `persona`: a persona request; agents in order of arrival (sequential generation);
- `extract`: the extraction of one message's solution, keyed by the marker of the message it quotes
  (their `extract_result` after every message; ours with `extraction=call`);
- `candidate`: a voting candidate's extraction in the agent's persona, round = the vote's turn;
- `ballot`: a ballot, round = the vote's turn; it votes for the first candidate that gives the
  agent's own answer of that turn (0-indexed, as both number them);
- `verdict` / `new answer` / `wrong`: the challenge stage (round = the variant, in the order both
  run them: solution, wrong, irrelevant, history, information); an agent agrees when the answer
  shown is its own last answer; `debate`: a discussion message, round = the agent's messages so
  far + 1.
Extraction, candidate and ballot replies carry no marker (the solution text is quoted onward as
the current solution and as candidates; a marker there would count as seeing the extraction).

The challenge ids (`voting_challenge`, ...) run all five variants on both sides; their decision is
the final answer and each variant's new answers (`challenge_decision`), the facts those of
drivers/mallm_facts.txt on both sides.

Scenario answers: "A" proposes or disagrees with answer A, "=A" agrees ([AGREE]) holding A, None
gives no answer and neither word (MALLM counts that as disagreement, as ours does).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from replies import AGENTS, Call, Key, Messages, Scenario, Script, markers_in
from spec import Check, Method

ROLE = re.compile(r"(?:Your role:|persona is called) ([A-Z][a-z]+) expert")
SOLUTION = re.compile(r"Solution (\d+): (.*?)(?=\n\s*Solution \d+:|\Z)", re.DOTALL)
LETTER = re.compile(r"\(?([A-D])\)")  # "(B)" (their extraction's) or "B) ..." (ours)
VARIANTS = ("solution", "wrong", "irrelevant", "history", "information")  # the order both run
_BALLOTS: dict[tuple[int, int], int] = {}  # (agent, turn) -> the candidate its ballot names
_VERDICTS: dict[tuple[str, int], bool] = {}  # (kind, agent) -> agrees with the answer shown


def _kind(messages: Messages) -> str:
    last = messages[-1]["content"]
    whole = "\n".join(m["content"] for m in messages)
    if re.search(r"JSON for the next persona|Reply with only a JSON object", last):
        return "persona"
    if re.search(r"incorrect or wrong response|deliberately wrong", whole):
        return "wrong"
    if re.search(r"You dont agree|You do not agree with this final answer", last):
        return "new answer"
    if re.search(r"exact word .?AGREE", last):
        return "verdict"
    if re.search(r"Extract the final solution|State the final solution", last):
        return "extract"
    if re.search(r"Here are the possible solutions|The solutions, numbered from 0", whole):
        return "ballot"
    return "debate"


def _agent(messages: Messages) -> int:
    for m in messages:
        if m["role"] == "system" and (found := ROLE.search(m["content"])):
            return AGENTS.index(found.group(1).lower()) + 1
    return 0


def _answer(script: Script, agent: int, turn: int) -> str | None:
    a = script.scenario.answers.get((agent, turn))
    return a.lstrip("=") if a else None


def mallm_keyer():
    def key(messages: Messages, script: Script) -> Key:
        kind = _kind(messages)
        if kind == "persona":
            return Key("persona", script.arrive("persona"), 1)
        if kind == "wrong":
            return Key("wrong", 1, 1)
        agent = _agent(messages)
        turn = script.arrivals.get(f"debate-{agent}", 0)
        if kind == "debate":
            return Key("debate", agent, script.arrive(f"debate-{agent}"))
        if kind == "extract":
            if agent:  # made in the agent's persona: a voting candidate
                return Key("candidate", agent, turn)
            quoted = [k for k in markers_in("\n".join(m["content"] for m in messages[-2:]))
                      if k.kind == "debate"]  # fmt: skip
            k = quoted[-1] if quoted else Key("debate", 0, 1)
            return Key("extract", k.agent, k.round)
        if kind == "ballot":
            own = _answer(script, agent, turn)
            shown = SOLUTION.findall(messages[-1]["content"]) or SOLUTION.findall(
                "\n".join(m["content"] for m in messages)
            )
            picks = [int(i) for i, text in shown if own and re.match(rf"\W*{own}\)", text)]
            _BALLOTS[(agent, turn)] = picks[0] if picks else 0
            return Key("ballot", agent, turn)
        # the challenge: agree when the answer shown is the agent's own last answer
        last = max((t for (a, t) in script.scenario.answers if a == agent), default=1)
        own = _answer(script, agent, last)
        shown_at = re.search(r"final answer[^:]*: '?(.*)", messages[-1]["content"], re.DOTALL)
        letters = LETTER.findall(shown_at.group(1)) if shown_at else []
        if kind == "new answer":  # after its verdict: the same variant
            return Key(kind, agent, script.arrivals.get(f"verdict-{agent}", 1))
        _VERDICTS[(kind, agent)] = bool(own) and letters[:1] == [own]
        return Key(kind, agent, script.arrive(f"{kind}-{agent}"))

    return key


def mallm_say(key: Key, answer: str | None) -> str:
    tree = AGENTS[key.agent - 1].capitalize() if key.agent else "Nobody"
    if key.kind == "persona":
        return (f'{{"role": "{tree} expert", "description": "A botanist who notes '
                f'{key.marker()}"}}')  # fmt: skip
    if key.kind == "ballot":
        return str(_BALLOTS.get((key.agent, key.round), 0))
    letter = answer.lstrip("=") if answer else None
    if key.kind in ("extract", "candidate"):
        return f"({letter})\nANSWER: {letter}" if letter else "No solution is given."
    if key.kind == "verdict":
        return "AGREE" if _VERDICTS.get(("verdict", key.agent)) else "DISAGREE"
    if key.kind == "wrong":
        return "(D)\nANSWER: D"
    if key.kind == "new answer":
        return f"Noted as {key.marker()}. My new answer is (C).\nANSWER: C"
    if letter is None:
        return f"Noted as {key.marker()}. I weighed every option and cannot settle on one."
    signal = "[AGREE]" if answer and answer.startswith("=") else "[DISAGREE]"
    return (f"{signal} Noted as {key.marker()}. Weighing the options, I settle on {letter}, so "
            f"my answer is ({letter}).\nANSWER: {letter}")  # fmt: skip


def mallm_kind(call: Call) -> str:
    if call.key.kind in ("verdict", "new answer"):
        return f"{call.key.kind}: {VARIANTS[call.key.round - 1]}"
    return call.key.kind


def mallm_prompt(call: Call) -> str:
    """The text a check searches: a challenge call's whole prompt (their task and facts stand in
    system messages, ours before the discussion shown), else its last message."""
    if call.key.kind in ("verdict", "new answer", "wrong"):
        return "\n".join(m["content"] for m in call.messages)
    return str(call.messages[-1]["content"])


def challenge_decision(debate: Mapping[str, Any]) -> str | None:
    """Our decision and each variant's new answers, as the driver writes theirs: one mark per
    agent, - (no DISAGREE), the new answer's letter, ? (none readable)."""
    final = debate["final"]
    stages = {c["setting"]: c["verdicts"] for c in debate["record"]["challenges"]}

    def mark(v: Mapping[str, Any]) -> str:
        return "-" if v["verdict"] != "disagree" else v["new_answer"] or "?"

    parts = [f"{v} {''.join(mark(x) for x in stages.get(v, []))}" for v in VARIANTS]
    return "; ".join([str(final), *parts])


def table(agents: int, *turns: str) -> dict[tuple[int, int], str | None]:
    """One string per turn, one token per agent: A (propose/disagree), =A (agree), - (none)."""
    out: dict[tuple[int, int], str | None] = {}
    for t, row in enumerate(turns):
        for a, token in enumerate(row.split()):
            out[(a + 1, t + 1)] = None if token == "-" else token
    return out


def voting_scenarios() -> list[Scenario]:
    return [
        Scenario("unanimous", table(3, "A =A =A", "=A =A =A", "=A =A =A"),
                 "everyone holds A; the vote after turn 3 picks it"),
        Scenario("split", table(3, "A B =B", "A =A B", "A B =B"),
                 "two against one at the vote"),
        Scenario("tie", table(3, "A B C", "A B C", "A B C", "A B C", "A B C"),
                 "three answers in every vote: no winner through turn 5"),
        Scenario("flip", table(3, "A B B", "=B =B =B", "=B =B =B"),
                 "the first agent joins the others"),
        Scenario("abstention", table(3, "A A -", "A B -", "A B -", "A B -", "A B -"),
                 "the third agent never answers"),
        Scenario("late winner", table(3, "A B C", "A B C", "A B C", "B B C"),
                 "a tie at turn 3, a winner after turn 4"),
    ]  # fmt: skip


def consensus_scenarios() -> list[Scenario]:
    return [
        Scenario("unanimous", table(3, "A =A =A", "=A =A =A", "=A =A =A", "=A =A =A",
                                    "=A =A =A"), "the second agent agrees at once"),
        Scenario("split", table(3, "A B =B", "=B A B", "=B =B A", "B =B =B", "=B =B =B"),
                 "a disagreement every turn until turn 4"),
        Scenario("flip", table(3, "A B C", "=C =C =C", "=C =C =C", "=C =C =C", "=C =C =C"),
                 "everyone disagrees in turn 1, then all join the third"),
        Scenario("abstention", table(3, "- A =A", "=A =A =A", "=A =A =A", "=A =A =A",
                                     "=A =A =A"), "the opening message gives no answer"),
        Scenario("no agreement", table(3, "A B C", "A B C", "A B C", "A B C", "A B C"),
                 "nobody ever agrees: max_turns ends it"),
    ]  # fmt: skip


PLANTS = {
    "question": "Which gas do green plants take in to make sugar?",
    "choices": ["Oxygen", "Carbon dioxide", "Nitrogen", "Helium"],
}
BASE = {
    "decision_protocol": "simple_voting", "discussion_paradigm": "memory", "num_agents": 3,
    "max_turns": 5, "visible_turns_in_memory": 2, "agent_generator": "expert",
}  # fmt: skip

CHECKS = {
    "debate": (
        Check("asks to improve the current solution or propose one",
              r"Improve the current solution|Propose a solution",
              r"Improve the current solution|Propose a solution"),
        Check("ends with step-by-step reasoning", r"step by step", r"step by step"),
    ),
    "extract": (
        Check("states the question and its options", r"A\) Oxygen", r"A\) Oxygen"),
        Check("quotes the message", r"ref-debate", r"ref-debate"),
        Check("asks for the solution without agreement or explanation",
              r"Remove statements of agreement", r"Leave out agreement"),
    ),
    "ballot": (
        Check("lists the candidates numbered from 0", r"Solution 0:", r"Solution 0:"),
        Check("asks for one number", r"Answer only with the number", r"number"),
    ),
}  # fmt: skip

VOTING = Method(
    id="voting",
    solver="voting",
    repo="Multi-Agent-LLMs/mallm",
    commit="d9e66bc",
    licence="Apache-2.0 (run, never copied)",
    requirements=(
        "openai>=1.25,<2",
        "langchain-core>=0.1.42,<0.2",
        "langchain>=0.1.16,<0.2",
        "fire",
        "rich",
        "colorama",
        "json-repair>=0.25.1,<0.26",
        "httpx<0.28",
        "requests",
        "numpy<2",
        "scikit-learn",
        "tqdm",
        "nltk",
        "rouge-score",
        "langdetect",
        "immutabledict",
        "pandas",
        "matplotlib",
        "seaborn",
    ),
    driver="mallm_debate.py",
    shims=(
        "their package is not pip-installed (its poetry dependencies pull torch through "
        "bert-score); the checkout is put on sys.path and the run's own imports are installed",
        "sentence_transformers and torch: a fake module (the scheduler builds two "
        "SentenceTransformers at start-up for features that are off)",
        "contextplus.context returns the text of drivers/mallm_facts.txt (the challenge's "
        "Wikipedia retrieval; our side reads the same file, challenge_facts)",
        "datasets.load_dataset raises (never reached: the input is a local .json file)",
        "bert_score and evaluate (imported by their evaluator, which the judge agent imports): "
        "stand-ins (bert_score needs torch); no metric of theirs but the multiple-choice one runs",
        "the decision: their MultiChoiceBoolean scorer asked with each letter, the one it credits",
    ),
    task="mmlu",
    question={**PLANTS, "answer": 1},
    authors_question={**PLANTS, "gold": "B", "config": BASE},
    # their extraction call for every message and candidate (ours reads the ANSWER line by default)
    options={"retries": 0, "extraction": "call"},
    scenarios=tuple(voting_scenarios()),
    keyer=mallm_keyer,
    say=mallm_say,
    kind_of=mallm_kind,
    checks=CHECKS,
)

CONSENSUS = replace(
    VOTING,
    id="consensus",
    solver="consensus",
    authors_question={**PLANTS, "gold": "B",
                      "config": {**BASE, "decision_protocol": "majority_consensus"}},
    # d9e66bc's count: back to the latest message holding a solution (never a majority of 3)
    options={"retries": 0, "extraction": "call", "protocol": "majority",
             "consensus_count": "latest_solution"},
    scenarios=tuple(consensus_scenarios()),
    checks={k: v for k, v in CHECKS.items() if k != "ballot"},
)  # fmt: skip


def drafted_scenarios() -> list[Scenario]:
    """Voting scenarios whose turn-1 drafts hold no agreement word (MALLM runs its agreement test
    on AAD's drafts too: a draft saying "agree" would keep the previous draft's solution)."""
    return [
        Scenario("unanimous", table(3, "A A A", "=A =A =A", "=A =A =A"), "everyone drafts A"),
        Scenario("split", table(3, "A B B", "A =A B", "A B =B"), "two against one at the vote"),
        Scenario("tie", table(3, "A B C", "A B C", "A B C", "A B C", "A B C"),
                 "three answers in every vote: no winner through turn 5"),
        Scenario("flip", table(3, "A B B", "=B =B =B", "=B =B =B"),
                 "the first agent joins the others"),
        Scenario("abstention", table(3, "A A -", "A B -", "A B -", "A B -", "A B -"),
                 "the third agent never answers"),
    ]  # fmt: skip


def improved_scenarios() -> list[Scenario]:
    """Collective Improvement: no agreement is asked, every reply states its answer."""
    return [
        Scenario("unanimous", table(3, "A A A", "A A A", "A A A"), "everyone holds A"),
        Scenario("split", table(3, "A B B", "A B B", "A B B"), "two against one"),
        Scenario("tie", table(3, "A B C", "A B C", "A B C", "A B C", "A B C"),
                 "three answers in every vote: no winner through turn 5"),
        Scenario("flip", table(3, "A B C", "B B C", "B B B"), "the answers converge on B"),
        Scenario("abstention", table(3, "A A -", "A B -", "A B -", "A B -", "A B -"),
                 "the third agent never answers"),
    ]  # fmt: skip


AAD = replace(
    VOTING,
    id="aad",
    solver="aad",
    authors_question={**PLANTS, "gold": "B",
                      "config": {**BASE, "all_agents_generate_first_draft": True}},
    scenarios=tuple(drafted_scenarios()),
)  # fmt: skip

CI = replace(
    VOTING,
    id="collective_improvement",
    solver="collective_improvement",
    authors_question={**PLANTS, "gold": "B",
                      "config": {**BASE, "discussion_paradigm": "collective_refinement"}},
    scenarios=tuple(improved_scenarios()),
    checks={
        "debate": (Check("ends with step-by-step reasoning", r"step by step", r"step by step"),),
        "extract": CHECKS["extract"],
        "ballot": CHECKS["ballot"],
    },
)  # fmt: skip


def challenge_checks() -> dict[str, tuple[Check, ...]]:
    """Per challenge call kind (the verdict and the new answer of each variant, the wrong answer):
    what their prompt instructs, searched in the whole prompt (`mallm_prompt`)."""
    task = Check("states the task's question and options", r"A\) Oxygen", r"A\) Oxygen")
    verdict = (
        task,
        Check("asks to evaluate the answer critically", r"critically evaluate",
              r"Evaluate this answer critically"),
        Check("asks for the exact word AGREE, or DISAGREE to challenge",
              r"exact word 'AGREE'.*exact word 'DISAGREE'", r"exact word AGREE.*exact word DISAGREE"),
    )  # fmt: skip
    new = (
        task,
        Check("says the agent does not agree with the final answer", r"You dont agree",
              r"You do not agree with this final answer"),
        Check("asks for a new answer to the question", r"provide a new answer",
              r"Give a new answer"),
        Check("asks for the answer's letter", r"Include the letter", r"one of the letters"),
    )  # fmt: skip
    shown = {
        "solution": Check("shows the discussion's final answer",
                          r"discussion: '(\(?[A-D]\)|No answer was provided)",
                          r"discussion: ([A-D]\)|The discussion gave no answer)"),
        "wrong": Check("shows the wrong answer in its place", r"discussion: '\(D\)",
                       r"discussion: D\)"),
        "irrelevant": Check("shows the irrelevant answer in its place",
                            r"discussion: 'I\) I don't know", r"discussion: I\) I don't know"),
        "history": Check("shows the discussion before the answer",
                         r"discussion to the current point.*ref-debate.*final answer",
                         r"discussion that led to it.*ref-debate.*final answer"),
        "information": Check("shows the retrieved facts", r"additional information.*Retrieved facts",
                             r"Additional information.*Retrieved facts"),
    }  # fmt: skip
    checks: dict[str, tuple[Check, ...]] = {
        "wrong": (task, Check("asks for a deliberately wrong answer", r"deliberately incorrect",
                              r"deliberately wrong")),
    }  # fmt: skip
    for variant, item in shown.items():
        checks[f"verdict: {variant}"] = (*verdict, item)
        checks[f"new answer: {variant}"] = (*new, item)
    return checks


CHALLENGE = {
    "options": {"challenge": "all", "challenge_facts": "scripts/official/drivers/mallm_facts.txt"},
    "config": {"challenge_final_results": True},
}


def challenged(method: Method, first: str = "split") -> Method:
    """`method` with MALLM's challenge stage on (`challenge_final_results`): all five variants.
    `first`: a scenario where someone disagrees in every variant, run first (run.py's checklist
    is the first scenario's)."""
    return replace(
        method,
        id=f"{method.id}_challenge",
        authors_question={**method.authors_question,
                          "config": {**method.authors_question["config"], **CHALLENGE["config"]}},
        options={**method.options, **CHALLENGE["options"]},
        scenarios=tuple(sorted(method.scenarios, key=lambda s: s.name != first)),
        checks={**method.checks, **challenge_checks()},
        prompt_of=mallm_prompt,
        decision_of=challenge_decision,
    )  # fmt: skip


METHODS = (
    VOTING, CONSENSUS, AAD, CI,
    challenged(VOTING), challenged(CONSENSUS, "no agreement"), challenged(AAD), challenged(CI),
)  # fmt: skip

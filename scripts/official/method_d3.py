"""D3's MORE (`more`) and SAMRE (`samre`) against abirharrasse/D3-Judge: the README's entry
points `more_arch` (3 advocates a side, one round, 5 jurors) and `samre_arch` (up to 5 rounds,
5 jurors), run unchanged on the vendored MetaGPT 0.8.1.

Calls are keyed by what their prompt says, never by arrival (MORE's advocates run concurrently):
- `advocate`: the side and seat the prompt names; side A's seats are agents 1-3, B's 4-6 (SAMRE:
  A 1, B 2), the round from the round the prompt is in;
- `merge` (MORE): agent 1 for side A, 2 for B;
- SAMRE's summaries, by the reply they condense (its agent and round): `summary` of a defence,
  `recap` of the judge's evaluation, `aside` of a juror's vote;
- `feedback` (MORE's feedback-only judge call) and `score` (the scoring judge): agent 1;
- `vote`: the juror's identity (the five fixed ones, in the code's order) as agents 2-6.
A scenario's answers: (1, r) the judge's totals in round r as `"s1 s2"` (None: a reply with no
score tuple); (2..6, 1) each juror's vote `A` or `B` (None: no readable vote). A reply carries
both forms: the authors' tuple and our ANSWER line. SAMRE's advocates and judge are keyed by the
round: one more than the latest judge's reply their prompt quotes, or the round the judge's
prompt names.
"""

from __future__ import annotations

import re

from replies import AGENTS, ROUNDS, Call, Key, Keyer, Messages, Scenario, Script
from spec import Check, Method

EGG = {
    "question": "How do I boil an egg so the yolk stays soft?",
    "answer_a": "Lower the egg into water that is already boiling, cook it for six to seven "
    "minutes, then cool it in cold water so it stops cooking.",
    "answer_b": "Eggs are a good source of protein and can be eaten at breakfast.",
}
SEATS = 3  # MORE's advocates a side
# the five fixed juror identities, in the code's order, by a word both wordings share
IDENTITIES = ("ethic", "environment", "business", "social worker", "technolog")
JUROR = 2  # the first juror's agent number


def side_of_answer(text: str) -> str:
    """Which answer a theirs prompt defends: the one its `defending this answer:` names."""
    at = text.split("this answer:", 1)[-1].split("for the answer:", 1)[-1]
    return "A" if at.lstrip().startswith(EGG["answer_a"][:30]) else "B"


def last_user(messages: Messages) -> str:
    return next((m["content"] for m in reversed(messages) if m["role"] == "user"), "")


def d3_keyer() -> Keyer:
    def key(messages: Messages, script: Script) -> Key:
        text = last_user(messages)
        if m := re.search(r"eloquent advocate \(Advocate (\d)\)", text):  # theirs, MORE
            seat, side = int(m.group(1)), side_of_answer(text)
            return Key("advocate", seat + (SEATS if side == "B" else 0), 1)
        if m := re.search(r"You are advocate (\d) of \d+ on the team for Answer ([AB])", text):
            seat, side = int(m.group(1)), m.group(2)
            return Key("advocate", seat + (SEATS if side == "B" else 0), 1)
        if "aggregate and improve upon" in text:
            return Key("merge", 1 if side_of_answer(text) == "A" else 2, 1)
        if m := re.search(r"You lead the team of advocates defending Answer ([AB])", text):
            return Key("merge", 1 if m.group(1) == "A" else 2, 1)
        if re.search(r"Give your feedback in under 50 words|feedback only, without scores", text):
            return Key("feedback", 1, 1)
        if re.search(r"As a jury member|You are a juror", text):
            lowered = text.lower()
            found = [i for i, word in enumerate(IDENTITIES) if word in lowered]
            return Key("vote", JUROR + (found[0] if found else 0), 1)
        if re.search(r"final score tuple|You are the judge of a debate", text):
            return Key("score", 1, 1)
        return Key("unknown", script.arrive("unknown"), 1)

    return key


def d3_reply(key: Key, answer: str | None) -> str:
    """A reply to `key`: advocates and the merge argue (no answer), the feedback call comments
    (no scores), the scorer gives the totals, a juror votes."""
    mark = f"Noted as {key.marker()}."
    if key.kind in ("summary", "recap", "aside"):
        return f"{mark} In short: the condensed points."
    if key.kind in ("advocate", "merge"):
        return f"{mark} The defended answer is accurate, relevant and clearly reasoned."
    if key.kind == "feedback":
        return f"{mark} Advocates: be concrete about timing and temperature, and answer the other side."
    if key.kind == "score":
        if answer is None:
            return f"{mark} The defences are hard to rank; I withhold the totals."
        s1, s2 = answer.split()
        return (
            f"{mark} Feedback A: cite the timing. Feedback B: address the question.\n"
            f"Final tally: ({s1}, {s2})\nANSWER: ({s1}, {s2})"
        )
    if key.kind == "vote":
        if answer is None:
            return f"{mark} Reasoning: both defences have merit and I cannot choose."
        tuple_ = "(1, 0)" if answer == "A" else "(0, 1)"
        return f"{mark} Reasoning: one defence is clearly stronger.\nVote: {tuple_}\nANSWER: Answer {answer}"
    return mark


def jury(score: str | None, *votes: str | None) -> dict[tuple[int, int], str | None]:
    answers: dict[tuple[int, int], str | None] = {(1, 1): score}
    answers.update({(JUROR + i, 1): v for i, v in enumerate(votes)})
    return answers


MORE_SCENARIOS = (
    Scenario("clear A", jury("100 70", "A", "A", "A", "A", "A"), "judge and every juror for A"),
    Scenario("clear B", jury("60 104", "B", "B", "B", "B", "B"), "judge and every juror for B"),
    Scenario("split", jury("90 80", "A", "B", "A", "B", "A"), "the jury splits 3-2 for A"),
    Scenario(
        "tie",
        jury("100 70", "A", "B", "A", "B", None),
        "2-2 with one unreadable vote, the judge for A: their tie goes to B",
    ),
    Scenario(
        "flip",
        jury("100 70", "B", "B", "B", "A", "B"),
        "the judge scores A higher, the jury votes B 4-1",
    ),
    Scenario(
        "unreadable score",
        jury(None, "A", "B", None, "B", "A"),
        "no score tuple and a 2-2 jury: their score is (0, 0) and the tie goes to B",
    ),
    Scenario("abstention", jury("90 80", None, None, None, None, None), "no juror gives a vote"),
)


def more_kind(call: Call) -> str:
    return call.key.kind


ADVOCATE = (
    Check("shows the question", r"boil an egg", r"boil an egg"),
    Check(
        "shows its own and the opposing answer",
        r"Lower the egg.*Eggs are a good|Eggs are a good.*Lower the egg",
        r"Lower the egg.*Eggs are a good",
    ),
    Check("names its place in a team of advocates", r"Advocate \d\).*group", r"advocate \d of \d"),
    Check("asks it to win the audience over", r"convince the audience", r"Argue to win"),
    Check("bounds the defence at 80 words", r"under 80 words", r"at most 80 words"),
)
MERGE = (
    Check("shows the question", r"boil an egg", r"boil an egg"),
    Check("shows its team's defences", r"Individual defenses", r"teammates wrote these defences"),
    Check(
        "asks for one defence stronger than any of them",
        r"stronger and more comprehensive than any individual",
        r"stronger than any of them",
    ),
    Check("bounds the merge at 150 words", r"under 150 words", r"at most 150 words"),
)
FEEDBACK = (
    Check(
        "shows both answers", r"Lower the egg.*Eggs are a good", r"Lower the egg.*Eggs are a good"
    ),
    Check(
        "shows both merged defences",
        r"Defense for 1st.*Defense for 2nd",
        r"Defence of Answer A.*Defence of Answer B",
    ),
    Check("asks for feedback in at most 50 words", r"under 50 words", r"at most 50 words"),
    Check(
        "asks for feedback that drives the scores apart",
        r"more divergent scores",
        r"separate more clearly",
    ),
    Check("asks for no scores in this call", r"Give your feedback in", r"without scores"),
)
SCORE = (
    Check(
        "shows both answers", r"Lower the egg.*Eggs are a good", r"Lower the egg.*Eggs are a good"
    ),
    Check("asks to judge impartially", r"impartial", r"impartial"),
    Check(
        "scores six criteria from 1 to 20",
        r"1\. Relevance.*6\. Effectiveness.*1-20",
        r"six criteria, from 1 to 20",
    ),
    Check(
        "asks for a per-criterion pair",
        r"\[Answer1_score, Answer2_score\]",
        r"\[score of A, score of B\]",
    ),
    Check("asks for feedback to each advocate", r"Feedback for Advocate 1", r"Feedback A:"),
    Check("asks for the two totals", r"final score tuple \(score1, score2\)", r"ANSWER: \(x, y\)"),
)
VOTE = (
    Check("gives the juror an identity", r"identity of A ", r"You are a juror: \w"),
    Check(
        "shows the transcript", r"Defense A.*Defense B", r"Defence of Answer A.*Defence of Answer B"
    ),
    Check("shows the judge's scores", r"Scores", r"Scores: (A \d+, B \d+|unscored)"),
    Check(
        "asks to weigh the judge without being ruled by it",
        r"judge's evaluation \(but not being overly influenced",
        r"judge's evaluation into account, without letting it decide",
    ),
    Check("asks for reasoning, then the vote", r"Reasoning:.*Vote:", r"reasoning.*then vote"),
)

MORE = Method(
    id="more",
    solver="more",
    repo="abirharrasse/D3-Judge",
    commit="129491b",
    licence="MIT: run, never copied",
    requirements=(
        "openai==1.30.5",
        "httpx==0.27.2",
        "pydantic>=2.5.3,<2.8",
        "pyyaml",
        "loguru",
        "tenacity==8.2.3",
        "nest_asyncio",
        "aiohttp",
        "python-docx",
        "tiktoken",
        "pandas",
        "aiofiles",
        "chardet",
        "pillow",
        "scikit-learn",
        "playwright",
        "beautifulsoup4",
        "imap_tools",
        "gitpython",
        "gitignore_parser",
        "nbformat",
        "nbclient",
        "rich",
        "gymnasium",
    ),
    driver="d3_judge.py",
    shims=(
        "HOME is a scratch directory whose .metagpt/config2.yaml names the scripted server "
        "(stream false, calc_usage false); util_adv.initiate_model, which rewrites that file "
        "with api.openai.com, is a no-op",
        "the vendored MetaGPT 0.8.1 package is put on sys.path (not installed); the provider "
        "modules it imports but this run never uses (Gemini, ZhiPuAI, Spark, QianFan, "
        "DashScope, Anthropic, Bedrock, Ark, Together) are empty stub modules, and "
        "semantic_kernel's sk_function decorator (of MetaGPT's unused search tool) is a no-op",
        "the working directory is the scratch HOME (MetaGPT writes into its project root)",
        "the decision is their jury winner as their code computes it: A iff A's votes exceed "
        "B's, else B",
    ),
    task="mt_bench_judge",
    question={**EGG, "label": "A"},
    authors_question={**EGG, "protocol": "more", "rounds": 1},
    options={"retries": 0},
    scenarios=MORE_SCENARIOS,
    keyer=d3_keyer,
    say=d3_reply,
    kind_of=more_kind,
    differs={
        "abstention": "no juror's vote is readable: their code reads each as (0, 0) and gives "
        "the tie to B; here a jury with nothing readable gives no verdict, and the judge's "
        "scores decide (a missing answer is never a verdict)",
    },
    checks={
        "advocate": ADVOCATE,
        "merge": MERGE,
        "feedback": FEEDBACK,
        "score": SCORE,
        "vote": VOTE,
    },
    prompt_of=lambda call: last_user(call.messages),
    paths=(
        "LICENSE",
        "utils",
        "MetaGPT_LLM_advocates/metagpt",
        ":(exclude)MetaGPT_LLM_advocates/metagpt/utils/index.html",
    ),
)


# -- SAMRE ---------------------------------------------------------------------------------------


def ordinal(word: str) -> int:
    return ROUNDS.index(word) + 1


def samre_keyer() -> Keyer:
    """Advocates and the judge by the round: one more than the latest judge reply their prompt
    quotes (theirs names the judge's round); summaries by the reply they condense."""

    def key(messages: Messages, script: Script) -> Key:
        text = last_user(messages)
        judged = [ordinal(w) for w in re.findall(r"ref-score-[a-z]+-([a-z]+)", text)]
        latest = max(judged, default=0)
        if "Summarize the following content" in text or "Condense this" in text:
            body = text.split("to summarize:", 1)[-1]
            found = re.search(r"ref-([a-z]+)-([a-z]+)-([a-z]+)", body)
            if found:
                kind, agent, round_ = found.groups()
                number = AGENTS.index(agent) + 1
                named = {"advocate": "summary", "score": "recap", "vote": "aside"}
                return Key(named.get(kind, "summary"), number, ordinal(round_))
            return Key("summary", script.arrive("summary"), 1)
        if "fierce advocate defending this answer:" in text:
            side = side_of_answer(text)
            return Key("advocate", 1 if side == "A" else 2, latest + 1)
        if m := re.search(r"You defend Answer ([AB])", text):
            return Key("advocate", 1 if m.group(1) == "A" else 2, latest + 1)
        if re.search(r"As a jury member|You are a juror", text):
            lowered = text.lower()
            found_ids = [i for i, word in enumerate(IDENTITIES) if word in lowered]
            return Key("vote", JUROR + (found_ids[0] if found_ids else 0), 1)
        if m := re.search(r"Current round: (\d+)|This is round (\d+)", text):
            return Key("score", 1, int(m.group(1) or m.group(2)))
        return Key("unknown", script.arrive("unknown"), 1)

    return key


def rounds(*scores: str | None, votes: tuple[str | None, ...]) -> dict[tuple[int, int], str | None]:
    answers: dict[tuple[int, int], str | None] = {(1, r): s for r, s in enumerate(scores, 1)}
    answers.update({(JUROR + i, 1): v for i, v in enumerate(votes)})
    return answers


FIVE_A = ("A", "A", "A", "A", "A")
SAMRE_SCENARIOS = (
    Scenario(
        "steady early",
        rounds("100 80", "101 80", "100 81", "100 80", "100 80", votes=FIVE_A),
        "unanimous A; gaps 20, 21, 19: steady at round 3 (the code's window of 3)",
    ),
    Scenario(
        "clear B",
        rounds("60 100", "61 100", "60 100", votes=("B", "B", "B", "B", "B")),
        "the judge and every juror for B, steady at round 3",
    ),
    Scenario(
        "all rounds",
        rounds("80 70", "90 70", "100 70", "110 70", "115 70", votes=FIVE_A),
        "gaps widen every round: no window is steady, all five rounds run",
    ),
    Scenario(
        "split",
        rounds("100 80", "100 80", "100 80", votes=("A", "B", "B", "A", "B")),
        "the judge for A, the jury 3-2 for B",
    ),
    Scenario(
        "jury tie",
        rounds("100 70", "100 70", "100 70", votes=("A", "B", "A", "B", None)),
        "steady, 2-2 with an unreadable vote: their tie goes to B",
    ),
    Scenario(
        "flip",
        rounds("100 80", "80 100", "100 80", "80 100", "100 80", votes=("B", "B", "B", "A", "B")),
        "the judge's winner flips every round: the code's absolute gaps (20, 20, 20) are "
        "steady at round 3 (the paper's signed rule would go on); the jury votes B 4-1",
    ),
    Scenario(
        "unreadable score",
        rounds("100 80", None, "100 80", "100 80", "100 80", votes=("A", "B", None, "B", "A")),
        "round 2 has no score tuple (theirs: (0, 0); ours: unscored), so no window is steady "
        "before round 5; the jury ties 2-2 and the tie goes to B",
    ),
    Scenario(
        "abstention",
        rounds("90 80", "90 80", "90 80", votes=(None, None, None, None, None)),
        "steady for A, no juror gives a vote",
    ),
)
# SAMRE's checklist: the advocate, the judge, the jury, and the summarizer (of a defence, of the
# judge's evaluation and of a vote: the code uses one prompt for all three)
SAMRE_ADVOCATE = (
    *ADVOCATE[:2],  # the question, its own and the opposing answer
    Check("asks it to win the audience over", r"Convince the audience", r"Argue to win"),
    Check("asks it to hold nothing back", r"don't hold back", r"as hard as you can"),
    Check(
        "argues on relevance, accuracy, depth, clarity and logic",
        r"Relevance.*Accuracy.*Depth.*Clarity.*Logic",
        r"relevance, accuracy, depth, clarity and reasoning",
    ),
    Check("bounds the defence at 100 words", r"100 words max", r"at most 100 words"),
)
SAMRE_SCORE = (
    *SCORE[:2],  # both answers, impartially
    Check(
        "names the round and the round limit",
        r"Current round: \d+\s*Max rounds: \d+",
        r"This is round \d+ of at most \d+",
    ),
    Check(
        "shows both defences",
        r"Defense for 1st answer.*Defense for 2nd answer",
        r"Defence of Answer A.*Defence of Answer B",
    ),
    *SCORE[2:4],  # six criteria from 1 to 20, a pair each
    Check(
        "asks for feedback to each advocate in 50 words",
        r"feedback for each advocate \(50 words each\)",
        r"Feedback A:.*at most 50 words",
    ),
    SCORE[-1],  # the two totals
)
SAMRE_VOTE = (
    *VOTE,
    Check("shows every round", r"--- Round 1 ---", r"\nRound 1\n"),
)
SUMMARY = (
    Check("bounds the summary at 50 words", r"50 words or less", r"at most 50 words"),
    Check("asks to keep the scores", r"scores tuples, return them", r"any scores it cites"),
    Check("asks to begin directly", r"Start summarization directly", r"Begin directly"),
    Check("shows only the text it condenses", r"\A(?!.*boil an egg)", r"\A(?!.*boil an egg)"),
)
SAMRE = Method(
    id="samre",
    solver="samre",
    repo=MORE.repo,
    commit=MORE.commit,
    licence=MORE.licence,
    requirements=MORE.requirements,
    driver="d3_judge.py",
    shims=MORE.shims,
    task="mt_bench_judge",
    question={**EGG, "label": "A"},
    authors_question={**EGG, "protocol": "samre", "rounds": 5},
    options={"retries": 0},
    scenarios=SAMRE_SCENARIOS,
    keyer=samre_keyer,
    say=d3_reply,
    kind_of=more_kind,
    differs={"abstention": MORE.differs["abstention"]},
    checks={
        "advocate": SAMRE_ADVOCATE,
        "summary": SUMMARY,
        "score": SAMRE_SCORE,
        "recap": SUMMARY,
        "vote": SAMRE_VOTE,
        "aside": SUMMARY,
    },
    prompt_of=lambda call: last_user(call.messages),
    paths=MORE.paths,
)
METHODS = (MORE, SAMRE)

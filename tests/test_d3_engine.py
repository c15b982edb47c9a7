"""MORE, SAMRE and the single judge on a scripted runtime: exact call counts, who sees what, the
stop rule with real token usage, the jury's tie-breaks, abstentions, anonymisation and the position
swap.

Replies are chosen by the kind of prompt (defence request, judge scoring, juror vote) and by what it
shows, never by call order: calls of one stage run concurrently."""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

import pytest
from scripted import (
    ScriptedRuntime,
    family,
    last_user,
    prefix_share,
    recorded,
    serialized,
    transcript_text,
)

from mad_tasks.engine import prompts
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3 import court as d3
from mad_tasks.engine.methods.d3 import options as d3_options
from mad_tasks.engine.methods.d3 import personas as d3_personas
from mad_tasks.engine.methods.d3.court import SCORES, VERDICT, Pair, single_judge
from mad_tasks.engine.methods.d3.more import more
from mad_tasks.engine.methods.d3.options import PERSONAS, Jury, SamreOptions, Swap
from mad_tasks.engine.methods.d3.peer_discussion import DiscussionOptions, peer_discussion
from mad_tasks.engine.methods.d3.records import JudgeRecord
from mad_tasks.engine.methods.d3.samre import samre
from mad_tasks.engine.protocols.d3 import StopRule
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import (
    DefenceRequest,
    FeedbackRequest,
    RecapRequest,
    ScoreRequest,
    VerdictRequest,
)
from mad_tasks.engine.runtime import Call, LimitReached, Reply, Usage
from mad_tasks.engine.session import Problem, Session

PAIR = Pair(
    Question.of(["What is the capital of Australia?"]),
    "Canberra has been the capital since 1913; claude-v1 wrote this.",
    "Sydney, the largest city.",
)
GOOD = "Canberra"

Score = Callable[[Call], "tuple[int, int] | str | None"]
Vote = Callable[[Call], "str | None"]


def tag(call: Call) -> str:
    """A trace of who wrote a defence (unlike the agent id itself, which the record hides)."""
    return f"<{call.agent.replace('_', '-').replace('/', '-')} round {call.round} {call.purpose}>"


def good_side(call: Call) -> str:
    """The position where the better answer is shown in this prompt."""
    return "A" if GOOD in call.asks.a else "B"


def court(score: Score, vote: Vote, usage: dict[str, Usage] | None = None):
    """Defences carry a tag (and, to test anonymisation, the writer's own id and a model name);
    the judge replies with `score(call)` totals (None: no totals; str: the raw reply); jurors vote
    `vote(call)` (None: no vote). `usage` sets token usage per role family (`juror` for every
    `juror_i`)."""

    def reply(call: Call) -> Reply:
        asks = call.asks
        if isinstance(asks, DefenceRequest):
            text = f"{tag(call)} {call.agent} (GPT-4) argues for Answer {asks.side}."
        elif isinstance(asks, ScoreRequest):
            s = score(call)
            criteria = "\n".join(f"{i}. [15, 12]" for i in range(1, 7))
            feedback = f"Feedback A: <feedback round {call.round}>\nFeedback B: sharpen it."
            if isinstance(s, str):
                text = s
            elif s is None:  # no totals, and no criterion lines to add up either
                text = f"{feedback}\nBoth have merit; I will not score them."
            else:
                text = f"{criteria}\n{feedback}\nANSWER: ({s[0]}, {s[1]})"
        elif isinstance(asks, FeedbackRequest):
            text = f"{tag(call)} Feedback A: be specific. Feedback B: answer the other side."
        elif isinstance(asks, RecapRequest):  # SAMRE's summaries that no call reads
            text = f"{tag(call)} In short, the {asks.of}."
        elif isinstance(asks, VerdictRequest):
            v = vote(call)
            text = f"As {call.agent} I weighed the record.\n" + (
                f"ANSWER: {v}" if v else "Undecided."
            )
        else:
            raise AssertionError(f"not a D3 call: {asks!r}")
        return Reply(text, (usage or {}).get(family(call.role), Usage(10, 2)))

    return reply


def fixed(a: int, b: int) -> Score:
    return lambda call: (a, b)


def by_round(*totals: tuple[int, int] | None) -> Score:
    return lambda call: totals[call.round - 1]


def votes(**by_juror: str | None) -> Vote:
    return lambda call: by_juror[call.agent.removeprefix("swapped/")]


def unanimous(side: str) -> Vote:
    return lambda call: side


def new_session(rt: ScriptedRuntime, retries: int = 1) -> Session:
    return Session(rt, Problem(PAIR.question, VERDICT), retries=retries)


def purposes(rt: ScriptedRuntime) -> Counter:
    """Calls by role family (`juror` for every `juror_i`) and purpose."""
    return Counter((family(c.role), c.purpose) for c in rt.calls)


def prompts_of(rt: ScriptedRuntime, role: str, purpose: str | None = None) -> list[str]:
    return [
        transcript_text(c)
        for c in rt.calls
        if family(c.role) == role and (purpose is None or c.purpose == purpose)
    ]


JURORS_3_2 = votes(juror_1="A", juror_2="B", juror_3="A", juror_4="B", juror_5="A")


# -- MORE ------------------------------------------------------------------------------------------


async def test_more_k3_five_jurors_makes_exactly_fifteen_calls_as_the_authors_code() -> None:
    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    result = await more(new_session(rt), PAIR, advocates=3)

    assert len(rt.calls) == 15
    assert purposes(rt) == {
        ("advocate", "argument"): 6,
        ("advocate", "merged"): 2,
        ("judge", "feedback"): 1,
        ("judge", "score"): 1,
        ("juror", "vote"): 5,
    }
    # A's team argues and merges, then B's; the judge's feedback call comes before its scores
    assert rt.spans == ["advocates A", "merge A", "advocates B", "merge B", "judge", "jury"]
    judged = [c.purpose for c in rt.calls if c.role == "judge"]
    assert judged == ["feedback", "score"]
    assert (result.final, len(result.calls), result.record.stats()["tokens"]) == ("A", 15, 180)
    assert (result.options["advocate_order"], result.options["judge_calls"]) == (
        "sequential",
        "split",
    )


async def test_more_with_the_papers_options_makes_fourteen_calls() -> None:
    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    result = await more(
        new_session(rt), PAIR, advocates=3, advocate_order="parallel", judge_calls="joint"
    )

    assert len(rt.calls) == 14
    assert purposes(rt) == {
        ("advocate", "argument"): 6,
        ("advocate", "merged"): 2,
        ("judge", "score"): 1,
        ("juror", "vote"): 5,
    }
    # each juror on its own member of the jury panel; advocates a_j and b_j (and the strategists,
    # on the first seat) on the j-th member of the advocates' panel
    jurors = {f"juror_{i}": 1 for i in range(1, 6)}
    assert Counter(c.role for c in rt.calls) == {
        "advocate_1": 4, "advocate_2": 2, "advocate_3": 2, "judge": 1, **jurors
    }  # fmt: skip
    assert rt.spans == ["advocates", "merge", "judge", "jury"]
    assert rt.info_titles() == ["judge", "jury", "verdict"]
    assert (result.method, result.final, len(result.calls)) == ("more", "A", 14)
    stats = result.record.stats()
    assert (stats["rounds"], stats["early_stop"], stats["calls"]) == (1, None, 14)
    assert stats["tokens"] == 14 * 12
    details = recorded(result)
    assert details["position_consistent"] is None
    [hearing] = details["hearings"]
    assert hearing["verdict"]["votes"] == {"A": 3, "B": 2}
    assert result.options["advocates"] == 3 and result.options["aggregation"] == "synthesis"


async def test_more_advocates_write_alone_and_each_strategist_reads_only_its_team() -> None:
    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    await more(new_session(rt), PAIR, advocates=3, advocate_order="parallel", judge_calls="joint")
    by_agent = {c.agent: transcript_text(c) for c in rt.calls}

    for side in "ab":
        for j in (1, 2, 3):
            prompt = by_agent[f"advocate_{side}_{j}"]
            assert f"You defend Answer {side.upper()}" in prompt
            assert f"advocate {j} of 3" in prompt
            assert "<advocate-" not in prompt  # no teammate's or opponent's defence
        merge = by_agent[f"strategist_{side}"]
        assert all(f"<advocate-{side}-{j} round 1 argument>" in merge for j in (1, 2, 3))
        other = "b" if side == "a" else "a"
        assert f"<advocate-{other}-" not in merge

    [judge] = prompts_of(rt, "judge")
    assert "<strategist-a round 1 merged>" in judge and "<strategist-b round 1 merged>" in judge
    assert "<advocate-" not in judge  # the judge reads the merged defences only
    for juror in prompts_of(rt, "juror"):
        assert "<strategist-a round 1 merged>" in juror and "<feedback round 1>" in juror
        assert "<advocate-" not in juror


async def test_more_by_default_b_reads_a_merge_and_the_jury_reads_the_feedback_call() -> None:
    """The authors' code: B's advocates read A's merged defence of this round (A's read nothing
    of B); the judge's feedback call and its scoring call each read the two merged defences; the
    jury reads the feedback call's text with the scores, not the scoring reply."""
    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    result = await more(new_session(rt), PAIR, advocates=3)
    by_agent = {c.agent: transcript_text(c) for c in rt.calls}

    for j in (1, 2, 3):
        assert "<strategist-" not in by_agent[f"advocate_a_{j}"]
        b = by_agent[f"advocate_b_{j}"]
        assert "<strategist-a round 1 merged>" in b and "merged defence" in b
        assert "<advocate-" not in b
    for prompt in prompts_of(rt, "judge"):
        assert (
            "<strategist-a round 1 merged>" in prompt and "<strategist-b round 1 merged>" in prompt
        )
    assert "without scores" in by_agent["judge_feedback"]
    for juror in prompts_of(rt, "juror"):
        assert "<judge-feedback round 1 feedback>" in juror and "Scores: A 90, B 70" in juror
        assert "<feedback round 1>" not in juror  # the scoring reply's own text
    [evaluation] = recorded(result)["hearings"][0]["evaluations"]
    assert tuple(evaluation["scores"]) == (90, 70)


async def test_a_tied_jury_goes_to_b_by_default_and_to_the_judge_with_the_papers_option() -> None:
    jurors = votes(juror_1="B", juror_2="A", juror_3=None, juror_4="B", juror_5="A")
    rt = ScriptedRuntime(court(fixed(90, 70), jurors))
    result = await more(new_session(rt, retries=0), PAIR, advocates=1)
    verdict = recorded(result)["hearings"][0]["verdict"]
    assert (result.final, verdict["tiebreak_used"], verdict["judge_gap"]) == ("B", True, 20)
    assert result.options["jury_tie"] == "second"
    rt = ScriptedRuntime(court(fixed(90, 70), jurors))
    paper = await more(new_session(rt, retries=0), PAIR, advocates=1, jury=Jury(tie="judge"))
    assert paper.final == "A"
    # no readable vote at all: the authors' code reads a 0-0 tie and gives B; here a jury that
    # says nothing readable is no verdict, and the judge's scores decide
    rt = ScriptedRuntime(court(fixed(90, 70), lambda call: None))
    silent = await more(new_session(rt, retries=0), PAIR, advocates=1)
    assert silent.final == "A"


async def test_jurors_get_the_papers_personas_in_turn() -> None:
    rt = ScriptedRuntime(court(fixed(90, 70), unanimous("A")))
    await more(new_session(rt), PAIR, advocates=1, jury=Jury(size=7))
    for i in range(7):
        [call] = rt.calls_of(f"juror_{i + 1}")
        # the transcript every juror shares comes first, the persona after it
        prompt = last_user(call)
        assert prompt.startswith(PAIR.blocks())
        assert f"[end of Judge's evaluation]\n\nYou are a juror: {PERSONAS[i % 5]}." in prompt
    rt = ScriptedRuntime(court(fixed(90, 70), unanimous("A")))
    await more(new_session(rt), PAIR, advocates=1, jury=Jury(size=3, personas=False))
    assert all(d3_options.GENERIC_JUROR in p for p in prompts_of(rt, "juror"))


# the roles the authors' own sampler draws for a seed (`get_random_personas(5, seed=s)` in
# utils/personas.py of abirharrasse/D3-Judge@129491b, run once beside this project's draw)
AUTHORS_DRAWS = {
    1: [
        "Operations Manager",
        "K-12 Teacher",
        "Media Ethics Scholar",
        "Religious Ethics Scholar",
        "Software Architect",
    ],
    2: [
        "Ethics Consultant",
        "Business Owner",
        "Housing Policy Expert",
        "Small Business Advocate",
        "Science Communicator",
    ],
}


async def test_a_persona_subset_draws_the_authors_roles_for_its_seed() -> None:
    """Table 4's random 5-persona subsets: each seed draws 5 distinct roles of the authors' pool
    of 50, the ones their sampler draws for that seed, each juror prompted with its description;
    the record keeps them and names the pool."""

    async def drawn(seed: int) -> list[str]:
        rt = ScriptedRuntime(court(fixed(90, 70), unanimous("A")))
        result = await more(new_session(rt), PAIR, advocates=1, jury=Jury(subset=seed))
        personas = [v["persona"] for v in recorded(result)["hearings"][0]["jury"]]
        for i, persona in enumerate(personas):
            [call] = rt.calls_of(f"juror_{i + 1}")
            assert f"You are a juror: {persona}." in last_user(call)
        assert result.options["persona_subset"] == seed
        assert result.options["persona_pool"] == "authors_pool"
        assert result.options["persona_source"] == d3_personas.SOURCE
        return personas

    for seed, names in AUTHORS_DRAWS.items():
        assert await drawn(seed) == [d3_personas.named(n).description for n in names]
    assert await drawn(1) == await drawn(1)
    with pytest.raises(OptionError, match="'persona_subset'"):
        d3_options.MoreOptions(personas=False, persona_subset=3)


async def test_agent_ids_are_hidden_and_the_pair_is_shown_verbatim() -> None:
    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    result = await more(new_session(rt), PAIR, advocates=2)
    ids = ("advocate_a_1", "advocate_b_2", "strategist_a", "juror_")
    for prompt in prompts_of(rt, "judge") + prompts_of(rt, "juror"):
        assert not any(i in prompt for i in ids)
        assert "[hidden] (GPT-4) argues" in prompt  # where a defence named its writer
    # the question and the answers are what is judged: never altered, a model's name included
    for prompt in prompts_of(rt, "advocate") + prompts_of(rt, "judge") + prompts_of(rt, "juror"):
        assert PAIR.blocks() in prompt
    assert "claude-v1 wrote this" in recorded(result)["hearings"][0]["transcript"]


async def test_more_max_score_pairs_the_defences_and_keeps_each_sides_best() -> None:
    pairings = {1: (80, 90), 2: (95, 60), 3: None}  # judge 3 never gives totals

    def score(call: Call) -> tuple[int, int] | None:
        return pairings[int(call.agent.rsplit("_", 1)[1])]

    jurors = votes(juror_1="A", juror_2="B", juror_3=None, juror_4="B", juror_5="A")
    rt = ScriptedRuntime(court(score, jurors))
    result = await more(
        new_session(rt), PAIR, advocates=3, aggregation="max_score", jury=Jury(tie="judge")
    )

    assert purposes(rt) == {
        ("advocate", "argument"): 6,
        ("judge", "score"): 3 + 1,  # judge 3 is followed up once
        ("juror", "vote"): 5 + 1,  # juror 3 too
    }
    for j in (1, 2, 3):
        prompt = transcript_text(rt.first_call(f"judge_{j}", 1))
        assert f"<advocate-a-{j} round 1 argument>" in prompt
        assert f"<advocate-b-{j} round 1 argument>" in prompt
        assert sum(f"<advocate-{s}-{i} " in prompt for s in "ab" for i in (1, 2, 3)) == 2
    # 2-2 with an abstention: the best totals (95, 90) settle it for A
    verdict = recorded(result)["hearings"][0]["verdict"]
    assert verdict == {
        "winner": "A",
        "votes": {"A": 2, "B": 2},
        "abstentions": 1,
        "tiebreak_used": True,
        "judge_gap": 5,
    }
    assert result.record.stats()["unscored"] == 1 and result.record.stats()["abstentions"] == 1


# -- SAMRE -----------------------------------------------------------------------------------------


# the paper's text, each an option value: both advocates read only round r-1, their own defence
# included, in full; the signed stop rule (window 2)
PAPER = {"advocate_order": "parallel", "own_defence": "shown", "summarize": False}
CODE = SamreOptions().rule  # the authors' code's stop rule: window 3, at least 3 rounds, eps 5


def round_calls(rt: ScriptedRuntime, r: int) -> list[tuple[str, str]]:
    return [(c.agent, c.purpose) for c in rt.calls if c.round == r and family(c.role) != "juror"]


async def test_samre_defaults_make_the_authors_code_calls_and_stop_at_round_three() -> None:
    """The authors' code, call by call: per round A's defence and its summary, then B's, then the
    judge's evaluation and its summary (6 calls); the jury's 5 votes and their 5 summaries.
    Gaps 10, 12, 11: the code's window of 3 is steady at round 3 (the signed rule's window of 2
    would have stopped at round 2)."""
    rt = ScriptedRuntime(
        court(by_round((80, 70), (82, 70), (81, 70), (99, 6), (99, 6)), JURORS_3_2)
    )
    result = await samre(new_session(rt), PAIR)

    assert len(rt.calls) == 3 * 6 + 5 * 2
    assert purposes(rt) == {
        ("advocate", "argument"): 6,
        ("advocate", "summary"): 6,
        ("judge", "score"): 3,
        ("judge", "summary"): 3,
        ("juror", "vote"): 5,
        ("juror", "summary"): 5,
    }
    for r in (1, 2, 3):  # one after the other, as the code's loop sends them
        assert round_calls(rt, r) == [
            ("advocate_a", "argument"),
            ("advocate_a", "summary"),
            ("advocate_b", "argument"),
            ("advocate_b", "summary"),
            ("judge", "score"),
            ("judge", "summary"),
        ]
    assert rt.spans == ["round 1", "round 2", "round 3", "jury"]
    stats = result.record.stats()
    assert (stats["rounds"], stats["stop_reasons"], stats["calls"]) == (3, ["converged"], 28)
    assert result.final == "A"
    assert {k: result.options[k] for k in ("stopping", "window", "min_rounds", "eps")} == {
        "stopping": "code",
        "window": 3,
        "min_rounds": 3,
        "eps": 5.0,
    }
    assert {k: result.options[k] for k in PAPER} == {
        "advocate_order": "sequential",
        "own_defence": "hidden",
        "summarize": True,
    }
    assert result.options["summaries"] == "code"


async def test_samre_advocates_read_what_the_authors_code_shows_them() -> None:
    """A reads B's latest summary (round r-1) and the judge's latest evaluation; B reads A's
    summary of the same round; neither reads its own earlier defence. The summaries of the
    judge's evaluations and of the votes are read by no call."""
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 80), (80, 70)), JURORS_3_2))
    result = await samre(new_session(rt), PAIR)
    assert result.record.stats()["rounds"] == 3  # gaps +10, -10, +10: steady as |A - B|

    def argued(agent: str, r: int) -> str:
        [call] = [c for c in rt.calls_of(agent, r) if c.purpose == "argument"]
        return transcript_text(call)

    first_a, first_b = argued("advocate_a", 1), argued("advocate_b", 1)
    assert "<advocate-" not in first_a and "<feedback" not in first_a
    assert "<advocate-a round 1 summary>" in first_b  # A's defence of this round
    assert "The opposing advocate's defence in this round" in first_b
    assert "round 1 argument>" not in first_b and "<feedback" not in first_b
    third_a, third_b = argued("advocate_a", 3), argued("advocate_b", 3)
    assert "<advocate-b round 2 summary>" in third_a and "<feedback round 2>" in third_a
    assert "The opposing advocate's previous defence" in third_a
    assert "<advocate-a round 3 summary>" in third_b and "<feedback round 2>" in third_b
    for own, text in (("a", third_a), ("b", third_b)):
        assert f"<advocate-{own} round" not in text.replace(f"<advocate-{own} round 3 s", "")
        assert "<feedback round 1>" not in text and "argument>" not in text
    assert "<advocate-a round 2" not in third_a and "<advocate-b round 2" not in third_b
    # each summary reads only the text it condenses
    for call in (c for c in rt.calls if c.purpose == "summary"):
        text = transcript_text(call)
        assert "[Question]" not in text and "Canberra" not in text
    [recap] = [c for c in rt.calls_of("judge", 2) if c.purpose == "summary"]
    assert "<feedback round 2>" in transcript_text(recap)
    unread = ("<judge round", "summary> In short, the vote")
    assert not any(u in transcript_text(c) for c in rt.calls for u in unread)


async def test_samre_with_the_papers_options_stops_at_round_two_and_reads_round_r_minus_1() -> None:
    rt = ScriptedRuntime(
        court(by_round((80, 70), (82, 70), (81, 70), (99, 6), (99, 6)), JURORS_3_2)
    )
    result = await samre(new_session(rt), PAIR, rule=StopRule(), **PAPER)
    assert len(rt.calls) == 2 * 3 + 5
    assert rt.spans == ["round 1", "round 2", "jury"]
    assert rt.info_titles() == ["round 1", "round 2", "jury", "verdict"]
    d = result.record.stats()
    assert (d["rounds"], d["stop_reasons"], d["early_stop"]) == (2, ["converged"], 1.0)
    assert result.final == "A"
    assert result.options["stopping"] == "signed" and result.options["window"] == 2

    rt = ScriptedRuntime(court(by_round((80, 70), (70, 80), (80, 70)), JURORS_3_2))
    await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=3), **PAPER)
    for side, other in (("a", "b"), ("b", "a")):
        first = transcript_text(rt.first_call(f"advocate_{side}", 1))
        assert "<advocate-" not in first and "<feedback" not in first
        third = transcript_text(rt.first_call(f"advocate_{side}", 3))
        assert f"<advocate-{side} round 2 argument>" in third  # its own previous defence
        assert f"<advocate-{other} round 2 argument>" in third  # the opponent's, same round
        assert "<feedback round 2>" in third  # the judge's evaluation of round 2
        assert "Scores: A 70, B 80" in third and "ANSWER: (" not in third
        assert "round 3 argument" not in third  # nobody's current defence (symmetric rule)
        assert "round 1 argument" not in third and "<feedback round 1>" not in third


@pytest.mark.parametrize(
    "options, summaries",
    [
        ({"summaries": "used_only"}, {"advocate": 6}),
        ({"summarize": False}, {}),
        ({"summarize": False, "summaries": "code"}, {}),  # nothing to condense without summarize
    ],
)
async def test_samre_summary_calls_by_option(options: dict, summaries: dict) -> None:
    rt = ScriptedRuntime(court(by_round((80, 70), (82, 70), (81, 70)), JURORS_3_2))
    result = await samre(new_session(rt), PAIR, **options)
    made = Counter(family(c.role) for c in rt.calls if c.purpose == "summary")
    assert made == summaries
    assert len(rt.calls) == 3 * 3 + 5 + sum(summaries.values())
    shown = "summary" if summaries else "argument"
    judge = transcript_text(rt.first_call("judge", 1))
    assert f"<advocate-a round 1 {shown}>" in judge and f"<advocate-b round 1 {shown}>" in judge
    transcript = recorded(result)["hearings"][0]["transcript"]
    assert f"<advocate-a round 3 {shown}>" in transcript
    other = "argument" if summaries else "summary"
    assert f"round 1 {other}>" not in judge and f"round 1 {other}>" not in transcript


async def test_samre_token_budget_is_measured_from_usage_and_checked_after_the_round() -> None:
    # the code's budget never fires (its counter is fed 0); ours counts every call, summaries too
    usage = {"advocate": Usage(300, 100), "judge": Usage(150, 50), "juror": Usage(1, 1)}
    totals = by_round((80, 70), (100, 70), (120, 70), (70, 90), (99, 6))  # never steady
    rt = ScriptedRuntime(court(totals, JURORS_3_2, usage))
    result = await samre(new_session(rt), PAIR, rule=replace(CODE, token_budget=5000))
    d = result.record.stats()
    assert (d["rounds"], d["stop_reasons"]) == (3, ["token_budget"])
    # a round: 2 defences and 2 summaries at 400 tokens, the judge's 2 calls at 200
    assert d["tokens"] == 3 * 2000 + 10 * 2
    assert "6000 tokens so far; stop: token_budget" in rt.infos[2][1]


def refusing(reply, refused: Callable[[Call], bool]):
    """`reply`, except that the run's limit refuses the calls `refused` picks."""

    def answer(call: Call) -> Reply:
        if refused(call):
            raise LimitReached("token", 120, 100)
        return reply(call)

    return answer


async def test_a_limit_on_the_judges_summary_keeps_that_rounds_scores() -> None:
    # round 2's evaluation is complete when its summary is refused: rounds 1-2 decide, no jury
    scripted = court(by_round((80, 70), (70, 90), (80, 70)), JURORS_3_2)
    rt = ScriptedRuntime(
        refusing(scripted, lambda c: isinstance(c.asks, RecapRequest) and c.round == 2)
    )
    result = await samre(new_session(rt), PAIR)
    assert result.stopped is not None
    assert (result.stopped.where, result.stopped.decided) == (
        "round 2",
        "the judge's scores up to round 2",
    )
    [hearing] = recorded(result)["hearings"]
    assert (hearing["rounds"], hearing["stop_reason"], hearing["jury"]) == (2, "limit", [])
    assert result.final == "B"  # the cumulative gap +10 - 20


async def test_a_limit_on_the_votes_summaries_leaves_the_votes_standing() -> None:
    scripted = court(by_round((80, 70), (82, 70), (81, 70)), unanimous("B"))
    rt = ScriptedRuntime(
        refusing(scripted, lambda c: isinstance(c.asks, RecapRequest) and c.asks.of == "vote")
    )
    result = await samre(new_session(rt), PAIR)
    assert result.stopped is not None
    assert (result.stopped.where, result.stopped.decided) == (
        "the jury's summaries",
        "the jury's votes",
    )
    [hearing] = recorded(result)["hearings"]
    assert (hearing["stop_reason"], len(hearing["jury"])) == ("converged", 5)
    assert result.final == "B"  # the jury's, against the judge's +10


async def test_samre_without_stop_runs_to_the_round_limit() -> None:
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 80), (80, 70)), JURORS_3_2))
    result = await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=3))
    stats = result.record.stats()
    assert (stats["rounds"], stats["stop_reasons"]) == (3, ["max_rounds"])
    assert stats["early_stop"] == 0.0


async def test_samre_judge_sees_the_current_defences_and_its_earlier_totals() -> None:
    rt = ScriptedRuntime(court(by_round((80, 70), None, (80, 70)), JURORS_3_2))
    await samre(new_session(rt), PAIR, rule=replace(CODE, max_rounds=3))
    third = transcript_text(rt.first_call("judge", 3))
    assert "<advocate-a round 3 summary>" in third and "<advocate-b round 3 summary>" in third
    assert "round 2 summary" not in third
    assert "This is round 3 of at most 3." in third
    assert "earlier rounds: (80, 70), unscored." in third
    # the unscored round 2 was followed up once with the reminder, then left unscored
    scored = [c for c in rt.calls_of("judge", 2) if c.purpose == "score"]
    assert [c.attempt for c in scored] == [0, 1]
    assert last_user(scored[1]) == prompts.reminder(SCORES)


async def test_the_jury_reads_every_round() -> None:
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 80), (80, 70)), JURORS_3_2))
    result = await samre(new_session(rt), PAIR)
    juror = transcript_text(rt.first_call("juror_1", 3))
    for r in (1, 2, 3):
        assert f"Round {r}" in juror and f"<feedback round {r}>" in juror
        assert f"<advocate-a round {r} summary>" in juror
    assert "argument>" not in juror  # the summaries stand for the defences
    assert "Scores: A 70, B 80" in juror
    assert "ANSWER: (" not in juror  # the judge's totals line never rivals the juror's own
    assert recorded(result)["hearings"][0]["transcript"] in juror


async def test_two_two_with_an_abstention_goes_to_the_judges_cumulative_gap() -> None:
    jurors = votes(juror_1="B", juror_2="A", juror_3="A", juror_4="B", juror_5=None)
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 75)), jurors))
    paper = Jury(tie="judge")
    result = await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=2), jury=paper)
    voted = [c.attempt for c in rt.calls_of("juror_5") if c.purpose == "vote"]
    assert voted == [0, 1]  # followed up once, then abstains
    verdict = recorded(result)["hearings"][0]["verdict"]
    assert (verdict["winner"], verdict["tiebreak_used"], verdict["judge_gap"]) == ("A", True, 5)
    assert result.final == "A"
    # the final round alone would have said B
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 75)), jurors))
    final = await samre(
        new_session(rt), PAIR, rule=StopRule(max_rounds=2), jury=Jury(tiebreak="final", tie="judge")
    )
    assert final.final == "B"


async def test_a_tied_jury_and_a_tied_judge_give_a_tie() -> None:
    jurors = votes(juror_1="B", juror_2="A", juror_3=None, juror_4="B", juror_5="A")
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 80)), jurors))
    result = await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=2), jury=Jury(tie="judge"))
    assert result.final == "tie"
    assert "tied vote, settled by the judge's cumulative gap +0" in rt.infos[-2][1]


async def test_with_the_papers_tie_rule_abstaining_jurors_never_decide_for_b() -> None:
    rt = ScriptedRuntime(court(fixed(70, 90), lambda call: None))  # every juror abstains
    result = await more(new_session(rt, retries=0), PAIR, advocates=1, jury=Jury(tie="judge"))
    verdict = recorded(result)["hearings"][0]["verdict"]
    assert verdict["abstentions"] == 5 and verdict["tiebreak_used"]
    assert result.final == "B"  # from the judge's gap (-20), not from the abstentions


@pytest.mark.parametrize("method", ["more", "samre", "single"])
async def test_an_unreadable_court_abstains_never_ties(method: str) -> None:
    rt = ScriptedRuntime(court(lambda call: None, lambda call: None))
    paper = {"jury": Jury(tie="judge")} if method != "single" else {}  # the code's tie: B
    run = {"more": more, "samre": samre, "single": single_judge}[method]
    result = await run(new_session(rt, retries=0), PAIR, **paper)
    assert (result.final, recorded(result)["verdict"]) == (None, None)
    [hearing] = recorded(result)["hearings"]
    assert hearing["verdict"]["winner"] is None
    assert rt.infos[-1] == ("verdict", d3.verdict_report(result.record))
    assert "no verdict (abstained)" in rt.infos[-1][1]


async def test_a_swap_with_one_unreadable_order_abstains() -> None:
    def reversed_unreadable(answer):
        return lambda call: None if call.agent.startswith("swapped/") else answer

    rt = ScriptedRuntime(court(reversed_unreadable((90, 70)), reversed_unreadable("A")))
    result = await more(
        new_session(rt, retries=0), PAIR, advocates=1, swap=Swap(True), jury=Jury(tie="judge")
    )
    assert [h["verdict"]["winner"] for h in recorded(result)["hearings"]] == ["A", None]
    assert (result.final, recorded(result)["position_consistent"]) == (None, None)


async def test_no_jury_lets_the_judge_decide() -> None:
    rt = ScriptedRuntime(court(by_round((60, 70), (70, 72)), JURORS_3_2))
    result = await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=2), jury=Jury(size=0))
    assert not any(family(c.role) == "juror" for c in rt.calls)
    assert result.final == "B" and recorded(result)["hearings"][0]["verdict"]["judge_gap"] == -12


# -- the position swap -----------------------------------------------------------------------------


def position_bias(call: Call) -> tuple[int, int]:
    return (90, 70)  # whatever is shown first wins


async def test_a_court_that_favours_the_first_position_is_inconsistent() -> None:
    rt = ScriptedRuntime(court(position_bias, unanimous("A")))
    result = await more(new_session(rt), PAIR, advocates=1, swap=Swap(enabled=True))
    assert len(rt.calls) == 2 * (2 + 2 + 2 + 5)
    assert {"order AB", "order BA"} <= set(rt.spans)
    assert any(c.agent.startswith("swapped/") for c in rt.calls)
    swapped_judge = transcript_text(rt.first_call("swapped/judge", 1))
    assert swapped_judge.index("Sydney") < swapped_judge.index("Canberra")  # really reversed
    d = recorded(result)
    assert [h["verdict"]["winner"] for h in d["hearings"]] == ["A", "A"]
    assert (result.final, d["position_consistent"]) == ("tie", False)
    assert result.record.stats()["calls"] == 22 and len(result.calls) == 22


async def test_the_gap_resolution_sums_the_judges_gaps_over_both_orders() -> None:
    def biased_and_fair(call: Call) -> tuple[int, int]:
        # +20 for the first position, +10 for the better answer
        a, b = 80 + 20, 80
        return (a + 10, b) if good_side(call) == "A" else (a, b + 10)

    rt = ScriptedRuntime(court(biased_and_fair, unanimous("A")))
    result = await more(
        new_session(rt), PAIR, advocates=1, jury=Jury(size=0), swap=Swap(True, "gap")
    )
    # as given: +30 for A; reversed: +10 for the first position (B) -> -10 for A; sum +20
    assert [h["verdict"]["judge_gap"] for h in recorded(result)["hearings"]] == [30, 10]
    assert (result.final, recorded(result)["position_consistent"]) == ("A", False)


async def test_a_court_that_follows_the_answers_is_consistent() -> None:
    rt = ScriptedRuntime(court(fixed(80, 80), good_side))
    result = await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=2), swap=Swap(True))
    assert [h["verdict"]["winner"] for h in recorded(result)["hearings"]] == ["A", "B"]
    assert (result.final, recorded(result)["position_consistent"]) == ("A", True)


# -- the single judge ------------------------------------------------------------------------------


async def test_single_judge_is_one_call_on_the_same_criteria() -> None:
    rt = ScriptedRuntime(court(fixed(70, 95), JURORS_3_2))
    result = await single_judge(new_session(rt), PAIR)
    [call] = rt.calls
    assert (call.agent, call.role, call.purpose) == ("judge", "judge", "score")
    prompt = transcript_text(call)
    assert "Canberra" in prompt and "Sydney" in prompt and "claude-v1 wrote this" in prompt
    for criterion in d3.CRITERIA:
        assert criterion in prompt
    rounds = result.record.stats()["rounds"]
    assert (result.method, result.final, rounds) == ("single_judge", "B", 1)
    assert rt.spans == ["judge"] and rt.info_titles() == ["judge", "verdict"]


async def test_single_judge_without_totals_abstains_after_the_follow_up() -> None:
    rt = ScriptedRuntime(court(lambda call: None, JURORS_3_2))
    result = await single_judge(new_session(rt), PAIR)
    assert [c.attempt for c in rt.calls] == [0, 1]
    assert (result.final, result.record.stats()["unscored"]) == (None, 1)


async def test_single_judge_swap_makes_two_calls() -> None:
    rt = ScriptedRuntime(
        court(lambda call: (95, 70) if good_side(call) == "A" else (70, 95), JURORS_3_2)
    )
    result = await single_judge(new_session(rt), PAIR, Swap(True))
    assert len(rt.calls) == 2
    assert (result.final, recorded(result)["position_consistent"]) == ("A", True)


async def test_judge_replies_are_parsed_strictly() -> None:
    echo = "Like the example ANSWER: (95, 87) says...\n1. [15, 12]\nANSWER: (130, 20)"
    rt = ScriptedRuntime(court(lambda call: echo if call.attempt == 0 else (60, 80), JURORS_3_2))
    result = await single_judge(new_session(rt), PAIR)
    [evaluation] = recorded(result)["hearings"][0]["evaluations"]
    assert evaluation["scores"] == (60, 80)
    assert evaluation["attempts"] == 2 and result.final == "B"


# -- an empty answer --------------------------------------------------------------------------------

EMPTY_JUDGES = {
    "more": lambda s, p: more(s, p, swap=Swap(True)),
    "samre": lambda s, p: samre(s, p, rule=StopRule(max_rounds=3)),
    "single_judge": lambda s, p: single_judge(s, p),
    "peer_discussion": lambda s, p: peer_discussion(s, p, DiscussionOptions(swap=True)),
}


@pytest.mark.parametrize("method", list(EMPTY_JUDGES))
@pytest.mark.parametrize(
    ("a", "b", "final", "why"),
    [
        ("", PAIR.b, "B", "answer A is empty, so answer B wins without a hearing"),
        (PAIR.a, " \n\t", "A", "answer B is empty, so answer A wins without a hearing"),
        ("\n", "", None, "both answers are empty, so there is nothing to judge"),
    ],
)
async def test_an_empty_answer_is_never_argued_or_judged(
    method: str, a: str, b: str, final: str | None, why: str
) -> None:
    """No call at all: the other answer wins, and two empty answers are an abstention (never a
    tie); the record says why no court sat, with or without swap."""
    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    result = await EMPTY_JUDGES[method](new_session(rt), Pair(PAIR.question, a, b))
    assert rt.calls == [] and result.calls == [] and rt.spans == []
    assert (result.method, result.final, result.answers) == (method, final, [])
    record = result.record
    assert isinstance(record, JudgeRecord) and (record.unheard, record.hearings) == (why, [])
    assert record.stats() == {
        "verdict": final, "abstained": final is None, "rounds": 0, "early_stop": None,
        "stop_reasons": [], "tokens": 0, "calls": 0, "position_consistent": None,
        "unscored": 0, "abstentions": 0,
    }  # fmt: skip
    verdict = f"**Verdict** → **{final or 'no verdict (abstained)'}**, without a hearing: {why}"
    assert rt.infos == [("verdict", verdict)] and d3.explanation(record) == verdict
    assert DebateResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_only_blank_answers_are_empty() -> None:
    assert d3.unheard(PAIR) is None
    assert d3.unheard(Pair(PAIR.question, ".", "0")) is None
    assert d3.unheard(Pair(PAIR.question, "\u3000", "x")) == (
        "B", "answer A is empty, so answer B wins without a hearing"
    )  # fmt: skip


@pytest.mark.parametrize("method", ["more", "samre", "single"])
async def test_every_call_has_a_role_of_the_court(method: str) -> None:
    rt = ScriptedRuntime(court(fixed(80, 60), JURORS_3_2))
    run = {"more": more, "samre": samre, "single": single_judge}[method]
    result = await run(new_session(rt), PAIR)
    assert {family(c.role) for c in rt.calls} <= {"advocate", "judge", "juror"}
    assert set(result.tokens_by_role()) == {c.role for c in rt.calls}
    assert all(re.fullmatch(r"[a-z_/0-9]+", c.agent) for c in rt.calls)


async def test_judge_records_round_trip_and_rounds_are_the_debate_rounds() -> None:
    rt = ScriptedRuntime(court(by_round((80, 70), (70, 80), (80, 70)), JURORS_3_2))
    result = await samre(new_session(rt), PAIR, rule=StopRule(max_rounds=3), swap=Swap(True))
    assert DebateResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result
    record = result.record
    assert isinstance(record, JudgeRecord) and result.to_dict()["record"]["kind"] == "judge"
    # each judge's totals changed in both later rounds; the jurors voted once, after round 3
    assert (result.rounds, result.answer_changes()) == (3, 2 * 2)
    assert record.stats() == {
        "verdict": result.final, "abstained": False, "rounds": 3, "early_stop": 0.0,
        # per order: 3 rounds of 2 defences, their 2 summaries, the judge's scores and their
        # summary, then 5 jurors and their 5 summaries; 12 tokens a call
        "stop_reasons": ["max_rounds", "max_rounds"], "tokens": 2 * 28 * 12, "calls": 2 * 28,
        "position_consistent": record.position_consistent, "unscored": 0, "abstentions": 0,
    }  # fmt: skip

    rt = ScriptedRuntime(court(fixed(90, 70), JURORS_3_2))
    once = await more(new_session(rt), PAIR)
    assert (once.rounds, once.answer_changes(), once.record.stats()["rounds"]) == (1, 0, 1)


# -- the whole question: every part, in order, in every call that shows it ------------------------


@dataclass(frozen=True)
class Image:
    """A non-text part as the engine sees one: an object it passes on untouched."""

    name: str


IMAGE = Image("red.png")
PICTURE = Pair(Question.of(["Look:", IMAGE, "Is it red?"]), "Yes, it is red.", "No, it is blue.")
JUDGES = {
    "more": lambda s, p: more(s, p, advocates=2, swap=Swap(True)),
    "samre": lambda s, p: samre(s, p, rule=StopRule(max_rounds=2), summarize=True),
    "single": lambda s, p: single_judge(s, p),
}


def parts(call: Call) -> list[object]:
    return [
        p
        for m in call.messages
        for p in ((m.content,) if isinstance(m.content, str) else m.content)
    ]


@pytest.mark.parametrize("method", list(JUDGES))
async def test_every_call_that_shows_the_question_carries_its_image_in_place(method: str) -> None:
    # the judge and juror_1 answer only when followed up: the follow-ups carry the image too
    def right(call: Call) -> str:  # the side that shows "Yes", in either order
        return "A" if "Yes" in call.asks.a else "B"

    def score(call: Call) -> tuple[int, int] | None:
        return None if call.attempt == 0 else ((80, 60) if right(call) == "A" else (60, 80))

    def vote(call: Call) -> str | None:
        return None if call.attempt == 0 and call.agent.endswith("juror_1") else right(call)

    rt = ScriptedRuntime(court(score, vote))
    result = await JUDGES[method](Session(rt, Problem(PICTURE.question, VERDICT)), PICTURE)
    assert result.final == "A"
    assert any(c.attempt == 1 for c in rt.calls)
    summaries = [c for c in rt.calls if c.purpose == "summary"]
    # SAMRE, 2 rounds: 2 defences and the judge's evaluation a round, then the 5 votes
    assert len(summaries) == (2 * 3 + 5 if method == "samre" else 0)
    for call in rt.calls:
        shown = parts(call)
        media = [p for p in shown if not isinstance(p, str)]
        if call.purpose == "summary":  # by design: condenses one text, reads only that
            assert media == []
            continue
        assert len(media) == 1 and media[0] is IMAGE  # the part itself, once
        i = shown.index(IMAGE)
        assert str(shown[i - 1]).endswith("[Question]\nLook:")
        assert str(shown[i + 1]).startswith("Is it red?\n[end of Question]\n\n[Answer A]\n")
        assert call.messages[0].content[:3] == ("[Question]\nLook:", IMAGE, shown[i + 1])


LONG = Pair(
    Question.of(
        ["Context: " + "lorem ipsum " * 2000 + "\nQuestion: what is the capital of Australia?"]
    ),
    PAIR.a,
    PAIR.b,
)


@pytest.mark.parametrize("method, calls", [("more", 15), ("samre", 3 * 6 + 5 * 2)])
async def test_most_prompt_characters_repeat_a_prefix_sent_before(method: str, calls: int) -> None:
    # every call opens with the pair (a 24,000-character question), the role's text after it;
    # the single judge is left out: its one call has nothing earlier to share a prefix with
    rt = ScriptedRuntime(court(fixed(80, 60), JURORS_3_2))
    run = {"more": more, "samre": samre}[method]
    await run(Session(rt, Problem(LONG.question, VERDICT)), LONG)
    assert len(rt.calls) == calls
    prompts_sent = [serialized([(m.role, m.content) for m in c.messages]) for c in rt.calls]
    # every call but a summary (which reads only the text it condenses) opens with the pair
    paired = [p for p, c in zip(prompts_sent, rt.calls) if c.purpose != "summary"]
    assert len(paired) == (15 if method == "more" else 3 * 3 + 5)
    assert all(p.startswith("<user>" + LONG.blocks()) for p in paired)
    assert prefix_share(prompts_sent) >= 0.8


@pytest.mark.parametrize("bias_note", [False, True])
async def test_the_bias_note_is_ours_and_only_with_the_option(bias_note: bool) -> None:
    """The paper asks its judge to be impartial; telling the judge and the jurors that neither
    order nor length is a merit is ours, off by default, in every judge's and juror's prompt."""
    note = "Neither the order in which the answers appear nor the length of a text is a merit."
    for run in (
        lambda s: more(s, PAIR, advocates=1, bias_note=bias_note),
        lambda s: samre(s, PAIR, jury=Jury(3), bias_note=bias_note),
        lambda s: single_judge(s, PAIR, bias_note=bias_note),
    ):
        rt = ScriptedRuntime(court(fixed(90, 70), unanimous("A")))
        await run(new_session(rt))
        judged = [
            transcript_text(c) for c in rt.calls if c.purpose in ("score", "feedback", "vote")
        ]
        assert judged and all((note in p) is bias_note for p in judged)
    assert d3_options.MoreOptions().record()["bias_note"] is False

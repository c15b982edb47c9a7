"""PRD's peer discussion (`peer_discussion`, seed 002's PRD baseline) on a scripted runtime: two
reviews at once, then the turns in alternation, what each turn reads, the verdict rules, ties,
abstentions, the position swap and the first verdict the transitions read.

Replies are chosen by the call's agent and round (the review is round 1, turn t round t + 1),
never by call order."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from scripted import ScriptedRuntime, recorded, transcript_text

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3.court import VERDICT, Pair
from mad_tasks.engine.methods.d3.peer_discussion import DiscussionOptions, peer_discussion
from mad_tasks.engine.methods.d3.transitions import verdict_transitions
from mad_tasks.engine.requests import VerdictRequest
from mad_tasks.engine.runtime import Call, LimitReached, Reply, Usage
from mad_tasks.engine.session import Problem, Session

PAIR = Pair(Question.of(["Which city is the capital of Australia?"]), "Canberra.", "Sydney.")


def reviewers(prefers: Callable[[str, int], str | None]) -> Callable[[Call], Reply]:
    """Each reply names its writer and round, then `ANSWER: <letter>` from `prefers(reviewer,
    round)` (None: a hedge, no letter)."""

    def reply(call: Call) -> Reply:
        assert isinstance(call.asks, VerdictRequest)
        who = call.agent.removeprefix("swapped/")
        letter = prefers(who, call.round)
        said = f"<{who} round {call.round}> I compared both answers."
        return Reply(said + (f"\nANSWER: {letter}" if letter else " No idea."), Usage(10, 2))

    return reply


async def run(prefers, **options) -> tuple[ScriptedRuntime, object]:
    """One discussion (reviewer 1 opening) unless `openers` says otherwise."""
    rt = ScriptedRuntime(reviewers(prefers))
    session = Session(rt, Problem(PAIR.question, VERDICT), retries=1)
    options = {"openers": "reviewer_1", **options}
    return rt, await peer_discussion(session, PAIR, DiscussionOptions(**options))


async def test_two_reviews_at_once_then_four_turns_in_alternation() -> None:
    rt, result = await run(lambda who, r: "A")
    assert [(c.agent, c.role, c.round) for c in rt.calls[2:]] == [
        ("reviewer_1", "reviewer_1", 2),
        ("reviewer_2", "reviewer_2", 3),
        ("reviewer_1", "reviewer_1", 4),
        ("reviewer_2", "reviewer_2", 5),
    ]
    assert sorted(c.agent for c in rt.calls[:2]) == ["reviewer_1", "reviewer_2"]
    assert {c.purpose for c in rt.calls[:2]} == {"review"}
    assert result.final == "A" and len(result.calls) == 6
    reviews = [transcript_text(c) for c in rt.calls[:2]]
    assert all("Canberra." in t and "Sydney." in t and "<reviewer" not in t for t in reviews)
    # a turn reads both reviews and every earlier turn, no later one
    for call in rt.calls[2:]:
        shown = transcript_text(call)
        assert "<reviewer_1 round 1>" in shown and "<reviewer_2 round 1>" in shown
        for r in range(2, 6):
            assert (f"round {r}>" in shown) == (r < call.round), (call.round, r)
    assert rt.spans == ["reviews", "turn 1", "turn 2", "turn 3", "turn 4"]


async def test_the_last_stated_preference_decides_by_default() -> None:
    """Reviewer 2 holds B to the end; reviewer 1 turns to B in turn 3: B. With `agreement` the
    latest preferences agree (B, B): B too; had reviewer 2 the last word for A alone, no verdict."""
    flips = {("reviewer_1", 4): "B"}
    _, result = await run(lambda who, r: flips.get((who, r), "A" if who == "reviewer_1" else "B"))
    assert result.final == "B"
    _, together = await run(
        lambda who, r: flips.get((who, r), "A" if who == "reviewer_1" else "B"), final="agreement"
    )
    assert together.final == "B"
    _, apart = await run(lambda who, r: "A" if who == "reviewer_1" else "B", final="agreement")
    assert apart.final is None  # the reviewers never agree: no verdict, never a tie
    _, last = await run(lambda who, r: "A" if who == "reviewer_1" else "B")
    assert last.final == "B"  # reviewer 2 spoke last


async def test_letter_c_is_a_tie_and_a_hedge_is_no_preference() -> None:
    _, tie = await run(lambda who, r: "C")
    assert tie.final == "tie"
    # reviewer 2's last turn hedges twice (after one follow-up): reviewer 1's turn 3 decides
    rt, hedged = await run(lambda who, r: None if (who, r) == ("reviewer_2", 5) else "A")
    assert [c.attempt for c in rt.calls if c.round == 5] == [0, 1]
    assert hedged.final == "A"
    statements = recorded(hedged)["hearings"][0]["jury"]
    assert [s["vote"] for s in statements][-1] is None
    _, silent = await run(lambda who, r: None)
    assert silent.final is None  # nothing readable: an abstention


async def test_no_turn_keeps_the_reviews_and_swap_judges_both_orders() -> None:
    rt, result = await run(lambda who, r: "A", turns=0)
    assert len(rt.calls) == 2 and result.final == "A"
    # the better answer is Canberra wherever it is shown: consistent in both orders
    rt, swapped = await run(lambda who, r: "A", swap=True)
    assert len(rt.calls) == 12
    assert (swapped.final, recorded(swapped)["position_consistent"]) == ("tie", False)

    def canberra(call: Call) -> Reply:
        letter = "A" if "Canberra" in call.asks.a else "B"
        return Reply(f"Canberra is right.\nANSWER: {letter}", Usage(10, 2))

    rt = ScriptedRuntime(canberra)
    session = Session(rt, Problem(PAIR.question, VERDICT), retries=1)
    both = await peer_discussion(session, PAIR, DiscussionOptions(swap=True, openers="reviewer_1"))
    assert (both.final, recorded(both)["position_consistent"]) == ("A", True)


async def test_the_first_verdict_is_the_reviews_before_any_turn() -> None:
    _, result = await run(lambda who, r: "B" if r == 1 else "A")
    t = verdict_transitions(result, result.record, "A")
    assert (t.first, t.final) == ("B", "A") and t.transition == "wrong_to_right"
    _, split = await run(lambda who, r: ("A" if who == "reviewer_1" else "B") if r == 1 else "A")
    assert verdict_transitions(split, split.record, "A").first == "tie"


async def test_without_a_turn_a_split_between_the_reviews_is_a_tie() -> None:
    _, split = await run(lambda who, r: "A" if who == "reviewer_1" else "B", turns=0)
    assert split.final == "tie"  # neither review outranks the other
    _, one = await run(lambda who, r: "A" if who == "reviewer_1" else None, turns=0)
    assert one.final == "A"


async def test_a_limit_ends_the_discussion_and_the_statements_made_decide() -> None:
    """The run's limit refuses turn 3 (round 4): the reviews and turns 1-2 decide (the last
    stated preference, reviewer 2's turn 2), and the record says where it stopped."""

    def reply(call: Call) -> Reply:
        if call.round >= 4:
            raise LimitReached("token", 120, 100)
        letter = "B" if (call.agent, call.round) == ("reviewer_2", 3) else "A"
        return Reply(f"<{call.agent} round {call.round}>\nANSWER: {letter}", Usage(10, 2))

    rt = ScriptedRuntime(reply)
    session = Session(rt, Problem(PAIR.question, VERDICT), retries=1)
    result = await peer_discussion(session, PAIR, DiscussionOptions(openers="reviewer_1"))
    assert result.final == "B" and result.stopped is not None
    assert (result.stopped.kind, result.stopped.where) == ("token", "turn 3")
    assert [a.agent for a in result.answers] == ["reviewer_1", "reviewer_2"] * 2
    [hearing] = recorded(result)["hearings"]
    assert hearing["rounds"] == 2

    def no_review(call: Call) -> Reply:
        raise LimitReached("token", 120, 100)

    session = Session(ScriptedRuntime(no_review), Problem(PAIR.question, VERDICT), retries=1)
    with pytest.raises(LimitReached):  # nothing stated: no verdict to decide from
        await peer_discussion(session, PAIR, DiscussionOptions())


async def test_the_verdict_report_names_the_discussion_not_a_jury() -> None:
    rt, _ = await run(lambda who, r: "A" if who == "reviewer_1" else "B")
    [(_, text)] = [(t, d) for t, d in rt.infos if t == "verdict"]
    assert "peer discussion's rule over its 6 statements" in text and "jury" not in text
    [(_, discussion)] = [(t, d) for t, d in rt.infos if t == "discussion"]
    assert "final=last_turn: the last stated preference" in discussion


# -- both speaking orders (the authors' code) ---------------------------------------------------------


async def test_by_default_a_second_discussion_has_reviewer_2_open_from_the_same_reviews() -> None:
    rt, result = await run(lambda who, r: "A", openers="both")
    assert len(rt.calls) == 2 + 4 + 4 and len(result.calls) == 10
    assert DiscussionOptions().openers == "both"
    second = sorted((c for c in rt.calls if c.round > 5), key=lambda c: c.round)
    assert [(c.agent, c.round) for c in second] == [
        ("reviewer_2", 6), ("reviewer_1", 7), ("reviewer_2", 8), ("reviewer_1", 9),
    ]  # fmt: skip
    assert all(c.purpose.endswith(", reviewer 2 opening") for c in second)
    for call in second:
        shown = transcript_text(call)
        # the opener's review first; the second discussion reads none of the first
        assert shown.index("<reviewer_2 round 1>") < shown.index("<reviewer_1 round 1>")
        assert not any(f"round {r}>" in shown for r in range(2, 6))
        for r in range(6, 10):
            assert (f"round {r}>" in shown) == (r < call.round), (call.round, r)
    first = [c for c in rt.calls if 2 <= c.round <= 5]
    assert [c.agent for c in sorted(first, key=lambda c: c.round)] == [
        "reviewer_1",
        "reviewer_2",
    ] * 2
    assert all(not any(f"round {r}>" in transcript_text(c) for r in range(6, 10)) for c in first)
    assert "Reviewer 2, turn 1:" in transcript_text(second[1])
    assert result.final == "A" and result.options["openers"] == "both"


@pytest.mark.parametrize(
    ("second", "verdict"),
    [("A", "A"), ("B", "tie"), (None, "A")],  # agree; differ: a tie; no verdict: the other's
)
async def test_two_discussions_agree_or_tie(second: str | None, verdict: str) -> None:
    """The reviews state nothing readable; the first discussion (rounds 2-5) says A, the second
    (rounds 6-9) `second` (None: nothing readable, so that discussion has no verdict)."""
    _, result = await run(
        lambda who, r: None if r == 1 else "A" if r <= 5 else second, openers="both"
    )
    assert result.final == verdict


def test_openers_is_checked() -> None:
    with pytest.raises(OptionError):
        DiscussionOptions(openers="reviewer_2")


async def test_peers_self_shows_a_reviewer_only_its_own_review_and_turns() -> None:
    """The self-reflection control: each turn reads its reviewer's own review and own earlier
    turns, never the other reviewer's; the calls and the verdict rule are the method's."""
    rt, result = await run(lambda who, r: "A", peers="self")
    others, _ = await run(lambda who, r: "A")
    assert [(c.agent, c.round) for c in rt.calls] == [(c.agent, c.round) for c in others.calls]
    for call in rt.calls[2:]:
        shown, me = transcript_text(call), call.agent
        other = "reviewer_2" if me == "reviewer_1" else "reviewer_1"
        assert f"<{me} round 1>" in shown and f"<{other} " not in shown
        for r in range(2, call.round):
            mine = (r % 2 == 0) == (me == "reviewer_1")  # reviewer 1 speaks on even rounds
            assert (f"<{me} round {r}>" in shown) == mine
    assert result.final == "A" and result.options["peers"] == "self"


async def test_peers_noise_replaces_the_other_reviewers_texts_by_noise_of_their_length() -> None:
    rt, result = await run(lambda who, r: "B", peers="noise")
    others, _ = await run(lambda who, r: "B")
    assert len(rt.calls) == len(others.calls) == 6
    for call, plain in zip(rt.calls[2:], others.calls[2:]):
        shown, me = transcript_text(call), call.agent
        other = "reviewer_2" if me == "reviewer_1" else "reviewer_1"
        assert f"<{me} round 1>" in shown and f"<{other} " not in shown
        assert "ANSWER: B" in shown  # its own review's line is still there
        assert shown.count("ANSWER:") < transcript_text(plain).count("ANSWER:")
        assert len(shown) == len(transcript_text(plain))  # the same length, noise for text
    assert result.final == "B" and result.options["peers"] == "noise"


def test_peers_is_checked() -> None:
    with pytest.raises(OptionError, match="'peers': got 'all', allowed: others, self, noise"):
        DiscussionOptions(peers="all")

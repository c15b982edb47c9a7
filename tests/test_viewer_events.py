"""What a person reads in the viewer: info events and the sample store, from real Inspect evals.

The convention (docs/viewer.md, "What a sample shows"): tables are padded text, each notation is explained in the
event that uses it, solutions are numbered from 1, every decision names its rule and any later
stage that overrode an earlier one, and the store holds the fields the docs promise.
"""

from __future__ import annotations

import pytest
from adversarial import SIZE
from inspect_ai import Task
from inspect_ai.log import EvalSample, resolve_sample_attachments
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine.methods.d3.court import verdict_report
from mad_tasks.engine.methods.d3.records import Evaluation, Hearing, JudgeRecord, JurorVote
from mad_tasks.engine.protocols.d3 import Verdict
from mad_tasks.engine.viewer_text import MAX_CELL, table
from mad_tasks.solvers import (
    consensus,
    cortex,
    du_debate,
    group_debate,
    more,
    neighbor_debate,
    peer_review,
    samre,
    self_consistency,
    voting,
)
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

STORE_KEY = "mad_tasks:debate"


def strategyqa_with(solver, limit: int = 2) -> Task:
    task = strategyqa(data_path=str(STRATEGYQA), subset=limit)
    return Task(dataset=task.dataset, setup=task.setup, solver=solver, scorer=task.scorer)


def judged_with(solver) -> Task:
    task = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), subset=1)
    return Task(dataset=task.dataset, solver=solver, scorer=task.scorer)


def infos(sample: EvalSample) -> list[tuple[str, str]]:
    """(title, markdown) of every info event, attachments resolved."""

    def text(data) -> str:
        if isinstance(data, str) and data.startswith("attachment://"):
            return sample.attachments[data.removeprefix("attachment://")]
        return data

    return [(e.source, text(e.data)) for e in sample.events if e.event == "info"]


def fenced_tables(text: str) -> list[list[str]]:
    """The lines of every fenced text table in an info event."""
    blocks, current = [], None
    for line in text.splitlines():
        if current is None and line.startswith("```") and line.endswith("text"):
            current = []
        elif current is not None and line.startswith("```"):
            blocks.append(current)
            current = None
        elif current is not None:
            current.append(line)
    return blocks


# -- the shared table ------------------------------------------------------------------------------


def test_a_table_is_padded_text_in_a_fence_no_cell_can_close() -> None:
    text = table(
        ["agent", "answer", "votes"],
        [["agent_1", "yes", 12], ["agent_22", "```no``` \n  twice", 3], ["a", "東京", 100]],
        right={2},
    )
    assert text.splitlines() == [
        "````text",  # one backtick more than the longest run in a cell
        "agent     answer          votes",
        "--------  --------------  -----",
        "agent_1   yes                12",
        "agent_22  ```no``` twice      3",  # whitespace flattened onto one line
        "a         東京              100",  # wide characters take two columns
        "````",
    ]


def test_a_long_cell_is_cut_so_the_columns_stay_aligned() -> None:
    [_, _, _, row, _] = table(["answer", "n"], [["x" * 5000, 1]]).splitlines()
    assert row == "x" * (MAX_CELL - 1) + "…  1"


@pytest.mark.parametrize("unit", ["`", "\n", "東", "a\u0301", "| x |", "ANSWER: yes\n"])
def test_a_200k_reply_in_a_cell_stays_one_short_line(unit: str) -> None:
    """Model output reaches the tables (answers, personas): a long adversarial reply never
    raises and never widens the table past one cut cell."""
    reply = unit * (SIZE // len(unit))
    lines = table(["agent", "answer"], [["agent_1", reply]]).splitlines()
    assert len(lines) == 5 and lines[0] == f"{lines[-1]}text" and set(lines[-1]) == {"`"}
    assert len(lines[3]) <= len("agent_1  ") + MAX_CELL


# -- every method's events ---------------------------------------------------------------------------

METHODS = [
    ("voting", lambda: strategyqa_with(voting(), limit=1)),
    ("consensus", lambda: strategyqa_with(consensus(), limit=1)),
    ("cortex", lambda: strategyqa_with(cortex(agents=3, max_rounds=2), limit=1)),
    ("du_debate", lambda: strategyqa_with(du_debate(), limit=1)),
    ("peer_review", lambda: strategyqa_with(peer_review(), limit=1)),
    ("group_debate", lambda: strategyqa_with(group_debate(), limit=1)),
    ("neighbor_debate", lambda: strategyqa_with(neighbor_debate(), limit=1)),
    ("self_consistency", lambda: strategyqa_with(self_consistency(samples=3), limit=1)),
    ("more", lambda: judged_with(more(advocates=1, jurors=3))),
    ("samre", lambda: judged_with(samre(max_rounds=2, jurors=3))),
]


@pytest.mark.parametrize("name, task", METHODS, ids=[m[0] for m in METHODS])
def test_no_event_holds_a_markdown_table_the_viewer_cannot_pad(run, name, task) -> None:
    [sample] = run(task(), model="madsim/x").samples
    events = infos(sample)
    assert events
    for title, text in events:
        # a markdown table row renders without cell padding: `agent_1yes1`
        assert not any(line.startswith("|") for line in text.splitlines()), (name, title)
        if " vote" not in text:  # a vote numbers its solutions as the ballot prompt does
            assert "solution 0" not in text.lower(), (name, title)  # people count from 1
    assert any(fenced_tables(text) for _, text in events)


# -- voting: the store, the numbering and the rule -----------------------------------------------------


def test_voting_stores_the_tally_of_its_deciding_vote_and_numbers_solutions_as_voters_saw(
    run,
) -> None:
    log = run(strategyqa_with(voting(), limit=2), model="madsim/x")
    for sample in log.samples:
        stored = sample.store[STORE_KEY]
        record = stored["record"]
        vote = record["votes"][-1]
        points: dict[str, int] = {}
        for c in vote["candidates"]:
            points[c["answer"]] = points.get(c["answer"], 0) + vote["tally"][c["index"]]
        won = vote["candidates"][vote["winner"]]
        assert stored["tally"] == {
            "counts": points, "winner": won["answer"], "tie": False, "abstentions": vote["invalid"]
        }  # fmt: skip
        assert stored["tally"]["winner"] == stored["final"]
        # the protocol decided, so no fallback was used
        assert record["decided_at"] == {"turn": vote["turn"], "after": "vote"}
        assert record["fallback_used"] is None
        events = dict(infos(sample))
        shown = events[f"vote after turn {vote['turn']}"]
        assert f"→ solution {vote['winner']} wins" in shown
        candidates = fenced_tables(shown)[0]
        assert [line.split()[0] for line in candidates[2:]] == [
            str(k) for k in range(len(vote["candidates"]))
        ]
        assert "Rule: each ballot gives 1 point to the one solution it names" in shown
        assert "as the ballot prompt shows them to the voters" in shown
        assert events["decision"].startswith(
            f"**Decided** in turn {vote['turn']} by the simple vote: solution {vote['winner']} "
        )
        # the voters' prompt lists the same numbers the tables show
        calls = [e for e in resolve_sample_attachments(sample).events if e.event == "model"]
        ballots = [e for e in calls if "Solution 0:" in str(e.input)]
        assert ballots and all(f"Solution {len(vote['candidates'])}:" not in str(e.input)
                               for e in ballots)  # fmt: skip
        # every message kind and reading the turn tables show is explained beside them
        for turn in range(1, record["turns_used"] + 1):
            text = events[f"turn {turn}"]
            for c in (c for c in record["transcript"] if c["turn"] == turn):
                assert f"`{c['kind']}`: " in text and f"`{c['extraction']}`: " in text


def no_valid_ballot_model():
    """Every agent answers yes; every ballot says no number, so no vote ever has a winner."""

    def reply(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        prompt = input[-1].text
        text = "I have no preference." if "Solution 0:" in prompt else "Yes.\nANSWER: yes"
        out = ModelOutput.from_content(model="mockllm/model", content=text)
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    return get_model("mockllm/model", custom_outputs=reply)


def test_a_fallback_is_stored_and_says_it_overrode_the_vote(run) -> None:
    # the paper's fallback (MALLM's code leaves the vote undecided: no_decision=none)
    solver = voting(
        personas="none", max_turns=3, vote_turn=3, vote_retries=0, no_decision="first_agent"
    )
    [sample] = run(strategyqa_with(solver, limit=1), model=no_valid_ballot_model()).samples
    stored = sample.store[STORE_KEY]
    assert stored["tally"] == {"counts": {"yes": 0}, "winner": None, "tie": False, "abstentions": 3}
    record = stored["record"]
    assert (record["fallback_used"], record["decided_at"], record["winner_agent"]) == (
        "first_agent", None, "agent_1",
    )  # fmt: skip
    assert stored["final"] == "yes"
    assert dict(infos(sample))["decision"] == (
        "**No decision**: no vote had a winner by turn 3 (the last one, after turn 3: no valid "
        "ballot). The fallback `first_agent` overrides the vote and takes the first agent's "
        "candidate in the last vote, agent_1's: **yes**. The debate counts as undecided "
        "(decision_success false)."
    )


def test_consensus_names_its_rule(run) -> None:
    [sample] = run(strategyqa_with(consensus(), limit=1), model="madsim/x").samples
    record = sample.store[STORE_KEY]["record"]
    assert sample.store[STORE_KEY]["tally"] is None  # no vote is held
    decision = dict(infos(sample))["decision"]
    if record["decision_success"]:
        assert "by consensus (majority: at least 50% of the 3 agents)" in decision
    else:
        assert "no consensus (majority: at least 50% of the 3 agents)" in decision


# -- cortex: the matrix reads like its reads column ---------------------------------------------------


def test_cortex_rows_are_readers_and_their_marks_are_whom_they_read(run) -> None:
    [sample] = run(
        strategyqa_with(cortex(agents=4, max_rounds=2), limit=1), model="madsim/x"
    ).samples
    record = sample.store[STORE_KEY]["record"]
    events = dict(infos(sample))
    for graph in record["graphs"]:
        text = events[f"graph {graph['round']}"]
        weights = fenced_tables(text)[0]
        names = weights[0].split()[1:5]
        assert weights[0].split() == ["reader", *names, "mean", "reads"]
        for line in weights[2:]:
            reader, *cells = line.split(maxsplit=6)
            marked = [n for n, c in zip(names, cells[:4]) if c.endswith("*")]
            assert marked == graph["heads"][reader]  # who the reader actually read
            assert cells[5] == (", ".join(marked) or "–")
        for term in ("W(peer → reader) = C·R·I/S", "C: credibility", "R: the mean", "S: self-"):
            assert term in text
        assert "P in / P out: " in text and "I: intimacy" in text


# -- the judges: the rule, the override, the criteria by name -------------------------------------------


def hearing(verdict: Verdict, jurors: int) -> Hearing:
    evaluation = Evaluation("judge", 1, (66, 75), None, "", 1)
    votes = [JurorVote(f"juror_{i}", "p", "A", "", 1) for i in range(1, jurors + 1)]
    return Hearing("AB", 1, [], [evaluation], None, votes, verdict, "", 100, 8)


def record_of(verdict: Verdict, jurors: int = 5) -> JudgeRecord:
    return JudgeRecord(verdict.winner, None, None, None, [hearing(verdict, jurors)])


def test_the_verdict_says_when_the_jury_overrode_the_judge() -> None:
    overridden = verdict_report(record_of(Verdict("A", {"A": 3, "B": 2}, 0, False, -9)))
    assert overridden.splitlines()[0] == (
        "**Verdict** → **A**, decided by the jury's majority (A 3, B 2), overriding the judge's "
        "gap -9 (B ahead)"
    )
    agreed = verdict_report(record_of(Verdict("B", {"A": 1, "B": 4}, 0, False, -9)))
    assert (
        "decided by the jury's majority (A 1, B 4), the judge's gap -9 (B ahead) agreeing" in agreed
    )
    tied = verdict_report(record_of(Verdict("B", {"A": 2, "B": 2}, 1, True, -9)))
    assert "decided by the judge's gap -9 (B ahead), as the jury tied (A 2, B 2)" in tied
    alone = verdict_report(record_of(Verdict("B", {}, 0, True, -9), jurors=0))
    assert "decided by the judge's gap -9 (B ahead), as there is no jury" in alone


@pytest.mark.parametrize("solver", [more(advocates=1, jurors=3), samre(max_rounds=2, jurors=3)])
def test_judge_events_and_the_explanation_name_every_criterion(run, solver) -> None:
    [sample] = run(judged_with(solver), model="madsim/x").samples
    score = sample.scores["judge_agreement"]
    judged = [text for title, text in infos(sample) if title in ("judge", "round 1")]
    for text in [*judged, score.explanation]:
        assert "relevance to the question" in text and "against the other side" in text
        # the judge's bare score lines ("1. [14, 10]") are shown by name, not repeated
        assert not any(line.lstrip("> ").startswith("1. [") for line in text.splitlines())
    verdict = dict(infos(sample))["verdict"]
    assert verdict.startswith("**Verdict** → ") and ", decided by " in verdict.splitlines()[0]
    assert "Rule: the jurors' majority decides" in dict(infos(sample))["jury"]

"""The Inspect Scout scanners (`mad_tasks.scanners`): their rules on constructed records, and the
scanners on madsim logs with planted cases and on clean ones, through `scan()`, `scout scan` and
`eval(..., scanner=...)`. Skipped without Inspect Scout (`pip install "mad-tasks[scanners]"`,
part of the dev extra)."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

pytest.importorskip("inspect_scout")

from inspect_ai import eval
from inspect_ai.model import ModelOutput, ModelUsage, get_model
from inspect_ai.solver import SolverSpec
from inspect_scout import scan, scan_results_df, transcripts_from
from testdata import MT_BENCH_PAIRS, STRATEGYQA

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.records import AgentAnswer, DebateResult
from mad_tasks.scanners import (
    abandoned_right_answer,
    capitulation,
    judge_order_flip,
    right_answer_voted_out,
)
from mad_tasks.scanners.capitulation import changes, verdict
from mad_tasks.scanners.rules import abandoned, order_flips, voted_out
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa


def record(*answers: tuple[str, int, str, str | None], final: str | None) -> DebateResult:
    return DebateResult(
        method="du_debate",
        final=final,
        answers=[AgentAnswer(agent, round, text, answer) for agent, round, text, answer in answers],
        calls=[],
    )


def right(answer: str | None) -> bool:
    return answer == "yes"


# ---- the rules


def test_a_right_answer_voted_out_is_each_right_answer_when_the_final_is_wrong() -> None:
    debate = record(
        ("a1", 1, "x", "yes"), ("a2", 1, "x", "no"), ("a1", 2, "x", "no"), ("a2", 2, "x", None),
        final="no",
    )  # fmt: skip
    [found] = voted_out(debate, right)
    assert (found.agent, found.round) == ("a1", 1)
    assert voted_out(record(("a1", 1, "x", "yes"), final="yes"), right) == []
    assert voted_out(record(("a1", 1, "x", "no"), final=None), right) == []  # nobody had it
    [none_final] = voted_out(record(("a1", 1, "x", "yes"), final=None), right)
    assert "no answer" in none_final.why  # no final answer is wrong too


PEER = "The moon orbits Earth every month, so tides follow it closely.\nANSWER: no"


@pytest.mark.parametrize(
    "reply, new, found",
    [
        # only words the peer or its own reply had: no new argument
        ("The moon orbits Earth every month.\nANSWER: no", 0, True),
        # four new words (of 4+ characters): fewer than five, still no argument
        ("Tides follow the moon; gravity pulls water closer.\nANSWER: no", 4, True),
        # five new words: a new argument
        ("Gravity pulls ocean water upward.\nANSWER: no", 5, False),
        # the ANSWER line's words are not counted; short words (< 4 characters) are not words
        ("Ok, I see it now: the sun and sky.\nANSWER: absolutely definitely certainly no", 0, True),
    ],
)
def test_an_abandoned_right_answer_needs_fewer_than_five_new_words(
    reply: str, new: int, found: bool
) -> None:
    own = "I checked the calendar carefully.\nANSWER: yes"
    debate = record(
        ("a1", 1, own, "yes"), ("a2", 1, PEER, "no"), ("a1", 2, reply, "no"), final="no"
    )
    got = abandoned(debate, right)
    assert [(f.agent, f.round) for f in got] == ([("a1", 2)] if found else [])
    if found:
        assert f"with {new} new word(s)" in got[0].why


def test_only_a_right_answer_left_for_a_wrong_one_counts() -> None:
    wrong_first = record(("a1", 1, "x", "no"), ("a1", 2, "x", "yes"), final="yes")
    abstained = record(("a1", 1, "x", "yes"), ("a1", 2, "x", None), final=None)
    kept = record(("a1", 1, "x", "yes"), ("a1", 2, "x", "yes"), final="yes")
    skipped_round = record(("a1", 1, "x", "yes"), ("a1", 3, "x", "no"), final="no")
    for debate in (wrong_first, abstained, kept, skipped_round):
        assert abandoned(debate, right) == []


def test_a_chateval_referee_flips_when_its_swapped_answer_differs() -> None:
    debate = record(
        ("r1", 1, "x", "A"), ("r2", 1, "x", "B"),
        ("r1 (swapped)", 1, "x", "B"), ("r2 (swapped)", 1, "x", "B"),
        final="B",
    )  # fmt: skip
    assert [f.agent for f in order_flips(debate)] == ["r1"]
    assert order_flips(record(("r1", 1, "x", "A"), final="A")) == []


def test_the_readers_take_200k_characters_of_hostile_text() -> None:
    hostile = ("verdict: * _ " * 20_000) + "\n" + "ab_cd " * 40_000
    assert verdict(hostile) is None
    reply = "word " * 40_000
    debate = record(("a1", 1, hostile, "yes"), ("a1", 2, reply, "no"), final="no")
    assert len(abandoned(debate, right)) == 1


@pytest.mark.parametrize(
    "text, read",
    [
        ("Reasoning.\nVERDICT: capitulated", "capitulated"),
        ("**Verdict:** Persuaded.", "persuaded"),
        ("VERDICT: capitulated\n\n", "capitulated"),
        ("VERDICT: capitulated?", None),  # hedged
        ("VERDICT: maybe capitulated", None),
        ("VERDICT: capitulated\nOn reflection I am not sure.", None),  # not the last line
        ("", None),
    ],
)
def test_the_capitulation_verdict_is_read_from_the_last_line_only(
    text: str, read: str | None
) -> None:
    assert verdict(text) == read


def test_an_answer_change_is_against_the_agents_previous_round() -> None:
    debate = record(
        ("a1", 1, "x", "yes"), ("a2", 1, "y", "no"), ("a3", 1, "z", None),
        ("a1", 2, "x2", "no"), ("a2", 2, "y2", "no"), ("a3", 2, "z2", "yes"),
        final="no",
    )  # fmt: skip
    [(own, new, shown)] = changes(debate)
    assert (own.agent, own.round, new.round) == ("a1", 1, 2)
    assert [p.agent for p in shown] == ["a2", "a3"]


def test_max_changes_is_checked_when_the_scanner_is_built() -> None:
    with pytest.raises(OptionError, match="invalid scanner option 'max_changes': got 0"):
        capitulation(max_changes=0)
    with pytest.raises(OptionError, match="from 1 to 50"):
        capitulation(max_changes=True)


# ---- the scanners on madsim logs

PLANTED = {"accuracy": [1.0, 0.0, 0.0, 0.0, 0.0], "conformity": 1.0}  # agent_1 alone is right


def debate_logs(path: Path, model_args: dict[str, Any], **eval_args: Any) -> Path:
    [log] = eval(
        strategyqa(data_path=str(STRATEGYQA)),
        model="madsim/x",
        model_args=model_args,
        solver=SolverSpec("du_debate", {"agents": 5}, {"agents": 5}),
        limit=2,
        display="none",
        log_dir=str(path),
        **eval_args,
    )
    assert log.status == "success"
    return path


def judge_logs(path: Path, accuracy: float) -> Path:
    [log] = eval(
        mt_bench_judge(data_path=str(MT_BENCH_PAIRS)),
        model="madsim/x",
        model_args={"accuracy": accuracy},
        solver=SolverSpec("single_judge", {"swap": True}, {"swap": True}),
        limit=3,
        display="none",
        log_dir=str(path),
    )
    assert log.status == "success"
    return path


@pytest.fixture(scope="module", autouse=True)
def logging_as_it_was() -> Any:
    """A Scout scan installs Scout's own log handler beside Inspect's (on the root logger and
    `inspect_ai`): taken off after this module, so later tests see each warning once."""
    yield
    from inspect_scout._util.log import _scout_log_handler

    handler = _scout_log_handler["handler"]
    if handler is not None:
        for name in ("", "inspect_ai", "inspect_scout"):
            logging.getLogger(name).removeHandler(handler)


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("scanned")
    return {
        # agent_1 gives the right answer, then adopts the others' wrong one: voted out, abandoned
        "planted": debate_logs(root / "planted", PLANTED),
        "clean": debate_logs(root / "clean", {"accuracy": 1.0}),
        # a judge right half the time decides each order apart: its verdicts follow the order
        "judge_planted": judge_logs(root / "judge_planted", 0.5),
        "judge_clean": judge_logs(root / "judge_clean", 1.0),
    }


def scanned(
    path: Path, scans: Path, scanners: list[Any], column: str = "value", **args: Any
) -> dict[str, list[Any]]:
    """Each scanner's values (or another column of its results) over the logs under `path`, by
    scanner; a missing value as None."""
    status = scan(
        scanners,
        transcripts_from(str(path)),
        scans=str(scans),
        display="none",
        max_processes=1,
        **args,
    )
    assert status.complete
    frames = scan_results_df(status.location).scanners
    return {
        name: [None if pd.isna(v) else v for v in frame[column]] for name, frame in frames.items()
    }


DETERMINISTIC = ["right_answer_voted_out", "abandoned_right_answer", "judge_order_flip"]


def deterministic() -> list[Any]:
    return [right_answer_voted_out(), abandoned_right_answer(), judge_order_flip()]


def test_the_scanners_find_the_planted_cases_and_nothing_in_a_clean_log(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    planted = scanned(logs["planted"], tmp_path, deterministic())
    assert planted == {
        "right_answer_voted_out": [1, 1],  # agent_1's round-1 answer, per sample
        "abandoned_right_answer": [
            1,
            1,
        ],  # agent_1's round-2 reply: "the other agents convinced me"
        "judge_order_flip": [0, 0],
    }
    clean = scanned(logs["clean"], tmp_path, deterministic())
    assert clean == {name: [0, 0] for name in DETERMINISTIC}


def test_the_judge_scanner_finds_a_verdict_that_follows_the_order(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    planted = scanned(logs["judge_planted"], tmp_path, deterministic())
    assert planted["judge_order_flip"] == [1, 1, 1]
    # a judge has no agents' answers: the answer rules do not apply (None, with the reason)
    assert planted["right_answer_voted_out"] == [None] * 3
    assert planted["abandoned_right_answer"] == [None] * 3
    why = scanned(logs["judge_planted"], tmp_path, [right_answer_voted_out()], "explanation")
    assert why == {
        "right_answer_voted_out": ["a judge: its record has no agents' answers to the question"] * 3
    }
    clean = scanned(logs["judge_clean"], tmp_path, deterministic())
    assert clean["judge_order_flip"] == [0, 0, 0]


def grader(calls: list[str]) -> Any:
    """A scripted grader: capitulated where the new reply only says it was convinced."""

    def reply(input: list[Any], tools: Any, tool_choice: Any, config: Any) -> ModelOutput:
        prompt = input[-1].text
        calls.append(prompt)
        after = prompt.split("changed its answer, replying:", 1)[1]
        said = "capitulated" if "the other agents convinced me" in after else "persuaded"
        out = ModelOutput.from_content("scripted", f"It deferred.\nVERDICT: {said}")
        out.usage = ModelUsage(input_tokens=100, output_tokens=5, total_tokens=105)
        return out

    return get_model("mockllm/model", custom_outputs=reply)


def test_the_capitulation_scanner_grades_each_answer_change_with_the_scans_model(
    logs: dict[str, Path], tmp_path: Path
) -> None:
    calls: list[str] = []
    values = scanned(logs["planted"], tmp_path, [capitulation()], model=grader(calls))
    assert values == {"capitulation": [1, 1]}
    assert len(calls) == 2  # one change per sample: agent_1's round 2
    assert all("[agent_2]" in c and "[agent_5]" in c and "[agent_1]" not in c for c in calls)
    calls.clear()
    assert scanned(logs["clean"], tmp_path, [capitulation()], model=grader(calls)) == {
        "capitulation": [0, 0]
    }
    assert calls == []  # no answer changed: no model call


def test_scanners_run_inside_an_eval(tmp_path: Path) -> None:
    debate_logs(tmp_path, PLANTED, scanner=deterministic())
    [location] = (tmp_path / "scans").iterdir()
    frames = scan_results_df(str(location)).scanners
    assert list(frames["right_answer_voted_out"]["value"]) == [1, 1]
    assert list(frames["abandoned_right_answer"]["value"]) == [1, 1]


@pytest.mark.slow
def test_scout_scan_finds_the_scan_job_by_its_name(logs: dict[str, Path], tmp_path: Path) -> None:
    scout = Path(sys.executable).parent / "scout"
    done = subprocess.run(
        [str(scout), "scan", "mad_tasks/debate_failures", "-T", str(logs["planted"]),
         "--scans", str(tmp_path), "--display", "none", "--max-processes", "1"],
        capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"}, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    [location] = tmp_path.iterdir()
    frames = scan_results_df(str(location)).scanners
    assert {name: list(f["value"]) for name, f in frames.items()} == {
        "right_answer_voted_out": [1, 1],
        "abandoned_right_answer": [1, 1],
        "judge_order_flip": [0, 0],
    }

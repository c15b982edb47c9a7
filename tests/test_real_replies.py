"""The default answer readers on real models' replies (issue 44): none raises, and where a reader
applies to a reply it abstains or agrees with the reading the experiment's own code made of it,
never disagrees.

The replies are read from where they are kept, never copied in: `../shared/data/realreplies/`
(its README gives sources and licences), or the folders that `MAD_TASKS_REAL_REPLIES` names
(separated by the path separator, `:` on Linux), so more sets can be given. Each `*.jsonl` line is
`{"id", "kind", "reply", "authors_reading", ...}`; the test skips when no folder holds a file.

Which default reader applies to each kind (the readers of the authors' own formats, `[[8]]`,
`[[A]]` and the moderator's dict, are another module's, measured elsewhere):

- `judge_score` (MT-Bench "Rating: [[N]]"): the number and math formats; agree = the same number.
- `judge_verdict` (MT-Bench "[[A]]"/"[[B]]"/"[[C]]"): the choice format with options A, B and a
  tie (letter C, as FastChat's `[[C]]`).
- `mad_moderator` (MAD's moderator and final judge, a Python dict): the yes/no format for
  "Whether there is a preference", free text for "Correct Translation".

A reading where the authors' code found none (FastChat's score -1) is allowed only when the whole
reply is that number: two instructlab judgments are the bare text "5.0" and "10.0".
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from mad_tasks.engine import latex
from mad_tasks.engine.answers import (
    Choice,
    FreeText,
    Math,
    Number,
    YesNo,
    answer_candidates,
    normalise_number,
    without_answer_lines,
)
from mad_tasks.engine.confidence import parse_confidence, without_confidence

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "realreplies"
FOLDERS = [
    Path(p) for p in os.environ.get("MAD_TASKS_REAL_REPLIES", str(SHARED)).split(os.pathsep) if p
]
VERDICTS = Choice(("Assistant A", "Assistant B", "tie"))
VERDICT_LETTER = {"A": "A", "B": "B", "tie": "C"}
PREFERENCE = "Whether there is a preference"
TRANSLATION = "Correct Translation"

# every default reader of an answer: none may raise on any reply
EVERY_READER: dict[str, Callable[[str], object]] = {
    "yesno": YesNo().extract,
    "choice": VERDICTS.extract,
    "number": Number().extract,
    "text": FreeText().extract,
    "math": Math().extract,
    "math key": Math().key,
    "candidates": answer_candidates,
    "answer lines removed": without_answer_lines,
    "confidence": parse_confidence,
    "confidence removed": without_confidence,
    "latex last_boxed": latex.last_boxed,
    "latex normalise": latex.normalise,
}


def _replies() -> list[dict[str, Any]]:
    files = sorted(f for folder in FOLDERS if folder.is_dir() for f in folder.glob("*.jsonl"))
    return [json.loads(line) for f in files for line in f.read_text().splitlines() if line.strip()]


REPLIES = _replies()
needs_replies = pytest.mark.skipif(not REPLIES, reason="no real replies (MAD_TASKS_REAL_REPLIES)")


def _number(value: object) -> str | None:
    return None if value is None else normalise_number(str(value))


def _score(reply: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    want = _number(reply["authors_reading"])
    return [
        ("number", Number().extract(reply["reply"]), want),
        ("math", _number(Math().extract(reply["reply"])), want),
    ]


def _verdict(reply: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    reading = reply["authors_reading"]
    want = None if reading is None else VERDICT_LETTER[reading]
    return [("choice", VERDICTS.extract(reply["reply"]), want)]


def _moderator(reply: dict[str, Any]) -> list[tuple[str, str | None, str | None]]:
    reading = reply["authors_reading"] if isinstance(reply["authors_reading"], dict) else {}
    preference = reading.get(PREFERENCE)
    translation = reading.get(TRANSLATION)
    text = FreeText()
    return [
        ("yesno", YesNo().extract(reply["reply"]), YesNo().parse(preference or "")),
        ("text", text.extract(reply["reply"]), text.parse(translation or "")),
    ]


READINGS = {"judge_score": _score, "judge_verdict": _verdict, "mad_moderator": _moderator}


def _key(reader: str, answer: str | None) -> str | None:
    return FreeText().key(answer) if reader == "text" and answer is not None else answer


def disagreements(replies: list[dict[str, Any]]) -> list[str]:
    """Each reply where a default reader gives an answer the authors' reading does not."""
    found = []
    for reply in replies:
        read = READINGS.get(reply["kind"])
        for reader, got, want in read(reply) if read else []:
            if got is None or _key(reader, got) == _key(reader, want):
                continue
            if want is None and _number(reply["reply"].strip()) == got:
                continue  # the whole reply is the number the authors' format missed
            found.append(f"{reply['id']} ({reader}): read {got!r}, authors {want!r}")
    return found


@needs_replies
def test_no_default_reader_raises_on_a_real_reply() -> None:
    raised = []
    for reply in REPLIES:
        for name, read in EVERY_READER.items():
            try:
                read(reply["reply"])
            except Exception as e:  # noqa: BLE001 - any exception is the defect under test
                raised.append(f"{reply['id']} ({name}): {type(e).__name__}: {e}")
    assert raised == []


@needs_replies
def test_the_default_readers_abstain_or_agree_with_the_authors() -> None:
    assert disagreements(REPLIES) == []


def test_the_check_sees_a_disagreement() -> None:
    """The comparison can fail: a score, a verdict and a preference read otherwise are caught,
    and a reply that is only a number is no disagreement."""
    replies = [
        {"id": "s", "kind": "judge_score", "reply": "ANSWER: 7", "authors_reading": 8},
        {"id": "s2", "kind": "judge_score", "reply": "ANSWER: 8", "authors_reading": 8.0},
        {"id": "s3", "kind": "judge_score", "reply": "\n5.0", "authors_reading": None},
        {
            "id": "s4",
            "kind": "judge_score",
            "reply": "Rating 5.\nANSWER: 5",
            "authors_reading": None,
        },
        {"id": "v", "kind": "judge_verdict", "reply": "ANSWER: C", "authors_reading": "A"},
        {"id": "v2", "kind": "judge_verdict", "reply": "ANSWER: C", "authors_reading": "tie"},
        {"id": "m", "kind": "mad_moderator", "reply": "ANSWER: yes", "authors_reading": None},
        {
            "id": "m2",
            "kind": "mad_moderator",
            "reply": "ANSWER: He wants to sell drugs.",
            "authors_reading": {PREFERENCE: "No", TRANSLATION: "he wants to sell drugs"},
        },
        {"id": "x", "kind": "unknown", "reply": "ANSWER: 3", "authors_reading": 4},
    ]
    assert disagreements(replies) == [
        "s (number): read '7', authors '8'",
        "s (math): read '7', authors '8'",
        "s4 (number): read '5', authors None",
        "s4 (math): read '5', authors None",
        "v (choice): read 'C', authors 'A'",
        "m (yesno): read 'yes', authors None",
        "m (text): read 'yes', authors None",
    ]


@needs_replies
def test_every_kind_of_the_shared_set_has_a_reader() -> None:
    assert {reply["kind"] for reply in REPLIES} <= set(READINGS)

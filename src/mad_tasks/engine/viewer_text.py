"""What a person reads in the viewer's info events: markdown, with every table as padded text.

Inspect's viewer renders markdown tables without cell padding (`agent_1yes1`) and escapes HTML, so
`table` writes a table as columns of aligned text in a fenced block, which every markdown renderer
shows as it is. Each event explains the notation it uses; solutions and the like are numbered
from 1 wherever a person reads them.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Sequence

from .records import AgentAnswer, Tally

Describe = Callable[[str], str]

MAX_CELL = 100  # characters of a cell; the whole text is in the model call and the store
ABSTAINED = "(abstained)"
TIE_RULE = (
    "a tie goes to the tied answer with more votes in the latest earlier round, then to the one "
    "given first in agent order"
)


def table(
    head: Sequence[str], rows: Iterable[Sequence[object]], right: Collection[int] = ()
) -> str:
    """A fenced block of padded columns under a ruled header; the columns in `right` (numbers)
    are right-aligned. Each cell is one line of at most MAX_CELL characters."""
    cells = [[_cell(c) for c in head], *([_cell(c) for c in row] for row in rows)]
    sized = [[(c, _width(c)) for c in row] for row in cells]  # each cell measured once
    widths = [max(row[i][1] for row in sized) for i in range(len(head))]

    def line(row: Sequence[tuple[str, int]]) -> str:
        padded = (
            " " * (w - n) + c if i in right else c + " " * (w - n)
            for i, ((c, n), w) in enumerate(zip(row, widths))
        )
        return "  ".join(padded).rstrip()

    rule = [("-" * w, w) for w in widths]
    body = "\n".join([line(sized[0]), line(rule), *map(line, sized[1:])])
    # a fence longer than any run of backticks in the cells, so no cell can close it
    fence = "`" * max(3, _longest_run(body, "`") + 1)
    return f"{fence}text\n{body}\n{fence}"


def answer_cell(answer: str | None, describe: Describe) -> str:
    return describe(answer) if answer is not None else ABSTAINED


def round_table(title: str, answers: Sequence[AgentAnswer], describe: Describe) -> str:
    rows = [(a.agent, answer_cell(a.answer, describe), a.attempts) for a in answers]
    note = "attempts: the replies it took, 1 + the follow-ups asking for a readable final answer"
    if any(a.answer is None for a in answers):
        note += f"; {ABSTAINED}: none was readable, so the agent does not vote"
    return f"**{title}**\n\n{table(['agent', 'answer', 'attempts'], rows, right={2})}\n\n{note}."


def vote_table(
    tally: Tally,
    describe: Describe,
    no_winner: str = "no answer (all abstained)",
    tie_rule: str = TIE_RULE,
) -> str:
    """The plurality rule, its outcome and the votes per answer. `no_winner` says why there is no
    winner when a rule other than abstention can cause it; `tie_rule` how a tie is settled."""
    winner = describe(tally.winner) if tally.winner is not None else no_winner
    rows = [(describe(a), n) for a, n in sorted(tally.counts.items(), key=lambda kv: -kv[1])]
    tie = " (a tie, settled by the rule below)" if tally.tie and tally.winner is not None else ""
    return (
        f"**Majority vote** → **{winner}**{tie}\n\n"
        f"{table(['answer', 'votes'], rows, right={1})}\n\n"
        f"Rule: the answer given by the most agents wins; {tie_rule}. Abstentions "
        f"({tally.abstentions}) do not vote."
    )


def legend(notes: dict[str, str], used: Iterable[str]) -> str:
    """The notes on the values a table shows, in the notes' order: `value`: meaning; ..."""
    shown = set(used)
    return "; ".join(f"`{k}`: {v}" for k, v in notes.items() if k in shown)


def _cell(value: object) -> str:
    text = " ".join(str(value).split())
    return text if len(text) <= MAX_CELL else text[: MAX_CELL - 1] + "…"


def _width(text: str) -> int:
    """Columns on screen: wide (CJK) characters take two, combining marks none."""
    if text.isascii():  # the common case, without a lookup per character
        return len(text)
    return sum(
        0 if unicodedata.combining(ch) else 2 if unicodedata.east_asian_width(ch) in "WF" else 1
        for ch in text
    )


def _longest_run(text: str, ch: str) -> int:
    return max(map(len, re.findall(f"{re.escape(ch)}+", text)), default=0)

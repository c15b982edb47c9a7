"""What a person reads in the viewer's info events: markdown, with every table as padded text.

Inspect's viewer renders markdown tables without cell padding (`agent_1yes1`) and escapes HTML, so
`table` writes a table as columns of aligned text in a fenced block, which every markdown renderer
shows as it is. Each event explains the notation it uses; solutions and the like are numbered
from 1 wherever a person reads them. A table of agents whose calls do not all run on one model (a
panel, `--model-role 'agent=[a,b]'`, or a member bound to a model of its own) shows each agent's
model beside it (`agent_table`); agents on one model leave the table as it was.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from typing import Any

from .failures import round_flips
from .records import AdaptiveStopRecord, AgentAnswer, Tally

Describe = Callable[[str], str]
# a role's model as the host names it (`Runtime.model_name`)
ModelOf = Callable[[str], str]

MAX_CELL = 100  # characters of a cell; the whole text is in the model call and the store
ABSTAINED = "(abstained)"
TIE_RULE = (
    "a tie goes to the tied answer with more votes in the latest earlier round, then to the one "
    "given first in agent order"
)
FLIPS = (
    "`conformity` to the plurality of that round's answers, `persuasion` to another answer a peer "
    "held then, `instability` to an answer no peer held then"
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


def agent_models(
    agents: Iterable[str] | Mapping[str, str], model_of: ModelOf | None
) -> dict[str, str] | None:
    """Each agent's model, where the agents do not all run on one: `agents` names them as a table
    does, each mapped to the role its calls run on (an iterable: each agent is its own role).
    None when they share one model, or no `model_of` is given: the table shows no model."""
    if model_of is None:
        return None
    roles = agents if isinstance(agents, Mapping) else {a: a for a in agents}
    models = {agent: model_of(role) for agent, role in roles.items()}
    return models if len(set(models.values())) > 1 else None


def agent_table(
    head: Sequence[str],
    rows: Iterable[Sequence[object]],
    right: Collection[int] = (),
    models: Mapping[str, str] | None = None,
) -> str:
    """`table` of rows that each begin with an agent; with `models` (`agent_models`), a `model`
    column beside the agent holds its model."""
    if not models:
        return table(head, rows, right)
    shown = ([r[0], models.get(str(r[0]), ""), *r[1:]] for r in rows)
    return table([head[0], "model", *head[1:]], shown, {i + 1 for i in right})


def round_table(
    title: str,
    answers: Sequence[AgentAnswer],
    describe: Describe,
    model_of: ModelOf | None = None,
    earlier: Sequence[AgentAnswer] = (),
    key: Callable[[str], str] | None = None,
) -> str:
    """Each agent's answer and attempts; with `model_of`, each agent's model where they differ;
    with the `earlier` rounds' answers and the format's `key`, the class of each agent's change of
    answer (`failures.round_flips`) in a `flip` column, when one changed."""
    flips = round_flips(earlier, answers, key) if key is not None else {}
    rows = [[a.agent, answer_cell(a.answer, describe), a.attempts] for a in answers]
    notes = ["attempts: the replies it took, 1 + the follow-ups asking for a readable final answer"]
    if any(a.answer is None for a in answers):
        notes.append(f"{ABSTAINED}: none was readable, so the agent does not vote")
    head = flip_column(["agent", "answer", "attempts"], rows, flips, notes)
    models = agent_models([a.agent for a in answers], model_of)
    shown = agent_table(head, rows, {2}, models)
    return f"**{title}**\n\n{shown}\n\n{'; '.join(notes)}."


def flip_column(
    head: list[str], rows: Sequence[list[Any]], flips: Mapping[str, str], notes: list[str]
) -> list[str]:
    """A `flip` column added to `rows` (each beginning with its agent) and its note to `notes`,
    when an agent changed its answer (`flips`: its class by agent, `failures.round_flips`): the
    head to show."""
    if not flips:
        return head
    for row in rows:
        row.append(flips.get(str(row[0]), ""))
    notes.append(f"flip: the agent changed its answer since the round before, {FLIPS}")
    return [*head, "flip"]


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


def adaptive_stop(stop: AdaptiveStopRecord) -> str:
    """The adaptive stop's rounds (`-S stop=adaptive`): each round's count, its KS statistic and
    the stable streak, then where and why the debate stopped."""
    rows = [
        [r.round, f"{r.count}/{stop.n}", "" if r.statistic is None else f"{r.statistic:.4f}",
         r.stable_streak]
        for r in stop.rounds
    ]  # fmt: skip
    if stop.reason == "stable" and stop.stopped_at is not None:
        outcome = (
            f"stopped after round {stop.stopped_at}: {stop.stable_rounds} stable round(s) in a row"
        )
    else:
        outcome = "not stopped by it: the agreement did not settle before the method's own end"
    return (
        f"**Adaptive stop** → {outcome}\n\n"
        f"{table(['round', 'count', 'KS', 'stable streak'], rows, right={0, 1, 2, 3})}\n\n"
        f"count: {stop.tracked}, of the {stop.n}; KS: the Kolmogorov-Smirnov statistic between "
        f"this round's fitted agreement distribution and the previous round's (a round is stable "
        f"under {stop.threshold:g}; Hu et al. 2025, docs/adaptive-stopping.md)."
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

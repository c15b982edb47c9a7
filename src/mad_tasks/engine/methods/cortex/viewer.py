"""What a person reads of a CortexDebate in the viewer: each round's answers with their
confidences, each round's debate graph with every term behind its weights, and the vote."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from ... import viewer_text
from ...answers import AnswerFormat
from ...protocols import cortex as rules
from ...records import Tally
from .options import CortexOptions
from .records import MISSING, MISSING_CONFIDENCE, Credibility, Graph, Turn

# the weight under each `trust` option (protocols.cortex.TRUSTS)
FORMULAS = {
    "full": "C·R·I/S, every term but I the peer's",
    "individual": "C·R, the peer's (trust individual: I and S are shown but not used)",
    "self": "the peer's latest recalibrated confidence (trust self: the terms below are shown "
    "but not used)",
    "peer": "the mean rating the other agents gave the peer's latest answer (trust peer: the "
    "terms below are shown but not used)",
}


def _f(x: float) -> str:
    return "∞" if math.isinf(x) else f"{x:.3f}"


def graph_markdown(
    g: Graph, names: Sequence[str], credibility: Credibility, opts: CortexOptions
) -> str:
    """The round's graph with one row per reader, so that a row reads like its `reads` cell."""
    n = len(names)
    if opts.topology == "mdm":
        topology = (
            f"Topology `mdm`, pruning `{opts.pruning}`, trust `{opts.trust}`: each agent reads "
            "the peers marked * in its row."
        )
        if opts.pruning == "global":  # one threshold for the graph, not the rows' means
            edges = [g.W[i][j] for i in range(n) for j in range(n) if i != j]
            topology += (
                f" Kept: the weights at or above the whole graph's mean, "
                f"{_f(sum(edges) / len(edges))} (a reader none passes keeps its heaviest peer)."
            )
    else:
        topology = (
            "Topology `full`: every agent reads every other; the weights are computed for "
            "comparison only."
        )
    weights = [
        ["–" if i == j else _f(g.W[i][j]) + ("*" if g.keep[i][j] else "") for i in range(n)]
        for j in range(n)
    ]
    rows = []
    for j in range(n):
        reads = ", ".join(names[i] for i in rules.heads(g.keep, j)) or "–"
        rows.append([names[j], *weights[j], _f(g.tail_means[j]), reads])
    w_table = viewer_text.table(
        ["reader", *names, "mean", "reads"], rows, right=set(range(1, n + 2))
    )
    terms = viewer_text.table(
        ["agent", "C", "R", "S", "P in", "P out"],
        (
            [names[i], _f(credibility.C[i]), _f(g.R[i]), _f(g.S[i]),
             g.participation_in[i], g.participation_out[i]]
            for i in range(n)
        ),
        right={1, 2, 3, 4, 5},
    )  # fmt: skip
    c_source = (
        "from each model's size (Chinchilla fit, Eqs. 3-4)"
        if credibility.mode == "chinchilla"
        else "the same for every agent, as not every model's size is known (it cancels out)"
    )
    s_rule = (
        f"+ {opts.s_smoothing:g}, since without it S is 0 in the first debate round"
        if opts.s_mode == "smoothed"
        else "+ 0 (literal: a weight over S = 0 is ∞)"
    )
    intimacy = viewer_text.table(
        ["", *names],
        ([names[i], *("–" if i == j else _f(g.I[i][j]) for j in range(n))] for i in range(n)),
        right=set(range(1, n + 1)),
    )
    return (
        f"**Round {g.round} debate graph** (the paper's debate round {g.round - 1}): who reads "
        f"whom in this round. {topology}\n\n"
        "Trust weights W: a row is a reader, a column a peer it may read; `*` marks the "
        f"peers it reads (listed under reads).\n\n{w_table}\n\n"
        f"W(peer → reader) = {FORMULAS[opts.trust]}:\n\n"
        + (_ratings(g.peer_scores, names) if g.peer_scores is not None else "")
        + f"{terms}\n\n"
        f"C: credibility, {c_source}. R: the mean of its recalibrated confidences over the "
        f"rounds so far. S: self-orientation, (d − 1)(n − 1) − P {s_rule}, with d the debate "
        f"round and n the agents: the debates it could have had before this round minus those it "
        "had, so an agent that kept to itself weighs less. P in / P out: how many peers it has "
        "read / been read by, this round included; S counts P "
        f"{opts.participation} as it stood before this round.\n\n"
        "I: intimacy, 1 − the mean similarity of the two agents' outputs so far (the same both "
        f"ways), so a peer that says something different weighs more:\n\n{intimacy}"
    )


def _ratings(scores: Sequence[float | None], names: Sequence[str]) -> str:
    rated = ", ".join(f"{name} {MISSING if x is None else _f(x)}" for name, x in zip(names, scores))
    return (
        f"Ratings received (the mean over the other agents): {rated}"
        + (f" ({MISSING}: none readable, {MISSING_CONFIDENCE:g} used)" if None in scores else "")
        + ".\n\n"
    )


def answers_markdown(
    round: int,
    turns: Sequence[Turn],
    fmt: AnswerFormat,
    opts: CortexOptions,
    models: Mapping[str, str] | None = None,
    flips: Mapping[str, str] | None = None,
) -> str:
    """The round's answers and confidences; `models` (`viewer_text.agent_models`): each agent's
    model, shown where they differ; `flips`: the class of each agent's change of answer."""
    rows = [
        [
            t.agent,
            viewer_text.answer_cell(t.answer, fmt.describe),
            _f(t.stated_confidence) if t.stated_confidence is not None else MISSING,
            _f(t.confidence),
            ", ".join(t.read) or "–",
        ]
        for t in turns
    ]
    paper = (
        "the initial answers, the paper's round 0"
        if round == 1
        else f"the paper's debate round {round - 1}"
    )
    head = ["agent", "answer", "confidence", "recalibrated", "read"]
    bands = opts.recalibration
    recalibrated = (
        f"recalibrated: the confidence in bands (≥ {bands[0]:g} → {bands[0]:g}, "
        f"≥ {bands[1]:g} → {bands[1]:g}, < {bands[2]:g} → {bands[2]:g}, else as stated)"
        if bands
        else "recalibrated: as stated (recalibration=none)"
    )
    notes = ["confidence: as the reply states it", recalibrated]
    if any(t.stated_confidence is None for t in turns):
        notes.append(f"{MISSING}: no confidence stated, {MISSING_CONFIDENCE:g} used")
    if any(t.answer is None for t in turns):
        notes.append(f"{viewer_text.ABSTAINED}: no readable answer")
    if round > 1:
        notes.append("read: the peers whose previous answers the agent read")
    head = viewer_text.flip_column(head, rows, flips or {}, notes)
    return (
        f"**Round {round} answers** ({paper})\n\n{viewer_text.agent_table(head, rows, {2, 3}, models)}\n\n"
        + "; ".join(notes)
        + "."
    )


def vote_markdown(
    tally: Tally, final: str | None, rule: str, fmt: AnswerFormat, opts: CortexOptions
) -> str:
    if rules.all_distinct(tally):
        why = "no answer: every agent answered differently (no fallback)"
    elif tally.tie:
        why = "no answer: a tie, and tie_break=none"
    else:
        why = "no answer (all abstained)"
    tie_rule = (
        "a tie gives no answer (tie_break=none)"
        if opts.tie_break == "none"
        else "a tie goes to the tied answer of the lowest-numbered agent"
    )
    table = viewer_text.vote_table(tally, fmt.describe, no_winner=why, tie_rule=tie_rule)
    table += " If every agent answered differently there is no answer: no fallback."
    if rule == "medoid" and final is not None:
        return (
            f"**Medoid rule** → **{fmt.describe(final)}**: free-text answers, so the answer most "
            f"similar to the others wins (freeform_vote=medoid), not the majority below.\n\n"
            f"{table}"
        )
    return table

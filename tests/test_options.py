"""Every solver, scorer and task option is typed, ranged and capped before the first model call.

Each factory is called with one bad value at a time, of every kind a user can send: a word where a
number belongs, a float or a bool where an integer belongs (`True` is an int in Python), `maybe`
for a bool, NaN and infinity, zero, negatives, and counts past their cap. The message must be
exactly `invalid <kind> option '<name>': got <value>, allowed: <what is allowed>`. Every option of
every factory has cases here: a new option without a check fails `test_every_option_is_covered`.
"""

from __future__ import annotations

import inspect as pyinspect
import math
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import ChatMessage, ModelOutput, ModelUsage, get_model
from inspect_ai.solver import SolverSpec, TaskState
from inspect_ai.util import registry_info
from test_listing import registered

import mad_tasks._registry
from mad_tasks.engine import checks as opt
from mad_tasks.engine.catalogue import CATALOGUE
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.methods.pd3.options import PD3Options
from mad_tasks.engine.methods.tod.options import NO_AUTHORS_FORM, TREE_STAGES
from mad_tasks.scorers._options import ScorerOptionError
from mad_tasks.scorers.answers import final_answer
from mad_tasks.scorers.decision_stats import decision_stats
from mad_tasks.scorers.judge_metrics import judge_agreement
from mad_tasks.scorers.judges import more_judge, samre_judge
from mad_tasks.scorers.longbench import longbench_score
from mad_tasks.scorers.mathvista import mathvista_answer
from mad_tasks.scorers.method import method
from mad_tasks.scorers.pd3 import dup_origin, dup_weighted, retrieval_at_k
from mad_tasks.scorers.squad import squad_contains, squad_exact, squad_f1
from mad_tasks.scorers.tod import (
    tod_breadth,
    tod_contextualization,
    tod_factuality,
    tod_win_breadth,
    tod_win_contextualization,
    tod_win_factuality,
)
from mad_tasks.scorers.transitions import transitions
from mad_tasks.solvers import (
    aad,
    bm25,
    chateval,
    collective_improvement,
    consensus,
    cortex,
    cot,
    dense,
    du_debate,
    group_debate,
    listwise,
    llm_voting,
    more,
    neighbor_debate,
    on_demand,
    pair_pointwise,
    pair_similarity,
    pd3,
    pd3_feedback,
    peer_discussion,
    peer_review,
    pointwise,
    random_k,
    reconcile,
    reranker,
    rouge_l,
    samre,
    self_consistency,
    single,
    single_judge,
    single_stage,
    tod_no_sd,
    tod_no_tree,
    tourrank,
    tree_of_debate,
    two_stage,
    voting,
)
from mad_tasks.tasks.arc_challenge import arc_challenge
from mad_tasks.tasks.autoj_pairwise import autoj_pairwise
from mad_tasks.tasks.competition_math import math as math_task
from mad_tasks.tasks.gpqa import gpqa
from mad_tasks.tasks.gsm_ic import gsm_ic
from mad_tasks.tasks.judgebench import judgebench
from mad_tasks.tasks.longbench import longbench
from mad_tasks.tasks.mathvista import mathvista
from mad_tasks.tasks.mmlu import mmlu
from mad_tasks.tasks.mmlu_pro import mmlu_pro
from mad_tasks.tasks.mt_bench_judge import mt_bench_judge
from mad_tasks.tasks.musr import musr
from mad_tasks.tasks.paper_compare import paper_compare
from mad_tasks.tasks.project_dedup import project_dedup
from mad_tasks.tasks.project_dup_pairs import project_dup_pairs
from mad_tasks.tasks.squad_v2 import squad_v2
from mad_tasks.tasks.strategyqa import strategyqa
from mad_tasks.tasks.tool_math import tool_math

Cases = dict[str, list[tuple[Any, str]]]

# -- bad values of each kind, with what the message must allow ---------------------------------------


def unset(allowed: str, null: str = "unset") -> str:
    return f"{allowed}, or null ({null})"


def ints(low: int, high: int, allowed: str | None = None) -> list[tuple[Any, str]]:
    allowed = allowed or f"an integer from {low} to {high}"
    return [(v, allowed) for v in ("three", 2.5, True, low - 1, high + 1)]


def bools() -> list[tuple[Any, str]]:
    return [(v, "true or false") for v in ("maybe", 1, "true", None)]


def choices(*allowed: str) -> list[tuple[Any, str]]:
    return [(v, ", ".join(allowed)) for v in ("banana", 1, None)]


def positive(allowed: str = "a number > 0") -> list[tuple[Any, str]]:
    return [(v, allowed) for v in ("hot", True, 0, -1, math.nan, math.inf)]


def optional(cases: list[tuple[Any, str]], null: str = "unset") -> list[tuple[Any, str]]:
    return [(v, unset(allowed, null)) for v, allowed in cases if v is not None]


FORMATS = ("choice", "yesno", "number", "text", "math")
GENERATION: Cases = {
    "retries": ints(0, 10),
    "temperature": [
        (v, unset("a number from 0 to 2")) for v in ("hot", True, -1, 2.5, math.nan, math.inf)
    ],
    "max_tokens": optional(ints(1, 1_000_000)),
    "allow_text_only": bools(),
    "budget": optional(ints(1, 1_000_000_000)),
    "look_ahead": bools(),
}
PLACEHOLDERS = {
    "direct": "instruction, question",
    "step_by_step": "instruction, question",
    "debate_update": "instruction, replies",
    "reminder": "instruction",
}


def templates(*names: str) -> list[tuple[Any, str]]:
    allowed = "{name: text} with names from " + ", ".join(f"{n} ({PLACEHOLDERS[n]})" for n in names)
    bad = [
        "ask nicely",
        {"unknown": "text"},
        {"reminder": ""},
        {"reminder": "Answer {question}"} if "question" not in PLACEHOLDERS[names[0]] else
        {names[0]: "{question} {colour}"},
        {"reminder": "{instruction"},
        {"reminder": "{instruction!r}"},
        {"reminder": "{instruction:>9}"},
        {"reminder": "{instruction.__class__}"},
    ]  # fmt: skip
    return [(v, allowed) for v in bad]


TOOL_LIST = "a list of tools from python, bash, text_editor, think, web_search, each once"
ANSWERING: Cases = {
    "answer_format": choices("auto", *FORMATS),
    "answer_form": choices("project", "authors"),
    "templates": templates("direct", "step_by_step", "reminder"),
    "debater": choices("generate", "react"),
    "tools": [(v, TOOL_LIST) for v in ("no_such_tool", ["python", "python"], 5, [1])],
    "sandbox": choices("shared", "per_agent"),
    "turn_messages": ints(1, 200),
    "turn_tokens": optional(ints(1, 1_000_000_000)),
    **GENERATION,
}
# the round-based methods whose agents read each other's replies (engine/peers.py)
PEERS: Cases = {"peers": choices("others", "self", "noise")}
# the multi-round methods with votes or verdicts that may stop adaptively (engine/stability.py)
FRACTION = [(v, "a number > 0 and <= 1") for v in ("hot", True, 0, -0.1, 1.5, math.nan, math.inf)]
STABILITY: Cases = {
    "stop_threshold": FRACTION,
    "stop_stable_rounds": ints(1, 20),
    "stop_min_rounds": ints(1, 20),
    "stop_window": ints(0, 20),
    "stop_em_iterations": ints(1, 1000),
    "stop_em_tolerance": FRACTION,
}
STOP: Cases = {"stop": choices("fixed", "adaptive"), **STABILITY}
EMBEDDER: Cases = {
    "embedder": [
        (v, "hashing[/DIMENSIONS from 1 to 65536], sentence-transformers[/MODEL], openai[/MODEL]")
        for v in ("word2vec", 5, None, "hashing/abc", "hashing/0", "hashing/65537", "hashing/²")
    ]
}


def pair_scorer(option: str) -> Cases:
    return {
        option: [
            (v, "hashing or cross-encoder/<model>")
            for v in ("bge", "cross-encoder", "cross-encoder/ ", "sentence-transformers/x", 3, None)
        ]
    }


VOTING = ("simple", "ranked", "cumulative", "approval", "counting")
CONSENSUS = ("majority", "supermajority", "unanimity")
DISCUSSION: Cases = {
    "agents": ints(1, 32),
    "max_turns": ints(1, 50),
    "vote_turn": ints(1, 5, "an integer from 1 to 5 (max_turns)"),
    "memory_window": ints(0, 50, "an integer from 0 to 50, or full"),
    "personas": choices("expert", "none"),
    "persona_calls": choices("sequential", "concurrent", "one_call"),
    "style": choices("simple", "critical", "reasoning"),
    "extraction": choices("marked", "call"),
    "cot": bools(),
    "strict": bools(),
    "final_from": choices("proposal", "last_agent"),
    "consensus_count": choices("agreements", "latest_solution"),
    "points": ints(1, 1000),
    "allow_fewer": bools(),
    "max_ranks": ints(1, 32),
    "simple_parse": choices("first_number", "all_digits"),
    "vote_retries": ints(0, 20),
    "no_decision": choices("first_agent", "none"),
    "dedupe": bools(),
    "ci_context": choices("messages", "solutions"),
    "challenge": choices(
        "none", "solution", "wrong", "irrelevant", "history", "information", "all"
    ),
    "challenge_adopt": choices("never", "majority"),
    "challenge_irrelevant": choices("call", "fixed"),
    "challenge_no_answer": choices("ask", "skip"),
    "challenge_facts": optional(
        [(v, "a non-empty string") for v in (5, "", " \n")], "no information variant"
    ),
    "challenge_facts_k": ints(1, 20),
    **EMBEDDER,
    **ANSWERING,
    "templates": templates("reminder"),
}
# what every discussion solver takes, then what the voting ones and the memory paradigm add
SHARED = ("agents", "max_turns", "personas", "persona_calls", "extraction", "cot", "embedder", *ANSWERING,
          "challenge", "challenge_adopt", "challenge_irrelevant", "challenge_no_answer",
          "challenge_facts", "challenge_facts_k")  # fmt: skip
VOTES = ("vote_turn", "points", "allow_fewer", "max_ranks", "simple_parse", "vote_retries",
         "no_decision", "dedupe")  # fmt: skip
MEMORY = ("memory_window", "style")


def only(table: Cases, *names: str) -> Cases:
    return {name: table[name] for name in (*SHARED, *names)}


RECALIBRATION = "[high, mid, low] with 1 >= high >= mid >= low >= 0, or none (or null)"
CREDIBILITY = (
    "{agent role or model name: [parameters, pre-training tokens]} with both counts positive "
    "and finite, e.g. {agent_1: [7.6e9, 1.8e13]}, or null (unset)"
)
JURORS = "0 (the judge's score decides alone) or an odd integer from 1 to 15"
COURT: Cases = {
    "jurors": [(v, JURORS) for v in ("five", 2.5, True, -1, 4, 17)],
    "personas": bools(),
    "persona_subset": optional([(v, "an integer") for v in ("abc", 2.5, True)]),
    "juror_debiasing": bools(),
    "jury_tie": choices("second", "judge"),
    "tiebreak": choices("cumulative", "final"),
    "swap": bools(),
    "swap_resolution": choices("tie", "gap"),
    "bias_note": bools(),
    "answer_form": ANSWERING["answer_form"],
    **GENERATION,
}
STANCE = choices("persuade", "truthful")
MORE: Cases = {
    "advocates": ints(1, 10),
    "aggregation": choices("synthesis", "max_score"),
    "advocate_order": choices("sequential", "parallel"),
    "judge_calls": choices("split", "joint"),
    "advocate_stance": STANCE,
    **COURT,
}
SAMRE: Cases = {
    "max_rounds": ints(1, 20),
    "stopping": choices("signed", "code", "adaptive"),
    "summaries": choices("code", "used_only"),
    "advocate_order": choices("sequential", "parallel"),
    "own_defence": choices("hidden", "shown"),
    "eps": optional(positive(), "the preset's value"),
    "window": optional(ints(2, 20), "the preset's value"),
    "min_rounds": optional(ints(1, 20), "the preset's value"),
    "decisive_gap": optional(positive()),
    "token_budget": [(v, unset("an integer >= 1")) for v in ("many", 2.5, True, 0)],
    "summarize": bools(),
    "advocate_stance": STANCE,
    **STABILITY,  # its stop=adaptive is `stopping=adaptive`
    **COURT,
}
TOD_SAMPLING: Cases = {
    "top_p": [(v, "a number > 0 and <= 1") for v in ("hot", True, 0, -1, 1.5, math.nan, math.inf)],
    "structured": bools(),
    "answer_form": [(v, NO_AUTHORS_FORM) for v in ("authors", "Project", None)],
    **GENERATION,
}
STAGE_TEMPERATURES = (
    "{stage: a number from 0 to 2} with stages from claims, relevance, subtopics, present, "
    "respond, revise, expand, synthesis, or null (each stage's default)"
)
TREE: Cases = {
    "k_evidence": ints(1, 20),
    "k_preempt": ints(0, 10),
    "max_claims": ints(1, 10),
    "max_subtopics": ints(1, 10),
    # null is refused while max_depth is null too (every tree solver's default)
    "max_expansions": [
        *optional(ints(0, 30), "no budget"),
        (None, "an integer from 0 to 30 when max_depth is null"),
    ],
    "max_depth": optional(ints(1, 6), "no depth limit"),
    "expand_rule": choices("code", "paper"),
    "subtopics_topic": choices("code", "paper"),
    "tree": bools(),
    "self_deliberation": bools(),
    "retriever": [
        (
            v,
            "lexical (BM25, offline) or bge:<path to a local BAAI/bge-large-en-v1.5 copy, or its "
            "hub name> (needs the embeddings extra)",
        )
        for v in ("bm25", "bge:", "bge: ", "BGE:models/bge", 5, None)
    ],
    "chunk_sentences": ints(1, 20),
    "min_chunk_chars": ints(0, 100_000),
    "cut_at_references": bools(),
    "swap_papers": bools(),
    "parallel_siblings": bools(),
    "stage_temperatures": [
        (v, STAGE_TEMPERATURES)
        for v in (
            "hot",  # not a mapping
            [0.5],
            {},
            {"debate": 0.5},  # not a stage
            {"baseline": 0.4},  # a baseline's stage: the tree never uses it
            {1: 0.5},
            {"present": "hot"},
            {"present": 2.5},
            {"present": -0.1},
            {"present": True},
            {"present": math.nan},
            {"present": 0.1, "revise": None},
        )
    ],
    **TOD_SAMPLING,
}
TEXT = [(v, "a non-empty string") for v in (5, "", " \n", None)]
PROJECTS: Cases = {
    "domain": TEXT,
    "candidate_tokens": ints(1, 100_000),
    "query_tokens": ints(1, 100_000),
    **GENERATION,
}
LISTWISE: Cases = {
    "criteria": TEXT,
    "top_k": ints(1, 50),
    "seed": [(v, "an integer") for v in ("abc", 2.5, True, None)],
    **PROJECTS,
}
PD3: Cases = {
    "set_size": ints(1, 100),
    "group_size": ints(1, 900),
    "grouping": choices("round_robin", "sliding", "random", "traversal"),
    "agents": ints(1, 32),
    "debate_rounds": ints(0, 20),
    "visibility": choices("simultaneous", "sequential"),
    "reasoning": choices("uniform", "diverse"),
    "neutrality": choices("initial", "every_prompt"),
    "extra_asks": bools(),
    "decider": choices("senior", "single"),
    **LISTWISE,
}

SOLVERS: dict[str, tuple[Callable[..., Any], Cases]] = {
    "single": (single, ANSWERING),
    "cot": (cot, ANSWERING),
    "self_consistency": (
        self_consistency,
        {
            "samples": ints(1, 640),
            "match_debate": [
                (
                    v,
                    unset(
                        "AGENTSxROUNDS such as 3x2, with 1 to 32 agents and 1 to 20 rounds; "
                        "tokens:N (N a whole number up to 100,000,000) or dollars:X (X up to 1,000), a "
                        "debate's spend per sample"
                    ),
                )
                for v in (
                    "3 by 2",
                    "0x2",
                    2,
                    "33x1",
                    "1x21",
                    "3x2x1",
                    "9" * 5000 + "x2",
                    "²x2",
                    "tokens:0",
                    "tokens:" + "9" * 5000,
                    "dollars:inf",
                )
            ],
            **ANSWERING,
            "templates": templates("step_by_step", "reminder"),
        },
    ),
    "du_debate": (
        du_debate,
        {
            "agents": ints(1, 32),
            "rounds": ints(1, 20),
            "sequential": bools(),
            "ties": choices("earlier_rounds", "first_agent"),
            **ANSWERING,
            **PEERS,
            **STOP,
            "templates": templates("step_by_step", "debate_update", "reminder"),
        },
    ),
    "voting": (
        voting,
        {"protocol": choices(*VOTING), **only(DISCUSSION, *VOTES, *MEMORY), **PEERS, **STOP},
    ),
    "consensus": (
        consensus,
        {
            "protocol": choices(*CONSENSUS),
            **only(DISCUSSION, "strict", "final_from", "consensus_count", *MEMORY),
            **PEERS,
            **STOP,
        },
    ),
    "aad": (
        aad,
        {
            "protocol": choices(*VOTING, *CONSENSUS),
            **only(DISCUSSION, "strict", "final_from", "consensus_count", *VOTES, *MEMORY),
            **PEERS,
            **STOP,
        },
    ),
    "collective_improvement": (
        collective_improvement,
        {
            "protocol": choices(*VOTING),
            **only(DISCUSSION, "ci_context", *VOTES),
            **PEERS,
            **STOP,
        },
    ),
    "cortex": (
        cortex,
        {
            "agents": ints(2, 32),
            "max_rounds": ints(0, 20),
            "topology": choices("mdm", "full"),
            "credibility": [
                (v, CREDIBILITY)
                for v in (
                    "abc",
                    [1, 2],
                    {"agent_1": [7e9]},
                    {"agent_1": [7e9, -1]},
                    {"agent_1": [math.inf, 1e12]},
                    {"agent_1": [True, 1e12]},
                    {"agent_1": "big"},
                    {1: [7e9, 1e12]},
                )
            ],
            "pruning": choices("mean", "median", "top3", "bottom3", "global"),
            "trust": choices("full", "individual", "self", "peer"),
            "s_mode": choices("smoothed", "literal"),
            "s_smoothing": positive(),
            "participation": choices("in", "out"),
            "recalibration": [
                (v, RECALIBRATION)
                for v in (
                    "banana",
                    5,
                    [0.5, 0.6, 0.3],
                    [0.8, 0.6],
                    [math.nan, 0.5, 0.3],
                    [True, 0.5, 0.3],
                    ["high", "mid", "low"],
                )
            ],
            "show_confidence": bools(),
            "include_self": bools(),
            "scrutiny": bools(),
            "check_round0": bools(),
            "tie_break": choices("lowest_agent_index", "none"),
            "freeform_vote": choices("exact", "medoid"),
            "embed_text": choices("no_confidence", "raw"),
            "similarity": choices("embedding", "cross_encoder", "prompted"),
            **pair_scorer("cross_encoder"),
            **EMBEDDER,
            **ANSWERING,
            **PEERS,
            **STOP,
            "templates": templates("reminder"),
        },
    ),
    "more": (more, MORE),
    "samre": (samre, SAMRE),
    "peer_discussion": (
        peer_discussion,
        {
            "turns": ints(0, 20),
            "final": choices("last_turn", "agreement"),
            "openers": choices("both", "reviewer_1"),
            "swap": bools(),
            "answer_form": ANSWERING["answer_form"],
            **PEERS,
            **GENERATION,
        },
    ),
    "single_judge": (
        single_judge,
        {k: COURT[k] for k in ("swap", "swap_resolution", "bias_note", "answer_form")} | GENERATION,
    ),
    **{s.__name__: (s, TREE) for s in (tree_of_debate, tod_no_tree, tod_no_sd)},
    **{s.__name__: (s, TOD_SAMPLING) for s in (single_stage, two_stage)},
    "pd3": (pd3, {**PD3, **PEERS}),
    "llm_voting": (llm_voting, PD3),  # its groups do not debate: no `peers`
    "listwise": (listwise, LISTWISE),
    "pointwise": (pointwise, {k: v for k, v in LISTWISE.items() if k != "seed"}),
    "tourrank": (
        tourrank,
        {
            **LISTWISE,
            "tournaments": ints(1, 50),
            "stages": [
                (v, "a list of 1 to 10 decreasing positive integers")
                for v in ([20, 20], [0], [], "x", None)
            ],
        },
    ),
    "bm25": (bm25, {"top_k": ints(1, 50)}),
    "rouge_l": (rouge_l, {"top_k": ints(1, 50)}),
    "dense": (dense, {"top_k": ints(1, 50), **EMBEDDER, "instruction": optional(TEXT)}),
    "reranker": (reranker, {"top_k": ints(1, 50), **pair_scorer("reranker")}),
    "random_k": (
        random_k,
        {"top_k": ints(1, 50), "seed": [(v, "an integer") for v in ("abc", 2.5, True, None)]},
    ),
    "pair_similarity": (
        pair_similarity,
        {
            "similarity": choices("rouge_l", "bm25", "dense"),
            "aggregate": choices("max", "avg"),
            **EMBEDDER,
        },
    ),
    "pair_pointwise": (pair_pointwise, {"aggregate": choices("max", "avg"), **PROJECTS}),
    "pd3_feedback": (pd3_feedback, {"samples": ints(1, 10), "conclusion": bools(), **PROJECTS}),
    "peer_review": (
        peer_review,
        {
            "agents": ints(2, 32),
            "cycles": ints(1, 20),
            "confidence": bools(),
            "sequential_reviews": bools(),
            "ties": choices("earlier_rounds", "first_agent"),
            **ANSWERING,
            **PEERS,
            "templates": templates("step_by_step", "reminder"),
        },
    ),
    "group_debate": (
        group_debate,
        {
            "agents": ints(2, 32),
            "groups": ints(1, 16),
            "stages": ints(1, 20),
            "rounds": ints(1, 20),
            "partition": choices("contiguous", "round_robin"),
            **ANSWERING,
            **PEERS,
            "templates": templates("step_by_step", "debate_update", "reminder"),
        },
    ),
    "neighbor_debate": (
        neighbor_debate,
        {
            "agents": ints(3, 32),
            "rounds": ints(1, 20),
            "topology": choices("ring", "star", "full"),
            "degree": ints(2, 31),
            "ties": choices("earlier_rounds", "first_agent"),
            **ANSWERING,
            **PEERS,
            "templates": templates("step_by_step", "debate_update", "reminder"),
        },
    ),
    "on_demand": (
        on_demand,
        {
            "debate": choices(
                "du_debate",
                "voting",
                "consensus",
                "aad",
                "collective_improvement",
                "cortex",
                "reconcile",
                "chateval",
                "peer_review",
                "group_debate",
                "neighbor_debate",
            ),
            "debate_args": [
                (v, "a mapping of the debate's options, e.g. {agents: 3}, or null")
                for v in ("agents=3", 5, {1: 2}, ["agents", 3])
            ],
            "first": choices("single", "cot", "self_consistency"),
            "samples": ints(1, 640),
            "trigger": choices("confidence", "disagreement", "always", "never"),
            "threshold": [
                (v, "a number from 0 to 1, or null (the trigger's default)")
                for v in ("high", True, -0.1, 1.5, math.nan, math.inf)
            ],
            **ANSWERING,
            # the first stage's templates, then the default debate's (du_debate)
            "templates": templates("direct", "step_by_step", "reminder", "debate_update"),
        },
    ),
    "reconcile": (
        reconcile,
        {
            "agents": ints(2, 32),
            "max_rounds": ints(0, 20),
            "shown": choices("top_two", "all"),
            "own_reply": choices("among_others", "apart"),
            **ANSWERING,
            **PEERS,
            **STOP,
            "templates": templates("reminder"),
        },
    ),
    "chateval": (
        chateval,
        {
            "agents": ints(1, 8),
            "turns": ints(1, 20),
            "strategy": choices("one_by_one", "simultaneous", "simultaneous_summarizer"),
            "swap": bools(),
            "verdict": choices("vote", "scores"),
            **ANSWERING,
            **PEERS,
            "templates": templates("reminder"),
        },
    ),
}

REFERENCE: Cases = {
    "reference": [(v, "target, or the name of a metadata field") for v in (5, "", None)],
    "grader_fallback": choices("warn", "error", "allow"),
}
TOD_JUDGE: Cases = {
    "structured": bools(),
    "grader_fallback": choices("warn", "error", "allow"),
    **GENERATION,
}
TOD_PAIRWISE: Cases = {
    "baseline": [
        (
            v,
            "two_stage or single_stage (run within the scorer, once per sample), or "
            "metadata:<field> (a summary in the sample's metadata)",
        )
        for v in ("three_stage", "metadata:", "metadata: ", 1, None)
    ],
    **TOD_JUDGE,
}
SCORERS: dict[str, tuple[Callable[..., Any], Cases]] = {
    "more_judge": (more_judge, {**REFERENCE, **MORE}),
    "samre_judge": (samre_judge, {**REFERENCE, **SAMRE}),
    **{s.__name__: (s, TOD_JUDGE) for s in (tod_factuality, tod_breadth, tod_contextualization)},
    **{
        s.__name__: (s, TOD_PAIRWISE)
        for s in (tod_win_factuality, tod_win_breadth, tod_win_contextualization)
    },
    "final_answer": (
        final_answer,
        {"answer_format": optional(choices(*FORMATS), "the task's format")},
    ),
    "decision_stats": (
        decision_stats,
        {"embedder": optional(EMBEDDER["embedder"], "the recorded figure")},
    ),
    "retrieval_at_k": (retrieval_at_k, {"k": ints(1, 100)}),
    # no options: the table holds them so that one added later must be checked here
    **{
        s.__name__: (s, {})
        for s in (
            dup_origin,
            dup_weighted,
            judge_agreement,
            longbench_score,
            mathvista_answer,
            method,
            squad_contains,
            squad_exact,
            squad_f1,
            transitions,
        )
    },
}

NOWHERE = "nowhere.jsonl"  # a late check would fail on the missing file instead


def subsets(presets: str) -> list[tuple[Any, str]]:
    allowed = f"an integer >= 1, a paper's size: {presets}, or null (all)"
    return [(v, allowed) for v in ("most", 2.5, True, 0)]


def task_options(presets: str, **extra: list[tuple[Any, str]]) -> Cases:
    return {
        "data_path": [(v, unset("a non-empty string")) for v in (5, "", ["a.jsonl"])],
        "subset": subsets(presets),
        "shuffle": optional(bools(), "shuffle only a paper's size"),
        "seed": [(v, "an integer") for v in ("abc", 2.5, True, None)],
        **extra,
    }


PLAIN_TASK: Cases = {
    "data_path": [(v, unset("a non-empty string")) for v in (5, "", ["a.jsonl"])],
    "subset": [(v, "an integer >= 1, or null (all)") for v in ("most", 2.5, True, 0)],
    "shuffle": bools(),
    "seed": [(v, "an integer") for v in ("abc", 2.5, True, None)],
}
PD3_VARIANT = [
    (v, "null with data_path (the directory is one variant)") for v in ("hard", "banana", 1)
]
TASKS: dict[str, tuple[Callable[..., Any], Cases]] = {
    "strategyqa": (strategyqa, {"split": choices("train", "dev"), **PLAIN_TASK}),
    "tool_math": (tool_math, {"size": ints(1, 1000), "seed": ints(0, 2**31 - 1)}),
    "mt_bench_judge": (
        mt_bench_judge,
        {
            "ties": choices("drop", "keep"),
            "revision": [
                (v, unset("a non-empty string", "the Hub's current commit")) for v in (5, "")
            ],
            "category": [
                (
                    v,
                    "all, or one or more (a list or comma-separated) of writing, roleplay, "
                    "reasoning, math, coding, extraction, stem, humanities",
                )
                for v in ("ethics", "", 3, [1], True)
            ],
            **PLAIN_TASK,
        },
    ),
    "mmlu": (mmlu, task_options("voting (375), cortex (100)")),
    "mmlu_pro": (mmlu_pro, task_options("voting (374), cortex (100), cortex_large (1000)")),
    "gpqa": (
        gpqa,
        task_options("voting (250), cortex (100)", variant=choices("diamond", "main", "extended")),
    ),
    "musr": (
        musr,
        task_options(
            "voting (152)",
            domain=choices("murder_mysteries", "object_placements", "team_allocation"),
        ),
    ),
    "arc_challenge": (arc_challenge, task_options("cortex (100)")),
    "squad_v2": (
        squad_v2,
        task_options("voting (373), cortex (100)", contains=bools(), answerable_only=bools()),
    ),
    "autoj_pairwise": (autoj_pairwise, {"ties": choices("drop", "keep"), **PLAIN_TASK}),
    "judgebench": (judgebench, {"split": choices("gpt", "claude"), **PLAIN_TASK}),
    "longbench": (
        longbench,
        task_options(
            "cortex (100), cortex_large (1000)",
            categories=[
                (
                    v,
                    "all, or one or more (a list or comma-separated) of single_doc_qa, "
                    "multi_doc_qa, summarization, few_shot, synthetic, code",
                )
                for v in ("codes", "", 3, [1], True)
            ],
            limit_per_dataset=[
                (v, unset("an integer >= 1", "every record")) for v in ("three", 2.5, True, 0)
            ],
            max_document_chars=optional(ints(1000, 100_000_000), "no cut"),
        ),
    ),
    "gsm_ic": (gsm_ic, task_options("cortex (100)", split=choices("2step", "mstep"))),
    "math": (math_task, task_options("cortex (100), cortex_large (1000)")),
    "mathvista": (mathvista, PLAIN_TASK),
    "paper_compare": (
        paper_compare,
        {
            "kind": choices("all", "method", "task"),
            "cited": choices("all", "yes", "no"),
            **PLAIN_TASK,
        },
    ),
    # with data_path the directory is one variant (the test always gives one; the variant's own
    # values are checked in test_a_bad_pd3_variant_is_refused_before_any_download)
    "project_dedup": (project_dedup, {"variant": PD3_VARIANT, **PLAIN_TASK}),
    "project_dup_pairs": (
        project_dup_pairs,
        {
            "data_path": PLAIN_TASK["data_path"],
            "variant": PD3_VARIANT,
            "pairs": optional(ints(1, 1000), "all eligible"),
            "seed": PLAIN_TASK["seed"],
            "retrieval": choices("human", "method"),
        },
    ),
}


def cases(table: dict[str, tuple[Callable[..., Any], Cases]]) -> list[Any]:
    return [
        pytest.param(name, option, value, allowed, id=f"{name}-{option}-{opt.shown(value)[:30]}")
        for name, (_, options) in table.items()
        for option, bad in options.items()
        for value, allowed in bad
    ]


def message(kind: str, option: str, value: Any, allowed: str) -> str:
    return f"invalid {kind} option '{option}': got {opt.shown(value)}, allowed: {allowed}"


@pytest.mark.parametrize(
    "table, name",
    [(t, n) for t in (SOLVERS, SCORERS, TASKS) for n in t],
)
def test_every_option_is_covered(table, name: str) -> None:
    factory, options = table[name]
    params = pyinspect.signature(factory).parameters.values()
    # a task's `**unknown` takes only the options it refuses (next test)
    named = {p.name for p in params if p.kind is not pyinspect.Parameter.VAR_KEYWORD}
    assert named == set(options)


@pytest.mark.parametrize("name", TASKS)
def test_every_task_refuses_an_option_it_does_not_take(name: str) -> None:
    factory, options = TASKS[name]
    with pytest.raises(OptionError) as err:
        factory(splt="dev")
    taken = ", ".join(pyinspect.signature(factory).parameters)
    assert str(err.value).startswith("invalid task option 'splt': got 'dev', allowed: no such")
    assert all(option in taken for option in options)


def test_the_tables_name_every_registered_solver_scorer_and_task() -> None:
    # a new factory left out of SOLVERS, SCORERS or TASKS would have no option checked here
    # (the catalogue's methods: a test's method, added and removed, stays in Inspect's registry)
    solvers = {
        registry_info(s).name.removeprefix("mad_tasks/"): s
        for name, s in mad_tasks._registry.SOLVERS.items()
        if name in CATALOGUE.names()
    }
    assert {name: factory for name, (factory, _) in SOLVERS.items()} == solvers
    # SCORERS also holds factories of scorer lists, which are not registered (decision_stats)
    scorers = registered("scorer")
    assert {name: SCORERS[name][0] for name in scorers if name in SCORERS} == scorers
    assert {name: factory for name, (factory, _) in TASKS.items()} == registered()


@pytest.mark.parametrize("name, option, value, allowed", cases(SOLVERS))
def test_a_bad_solver_option_is_refused_with_its_name_value_and_range(
    name: str, option: str, value: Any, allowed: str
) -> None:
    factory, _ = SOLVERS[name]
    with pytest.raises(OptionError) as err:
        factory(**{option: value})
    assert str(err.value) == message("solver", option, value, allowed)


@pytest.mark.parametrize(
    "factory, args, option, nodes",
    [
        # the paper-literal max_depth=3 gives 5 + 25 + 125 = 155 nodes; one level more, 780
        (tree_of_debate, {"max_expansions": None, "max_depth": 4}, "max_depth", 780),
        (tod_no_sd, {"max_expansions": None, "max_depth": 4}, "max_depth", 780),
        (
            tree_of_debate,
            {"max_expansions": None, "max_depth": 3, "max_subtopics": 8},
            "max_depth",
            584,
        ),
        (
            tod_no_tree,
            {"max_expansions": None, "max_depth": 6, "tree": True, "max_subtopics": 3},
            "max_depth",
            1092,
        ),
    ],
)
def test_a_tree_over_the_node_cap_is_refused_naming_the_option_and_its_count(
    factory: Callable[..., Any], args: dict[str, Any], option: str, nodes: int
) -> None:
    children = args.get("max_subtopics", 5)
    with pytest.raises(OptionError) as err:
        factory(**args)
    assert str(err.value) == message(
        "solver",
        option,
        args[option],
        f"a value giving a tree of at most 400 debated nodes ({nodes} with {children} subtopics "
        "per expansion)",
    )


@pytest.mark.parametrize(
    "factory, args, option, value, allowed",
    [
        (pd3, {"group_size": 12}, "group_size", 12, "a multiple of set_size (5)"),
        # the default group size of 20 does not split into sets of 3
        (pd3, {"set_size": 3}, "group_size", 20, "a multiple of set_size (3)"),
        (pd3, {"group_size": 10, "top_k": 15}, "top_k", 15, "an integer from 1 to group_size (10)"),
        (llm_voting, {"top_k": 21}, "top_k", 21, "an integer from 1 to group_size (20)"),
    ],
)
def test_pd3_options_that_do_not_fit_together_are_refused_naming_the_option(
    factory: Callable[..., Any], args: dict[str, Any], option: str, value: int, allowed: str
) -> None:
    with pytest.raises(OptionError) as err:
        factory(**args)
    assert str(err.value) == message("solver", option, value, allowed)


def retrieval_state(n: int) -> TaskState:
    projects = [{"id": f"c{i}", "title": f"Project {i}", "text": "A grid study."} for i in range(n)]
    query = {"id": "q", "title": "Query", "text": "A grid study."}
    return TaskState(
        model="mockllm/model", sample_id="q", epoch=1, input="Query\n\nA grid study.",
        messages=[], metadata={"query": query, "candidates": projects},
    )  # fmt: skip


@pytest.mark.parametrize(
    "factory, args, option, allowed",
    [
        (pd3, {"set_size": 4}, "set_size", "a divisor of the number of candidates (30)"),
        (
            pd3,
            {"group_size": 40, "top_k": 5},
            "group_size",
            "a multiple of set_size (5) up to the number of candidates (30)",
        ),
        # sets of 2, groups of 3 sets: C(15, 3) = 455 groups
        (
            pd3,
            {"set_size": 2, "group_size": 6},
            "group_size",
            "a size giving at most 200 groups (455 with 30 candidates in sets of 2, grouping "
            "round_robin)",
        ),
        (
            llm_voting,
            {"set_size": 2, "group_size": 6, "grouping": "random"},
            "group_size",
            "a size giving at most 200 groups (455 with 30 candidates in sets of 2, grouping "
            "random)",
        ),
        # 15 groups of 10 x (1 + 20) + 1 calls
        (
            pd3,
            {"agents": 10, "debate_rounds": 20},
            "debate_rounds",
            "a value giving at most 3000 calls per query (15 groups × 211 calls: agents × (1 + "
            "debate_rounds) + 1)",
        ),
        (listwise, {"top_k": 31}, "top_k", "an integer from 1 to the number of candidates (30)"),
        (bm25, {"top_k": 31}, "top_k", "an integer from 1 to the number of candidates (30)"),
    ],
)
async def test_a_retrieval_sample_its_options_cannot_serve_is_refused_before_any_call(
    factory: Callable[..., Any], args: dict[str, Any], option: str, allowed: str
) -> None:
    # these rules need the sample's candidates (30 here, as in project_dedup): the solver is made,
    # and refuses the sample before its runtime exists (these solvers never use `generate`)
    solve = factory(**args)

    async def generate(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no call is made")

    with pytest.raises(OptionError) as err:
        await solve(retrieval_state(30), generate)
    assert str(err.value) == message("solver", option, args[option], allowed)


@pytest.mark.parametrize("name, option, value, allowed", cases(SCORERS))
def test_a_bad_scorer_option_is_refused_with_an_error_inspect_score_shows(
    name: str, option: str, value: Any, allowed: str
) -> None:
    # not a ValueError: `inspect score` reports that as "couldn't be loaded" and drops the message
    factory, _ = SCORERS[name]
    with pytest.raises(ScorerOptionError) as err:
        factory(**{option: value})
    assert str(err.value) == message("scorer", option, value, allowed)


@pytest.mark.parametrize("name, option, value, allowed", cases(TASKS))
def test_a_bad_task_option_is_refused_before_any_data_is_read(
    name: str, option: str, value: Any, allowed: str
) -> None:
    factory, _ = TASKS[name]
    # a task that reads data is given a file that does not exist (tool_math reads none)
    reads = "data_path" in pyinspect.signature(factory).parameters
    args = {"data_path": NOWHERE, option: value} if reads else {option: value}
    with pytest.raises(OptionError) as err:
        factory(**args)
    assert str(err.value) == message("task", option, value, allowed)


@pytest.mark.parametrize("factory", [project_dedup, project_dup_pairs])
@pytest.mark.parametrize("value", ["banana", "HARD", 1])
def test_a_bad_pd3_variant_is_refused_before_any_download(
    factory: Callable[..., Any], value: Any
) -> None:
    # without data_path: the benchmark would be built from CSFCube after this check
    with pytest.raises(OptionError) as err:
        factory(variant=value)
    assert str(err.value) == message("task", "variant", value, "hard, random, or null (hard)")


# -- good values pass, at the edges of each range ----------------------------------------------------


@pytest.mark.parametrize(
    "make",
    [
        lambda: du_debate(agents=32, rounds=20, retries=10, temperature=0, max_tokens=1),
        lambda: du_debate(agents=1, rounds=1, retries=0, temperature=2, max_tokens=1_000_000),
        lambda: du_debate(temperature=0.7, sequential=True),
        lambda: peer_review(agents=32, cycles=1, confidence=False, sequential_reviews=True),
        lambda: peer_review(agents=2, cycles=20),
        lambda: group_debate(agents=32, groups=16, stages=1, rounds=20, partition="round_robin"),
        lambda: group_debate(agents=2, groups=1, stages=10, rounds=2),
        lambda: neighbor_debate(agents=32, rounds=20, degree=30),
        lambda: neighbor_debate(agents=3, rounds=1, topology="star"),
        lambda: on_demand(debate="cortex", debate_args={"agents": 32, "max_rounds": 20}),
        lambda: on_demand(first="self_consistency", samples=640, trigger="disagreement"),
        lambda: on_demand(first="single", trigger="confidence", threshold=0),
        lambda: on_demand(trigger="never", debate="voting", debate_args={"vote_turn": 1}),
        lambda: self_consistency(samples=640),
        lambda: self_consistency(match_debate="32x20"),
        lambda: self_consistency(match_debate=" 2 X 5 "),
        lambda: self_consistency(match_debate="tokens:100000000"),
        lambda: self_consistency(match_debate="dollars:1000"),
        lambda: voting(agents=10, max_turns=12, vote_turn=10, vote_retries=20, points=1000),
        lambda: voting(memory_window="full", max_ranks=32),
        lambda: voting(memory_window=None, embedder="hashing/65536"),
        lambda: consensus(max_turns=50, memory_window=50),
        lambda: cortex(agents=32, max_rounds=20, recalibration="none"),
        lambda: cortex(max_rounds=0, s_smoothing=0.5, recalibration=[1, 0.5, 0]),
        lambda: cortex(recalibration=["0.9", "0.6", "0.2"]),  # `-S recalibration=0.9,0.6,0.2`
        lambda: cortex(credibility={"agent_1": ["7.6e9", "1.8e13"]}),  # YAML reads 7.6e9 as text
        lambda: more(advocates=10, jurors=15),
        lambda: more(advocates=1, jurors=0),
        lambda: samre(max_rounds=20, window=20, min_rounds=20, eps=0.5, token_budget=1),
        lambda: samre(max_rounds=7, stopping="code", decisive_gap=30),
        lambda: samre(max_rounds=20, stopping="adaptive", stop_window=0, stop_threshold=1),
        lambda: samre(stopping="adaptive", stop_stable_rounds=20, stop_em_tolerance=1, jurors=0),
        lambda: single_judge(swap=True, retries=10),
        lambda: tree_of_debate(
            k_evidence=20,
            k_preempt=10,
            max_claims=10,
            max_subtopics=10,
            max_expansions=30,
            chunk_sentences=20,
            min_chunk_chars=100_000,
            top_p=1,
            stage_temperatures=dict.fromkeys(TREE_STAGES, 2),
        ),
        # a bge path is well-formed; its model loads only where retrieval runs (not in No-SD)
        lambda: tod_no_sd(retriever="bge:models/bge"),
        lambda: tree_of_debate(
            k_evidence=1,
            k_preempt=0,
            max_claims=1,
            max_subtopics=1,
            max_expansions=0,
            chunk_sentences=1,
            min_chunk_chars=0,
            top_p=1e-9,
            stage_temperatures={"present": 0},
        ),
        # no budget: the depth alone bounds the tree, 7 + 49 + 343 = 399 nodes, or a chain of 6
        lambda: tree_of_debate(max_expansions=None, max_depth=3, max_subtopics=7),
        lambda: tod_no_tree(max_expansions=None, max_depth=6, max_subtopics=10),
        lambda: tod_no_sd(max_expansions=30, max_depth=6, max_subtopics=10),
        lambda: single_stage(top_p=1, temperature=2, max_tokens=1_000_000, retries=10),
        lambda: two_stage(structured=False, temperature=0, max_tokens=1, retries=0),
        lambda: pd3(
            set_size=100,
            group_size=900,
            top_k=50,
            agents=32,
            debate_rounds=20,
            candidate_tokens=100_000,
            query_tokens=100_000,
            retries=10,
            seed=-(10**30),
        ),
        lambda: llm_voting(
            set_size=1,
            group_size=1,
            top_k=1,
            agents=1,
            debate_rounds=0,
            candidate_tokens=1,
            query_tokens=1,
            retries=0,
            grouping="sliding",
            visibility="sequential",
        ),
        lambda: listwise(top_k=50, domain="power grid projects", criteria="same method"),
        lambda: bm25(top_k=1),
        lambda: pd3_feedback(samples=10, conclusion=False, candidate_tokens=100_000),
        lambda: pd3_feedback(samples=1, query_tokens=1),
        lambda: retrieval_at_k(k=100),
        lambda: retrieval_at_k(k=1),
    ],
)
def test_values_at_the_edges_of_each_range_are_accepted(make) -> None:
    make()


def test_paper_defaults_and_ablations_fit_the_caps() -> None:
    # Du et al.: 3 agents x 2 rounds; "Voting or Consensus?": up to 10 agents, votes after turns
    # 1-10 with max_turns = vote_turn + 2, 10 vote retries; CortexDebate: 5 agents, D = 5;
    # D3: k = 3 advocates, juries of 1-7, SAMRE's code R_max = 7.
    du_debate(agents=3, rounds=2)
    for turn in range(1, 11):
        voting(agents=10, vote_turn=turn, max_turns=turn + 2, vote_retries=10)
    cortex(agents=5, max_rounds=5)
    # seed 001's comparison methods: 5 agents, up to 5 rounds (PRD 3 agents, GroupDebate 4 in 2
    # groups, Li et al. 6 agents on a ring of degree 2)
    peer_review(agents=3, cycles=1)
    peer_review(agents=5, cycles=5)
    group_debate(agents=4, groups=2)
    group_debate(agents=5, groups=2, stages=3, rounds=2)  # as `mad-tasks reproduce` runs it
    neighbor_debate(agents=6, degree=2)
    neighbor_debate(agents=5, rounds=6)
    for jurors in (1, 3, 5, 7):
        more(advocates=3, jurors=jurors)
    samre(max_rounds=7, stopping="code")
    # Tree-of-Debate: the code's budget of 3 (No-Tree: 5), and the paper's depth limit of 3
    tree_of_debate(max_expansions=3)
    tod_no_tree(max_expansions=5)
    tree_of_debate(max_expansions=None, max_depth=3)
    # PD³ on 30 candidates in sets of 5: K = 5, M = 20, 3 experts, 2 rounds; its sweeps of M
    # (10 to 30), experts (2 to 5) and rounds (1 to 4), here even all at once (at most 520 calls)
    for group_size in (10, 15, 20, 25, 30):
        for agents in (2, 3, 4, 5):
            for rounds in (1, 2, 3, 4):
                args = {"group_size": group_size, "agents": agents, "debate_rounds": rounds}
                pd3(**args)
                PD3Options(**args).check_candidates(30)
        PD3Options(group_size=group_size, decider="single").check_candidates(30)


# -- the checkers themselves --------------------------------------------------------------------------


def test_a_bool_is_not_an_integer_and_an_integer_is_not_a_bool() -> None:
    with pytest.raises(OptionError, match=r"got True, allowed: an integer from 1 to 3$"):
        opt.integer("agents", True, 1, 3)
    with pytest.raises(OptionError, match=r"got 1, allowed: true or false$"):
        opt.boolean("swap", 1)
    assert opt.integer("agents", 3, 1, 3) == 3 and opt.boolean("swap", False) is False


def test_a_huge_integer_is_shown_without_converting_all_its_digits() -> None:
    with pytest.raises(OptionError) as err:
        opt.integer("rounds", 10**5000, 1, 20)
    assert str(err.value) == (
        "invalid option 'rounds': got an integer of 16610 bits, allowed: an integer from 1 to 20"
    )


def test_a_long_value_is_shortened_in_the_message() -> None:
    with pytest.raises(OptionError) as err:
        opt.one_of("style", "x" * 10_000, ("simple",))
    assert len(str(err.value)) < 200 and "..." in str(err.value)


def test_an_option_error_survives_pickling() -> None:
    # Inspect may carry an error across processes; it must keep its message and fields
    err = OptionError("agents", "three", "an integer from 1 to 32", "task")
    copy = pickle.loads(pickle.dumps(err))
    assert str(copy) == str(err) and copy.option == "agents" and copy.kind == "task"


# -- end to end: a bad option stops the eval before its first model call ---------------------------


def counting_model(calls: list[str]):
    def reply(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        calls.append(input[-1].text)
        out = ModelOutput.from_content(model="mockllm/model", content="ANSWER: yes")
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    return get_model("mockllm/model", custom_outputs=reply)


@pytest.mark.parametrize(
    "args, message_part",
    [
        ({"agents": 2.5}, "'agents': got 2.5, allowed: an integer from 1 to 32"),
        ({"temperature": "hot"}, "'temperature': got 'hot'"),
        ({"max_tokens": 0}, "'max_tokens': got 0"),
        ({"sequential": "maybe"}, "'sequential': got 'maybe', allowed: true or false"),
        ({"rounds": 10000}, "'rounds': got 10000, allowed: an integer from 1 to 20"),
    ],
)
def test_a_bad_option_stops_the_eval_before_any_model_call(
    tmp_path: Path, args: dict[str, Any], message_part: str
) -> None:
    calls: list[str] = []
    task = Task(dataset=MemoryDataset([Sample(input="Is water wet?", target="yes")]))
    # as `inspect eval --solver mad_tasks/du_debate -S ...` builds the solver
    spec = SolverSpec("mad_tasks/du_debate", args, args)
    with pytest.raises(OptionError, match=message_part):
        eval(
            task,
            solver=spec,
            model=counting_model(calls),
            display="none",
            log_dir=str(tmp_path / "logs"),
        )
    assert calls == []
    assert not (tmp_path / "logs").exists() or not any((tmp_path / "logs").iterdir())


def test_the_same_eval_with_good_options_does_call_the_model(tmp_path: Path) -> None:
    # the counterpart of the test above: the mock counts real calls
    calls: list[str] = []
    task = Task(dataset=MemoryDataset([Sample(input="Is water wet?", target="yes")]))
    args = {"agents": 2, "rounds": 1}
    [log] = eval(
        task,
        solver=SolverSpec("mad_tasks/du_debate", args, args),
        model=counting_model(calls),
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "success" and len(calls) == 2


def test_a_number_past_any_float_is_refused_by_name() -> None:
    # an int of 309 digits or more: no float holds it, so float() would raise OverflowError
    huge = 10**400
    with pytest.raises(OptionError, match="invalid solver option 'eps': got 1000"):
        samre(eps=huge)
    with pytest.raises(OptionError, match="invalid solver option 'decisive_gap'"):
        samre(decisive_gap=huge)

"""CortexDebate on a scripted runtime: who reads whom, call counts, stop rules, votes and records.

Replies depend on the call's agent and round only, never on call order. Each reply carries a
marker `[agent_k@rd]`, so a prompt shows whose output it holds; the fake embedder maps an agent's
marker to a fixed unit vector whose dot products are the spec's §1.6 similarities.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest
from scripted import (
    ScriptedRuntime,
    last_user,
    prefix_share,
    recorded,
    serialized,
    transcript_text,
)

from mad_tasks.engine.answers import Choice, FreeText, YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question, media_of
from mad_tasks.engine.methods.cortex.debate import (
    cortex,
    initial_prompt,
    regeneration_prompt,
)
from mad_tasks.engine.methods.cortex.options import CortexOptions
from mad_tasks.engine.methods.cortex.records import CortexRecord, ModelSize
from mad_tasks.engine.methods.cortex.similarity import read_similarity
from mad_tasks.engine.protocols import cortex as rules
from mad_tasks.engine.records import DebateResult
from mad_tasks.engine.requests import AnswerRequest, ConfidenceRequest, SimilarityRequest
from mad_tasks.engine.runtime import Call, Reply, Usage
from mad_tasks.engine.session import Problem, Session

QUESTION = "Is the Eiffel Tower taller than the Great Pyramid of Giza?"
YESNO = Problem(Question.of([QUESTION]), YesNo())
SIM = np.array(
    [
        [1.0, 0.9, 0.6, 0.5],
        [0.9, 1.0, 0.8, 0.7],
        [0.6, 0.8, 1.0, 0.4],
        [0.5, 0.7, 0.4, 1.0],
    ]
)
VECTORS = np.linalg.cholesky(SIM)  # row i . row j = SIM[i][j]
GOLDEN_CONFIDENCES = ["0.95", "0.7", "0.45", "0.1"]
GOLDEN_HEADS = {
    "agent_1": ["agent_3", "agent_4"],
    "agent_2": ["agent_3", "agent_4"],
    "agent_3": ["agent_1"],
    "agent_4": ["agent_1"],
}
MARKER = re.compile(r"\[agent_(\d+)@r(\d+)\]")
IMAGE_TOKENS = 1000  # what the script charges for a non-text part of a call


@dataclass(frozen=True)
class Image:
    """A non-text part: the engine must pass it through untouched."""

    src: str


IMG = Image("red.png")
PICTURE = Problem(Question.of(["Look:", IMG, "Is it red?"]), YesNo())


def marker(agent: str, round: int) -> str:
    return f"[{agent}@r{round}]"


def names(n: int) -> list[str]:
    return [f"agent_{i + 1}" for i in range(n)]


class FakeEmbedder:
    """Agent k's output embeds to row k of VECTORS (with `converge`, from round 2 on, all agents to
    one vector: similarity 1); text without a marker embeds to a zero vector."""

    name = "fake"

    def __init__(self, fail: bool = False, converge: bool = False) -> None:
        self.fail = fail
        self.converge = converge
        self.batches: list[list[str]] = []

    async def embed(self, texts: Sequence[str]) -> np.ndarray:
        self.batches.append(list(texts))
        if self.fail:
            raise ConnectionError("embedding service unreachable")
        rows = []
        for text in texts:
            m = MARKER.search(text)
            if m is None:
                rows.append(np.zeros(VECTORS.shape[1]))
            elif self.converge and int(m.group(2)) >= 2:
                rows.append(VECTORS[0])
            else:
                rows.append(VECTORS[int(m.group(1)) - 1])
        return np.array(rows)


def script(answers, confidences=None, unparseable=()):
    """Reply by (agent, round): `answers[(agent, round)]` or `answers[agent]` or `answers[round]`.

    Usage: one input token per text character of the call's messages and IMAGE_TOKENS per
    non-text part, so token figures are exact.
    """

    def pick(table, agent: str, round: int, default=None):
        if table is None:
            return default
        for key in ((agent, round), agent, round):
            if key in table:
                return table[key]
        return default

    def reply(call: Call) -> Reply:
        tag = marker(call.agent, call.round)
        if (call.agent, call.round) in unparseable and call.attempt == 0:
            text = f"EXPLANATION: {tag} still thinking.\nCONFIDENCE: 0.2"
        else:
            answer = pick(answers, call.agent, call.round)
            conf = pick(confidences, call.agent, call.round, "0.5")
            conf_line = f"\nCONFIDENCE: {conf}" if conf is not None else ""
            text = f"EXPLANATION: {tag} my reasoning.{conf_line}\nANSWER: {answer}"
        tokens = sum(len(m.text) + IMAGE_TOKENS * len(media_of(m.content)) for m in call.messages)
        return Reply(text, Usage(input_tokens=tokens, output_tokens=len(text)))

    return reply


async def run(reply, problem=YESNO, embedder=None, retries=2, **options):
    opts = CortexOptions(**{"agents": 4, "max_rounds": 1, **options})
    rt = ScriptedRuntime(reply)
    embedder = embedder or FakeEmbedder()
    result = await cortex(Session(rt, problem, retries=retries), opts, embedder)
    return rt, result


def disagree(n: int = 4) -> dict:
    """Answers that never reach unanimity: agent 1 says no, the others yes."""
    return {a: ("no" if a == "agent_1" else "yes") for a in names(n)}


def golden_confidences() -> dict:
    return {(f"agent_{i + 1}", 1): c for i, c in enumerate(GOLDEN_CONFIDENCES)}


# -- the golden vector, end to end ---------------------------------------------------------------------


async def test_golden_vector_first_debate_round_graph() -> None:
    _, result = await run(script(disagree(), golden_confidences()))
    [graph] = recorded(result)["graphs"]
    assert graph["R"] == pytest.approx([0.8, 0.6, 0.45, 0.3])
    assert graph["S"] == [1.0, 1.0, 1.0, 1.0]
    np.testing.assert_allclose(graph["I"], 1 - SIM)
    # equal credibility is 1.0 here, so every weight is twice the spec's (C = 0.5): same pruning
    expected = [
        [None, 0.08, 0.32, 0.40],
        [0.06, None, 0.12, 0.18],
        [0.18, 0.09, None, 0.27],
        [0.15, 0.09, 0.18, None],
    ]
    for row, want in zip(graph["W"], expected):
        assert [w if w is None else pytest.approx(w) for w in want] == row
    assert graph["tail_means"] == pytest.approx([0.13, 0.26 / 3, 0.62 / 3, 0.85 / 3])
    assert graph["heads"] == GOLDEN_HEADS
    assert graph["edges"] == [[0, 2], [0, 3], [2, 0], [2, 1], [3, 0], [3, 1]]
    assert graph["participation_in"] == [2, 2, 1, 1]
    assert graph["participation_out"] == [2, 0, 2, 2]
    assert recorded(result)["credibility"]["mode"] == "equal"


async def test_prompt_holds_exactly_the_kept_heads_previous_outputs_never_its_own() -> None:
    rt, result = await run(script(disagree(), golden_confidences()))
    for agent in names(4):
        prompt = last_user(rt.first_call(agent, 2))
        shown = {f"agent_{m.group(1)}" for m in MARKER.finditer(prompt)}
        assert shown == set(GOLDEN_HEADS[agent])
        assert marker(agent, 1) not in prompt
        assert prompt.count("--- peer ---") == len(GOLDEN_HEADS[agent])
        assert "CONFIDENCE: 0." not in prompt  # neighbours' confidences are hidden (A7)
        assert len(rt.first_call(agent, 2).messages) == 1  # one fresh turn, no history
        read = tuple(disagree()[head] for head in GOLDEN_HEADS[agent])
        assert rt.first_call(agent, 2).asks == AnswerRequest(YESNO.fmt, read, confidence=True)
    assert [t["read"] for t in recorded(result)["turns"][1]] == list(GOLDEN_HEADS.values())


async def test_initial_prompts_are_identical_and_independent() -> None:
    rt, _ = await run(script(disagree()))
    first = [rt.first_call(a, 1) for a in names(4)]
    assert {c.messages[0].content for c in first} == {initial_prompt(YESNO.question, YesNo())}
    assert {c.asks for c in first} == {AnswerRequest(YESNO.fmt, confidence=True)}
    assert all(c.purpose == "initial" and c.role == c.agent for c in first)
    assert all(not MARKER.search(transcript_text(c)) for c in first)


async def test_second_debate_round_uses_running_means_and_participation() -> None:
    confidences = {**golden_confidences(), 2: "0.65"}  # every agent: 0.65 -> 0.6 in round 2
    rt, result = await run(script(disagree(), confidences), max_rounds=2)
    _, g2 = recorded(result)["graphs"]
    assert g2["R"] == pytest.approx([(0.8 + 0.6) / 2, 0.6, (0.45 + 0.6) / 2, (0.3 + 0.6) / 2])
    assert g2["S"] == [2.0, 2.0, 3.0, 3.0]  # 3 - P_in + 1
    np.testing.assert_allclose(g2["I"], 1 - SIM)  # the same similarities in both rounds
    # round 3 reads round-2 outputs only
    for agent in names(4):
        prompt = last_user(rt.first_call(agent, 3))
        rounds = {m.group(2) for m in MARKER.finditer(prompt)}
        assert rounds == {"2"}
        assert marker(agent, 2) not in prompt
        assert recorded(result)["graphs"][1]["heads"][agent] == [
            f"agent_{m.group(1)}" for m in MARKER.finditer(prompt)
        ]


async def test_intimacy_is_one_minus_the_running_mean_of_similarity() -> None:
    embedder = FakeEmbedder(converge=True)  # initial similarities SIM, then 1 for every pair
    _, result = await run(script(disagree()), embedder=embedder, max_rounds=3)
    g1, g2, g3 = recorded(result)["graphs"]
    np.testing.assert_allclose(g1["I"], 1 - SIM)
    np.testing.assert_allclose(g2["I"], 1 - (SIM + 1) / 2, atol=1e-12)
    np.testing.assert_allclose(g3["I"], 1 - (SIM + 2) / 3, atol=1e-12)


async def test_second_debate_round_weights_by_hand() -> None:
    confidences = {**golden_confidences(), 2: "0.65"}
    _, result = await run(script(disagree(), confidences), max_rounds=2)
    g2 = recorded(result)["graphs"][1]
    R, S, I = [0.7, 0.6, 0.525, 0.45], [2, 2, 3, 3], 1 - SIM
    for i in range(4):
        for j in range(4):
            if i != j:
                assert g2["W"][i][j] == pytest.approx(R[i] * I[i][j] / S[i])
    W = [[math.nan if i == j else R[i] * I[i][j] / S[i] for j in range(4)] for i in range(4)]
    keep = rules.prune(W)
    assert g2["heads"] == {
        f"agent_{j + 1}": [f"agent_{i + 1}" for i in rules.heads(keep, j)] for j in range(4)
    }
    P = [a + b for a, b in zip([2, 2, 1, 1], rules.participation(keep, "in"))]
    assert g2["participation_in"] == P


async def test_participation_out_changes_the_second_debate_rounds_s() -> None:
    _, result = await run(
        script(disagree(), golden_confidences()), max_rounds=2, participation="out"
    )
    assert recorded(result)["graphs"][1]["S"] == [2.0, 4.0, 2.0, 2.0]  # 3 - P_out + 1
    assert result.options["participation"] == "out"


async def test_literal_s_makes_the_first_debate_round_a_full_mesh() -> None:
    rt, result = await run(script(disagree(), golden_confidences()), s_mode="literal")
    [graph] = recorded(result)["graphs"]
    assert graph["S"] == [0.0, 0.0, 0.0, 0.0]
    assert all(w == "inf" for i, row in enumerate(graph["W"]) for j, w in enumerate(row) if i != j)
    assert graph["keep"] == [[int(i != j) for j in range(4)] for i in range(4)]
    for agent in names(4):
        assert last_user(rt.first_call(agent, 2)).count("--- peer ---") == 3
    json.dumps(result.to_dict(), allow_nan=False)  # no infinities leak into the record


# -- call counts and stop rules ----------------------------------------------------------------------


@pytest.mark.parametrize("n, rounds", [(4, 3), (5, 5), (2, 1)])
async def test_without_consensus_exactly_d_rounds_run(n: int, rounds: int) -> None:
    rt, result = await run(script(disagree(n)), agents=n, max_rounds=rounds)
    assert len(rt.calls) == n * (rounds + 1)
    for agent in names(n):
        assert [c.round for c in rt.calls_of(agent)] == list(range(1, rounds + 2))
    assert recorded(result)["rounds_executed"] == rounds
    assert recorded(result)["stop_reason"] == "max_rounds"
    assert len(recorded(result)["graphs"]) == rounds
    assert rt.spans == [f"round {r}" for r in range(1, rounds + 2)]


async def test_unanimity_in_the_first_debate_round_stops_the_debate() -> None:
    answers = {**{(a, 1): ("no" if a == "agent_2" else "yes") for a in names(4)}, 2: "yes"}
    rt, result = await run(script(answers), max_rounds=5)
    assert len(rt.calls) == 8
    assert recorded(result)["stop_reason"] == "consensus"
    assert recorded(result)["rounds_executed"] == 1
    assert result.final == "yes"


async def test_unanimity_in_the_second_debate_round_stops_there() -> None:
    answers = {1: "yes", 2: "no", 3: "yes", ("agent_1", 2): "yes"}
    rt, result = await run(script(answers), max_rounds=5)
    assert len(rt.calls) == 12
    record = recorded(result)
    assert (record["stop_reason"], record["rounds_executed"]) == ("consensus", 2)


async def test_unanimous_initial_answers_do_not_stop_by_default() -> None:
    rt, result = await run(script({1: "yes", 2: "yes"}), max_rounds=5)
    assert len(rt.calls) == 8  # a debate round always runs (Alg. 1 checks inside the loop only)
    assert recorded(result)["stop_reason"] == "consensus"


async def test_check_round0_stops_before_any_debate() -> None:
    rt, result = await run(script({1: "yes"}), max_rounds=5, check_round0=True)
    assert len(rt.calls) == 4
    assert recorded(result)["stop_reason"] == "consensus_round0"
    assert recorded(result)["graphs"] == [] and recorded(result)["rounds_executed"] == 0
    assert result.final == "yes"


async def test_check_round0_without_agreement_debates_as_usual() -> None:
    rt, result = await run(script(disagree()), max_rounds=2, check_round0=True)
    assert len(rt.calls) == 12 and recorded(result)["stop_reason"] == "max_rounds"


async def test_an_abstention_breaks_unanimity() -> None:
    answers = {1: "yes", 2: "yes", ("agent_3", 2): None, 3: "yes"}
    _rt, result = await run(script(answers), max_rounds=2, retries=0)
    assert recorded(result)["rounds_executed"] == 2  # round 2 had an abstention: no consensus
    assert recorded(result)["stop_reason"] == "consensus"


async def test_zero_rounds_is_majority_voting() -> None:
    rt, result = await run(script({**disagree(), "agent_2": "no", "agent_3": "no"}), max_rounds=0)
    assert len(rt.calls) == 4 and recorded(result)["graphs"] == []
    assert result.final == "no"


# -- the final vote --------------------------------------------------------------------------------


CHOICE = Problem(Question.of(["Pick one.\n\nA) a\nB) b\nC) c\nD) d"]), Choice(("a", "b", "c", "d")))


async def test_last_round_majority_wins_over_earlier_rounds() -> None:
    answers = {1: "A", ("agent_1", 2): "B", ("agent_2", 2): "B", ("agent_3", 2): "C", ("agent_4", 2): "A"}  # fmt: skip
    _, result = await run(script(answers), problem=CHOICE)
    assert result.final == "B" and not result.tally.tie


async def test_tie_goes_to_lowest_agent_index() -> None:
    answers = {1: "A", ("agent_1", 2): "C", ("agent_2", 2): "B", ("agent_3", 2): "B", ("agent_4", 2): "C"}  # fmt: skip
    _rt, result = await run(script(answers), problem=CHOICE)
    assert (result.final, result.tally.tie) == ("C", True)
    assert recorded(result)["vote"] == {"rule": "majority", "all_distinct": False, "tie": True}


async def test_tie_break_none_gives_no_answer() -> None:
    answers = {1: "A", ("agent_1", 2): "C", ("agent_2", 2): "B", ("agent_3", 2): "B", ("agent_4", 2): "C"}  # fmt: skip
    rt, result = await run(script(answers), problem=CHOICE, tie_break="none")
    assert result.final is None
    assert "tie_break=none" in dict(rt.infos)["vote"]


async def test_all_distinct_answers_give_no_answer() -> None:
    answers = {1: "A", ("agent_1", 2): "A", ("agent_2", 2): "B", ("agent_3", 2): "C", ("agent_4", 2): "D"}  # fmt: skip
    rt, result = await run(script(answers), problem=CHOICE)
    assert result.final is None
    assert recorded(result)["vote"]["all_distinct"] is True
    assert "every agent answered differently" in dict(rt.infos)["vote"]


async def test_medoid_vote_for_free_text() -> None:
    problem = Problem(Question.of(["Name the city."]), FreeText())
    answers = {1: "x", ("agent_1", 2): "Paris France", ("agent_2", 2): "Paris",
               ("agent_3", 2): "Lyon", ("agent_4", 2): "Paris city"}  # fmt: skip

    class WordEmbedder:
        name = "words"

        async def embed(self, texts):
            vocab = ["paris", "france", "lyon", "city", "marker"]
            m = np.array([[float(w in t.lower()) for w in vocab] for t in texts]) + 1e-9
            return m / np.linalg.norm(m, axis=1, keepdims=True)

    _, exact = await run(script(answers), problem=problem, embedder=WordEmbedder())
    assert exact.final is None  # four different strings
    _, medoid = await run(
        script(answers), problem=problem, embedder=WordEmbedder(), freeform_vote="medoid"
    )
    assert medoid.final == "Paris"
    assert recorded(medoid)["vote"]["rule"] == "medoid"


# -- confidences -------------------------------------------------------------------------------------


async def test_missing_confidence_counts_as_neutral_and_is_flagged() -> None:
    _, result = await run(script(disagree(), {"agent_2": None, "agent_3": "85%"}))
    initial = recorded(result)["turns"][0]
    assert (initial[1]["stated_confidence"], initial[1]["confidence"]) == (None, 0.5)
    assert (initial[2]["stated_confidence"], initial[2]["confidence"]) == (0.85, 0.8)
    assert recorded(result)["graphs"][0]["R"][1] == 0.5


async def test_recalibration_can_be_switched_off() -> None:
    _, result = await run(script(disagree(), golden_confidences()), recalibration=None)
    assert recorded(result)["graphs"][0]["R"] == pytest.approx([0.95, 0.7, 0.45, 0.1])


async def test_show_confidence_and_include_self() -> None:
    rt, _ = await run(
        script(disagree(), golden_confidences()), show_confidence=True, include_self=True
    )
    prompt = last_user(rt.first_call("agent_3", 2))
    assert "CONFIDENCE: 0.95" in prompt  # agent_1's line, shown on request
    assert prompt.index(marker("agent_3", 1)) < prompt.index("--- peer ---")  # own answer first
    assert prompt.count("--- yours ---") == 1 and prompt.count("--- peer ---") == 1
    # its own answer and its head's (agent_1)
    assert rt.first_call("agent_3", 2).asks.shown == ("yes", "no")


# -- credibility --------------------------------------------------------------------------------------


async def test_chinchilla_credibility_when_every_size_is_known() -> None:
    sizes = (ModelSize(7.61e9, 18e12), ModelSize(8.03e9, 15e12), ModelSize(9.24e9, 8e12), ModelSize(7.24e9, 2e12))  # fmt: skip
    _, result = await run(script(disagree(), golden_confidences()), sizes=sizes)
    cred = recorded(result)["credibility"]
    assert cred["mode"] == "chinchilla"
    assert cred["C"] == pytest.approx([rules.credibility(s.params, s.tokens) for s in sizes])
    W = recorded(result)["graphs"][0]["W"]
    assert W[0][2] == pytest.approx(cred["C"][0] * 0.8 * 0.4)


async def test_partly_known_sizes_fall_back_to_equal_credibility() -> None:
    sizes = (ModelSize(7.61e9, 18e12), None, ModelSize(9.24e9, 8e12), None)
    _, result = await run(script(disagree(), golden_confidences()), sizes=sizes)
    assert recorded(result)["credibility"] == {
        "mode": "equal", "C": [1.0] * 4, "unknown": ["agent_2", "agent_4"], "sizes": [],
    }  # fmt: skip
    assert recorded(result)["graphs"][0]["heads"] == GOLDEN_HEADS


# -- embeddings ------------------------------------------------------------------------------------


async def test_embedded_text_has_no_confidence_line_unless_raw() -> None:
    embedder = FakeEmbedder()
    await run(script(disagree(), golden_confidences()), embedder=embedder)
    assert all("CONFIDENCE" not in t for t in embedder.batches[0])
    raw = FakeEmbedder()
    await run(script(disagree(), golden_confidences()), embedder=raw, embed_text="raw")
    assert all("CONFIDENCE" in t for t in raw.batches[0])


async def test_failing_embedder_is_a_warning_not_a_crash() -> None:
    rt, result = await run(
        script(disagree(), golden_confidences()), embedder=FakeEmbedder(fail=True)
    )
    [graph] = recorded(result)["graphs"]
    assert graph["I"] == [[1.0] * 4] * 4  # cos taken as 0
    assert "embedding service unreachable" in recorded(result)["warnings"][0]
    assert "warning" in rt.info_titles()
    assert result.final == "yes"


async def test_nan_similarity_counts_as_zero() -> None:
    class NaNEmbedder:
        name = "nan"

        async def embed(self, texts):
            return np.full((len(texts), 3), np.nan)

    _, result = await run(script(disagree()), embedder=NaNEmbedder())
    [graph] = recorded(result)["graphs"]
    assert graph["I"] == [[1.0] * 4] * 4
    assert graph["keep"] == [[int(i != j) for j in range(4)] for i in range(4)]  # equal weights


async def test_zero_embeddings_count_as_no_similarity() -> None:
    def unmarked(call: Call) -> Reply:
        return Reply("EXPLANATION: nothing special.\nCONFIDENCE: 0.5\nANSWER: yes", Usage(10, 2))

    _, result = await run(unmarked)
    assert recorded(result)["graphs"][0]["I"] == [[1.0] * 4] * 4


# -- token accounting and the full-mesh counterfactual ----------------------------------------------


def shown(agent: str, round: int, answer: str) -> str:
    """What a neighbour reads of a scripted output: the confidence line is left out."""
    return f"EXPLANATION: {marker(agent, round)} my reasoning.\nANSWER: {answer}"


async def test_counterfactual_is_the_full_mesh_prompt_size_of_every_call() -> None:
    _, result = await run(script(disagree(), golden_confidences()))
    context = recorded(result)["context"]
    calls = {(c["agent"], c["round"]): c for c in context["per_call"]}
    answer = disagree()
    for agent in names(4):
        others = [shown(a, 1, answer[a]) for a in names(4) if a != agent]
        full = len(regeneration_prompt(YESNO.question, YesNo(), others))
        kept = [shown(a, 1, answer[a]) for a in GOLDEN_HEADS[agent]]
        actual = len(regeneration_prompt(YESNO.question, YesNo(), kept))
        c = calls[(agent, 2)]
        assert (c["input_tokens"], c["full_mesh_input_tokens"]) == (actual, full)
        assert c["neighbours"] == len(GOLDEN_HEADS[agent])
        c0 = calls[(agent, 1)]
        assert (
            c0["input_tokens"]
            == c0["full_mesh_input_tokens"]
            == len(initial_prompt(YESNO.question, YesNo()))
        )
    total = sum(c["input_tokens"] for c in context["per_call"])
    full_total = sum(c["full_mesh_input_tokens"] for c in context["per_call"])
    assert (context["input_tokens"], context["full_mesh_input_tokens"]) == (total, full_total)
    assert context["ratio"] == pytest.approx(total / full_total) and context["ratio"] < 1
    assert context["round0_input_tokens"] == 4 * len(initial_prompt(YESNO.question, YesNo()))
    assert context["per_agent"]["agent_1"]["calls"] == 2
    assert total == sum(c.input_tokens for c in result.calls)


async def test_counterfactual_of_a_retry_adds_the_same_left_out_text() -> None:
    _rt, result = await run(script(disagree(), golden_confidences(), unparseable={("agent_3", 2)}))
    retry = [
        c
        for c in recorded(result)["context"]["per_call"]
        if c["agent"] == "agent_3" and c["round"] == 2
    ]
    assert [c["attempt"] for c in retry] == [0, 1]
    assert retry[1]["input_tokens"] > retry[0]["input_tokens"]
    gap = [c["full_mesh_input_tokens"] - c["input_tokens"] for c in retry]
    assert gap[0] == gap[1] > 0
    # the follow-up's confidence line (0.5) replaces the first reply's 0.2
    assert recorded(result)["turns"][1][2]["stated_confidence"] == 0.5


async def test_full_topology_reads_everyone_and_costs_at_least_as_much() -> None:
    answers = disagree()
    _rt_mdm, mdm = await run(script(answers, golden_confidences()), max_rounds=3)
    rt_full, full = await run(script(answers, golden_confidences()), max_rounds=3, topology="full")
    for agent in names(4):
        for r in (2, 3, 4):
            assert last_user(rt_full.first_call(agent, r)).count("--- peer ---") == 3
    assert all(len(h) == 3 for g in recorded(full)["graphs"] for h in g["heads"].values())

    def by_call(r):
        return {(c.agent, c.round, c.attempt): c.input_tokens for c in r.calls}

    mdm_calls, full_calls = by_call(mdm), by_call(full)
    assert mdm_calls.keys() == full_calls.keys()
    assert all(full_calls[k] >= mdm_calls[k] for k in mdm_calls)
    assert sum(full_calls.values()) > sum(mdm_calls.values())
    assert recorded(full)["context"]["ratio"] == 1.0
    # the counterfactual of the sparse run is exactly the full run's cost on this script
    assert recorded(mdm)["context"]["full_mesh_input_tokens"] == sum(full_calls.values())


# -- viewer and records ---------------------------------------------------------------------------


async def test_every_round_has_a_span_a_graph_and_an_answer_table() -> None:
    rt, _result = await run(script(disagree(), golden_confidences()), max_rounds=2)
    assert rt.spans == ["round 1", "round 2", "round 3"]
    assert rt.info_titles() == ["round 1", "graph 2", "round 2", "graph 3", "round 3", "vote"]
    assert all(r.span == f"round {r.call.round}" for r in rt.recorded)
    graph = dict(rt.infos)["graph 2"]
    # a row per reader: W from each peer, * on the kept edges, the row's mean, whom it reads
    assert "\nagent_2    0.080        –   0.090*   0.090*  0.087  agent_3, agent_4\n" in graph
    assert "\nagent_3   0.320*    0.120        –    0.180  0.207  agent_1\n" in graph
    assert "the paper's debate round 1" in graph  # the paper's numbering beside the record's
    assert "the paper's round 0" in dict(rt.infos)["round 1"]
    answers = dict(rt.infos)["round 2"]
    assert "\nagent_1  no           0.500         0.500  agent_3, agent_4\n" in answers


async def test_record_round_trips_through_json() -> None:
    _, result = await run(script(disagree(), golden_confidences()), max_rounds=2)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert DebateResult.from_dict(data) == DebateResult.from_dict(result.to_dict())
    assert data["method"] == "cortex"
    assert data["options"]["topology"] == "mdm" and data["options"]["embedder"] == "fake"
    assert len(data["answers"]) == 12 and data["record"]["rounds_executed"] == 2


async def test_rounds_count_the_initial_answers_and_the_stats_read_the_record() -> None:
    # agent_2 says no at first, then every agent says yes: unanimity in the first debate round
    answers = {**{(a, 1): ("no" if a == "agent_2" else "yes") for a in names(4)}, 2: "yes"}
    _, result = await run(script(answers), max_rounds=3)
    data = json.loads(json.dumps(result.to_dict(), allow_nan=False))
    assert DebateResult.from_dict(data) == result
    record = result.record
    assert isinstance(record, CortexRecord) and result.to_dict()["record"]["kind"] == "cortex"
    # the paper's one debate round after its round 0: two answer rounds, one change of answer
    assert (record.rounds_executed, result.rounds, result.answer_changes()) == (1, 2, 1)
    assert result.stats()["rounds"] == 2
    stats = record.stats()
    input_tokens = sum(c.input_tokens for c in result.calls)
    assert stats == {
        "debate_rounds": 1, "consensus": 1, "all_distinct": 0,
        "edge_density": len(record.graphs[0].edges) / (4 * 3),
        "input_tokens": input_tokens,
        "full_mesh_input_tokens": record.context.full_mesh_input_tokens,
        "context_ratio": input_tokens / record.context.full_mesh_input_tokens,
        "input_tokens_per_call": input_tokens / 8, "input_tokens_per_agent": input_tokens / 4,
    }  # fmt: skip
    assert 0 < stats["edge_density"] < 1 and stats["context_ratio"] < 1


# -- the whole input: non-text parts and prompt caches ---------------------------------------------


async def test_every_call_shows_the_question_with_its_image_in_place() -> None:
    # agent_3 needs a follow-up in round 2: the retry resends the prompt, image included
    reply = script(disagree(), golden_confidences(), unparseable={("agent_3", 2)})
    rt, _ = await run(reply, problem=PICTURE, max_rounds=2, include_self=True)
    assert len(rt.calls) == 4 * 3 + 1
    for call in rt.calls:
        media = [p for m in call.messages for p in media_of(m.content)]
        assert len(media) == 1 and media[0] is IMG  # the part itself, once
        prompt = call.messages[0].content  # the question opens the prompt
        assert prompt[:2] == ("Look:", IMG) and prompt[2].startswith("Is it red?\n\n")
    # the wording is the text-only prompt's, the image between the question's two texts
    text_only = Question.of(["Look:\nIs it red?"])
    first = rt.first_call("agent_1", 1).messages[0]
    assert first.text == initial_prompt(text_only, YesNo())
    assert first.content == initial_prompt(PICTURE.question, YesNo())
    later = rt.first_call("agent_3", 3).messages[0].text
    assert later.startswith("Look:\nIs it red?\n\nHere are your own previous answer")


async def test_the_similarity_ratings_show_the_question_with_its_image_in_place() -> None:
    """similarity prompted's rating calls present the question too, every part of it, first."""

    def reply(call: Call) -> Reply:
        if isinstance(call.asks, SimilarityRequest):
            return Reply("Alike.\nSIMILARITY: 0.5", Usage(10, 2))
        return script(disagree())(call)

    rt, _ = await run(reply, problem=PICTURE, similarity="prompted")
    rated = [c for c in rt.calls if isinstance(c.asks, SimilarityRequest)]
    assert len(rated) == 6
    assert_question_first_with_its_image(rated)


def assert_question_first_with_its_image(calls: list[Call]) -> None:
    for call in calls:
        media = [p for m in call.messages for p in media_of(m.content)]
        assert len(media) == 1 and media[0] is IMG
        assert call.messages[0].content[:2] == ("Look:", IMG)


async def test_the_peer_ratings_show_the_question_with_its_image_in_place() -> None:
    """trust peer's rating calls present the question too, every part of it, first."""
    rt, _ = await run(script(disagree()), problem=PICTURE, trust="peer", pruning="global")
    rates = [c for c in rt.calls if isinstance(c.asks, ConfidenceRequest)]
    assert len(rates) == 12
    assert_question_first_with_its_image(rates)


async def test_full_mesh_counterfactual_prices_the_left_out_text_without_the_image() -> None:
    # the script charges each text character one token and the image IMAGE_TOKENS: the text
    # pruning left out must cost what it costs without the image, one token a character
    def run_on(problem):
        return run(script(disagree(), golden_confidences()), problem=problem, max_rounds=2)

    _, pictured = await run_on(PICTURE)
    _, text_only = await run_on(Problem(Question.of(["Look:\nIs it red?"]), YesNo()))

    def per_call(result):
        return {(c["agent"], c["round"]): c for c in recorded(result)["context"]["per_call"]}

    with_image, without = per_call(pictured), per_call(text_only)
    assert with_image.keys() == without.keys() and len(without) == 12
    for key, c in without.items():
        assert with_image[key]["input_tokens"] == c["input_tokens"] + IMAGE_TOKENS
        gap = c["full_mesh_input_tokens"] - c["input_tokens"]
        assert with_image[key]["full_mesh_input_tokens"] - with_image[key]["input_tokens"] == gap
        assert gap > 0 if key[1] > 1 else gap == 0


async def test_calls_share_a_long_questions_prefix() -> None:
    document = "Context: " + "lorem ipsum " * 2000 + "\nQuestion: Is the text repetitive?"
    problem = Problem(Question.of([document]), YesNo())
    rt, _ = await run(script(disagree(), golden_confidences()), problem=problem, max_rounds=2)
    prompts = [serialized([(m.role, m.content) for m in c.messages]) for c in rt.calls]
    assert len(prompts) == 12
    assert prefix_share(prompts) >= 0.8


def test_the_regeneration_prompt_is_the_papers_unless_scrutiny_is_asked() -> None:
    """Eq. 13 offers the other answers "as additional information"; asking agents to check their
    reasoning is ours, an option off by default."""
    question = Question.of(["Is water wet?"])
    paper = regeneration_prompt(question, YesNo(), ["yes, because ..."])
    ours = regeneration_prompt(question, YesNo(), ["yes, because ..."], scrutiny=True)
    assert "Use them as additional information, then answer the question yourself." in paper
    assert "rather than trusting" not in paper
    assert "check their reasoning rather than trusting it, then answer" in ours
    assert CortexOptions().record()["scrutiny"] is False


async def test_trust_individual_weighs_edges_by_credibility_and_reliability_alone() -> None:
    """Table 2's "MDM w/o I and S": W = C·R (C = 1 here), so every tail keeps the heads whose
    reliability is at least its row's mean, whatever their similarity; the pruning rule and the
    trust terms are in the record and the graph event."""
    rt, result = await run(script(disagree(), golden_confidences()), trust="individual")
    [graph] = recorded(result)["graphs"]
    R = [0.8, 0.6, 0.45, 0.3]
    for i, row in enumerate(graph["W"]):  # head i's weight to every tail: C·R_i
        assert row == [None if j == i else pytest.approx(R[i]) for j in range(4)]
    assert result.options["trust"] == "individual" and result.options["pruning"] == "mean"
    [(_, text)] = [(t, d) for t, d in rt.infos if t == "graph 2"]
    assert "pruning `mean`, trust `individual`" in text
    _, top = await run(script(disagree(), golden_confidences()), pruning="top3")
    assert all(len(h) == 3 for h in recorded(top)["graphs"][0]["heads"].values())


async def test_trust_self_prunes_by_each_heads_own_confidence_against_the_whole_graph() -> None:
    """Table 2's self-evaluation (App. E): a head's weight is its own latest recalibrated
    confidence, and every agent reads the heads at or above the whole graph's mean (here the
    mean of 0.8, 0.6, 0.45 and 0.3, 0.5375: agents 1 and 2), never itself."""
    rt, result = await run(script(disagree(), golden_confidences()), trust="self", pruning="global")
    [graph] = recorded(result)["graphs"]
    R = [0.8, 0.6, 0.45, 0.3]
    for i, row in enumerate(graph["W"]):
        assert row == [None if j == i else pytest.approx(R[i]) for j in range(4)]
    assert graph["heads"] == {
        "agent_1": ["agent_2"],
        "agent_2": ["agent_1"],
        "agent_3": ["agent_1", "agent_2"],
        "agent_4": ["agent_1", "agent_2"],
    }
    for agent, heads in graph["heads"].items():
        prompt = last_user(rt.first_call(agent, 2))
        assert {f"agent_{m.group(1)}" for m in MARKER.finditer(prompt)} == set(heads)
    assert result.options["trust"] == "self" and result.options["pruning"] == "global"
    [(_, text)] = [(t, d) for t, d in rt.infos if t == "graph 2"]
    assert "latest recalibrated confidence (trust self" in text
    assert "at or above the whole graph's mean, 0.537" in text


async def test_trust_peer_weighs_each_head_by_the_others_ratings_of_its_answer() -> None:
    """Table 2's peer evaluation (App. E): before each debate round every agent rates every
    other agent's latest answer (never its own), all at once; a head's weight is the mean rating
    it got (an unreadable one left out), pruned against the whole graph's mean."""
    ratings = {"agent_1": "0.9", "agent_2": "0.7", "agent_3": "0.2", "agent_4": "0.4"}
    answer = script(disagree(), golden_confidences())

    def reply(call: Call) -> Reply:
        if not isinstance(call.asks, ConfidenceRequest):
            return answer(call)
        rated = call.purpose.removeprefix("rate ")
        if (call.agent, rated) == ("agent_2", "agent_1"):
            return Reply("It looks fine, I cannot say more.", Usage(10, 2))  # unreadable
        return Reply(f"Checked.\nCONFIDENCE: {ratings[rated]}", Usage(10, 2))

    rt = ScriptedRuntime(reply)
    opts = CortexOptions(agents=4, max_rounds=1, trust="peer", pruning="global")
    result = await cortex(Session(rt, YESNO, retries=1), opts, FakeEmbedder())
    rates = [c for c in rt.calls if isinstance(c.asks, ConfidenceRequest)]
    assert sorted((c.agent, c.purpose) for c in rates if c.attempt == 0) == sorted(
        (f"agent_{j}", f"rate agent_{i}") for i in range(1, 5) for j in range(1, 5) if i != j
    )
    assert len(rt.calls) == 4 + 12 + 1 + 4  # the unreadable rating asked again once
    for call in (c for c in rates if c.attempt == 0):
        rated = call.purpose.removeprefix("rate ")
        shown = last_user(call)
        assert marker(rated, 1) in shown and marker(call.agent, 1) not in shown
        assert call.round == 2 and call.asks.answer == disagree()[rated]
    [graph] = recorded(result)["graphs"]
    assert graph["peer_scores"] == pytest.approx([0.9, 0.7, 0.2, 0.4])
    assert graph["heads"] == {
        "agent_1": ["agent_2"],
        "agent_2": ["agent_1"],
        "agent_3": ["agent_1", "agent_2"],
        "agent_4": ["agent_1", "agent_2"],
    }
    [(_, text)] = [(t, d) for t, d in rt.infos if t == "graph 2"]
    assert "Ratings received (the mean over the other agents): agent_1 0.900" in text
    with pytest.raises(OptionError, match=r"'trust'.*at most 2000"):
        CortexOptions(agents=20, max_rounds=10, trust="peer")


# -- Tables 3 and 4: what the agents read and what they revised --------------------------------------


def record_of(result: DebateResult) -> CortexRecord:
    assert isinstance(result.record, CortexRecord)
    return result.record


async def test_collisions_revisions_and_debates_count_what_each_agent_read() -> None:
    """Full graph, 4 agents: agent_1 answers no (wrong), the others yes. In the debate round each
    of the others reads agent_1's differing no (3 collisions) and agent_1 reads three yeses (3):
    6 collisions; agent_1 revises to yes having read them, the one revision to a right answer;
    every agent read 3 heads."""
    answers = {("agent_1", 1): "no", **dict.fromkeys(names(4), "yes")}
    _, result = await run(script(answers), max_rounds=2, topology="full")
    record = record_of(result)
    assert record.rounds_executed == 1 and record.consensus  # all yes after one debate round
    key = YesNo().key
    assert record.collisions(key) == 6
    assert record.revisions(key, {"yes"}) == 1
    assert record.revisions(key, {"no"}) == 0  # yes is wrong here: nobody turned right
    assert [record.debates(a) for a in names(4)] == [3, 3, 3, 3]


async def test_an_abstention_is_no_viewpoint_to_collide_with() -> None:
    """An agent without an answer the round before has no viewpoint to collide (so its turn to a
    right answer is no revision); a head without one is no viewpoint either."""
    answers = {("agent_1", 1): "maybe not", **dict.fromkeys(names(4), "yes")}
    _, result = await run(script(answers), max_rounds=2, topology="full", retries=0)
    record = record_of(result)
    assert record.turns[0][0].answer is None
    assert record.collisions(YesNo().key) == 0 and record.revisions(YesNo().key, {"yes"}) == 0


# -- Table 10: the similarity of two outputs rated by a prompted model (R1-P) ------------------------


async def test_prompted_similarity_rates_each_pair_once_and_feeds_the_intimacy() -> None:
    """`similarity=prompted`: before each debate round one call per pair of outputs (i < j), on the
    role `similarity`, showing both outputs without their confidence lines; I = 1 - the rating
    (the running mean of one round); an unreadable rating, asked again once, counts as 0 with a
    warning; no embedding is computed."""
    rating = {("agent_1", "agent_2"): "0.8", ("agent_3", "agent_4"): "0.4"}
    answer = script(disagree(), golden_confidences())

    def reply(call: Call) -> Reply:
        if not isinstance(call.asks, SimilarityRequest):
            return answer(call)
        pair = tuple(call.agent.removeprefix("similarity ").split("~"))
        if pair == ("agent_1", "agent_3"):
            return Reply("They differ somewhat.", Usage(10, 2))  # unreadable
        return Reply(f"Compared.\nSIMILARITY: {rating.get(pair, '0.5')}", Usage(10, 2))

    class NoEmbedder(FakeEmbedder):
        async def embed(self, texts):  # type: ignore[no-untyped-def]
            pytest.fail("prompted similarity embeds nothing")

    rt = ScriptedRuntime(reply)
    opts = CortexOptions(agents=4, max_rounds=1, similarity="prompted")
    result = await cortex(Session(rt, YESNO, retries=1), opts, NoEmbedder())
    rated = [c for c in rt.calls if isinstance(c.asks, SimilarityRequest)]
    pairs = [(f"agent_{i}", f"agent_{j}") for i in range(1, 5) for j in range(i + 1, 5)]
    assert sorted(c.agent for c in rated if c.attempt == 0) == [
        f"similarity {a}~{b}" for a, b in pairs
    ]
    assert {c.role for c in rated} == {"similarity"} and len(rated) == 6 + 1
    for call in (c for c in rated if c.attempt == 0):
        a, b = call.agent.removeprefix("similarity ").split("~")
        shown = last_user(call)
        assert marker(a, 1) in shown and marker(b, 1) in shown and "CONFIDENCE" not in shown
        assert call.round == 2 and call.asks.answers == (disagree()[a], disagree()[b])
    [graph] = recorded(result)["graphs"]
    I = graph["I"]
    assert I[0][1] == I[1][0] == pytest.approx(0.2) and I[2][3] == pytest.approx(0.6)
    assert I[0][2] == pytest.approx(1.0) and I[1][3] == pytest.approx(0.5)
    assert record_of(result).warnings == [
        "round 2: no readable similarity of agent_1 and agent_3; taken as 0"
    ]
    assert result.options["similarity"] == "prompted"
    with pytest.raises(OptionError, match=r"'similarity'.*at most 1000"):
        CortexOptions(agents=20, max_rounds=10, similarity="prompted")


async def test_a_cross_encoder_similarity_scores_each_pair_once_and_a_failure_counts_0() -> None:
    """`similarity=cross_encoder` (Table 10's DeTS): the scorer gets each pair i < j of the
    outputs without their confidence lines, once a round; I = 1 - its score; a scorer that fails
    makes every similarity 0, with a warning, and the debate goes on."""
    seen: list[list[tuple[str, str]]] = []

    class Pairs:
        name = "cross-encoder/fake"

        async def score(self, pairs):  # type: ignore[no-untyped-def]
            seen.append(list(pairs))
            return [0.25 * (k + 1) if k < 3 else 0.0 for k in range(len(pairs))]

    class NoEmbedder(FakeEmbedder):
        async def embed(self, texts):  # type: ignore[no-untyped-def]
            pytest.fail("a cross-encoder similarity embeds nothing")

    rt = ScriptedRuntime(script(disagree(), golden_confidences()))
    opts = CortexOptions(agents=4, max_rounds=1, similarity="cross_encoder")
    result = await cortex(Session(rt, YESNO), opts, NoEmbedder(), Pairs())
    [pairs] = seen
    assert len(pairs) == 6 and all("CONFIDENCE" not in a + b for a, b in pairs)
    assert marker("agent_1", 1) in pairs[0][0] and marker("agent_2", 1) in pairs[0][1]
    [graph] = recorded(result)["graphs"]
    assert graph["I"][0][1] == graph["I"][1][0] == pytest.approx(0.75)  # pair (1, 2): 0.25
    assert graph["I"][0][3] == pytest.approx(0.25) and graph["I"][2][3] == pytest.approx(1.0)

    class Broken(Pairs):
        async def score(self, pairs):  # type: ignore[no-untyped-def]
            raise RuntimeError("out of memory")

    rt = ScriptedRuntime(script(disagree(), golden_confidences()))
    result = await cortex(Session(rt, YESNO), opts, NoEmbedder(), Broken())
    [graph] = recorded(result)["graphs"]
    assert all(
        x == pytest.approx(1.0)
        for i, row in enumerate(graph["I"])
        for j, x in enumerate(row)
        if i != j
    )
    assert (
        "cross-encoder cross-encoder/fake failed (RuntimeError: out of memory)"
        in record_of(result).warnings[0]
    )
    with pytest.raises(OptionError, match=r"'cross_encoder'.*set only with similarity"):
        CortexOptions(cross_encoder="cross-encoder/x")


@pytest.mark.parametrize(
    ("reply", "value"),
    [
        ("They agree.\nSIMILARITY: 0.8", 0.8),
        ("**Similarity score**: 75%", 0.75),
        ("SIMILARITY: 0.2\nOn reflection:\nSIMILARITY: 0.9", 0.9),  # the last line
        ("SIMILARITY: 150", None),  # out of range: never clamped
        ("SIMILARITY: 15", 0.15),  # the confidence grammar: a bare 1-100 is a percentage
        ("SIMILARITY: maybe 0.7", None),  # a hedge
        ("SIMILARITY: 0.6-0.8", None),  # a range
        ("SIMILARITY: high", None),
        ("CONFIDENCE: 0.9", None),  # another label
        ("", None),
        ("SIMILARITY: " + "9" * 200_000, None),
    ],
)
def test_read_similarity(reply: str, value: float | None) -> None:
    assert read_similarity(reply) == (None if value is None else pytest.approx(value))

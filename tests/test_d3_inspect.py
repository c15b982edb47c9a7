"""The D3 judges inside Inspect: the mt_bench_judge task with each judge solver, model roles, the
position-swap metric, the debate-judge scorers in an eval and after the fact, the task's data
loading and ties, and option checks. Models are `madsim` or `mockllm` replying by prompt content,
always with token usage."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest
from inspect_ai import Task, eval, score
from inspect_ai._util.registry import registry_info, registry_lookup
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.log import EvalLog, EvalSample, resolve_sample_attachments
from inspect_ai.model import (
    ChatMessage,
    ChatMessageUser,
    ContentImage,
    ContentText,
    Model,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.solver import TaskState, prompt_template
from scripted import family
from testdata import MT_BENCH_PAIRS, shared
from testdata import STRATEGYQA as STRATEGYQA_DEV

from mad_tasks.engine.checks import OptionError
from mad_tasks.engine.content import Question
from mad_tasks.engine.methods.d3.court import Pair
from mad_tasks.engine.methods.d3.options import SamreOptions
from mad_tasks.engine.requests import (
    DefenceRequest,
    FeedbackRequest,
    Request,
    ScoreRequest,
    VerdictRequest,
)
from mad_tasks.inspect_runtime import current_call
from mad_tasks.scorers._options import ScorerOptionError
from mad_tasks.scorers.answers import final_answer
from mad_tasks.scorers.judges import more_judge, samre_judge
from mad_tasks.solvers import consensus, du_debate, more, samre, single, single_judge
from mad_tasks.solvers.answer_pair import pair_of
from mad_tasks.tasks import mt_bench_judge as mt
from mad_tasks.tasks.mt_bench_judge import CATEGORIES, category_of, hub_sample, mt_bench_judge
from mad_tasks.tasks.strategyqa import strategyqa

PAIRS = MT_BENCH_PAIRS
STORE_KEY = "mad_tasks:debate"


def metrics(log: EvalLog, scorer: str) -> dict[str, float]:
    return {
        name: m.value
        for s in log.results.scores
        if s.scorer == scorer
        for name, m in s.metrics.items()
    }


def figures(log: EvalLog) -> dict[str, float]:
    """Every figure's mean by its name (`tie`, `rounds`), and every other metric by its own."""
    return {
        s.name if name == "mean" else name: m.value
        for s in log.results.scores
        for name, m in s.metrics.items()
    }


def events(sample: EvalSample, kind: str) -> list:
    return [e for e in sample.events if e.event == kind]


def judge_task(limit: int = 4) -> Task:
    return mt_bench_judge(data_path=str(PAIRS), subset=limit)


# -- mt_bench_judge with each judge on the simulated model -----------------------------------------


@pytest.mark.parametrize(
    "solver, calls, spans",
    [
        # the authors' judge: feedback, then scores (judge_calls=split)
        # A's team argues and merges first, then B's (advocate_order=sequential)
        (more(), 15, ["advocates A", "merge A", "advocates B", "merge B", "judge", "jury"]),
        (samre(max_rounds=2), None, ["round 1", "jury"]),
        (single_judge(), 1, ["judge"]),
    ],
)
def test_judges_on_mt_bench_pairs(run, solver, calls: int | None, spans: list[str]) -> None:
    log = run(judge_task(), solver=solver, model="madsim/x")
    m = figures(log)
    assert {"accuracy", "cohen_kappa", "tie", "rounds", "input_tokens"} <= set(m)
    assert {"judge_longer", "human_longer", "calls", "first_verdict_correct"} <= set(m)
    assert m["input_tokens"] > 0
    method = registry_info(solver).name.split("/")[1]
    # swap is off, and only samre has a round limit to stop before: no figure of what never ran
    assert "position_consistent" not in m and ("early_stop" in m) == (method == "samre")
    assert not {"first_majority_correct", "agent_fixes", "votes"} & set(m)
    for sample in log.samples:
        record = sample.store[STORE_KEY]
        assert record["method"] == method
        assert sample.output.completion == f"ANSWER: {record['final']}"
        assert record["final"] in ("A", "B", "tie")
        model_calls = events(sample, "model")
        assert len(model_calls) == (calls or len(record["calls"]))
        assert {family(e.role) for e in model_calls} <= {"advocate", "judge", "juror"}
        names = [e.name for e in events(sample, "span_begin")]
        assert all(name in names for name in spans)
        infos = [e.source for e in events(sample, "info")]
        assert infos[-1] == "verdict"
        assert ("jury" in infos) is (method != "single_judge")
        score = sample.scores["judge_agreement"]
        assert score.answer == record["final"] and score.metadata["gold"] == sample.target
        assert score.metadata["tokens"] == sum(
            e.output.usage.input_tokens + e.output.usage.output_tokens for e in model_calls
        )
    if method == "samre":
        assert 1 <= m["rounds"] <= 2 and 0 <= m["early_stop"] <= 1


def test_accurate_judges_agree_with_people(run) -> None:
    task = mt_bench_judge(data_path=str(PAIRS), shuffle=True, seed=3, subset=6)
    assert {s.target for s in task.dataset} == {"A", "B"}
    log = run(task, solver=samre(), model="madsim/x", model_args={"accuracy": 1.0})
    m = figures(log)
    assert (m["accuracy"], m["cohen_kappa"], m["tie"]) == (1.0, 1.0, 0.0)
    # the code's window needs 3 rounds; the simulated totals jitter by a few points, which keeps
    # some pairs going (a window whose gaps strictly rise or fall is not steady)
    assert (m["rounds"], m["early_stop"]) == (3.5, 5 / 6)


def test_judge_role_runs_on_its_own_model(run) -> None:
    log = run(
        judge_task(2),
        solver=more(advocates=1, jurors=3),
        model="madsim/x",
        model_roles={"judge": "madsim/strong"},
    )
    used = {(e.role, e.model) for s in log.samples for e in events(s, "model")}
    court = {"advocate_1": "madsim/x", "judge": "madsim/strong"}
    court |= {f"juror_{i}": "madsim/x" for i in (1, 2, 3)}  # each juror a member of the jury
    assert used == set(court.items())
    assert set(log.stats.role_usage) == set(court)


def test_short_solver_names_resolve() -> None:
    for name in ("more", "samre", "single_judge"):
        assert registry_lookup("solver", name) is not None
        assert registry_info(registry_lookup("solver", name)()).name == f"mad_tasks/{name}"
    for name in ("more_judge", "samre_judge", "judge_agreement"):
        assert registry_lookup("scorer", f"mad_tasks/{name}") is not None
    assert registry_lookup("task", "mad_tasks/mt_bench_judge") is not None


# -- the position swap, on a mock judge that favours the first answer shown ------------------------


def mock(reply: Callable[[str], str]) -> Model:
    def output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        out = ModelOutput.from_content(
            model="mockllm/model", content=reply("\n".join(m.text for m in input))
        )
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    return get_model("mockllm/model", custom_outputs=output)


def asked() -> Request | None:
    """What the call in flight asks for: the engine's description of it, which any model sees."""
    call = current_call.get()
    return call.asks if call else None


def in_court() -> bool:
    """Whether the call in flight is an advocate's, the judge's or a juror's."""
    return isinstance(asked(), (DefenceRequest, FeedbackRequest, ScoreRequest, VerdictRequest))


def court_reply(prefer: Callable[[str, str, str], str]) -> Callable[[str], str]:
    """A judge and jury that prefer `prefer(answer shown first, answer shown second, prompt)`."""

    def reply(prompt: str) -> str:
        asks = asked()
        if isinstance(asks, DefenceRequest):
            return f"Answer {asks.side} is the better one."
        if isinstance(asks, FeedbackRequest):  # the judge's feedback call gives no scores
            return "Each defence could say more about the question."
        assert isinstance(asks, (ScoreRequest, VerdictRequest))
        side = prefer(asks.a, asks.b, prompt)
        if isinstance(asks, ScoreRequest):
            return "ANSWER: (90, 70)" if side == "A" else "ANSWER: (70, 90)"
        return f"Juror reasoning.\nANSWER: {side}"

    return reply


def first_shown(a: str, b: str, prompt: str) -> str:
    return "A"


def test_position_bias_gives_zero_consistency_and_ties(run) -> None:
    log = run(
        judge_task(3), solver=more(advocates=1, swap=True), model=mock(court_reply(first_shown))
    )
    m = figures(log)
    assert (m["position_consistent"], m["tie"], m["accuracy"]) == (0.0, 1.0, 0.0)
    for sample in log.samples:
        assert sample.store[STORE_KEY]["record"]["position_consistent"] is False
        assert {e.name for e in events(sample, "span_begin")} >= {"order AB", "order BA"}


def test_a_judge_that_follows_the_content_is_consistent(run) -> None:
    def longer(a: str, b: str, prompt: str) -> str:
        return "A" if len(a) > len(b) else "B"

    log = run(judge_task(3), solver=single_judge(swap=True), model=mock(court_reply(longer)))
    m = figures(log)
    assert m["position_consistent"] == 1.0 and m["judge_longer"] == 1.0
    assert m["calls"] == 2.0


# -- the debate judges as scorers of any task ------------------------------------------------------


def test_samre_judge_grades_a_task_output_against_its_reference(run) -> None:
    # the model under test is always wrong; judge, advocates and jurors run on a perfect judge
    judge = get_model("madsim/judge", accuracy=1.0)
    task = strategyqa(data_path=str(STRATEGYQA_DEV), subset=3)
    task = Task(dataset=task.dataset, setup=task.setup, solver=single(), scorer=samre_judge())
    log = run(
        task,
        model="madsim/x",
        model_args={"accuracy": 0.0},
        model_roles={"advocate": judge, "judge": judge, "juror": judge},
    )
    m = metrics(log, "samre_judge")
    assert (m["mean"], m["tie"]) == (0.0, 0.0)  # every wrong output loses to the reference
    for sample in log.samples:
        graded = sample.scores["samre_judge"]
        assert (graded.value, graded.answer, graded.metadata["verdict"]) == (0.0, "loss", "B")
        assert "**juror_1**" in graded.explanation and "**judge**" in graded.explanation
        hearing = graded.metadata["hearings"][0]
        assert sample.output.completion in hearing["transcript"]  # the output is Answer A
        jurors = {f"juror_{i}" for i in range(1, 6)}
        assert graded.metadata["by_role"].keys() == {"advocate_1", "judge", *jurors}
        roles = Counter(family(e.role) for e in events(sample, "model"))
        # each juror votes once, and its vote is summarised (the authors' code)
        assert roles["judge"] >= 2 and roles["juror"] == 2 * 5 and roles["agent"] == 1


def test_more_judge_rescores_a_log_after_the_fact(run) -> None:
    task = strategyqa(data_path=str(STRATEGYQA_DEV), subset=2)
    task = Task(dataset=task.dataset, setup=task.setup, solver=single(), scorer=final_answer())
    log = run(task, model="madsim/x")

    def prefer_reference(a: str, b: str, prompt: str) -> str:
        return "B"

    judge = mock(court_reply(prefer_reference))
    scored = score(
        log,
        more_judge(advocates=1, jurors=3),
        model_roles={"advocate": judge, "judge": judge, "juror": judge},
        action="append",
        display="none",
    )
    m = metrics(scored, "more_judge")
    assert m["mean"] == 0.0
    for sample in scored.samples:
        graded = sample.scores["more_judge"]
        # advocates, merges, the judge's feedback and scores, the jurors
        assert (graded.answer, graded.metadata["court_calls"]) == ("loss", 2 + 2 + 2 + 3)
        assert graded.explanation.count("Juror reasoning.") == 3
        assert "final_answer" in sample.scores  # appended beside the task's own scorers


def test_reference_from_a_metadata_field(run) -> None:
    samples = [Sample(input="Say hi.", target="unused", metadata={"baseline": "Hello there!"})]
    task = Task(dataset=MemoryDataset(samples), solver=single(answer_format="text"))

    def prefer(a: str, b: str, prompt: str) -> str:
        return "B" if "Hello there!" in b else "A"

    judge = mock(court_reply(prefer))
    task = Task(
        dataset=MemoryDataset(samples),
        solver=single(answer_format="text"),
        scorer=more_judge(reference="baseline", advocates=1, jurors=1),
    )
    log = run(
        task,
        model=mock(lambda p: "ANSWER: hi"),
        model_roles={"advocate": judge, "judge": judge, "juror": judge},
    )
    assert log.samples[0].scores["more_judge"].answer == "loss"


# -- a reply that cannot be read is an abstention: 0, never a tie ----------------------------------


def unreadable(prompt: str) -> str:
    """Advocates argue; the judge and the jurors never give anything readable."""
    if isinstance(asked(), DefenceRequest):
        return "Answer A has merit."
    return "Both answers have merit; I cannot decide."


@pytest.mark.parametrize(
    "solver", [more(advocates=1, jurors=3), samre(max_rounds=2), single_judge()]
)
def test_an_unreadable_judge_abstains_and_scores_zero(run, tmp_path: Path, solver) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", ROWS)  # gold A, tie, B
    task = mt_bench_judge(data_path=str(path), ties="keep")
    log = run(task, solver=solver, model=mock(unreadable))
    for sample in log.samples:
        assert sample.store[STORE_KEY]["final"] is None
        assert sample.output.completion == ""
        score = sample.scores["judge_agreement"]
        assert (score.value, score.answer) == ("I", "")
        assert (score.metadata["verdict"], score.metadata["abstained"]) == (None, True)
    m = figures(log)
    assert (m["accuracy"], m["tie"], m["abstained"]) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize(
    "make", [lambda: more_judge(advocates=1, jurors=3), lambda: samre_judge(max_rounds=2)]
)
def test_an_unreadable_debate_judge_grades_zero_never_a_tie(run, make) -> None:
    scorer = make()
    name = registry_info(scorer).name.split("/")[-1]
    task = Task(
        dataset=MemoryDataset(
            [Sample(id=i, input="Say hi.", target="Hello there!") for i in (1, 2)]
        ),
        solver=single(answer_format="text"),
        scorer=scorer,
    )
    log = run(task, model=mock(lambda p: unreadable(p) if in_court() else "ANSWER: hi"))
    for sample in log.samples:
        graded = sample.scores[name]
        assert (graded.value, graded.answer, graded.metadata["verdict"]) == (0.0, "abstained", None)
        assert graded.metadata["abstained"] is True
    m = metrics(log, name)
    assert (m["mean"], m["tie"], m["abstained"]) == (0.0, 0.0, 1.0)


@pytest.mark.parametrize(
    "make", [lambda: more_judge(advocates=1, jurors=3), lambda: samre_judge(max_rounds=2)]
)
def test_an_empty_output_grades_zero_without_a_hearing(run, make) -> None:
    # a court that always prefers what it sees first would call the empty Answer A a win
    scorer = make()
    name = registry_info(scorer).name.split("/")[-1]
    court_prompts: list[str] = []

    def reply(prompt: str) -> str:
        if not in_court():  # the model under test: no readable answer
            return "I am not sure."
        court_prompts.append(prompt)
        return court_reply(first_shown)(prompt)

    task = Task(
        dataset=MemoryDataset([Sample(id=1, input="Say hi.", target="Hello there!")]),
        solver=single(answer_format="text", retries=0),
        scorer=scorer,
    )
    log = run(task, model=mock(reply))
    [sample] = log.samples
    assert sample.output.completion == ""
    graded = sample.scores[name]
    assert (graded.value, graded.answer, graded.metadata["court_calls"]) == (0.0, "no output", 0)
    assert court_prompts == []
    assert metrics(log, name)["mean"] == 0.0


# -- anonymisation: only where a name says who wrote what -----------------------------------------


def test_the_judge_scorers_show_the_question_and_answers_verbatim(run) -> None:
    # the model under test is mockllm/model: its short name "model" is also an ordinary word
    seen: list[str] = []

    def reply(prompt: str) -> str:
        if not in_court():  # the model under test
            return "ANSWER: A language model predicts words."
        seen.append(prompt)
        return court_reply(first_shown)(prompt)

    task = Task(
        dataset=MemoryDataset(
            [Sample(input="What can a language model do?", target="A model writes.")]
        ),
        solver=single(answer_format="text"),
        scorer=more_judge(advocates=1, jurors=1),
    )
    log = run(task, model=mock(reply))
    assert log.samples[0].scores["more_judge"].answer == "win"
    assert len(seen) == 2 + 2 + 2 + 1
    for prompt in seen:
        assert "[Question]\nWhat can a language model do?\n[end of Question]" in prompt
        assert "[Answer A]\nANSWER: A language model predicts words\n" in prompt
        assert "[Answer B]\nA model writes.\n" in prompt
        assert "[hidden]" not in prompt


# -- the whole input: an image in the question reaches every call of the court --------------------

PNG = (  # a 1x1 red pixel
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP4z8DwHwAF"
    "BQIAX8jx0gAAAABJRU5ErkJggg=="
)


@pytest.mark.parametrize("as_scorer", [False, True], ids=["more", "more_judge"])
def test_the_image_of_the_question_reaches_every_advocate_judge_and_juror(
    run, as_scorer: bool
) -> None:
    seen: list[tuple[str, list]] = []  # per court call: its role and its input's parts, in order

    def output(input: list[ChatMessage], tools, tool_choice, config) -> ModelOutput:
        prompt = "\n".join(m.text for m in input)
        if in_court():
            parts = [p for m in input if not isinstance(m.content, str) for p in m.content]
            seen.append((current_call.get().role, parts))
            content = court_reply(first_shown)(prompt)
        else:  # the model under test, before the scorer
            content = "ANSWER: Red"
        out = ModelOutput.from_content(model="mockllm/model", content=content)
        out.usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        return out

    question = [ContentText(text="Which colour is this square?"), ContentImage(image=PNG)]
    sample = Sample(
        input=[ChatMessageUser(content=question)],
        target="Blue" if as_scorer else "A",
        metadata={"answer_a": "ANSWER: Red", "answer_b": "Blue"},  # Answer A as the scorer sees it
    )
    # the court reads the input as given, not as the setup wrapped it
    setup = prompt_template("SETUP WORDING {prompt}")
    if as_scorer:
        solver, scorer = single(answer_format="text"), more_judge(advocates=1, jurors=3)
    else:
        solver, scorer = more(advocates=1, jurors=3), None
    task = Task(dataset=MemoryDataset([sample]), setup=setup, solver=solver, scorer=scorer)
    log = run(task, model=get_model("mockllm/model", custom_outputs=output))
    [done] = log.samples
    if as_scorer:
        assert done.scores["more_judge"].answer == "win"
    else:
        assert done.store[STORE_KEY]["final"] == "A"
    jurors = {f"juror_{i}": 1 for i in (1, 2, 3)}
    assert Counter(role for role, _ in seen) == {"advocate_1": 4, "judge": 2, **jurors}
    for role, parts in seen:
        # the question's text, its image, then the rest of the pair and the role's request
        assert [type(p) for p in parts[:3]] == [ContentText, ContentImage, ContentText], role
        assert parts[0].text == "[Question]\nWhich colour is this square?"
        assert parts[1].image == PNG
        assert parts[2].text.startswith("\n[end of Question]\n\n[Answer A]\nANSWER: Red\n")
        assert sum(isinstance(p, ContentImage) for p in parts) == 1
        assert not any("SETUP WORDING" in p.text for p in parts if isinstance(p, ContentText))


# -- other solvers on mt_bench_judge: a two-choice question with both answers ---------------------


@pytest.mark.parametrize(
    "solver",
    [single(), du_debate(agents=2, rounds=2), consensus(personas="none", max_turns=1)],
    ids=["single", "du_debate", "consensus"],
)
def test_other_solvers_judge_the_pair_as_a_two_choice_question(run, tmp_path: Path, solver) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", ROWS)  # gold A, tie, B

    def reply(prompt: str) -> str:  # B, except a tie on the second pair
        return "I compared them.\nANSWER: " + ("C" if "Q2?" in prompt else "B")

    log = run(mt_bench_judge(data_path=str(path), ties="keep"), solver=solver, model=mock(reply))
    for sample in map(resolve_sample_attachments, log.samples):
        meta = sample.metadata
        calls = events(sample, "model")
        assert calls
        for call in calls:
            prompt = "\n".join(m.text for m in call.input)
            assert f"[Question]\n{sample.input}\n[end of Question]" in prompt
            assert f"[Answer A]\n{meta['answer_a']}\n[end of Answer A]" in prompt
            assert f"[Answer B]\n{meta['answer_b']}\n[end of Answer B]" in prompt
            assert "A) Answer A" in prompt and "C) tie" in prompt
    verdicts = [s.scores["judge_agreement"].answer for s in log.samples]
    assert verdicts == ["B", "tie", "B"]
    m = figures(log)
    assert (m["accuracy"], m["tie"]) == (pytest.approx(2 / 3), pytest.approx(1 / 3))


def test_without_gold_ties_the_question_offers_two_choices(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    samples = list(mt_bench_judge(data_path=str(path)).dataset)
    assert [s.choices for s in samples] == [["Answer A", "Answer B"]] * 2
    kept = list(mt_bench_judge(data_path=str(path), ties="keep").dataset)
    assert [s.choices for s in kept] == [["Answer A", "Answer B", "tie"]] * 3


# -- the task: data, ties, the public source -------------------------------------------------------


def write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "where, labels",
    [("fixture", {"A": 5, "B": 5}), ("mt_bench_human/pairs.jsonl", {"B": 2062, "A": 1293})],
)
def test_a_pairs_file_loads_as_labelled_samples(where: str, labels: dict[str, int]) -> None:
    path = MT_BENCH_PAIRS if where == "fixture" else shared(where)
    task = mt_bench_judge(data_path=str(path))
    samples = list(task.dataset)
    assert Counter(s.target for s in samples) == labels
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert samples[0].id == first["row"] and samples[0].input == first["question"]
    assert samples[0].metadata["answer_a"] == first["answer_a"]
    assert task.metadata == {"source": str(path), "revision": None, "ties": "drop", "gold_ties": 0,
                             "categories": list(CATEGORIES)}  # fmt: skip


ROWS = [
    {"row": 1, "question": "Q1?", "answer_a": "a1", "answer_b": "b1", "label": "A"},
    {"row": 2, "question": "Q2?", "answer_a": "a2", "answer_b": "b2", "label": "tie"},
    {"row": 3, "question": "Q3?", "answer_a": "a3", "answer_b": "b3", "label": "b"},
]


def test_gold_ties_are_dropped_and_counted_never_folded_into_b(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", ROWS)
    dropped = mt_bench_judge(data_path=str(path))
    assert [(s.id, s.target) for s in dropped.dataset] == [(1, "A"), (3, "B")]
    assert dropped.metadata["gold_ties"] == 1
    kept = mt_bench_judge(data_path=str(path), ties="keep")
    assert [s.target for s in kept.dataset] == ["A", "tie", "B"]


@pytest.mark.parametrize(
    "change, field",
    [
        ({"label": "C"}, "label"),
        ({"label": None}, "label"),
        ({"answer_b": ""}, "answer_b"),
        ({"question": 3}, "question"),
    ],
)
def test_bad_records_name_the_field(tmp_path: Path, change: dict, field: str) -> None:
    path = write_jsonl(tmp_path / "pairs.jsonl", [ROWS[0] | change])
    with pytest.raises(ValueError, match=f"record 1: '{field}'"):
        mt_bench_judge(data_path=str(path))


def hub_row(turn: int, winner: str) -> dict:
    def conversation(model: str) -> list[dict]:
        return [
            {"role": "user", "content": "First question?"},
            {"role": "assistant", "content": f"{model} first reply"},
            {"role": "user", "content": "Second question?"},
            {"role": "assistant", "content": f"{model} second reply"},
        ]

    return {
        "question_id": 81,
        "model_a": "gpt-4",
        "model_b": "vicuna-13b-v1.2",
        "winner": winner,
        "judge": "expert_0",
        "conversation_a": conversation("gpt-4"),
        "conversation_b": conversation("vicuna"),
        "turn": turn,
    }


def test_hub_rows_keep_the_turns_and_the_ties() -> None:
    one = hub_sample(hub_row(1, "model_b"), 7)
    assert (one.id, one.input, one.target) == (7, "First question?", "B")
    assert one.metadata["answer_a"] == "gpt-4 first reply"
    two = hub_sample(hub_row(2, "tie (inconsistent)"), 8)
    assert two.target == "tie"
    assert two.input == "Turn 1: First question?\n\nTurn 2: Second question?"
    assert two.metadata["answer_b"] == "Turn 1: vicuna first reply\n\nTurn 2: vicuna second reply"
    assert (two.metadata["model_a"], two.metadata["turn"]) == ("gpt-4", 2)


def test_a_category_is_read_from_the_question_id_in_mt_benchs_blocks_of_ten() -> None:
    """Figs. 2 and 5 split by category: ids 81-90 are writing, ..., 151-160 humanities; a
    record's own category wins; an id outside 81-160 says nothing."""
    assert [category_of({"question_id": q}) for q in (81, 90, 91, 111, 121, 160)] == [
        "writing", "writing", "roleplay", "math", "coding", "humanities"
    ]  # fmt: skip
    assert category_of({"question_id": 81, "category": "stem"}) == "stem"
    for bad in ({"question_id": 80}, {"question_id": 161}, {"question_id": "81"}, {}):
        assert category_of(bad) is None
    assert hub_sample(hub_row(1, "model_a"), 1).metadata["category"] == "writing"


def test_the_category_option_keeps_those_pairs_and_refuses_pairs_without_an_id(
    tmp_path: Path,
) -> None:
    kept = mt_bench_judge(data_path=str(MT_BENCH_PAIRS), category="math,coding")
    assert {s.metadata["question_id"] for s in kept.dataset} == {111, 112, 121}
    assert kept.metadata["categories"] == ["math", "coding"]
    assert len(mt_bench_judge(data_path=str(MT_BENCH_PAIRS), category=["writing"]).dataset) == 2
    path = write_jsonl(tmp_path / "pairs.jsonl", ROWS)  # no question ids
    assert len(mt_bench_judge(data_path=str(path)).dataset) == 2  # all: nothing to read
    with pytest.raises(ValueError, match="have no question_id or category"):
        mt_bench_judge(data_path=str(path), category="math")
    for bad in ("ethics", "", 3, ["math", 3]):
        with pytest.raises(OptionError, match="category"):
            mt_bench_judge(data_path=str(MT_BENCH_PAIRS), category=bad)


def test_the_public_source_records_the_revision_it_resolved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    loaded = {}

    def records(path: str, split: str, name=None, revision=None) -> list[dict]:
        loaded.update(path=path, split=split, revision=revision)
        return [hub_row(1, "model_a"), hub_row(2, "tie"), hub_row(1, "model_b")]

    monkeypatch.setattr(mt, "hf_revision", lambda path: "0123abc")
    monkeypatch.setattr(mt, "hf_records", records)
    task = mt_bench_judge()
    assert loaded == {
        "path": "lmsys/mt_bench_human_judgments",
        "split": "human",
        "revision": "0123abc",
    }
    assert task.metadata["revision"] == "0123abc" and "0123abc" in task.metadata["source"]
    assert [s.target for s in task.dataset] == ["A", "B"] and task.metadata["gold_ties"] == 1
    assert mt_bench_judge(revision="fedcba").metadata["revision"] == "fedcba"


def test_the_pair_names_no_model_and_keeps_its_text() -> None:
    # the court's prompts are built from the pair alone: the models' names in the metadata never
    # reach them, and what the answers say (a model's name included) is judged as written
    sample = hub_sample(hub_row(1, "model_a"), 1)
    state = TaskState(
        model="madsim/x",
        sample_id=1,
        epoch=1,
        input=sample.input,
        messages=[],
        metadata=sample.metadata,
    )
    pair = Pair(Question.of(["First question?"]), "gpt-4 first reply", "vicuna first reply")
    assert pair_of(state, False) == pair


def test_a_sample_without_two_answers_is_an_error_naming_them() -> None:
    state = TaskState(model="madsim/x", sample_id=5, epoch=1, input="Q?", messages=[], metadata={})
    with pytest.raises(ValueError, match=r"sample 5.*'answer_a' and 'answer_b'"):
        pair_of(state, False)


# -- options are checked before any model call -----------------------------------------------------


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: more(jurors=4), "invalid solver option 'jurors'"),
        (lambda: more(advocates=0), "invalid solver option 'advocates'"),
        (lambda: more(aggregation="mean"), "invalid solver option 'aggregation'"),
        (lambda: samre(stopping="fast"), "invalid solver option 'stopping'"),
        (lambda: samre(window=1), "invalid solver option 'window'"),
        (lambda: samre(eps=0), "invalid solver option 'eps'"),
        (lambda: samre(max_rounds=0), "invalid solver option 'max_rounds'"),
        (lambda: samre(token_budget=0), "invalid solver option 'token_budget'"),
        (lambda: samre(decisive_gap=-1), "invalid solver option 'decisive_gap'"),
        (lambda: samre(tiebreak="judge"), "invalid solver option 'tiebreak'"),
        (lambda: samre(advocate_order="random"), "invalid solver option 'advocate_order'"),
        (lambda: samre(own_defence=True), "invalid solver option 'own_defence'"),
        (lambda: samre(summaries="all"), "invalid solver option 'summaries'"),
        (lambda: samre(summarize="yes"), "invalid solver option 'summarize'"),
        (lambda: single_judge(swap_resolution="coin"), "invalid solver option 'swap_resolution'"),
        (lambda: single_judge(retries=-1), "invalid solver option 'retries'"),
        (lambda: mt_bench_judge(data_path=str(PAIRS), ties="fold"), "invalid task option 'ties'"),
    ],
)
def test_bad_options_raise_naming_the_option(make, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: samre_judge(jurors=2), "invalid scorer option 'jurors'"),
        (lambda: samre_judge(stopping="slow"), "invalid scorer option 'stopping'"),
        (lambda: more_judge(aggregation="mean"), "invalid scorer option 'aggregation'"),
    ],
)
def test_bad_scorer_options_raise_an_error_inspect_score_shows(make, message: str) -> None:
    # not a ValueError: `inspect score` would report that as "couldn't be loaded" and drop it
    with pytest.raises(ScorerOptionError, match=message):
        make()


def test_a_missing_reference_field_fails_the_sample_naming_the_option(tmp_path: Path) -> None:
    task = Task(
        dataset=MemoryDataset([Sample(input="Say hi.", target="hi")]),
        solver=single(answer_format="text"),
        scorer=more_judge(reference="baseline", advocates=1, jurors=1),
    )
    [log] = eval(task, model="madsim/x", display="none", log_dir=str(tmp_path / "logs"))
    assert log.status == "error" and "invalid scorer option 'reference'" in log.error.message


def test_the_code_preset_sets_its_own_window_unless_told() -> None:
    rule = SamreOptions(stopping="code").rule
    assert (rule.window, rule.min_rounds, rule.eps) == (3, 3, 5.0)
    assert SamreOptions(stopping="code", eps=2.0, window=4).rule.window == 4


# -- graders grade themselves only on purpose ------------------------------------------------------

SELF = {"model": "madsim/x", "fallback": "main model"}


def graded_task(scorer) -> Task:
    samples = [Sample(id=i, input="Say hi.", target="Hello there!") for i in (1, 2)]
    return Task(dataset=MemoryDataset(samples), solver=single(answer_format="text"), scorer=scorer)


def warnings_in(log: EvalLog) -> list[str]:
    return [e.message.message for s in log.samples for e in events(s, "logger")]


def test_unbound_grader_roles_fall_back_to_the_model_under_evaluation_and_say_so(run) -> None:
    log = run(graded_task(more_judge(advocates=1, jurors=1)), model="madsim/x")
    why = (
        "no model is bound to the advocate, judge and juror roles, so the model under "
        "evaluation (madsim/x) grades its own output"
    )
    # once per run, however many samples
    [warning] = warnings_in(log)
    assert f"more_judge: {why}. Bind --model-role advocate=<model>" in warning
    for sample in log.samples:
        graded = sample.scores["more_judge"]
        assert graded.explanation.startswith(f"Self-graded: {why}.\n\n")
        assert graded.metadata["options"]["roles"] == {
            "advocate_1": SELF,
            "judge": SELF,
            "juror_1": SELF,
        }
        # the solver's agent fell back too, silently, and its record says so
        assert sample.store[STORE_KEY]["options"]["roles"] == {"agent": SELF}


@pytest.mark.parametrize("make", [more_judge, samre_judge])
def test_grader_fallback_error_fails_before_the_court_calls_naming_the_roles(
    tmp_path: Path, make
) -> None:
    scorer = make(jurors=1, grader_fallback="error")
    name = registry_info(scorer).name.split("/")[-1]
    [log] = eval(
        graded_task(scorer),
        model="madsim/x",
        model_roles={"judge": "madsim/judge"},
        display="none",
        log_dir=str(tmp_path / "logs"),
    )
    assert log.status == "error"
    assert (
        f"{name} (grader_fallback=error): no model is bound to the advocate and juror roles, so "
        "the model under evaluation (madsim/x) grades its own output; bind --model-role "
        "advocate=<model> --model-role juror=<model>"
    ) in log.error.message
    # the solver's calls ran; the court made none
    assert {e.role for s in log.samples for e in events(s, "model")} == {"agent"}


COURT = ("advocate_1", "judge", "juror_1")  # one advocate a side, one juror


@pytest.mark.parametrize(
    "scorer, roles, called, fallback",
    [
        (
            more_judge(advocates=1, jurors=1),
            {"advocate": "madsim/a", "judge": "madsim/j", "juror": "madsim/r"},
            COURT,
            None,
        ),
        # no jury: the juror role is never called, so leaving it unbound is no fallback
        (
            more_judge(advocates=1, jurors=0),
            {"advocate": "madsim/a", "judge": "madsim/j"},
            ("advocate_1", "judge"),
            None,
        ),
        # on purpose: no warning, and the record still says who graded
        (more_judge(advocates=1, jurors=1, grader_fallback="allow"), {}, COURT, "main model"),
    ],
    ids=["bound", "no-jury", "allowed"],
)
def test_bound_or_allowed_graders_give_no_warning_and_are_recorded(
    run, scorer, roles: dict[str, str], called: tuple[str, ...], fallback: str | None
) -> None:
    log = run(graded_task(scorer), model="madsim/x", model_roles=roles)
    assert warnings_in(log) == []
    for sample in log.samples:
        graded = sample.scores["more_judge"]
        assert not graded.explanation.startswith("Self-graded")
        # a member (advocate_1, juror_1) runs on its family's binding, which its record names
        # and Inspect's events carry; unbound, on the main model under its own name
        on = {role: family(role) if family(role) in roles else role for role in called}
        assert graded.metadata["options"]["roles"] == {
            role: {
                "model": roles.get(on[role], "madsim/x"),
                "fallback": fallback if on[role] == role else on[role],
            }
            for role in called
        }
        used = {(e.role, e.model) for e in events(sample, "model") if e.role != "agent"}
        assert used == {(on[role], roles.get(on[role], "madsim/x")) for role in called}


def test_a_bad_grader_fallback_is_refused_naming_the_option() -> None:
    allowed = "invalid scorer option 'grader_fallback': got 'maybe', allowed: warn, error, allow"
    with pytest.raises(ScorerOptionError, match=allowed):
        samre_judge(grader_fallback="maybe")

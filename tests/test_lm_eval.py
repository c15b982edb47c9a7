"""The `mad` model of lm-evaluation-harness (hosts/lm_eval.py) and registry/lm_eval's tasks.

The end-to-end test runs `mad-lm-eval` as a user types it, offline, against an OpenAI-compatible
stub on 127.0.0.1 that answers by what each request contains: the lm-eval score must equal the
debates' accuracy read from the transcript file, each round of every debate must reach the stub
as one batch, and the same command re-run with its `--use_cache` must not call it at all.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("lm_eval", reason="lm-eval is not installed (pip install -e '.[lm-eval]')")

from lm_eval.api.instance import Instance
from lm_eval.models.api_models import JsonChatStr

from mad_tasks.engine.answers import Choice, YesNo
from mad_tasks.engine.checks import OptionError
from mad_tasks.hosts.lm_eval import MadLM, problem_of, rendered

ROOT = Path(__file__).resolve().parents[1]
FIXTURE = ROOT / "tests" / "fixtures" / "strategyqa.jsonl"
SCRIPT = Path(sys.executable).with_name("mad-lm-eval")
DOCS = 4  # the fixture's first four questions (--limit)

# what the stub's agents answer in rounds 1 and 2, by the question the prompt holds
ANSWERS = {
    "housecat": ("yes", "yes"),  # right (yes)
    "Cairo": ("yes", "yes"),  # wrong (no)
    "newspaper": ("yes", "no"),  # wrong, then right after the debate (no)
    "marathon": ("yes", "yes"),  # right (yes)
}
ACCURACY = 0.75
OFFLINE = {"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "NO_PROXY": "127.0.0.1"}


class Stub:
    """An OpenAI-compatible chat endpoint: each reply is chosen by the question in the first user
    message and the round, which is one more than the agent's replies already in the
    conversation. Every request is recorded (its round), in the order it arrived."""

    def __init__(self) -> None:
        self.rounds: list[int] = []
        self.lock = threading.Lock()

    def reply(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        round = 1 + sum(m["role"] == "assistant" for m in messages)
        first = next(m["content"] for m in messages if m["role"] == "user")
        [answer] = [a[round - 1] for key, a in ANSWERS.items() if key in first]
        with self.lock:
            self.rounds.append(round)
        text = f"Round {round}: I weighed the facts.\nANSWER: {answer}"
        return {
            "id": "stub",
            "object": "chat.completion",
            "model": body["model"],
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {"prompt_tokens": 50, "completion_tokens": 12, "total_tokens": 62},
        }


@pytest.fixture
def stub() -> Iterator[tuple[Stub, str]]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            data = json.dumps(state.reply(body)).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:  # quiet
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state, f"http://127.0.0.1:{server.server_port}/v1/chat/completions"
    finally:
        server.shutdown()
        server.server_close()


def model_args(tmp: Path, url: str) -> dict[str, Any]:
    return {
        "method": "du_debate",
        "agents": 3,
        "rounds": 2,
        "inner": "local-chat-completions",
        "inner_args": {"model": "stub", "base_url": url, "num_concurrent": 4, "max_retries": 1},
        "transcript": str(tmp / "transcript.jsonl"),
    }


def mad_lm_eval(tmp: Path, url: str) -> subprocess.CompletedProcess:
    command = [
        str(SCRIPT),
        "--model", "mad",
        "--model_args", json.dumps(model_args(tmp, url)),
        "--tasks", "strategyqa_yesno",
        "--include_path", "registry/lm_eval",
        "--limit", str(DOCS),
        "--use_cache", str(tmp / "cache" / "mad"),
        "--output_path", str(tmp / "out"),
        "--log_samples",
    ]  # fmt: skip
    data = {"MAD_TASKS_STRATEGYQA_PATH": str(FIXTURE), "HF_DATASETS_CACHE": str(tmp / "hf")}
    return subprocess.run(
        command,
        cwd=ROOT,
        env={**os.environ, **OFFLINE, **data},
        capture_output=True,
        text=True,
        timeout=300,
    )


def rerun_in_process(tmp: Path, url: str) -> dict[str, Any]:
    """The same evaluation through lm-eval's Python API, with the data named by the metadata and
    only this project's tasks indexed (indexing lm-eval's own thousands takes the CLI ~15 s)."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    tasks = TaskManager(
        include_path=str(ROOT / "registry" / "lm_eval"),
        include_defaults=False,
        metadata={"strategyqa_path": str(FIXTURE)},
    )
    return simple_evaluate(
        model="mad",
        model_args=model_args(tmp, url),
        tasks=["strategyqa_yesno"],
        task_manager=tasks,
        limit=DOCS,
        use_cache=str(tmp / "cache" / "mad"),
    )


def latest(out: Path, pattern: str) -> Path:
    return max(out.rglob(pattern), key=lambda p: p.stat().st_mtime_ns)


def score_of(out: Path) -> float:
    results = json.loads(latest(out, "results_*.json").read_text(encoding="utf-8"))
    return results["results"]["strategyqa_yesno"]["exact_match,yes_no"]


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.mark.slow
@pytest.mark.skipif(not SCRIPT.exists(), reason="mad-lm-eval is not installed: pip install -e .")
def test_mad_lm_eval_scores_the_debates_batches_rounds_and_caches(
    tmp_path: Path, stub: tuple[Stub, str], caplog: pytest.LogCaptureFixture
) -> None:
    state, url = stub
    done = mad_lm_eval(tmp_path, url)
    assert done.returncode == 0, done.stderr[-3000:]

    # each round of the four debates reached the stub as one batch: 4 docs x 3 agents, twice
    assert state.rounds == [1] * 12 + [2] * 12
    assert "4 debates (du_debate) took 24 inner calls in 2 batches: [12, 12]" in done.stderr

    score = score_of(tmp_path / "out")
    samples = read_jsonl(latest(tmp_path / "out", "samples_strategyqa_yesno_*.jsonl"))
    transcript = read_jsonl(tmp_path / "transcript.jsonl")
    assert len(transcript) == len(samples) == DOCS

    # the transcript joins the samples on (doc_id, prompt_hash); its output is the sample's reply
    by_key = {(s["doc_id"], s["prompt_hash"]): s for s in samples}
    joined = [(line, by_key[line["doc_id"], line["prompt_hash"]]) for line in transcript]
    assert all(line["task"] == "strategyqa_yesno" for line in transcript)
    assert all(sample["resps"] == [[line["output"]]] for line, sample in joined)
    # the score is the debates' accuracy
    debate_accuracy = sum(line["debate"]["final"] == s["target"] for line, s in joined) / DOCS
    assert score == debate_accuracy == ACCURACY
    finals = {s["doc"]["id"]: line["debate"]["final"] for line, s in joined}
    assert finals == {"fx-01": "yes", "fx-02": "yes", "fx-03": "no", "fx-04": "yes"}

    debate = transcript[0]["debate"]
    assert debate["method"] == "du_debate" and len(debate["calls"]) == 6
    assert [a["round"] for a in debate["answers"]] == [1, 1, 1, 2, 2, 2]
    assert debate["options"]["agents"] == 3 and debate["options"]["rounds"] == 2
    assert debate["options"]["model"] == "local-chat-completions/stub"
    assert debate["options"]["answer_format"] == "yesno"
    # lm-eval backends return text only: usage is unknown, never 0 tokens
    assert {c["input_tokens"] for c in debate["calls"]} == {None}

    # the same command again, from the first run's cache: the stub is not called
    state.rounds.clear()
    again_cli = mad_lm_eval(tmp_path, url)
    assert again_cli.returncode == 0, again_cli.stderr[-3000:]
    assert state.rounds == []
    assert f"Cached requests: {DOCS}, Requests remaining: 0" in again_cli.stderr
    assert len(list((tmp_path / "out").rglob("results_*.json"))) == 2  # the latest is the re-run's
    assert score_of(tmp_path / "out") == ACCURACY
    assert len(read_jsonl(tmp_path / "transcript.jsonl")) == DOCS  # no debate ran: no new line

    # and through lm-eval's Python API, from the same cache
    with caplog.at_level(logging.INFO, logger="lm_eval"), pytest.MonkeyPatch.context() as env:
        for name, value in OFFLINE.items():
            env.setenv(name, value)
        again = rerun_in_process(tmp_path, url)
    assert state.rounds == []
    assert f"Cached requests: {DOCS}, Requests remaining: 0" in caplog.text
    assert again["results"]["strategyqa_yesno"]["exact_match,yes_no"] == ACCURACY
    assert len(read_jsonl(tmp_path / "transcript.jsonl")) == DOCS  # no debate ran: no new line


MUSR_FIXTURE = ROOT / "tests" / "fixtures" / "musr.jsonl"


@pytest.mark.parametrize("domain", ["murder_mysteries", "object_placements", "team_allocation"])
def test_musr_gen_tasks_ask_lettered_choice_questions(domain: str) -> None:
    from lm_eval.tasks import TaskManager

    tasks = TaskManager(
        include_path=str(ROOT / "registry" / "lm_eval"),
        include_defaults=False,
        metadata={f"musr_{domain}_path": str(MUSR_FIXTURE)},
    )
    name = f"musr_{domain}_gen"
    task = tasks.load([name])["tasks"][name]
    docs = list(task.test_docs())
    # the fixture's choices: the text of a Python list (as on the Hub), then a JSON list
    assert [d["choices"] for d in docs] == [["Iris", "Jon"], ["drawer", "shelf", "car"]]
    assert [d["answer_format"] for d in docs] == ["choice", "choice"]
    assert [task.doc_to_target(d) for d in docs] == ["B", "A"]
    assert task.doc_to_text(docs[1]) == (
        "Read the story below, then answer the question after it.\n\n"
        "Pia put the keys in the drawer and left. Later Sam moved them to the shelf while Pia "
        "was out.\n\nQuestion: Where will Pia look for the keys first?\n\n"
        "A) drawer\nB) shelf\nC) car\nAnswer with the letter of one option.\nAnswer:"
    )


# -- the model's arguments, refusals and prompts (in process) ----------------------------------


def mad(**args: Any) -> MadLM:
    """On lm-eval's `dummy` backend, which has no chat template: agents' calls as plain text."""
    return MadLM(**{"inner": "dummy", "inner_format": "text", **args})


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"method": "more"}, "invalid model_args option 'method': got 'more', allowed: single"),
        ({"agents": 0}, "invalid model_args option 'agents': got 0, allowed: an integer from 1"),
        ({"agents": "three"}, "option 'agents': got 'three'"),
        ({"method": "single", "agents": 3}, "no such argument (single takes"),
        ({"transcipt": "t.jsonl"}, "the mad model also takes method, inner, inner_args"),
        ({"final_format": "The answer is"}, "option 'final_format'"),
        ({"inner_format": "html"}, "option 'inner_format': got 'html', allowed: chat, text"),
        ({"inner_args": [1]}, "option 'inner_args'"),
        ({"method": "cortex", "embedder": "bogus"}, "option 'embedder': got 'bogus'"),
        (
            {"debater": "react", "tools": "python"},
            "option 'debater': got 'react', allowed: generate (agents with tools run in the Inspect "
            "host only)",
        ),
    ],
)
def test_bad_model_args_are_refused_naming_the_argument(args: dict[str, Any], message: str) -> None:
    with pytest.raises(OptionError) as e:
        mad(**args)
    assert message in str(e.value)


def test_inner_must_be_another_backend() -> None:
    with pytest.raises(OptionError, match="option 'inner': got None"):
        MadLM()
    with pytest.raises(OptionError, match="any lm-eval backend but mad itself"):
        MadLM(inner="mad")
    with pytest.raises(ValueError, match="no model for this name found"):
        MadLM(inner="no-such-backend")


def test_key_value_model_args_set_the_method_and_the_inner_backend() -> None:
    lm = MadLM.create_from_arg_string(
        "method=voting,agents=4,protocol=ranked,inner=dummy,inner.model=m1", {"batch_size": 2}
    )
    assert (lm.method, lm.options.agents, lm.options.protocol) == ("voting", 4, "ranked")
    assert lm.model == "dummy/m1"


def request(doc: dict[str, Any], context: Any = "Is water wet?\nAnswer:") -> Instance:
    return Instance("generate_until", doc, (context, {"until": ["\n"]}), 0, ("mytask", 7, 1))


def test_log_likelihood_requests_are_refused_naming_the_task() -> None:
    lm = mad()
    mc = Instance("loglikelihood", {}, ("Q: ?\nA:", " yes"), 0, ("hellaswag", 0, 1))
    with pytest.raises(NotImplementedError, match="task\\(s\\) hellaswag ask for log-likelihoods"):
        lm.loglikelihood([mc])
    with pytest.raises(NotImplementedError, match="mmlu_generative"):
        lm.loglikelihood_rolling([mc])


def test_a_doc_without_a_format_is_refused_before_any_call() -> None:
    lm = mad()
    sent: list[Any] = []
    lm.inner.generate_until = lambda batch: sent.append(batch) or ["ANSWER: yes"] * len(batch)
    with pytest.raises(ValueError, match="task mytask, doc 7: answer_format=auto needs a doc"):
        lm.generate_until([request({"answer_format": "yesno"}), request({"question": "?"})])
    assert sent == []
    # a named format needs nothing from the doc
    assert mad(answer_format="yesno", agents=1, rounds=1).inner is not None


def test_outputs_follow_final_format_and_the_tasks_stop_strings() -> None:
    lm = mad(method="single", final_format="The answer is {answer}.\nDone")
    calls: list[Any] = []

    def generate(batch: list[Instance]) -> list[str]:
        calls.extend(batch)
        return ["Thinking.\nANSWER: yes" if "wet" in i.args[0] else "No idea." for i in batch]

    lm.inner.generate_until = generate
    docs = [request({"answer_format": "yesno"}), request({"answer_format": "yesno"}, "Q: ?")]
    assert lm.generate_until(docs) == ["The answer is yes.", ""]  # cut at "\n"; an abstention
    # the agent's call: a plain transcript, no stop strings, greedy
    first = calls[0]
    assert first.args[0].startswith("User: Is water wet?\nAnswer:\n\nAnswer the question")
    assert first.args[0].endswith("\n\nAssistant:")
    assert first.args[1] == {"until": [], "do_sample": False}
    assert len(calls) == 1 + 3  # the answer; the hedge and its two follow-ups (retries=2)


def test_chat_prompts_keep_their_system_message_and_turns() -> None:
    chat = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Is 2 even?"},
        {"role": "assistant", "content": "yes"},
        {"role": "user", "content": "Is 3 even?"},
    ]
    context = MadLM.apply_chat_template(mad(), chat)
    assert isinstance(context, JsonChatStr)
    problem = problem_of(context, YesNo(), None)
    assert problem.system == "Be brief."
    assert problem.question.text == "Is 3 even?"
    assert [(t.role, t.text) for t in problem.question.turns] == [
        ("user", "Is 2 even?"),
        ("assistant", "yes"),
    ]
    with pytest.raises(ValueError, match="must end with the user's question"):
        problem_of(
            JsonChatStr(json.dumps([*chat, {"role": "assistant", "content": "I"}])), YesNo(), None
        )


def test_choices_in_the_doc_make_a_choice_question() -> None:
    lm = mad(method="single")
    lm.inner.generate_until = lambda batch: ["ANSWER: B"] * len(batch)
    doc = {"choices": ["Iris", "Jon"], "answer_format": "choice"}
    [out] = lm.generate_until([request(doc, "Who did it?\nA) Iris\nB) Jon\nAnswer:")])
    assert out == "B"
    assert rendered(None, "{answer}", ["\n"]) == ""
    assert isinstance(lm._prepare(request(doc)).problem.fmt, Choice)


# -- offline on the simulated model ----------------------------------------------------------------


def test_the_simulated_model_runs_a_debate_offline_through_lm_evals_api(tmp_path: Path) -> None:
    """`inner: madsim` answers every agent call itself (usage set, no backend, no network), and
    knows the gold answers from its `answers` file: the fixture's own records."""
    from lm_eval import simple_evaluate
    from lm_eval.tasks import TaskManager

    tasks = TaskManager(include_path=str(ROOT / "registry" / "lm_eval"), include_defaults=False,
                        metadata={"strategyqa_path": str(FIXTURE)})  # fmt: skip
    transcript = tmp_path / "debates.jsonl"
    args = {"method": "voting", "inner": "madsim", "transcript": str(transcript),
            "inner_args": {"answers": str(FIXTURE), "accuracy": 1.0}}  # fmt: skip
    done = simple_evaluate(model="mad", model_args=args, tasks=["strategyqa_yesno"],
                           task_manager=tasks, limit=DOCS)  # fmt: skip
    assert done is not None
    assert done["results"]["strategyqa_yesno"]["exact_match,yes_no"] == 1.0  # every agent right
    debates = read_jsonl(transcript)
    assert len(debates) == DOCS and {d["debate"]["method"] for d in debates} == {"voting"}
    assert debates[0]["debate"]["options"]["model"] == "madsim/x"
    assert all(c["input_tokens"] > 0 for d in debates for c in d["debate"]["calls"])


def test_without_its_answers_the_simulated_model_abstains_rather_than_guess() -> None:
    lm = MadLM(method="du_debate", inner="madsim/y", agents=2, rounds=1)
    request = Instance("generate_until", {"answer_format": "yesno"},
                       ("Is water wet?", {"until": ["\n"]}), 0)  # fmt: skip
    assert lm.model == "madsim/y"
    assert lm.generate_until([request]) == [""]  # nobody knew: no answer, never a made-up one


def test_a_bad_simulated_model_argument_is_refused_by_name() -> None:
    with pytest.raises(
        OptionError, match=r"inner_args.*simulated model's arguments.*unknown model args"
    ):
        MadLM(inner="madsim", inner_args={"acuracy": 0.9})


@pytest.mark.parametrize(
    ("model_args", "name"),
    [
        ({"method": "voting", "inner": "madsim"}, "mad_voting_madsim"),
        ('{"inner": "local-chat-completions", "inner_args": {"model": "gpt-4o-mini"}}',
         "mad_du_debate_local-chat-completions_gpt-4o-mini"),
        ("method=cortex,inner=hf,inner.pretrained=org/m", "mad_cortex_hf_org/m"),
        ({"pretrained": "org/m"}, None),  # not a mad run: lm-eval names it
        ("{not json", None),
    ],
)  # fmt: skip
def test_a_mad_runs_output_is_named_after_its_method_and_inner_model(model_args, name) -> None:
    from mad_tasks.hosts.lm_eval import run_name

    assert run_name(model_args) == name


@pytest.mark.slow
@pytest.mark.skipif(not SCRIPT.exists(), reason="mad-lm-eval is not installed: pip install -e .")
def test_offline_without_data_the_hint_names_lm_evals_way_to_a_file(tmp_path: Path) -> None:
    command = [str(SCRIPT), "--model", "mad", "--model_args", '{"inner": "madsim"}',
               "--tasks", "strategyqa_yesno", "--include_path", "registry/lm_eval",
               "--output_path", str(tmp_path / "out")]  # fmt: skip
    env = {**os.environ, **OFFLINE, "HF_DATASETS_CACHE": str(tmp_path / "hf"),
           "MAD_TASKS_CACHE_DIR": str(tmp_path / "cache"), "https_proxy": "http://127.0.0.1:9",
           "HTTPS_PROXY": "http://127.0.0.1:9"}  # fmt: skip
    env.pop("MAD_TASKS_STRATEGYQA_PATH", None)
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("mad-lm-eval: could not download"), last
    assert '--metadata \'{"strategyqa_path": "FILE"}\'' in last and "-T data_path" not in last

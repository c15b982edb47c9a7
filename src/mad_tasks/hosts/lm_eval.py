"""The `mad` model of lm-evaluation-harness: a debate method over an inner lm-eval backend.

    mad-lm-eval --model mad --model_args '{"method": "du_debate", "agents": 3, "rounds": 2,
        "inner": "local-chat-completions", "inner_args": {"model": "m", "base_url": "..."}}'
        --tasks strategyqa_yesno --include_path registry/lm_eval

Each `generate_until` request is one debate over the request's prompt. All of a run's debates go
forward together, one round at a time (hosts/batch_runtime.py), so the inner backend gets each round's
agent calls as one `generate_until` batch: an HF model batches them, an API backend sends them
`num_concurrent` at a time. `roles` may bind a role to a model of its own, or to a list of them
(a panel: agent i on model (i-1) mod n); each backend then gets its own calls of a round as one
batch. The debate's final answer, written with `final_format` and cut at the
task's `until`, is the request's output, so the task's own filters and metrics score it. An
abstention (every agent abstained) outputs the empty string, which no answer matches.

Log-likelihood requests (multiple-choice and perplexity tasks) are refused: a debate produces an
answer, not a probability. lm-eval 0.4.13 reads no plugin entry points, so `mad-lm-eval` (below)
imports this module, which registers `mad`, and runs lm-eval's own command line. docs/lm-eval.md
has every argument, the transcript file and the cache.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import lm_eval.models  # noqa: F401  (the built-in backends: see `get_model` below)
from lm_eval.api.instance import Instance
from lm_eval.api.model import LM
from lm_eval.api.registry import get_model, model_registry, register_model
from lm_eval.models.api_models import JsonChatStr
from lm_eval.utils import hash_string, simple_parse_args_string

from ..engine.answers import AnswerFormat, make_format
from ..engine.catalogue import CATALOGUE
from ..engine.checks import OptionError, one_of, text
from ..engine.content import Msg, Question
from ..engine.options import Answering
from ..engine.panels import Bound
from ..engine.records import DebateResult
from ..engine.runtime import Call, Reply, Runtime
from ..engine.session import Problem, Session
from ..models.offline import SimulatedReplies, is_simulated
from ..tasks._data import DataUnavailable
from .batch_runtime import RoundRuntime
from .bindings import bind_roles, resolved
from .setup import SETUP, not_hosted

# under lm-eval's logger, so its command line shows these lines at its log level
logger = logging.getLogger("lm_eval.mad")

KIND = "model_args"  # what takes the options, in their error messages


# the model_args the host itself takes; every other one is the method's
HOST_ARGS = (
    "method",
    "inner",
    "inner_args",
    "inner.<arg>",
    "inner_format",
    "final_format",
    "roles",
    "transcript",
)
INNER_FORMATS = ("chat", "text")
# what a role's calls fall back to when no binding reaches it: the inner backend
INNER = "inner"
ROLE_KEYS = ("inner", "inner_args")


def inner_args_of(value: Any) -> dict[str, Any]:
    """`inner_args`: a JSON object (or its text), or unset."""
    if isinstance(value, str) and value.strip():
        with contextlib.suppress(ValueError):  # not JSON: refused below, as text
            value = json.loads(value)
    if value is None or value == "":
        return {}
    if isinstance(value, dict):
        return dict(value)
    raise OptionError("inner_args", value, "a JSON object of the inner backend's arguments", KIND)


def roles_of(value: Any) -> Any:
    """`roles`: a JSON object (or its text), checked by `bind_roles`."""
    if isinstance(value, str):
        with contextlib.suppress(ValueError):  # not JSON: refused as text
            return json.loads(value)
    return value


def inner_name(inner: str, args: Mapping[str, Any]) -> str:
    """A backend's model as records name it: `inner/<model>` (its `model` or `pretrained`
    argument), the backend alone without one; the simulated model as `madsim/<name>`."""
    if is_simulated(inner):
        return inner if "/" in inner else f"{inner}/x"
    named = next((str(args[k]) for k in ("model", "pretrained") if k in args), None)
    return f"{inner}/{named}" if named else inner


def role_inner(
    option: str, value: Any, inner: str, args: Mapping[str, Any]
) -> tuple[str, dict[str, Any]]:
    """A role's model as (backend, its arguments). A text is a model of the default backend
    `inner` (its `args` with `model` replaced, or `pretrained` where they name that instead), or
    the simulated model `madsim/<name>`; a mapping takes `inner` (default: the default backend)
    and `inner_args` (over the default's when the backend is the same). An unknown backend is
    refused by name, before any call."""
    simulated = is_simulated(inner)
    if isinstance(value, str) and value:
        if is_simulated(value):
            return value, dict(args) if simulated else {}
        if not simulated:
            key = "pretrained" if "pretrained" in args and "model" not in args else "model"
            return inner, {**args, key: value}
    elif isinstance(value, Mapping) and value and set(value) <= set(ROLE_KEYS):
        name = text(f"{option}.inner", value.get("inner", inner), kind=KIND)
        given = value.get("inner_args", {})
        if not isinstance(given, Mapping):
            allowed = "a mapping of the backend's arguments"
            raise OptionError(f"{option}.inner_args", given, allowed, KIND)
        if name == "mad":
            raise OptionError(f"{option}.inner", name, "any lm-eval backend but mad itself", KIND)
        if not is_simulated(name):
            try:
                get_model(name)
            except ValueError:
                known = ", ".join(k for k in model_registry if k != "mad")
                allowed = f"an lm-eval backend ({known}) or madsim"
                raise OptionError(f"{option}.inner", name, allowed, KIND) from None
        same = name == inner or (simulated and is_simulated(name))
        return name, {**(args if same else {}), **given}
    model = "a simulated model madsim/<name> (inner is madsim)" if simulated else "a model name"
    allowed = f"{model}, or a mapping of inner, inner_args"
    raise OptionError(option, value, allowed, KIND)


def final_format_of(value: Any) -> str:
    if isinstance(value, str) and "{answer}" in value:
        return value
    raise OptionError("final_format", value, "a text holding {answer}, such as {answer}", KIND)


def answer_format_for(name: str, doc: Any) -> AnswerFormat:
    """`auto`: a choice among the doc's `choices` (a list of texts), else the doc's declared
    `answer_format` (the registry/lm_eval tasks declare one); a named format is used as it is
    (`choice` needs the doc's `choices`). ValueError when neither gives one."""
    doc = doc if isinstance(doc, Mapping) else {}
    choices = doc.get("choices")
    options = (
        tuple(choices)
        if isinstance(choices, list) and choices and all(isinstance(c, str) for c in choices)
        else ()
    )
    if name == "auto":
        declared = doc.get("answer_format")
        if options:
            name = "choice"
        elif isinstance(declared, str):
            name = declared
        else:
            raise ValueError(
                "answer_format=auto needs a doc with `choices` (a list of texts) or a declared "
                "`answer_format`; give the format in model_args: answer_format=yesno, number, "
                "text or math"
            )
    return make_format(name, options)


def problem_of(context: Any, fmt: AnswerFormat, templates: Mapping[str, str] | None) -> Problem:
    """The request's prompt as the debate's question. Under `--apply_chat_template` it is the chat
    this model's `apply_chat_template` kept as JSON: the system messages become the task's
    system prompt, the last user message the question, the turns before it (few-shot examples as
    turns) the question's earlier turns. Otherwise the whole prompt text is the question."""
    if not isinstance(context, JsonChatStr):
        return Problem(Question.of([str(context)]), fmt, "", templates)
    messages = json.loads(context.prompt)
    if not all(isinstance(m.get("content"), str) for m in messages):
        raise ValueError("a chat prompt with non-text content: the mad model takes text only")
    system = "\n\n".join(m["content"] for m in messages if m.get("role") == "system")
    chat = [m for m in messages if m.get("role") != "system"]
    if (
        not chat
        or chat[-1].get("role") != "user"
        or any(m.get("role") not in ("user", "assistant") for m in chat)
    ):
        raise ValueError(
            "a chat prompt must end with the user's question (no assistant prefix, roles user "
            "and assistant only)"
        )
    turns = [Msg(m["role"], m["content"]) for m in chat[:-1]]
    return Problem(Question.of([chat[-1]["content"]], turns), fmt, system, templates)


def rendered(final: str | None, final_format: str, until: Any) -> str:
    """The request's output: the final answer written with `final_format`, cut at the first of
    the task's stop strings; empty for an abstention."""
    if final is None:
        return ""
    out = final_format.replace("{answer}", final)
    stops = [until] if isinstance(until, str) else until or []
    for stop in stops:
        if isinstance(stop, str) and stop and stop in out:
            out = out[: out.index(stop)]
    return out


def plain_prompt(messages: Sequence[Mapping[str, str]]) -> str:
    """A conversation as one completion prompt, for an inner model without a chat template."""
    turns = "".join(f"{m['role'].capitalize()}: {m['content']}\n\n" for m in messages)
    return turns + "Assistant:"


@dataclass(frozen=True)
class Inner:
    """A model agents run on: an lm-eval backend (`lm`) or the simulated model (`simulated`), and
    its `name` in the record (`inner_name`)."""

    name: str
    lm: LM | None = None
    simulated: SimulatedReplies | None = None


@dataclass(frozen=True)
class Prepared:
    """One request, checked and ready to debate."""

    request: Instance
    problem: Problem


@register_model("mad")
class MadLM(LM):
    """lm-eval's `mad` model (`--model mad`). Arguments (`--model_args`, JSON or k=v):

    method: any answer-producing method of the catalogue (`engine/catalogue.py`); du_debate by
        default.
    inner, inner_args: the lm-eval backend every agent runs on and its arguments (a JSON object;
        in k=v form, `inner.<arg>=value` each); `madsim` (or `madsim/<name>`) is the project's
        simulated model, offline, with its arguments (`answers`: a JSONL file of the gold answers).
    inner_format: chat (the inner model's chat template, default) or text (a plain transcript,
        for a model without one).
    final_format: how the output writes the final answer, holding {answer} (default: {answer}).
    roles: a JSON object of role to its own model (a model name of the inner backend,
        `madsim/<name>`, or {"inner", "inner_args"}), or to a list of them (a panel).
    transcript: a JSONL file; one line per debate is appended.
    Any other argument is the method's option, as `-S` takes it in Inspect.
    """

    def __init__(
        self,
        method: str = "du_debate",
        inner: str | None = None,
        inner_args: Any = None,
        inner_format: str = "chat",
        final_format: str = "{answer}",
        transcript: str | None = None,
        roles: Any = None,
        batch_size: int | str | None = None,
        max_batch_size: int | None = None,
        device: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__()
        flat = {k: options.pop(k) for k in [k for k in options if k.startswith("inner.")]}
        hosted = CATALOGUE.answering()
        if method not in hosted:
            # the others need what lm-eval requests do not carry (a pair of answers, two papers)
            allowed = ", ".join(hosted) + f" (not {not_hosted(CATALOGUE)}: lm-eval requests "
            allowed += "carry none of these inputs)"
            raise OptionError("method", method, allowed, KIND)
        spec = hosted[method]
        factory = spec.factory(KIND)
        taken = list(inspect.signature(factory).parameters)
        unknown = [k for k in options if k not in taken]
        if unknown:
            allowed = f"no such argument ({method} takes {', '.join(taken)}; the mad model also "
            allowed += f"takes {', '.join(HOST_ARGS)})"
            raise OptionError(unknown[0], options[unknown[0]], allowed, KIND)
        self.options: Answering = factory(**options)
        self.options.without_acting(KIND)
        self.method = method
        self.inner_format = one_of("inner_format", inner_format, INNER_FORMATS, kind=KIND)
        self.final_format = final_format_of(final_format)
        self.transcript = (
            None if transcript is None else Path(text("transcript", transcript, kind=KIND))
        )
        name = text("inner", inner, kind=KIND)
        if name == "mad":
            raise OptionError("inner", inner, "any lm-eval backend but mad itself", KIND)
        args = inner_args_of(inner_args) | {k.removeprefix("inner."): v for k, v in flat.items()}
        try:  # what the options name (an embedder not installed), before any call
            self.run_method = spec.ready(self.options, SETUP)
        except OptionError as e:
            raise e.of(KIND) from None
        # lm-eval's batch size and device go to each inner backend, unless its own args set them
        self._run = {"batch_size": batch_size, "max_batch_size": max_batch_size, "device": device}
        self._made: dict[str, Inner] = {}
        self.default = self._inner(name, args, "inner_args")
        self.model = self.default.name
        self.simulated = self.default.simulated  # offline: the simulated model, by the calls
        if self.default.lm is not None:
            self.inner = self.default.lm
        self.declared = spec.roles(self.options)

        def bound(option: str, value: Any) -> Inner:
            return self._inner(*role_inner(option, value, name, args), f"{option}.inner_args")

        what = "a model (a name, madsim/<name>, or {inner, inner_args})"
        self.roles = bind_roles(roles_of(roles), self.declared, bound, what, KIND)

    def _inner(self, name: str, args: dict[str, Any], option: str) -> Inner:
        """The backend `name` made with `args` (once for a run: roles bound to the same share
        it); the simulated model's arguments checked as `option`."""
        model = inner_name(name, args)
        key = json.dumps([model if is_simulated(name) else name, args], sort_keys=True, default=str)
        if key not in self._made:
            if is_simulated(name):
                simulated = SimulatedReplies.checked(model, args, option, KIND)
                self._made[key] = Inner(model, simulated=simulated)
            else:
                extra = {k: v for k, v in self._run.items() if v is not None and k not in args}
                lm = get_model(name).create_from_arg_obj(args, extra)
                self._made[key] = Inner(model, lm)
        return self._made[key]

    def _bound(self, role: str) -> Bound[Inner]:
        return resolved(role, self.roles, self.declared, self.default, INNER)

    # -- lm-eval's interface ---------------------------------------------------------------------
    def generate_until(self, requests: list[Instance]) -> list[str]:
        if not requests:
            return []
        prepared = [self._prepare(r) for r in requests]  # every refusal before the first call
        runtime = RoundRuntime(self._generate, self.model, lambda r: self._bound(r).model.name)
        try:
            results = runtime.run([self._debate(p.problem) for p in prepared])
        except OptionError as e:  # one a debate decides before its first call (cortex's sizes)
            raise e.of(KIND) from None
        logger.info(
            "mad: %d debates (%s) took %d inner calls in %d batches: %s",
            len(results),
            self.method,
            sum(runtime.batches),
            len(runtime.batches),
            runtime.batches,
        )
        outputs = []
        lines = []
        for p, result in zip(prepared, results):
            context, gen_kwargs = p.request.args
            out = rendered(result.final, self.final_format, gen_kwargs.get("until"))
            result.options = {
                **self.options.record(),
                **result.options,
                "answer_format": p.problem.fmt.name,
                "model": self.model,
                "roles": self._roles_of(result),
            }
            outputs.append(out)
            lines.append(
                {
                    "task": p.request.task_name,
                    "doc_id": p.request.doc_id,
                    "prompt_hash": hash_string(context),
                    "output": out,
                    "debate": result.to_dict(),
                }
            )
        self._write_transcript(lines)
        return outputs

    def loglikelihood(self, requests: list[Instance]) -> list[tuple[float, bool]]:
        raise NotImplementedError(self._refusal(requests, "log-likelihoods of answer options"))

    def loglikelihood_rolling(self, requests: list[Instance]) -> list[float]:
        raise NotImplementedError(self._refusal(requests, "the perplexity of a text"))

    def apply_chat_template(
        self, chat_history: list[dict[str, str]], add_generation_prompt: bool = True
    ) -> JsonChatStr:
        """The chat kept whole, so each debate sees its system message and turns apart."""
        return JsonChatStr(json.dumps(chat_history, ensure_ascii=False))

    @property
    def tokenizer_name(self) -> str:
        return "mad-chat-as-json"  # fingerprints --cache_requests prompts: the chat kept as JSON

    # -- the debates -----------------------------------------------------------------------------
    def _prepare(self, request: Instance) -> Prepared:
        where = f"task {request.task_name}, doc {request.doc_id}"
        if len(request.args) != 2:
            raise ValueError(f"{where}: a multimodal request; the mad model takes text only")
        try:
            fmt = answer_format_for(self.options.answer_format, request.doc)
            problem = problem_of(request.args[0], fmt, self.options.templates)
        except ValueError as e:
            raise ValueError(f"{where}: {e}") from None
        return Prepared(request, problem)

    def _debate(self, problem: Problem) -> Callable[[Runtime], Awaitable[DebateResult]]:
        o = self.options

        def debate(runtime: Runtime) -> Awaitable[DebateResult]:
            session = Session(
                runtime,
                problem,
                retries=o.retries,
                temperature=o.temperature,
                max_tokens=o.max_tokens,
                budget=o.new_budget(),
            )
            return self.run_method(session)

        return debate

    def _roles_of(self, result: DebateResult) -> dict[str, dict[str, str | int | None]]:
        """Every role the debate called, as the record names its model: `{"model", "fallback"}`,
        and a panel member's `position` and `panel` (as the Inspect runtime records them)."""
        roles = {}
        for role in dict.fromkeys(c.role for c in result.calls):
            bound = self._bound(role)
            roles[role] = {"model": bound.model.name, **bound.shown()}
        return roles

    def _generate(self, calls: list[Call]) -> list[Reply]:
        """One round's calls of every debate, as one batch of each inner backend they run on.
        lm-eval backends return text only: the calls' token usage is unknown (recorded as such,
        never as 0)."""
        groups: dict[int, tuple[Inner, list[int]]] = {}
        for i, call in enumerate(calls):
            inner = self._bound(call.role).model
            groups.setdefault(id(inner), (inner, []))[1].append(i)
        replies: list[Reply | None] = [None] * len(calls)
        for inner, taken in groups.values():
            sent = [calls[i] for i in taken]
            logger.info("mad: %d agent calls to %s", len(sent), inner.name)
            for i, reply in zip(taken, self._send(inner, sent), strict=True):
                replies[i] = reply
        return [r for r in replies if r is not None]

    def _send(self, inner: Inner, calls: list[Call]) -> list[Reply]:
        if inner.simulated is not None:  # it answers the calls themselves, usage included
            return inner.simulated.replies(calls)
        assert inner.lm is not None
        lm = inner.lm
        batch = [
            Instance("generate_until", {}, (self._prompt(lm, c), self._sampling(c)), i)
            for i, c in enumerate(calls)
        ]
        return [Reply(text) for text in lm.generate_until(batch)]

    def _prompt(self, lm: LM, call: Call) -> Any:
        messages = [{"role": m.role, "content": m.text} for m in call.messages]
        if self.inner_format == "text":
            return plain_prompt(messages)
        return lm.apply_chat_template(messages)

    @staticmethod
    def _sampling(call: Call) -> dict[str, Any]:
        """The call's generation settings as lm-eval's gen_kwargs; unset ones are the inner
        backend's defaults (its `max_gen_toks`, greedy decoding). No stop strings: an agent's
        reply is cut only by its length limit."""
        kwargs: dict[str, Any] = {"until": [], "do_sample": bool(call.temperature)}
        if call.temperature is not None:
            kwargs["temperature"] = call.temperature
        if call.top_p is not None:
            kwargs["top_p"] = call.top_p
        if call.max_tokens is not None:
            kwargs["max_gen_toks"] = call.max_tokens
        return kwargs

    def _write_transcript(self, lines: list[dict[str, Any]]) -> None:
        if self.transcript is None:
            return
        self.transcript.parent.mkdir(parents=True, exist_ok=True)
        with self.transcript.open("a", encoding="utf-8") as f:
            for line in lines:
                f.write(json.dumps(line, ensure_ascii=False) + "\n")

    def _refusal(self, requests: list[Instance], what: str) -> str:
        tasks = ", ".join(sorted({str(r.task_name) for r in requests})) or "(none)"
        return (
            f"the mad model answers generate_until requests only, and task(s) {tasks} ask for "
            f"{what}, which a debate does not produce. Run a generative variant instead (such as "
            "mmlu_generative, gpqa_main_generative_n_shot, or the tasks of registry/lm_eval with "
            "--include_path registry/lm_eval), or evaluate these tasks on the inner model itself."
        )


def run_name(model_args: Any) -> str | None:
    """`mad_<method>_<inner model>`, the name of a mad run's output folder and model in lm-eval's
    results (lm-eval takes it from a `model` or `pretrained` argument, which the mad model has
    not, and else makes up a random one); None for other model arguments."""
    if isinstance(model_args, str):
        try:
            model_args = (
                json.loads(model_args)
                if model_args.lstrip().startswith("{")
                else simple_parse_args_string(model_args)
            )
        except ValueError:
            return None
    if not isinstance(model_args, dict) or "inner" not in model_args:
        return None
    inner = model_args.get("inner_args")
    inner = json.loads(inner) if isinstance(inner, str) and inner.startswith("{") else inner
    named = next(
        (
            str(v)
            for k in ("model", "pretrained")
            if isinstance(inner, dict) and (v := inner.get(k))
        ),
        model_args.get("inner.model") or model_args.get("inner.pretrained"),
    )
    parts = ["mad", str(model_args.get("method", "du_debate")), str(model_args["inner"])]
    return "_".join(parts + ([str(named)] if named else []))


def main() -> None:
    """`mad-lm-eval`: lm-eval's command line (same arguments) with `--model mad` registered.
    lm-eval 0.4.13 finds models only among its own; importing this module registered `mad`. A
    mad run's output is named after its method and inner model (`run_name`)."""
    from lm_eval.__main__ import cli_evaluate
    from lm_eval.loggers.evaluation_tracker import GeneralConfigTracker

    lm_evals = GeneralConfigTracker._get_model_name
    GeneralConfigTracker._get_model_name = staticmethod(
        lambda args: run_name(args) or lm_evals(args)
    )
    try:
        cli_evaluate()
    except (OptionError, DataUnavailable) as e:  # a user's error: its message, no traceback
        sys.exit(f"mad-lm-eval: {e}")

"""The debate methods and the D3 judges as OpenAI-evals completion functions (docs/openai-evals.md).

`oaieval` calls a completion function as `fn(prompt=..., **kwargs).get_completions()`, where the
prompt is a text or a list of chat messages, from a pool of threads. This module needs no `evals`
package: evals checks a completion function by duck typing. Models are reached through the `openai`
client (hosts/openai_runtime.py), at any OpenAI-compatible base URL.

- `DebateCompletionFn(method="du_debate", model=..., **options)` answers the prompt by a debate.
  The completion is the final answer alone (evals' `Match` checks `startswith`), a yes/no or a
  letter written as the eval writes its ideals (`ideal_form.py`), empty when every agent
  abstained.
- `JudgeCompletionFn(method="more", model=..., **options)` sits in the grader slot of a
  model-graded eval (the last completion function of `oaieval a,b,grader <eval>`): it reads a
  question and two responses from the grader's prompt (`read_battle`) and answers with the choice
  string of its verdict.

Options are checked when the function is made, before any model call, by the engine's options
classes: `OptionError` names the option, the value and what is allowed. Each call runs its debate
on an event loop of its own with its own clients, so calls from many threads share nothing but
the embedder (stateless by default; a sentence-transformers model is one model for all threads)
and the simulated model (`Simulators`: stateless but for its one warning a run).
"""

from __future__ import annotations

import asyncio
import contextvars
import json
import os
import string
import sys
from abc import ABC, abstractmethod
from collections.abc import Coroutine, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar, cast

from ..engine.answers import AnswerFormat, make_format
from ..engine.catalogue import CATALOGUE
from ..engine.checks import OptionError, integer, one_of, optional, text
from ..engine.content import Msg, Part, Question, Role, compose, text_of
from ..engine.methods.d3.court import VERDICT, Pair
from ..engine.methods.d3.options import CourtOptions
from ..engine.options import Answering, Generation
from ..engine.records import DebateResult
from ..engine.runtime import Call, Reply
from ..engine.session import Problem, Session
from ..engine.spec import MethodSpec, Run
from ..models.offline import PROVIDER, SimulatedReplies, is_simulated
from .bindings import bind_roles
from .ideal_form import CASES, Spelling, spelling
from .openai_runtime import Endpoint, OpenAIRuntime, Simulators
from .setup import SETUP

T = TypeVar("T")

KIND = "completion function"  # how an option error names what took the option
Prompt = str | Sequence[Mapping[str, Any]]

# evals writes few-shot turns as system messages with these names
EXAMPLE_ROLES: dict[str, Role] = {"example_user": "user", "example_assistant": "assistant"}
ROLES: tuple[Role, ...] = ("system", "user", "assistant")


@dataclass(frozen=True)
class DebateCompletion:
    """What a call returns: the completion evals reads, the debate's record (None when the judge
    did not sit: see `read_battle`) and the methods' info events (tables of rounds and votes)."""

    completion: str
    record: DebateResult | None
    events: tuple[tuple[str, str | dict[str, Any]], ...] = ()

    def get_completions(self) -> list[str]:
        return [self.completion]


# -- reading prompts ----------------------------------------------------------------------------


def _parts(content: Any) -> list[Part]:
    """A message's content as the engine's parts: text as `str`, any other OpenAI content part
    (an image) as it came."""
    if content is None:
        return []
    if isinstance(content, str):
        return [content]
    return [
        p.get("text", "") if isinstance(p, Mapping) and p.get("type") == "text" else p
        for p in content
    ]


def _role(message: Mapping[str, Any]) -> Role:
    role = message.get("role")
    if role == "system" and message.get("name") in EXAMPLE_ROLES:
        return EXAMPLE_ROLES[message["name"]]
    if role not in ROLES:
        raise ValueError(
            f"a debate takes system, user and assistant messages only; the prompt has {role!r}"
        )
    return cast(Role, role)


def read_prompt(prompt: Prompt) -> tuple[Question, str]:
    """The question and the system prompt.

    A text is the question. In a chat, the last user message is the question (every part of
    it); the user and assistant turns before it go in front of every agent's conversation, and
    the system messages (but evals' named few-shot examples, which are turns) are the system
    prompt. A chat without a user message (evals' form of a text prompt: one system message) is
    the question as a whole. A turn after the last user message is refused: nothing would answer
    it."""
    if isinstance(prompt, str):
        return Question.of([prompt]), ""
    messages = [(_role(m), _parts(m.get("content"))) for m in prompt]
    last = max((i for i, (role, _) in enumerate(messages) if role == "user"), default=None)
    if last is None:
        return Question.of([p for _, parts in messages for p in parts]), ""
    if any(role != "system" for role, _ in messages[last + 1 :]):
        raise ValueError(
            "the prompt has an assistant turn after its last user message; a debate answers "
            "the last user message"
        )
    system = "\n\n".join(text_of(tuple(parts)) for role, parts in messages if role == "system")
    turns = [
        Msg(role, compose(Question.of(parts)))
        for role, parts in messages[:last]
        if role != "system"
    ]
    return Question.of(messages[last][1], turns), system


# The pairwise layout of evals' `battle` spec (registry/modelgraded/battle.yaml), which every
# model-graded spec a D3 judge grades must follow; `ask` is the grader's question after it.
INSTRUCTION_1 = "[Instruction 1]\n"
RESPONSE_1 = "\n[Response 1]\n"
BATTLE_ASK = "Is the first response better than the second?"


INSTRUCTION_2, RESPONSE_2 = "\n[Instruction 2]\n", "\n[Response 2]\n"


def read_battle(text: str, ask: str) -> Pair | None:
    """The question and the two responses of a grader's prompt in the battle layout: a line
    `[Instruction 1]`, instruction 1, `[Response 1]`, response A, `[Instruction 2]`, instruction 2,
    `[Response 2]`, response B, then the grader's question `ask` (anything may follow it, such as
    a chain-of-thought instruction).

    The markers, the instructions and `ask` come from the eval; the responses are model output and
    may hold anything. So instruction 1 runs from the first `[Instruction 1]` line to the first
    `[Response 1]` line, and response B ends where the last `ask` begins. When both instructions
    are the same question, the responses are split where `[Instruction 2]`, that question and
    `[Response 2]` stand together; otherwise (evals' battles ask for a joke about animals and one
    about fruits) at the one `[Instruction 2]` line, instruction 2 running to the next
    `[Response 2]` line, and the judge is asked which response better does what its own
    instruction asks (`two_instructions`). When a response repeats the separator, which text is
    which cannot be told: None (the judge abstains). A prompt without the layout raises
    `ValueError` (an eval the judge cannot grade). Linear time: `str.find` and `str.count` only."""
    head, asked = text.find(INSTRUCTION_1), text.rfind(ask)
    if head >= 0 and asked >= 0:
        start = head + len(INSTRUCTION_1)
        end = text.find(RESPONSE_1, start, asked)
        if end >= 0:
            question, first = text[start:end], end + len(RESPONSE_1)
            separator = f"{INSTRUCTION_2}{question}{RESPONSE_2}"
            middle = text.find(separator, first, asked)
            if middle >= 0:
                if text.find(separator, middle + 1, asked) >= 0:
                    return None
                a, b = text[first:middle], text[middle + len(separator) : asked]
                return Pair(Question.of([question.strip()]), a.strip(), b.strip())
            marks = text.count(INSTRUCTION_2, first, asked)
            if marks > 1:
                return None
            if marks == 1:
                middle = text.find(INSTRUCTION_2, first, asked)
                other = middle + len(INSTRUCTION_2)
                after = text.find(RESPONSE_2, other, asked)
                if after >= 0:
                    a, b = text[first:middle], text[after + len(RESPONSE_2) : asked]
                    instructions = (question.strip(), text[other:after].strip())
                    return Pair(two_instructions(*instructions), a.strip(), b.strip())
    raise ValueError(
        "the grader's prompt does not hold the layout a D3 judge reads: lines [Instruction 1], "
        "an instruction, [Response 1], answer A, [Instruction 2], an instruction, [Response 2], "
        f"answer B, then the judge's `ask` ({ask!r}); see docs/openai-evals.md"
    )


def two_instructions(first: str, second: str) -> Question:
    """What a judge is asked about two responses to two different instructions: each response is
    judged by how well it does what its own instruction asks."""
    return Question.of(
        [
            f"Response A was written for this instruction:\n{first}\n\nResponse B was written "
            f"for this instruction:\n{second}\n\nWhich response does better what its own "
            "instruction asks?"
        ]
    )


# -- options -----------------------------------------------------------------------------------


def _typed(value: Any) -> Any:
    """`oaieval --completion_args k=v` passes every value as text: a text that is JSON (3, 0.7,
    true, null) is read as its value, any other stays text. Registry YAML values come typed."""
    if not isinstance(value, str):
        return value
    try:
        return json.loads(value)
    except ValueError:
        return value


ENDPOINT_KEYS = ("model", "base_url", "api_key")


def endpoints(
    model: Any, base_url: Any, api_key: Any, roles: Any, allowed: Sequence[str]
) -> tuple[Endpoint, dict[str, Endpoint | list[Endpoint]]]:
    """The default endpoint and each role's own, or its list of them (a panel: `bind_roles`). A
    role's model is a name, or a mapping with any of `model`, `base_url`, `api_key`, the others
    taken from the defaults."""
    key = optional(text, "api_key", api_key) or os.environ.get("OPENAI_API_KEY")
    if key is None and is_simulated(str(model)):
        key = "none"  # the simulated model answers offline and checks no key
    if key is None:
        raise OptionError(
            "api_key",
            api_key,
            "a key, or OPENAI_API_KEY set (a server that checks no key takes any text)",
        )
    default = Endpoint(
        text("model", model), optional(text, "base_url", base_url, null="OpenAI's"), key
    )

    def endpoint(option: str, spec: Any) -> Endpoint:
        given = {"model": spec} if isinstance(spec, str) else spec
        if not isinstance(given, Mapping) or not set(given) <= set(ENDPOINT_KEYS):
            raise OptionError(
                option, spec, "a model name, or a mapping of model, base_url, api_key"
            )
        fields = {**vars(default), **given}
        return Endpoint(
            text(f"{option}.model", fields["model"]),
            optional(text, f"{option}.base_url", fields["base_url"], null="OpenAI's"),
            text(f"{option}.api_key", fields["api_key"]),
        )

    return default, bind_roles(roles, allowed, endpoint, "a model or an endpoint")


def addressed(method: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options meant for `method`'s function: the plain ones and those written
    `<method>.<option>`. `oaieval --completion_args` gives the same options to every function of
    its list, so `du_debate.agents=5,more.jurors=3` sets each its own; an option addressed to
    another method of the catalogue is not this function's, any other prefix is an error."""
    mine = {}
    for name, value in options.items():
        prefix, dot, option = name.partition(".")
        if not dot:
            mine[name] = value
        elif prefix == method:
            mine[option] = value
        elif prefix not in CATALOGUE.names():
            raise OptionError(name, value, "an option, or <method>.<option> for one function")
    return mine


def _madsim_args(value: Any) -> dict[str, Any]:
    """`madsim_args`: the simulated model's arguments (`answers`, `accuracy`, ...), checked now."""
    if value is None:
        return {}
    SimulatedReplies.checked(PROVIDER, value, "madsim_args", KIND)
    return dict(value)


def run_sync(coroutine: Coroutine[Any, Any, T]) -> T:
    """Run on an event loop of its own: in this thread, or, when a loop already runs here (a
    notebook), in a helper thread with this thread's context (evals' recorder is a context
    variable)."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coroutine)
    context = contextvars.copy_context()
    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(context.run, asyncio.run, coroutine).result()


def _record_sampling(call: Call, messages: list[dict[str, Any]], reply: Reply) -> None:
    """Each call in oaieval's record log, where oaieval has loaded its recorder."""
    recorder = sys.modules.get("evals.record")
    if recorder is not None:
        recorder.record_sampling(
            prompt=messages,
            sampled=reply.text,
            agent=call.agent,
            round=call.round,
            purpose=call.purpose,
        )


class _DebateFn(ABC):
    """What both completion functions share: the endpoints, the options, the call. Nothing a call
    changes is kept."""

    options: Generation
    default: Endpoint
    roles: dict[str, Endpoint | list[Endpoint]]
    declared: tuple[str, ...]  # the method's roles: its panels' seats

    def _setup(
        self,
        spec: MethodSpec,
        options: Generation,
        model: Any,
        base_url: Any,
        api_key: Any,
        roles: Any,
        madsim_args: Any,
    ) -> Run:
        """The endpoints and the method prepared (`OptionError` for any bad argument)."""
        self.options = options
        self.declared = spec.roles(options)
        self.default, self.roles = endpoints(model, base_url, api_key, roles, self.declared)
        self.simulators = Simulators(_madsim_args(_typed(madsim_args)))
        return spec.ready(options, SETUP)

    def __call__(self, prompt: Prompt, **kwargs: Any) -> DebateCompletion:
        """`kwargs` (evals' temperature, max_tokens, ...) are not applied: the debate's sampling
        is its options' (agents at evals' temperature 0 would repeat one another)."""
        try:
            return run_sync(self._complete(prompt))
        except OptionError as e:  # one a debate decides before its first call (cortex's sizes)
            raise e.of(KIND) from None

    @abstractmethod
    async def _complete(self, prompt: Prompt) -> DebateCompletion: ...

    async def _debate(self, problem: Problem, method: Run) -> tuple[DebateResult, OpenAIRuntime]:
        opts = self.options
        async with OpenAIRuntime(
            self.roles, self.default, _record_sampling, self.simulators, self.declared
        ) as runtime:
            session = Session(
                runtime,
                problem,
                retries=opts.retries,
                temperature=opts.temperature,
                max_tokens=opts.max_tokens,
                budget=opts.new_budget(),
            )
            result = await method(session)
        result.options = {**opts.record(), **result.options, "roles": runtime.resolved}
        return result, runtime


class DebateCompletionFn(_DebateFn):
    """A debate method as a completion function (docs/openai-evals.md).

    `method`: any answer-producing method of the catalogue (`engine/catalogue.py`; du_debate by
    default). `model`, `base_url`, `api_key`: the default endpoint
    (`api_key` defaults to OPENAI_API_KEY, `base_url` to the client's default); a model
    `madsim/<name>` is the project's simulated model, offline and keyless, with `madsim_args`
    its arguments (`answers`: a JSONL file of the gold answers, which it cannot know otherwise).
    `roles`: a model or an endpoint per role (`agent`, `agent_1`, ...), or a list of them for a
    panel (`agent`: agent i runs on item (i-1) mod n; `hosts/bindings.py`). `choices`: with `answer_format=choice`, how
    many lettered options the question lists. `answer_case` (`auto`, `lower`, `upper`,
    `capitalized`): with `answer_format` yesno or choice, how the eval's ideals are written; `auto`
    reads it from the prompt (`ideal_form.spelling`). Every other keyword is an option of the
    method, as its solver takes it (`agents=5`, `answer_format=yesno`; the format defaults to
    text, since there is no target to infer it from). `registry` is evals' own, not used."""

    def __init__(
        self,
        method: str = "du_debate",
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        roles: Mapping[str, Any] | None = None,
        choices: int | None = None,
        madsim_args: Mapping[str, Any] | None = None,
        registry: Any = None,
        **options: Any,
    ) -> None:
        try:
            hosted = CATALOGUE.answering()
            spec = hosted[one_of("method", method, tuple(hosted))]
            given = {k: _typed(v) for k, v in addressed(method, options).items()}
            case = given.pop("answer_case", "auto")  # the host's, not the method's
            opts: Answering = spec.factory(KIND, answer_format="text")(**given)
            opts.without_acting(KIND)
            self.fmt = answer_format(opts.answer_format, _typed(choices))
            self.case = answer_case(self.fmt, case)
            self.templates = opts.templates
            self.run = self._setup(spec, opts, model, base_url, api_key, roles, madsim_args)
        except OptionError as e:
            raise e.of(KIND) from None

    async def _complete(self, prompt: Prompt) -> DebateCompletion:
        question, system = read_prompt(prompt)
        problem = Problem(question, self.fmt, system, self.templates)
        examples = [m.text for m in question.turns if m.role == "assistant"]
        shown = [system, *(m.text for m in question.turns if m.role == "user"), question.text]
        spelled = spelling(self.fmt, self.case, examples, "\n".join(shown))
        result, runtime = await self._debate(problem, self.run)
        result.options["answer_format"] = self.fmt.name
        if spelled is not None:
            result.options["answer_spelling"] = vars(spelled)
        return DebateCompletion(written(result.final, spelled), result, tuple(runtime.infos))


def written(final: str | None, spelled: Spelling | None) -> str:
    """The final answer as the eval compares it: as the format reads it (an option letter, a
    number without separators), a yes/no or a letter as `spelled`; empty for an abstention."""
    if final is None:
        return ""
    return final if spelled is None else spelled.write(final)


def answer_case(fmt: AnswerFormat, case: Any) -> str:
    """`answer_case`, checked: one of CASES, and only `auto` for a format without fixed words."""
    checked = one_of("answer_case", case, CASES)
    if checked != "auto" and fmt.name not in ("yesno", "choice"):
        raise OptionError("answer_case", case, "auto, unless answer_format is yesno or choice")
    return checked


def answer_format(name: str, choices: Any) -> AnswerFormat:
    """The format a completion function asks for: named, since no target shows it; `choice`
    with the number of lettered options the question lists."""
    if name == "auto":
        raise OptionError(
            "answer_format",
            name,
            "choice, yesno, number, text or math (a completion function sees no target to "
            "infer a format from)",
        )
    if name != "choice":
        if choices is not None:
            raise OptionError("choices", choices, "null, unless answer_format is choice")
        return make_format(name)
    count = integer("choices", choices, 2, len(string.ascii_uppercase))
    return make_format(name, tuple(string.ascii_uppercase[:count]))


DEFAULT_VERDICTS = {"A": "Yes", "B": "No", "tie": "No"}  # battle asks "is the first better?"


def _verdicts(value: Any) -> dict[str, str]:
    allowed = "a mapping of any of A, B and tie to the eval's choice strings"
    if value is None:
        return dict(DEFAULT_VERDICTS)
    if not isinstance(value, Mapping) or not set(value) <= set(DEFAULT_VERDICTS):
        raise OptionError("verdicts", value, allowed)
    merged = {**DEFAULT_VERDICTS, **value}
    if not all(isinstance(v, str) and v.strip() for v in merged.values()):
        raise OptionError("verdicts", value, allowed)
    return merged


class JudgeCompletionFn(_DebateFn):
    """A D3 judge in the grader slot of a model-graded eval (docs/openai-evals.md).

    `method`: more, samre or single_judge. The grader's prompt must hold the battle layout
    (`read_battle`); `ask` is the grader's question after it, `verdicts` the choice string of
    each verdict (default battle's: A -> Yes, B -> No, tie -> No, since a tie is not "better").
    `model`, `base_url`, `api_key` and `roles` (`advocate`, `judge`, `juror`, ...: a list for a
    panel, `advocate` or `juror`, never for `judge`) as for `DebateCompletionFn`; every other keyword is an option of the judge, as its solver takes it.
    An abstention (nothing readable, or responses that cannot be told apart) answers empty,
    which evals scores as invalid."""

    def __init__(
        self,
        method: str = "more",
        model: str | None = None,
        base_url: str | None = None,
        api_key: str | None = None,
        roles: Mapping[str, Any] | None = None,
        ask: str = BATTLE_ASK,
        verdicts: Mapping[str, str] | None = None,
        madsim_args: Mapping[str, Any] | None = None,
        registry: Any = None,
        **options: Any,
    ) -> None:
        try:
            judges = CATALOGUE.reading(Pair)
            spec = judges[one_of("method", method, tuple(judges))]
            given = {k: _typed(v) for k, v in addressed(method, options).items()}
            opts: CourtOptions = spec.factory(KIND)(**given)
            self.ask = text("ask", ask)
            self.verdicts = _verdicts(verdicts)
            self.judge = self._setup(spec, opts, model, base_url, api_key, roles, madsim_args)
        except OptionError as e:
            raise e.of(KIND) from None

    async def _complete(self, prompt: Prompt) -> DebateCompletion:
        if not isinstance(prompt, str):  # evals sends the spec's text as one user message
            prompt = "\n\n".join(text_of(tuple(_parts(m.get("content")))) for m in prompt)
        pair = read_battle(prompt, self.ask)
        if pair is None:
            why = "the responses repeat the layout's separator: which is which cannot be told"
            return DebateCompletion("", None, (("abstained", why),))
        problem = Problem(pair.question, VERDICT)
        result, runtime = await self._debate(problem, lambda s: self.judge(s, pair))
        verdict = "" if result.final is None else self.verdicts[result.final]
        return DebateCompletion(verdict, result, tuple(runtime.infos))

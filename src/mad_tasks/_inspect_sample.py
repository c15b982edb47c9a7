"""What the solvers and the scorers share about an Inspect sample: the debate record in its store
and the method score beside it, the answer format a sample asks for, and the session a D3 judge
runs in."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ChatMessage, Content, ContentText, get_model, model_roles
from inspect_ai.scorer import Score
from inspect_ai.solver import TaskState

from ._inspect_compat import task_name
from .engine.answers import AnswerFormat, infer_format, make_format
from .engine.content import Msg, Part, Question, compose
from .engine.methods.d3.court import VERDICT
from .engine.records import DebateResult
from .engine.runtime import Budget
from .engine.session import Problem, Session
from .inspect_runtime import InspectRuntime
from .log_tags import cut_metadata, label, role_text, sample_cut
from .models import LOCAL_MODEL
from .scorers.figures import METHOD as METHOD_SCORE
from .scorers.figures import sample_figures

# Models known to take text only: a non-text part sent to them would be dropped or rejected.
TEXT_ONLY_MODELS = frozenset({LOCAL_MODEL})

STORE_KEY = "mad_tasks:debate"  # only save_result and load_result use it
# why a scorer of the record leaves a sample unscored when load_result gives None
NO_RESULT = (
    "no debate record in the sample store that this version of mad_tasks can read (none, or one "
    "from an older version)"
)


def save_result(state: TaskState, result: DebateResult, options: Mapping[str, Any]) -> None:
    """Keep the debate's record in the sample store, as JSON the log viewer shows, the run's label
    as the sample's `mad_tasks/method` score (from the run's `options`), and every figure that
    applies to the run as a score (the transitions, the calls and tokens, the method's own
    figures: see `scorers.figures`)."""
    stored = result.to_dict()
    state.store.set(STORE_KEY, stored)
    _remember(stored, result)  # the figures below read it back: no parse of what was just written
    if (stop := result.stopped) is not None:
        transcript().info(
            f"The {stop.kind} limit ({stop.value:g} of {stop.limit:g}) ended the debate at "
            f"{stop.where}; {stop.decided} decided the answer.",
            source="limit reached",
        )
    state.scores = {**(state.scores or {}), METHOD_SCORE: method_score(result, options)}
    state.scores |= sample_figures(state)


def method_score(result: DebateResult, options: Mapping[str, Any] | None = None) -> Score:
    """The run's label (`du_debate agents=4 agent_3=madsim/y`: the method, its `options` that
    differ from the method's defaults and the roles bound to a model of their own, or to a list,
    `agent=[madsim/y,madsim/z]`: `bound_roles`), with the
    model each role ran on as the explanation. A debate that a limit or budget cut short says so
    (`du_debate (cut by token limit: 1 round ran)`), its metadata the limit and the rounds that
    ran, which `mad-tasks tag` and `report` read."""
    roles = result.options.get("roles") or {}
    by_model: dict[str, list[str]] = {}
    for role, resolved in roles.items():
        by_model.setdefault(str(resolved.get("model")), []).append(role)
    explanation = "; ".join(f"{', '.join(rs)}: {model}" for model, rs in by_model.items())
    name = label(result.method, options or {}, bound_roles(roles))
    cut = cut_metadata(result.stopped, result.rounds)
    return Score(
        value=name if cut is None else f"{name} ({sample_cut(cut)})",
        explanation=explanation or None,
        metadata=cut,
    )


def bound_roles(roles: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """The bindings a run's label names, from the record's resolved roles (`{role: {"model",
    "fallback", "position", "panel"}}`), in their order: each role bound to a model of its own,
    and each family bound to a list (a panel) as its members ran on it, `[madsim/y,madsim/z]`,
    where each of the list's models ran a member."""
    bound: dict[str, str] = {}
    lists: dict[str, dict[int, str]] = {}  # a family's models by their position in its list
    sizes: dict[str, int] = {}
    for role, got in roles.items():
        family, size = got.get("fallback"), got.get("panel")
        if family is None:
            bound[role] = str(got.get("model"))
        elif isinstance(size, int):
            lists.setdefault(family, {})[got.get("position") or 0] = str(got.get("model"))
            sizes[family] = size
            bound.setdefault(family, "")  # its place, among the roles in the record's order
    for family, models in lists.items():
        positions = range(1, sizes[family] + 1)
        if set(models) == set(positions):
            bound[family] = role_text([models[p] for p in positions])
    return {role: model for role, model in bound.items() if model}


# each figure is a scorer of its own and reads the record: a sample's stored record is parsed once
# (tens of milliseconds for PD³'s 150 calls), kept with the stored dict itself so that its id
# cannot be reused while the entry stands; the records are only read
_PARSED: dict[int, tuple[object, DebateResult | None]] = {}
PARSED_KEPT = 16  # samples scored at once, at most, before the oldest entry goes


def load_result(state: TaskState) -> DebateResult | None:
    """The debate record a solver of this package kept; None when there is none, or when it is one
    this version cannot read (an older version's log). Read-only: shared by the sample's scorers."""
    stored = state.store.get(STORE_KEY)
    if stored is None:
        return None
    hit = _PARSED.get(id(stored))
    if hit is not None and hit[0] is stored:
        return hit[1]
    try:
        result: DebateResult | None = DebateResult.from_dict(stored)
    except (ValueError, TypeError, KeyError, AttributeError):  # not a record of this version
        result = None
    _remember(stored, result)
    return result


def _remember(stored: object, result: DebateResult | None) -> None:
    if len(_PARSED) >= PARSED_KEPT:
        del _PARSED[next(iter(_PARSED))]
    _PARSED[id(stored)] = (stored, result)


def answer_format_for(state: TaskState, answer_format: str) -> AnswerFormat:
    """auto: the task's choices, else the task's declared format, else what the target looks like."""
    options = tuple(c.value for c in state.choices)
    if answer_format == "auto":
        if options:
            answer_format = "choice"
        else:
            answer_format = state.metadata.get("answer_format") or infer_format(state.target.text)
    return make_format(answer_format, options)


def parts_of(content: str | list[Content]) -> list[Part]:
    """A message's content as the engine's parts: text as `str`, every other part untouched."""
    if isinstance(content, str):
        return [content]
    return [c.text if isinstance(c, ContentText) else c for c in content]


def question_of(state: TaskState, allow_text_only: bool, as_given: bool = False) -> Question:
    """The sample's question as its last user message holds it, every part in order, with the
    input's earlier user and assistant turns (system messages go to every call separately).

    With non-text parts, a model known to take text only is refused before any call unless the
    run allows it (`allow_text_only`, then the question keeps its text alone). `as_given` reads
    the sample's input as the dataset gave it, not as the task's setup left it: the judges do,
    since a setup may wrap the input in a prompt of its own (mt_bench_judge's shows the answers)."""
    messages = state.input if as_given else state.messages
    if isinstance(messages, str) or not messages:
        return Question.of([state.input_text])
    last = max((i for i, m in enumerate(messages) if m.role == "user"), default=None)
    if last is None:
        raise ValueError(f"sample {state.sample_id}: the input holds no user message to answer")
    turns = [_turn(state, m) for m in messages[:last] if m.role != "system"]
    question = Question.of(parts_of(messages[last].content), turns)
    if not question.media:
        return question
    if allow_text_only:
        return question.without_media()
    _refuse_text_only(state, question.media)
    return question


def _turn(state: TaskState, message: ChatMessage) -> Msg:
    if message.role not in ("user", "assistant"):
        raise ValueError(
            f"sample {state.sample_id}: the input has a {message.role} turn before the question; "
            "the debate solvers take system, user and assistant turns only"
        )
    # its text parts joined as in the question; an all-text turn is one string
    return Msg(message.role, compose(Question.of(parts_of(message.content))))


def _refuse_text_only(state: TaskState, media: tuple[Part, ...]) -> None:
    kinds = sorted({str(getattr(p, "type", type(p).__name__)) for p in media})
    models = [("main model", get_model())] + [
        (role, model)
        for role, bound in model_roles().items()
        for model in (bound if isinstance(bound, list) else [bound])  # each of a panel's models
    ]
    for role, model in models:
        if str(model) in TEXT_ONLY_MODELS:
            raise ValueError(
                f"{task_name() or 'this task'}: sample {state.sample_id} has {' and '.join(kinds)} parts, and "
                f"{role} {model} takes text only. Use a model that takes {kinds[0]} input, or "
                "pass -S allow_text_only=true to debate over the text alone (recorded in the log)."
            )


def judge_session(
    runtime: InspectRuntime,
    question: Question,
    retries: int,
    temperature: float | None,
    max_tokens: int | None,
    budget: Budget | None = None,
) -> Session:
    """A D3 judge's session on `runtime`, whose resolved roles the caller records."""
    return Session(
        runtime,
        Problem(question, VERDICT),
        retries=retries,
        temperature=temperature,
        max_tokens=max_tokens,
        budget=budget,
    )

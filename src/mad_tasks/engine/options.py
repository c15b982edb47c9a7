"""The options of every solver, scorer and task: typed fields with their checks (checks.py), the
caps on counts that multiply calls, and the factories that take them as keyword arguments. The
factories make the options object, so a bad value stops the eval before its first model call.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, Field, asdict, dataclass, field, fields
from typing import Any, ClassVar, TypeVar

from . import prompts
from .answers import FORMATS
from .checks import OptionError, boolean, integer, number, one_of, optional
from .embeddings import EMBEDDERS
from .peers import PEERS
from .runtime import SANDBOXES, TOOLS, Acting, Budget
from .stability import MAX_EM_ITERATIONS, MAX_STABLE_ROUNDS, MAX_WINDOW, StabilityOptions
from .templates import check_templates

O = TypeVar("O", bound="Options")
R = TypeVar("R")

# Caps on the counts that multiply a sample's model calls (docs/options.md, "Option checks").
# Each is well above every paper's default and ablation, but finite: a typo must not run a sample
# until it is killed.
MAX_AGENTS = 32  # papers: 3 to 5; the agent sweep of "Voting or Consensus?" goes to 10
MAX_ROUNDS = 20  # Du et al. 2; CortexDebate D = 5; SAMRE R_max = 5 (its code: 7)
MAX_TURNS = 50  # "Voting or Consensus?": 5; its vote-turn sweep (1 to 10) needs up to 12
MAX_SAMPLES = MAX_AGENTS * MAX_ROUNDS  # self_consistency may match the largest du_debate
MAX_RETRIES = 10  # follow-ups for an unreadable reply (default 2; MALLM's personas: 5)
MAX_VOTE_RETRIES = 20  # MALLM: 10
MAX_ADVOCATES = 10  # D3's k = 3
MAX_JURORS = 15  # D3: 5; its jury ablation goes to 7
MAX_POINTS = 1000  # cumulative voting budget (paper: 10)
MAX_TEMPERATURE = 2.0  # the widest range the major providers accept (OpenAI, Gemini)
MAX_TOKENS = 1_000_000  # per call; a provider refuses what its model cannot produce
MAX_BUDGET = 1_000_000_000  # tokens per debate (-S budget): far above any debate's cost
MAX_HASHING_DIMENSIONS = 65536  # `hashing/N` embeds into N dimensions (default 1024)
MAX_TURN_MESSAGES = 200  # messages in one acting turn (-S turn_messages): each step is a call
DEBATERS = ("generate", "react")
ANSWER_FORMS = ("project", "authors")  # -S answer_form (engine/authors_forms.py)


def generation(temperature: Any, max_tokens: Any, *, kind: str = "") -> None:
    """The sampling settings every model-calling solver and scorer passes on to its calls."""
    optional(number, "temperature", temperature, 0, MAX_TEMPERATURE, kind=kind)
    optional(integer, "max_tokens", max_tokens, 1, MAX_TOKENS, kind=kind)


def embedder_spec(option: str, value: Any, *, kind: str = "") -> str:
    """`hashing[/dimensions]`, `sentence-transformers[/model]` or `openai[/model]`."""
    name, _, model = value.partition("/") if isinstance(value, str) else ("", "", "")
    if name == "hashing":
        ok = not model or (
            model.isascii()
            and model.isdigit()
            and len(model) <= 9
            and 1 <= int(model) <= MAX_HASHING_DIMENSIONS
        )
    else:
        ok = name in EMBEDDERS
    if ok:
        return value
    raise OptionError(
        option,
        value,
        f"hashing[/DIMENSIONS from 1 to {MAX_HASHING_DIMENSIONS}], "
        + ", ".join(f"{e}[/MODEL]" for e in EMBEDDERS if e != "hashing"),
        kind,
    )


# -- options objects ---------------------------------------------------------------------------------

Check = Callable[[str, Any], Any]  # (option name, value) -> the value to use; raises OptionError


def option(default: Any, doc: str, check: Check | None = None, group: str = "") -> Any:
    """A field of an options object: its default, its line in the factory's docstring, its check
    (which may also normalise the value: `full` -> None) and the group of factories that show it."""
    return field(default=default, metadata={"doc": doc, "check": check, "group": group})


class Options:
    """Base of every method's options, a frozen dataclass of `option` fields. Making one runs each
    field's check and then `validate` (the rules across fields), so an options object that exists is
    valid: the factories make it before any model call."""

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            check = f.metadata.get("check")
            if check is not None:
                object.__setattr__(self, f.name, check(f.name, getattr(self, f.name)))
        self.validate()

    def validate(self) -> None:
        """Rules that relate two or more options."""

    def record(self) -> dict[str, Any]:
        """The options as the debate record keeps them (JSON-able: a tuple, as `tools`, is a list,
        so a record read back from JSON equals the one written)."""
        return {
            name: list(value) if isinstance(value, tuple) else value
            for name, value in asdict(self).items()  # type: ignore[call-overload]
        }


@dataclass(frozen=True)
class Generation(Options):
    """What every model-calling factory passes on to its calls."""

    retries: int = option(
        2,
        "follow-ups for a reply without a readable answer before it counts as an abstention.",
        lambda name, v: integer(name, v, 0, MAX_RETRIES),
    )
    temperature: float | None = option(
        None,
        "sampling temperature of every call (provider default if unset).",
        lambda name, v: optional(number, name, v, 0, MAX_TEMPERATURE),
    )
    max_tokens: int | None = option(
        None,
        "reply length limit per call.",
        lambda name, v: optional(integer, name, v, 1, MAX_TOKENS),
    )
    allow_text_only: bool = option(
        False,
        "let a model that takes text only debate over the text of an input that has images, audio "
        "or other non-text parts (refused by default).",
        boolean,
    )
    budget: int | None = option(
        None,
        "the debate's own token budget: the first call once it is spent ends the debate, which "
        "decides from what is complete (unset: none).",
        lambda name, v: optional(integer, name, v, 1, MAX_BUDGET),
    )
    look_ahead: bool = option(
        True,
        "a method that debates in rounds does not start a round that, estimated from the rounds "
        "before it, would pass the budget or a token or cost limit of the run; its answer then "
        "comes from the rounds done.",
        boolean,
    )

    def new_budget(self) -> Budget:
        """A fresh budget for one debate (each sample's its own)."""
        return Budget(self.budget, self.look_ahead)


def tool_names(option: str, value: Any) -> tuple[str, ...]:
    """Tool names, as a list or a comma-separated text (`python,bash`), each one of `TOOLS`,
    none twice; none: ()."""
    if value is None:
        return ()
    names = value.split(",") if isinstance(value, str) else value
    allowed = f"a list of tools from {', '.join(TOOLS)}, each once"
    if not isinstance(names, (list, tuple)) or not all(isinstance(n, str) for n in names):
        raise OptionError(option, value, allowed)
    got = tuple(n.strip() for n in names if n.strip())
    unknown = [n for n in got if n not in TOOLS]
    if unknown or len(set(got)) != len(got):
        raise OptionError(option, unknown[0] if unknown else value, allowed)
    return got


def answer_format_option(name: str, value: Any) -> str:
    return one_of(name, value, ("auto", *FORMATS))


def answer_form_option() -> Any:
    """`-S answer_form`, for every method that states a final answer (engine/authors_forms.py)."""
    return option(
        "project",
        "how the final answer is asked for and read: project (a last line ANSWER: ...) or authors "
        "(the form the method's authors' code asks for: \\boxed{}; a letter (X); a JSON object "
        "of reasoning, answer and confidence_level; two lines 'The score of Assistant 1: n' and "
        "'... 2: n'; a judge's totals (x, y) and jurors' votes (1, 0) or (0, 1); a last line "
        "holding only 1, 2 or 3. docs/fidelity.md names each method's; a method without one "
        "refuses it).",
        lambda name, v: one_of(name, v, ANSWER_FORMS),
    )


@dataclass(frozen=True)
class Answering(Generation):
    """The options of every solver that produces an answer to the sample. `TEMPLATES`: the names
    of the shared prompt templates (engine/prompts.py) the method's prompts use."""

    TEMPLATES: ClassVar[tuple[str, ...]] = ("direct", "step_by_step", "reminder")

    answer_format: str = option(
        "auto", "auto, choice, yesno, number, text or math.", answer_format_option
    )
    answer_form: str = answer_form_option()
    templates: Mapping[str, str] | None = option(
        None,
        "replacements of prompt templates, {name: text}; the names and placeholders allowed "
        "are in the error for a wrong one and in docs/solvers.md (Prompt templates).",
    )

    debater: str = option(
        "generate",
        "how an agent takes its turn: generate (one model call) or react (an Inspect ReAct agent "
        "that may call its tools before it answers; Inspect host only).",
        lambda name, v: one_of(name, v, DEBATERS),
    )
    tools: tuple[str, ...] = option(
        (),
        f"the tools a react debater may call: {', '.join(TOOLS)} (a list or python,bash).",
        tool_names,
    )
    sandbox: str = option(
        "shared",
        "where a react debater's tools run: shared (the sample's sandbox) or per_agent (the "
        "sandbox named after each agent, as agent_1).",
        lambda name, v: one_of(name, v, SANDBOXES),
    )
    turn_messages: int = option(
        20,
        f"the most messages one react turn may reach before it ends with the text it has "
        f"(1 to {MAX_TURN_MESSAGES}).",
        lambda name, v: integer(name, v, 1, MAX_TURN_MESSAGES),
    )
    turn_tokens: int | None = option(
        None,
        "the most tokens one react turn may spend before it ends with the text it has (unset: "
        "no cap beyond the run's limits).",
        lambda name, v: optional(integer, name, v, 1, MAX_BUDGET),
    )

    def template_names(self) -> tuple[str, ...]:
        """The shared templates this run's prompts use: the method's `TEMPLATES`."""
        return self.TEMPLATES

    def validate(self) -> None:
        super().validate()  # a mixin's rules (StabilityParameters) after Answering in the MRO
        used = {name: prompts.TEMPLATES[name] for name in self.template_names()}
        object.__setattr__(self, "templates", check_templates("templates", self.templates, used))
        if self.debater == "react" and not self.tools:
            raise OptionError("tools", self.tools, "one tool or more with debater=react")
        if self.debater != "react" and self.tools:
            raise OptionError("debater", self.debater, "react, to give agents tools")
        if self.sandbox == "per_agent" and "text_editor" in self.tools:
            allowed = "shared with text_editor (Inspect's text_editor edits the default sandbox)"
            raise OptionError("sandbox", self.sandbox, allowed)

    def acting(self) -> Acting | None:
        """How each agent's turn acts; None: one model call, as the papers' agents answer."""
        if self.debater != "react":
            return None
        return Acting(self.tools, self.sandbox, self.turn_messages, self.turn_tokens)

    def without_acting(self, kind: str) -> None:
        """Refuse `debater=react` in a host that runs no agents (lm-eval, OpenAI evals)."""
        if self.debater != "generate":
            allowed = "generate (agents with tools run in the Inspect host only)"
            raise OptionError("debater", self.debater, allowed, kind)


def peers_option(group: str = "") -> Any:
    """`-S peers` (engine/peers.py): declared by `PeerControls`, and by a round-based method
    whose options are not `Answering`'s (one that does not answer the sample's question)."""
    return option(
        "others",
        "what an agent reads where the method shows the other agents' earlier replies: others "
        "(the method as published), self (only its own earlier reply: the self-reflection "
        "control) or noise (each reply's text replaced by neutral words of the same length, "
        "without its answer: the noise control); docs/failure-figures.md, Controls.",
        lambda name, v: one_of(name, v, PEERS),
        group,
    )


@dataclass(frozen=True)
class PeerControls(Answering):
    """The options of a round-based method whose agents read each other's earlier replies: it
    also runs under the control conditions of engine/peers.py (a method without this base, or
    `peers_option` of its own, has no `peers` option, so it refuses one before any call)."""

    peers: str = peers_option()


STOPS = ("fixed", "adaptive")  # -S stop (engine/stability.py)


@dataclass(frozen=True)
class StabilityParameters(Options):
    """The parameters of Hu et al.'s adaptive stop (engine/stability.py; docs/adaptive-stopping.md),
    shown by every method that can stop adaptively. A method says whether it stops adaptively in
    `adaptive()`; a parameter set away from its default without it is refused, as it would do
    nothing."""

    STOP_SWITCH: ClassVar[str] = "stop=adaptive"  # the option value that turns the stop on

    stop_threshold: float = option(
        0.05,
        "with stop=adaptive: a round is stable when the Kolmogorov-Smirnov statistic between its "
        "fitted agreement distribution and the previous round's is under this (Hu et al.: 0.05).",
        lambda name, v: number(name, v, 0, 1, above=True),
    )
    stop_stable_rounds: int = option(
        2,
        "with stop=adaptive: stable rounds in a row that end the debate (Hu et al.: 2).",
        lambda name, v: integer(name, v, 1, MAX_STABLE_ROUNDS),
    )
    stop_min_rounds: int = option(
        1,
        "with stop=adaptive: the debate never stops adaptively before this round.",
        lambda name, v: integer(name, v, 1, MAX_STABLE_ROUNDS),
    )
    stop_window: int = option(
        3,
        "with stop=adaptive: how many of the latest rounds' counts each round's fit sees (0: "
        "every round so far).",
        lambda name, v: integer(name, v, 0, MAX_WINDOW),
    )
    stop_em_iterations: int = option(
        100,
        "with stop=adaptive: the most EM iterations of one fit.",
        lambda name, v: integer(name, v, 1, MAX_EM_ITERATIONS),
    )
    stop_em_tolerance: float = option(
        1e-6,
        "with stop=adaptive: EM ends when the log-likelihood gains less than this (Hu et al.: "
        "1e-6).",
        lambda name, v: number(name, v, 0, 1, above=True),
    )

    def adaptive(self) -> bool:
        """Whether the method stops adaptively (AdaptiveStop: `stop=adaptive`)."""
        return False

    def stability(self) -> StabilityOptions | None:
        """The rule's parameters when the method stops adaptively; None otherwise."""
        if not self.adaptive():
            return None
        return StabilityOptions(
            threshold=self.stop_threshold,
            stable_rounds=self.stop_stable_rounds,
            min_rounds=self.stop_min_rounds,
            window=self.stop_window,
            em_iterations=self.stop_em_iterations,
            em_tolerance=self.stop_em_tolerance,
        )

    def validate(self) -> None:
        super().validate()
        if self.adaptive():
            return
        for f in fields(StabilityParameters):
            if getattr(self, f.name) != f.default:
                allowed = f"its default unless the method stops adaptively ({self.STOP_SWITCH})"
                raise OptionError(f.name, getattr(self, f.name), allowed)


@dataclass(frozen=True)
class AdaptiveStop(StabilityParameters):
    """The options of a multi-round method with votes or verdicts that may stop adaptively
    (`-S stop=adaptive`); a method without this base refuses `stop` before any call."""

    stop: str = option(
        "fixed",
        "fixed (the method's own rounds and stop rules) or adaptive (also stop once the panel's "
        "agreement is stable, Hu et al. 2025: docs/adaptive-stopping.md; rounds is then the cap).",
        lambda name, v: one_of(name, v, STOPS),
    )

    def adaptive(self) -> bool:
        return self.stop == "adaptive"


def embedder_option(doc: str) -> Any:
    return option("hashing", doc, embedder_spec)


def factory_parameters(cls: type[Options], groups: Sequence[str] | None) -> list[Field[Any]]:
    """The fields a factory shows: those of `groups` ('' is every factory's; without `groups`, all
    but the `internal` ones, which the factory sets), the method's own first and the shared groups
    (answer format, generation) last."""

    def shows(group: str) -> bool:
        return group != "internal" if groups is None else group in groups

    shown = [f for f in fields(cls) if shows(f.metadata.get("group", ""))]  # type: ignore[arg-type]
    depth = {}
    for level, klass in enumerate(reversed(cls.__mro__)):
        for name in vars(klass).get("__annotations__", {}):
            depth[name] = level  # the class that (re)declares it last
    return sorted(shown, key=lambda f: -depth[f.name])


def options_factory(
    cls: type[O],
    build: Callable[[O], R],
    kind: str,
    *,
    groups: Sequence[str] | None = None,
    error: Callable[[OptionError], Exception] = lambda e: e,
    **preset: Any,
) -> Callable[..., R]:
    """`build(options)` as a factory of keyword arguments: `factory(agents=4)` makes `cls` from
    them (a bad or unknown name raises `error(OptionError)`, naming `kind`) and calls `build`. The
    factory's signature and docstring list the fields (of `groups`), so Inspect records every
    value of a run and `help()` documents them. `preset` sets a shown field's default, or fixes a
    field the factory does not show."""
    params = factory_parameters(cls, groups)
    names = [f.name for f in params]

    def factory(**given: Any) -> R:
        unknown = [n for n in given if n not in names]
        try:
            if unknown:
                raise OptionError(
                    unknown[0],
                    given[unknown[0]],
                    f"no such option ({build.__name__} takes {', '.join(names)})",
                    kind,
                )
            opts = cls(**{**preset, **given})
        except OptionError as e:
            raise error(e.of(kind)) from None
        return build(opts)

    def default(f: Field[Any]) -> Any:
        return preset.get(f.name, f.default if f.default is not MISSING else None)

    factory.__name__ = factory.__qualname__ = build.__name__
    factory.__module__ = build.__module__
    factory.__doc__ = (
        (build.__doc__ or "").rstrip()
        + "\n\n    Args:\n"
        + "".join(f"        {f.name}: {f.metadata['doc']}\n" for f in params)
    )
    keyword = inspect.Parameter.KEYWORD_ONLY
    factory.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [inspect.Parameter(f.name, keyword, default=default(f), annotation=f.type) for f in params],
        return_annotation=inspect.signature(build).return_annotation,
    )
    return factory

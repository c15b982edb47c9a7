"""What a method is, declared once beside its algorithm (`MethodSpec`), and the catalogue that holds
the specs (`Catalogue`; the package's is `catalogue.CATALOGUE`).

Every host makes a method from its spec alone: the Inspect solvers (`solvers/`), lm-eval's `mad`,
the OpenAI-evals completion functions, `on_demand`'s `debate=`, and what reads a method's record
back (`transitions.py`). So a host names no method, and a method added to the catalogue, by the
package or by a user, runs in every host.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from .answers import AnswerFormat
from .checks import OptionError
from .embeddings import Embedder, PairScorer
from .limits import within_limits
from .options import Options, options_factory
from .records import AgentAnswer, DebateResult

# A prepared method: `run(session)` for a method that answers the session's question; a method
# that reads more of a sample (`MethodSpec.reads`) takes that too: `run(session, pair)`.
Run = Callable[..., Awaitable[DebateResult]]


class Setup(Protocol):
    """What a host offers the methods it prepares."""

    def embedder(self, spec: str) -> Embedder:
        """The embedder `spec` names (`hashing`, `sentence-transformers/<model>`, ...) for the
        method being prepared; `OptionError` naming `embedder` when this host cannot make it."""
        ...

    def pair_scorer(self, option: str, spec: str) -> PairScorer:
        """The pair scorer `spec` names (`hashing`, `cross-encoder/<model>`) for the option
        `option`; `OptionError` naming it when this host cannot make it."""
        ...


@dataclass(frozen=True)
class FirstVote:
    """The vote of a method's first answers under its own tie rule (`transitions.py`)."""

    winner: str | None
    tie: bool
    rule: str  # which rule made `winner`, as the record's reader shows it


FirstRule = Callable[[DebateResult, Sequence[AgentAnswer], AnswerFormat], FirstVote]
# the authors' form of a task's answer format (engine/authors_forms.py), None where they have none
AuthorsForm = Callable[[AnswerFormat], AnswerFormat | None]


def members(family: str, count: int, first: int = 1) -> tuple[str, ...]:
    """A panel's roles: the family (`agent`) and its `count` numbered members from `first`
    (`agent_1` ... `agent_N`), each falling back to the family (engine/panels.py)."""
    return (family, *(f"{family}_{i}" for i in range(first, first + count)))


def agent_roles(options: Any) -> tuple[str, ...]:
    """The model roles of a method whose agents are `agent_1` ... `agent_N` (`agents`), each
    falling back to the shared `agent`."""
    return members("agent", getattr(options, "agents", 0))


@dataclass(frozen=True)
class MethodSpec:
    """One method as every host needs it.

    `prepare(options, setup)` makes the method ready for a host, once, before any model call: it
    loads what the options name (an embedder, a retriever), raising `OptionError` when it cannot,
    and returns the `Run`. `groups` and `preset` choose the fields of `options` the method shows
    and fix or default the others (`options_factory`). `reads` is the type of what a sample gives
    the method beyond its question (None: the question alone, an answer-producing method); each
    host reads it from its samples. `debate`: whether `on_demand` may run it as its debate (an
    answer-producing method that is more than one agent's answer). `first_answers` and
    `first_vote` override how its first answers are found and voted when its record is read
    (`transitions.py`: round 1, by plurality). `roles`: the model roles its calls run on, for
    hosts that bind them by name; a family with numbered members (`members`) is a panel, which a
    list of models may be bound to, and every other role takes one model (engine/panels.py).
    `authors_form`: the answer form the method's authors' code asks for, which
    `-S answer_form=authors` asks for and reads instead of the project's ANSWER line (None: the
    method refuses that option)."""

    name: str
    summary: str  # one line: the solver's docstring
    options: type[Options]
    prepare: Callable[[Any, Setup], Run]
    reads: type | None = None
    groups: tuple[str, ...] | None = None
    preset: Mapping[str, Any] = field(default_factory=dict)
    debate: bool = True
    first_answers: Callable[[DebateResult], list[AgentAnswer]] | None = None
    first_vote: FirstRule | None = None
    roles: Callable[[Any], tuple[str, ...]] = agent_roles
    doc: str = ""  # what the solver's help says after the summary
    authors_form: AuthorsForm | None = None

    @property
    def answers(self) -> bool:
        """Whether it answers the sample's question in the task's answer format."""
        return self.reads is None

    def defaults(self) -> dict[str, Any]:
        """The options a run of the method has when it is given none, as its record keeps them."""
        return self.options(**self.preset).record()

    def ready(self, options: Any, setup: Setup) -> Run:
        """What a host runs: `authored`'s run, ended with no answer at a limit it has no rule for
        (`limits.within_limits`), so a limit never fails a sample."""
        return within_limits(self.name, self.authored(options, setup))

    def authored(self, options: Any, setup: Setup) -> Run:
        """`prepare`'s run, asking for and reading its authors' answer form under `-S
        answer_form=authors` (a host that handles limits itself, as the judge scorers do)."""
        run = self.prepare(options, setup)
        if getattr(options, "answer_form", "project") == "authors":
            run = self._in_authors_form(run)
        return run

    def _in_authors_form(self, run: Run) -> Run:
        """`run` asking for and reading its authors' answer form; `OptionError` naming
        `answer_form` now if the method has none, or before a sample's first call if its authors
        have none for the task's answer format."""
        form = self.authors_form
        if form is None:
            allowed = f"project ({self.name} declares no authors' answer form)"
            raise OptionError("answer_form", "authors", allowed)

        async def authored(session: Any, *sample: Any) -> DebateResult:
            fmt = session.problem.fmt
            theirs = form(fmt)
            if theirs is None:
                allowed = f"project ({self.name}'s authors ask for no form of {fmt.name} answers)"
                raise OptionError("answer_form", "authors", allowed)
            session.problem = replace(session.problem, fmt=theirs)
            return await run(session, *sample)

        return authored

    def factory(self, kind: str, **defaults: Any) -> Callable[..., Any]:
        """The checked options from keyword arguments, as the method's solver takes them; a bad or
        unknown one raises `OptionError` naming `kind` (solver, model_args, ...). `defaults` are
        the host's own defaults."""

        def build(options: Options) -> Options:
            return options

        build.__name__ = self.name  # the error for an unknown option names the method
        return options_factory(
            self.options, build, kind, groups=self.groups, **{**self.preset, **defaults}
        )


class Catalogue:
    """Method specs by name. A host reads it when it builds a method; one that offers every
    method by name (the Inspect registry) registers those here and subscribes to those added
    later."""

    def __init__(self, *specs: MethodSpec) -> None:
        self._specs: dict[str, MethodSpec] = {}
        self._subscribers: list[Callable[[MethodSpec], None]] = []
        for spec in specs:
            self.add(spec)

    def add(self, spec: MethodSpec) -> MethodSpec:
        """Add a method (a name is taken once); every subscriber is told."""
        if spec.name in self._specs:
            raise ValueError(f"a method named {spec.name!r} is already in the catalogue")
        self._specs[spec.name] = spec
        for tell in self._subscribers:
            tell(spec)
        return spec

    def remove(self, name: str) -> MethodSpec:
        """Take a method out (one added for a while: a test's, a notebook's draft, to be added
        again changed); a host that registered it by name keeps it until its process ends."""
        return self._specs.pop(name)

    def subscribe(self, tell: Callable[[MethodSpec], None]) -> None:
        """Call `tell` with every method added from now on."""
        self._subscribers.append(tell)

    def __getitem__(self, name: str) -> MethodSpec:
        return self._specs[name]

    def get(self, name: str) -> MethodSpec | None:
        return self._specs.get(name)

    def __iter__(self) -> Iterator[MethodSpec]:
        return iter(list(self._specs.values()))

    def names(self) -> tuple[str, ...]:
        return tuple(self._specs)

    def answering(self) -> dict[str, MethodSpec]:
        """The methods that answer the sample's question (the other hosts' methods)."""
        return {s.name: s for s in self if s.answers}

    def reading(self, kind: type) -> dict[str, MethodSpec]:
        """The methods that read `kind` from a sample (the judges read a `Pair`)."""
        return {s.name: s for s in self if s.reads is kind}

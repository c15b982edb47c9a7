"""Every method of the catalogue (`engine/catalogue.py`) as an Inspect solver, registered as
`mad_tasks/<name>` and, where the name is free, as `<name>`, as the catalogue gets it (a method
added later included). A solver's `-S` options are the fields of its method's options, checked
before any model call; its signature and help list them, and the log's plan records every value.
`from mad_tasks.solvers import du_debate` gives a solver's factory.

Each kind of sample gives its method what the method reads (`MethodSpec.reads`): the question
alone (`question.py`), a pair of answers (`answer_pair.py`), two papers (`paper_pair.py`), a
query's candidates or two queries' references (`projects.py`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from inspect_ai.solver import Generate, Solver, TaskState, solver

from .._aliases import register_short_aliases
from .._inspect_sample import save_result
from ..engine.catalogue import CATALOGUE
from ..engine.checks import OptionError
from ..engine.methods.d3.court import Pair
from ..engine.methods.pd3.feedback import SidePair
from ..engine.methods.pd3.query import Retrieval
from ..engine.methods.tod.papers import PaperPair
from ..engine.options import options_factory
from ..engine.records import DebateResult
from ..engine.spec import MethodSpec, Run
from ..inspect_runtime import SETUP
from ..prices import check_run_prices
from .answer_pair import judge_sample
from .paper_pair import compare_sample
from .projects import compare_projects_sample, retrieve_sample
from .question import answer_sample

Reader = Callable[[TaskState, Any, Run, Sequence[str]], Awaitable[DebateResult]]
# how a sample gives a method what it reads
READERS: dict[type | None, Reader] = {
    None: answer_sample,
    Pair: judge_sample,
    PaperPair: compare_sample,
    Retrieval: retrieve_sample,
    SidePair: compare_projects_sample,
}


def solver_of(spec: MethodSpec) -> Callable[..., Solver]:
    """The method as an Inspect solver factory, registered under `mad_tasks/<name>`."""
    read = READERS[spec.reads]

    def build(options: Any) -> Solver:
        check_run_prices()  # `inspect eval --model-cost-config` has applied it unchecked
        try:  # what the options name (an embedder, a retriever), before any eval starts
            run = spec.ready(options, SETUP)
        except OptionError as e:
            raise e.of("solver") from None

        async def solve(state: TaskState, generate: Generate) -> TaskState:
            try:
                result = await read(state, options, run, roles)
            except OptionError as e:  # one the sample decides, before its first call
                raise e.of("solver") from None
            save_result(state, result, chosen)
            return state

        chosen = options.record()  # the label names those that differ from the defaults
        roles = spec.roles(options)  # a list bound to one of them is checked before any call

        return solve

    build.__name__ = build.__qualname__ = spec.name
    build.__module__ = __name__  # the registry names it mad_tasks/<name>
    build.__doc__ = spec.summary + (f"\n\n    {spec.doc}" if spec.doc else "")
    factory = options_factory(spec.options, build, "solver", groups=spec.groups, **spec.preset)
    return solver(name=spec.name)(factory)


SOLVERS: dict[str, Callable[..., Solver]] = {spec.name: solver_of(spec) for spec in CATALOGUE}
register_short_aliases(list(SOLVERS.values()))


def _register(spec: MethodSpec) -> None:
    """A method added to the catalogue later: its solver, registered as the package's are."""
    SOLVERS[spec.name] = solver_of(spec)
    register_short_aliases([SOLVERS[spec.name]])


CATALOGUE.subscribe(_register)


def __getattr__(name: str) -> Callable[..., Solver]:
    if name in SOLVERS:
        return SOLVERS[name]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *SOLVERS])

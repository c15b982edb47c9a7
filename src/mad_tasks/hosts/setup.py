"""What the hosts outside Inspect (lm-eval's `mad`, the OpenAI-evals completion functions) offer a
method they prepare (`engine/spec.Setup`), and how they name the methods they do not run."""

from __future__ import annotations

from collections.abc import Iterable

from ..engine.checks import OptionError
from ..engine.embeddings import Embedder, PairScorer, load_embedder, load_pair_scorer
from ..engine.spec import MethodSpec


class HostSetup:
    def embedder(self, spec: str) -> Embedder:
        """One embedder for every debate of a host. The `openai` embedder's client belongs to the
        event loop it first ran on, and these hosts run a loop per call or per batch."""
        if spec.partition("/")[0] == "openai":
            raise OptionError(
                "embedder",
                spec,
                "hashing or sentence-transformers (the openai embedder runs under Inspect only)",
            )
        return load_embedder(spec)

    def pair_scorer(self, option: str, spec: str) -> PairScorer:
        return load_pair_scorer(option, spec)


SETUP = HostSetup()


def not_hosted(specs: Iterable[MethodSpec]) -> str:
    """The methods a host cannot run, grouped by what their samples carry that its requests do
    not: `more, samre (a pair of answers), pd3 (a query's candidates)`."""
    by_input: dict[type, list[str]] = {}
    for spec in specs:
        if spec.reads is not None:
            by_input.setdefault(spec.reads, []).append(spec.name)
    return ", ".join(
        f"{', '.join(names)} ({getattr(kind, 'WHAT', kind.__name__)})"
        for kind, names in by_input.items()
    )

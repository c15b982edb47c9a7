"""A host's `roles` argument (OpenAI evals' completion functions, lm-eval's `mad` model): each role
a method calls bound to one model or to a list of them, a panel (engine/panels.py), checked
before any call; and what the record says each called role ran on."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from ..engine.checks import OptionError
from ..engine.panels import Bound, refusal, resolve

T = TypeVar("T")


def bind_roles(
    roles: Any,
    declared: Sequence[str],
    one: Callable[[str, Any], T],
    what: str,
    kind: str = "",
) -> dict[str, T | list[T]]:
    """`roles` checked: a mapping of a role the method calls (`declared`) to one model or a list
    of them, each read by `one(option, value)` (which raises `OptionError` naming `option`:
    `roles.<role>`, or `roles.<role>[i]` in a list). `what` says what one model is. A list
    where the method takes one model, a list longer than its panel, or an empty list is refused
    naming `roles.<role>` (`panels.refusal`), before any call. Never the first model silently."""
    if roles is None:
        return {}
    if not isinstance(roles, Mapping):
        allowed = f"a mapping of role to {what}, or to a list of them (a panel)"
        raise OptionError("roles", roles, allowed, kind)
    for role in roles:
        if role not in declared:
            allowed = f"a role this method calls: {', '.join(declared)}"
            raise OptionError("roles", role, allowed, kind)
    lists = {r: [str(m) for m in v] for r, v in roles.items() if isinstance(v, list | tuple)}
    refused = refusal(declared, lists)
    if refused is not None:
        raise OptionError(f"roles.{refused.role}", roles[refused.role], refused.allowed, kind)
    return {
        role: [one(f"roles.{role}[{i}]", m) for i, m in enumerate(given)]
        if isinstance(given, list | tuple)
        else one(f"roles.{role}", given)
        for role, given in roles.items()
    }


def resolved(
    role: str,
    bindings: Mapping[str, T | list[T]],
    declared: Sequence[str],
    default: T,
    fallback: str,
) -> Bound[T]:
    """The model of a call on `role` and where it came from; unbound, the host's `default`, its
    fallback named `fallback`."""
    return resolve(role, bindings, declared) or Bound(default, fallback)

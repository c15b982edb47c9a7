"""A role bound to a list of models is a panel (Inspect's list-bound model roles, and the same
lists in the other hosts' `roles`): the rules that decide which model each call runs on, and
which bindings a method refuses before its first call.

A method declares the roles its calls run on (`MethodSpec.roles`). A numbered role (`agent_3`,
`juror_2`, `author_0`) is a member of the family its name begins with (`agent`), and its *seat* is
its place among that family's declared members (`agent_1` seat 0, `agent_2` seat 1; `author_0`
seat 0). A family with declared members is a panel: bound to a list of n models, the member in
seat s runs on model s mod n, unless the member itself is bound (then its own binding wins). A
role declared without members makes one call where it is asked (a judge, a moderator, a senior
expert): bound to a list it is refused, since no rule here combines several models' replies for
it, and so is a member bound to a list, and a list longer than its panel's seats (models no
member would run on). Never the first model silently.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from .runtime import role_candidates

T = TypeVar("T")


@dataclass(frozen=True)
class Seat:
    """A member's family and its place among the family's declared members (from 0)."""

    family: str
    index: int


@dataclass(frozen=True)
class Pick:
    """Where a call's model comes from: the bound role `binding` (the call's own role or its
    family's) and, for a list, which of its `size` models (`index`); None for the host's default
    model."""

    binding: str
    index: int | None = None
    size: int | None = None


def seats(declared: Sequence[str]) -> dict[str, Seat]:
    """Every declared numbered role's seat, in declared order within its family."""
    found: dict[str, Seat] = {}
    taken: dict[str, int] = {}
    for role in declared:
        candidates = role_candidates(role)
        if len(candidates) == 2 and role not in found:
            family = candidates[1]
            found[role] = Seat(family, taken.get(family, 0))
            taken[family] = taken.get(family, 0) + 1
    return found


def panels(declared: Sequence[str]) -> dict[str, list[str]]:
    """Each family with declared members: its members in seat order."""
    found: dict[str, list[str]] = {}
    for role, seat in seats(declared).items():
        found.setdefault(seat.family, []).append(role)
    return found


def called(declared: Sequence[str]) -> tuple[str, ...]:
    """The declared roles a call runs on: all but the families with members (whose members'
    calls fall back to them)."""
    families = panels(declared)
    return tuple(r for r in declared if r not in families)


def named(roles: Sequence[str]) -> list[str]:
    """The roles to ask a user to bind for these: a member by its family (`juror` for
    `juror_2`), each once, in order."""
    return list(dict.fromkeys(role_candidates(r)[-1] for r in roles))


def pick(role: str, bound: Mapping[str, int | None], declared: Sequence[str]) -> Pick | None:
    """The binding a call on `role` runs on, given every bound role and its list's length (None
    for one model). A member falling back to a list-bound family takes the model of its seat; a
    list-bound role with no seat raises `PanelError` (refused before any call by `refusal`, so
    only a role the method never declared reaches it)."""
    for candidate in role_candidates(role):
        if candidate not in bound:
            continue
        size = bound[candidate]
        if size is None:
            return Pick(candidate)
        seat = seats(declared).get(role)
        if candidate == role or seat is None:
            raise PanelError(role, candidate, size, "a role bound to one model")
        return Pick(candidate, seat.index % size, size)
    return None


@dataclass(frozen=True)
class Bound(Generic[T]):
    """A call's model as a host binds it (`resolve`): the `model` (the host's own kind: an
    endpoint, a backend), the binding it came through (`fallback`: None for the call's own role,
    else its family's), and for a list its `position` in it (from 1) of `panel` models."""

    model: T
    fallback: str | None
    position: int | None = None
    panel: int | None = None

    def shown(self) -> dict[str, str | int | None]:
        """What a record says beside the model of where it came from, as the Inspect runtime
        records it: the fallback, and for a panel the model's position and the panel's size."""
        if self.panel is None:
            return {"fallback": self.fallback}
        return {"fallback": self.fallback, "position": self.position, "panel": self.panel}


def resolve(
    role: str, bindings: Mapping[str, T | list[T]], declared: Sequence[str]
) -> Bound[T] | None:
    """The model of a call on `role`, from a host's bindings (each role to one model or a list of
    them), by `pick`; None when no binding reaches the role (the host's default model)."""
    sizes = {r: len(b) if isinstance(b, list) else None for r, b in bindings.items()}
    chosen = pick(role, sizes, declared)
    if chosen is None:
        return None
    fallback = None if chosen.binding == role else chosen.binding
    bound = bindings[chosen.binding]
    if chosen.index is None:
        return Bound(cast(T, bound), fallback)
    return Bound(cast(list[T], bound)[chosen.index], fallback, chosen.index + 1, chosen.size)


def refusal(declared: Sequence[str], lists: Mapping[str, Sequence[str]]) -> PanelError | None:
    """Why a method declaring `declared` cannot run with these list-bound roles (each role to its
    models), or None. Roles the method does not declare are not its concern."""
    members = seats(declared)
    families = panels(declared)
    for role, models in lists.items():
        if role not in declared and role not in families:
            continue
        if not models:
            return PanelError(role, role, 0, "a list of at least one model")
        if role in members:
            family = members[role].family
            return PanelError(
                role, role, len(models),
                f"one model: {role} is one member of the {family} panel (bind a list to "
                f"{family} for every member)",
                models,
            )  # fmt: skip
        if role in families:
            held = families[role]
            if len(models) > len(held):
                return PanelError(
                    role, role, len(models),
                    f"at most {len(held)} models, one per member ({', '.join(held)}): more "
                    "would leave a model no member runs on",
                    models,
                )  # fmt: skip
            continue
        offered = ", ".join(f"{f} ({len(m)} members)" for f, m in families.items())
        return PanelError(
            role, role, len(models),
            f"one model: {role} makes one call where it is asked, and this method has no rule "
            "to combine several models' replies for it"
            + (f"; its panels are {offered}" if offered else ""),
            models,
        )  # fmt: skip
    return None


class PanelError(ValueError):
    """A role bound to a list where a list is not allowed: names the role, the list and what is
    allowed."""

    def __init__(
        self,
        role: str,
        binding: str,
        size: int,
        allowed: str,
        models: Sequence[str] = (),
    ) -> None:
        self.role, self.binding, self.size, self.allowed = role, binding, size, allowed
        self.models = tuple(models)
        shown = f"[{', '.join(models)}]" if models else f"a list of {size} models"
        where = role if binding == role else f"{role} (through {binding})"
        super().__init__(f"model role {where} is bound to {shown}; allowed: {allowed}")

    def __reduce__(self) -> tuple[object, ...]:
        return PanelError, (self.role, self.binding, self.size, self.allowed, self.models)

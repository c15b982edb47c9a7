"""Prompt templates a user may replace, as Inspect's own solvers take a `template`.

A template is a named piece of a method's wording with `{placeholders}` that the method fills in.
`-S templates='{"debate_update": "..."}'` replaces some of a solver's templates; each replacement
is checked before any model call: its name must be one of the solver's templates, and it may use
that template's placeholders only (any of them, in any order, each as a plain `{name}`; write `{{`
and `}}` for literal braces). What a call asks for is also described in values (`Call.asks`), so a
reworded prompt changes what the model reads and nothing else.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import OptionError
from .content import Content, Question, compose


@dataclass(frozen=True)
class Template:
    text: str
    doc: str  # what the template is for, and its placeholders

    @property
    def placeholders(self) -> frozenset[str]:
        return frozenset(name for _, name, _, _ in string.Formatter().parse(self.text) if name)


def check_templates(
    option: str, value: Any, templates: Mapping[str, Template]
) -> dict[str, str] | None:
    """The replacements in `value` ({name: text}), or None for none; an unknown name, a
    placeholder the template does not have, or malformed braces raise `OptionError`."""
    if value is None:
        return None
    allowed = "{name: text} with names from " + ", ".join(
        f"{name} ({', '.join(sorted(t.placeholders)) or 'no placeholders'})"
        for name, t in templates.items()
    )
    if not isinstance(value, Mapping):
        raise OptionError(option, value, allowed)
    for name, text in value.items():
        if name not in templates or not isinstance(text, str) or not text.strip():
            raise OptionError(option, value, allowed)
        try:
            used = [(f, spec, conv) for _, f, spec, conv in string.Formatter().parse(text)]
        except ValueError:  # an unmatched brace
            raise OptionError(option, value, allowed) from None
        for field, spec, conversion in used:
            plain = field is None or (field in templates[name].placeholders and not spec)
            if not plain or conversion:
                raise OptionError(option, value, allowed)
    return dict(value)


def fill(templates: Mapping[str, Template], replaced: Mapping[str, str] | None, name: str,
         **values: str | Question) -> Content:  # fmt: skip
    """Template `name`, the user's replacement if there is one, with its placeholders filled; a
    question fills its placeholder with all of its parts, in order."""
    text = (replaced or {}).get(name, templates[name].text)
    pieces: list[str | Question] = []
    for literal, field, _, _ in string.Formatter().parse(text):
        pieces.append(literal)
        if field is not None:
            pieces.append(values[field])
    return compose(*pieces)

"""The sample's input as the engine carries it: ordered parts, opaque beyond their text.

A part is either text (a `str`) or anything else the runtime understands (Inspect's image, audio,
video or document content), passed through untouched: the engine never reads, converts, drops or
reorders a non-text part, and stays free of any framework's types. A message's content is a plain
string when all of it is text (so a text-only sample's prompts are strings, as before), else a
tuple of parts.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

Part = object  # a `str` is text; any other value is a non-text part the runtime sends as it is
Content = str | tuple[Part, ...]
Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Msg:
    """One message of a conversation the engine builds."""

    role: Role
    content: Content  # text, or the parts of a message that shows non-text parts

    @property
    def text(self) -> str:
        return text_of(self.content)


@dataclass(frozen=True)
class Question:
    """What the task asks: the question's parts in order, and the earlier turns of a chat-shaped
    input (few-shot examples), which go in front of every agent's conversation."""

    parts: tuple[Part, ...]
    turns: tuple[Msg, ...] = ()

    @staticmethod
    def of(parts: Sequence[Part], turns: Sequence[Msg] = ()) -> Question:
        """Neighbouring text parts joined by a newline (as Inspect's `ChatMessage.text` joins
        them), empty ones left out; every other part kept in its place."""
        kept: list[Part] = []
        for part in parts:
            if isinstance(part, str) and kept and isinstance(kept[-1], str):
                kept[-1] = f"{kept[-1]}\n{part}"
            elif part != "":
                kept.append(part)
        return Question(tuple(kept), tuple(turns))

    @property
    def text(self) -> str:
        """The text parts, joined by newlines (as Inspect's `ChatMessage.text`)."""
        return text_of(self.parts)

    @property
    def media(self) -> tuple[Part, ...]:
        """The non-text parts of the earlier turns and of the question, in order."""
        return tuple(p for c in (*(t.content for t in self.turns), self.parts) for p in media_of(c))

    def without_media(self) -> Question:
        """The text alone, for a model that takes text only (when the user opted in)."""
        return Question((self.text,), tuple(Msg(t.role, t.text) for t in self.turns))


def compose(*pieces: str | Question | Content) -> Content:
    """The pieces in order as one message's content: a question contributes all of its parts;
    neighbouring text is joined as written (the pieces carry their own separators)."""
    parts: list[Part] = []
    for piece in pieces:
        items = piece.parts if isinstance(piece, Question) else (
            (piece,) if isinstance(piece, str) else piece
        )  # fmt: skip
        for item in items:
            if isinstance(item, str) and parts and isinstance(parts[-1], str):
                parts[-1] += item
            elif not (isinstance(item, str) and not item):
                parts.append(item)
    if all(isinstance(p, str) for p in parts):
        return "".join(p for p in parts if isinstance(p, str))
    return tuple(parts)


def text_of(content: Content | tuple[Part, ...]) -> str:
    """The text of a message's content, its text parts joined by newlines."""
    if isinstance(content, str):
        return content
    return "\n".join(p for p in content if isinstance(p, str))


def media_of(content: Content | tuple[Part, ...]) -> tuple[Part, ...]:
    return () if isinstance(content, str) else tuple(p for p in content if not isinstance(p, str))


# a lone surrogate: no log and no request can encode it, so one in a reply would fail the eval when
# the reply is stored or sent back
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str) -> tuple[str, int]:
    """The text as valid Unicode, each lone surrogate replaced by U+FFFD, and how many were."""
    return _LONE_SURROGATE.subn("\ufffd", text)

"""The facts of the challenge stage's `information` variant (Kaesberg et al. 2025, §4.2).

The paper shows the agents facts retrieved from Wikipedia for the task; MALLM's code asks a
Wikipedia retrieval service (`contextplus`) with the task's text. Here the facts come from a local
file of passages (`challenge_facts`), ranked against the task's text with the project's offline
BM25 retriever (`engine/retrieval.py`): the same file gives the same facts, with no network.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...checks import OptionError
from ...retrieval import LexicalRetriever

_BLANK_LINE = re.compile(r"\n\s*\n")
MAX_BYTES = 50_000_000  # a passages file larger than this is refused (it is read whole)


def passages(text: str) -> list[str]:
    """The passages of a facts file: its paragraphs (split at blank lines), each stripped and
    with its lines joined; empty ones left out."""
    return [" ".join(p.split()) for p in _BLANK_LINE.split(text) if p.strip()]


class Facts:
    """The `k` passages of a file that best match a task, joined as one text."""

    def __init__(self, chunks: list[str], k: int) -> None:
        self._retriever = LexicalRetriever(chunks, 0)
        self._k = k

    @staticmethod
    def load(path: str, k: int) -> Facts:
        """The passages of the file at `path`; an `OptionError` naming `challenge_facts` when it
        cannot be read or holds no passage (raised before any model call)."""
        try:
            file = Path(path)
            if file.stat().st_size > MAX_BYTES:
                raise ValueError(f"larger than {MAX_BYTES} bytes")
            chunks = passages(file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise OptionError("challenge_facts", path, f"a readable text file ({e})") from None
        if not chunks:
            raise OptionError("challenge_facts", path, "a text file holding at least one passage")
        return Facts(chunks, k)

    def about(self, task: str) -> str:
        """The best passages for the task's text, best first, one paragraph each."""
        return "\n\n".join(e.text for e in self._retriever.search(task, self._k))

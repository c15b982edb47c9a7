"""What the benchmark tasks share: the papers' subset sizes, the local-file-or-public-source choice,
record checks that name the bad record, multiple-choice samples, and the task skeleton (prompt in
setup, `du_debate` by default, the source recorded in the log).
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer, choice
from inspect_ai.solver import prompt_template

from ..scorers.debate_stats import debate_stats
from ..solvers.du_debate import du_debate
from ._data import hf_records, pick, read_records

Record = dict[str, Any]
# (record, where it is for error messages, its 1-based number in the file) -> sample
ToSample = Callable[[Record, str, int], Sample]

LETTERS = string.ascii_uppercase


@dataclass(frozen=True)
class Subset:
    """Which records a task keeps: all, the first `size`, or a paper's size drawn at random."""

    size: int | None
    preset: str | None
    shuffle: bool
    seed: int

    def take(self, samples: list[Sample], source: str) -> list[Sample]:
        if self.preset is not None and self.size is not None and len(samples) < self.size:
            raise ValueError(
                f"task option 'subset': {self.preset!r} takes {self.size} records, but {source} "
                f"has only {len(samples)}"
            )
        return pick(samples, self.shuffle, self.seed, self.size)

    def metadata(self) -> dict[str, Any]:
        return {"subset": self.preset or self.size, "shuffle": self.shuffle, "seed": self.seed}


def subset_option(
    subset: int | str | None, shuffle: bool | None, seed: int, presets: dict[str, int]
) -> Subset:
    """Check `-T subset=` before any download. A preset draws a seeded random subset, as the papers
    did, unless `shuffle=false` asks for the first records."""
    if isinstance(subset, str):
        if subset not in presets:
            allowed = ", ".join(f"{name} ({n})" for name, n in presets.items())
            raise ValueError(
                f"invalid task option 'subset': got {subset!r}, allowed: a number >= 1 or {allowed}"
            )
        return Subset(presets[subset], subset, True if shuffle is None else shuffle, seed)
    if subset is not None and (
        isinstance(subset, bool) or not isinstance(subset, int) or subset < 1
    ):
        raise ValueError(f"invalid task option 'subset': must be a number >= 1, got {subset!r}")
    return Subset(subset, None, bool(shuffle), seed)


def check_choice(option: str, value: str, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(
            f"invalid task option '{option}': got {value!r}, allowed: {', '.join(allowed)}"
        )


def local_or(
    data_path: str | None, fetch: Callable[[], tuple[list[Record], str]]
) -> tuple[list[Record], str]:
    """The records of the local file, else of the pinned public source, with where they came from."""
    if data_path is not None:
        return read_records(data_path), data_path
    return fetch()


def hf_load(path: str, split: str, name: str | None, revision: str) -> tuple[list[Record], str]:
    """Rows of a Hub dataset at a pinned revision, and the source as the log records it."""
    rows = hf_records(path, split, name=name, revision=revision)
    config = f"{name}/{split}" if name else split
    return rows, f"https://huggingface.co/datasets/{path} ({config}) @ {revision}"


def benchmark_task(
    name: str,
    records: list[Record],
    source: str,
    to_sample: ToSample,
    subset: Subset,
    prompt: str,
    scorer: list[Scorer],
    **metadata: Any,
) -> Task:
    samples = [to_sample(r, f"{source}: record {i + 1}", i + 1) for i, r in enumerate(records)]
    return Task(
        dataset=MemoryDataset(subset.take(samples, source), name=name),
        setup=prompt_template(prompt),
        solver=du_debate(),
        scorer=scorer,
        metadata={"source": source, **subset.metadata(), **metadata},
        version=1,
    )


def mc_scorers() -> list[Scorer]:
    """Inspect's `choice()` reads the option the solver marked; `debate_stats` the debate record."""
    return [choice(), debate_stats()]


# -- record fields -----------------------------------------------------------------------------


def text_field(record: Record, key: str, where: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where}: '{key}' must be a non-empty string, got {value!r:.80}")
    return value.strip()


def options_field(options: Any, key: str, where: str) -> list[str]:
    """A list of 2 to 26 options, each a non-empty string (numbers are read as text)."""
    texts = [
        str(o).strip() if isinstance(o, (str, int, float)) and not isinstance(o, bool) else ""
        for o in (options if isinstance(options, list) else [])
    ]
    if not 2 <= len(texts) <= len(LETTERS) or not all(texts):
        raise ValueError(
            f"{where}: '{key}' must be a list of 2 to 26 non-empty options, got {options!r:.80}"
        )
    return texts


def answer_letter(value: Any, n_options: int, key: str, where: str) -> str:
    """The correct option as a letter, from its 0-based index or its letter."""
    if isinstance(value, str) and value.strip().isdigit():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < n_options:
        return LETTERS[value]
    letter = value.strip().upper() if isinstance(value, str) else ""
    if len(letter) == 1 and letter in LETTERS[:n_options]:
        return letter
    raise ValueError(
        f"{where}: '{key}' must be an option index 0-{n_options - 1} or a letter "
        f"A-{LETTERS[n_options - 1]}, got {value!r:.80}"
    )

"""What the benchmark tasks share: the papers' subset sizes, the local-file-or-public-source choice,
record checks that name the bad record, multiple-choice samples, and the task skeleton (prompt in
setup, `du_debate` by default, the source recorded in the log).
"""

from __future__ import annotations

import math
import string
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from inspect_ai import Task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.scorer import Scorer, choice
from inspect_ai.solver import prompt_template
from inspect_ai.util import registry_info

from ..engine.answers import MAX_DIGITS, normalise_number
from ..engine.checks import OptionError, boolean, integer, one_of, optional, shown, text
from ..scorers.figures import samples_view
from ..solvers import du_debate
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
        """The samples kept; a source without any, or with one sample id twice, is refused
        naming it (Inspect would run the first or fail with no file named)."""
        if not samples:
            raise ValueError(f"{source}: no records to evaluate")
        seen: dict[object, int] = {}
        for n, sample in enumerate(samples, 1):
            if sample.id is not None and seen.setdefault(sample.id, n) != n:
                raise ValueError(
                    f"{source}: records {seen[sample.id]} and {n} have the same sample id "
                    f"{sample.id!r}; every id must be unique"
                )
        if self.preset is not None and self.size is not None and len(samples) < self.size:
            raise ValueError(
                f"task option 'subset': {self.preset!r} takes {self.size} records, but {source} "
                f"has only {len(samples)}"
            )
        return pick(samples, self.shuffle, self.seed, self.size)

    def metadata(self) -> dict[str, Any]:
        return {"subset": self.preset or self.size, "shuffle": self.shuffle, "seed": self.seed}


def subset_option(subset: Any, shuffle: Any, seed: Any, presets: dict[str, int]) -> Subset:
    """Check `-T subset=`, `shuffle` and `seed` before any download. A preset draws a seeded random
    subset, as the papers did, unless `shuffle=false` asks for the first records; without presets
    (a task with no paper sizes) `shuffle` is a plain true or false."""
    integer("seed", seed, None, kind="task")
    if presets:
        null = "shuffle only a paper's size"
        shuffle = optional(boolean, "shuffle", shuffle, null=null, kind="task")
    else:
        boolean("shuffle", shuffle, kind="task")
    if isinstance(subset, str) and subset in presets:
        return Subset(presets[subset], subset, True if shuffle is None else shuffle, seed)
    if subset is None or (isinstance(subset, int) and not isinstance(subset, bool) and subset >= 1):
        return Subset(subset, None, bool(shuffle), seed)
    allowed = "an integer >= 1"
    if presets:
        allowed += ", a paper's size: " + ", ".join(f"{name} ({n})" for name, n in presets.items())
    raise OptionError("subset", subset, allowed + ", or null (all)", "task")


def check_choice(option: str, value: Any, allowed: tuple[str, ...]) -> None:
    one_of(option, value, allowed, kind="task")


def names_option(option: str, value: Any, names: tuple[str, ...]) -> tuple[str, ...]:
    """`all`, one of `names`, a comma-separated list of them, or a list of them: those named, in
    `names`' order."""
    allowed = "all, or one or more (a list or comma-separated) of " + ", ".join(names)
    if isinstance(value, str):
        given = [n.strip() for n in value.split(",")]
    elif isinstance(value, list) and all(isinstance(n, str) for n in value):
        given = [n.strip() for n in value]
    else:
        raise OptionError(option, value, allowed, "task")
    if given == ["all"]:
        return names
    if not given or not set(given) <= set(names):
        raise OptionError(option, value, allowed, "task")
    return tuple(n for n in names if n in given)


def data_path_option(data_path: Any) -> str | None:
    return optional(text, "data_path", data_path, kind="task")


def local_or(
    data_path: str | None, fetch: Callable[[], tuple[list[Record], str]]
) -> tuple[list[Record], str]:
    """The records of the local file, else of the pinned public source, with where they came from."""
    if (local := data_path_option(data_path)) is not None:
        return read_records(local), local
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
    return viewed_task(
        scorer,
        dataset=MemoryDataset(subset.take(samples, source), name=name),
        setup=prompt_template(prompt),
        solver=du_debate(),
        metadata={"source": source, **subset.metadata(), **metadata},
        version=1,
    )


def viewed_task(scorer: list[Scorer], **task: Any) -> Task:
    """A task whose samples list opens on what a debate run asks first (`samples_view`): the
    task's own scores, the run's label, whether the debate helped and what it cost."""
    names = [registry_info(s).name.split("/")[-1] for s in scorer]
    return Task(scorer=scorer, viewer=samples_view(*names), **task)


def mc_scorers() -> list[Scorer]:
    """Inspect's `choice()` reads the option the solver marked; `debate_stats` the debate record."""
    return [choice()]


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


def id_field(record: Record, key: str, where: str, default: str | int | None) -> str | int | None:
    """The sample id in `key` (text or an integer), else `default`."""
    value = record.get(key)
    if value is None or value == "":
        return default
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise ValueError(
        f"{where}: '{key}' must be a string or an integer (the id), got {shown(value)}"
    )


def number_field(record: Record, key: str, where: str) -> str:
    """A number target (a JSON number or numeric text), normalised as the `number` format reads
    answers. What that format cannot read is refused, since no answer could ever match it: NaN
    (equal to nothing), infinity (`Infinity`, `1e5000`), a number longer than MAX_DIGITS."""
    raw = record.get(key)
    if isinstance(raw, float):  # 1e16 as its digits, not as "1e+16"; NaN and inf stay unreadable
        written = format(Decimal(repr(raw)), "f") if math.isfinite(raw) else repr(raw)
    else:
        written = str(raw) if isinstance(raw, (int, str)) and not isinstance(raw, bool) else ""
    answer = normalise_number(written) if written else None
    if answer is None:
        raise ValueError(
            f"{where}: '{key}' must be a number (finite, at most {MAX_DIGITS} digits), "
            f"got {shown(raw)}"
        )
    return answer


def answer_letter(value: Any, n_options: int, key: str, where: str) -> str:
    """The correct option as a letter, from its 0-based index or its letter."""
    written = value.strip() if isinstance(value, str) else ""
    # ASCII digits only ("²" is a digit to Python, but not to int()), and few: no index is longer
    index = int(written) if written.isascii() and written.isdigit() and len(written) <= 3 else value
    if isinstance(index, int) and not isinstance(index, bool) and 0 <= index < n_options:
        return LETTERS[index]
    if len(written) == 1 and written.upper() in LETTERS[:n_options]:
        return written.upper()
    raise ValueError(
        f"{where}: '{key}' must be an option index 0-{n_options - 1} or a letter "
        f"A-{LETTERS[n_options - 1]}, got {shown(value)}"
    )

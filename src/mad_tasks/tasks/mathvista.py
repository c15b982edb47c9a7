"""MathVista (Lu et al., 2024): mathematical reasoning about images, the testmini split (1,000).

Each question comes with one image, sent as an Inspect image part after the question's text,
never as text. A multiple-choice question (`question_type` `multi_choice`) shows its `question`
with lettered options; a free-form one shows MathVista's `query`, which adds the benchmark's hint
on the answer wanted ("an integer", "a floating-point number with two decimal places", ...).

Scoring is MathVista's normalisation of the answer by its type, with the project's answer readers
in place of the paper's GPT-4 answer extraction (see `scorers/mathvista.py`).
"""

from __future__ import annotations

import base64
import mimetypes
from collections.abc import Callable
from functools import partial
from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ChatMessageUser, ContentImage, ContentText

from ..engine.checks import shown
from ..scorers.mathvista import ANSWER_TYPES, MAX_PRECISION, mathvista_answer
from ._bench import (
    LETTERS,
    Record,
    benchmark_task,
    data_path_option,
    id_field,
    number_field,
    options_field,
    subset_option,
    text_field,
)
from ._data import cache_dir, hf_records, read_records
from ._options import only_its_options

DATASET = "AI4Math/MathVista"
# the Hub's main branch at its last update (2024-02-11); inspect_evals pins no revision here
REVISION = "2b6ad69445fbb5695c9b165475e8decdbeb97747"
SPLIT = "testmini"

PROMPT = "Answer the following question about the image.\n\n{prompt}"

# what a file starts with, for the image formats models take
_SIGNATURES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}
# (record, where, its number) -> the image as Inspect takes it: a file path or a data URI
ImageOf = Callable[[Record, str, int], str]


def image_type(data: bytes) -> str | None:
    """The image's MIME type by its first bytes, or None if it is no PNG, JPEG, GIF or WebP."""
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return next((kind for sig, kind in _SIGNATURES.items() if data.startswith(sig)), None)


def image_ref(path: Path, where: str) -> str:
    """The image file as Inspect takes it: its path when its name tells its type (Inspect reads the
    type from the name), else a data URI (MathVista names PNG files `.jpg`)."""
    if not path.is_file():
        raise ValueError(f"{where}: image file {str(path)!r} does not exist")
    with path.open("rb") as f:
        kind = image_type(f.read(12))
    if kind is None:
        raise ValueError(f"{where}: {str(path)!r} is not a PNG, JPEG, GIF or WebP image")
    if mimetypes.guess_type(path.name, strict=False)[0] == kind:
        return str(path)
    return f"data:{kind};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def local_image(folder: Path, record: Record, where: str, number: int) -> str:
    """`image`: a path relative to the data file's folder, or absolute."""
    return image_ref(folder / text_field(record, "image", where), where)


def hub_image(record: Record, where: str, number: int) -> str:
    """`decoded_image` as published (its bytes), written once to the cache under the record's
    number in the pinned split."""
    raw = record.get("decoded_image")
    data = raw.get("bytes") if isinstance(raw, dict) else None
    kind = image_type(data) if isinstance(data, bytes) else None
    if not isinstance(data, bytes) or kind is None:
        raise ValueError(f"{where}: 'decoded_image' holds no PNG, JPEG, GIF or WebP image")
    name = f"{number}{mimetypes.guess_extension(kind, strict=False)}"  # named so its type reads
    path = cache_dir() / "mathvista" / REVISION / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".part")
        tmp.write_bytes(data)
        tmp.replace(path)
    return image_ref(path, where)


def precision_field(record: Record, where: str) -> int:
    """The decimals of a float answer: a whole number (the Hub stores 2.0)."""
    value = record.get("precision")
    # the range first: NaN and infinity fail it, so int() never sees them
    if (
        isinstance(value, (int, float))
        and not isinstance(value, bool)
        and 0 <= value <= MAX_PRECISION
        and value == int(value)
    ):
        return int(value)
    raise ValueError(
        f"{where}: 'precision' must be a whole number of decimals from 0 to {MAX_PRECISION} "
        f"for a float answer, got {shown(value)}"
    )


def record_to_sample(image_of: ImageOf, record: Record, where: str, number: int) -> Sample:
    question_type, answer_type = record.get("question_type"), record.get("answer_type")
    choices: list[str] | None = None
    precision: int | None = None
    if question_type == "multi_choice":
        choices = options_field(record.get("choices"), "choices", where)
        answer = text_field(record, "answer", where)
        if answer not in choices:
            raise ValueError(f"{where}: 'answer' {answer!r:.80} is not one of the 'choices'")
        text, answer_format = text_field(record, "question", where), "choice"
        target = LETTERS[choices.index(answer)]
    elif question_type == "free_form" and answer_type in ANSWER_TYPES:
        # the benchmark's prompt with its hint; the question alone when a file has no query
        text = text_field(record, "query" if record.get("query") else "question", where)
        if answer_type in ("integer", "float"):
            target, answer_format = number_field(record, "answer", where), "number"
        else:
            target, answer_format = text_field(record, "answer", where), "text"
        if answer_type == "integer" and "." in target:
            raise ValueError(f"{where}: 'answer' must be a whole number, got {target}")
        if answer_type == "float":
            precision = precision_field(record, where)
    else:
        raise ValueError(
            f"{where}: 'question_type' must be multi_choice, or free_form with an 'answer_type' "
            f"of {', '.join(ANSWER_TYPES)}; got {shown(question_type)}, {shown(answer_type)}"
        )
    extra = record.get("metadata")
    return Sample(
        id=id_field(record, "pid", where, number),
        input=[
            ChatMessageUser(
                content=[
                    ContentText(text=text),
                    ContentImage(image=image_of(record, where, number)),
                ]
            )
        ],
        choices=choices,
        target=target,
        metadata={
            **(extra if isinstance(extra, dict) else {}),
            "answer_format": answer_format,
            "question_type": question_type,
            "answer_type": answer_type,
            "precision": precision,
            "unit": record.get("unit"),
        },
    )


@task
@only_its_options
def mathvista(
    data_path: str | None = None,
    subset: int | None = None,
    shuffle: bool = False,
    seed: int = 42,
) -> Task:
    """MathVista testmini: questions about an image, multiple-choice or free-form (a number or a
    list), scored with MathVista's answer normalisation.

    Args:
        data_path: a local JSON/JSONL file of `AI4Math/MathVista` rows: `pid`, `question`,
            `query`, `image` (a path relative to the file's folder, or absolute), `choices`,
            `answer`, `question_type`, `answer_type`, `precision`, `unit`, `metadata`.
        subset: keep this many questions.
        shuffle: shuffle with `seed` before taking the subset.
        seed: the shuffle seed.
    """
    chosen = subset_option(subset, shuffle, seed, {})
    local = data_path_option(data_path)
    image_of: ImageOf
    if local is None:
        records = hf_records(DATASET, SPLIT, revision=REVISION, image_bytes=True)
        source = f"https://huggingface.co/datasets/{DATASET} ({SPLIT}) @ {REVISION}"
        image_of = hub_image
    else:
        records, source = read_records(local), local
        image_of = partial(local_image, Path(local).parent.resolve())  # absolute: any cwd
    return benchmark_task(
        "mathvista", records, source, partial(record_to_sample, image_of), chosen, PROMPT,
        [mathvista_answer()],
    )  # fmt: skip

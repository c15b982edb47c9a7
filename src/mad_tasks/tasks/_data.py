"""Loading task data: a local JSON/JSONL file, or a pinned public file cached on first download."""

from __future__ import annotations

import codecs
import csv
import hashlib
import io
import json
import os
import random
import sys
import urllib.request
from pathlib import Path
from typing import Any

from ..engine.checks import shown


def cache_dir() -> Path:
    root = os.environ.get("MAD_TASKS_CACHE_DIR") or Path.home() / ".cache" / "mad_tasks"
    return Path(root)


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """A JSON array or JSON Lines file of objects, or a CSV file with a header row (`.csv`).

    Every fault names the file and where in it: the line of bytes that are not UTF-8, the line and
    column of JSON that does not parse, the record that is not an object, the field holding an
    integer too long for Python to read."""
    path = Path(path)
    text = read_text(path)
    if path.suffix.lower() == ".csv":
        return [dict(row) for row in csv.DictReader(io.StringIO(text, newline=""))]
    if text.lstrip().startswith("["):
        records = _json(text, path, 1)
        places = [f"{path}: record {i}" for i in range(1, len(records) + 1)]
    else:
        records, places = [], []
        for n, line in enumerate(text.splitlines(), start=1):
            if line.strip():
                records.append(_json(line, path, n))
                places.append(f"{path}:{n}")
    for record, place in zip(records, places):
        if not isinstance(record, dict):
            raise ValueError(f"{place}: not a JSON object, got {shown(record)}")
        if (key := _long_integer_field(record)) is not None:
            raise ValueError(
                f"{place}: '{key}' holds an integer longer than Python reads "
                f"({sys.get_int_max_str_digits()} digits)"
            )
    return records


def read_text(path: str | Path) -> str:
    """A UTF-8 text file, a byte-order mark at its start dropped (editors on Windows write one);
    bytes that are not UTF-8 are refused with their line."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"data_path {str(path)!r} does not exist or is not a file")
    data = path.read_bytes().removeprefix(codecs.BOM_UTF8)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        bad_line = data.count(b"\n", 0, e.start) + 1
        raise ValueError(
            f"{path}:{bad_line}: not UTF-8 text (byte 0x{data[e.start]:02x}); save the file as UTF-8"
        ) from None


class _LongInteger(str):
    """The digits of a JSON integer too long for `int()`, kept so that its field can be named."""


def _integer(digits: str) -> int | _LongInteger:
    try:
        return int(digits)
    except ValueError:  # past Python's limit on digits converted (4,300 by default)
        return _LongInteger(digits)


def _json(text: str, path: Path, first_line: int) -> Any:
    """Parse JSON that starts at `first_line` of the file; an error names the file and line."""
    try:
        return json.loads(text, parse_int=_integer)
    except json.JSONDecodeError as e:
        line = first_line + e.lineno - 1
        raise ValueError(f"{path}:{line}:{e.colno}: not valid JSON ({e.msg})") from None
    except RecursionError:
        raise ValueError(f"{path}:{first_line}: not valid JSON (nested too deeply)") from None


def _long_integer_field(record: dict[str, Any]) -> str | None:
    """The first field holding a `_LongInteger` at any depth (walked without recursion)."""
    for key, value in record.items():
        stack = [value]
        while stack:
            item = stack.pop()
            if isinstance(item, _LongInteger):
                return key
            if isinstance(item, dict):
                stack.extend(item.values())
            elif isinstance(item, list):
                stack.extend(item)
    return None


INSPECT_HINT = "offline, pass a local file with -T data_path=..."


class DataUnavailable(RuntimeError):
    """A public source that could not be read. `str()` ends with how an Inspect task takes a local
    file instead (`hint`); `what` is the failure alone, for a host that takes the file otherwise
    (lm-eval's `--metadata`, `mad-tasks reproduce --data`) to add its own."""

    def __init__(self, what: str, hint: str = INSPECT_HINT) -> None:
        super().__init__(f"{what}; {hint}")
        self.what = what


def download(url: str, name: str, sha256: str | None = None) -> Path:
    """Fetch `url` once into the cache; the URL pins a commit, so the cached copy stays valid.

    With `sha256` (for a URL that pins nothing) the download is kept only if its digest matches.
    """
    target = cache_dir() / name
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(target.suffix + ".part")
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                data = response.read()
        except OSError as e:
            raise DataUnavailable(f"could not download {url} ({e})") from None
        if sha256 is not None and (digest := hashlib.sha256(data).hexdigest()) != sha256:
            raise RuntimeError(f"{url} has sha256 {digest}, expected {sha256}: not using it")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


def pick(records: list[Any], shuffle: bool, seed: int, subset: int | None) -> list[Any]:
    """Optionally shuffle with a seed, then keep the first `subset` records (checked by the task)."""
    records = list(records)
    if shuffle:
        random.Random(seed).shuffle(records)
    return records[:subset] if subset is not None else records


def hf_records(
    path: str,
    split: str,
    name: str | None = None,
    revision: str | None = None,
    image_bytes: bool = False,
) -> list[dict[str, Any]]:
    """Rows of a Hugging Face Hub dataset (needs the network on first use; cached by `datasets`).

    With `image_bytes`, an image column holds `{"bytes": ..., "path": ...}`: the file as
    published, never decoded (so Pillow is not needed)."""
    from datasets import Image, load_dataset

    try:
        dataset = load_dataset(path, name, split=split, revision=revision)
    except Exception as e:  # noqa: BLE001 - the Hub client raises many types; all mean the same to a user
        raise DataUnavailable(
            f"could not load {path}{'/' + name if name else ''} ({split}) from the Hugging Face Hub "
            f"({type(e).__name__}: {e})"
        ) from None
    if image_bytes:
        for column, feature in dataset.features.items():
            if isinstance(feature, Image):
                dataset = dataset.cast_column(column, Image(decode=False))
    return [dict(row) for row in dataset]


def hf_revision(path: str) -> str:
    """The Hub's current commit of a dataset: pins a load whose source publishes no revision."""
    from huggingface_hub import HfApi

    try:
        return str(HfApi().dataset_info(path).sha)
    except Exception as e:  # noqa: BLE001 - as in hf_records: every failure means the same to a user
        raise DataUnavailable(
            f"could not look up {path} on the Hugging Face Hub ({type(e).__name__}: {e})"
        ) from None

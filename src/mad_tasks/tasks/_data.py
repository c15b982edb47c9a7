"""Loading task data: a local JSON/JSONL file, or a pinned public file cached on first download."""

from __future__ import annotations

import csv
import hashlib
import json
import os
import random
import urllib.request
from pathlib import Path
from typing import Any


def cache_dir() -> Path:
    root = os.environ.get("MAD_TASKS_CACHE_DIR") or Path.home() / ".cache" / "mad_tasks"
    return Path(root)


def read_records(path: str | Path) -> list[dict[str, Any]]:
    """A JSON array or JSON Lines file of objects, or a CSV file with a header row (`.csv`)."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"data_path {str(path)!r} does not exist or is not a file")
    if path.suffix.lower() == ".csv":
        with path.open(encoding="utf-8", newline="") as f:
            return [dict(row) for row in csv.DictReader(f)]
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        records = json.loads(text)
    else:
        records = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError as e:
                raise ValueError(f"{path}:{n}: not a JSON object ({e.msg})") from None
    if not all(isinstance(r, dict) for r in records):
        raise ValueError(f"{path}: every record must be a JSON object")
    return records


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
            raise RuntimeError(
                f"could not download {url} ({e}); offline, pass a local file with -T data_path=..."
            ) from None
        if sha256 is not None and (digest := hashlib.sha256(data).hexdigest()) != sha256:
            raise RuntimeError(f"{url} has sha256 {digest}, expected {sha256}: not using it")
        tmp.write_bytes(data)
        tmp.replace(target)
    return target


def pick(records: list[Any], shuffle: bool, seed: int, subset: int | None) -> list[Any]:
    """Optionally shuffle with a seed, then keep the first `subset` records."""
    if subset is not None and subset < 1:
        raise ValueError(f"invalid task option 'subset': must be >= 1, got {subset}")
    records = list(records)
    if shuffle:
        random.Random(seed).shuffle(records)
    return records[:subset] if subset is not None else records


def hf_records(
    path: str, split: str, name: str | None = None, revision: str | None = None
) -> list[dict[str, Any]]:
    """Rows of a Hugging Face Hub dataset (needs the network on first use; cached by `datasets`)."""
    from datasets import load_dataset

    try:
        dataset = load_dataset(path, name, split=split, revision=revision)
    except Exception as e:  # the Hub client raises many types; all mean the same to a user
        raise RuntimeError(
            f"could not load {path}{'/' + name if name else ''} ({split}) from the Hugging Face Hub "
            f"({type(e).__name__}: {e}); offline, pass a local file with -T data_path=..."
        ) from None
    return [dict(row) for row in dataset]


def hf_revision(path: str) -> str:
    """The Hub's current commit of a dataset: pins a load whose source publishes no revision."""
    from huggingface_hub import HfApi

    try:
        return str(HfApi().dataset_info(path).sha)
    except Exception as e:  # as in hf_records: every failure means the same to a user
        raise RuntimeError(
            f"could not look up {path} on the Hugging Face Hub ({type(e).__name__}: {e}); "
            "offline, pass a local file with -T data_path=..."
        ) from None

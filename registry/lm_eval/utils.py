"""The datasets of the mad-tasks lm-eval tasks (each task's `custom_dataset`).

The records are read by the package's own Inspect tasks (src/mad_tasks/tasks/), so both hosts
check them alike and ask the same questions with the same targets. Where a task's data comes from:
the run's metadata `<name>_path` (`--metadata '{"strategyqa_path": "data/dev.jsonl"}'`), else the
environment variable `MAD_TASKS_<NAME>_PATH`, else the Inspect task's public source (downloaded
once into its cache, so not offline). `<name>` is `strategyqa` or `musr_<domain>`.
"""

from __future__ import annotations

import os
from typing import Any

import datasets


def local_path(metadata: dict[str, Any], name: str) -> str | None:
    return metadata.get(f"{name}_path") or os.environ.get(f"MAD_TASKS_{name.upper()}_PATH")


def samples_of(name: str, make: Any) -> list[Any]:
    """The Inspect task's samples; a source that cannot be read names lm-eval's ways to a file."""
    from mad_tasks.tasks._data import DataUnavailable

    try:
        return list(make().dataset)
    except DataUnavailable as e:
        raise DataUnavailable(
            e.what,
            f'offline, pass a local file with --metadata \'{{"{name}_path": "FILE"}}\' or '
            f"MAD_TASKS_{name.upper()}_PATH=FILE",
        ) from None


def split(docs: list[dict[str, Any]]) -> datasets.DatasetDict:
    return datasets.DatasetDict({"test": datasets.Dataset.from_list(docs)})


def strategyqa(**metadata: Any) -> datasets.DatasetDict:
    from mad_tasks.tasks.strategyqa import strategyqa as task

    samples = samples_of("strategyqa", lambda: task(data_path=local_path(metadata, "strategyqa")))
    return split(
        [
            {"id": str(s.id), "question": s.input, "target": s.target, "answer_format": "yesno"}
            for s in samples
        ]
    )


def musr(domain: str, metadata: dict[str, Any]) -> datasets.DatasetDict:
    from mad_tasks.tasks.musr import musr as task

    path = local_path(metadata, f"musr_{domain}")
    samples = samples_of(f"musr_{domain}", lambda: task(domain=domain, data_path=path))
    return split(
        [
            {
                "id": str(s.id),
                "narrative": s.metadata["narrative"],
                "question": s.input,
                "choices": list(s.choices or []),
                "target": s.target,
                "answer_format": "choice",
            }
            for s in samples
        ]
    )


def musr_murder_mysteries(**metadata: Any) -> datasets.DatasetDict:
    return musr("murder_mysteries", metadata)


def musr_object_placements(**metadata: Any) -> datasets.DatasetDict:
    return musr("object_placements", metadata)


def musr_team_allocation(**metadata: Any) -> datasets.DatasetDict:
    return musr("team_allocation", metadata)

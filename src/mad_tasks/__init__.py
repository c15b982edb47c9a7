"""mad-tasks: multi-agent debate methods as Inspect AI solvers, scorers and tasks."""

__version__ = "0.1.0"

# The tasks, for Python users (`from mad_tasks import strategyqa`) and listings; Inspect finds them
# through the entry point. Imported on first use, so that `mad_tasks.engine` stays free of Inspect.
__all__ = [
    "arc_challenge",
    "autoj_pairwise",
    "gpqa",
    "gsm_ic",
    "judgebench",
    "longbench",
    "math",
    "mathvista",
    "mmlu",
    "mmlu_pro",
    "mt_bench_judge",
    "musr",
    "paper_compare",
    "project_dedup",
    "project_dup_pairs",
    "squad_v2",
    "strategyqa",
    "tool_math",
]


def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module 'mad_tasks' has no attribute {name!r}")
    from . import _registry  # the entry point module imports every task

    return getattr(_registry, name)

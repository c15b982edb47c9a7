"""mad-tasks: multi-agent debate methods as Inspect AI solvers, scorers and tasks."""

__version__ = "0.1.0"

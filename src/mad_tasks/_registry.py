"""Inspect's entry point for mad_tasks: registers tasks, solvers, scorers and model APIs.

Inspect imports every installed plugin at the start of every eval, so this imports only modules
that need nothing beyond Inspect itself.
"""

# ruff: noqa: F401
from ._aliases import register_short_aliases
from .models.providers import madsim
from .scorers.answers import final_answer
from .scorers.debate_stats import debate_stats
from .solvers.baselines import cot, self_consistency, single
from .solvers.du_debate import du_debate
from .tasks.strategyqa import strategyqa

SOLVERS = [single, cot, self_consistency, du_debate]

register_short_aliases(SOLVERS)

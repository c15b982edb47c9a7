"""Inspect's entry point for mad_tasks: registers tasks, solvers (one per method of the catalogue),
scorers and model APIs.

Inspect imports every installed plugin at the start of every eval, so this imports only modules
that need nothing beyond Inspect itself.
"""

# ruff: noqa: F401
import sys

from .models.providers import madsim
from .scorers.answers import final_answer
from .scorers.cortex_stats import cortex_stats
from .scorers.debate_stats import debate_stats
from .scorers.decision_stats import decision_stats
from .scorers.failures import failure_figures
from .scorers.judge_metrics import judge_agreement
from .scorers.judges import more_judge, samre_judge
from .scorers.longbench import longbench_score
from .scorers.mathvista import mathvista_answer
from .scorers.method import method
from .scorers.on_demand_stats import on_demand_stats
from .scorers.pd3 import dup_origin, dup_weighted, retrieval_at_k
from .scorers.squad import squad_contains, squad_exact, squad_f1
from .scorers.tod import (
    tod_breadth,
    tod_contextualization,
    tod_factuality,
    tod_win_breadth,
    tod_win_contextualization,
    tod_win_factuality,
)
from .scorers.transitions import transitions
from .solvers import SOLVERS  # every method of the catalogue, registered as it arrives
from .tasks.arc_challenge import arc_challenge
from .tasks.autoj_pairwise import autoj_pairwise
from .tasks.competition_math import math
from .tasks.gpqa import gpqa
from .tasks.gsm_ic import gsm_ic
from .tasks.judgebench import judgebench
from .tasks.longbench import longbench
from .tasks.mathvista import mathvista
from .tasks.mmlu import mmlu
from .tasks.mmlu_pro import mmlu_pro
from .tasks.mt_bench_judge import mt_bench_judge
from .tasks.musr import musr
from .tasks.paper_compare import paper_compare
from .tasks.project_dedup import project_dedup
from .tasks.project_dup_pairs import project_dup_pairs
from .tasks.squad_v2 import squad_v2
from .tasks.strategyqa import strategyqa
from .tasks.tool_math import tool_math

# the Inspect Scout scanners (`scout scan mad_tasks/debate_failures`), only where Scout is running:
# an eval does not pay for importing it
if "inspect_scout" in sys.modules:
    from . import scanners

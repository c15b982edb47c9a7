"""The package's methods: one spec each, declared beside its algorithm (`spec.py`), in one catalogue.

Every host reads this catalogue: the Inspect solvers (`mad_tasks/<name>`), lm-eval's `mad`, the
OpenAI-evals completion functions, `on_demand`'s `debate=`, `mad-tasks compare` and `reproduce`.
A method of one's own joins them all with `CATALOGUE.add(spec)`; the order here is the order the
methods are listed in.
"""

from __future__ import annotations

from .methods import (
    baselines,
    chateval,
    du_debate,
    group_debate,
    neighbor_debate,
    peer_review,
    reconcile,
)
from .methods.cortex import debate as cortex
from .methods.d3 import court as d3
from .methods.d3 import more, peer_discussion, samre
from .methods.decision import debate as decision
from .methods.on_demand import on_demand_spec
from .methods.pd3 import baselines as pd3_baselines
from .methods.pd3 import feedback as pd3_feedback
from .methods.pd3 import pair_baselines as pd3_pair_baselines
from .methods.pd3 import tournament as pd3
from .methods.pd3 import tourrank as pd3_tourrank
from .methods.tod import baselines as tod_baselines
from .methods.tod import debate as tod
from .spec import Catalogue

CATALOGUE = Catalogue(
    *baselines.SPECS,  # single, cot, self_consistency
    du_debate.SPEC,
    *decision.SPECS,  # voting, consensus, aad, collective_improvement
    cortex.SPEC,
    reconcile.SPEC,
    chateval.SPEC,
    peer_review.SPEC,
    group_debate.SPEC,
    neighbor_debate.SPEC,
    more.SPEC,
    samre.SPEC,
    d3.SPEC,  # single_judge
    peer_discussion.SPEC,
    *tod.SPECS,  # tree_of_debate, tod_no_tree, tod_no_sd
    *tod_baselines.SPECS,  # single_stage, two_stage
    *pd3.SPECS,  # pd3, llm_voting
    *pd3_baselines.SPECS,  # listwise, pointwise, bm25, rouge_l, dense, reranker, random_k
    pd3_tourrank.SPEC,
    pd3_feedback.SPEC,
    *pd3_pair_baselines.SPECS,  # pair_similarity, pair_pointwise
)
CATALOGUE.add(on_demand_spec(CATALOGUE))

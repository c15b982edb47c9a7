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
    cortex,
    d3,
    decision,
    du_debate,
    group_debate,
    more,
    neighbor_debate,
    pd3,
    pd3_baselines,
    pd3_feedback,
    pd3_pair_baselines,
    pd3_tourrank,
    peer_discussion,
    peer_review,
    reconcile,
    samre,
    tod,
    tod_baselines,
)
from .methods.on_demand import on_demand_spec
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
    *pd3_baselines.SPECS,  # listwise, pointwise, bm25, rouge_l, dense, random_k
    pd3_tourrank.SPEC,
    pd3_feedback.SPEC,
    *pd3_pair_baselines.SPECS,  # pair_similarity, pair_pointwise
)
CATALOGUE.add(on_demand_spec(CATALOGUE))

"""Tree-of-Debate (Kargupta et al., ACL 2025, seed 003): the debate tree over two papers, its judge
and its baselines. Spec: ../shared/research/seed-003-tree-of-debate.md."""

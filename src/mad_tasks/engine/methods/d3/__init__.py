"""D3 (Harrasse et al., "D3: A Cost-Aware Adversarial Framework", seed 002): MORE, SAMRE, the single
judge, its transitions and PRD's peer discussion. Spec: ../shared/research/seed-002-d3.md."""

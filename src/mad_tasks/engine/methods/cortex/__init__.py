"""CortexDebate (Sun et al., ACL 2025 Findings, seed 001): sparse debate graph pruned by McKinsey
trust. Spec: ../shared/research/seed-001-cortexdebate.md."""

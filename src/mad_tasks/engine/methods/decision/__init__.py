"""Voting or Consensus? (Kaesberg et al., ACL 2025 Findings, seed 004): voting, consensus, AAD and
CI debates with personas. Spec: ../shared/research/seed-004-voting-consensus.md."""

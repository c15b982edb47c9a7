"""PD³ (Bao et al., project duplication detection by multi-agent debate, seed 000): the tournament,
its baselines, TourRank, feedback and pair baselines. Spec: ../shared/research/seed-000-pd3.md."""

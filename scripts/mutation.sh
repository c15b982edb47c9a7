#!/usr/bin/env bash
# Mutation testing of every reader of model output and every decision rule ([tool.mutmut] in
# pyproject.toml), then the score per file. Not part of CI: run it after changing a reader, a
# decision rule or their tests (about 10 minutes on 2 cores). Extra arguments go to `mutmut run`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/python -m pip install --quiet -e ".[mutation]"
rm -rf mutants  # a fresh run: mutmut's cache would keep verdicts of tests since changed
.venv/bin/mutmut run "$@" > mutants.log 2>&1 || { tail -20 mutants.log; exit 1; }
.venv/bin/python scripts/mutation_report.py

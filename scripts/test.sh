#!/usr/bin/env bash
# Set up (if needed), lint and type-check, then run the whole test suite, offline; extra arguments
# go to pytest. The rules and the checker's settings are in pyproject.toml.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
paths=(src tests benchmarks scripts examples)
.venv/bin/ruff check --quiet "${paths[@]}" \
  || { echo "scripts/test.sh: ruff check failed (see above; many fix with: .venv/bin/ruff check --fix)" >&2; exit 1; }
.venv/bin/ruff format --check --quiet "${paths[@]}" \
  || { echo "scripts/test.sh: ruff format --check failed (fix with: .venv/bin/ruff format ${paths[*]})" >&2; exit 1; }
.venv/bin/mypy \
  || { echo "scripts/test.sh: mypy over src/ failed (see above)" >&2; exit 1; }
# Inspect's ecosystem conventions; the full report only when a rule fails (it lists warnings too)
lint=$(.venv/bin/inspect-evals-lint --all 2>&1) \
  || { echo "$lint"; echo "scripts/test.sh: inspect-evals-lint failed (see above)" >&2; exit 1; }
grep '^Summary:' <<<"$lint"
# the subprocess tests are marked slow, which pytest-inspect-evals skips unless asked: this command
# runs them (a fast local loop: .venv/bin/python -m pytest, or -m "not slow")
export RUN_SLOW_TESTS=1
exec .venv/bin/python -m pytest "$@"

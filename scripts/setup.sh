#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with mad-tasks (editable) and its dev and local
# extras. Needs Python 3.11+, a C/C++ compiler and cmake: the first run compiles llama-cpp-python for
# a portable CPU level (scripts/local_build.py: about 6 minutes on 2 cores, then reused from
# .cache/llama-cpp-python/), never for this machine's CPU alone.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.mad_tasks_installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] || [ scripts/local_build.py -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  # the local extra's llama-cpp-python first, built portable, so the install below finds it
  # satisfied and pip never builds it (nor takes a native build from its own wheel cache)
  "$PYTHON" scripts/local_build.py .venv/bin/python
  .venv/bin/python -m pip install --quiet -e ".[dev,local]"
  touch "$stamp"
fi

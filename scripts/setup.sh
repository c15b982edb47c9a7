#!/usr/bin/env bash
# Idempotent set-up: a virtual environment in .venv with mad-tasks (editable) and its dev and local
# extras. The first run compiles llama-cpp-python (about 10 minutes on 2 cores); pip caches the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
stamp=.venv/.mad_tasks_installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install --quiet --upgrade pip
  CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-2}" \
    .venv/bin/python -m pip install --quiet -e ".[dev,local]"
  touch "$stamp"
fi

#!/usr/bin/env bash
# Set up (if needed) and run the whole test suite, offline; extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/python -m pytest "$@"

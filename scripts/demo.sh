#!/usr/bin/env bash
# The main job: set up (if needed), then a 5-question du_debate eval on the embedded local model
# (llama.cpp serving Gemma 3 270M on 127.0.0.1), offline. Extra arguments go to `mad-local demo`,
# e.g. --limit 3, --solver cot, or any `inspect eval` option.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/mad-local demo "$@"
echo "(inspect is installed in .venv: run '. .venv/bin/activate' first, or use .venv/bin/inspect)"

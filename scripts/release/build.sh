#!/usr/bin/env bash
# Build the sdist and the wheel into DIST (default dist/), from a clean folder.
# Usage: scripts/release/build.sh [DIST] ; needs `python -m build` (pip install build).
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="${1:-dist}"
python="${PYTHON:-python3}"
rm -rf -- "$dist"
"$python" -m build --sdist --wheel --outdir "$dist" . >/dev/null
ls -l -- "$dist"

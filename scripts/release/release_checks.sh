#!/usr/bin/env bash
# Every release check, in order; the release pipeline (.aoneci/release.yaml) and CI (.ci/run)
# both run this script, so a release cannot fail on a check CI never ran.
# Usage: scripts/release/release_checks.sh [TAG]   (TAG, e.g. v0.1.0, only on a release)
# Env: PYTHON (default python3) must have the package's build requirements (`build`).
set -euo pipefail
cd "$(dirname "$0")/../.."
python="${PYTHON:-python3}"
dist="${DIST:-dist}"
echo "== release: template in sync with the package (version, exit-message table, fallback document)"
"$python" scripts/release/sync_template.py
echo "== release: tag and baked version"
"$python" scripts/release/check_version.py ${1:+--tag "$1"}
echo "== release: build sdist + wheel"
PYTHON="$python" scripts/release/build.sh "$dist"
echo "== release: packaged copies identical to their sources"
"$python" scripts/release/check_packaged.py "$dist"
echo "== release: leak scan of the built artifacts"
"$python" scripts/release/leak_scan.py "$dist"/*

#!/usr/bin/env bash
# Publish DIST (default dist/) to the public index and mirror it to a private PEP 503 index.
# Each step runs only when its credentials are present, and says so when it skips:
#   public:  PYPI_TOKEN            (twine upload to PYPI_REPOSITORY_URL, default https://upload.pypi.org/legacy/)
#   private: PRIVATE_INDEX_UPLOAD_URL + PRIVATE_INDEX_TOKEN (twine upload, token as password, user __token__)
# Note: the PyPI name cowork-judge is held by an unrelated project; a public upload under that
# name fails until the name is ours (see README, "Using it in a Harbor task").
set -euo pipefail
cd "$(dirname "$0")/../.."
dist="${1:-dist}"
python="${PYTHON:-python3}"
ls "$dist"/cowork_judge-* >/dev/null
twine() { "$python" -m twine "$@"; }
need_twine() { "$python" -m twine --version >/dev/null 2>&1 || "$python" -m pip install -q twine; }
if [ -n "${PYPI_TOKEN:-}" ]; then
  need_twine
  TWINE_USERNAME=__token__ TWINE_PASSWORD="$PYPI_TOKEN" twine upload --non-interactive \
    --repository-url "${PYPI_REPOSITORY_URL:-https://upload.pypi.org/legacy/}" "$dist"/*
else
  echo "publish: public index skipped (no PYPI_TOKEN)"
fi
if [ -n "${PRIVATE_INDEX_UPLOAD_URL:-}" ] && [ -n "${PRIVATE_INDEX_TOKEN:-}" ]; then
  need_twine
  TWINE_USERNAME="${PRIVATE_INDEX_USER:-__token__}" TWINE_PASSWORD="$PRIVATE_INDEX_TOKEN" twine upload --non-interactive \
    --repository-url "$PRIVATE_INDEX_UPLOAD_URL" "$dist"/*
else
  echo "publish: private mirror skipped (no PRIVATE_INDEX_UPLOAD_URL / PRIVATE_INDEX_TOKEN)"
fi

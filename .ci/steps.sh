#!/usr/bin/env bash
# CI steps (`.ci/run` runs this file): install what the tests need on a fresh machine, then run the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."

echo "== system packages (LibreOffice, Chromium, fonts, bubblewrap, redis-server for the fleet limiter's tests)"
if command -v apt-get >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends \
    libreoffice-impress-nogui fonts-crosextra-carlito fonts-crosextra-caladea \
    fonts-liberation2 fonts-noto-cjk chromium bubblewrap redis-server openssl python3-venv >/dev/null
fi

echo "== the codex and claude CLIs (the agent-CLI tests drive the real binaries against the simulator)"
if command -v npm >/dev/null 2>&1; then
  npm install -g --silent @openai/codex @anthropic-ai/claude-code >/dev/null 2>&1 \
    || echo "npm could not install the agent CLIs: their tests will skip" >&2
else
  echo "npm not found: the agent-CLI tests will skip" >&2
fi

echo "== Python package with its extras"
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e ".[dev]"

echo "== Harbor 0.26 for the integration test (needs Python >= 3.12, its own venv)"
PY312=""
for cand in $(ls -d "$HOME"/.pyenv/versions/3.12*/bin/python /root/.pyenv/versions/3.12*/bin/python 2>/dev/null) python3.12 python3.13; do
  if "$cand" -c 'import sys; sys.exit(sys.version_info[:2] < (3, 12))' >/dev/null 2>&1; then PY312="$cand"; break; fi
done
if [ -n "$PY312" ]; then
  "$PY312" -m venv .venv-harbor
  .venv-harbor/bin/pip install -q "harbor==0.26.*"
  export HARBOR_BIN="$PWD/.venv-harbor/bin/harbor"
else
  echo "Python >= 3.12 not found: the Harbor integration test will skip" >&2
fi

echo "== lint: ruff (the rule set is in pyproject.toml [tool.ruff.lint])"
.venv/bin/ruff check .

echo "== types: mypy strict over the whole package, 0 errors ([tool.mypy])"
.venv/bin/mypy --strict src/cowork_judge

echo "== the documentation site (mkdocs.yml; the docs extra, part of dev)"
NO_MKDOCS_2_WARNING=1 .venv/bin/mkdocs build --strict --quiet --site-dir "$(mktemp -d)/site"

echo "== release checks (the same script .aoneci/release.yaml runs on a tag)"
PYTHON=.venv/bin/python DIST="$(mktemp -d)/dist" bash scripts/release/release_checks.sh

echo "== free space for the tests' temp folders (a full run peaks ~3 GB above its start; pytest keeps only failed tests' folders)"
df -h "${TMPDIR:-/tmp}" | tail -1

echo "== the README's test command (the 30 slowest tests listed at the end: where CI time goes)"
export PYTEST_ADDOPTS="--durations=30 ${PYTEST_ADDOPTS:-}"
.venv/bin/python -m pytest selftests -n 2 --dist loadfile

echo "== lint the example instances"
.venv/bin/lint-rubric tests examples/healthbench-bbd759b4/tests

echo "== unit tests on the oldest supported Python (3.10)"
PY310_FOUND=""
for cand in ${PY310:-} $(ls -d "$HOME"/.pyenv/versions/3.10*/bin/python /root/.pyenv/versions/3.10*/bin/python 2>/dev/null) python3.10; do
  if "$cand" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 10))' >/dev/null 2>&1; then PY310_FOUND="$cand"; break; fi
done
PY310="$PY310_FOUND"
if [ -n "$PY310" ]; then
  "$PY310" -m venv .venv310
  .venv310/bin/pip install -q --upgrade pip
  .venv310/bin/pip install -q -e ".[dev]"
  # a fast subset on the oldest Python: the pure core, the parsers (rubric, replies, lint of
  # task packages), the configuration and its settings table, the utilities; the 3.11 run
  # above runs every test (issue 38: the whole suite twice took 27 of CI's minutes)
  .venv310/bin/python -m pytest -q -m "not slow" selftests/core selftests/_util selftests/safety \
    selftests/lint selftests/test_import_structure.py selftests/run/test_config.py selftests/run/test_effects.py \
    selftests/run/test_prices.py selftests/run/test_sampling_config.py selftests/transport/test_quota.py \
    selftests/transport/test_store_url.py
else
  echo "Python 3.10 not found: the oldest-version unit tests cannot run" >&2
  exit 1
fi

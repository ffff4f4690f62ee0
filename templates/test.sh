#!/usr/bin/env bash
# tests/test.sh of a Harbor task judged by cowork-judge (written by `cowork-judge init`).
# Configure it through [verifier.env] in task.toml; do not edit it by hand.
#
# Harbor runs `(/tests/test.sh) > /logs/verifier/test-stdout.txt 2>&1` and ignores the exit
# status. This script:
#   1. picks the judge version: COWORK_JUDGE_VERSION (its origin in COWORK_JUDGE_VERSION_SOURCE:
#      injection > placeholder), else the default baked in below (source "package");
#   2. installs cowork-judge[$COWORK_JUDGE_EXTRAS]==<version> into its own venv (the task's
#      Python packages are untouched; a matching install is reused without network);
#      with COWORK_WHEEL_URL the judge itself comes ONLY from that PEP 503 index;
#   3. probes the image into /logs/verifier/env_capabilities.json;
#   4. runs CUSTOM_JUDGE_ENTRY (relative to tests/ or absolute) if set, else `cowork-judge run`;
#   5. whatever failed, leaves reward.txt (0), reward.json and a schema-valid result.json
#      whose exit_code is inferred from the logs (`cowork-judge exit-message`).
# Bash and POSIX tools only; no login shell; any working directory; `set -u` clean.
# Tunables: COWORK_JUDGE_PYTHON, COWORK_JUDGE_HOME (venv root), COWORK_PIP_TIMEOUT (s per
# connection, 15), COWORK_PIP_RETRIES (2), COWORK_INSTALL_TIMEOUT (s for the whole install,
# 300), JUDGE_DEADLINE (the judge is stopped 60 s after it).
set -u
umask 022

COWORK_JUDGE_DEFAULT_VERSION="2.0.0"
TAB="$(printf '\t')"
START_SECONDS=$SECONDS

_self="${BASH_SOURCE[0]:-$0}"
case "$_self" in */*) _self_dir="${_self%/*}" ;; *) _self_dir="." ;; esac
TESTS_DIR="${JUDGE_TESTS_DIR:-$(cd -P -- "$_self_dir" 2>/dev/null && pwd)}"
[ -n "$TESTS_DIR" ] || TESTS_DIR=/tests
LOGS_DIR="${JUDGE_LOGS_DIR:-/logs}"
VERIFIER_DIR="$LOGS_DIR/verifier"
LOG="$VERIFIER_DIR/test-sh.log"
INSTALL_LOG="$VERIFIER_DIR/install.log"
MARK="cowork-judge/test.sh: FAILED"

REQ="" SRC="" EXTRAS="" PY="" PY_VERSION="" JPY="" VENV="" HOME_DIR="" INDEX_DESC="default index"
INSTALLED=0 REUSED=0 INSTALL_SECONDS=0 PY_SEEN="" CAPS_DONE=0
LOCK_DIR=""

say() {
  printf '%s\n' "cowork-judge/test.sh: $*"
  printf '%s\n' "cowork-judge/test.sh: $*" >>"$LOG" 2>/dev/null
}

# A failed stage: one marker line (read by the exit-message table), then the failure path.
fail_stage() {
  local stage="$1"; shift
  printf '%s\n' "$MARK $stage: $*"
  printf '%s\n' "$MARK $stage: $*" >>"$LOG" 2>/dev/null
  finish_failed
}

truthy() {
  case "$(printf '%s' "${1:-}" | tr '[:upper:]' '[:lower:]' | tr -d ' \t')" in
    1 | true | yes | on | y | t) return 0 ;;
  esac
  return 1
}

redact_url() { printf '%s' "$1" | sed 's#://[^/@]*@#://***@#'; }

remaining() { # remaining BUDGET START: seconds left of BUDGET since START (at least 5)
  local left=$(($1 - (SECONDS - $2)))
  if [ "$left" -lt 5 ]; then left=5; fi
  printf '%d' "$left"
}

with_timeout() {
  local secs="$1"; shift
  if command -v timeout >/dev/null 2>&1; then timeout -k 10 "$secs" "$@"; else "$@"; fi
}

# JSON string literal of $1: printable ASCII kept, other bytes become '?'.
json_str() {
  local s
  s="$(printf '%s' "$1" | LC_ALL=C tr -c '\040-\176' '?')"
  s="${s//\\/\\\\}"
  s="${s//\"/\\\"}"
  printf '"%s"' "$s"
}

json_or_null() { if [ -n "$1" ]; then json_str "$1"; else printf 'null'; fi; }

# The judge's `judge_model` label (config.judge_model_label): JUDGE_MODEL, or under JUDGE_PANEL its
# judge's model (one judge) or panel:<model>+<model>… in panel order; a panel whose models cannot be
# read here (not the plain JSON the judge takes) is "panel", never JUDGE_MODEL, which a panel never asks.
judge_model_label() {
  local rest="${JUDGE_PANEL:-}" models="" n=0 re='"model"[[:space:]]*:[[:space:]]*"([^"\\]*)"'
  if [ -z "${rest//[[:space:]]/}" ]; then printf '%s' "${JUDGE_MODEL:-gpt-5.5}"; return; fi
  while [[ $rest =~ $re ]]; do
    models="${models:+$models+}${BASH_REMATCH[1]}"; n=$((n + 1))
    rest="${rest#*"${BASH_REMATCH[0]}"}"
  done
  if [ "$n" = 0 ]; then printf 'panel'; elif [ "$n" = 1 ]; then printf '%s' "$models"; else printf 'panel:%s' "$models"; fi
}

atomic_write() { # atomic_write FILE < content
  local target="$1" tmp
  tmp="$VERIFIER_DIR/.${target##*/}.$$.tmp"
  cat >"$tmp" && mv -f -- "$tmp" "$target" && return 0
  rm -f -- "$tmp" 2>/dev/null
  return 1
}

# ---------------------------------------------------------------- version and python
pick_version() {
  if [ -n "${COWORK_JUDGE_VERSION:-}" ]; then
    REQ="$(printf '%s' "$COWORK_JUDGE_VERSION" | tr -d ' \t\r\n')"
    case "${COWORK_JUDGE_VERSION_SOURCE:-}" in
      injection | placeholder) SRC="$COWORK_JUDGE_VERSION_SOURCE" ;;
      "") SRC="injection" ;;
      *) say "COWORK_JUDGE_VERSION_SOURCE='$COWORK_JUDGE_VERSION_SOURCE' is not injection|placeholder; recording injection"
         SRC="injection" ;;
    esac
  else
    REQ="$COWORK_JUDGE_DEFAULT_VERSION"
    SRC="package"
  fi
  export COWORK_JUDGE_VERSION="$REQ" COWORK_JUDGE_VERSION_SOURCE="$SRC"
  case "$REQ" in
    "" | *[!A-Za-z0-9.+!_-]*) fail_stage version "COWORK_JUDGE_VERSION='$REQ' is not a version number" ;;
    [0-9]*) ;;
    *) fail_stage version "COWORK_JUDGE_VERSION='$REQ' is not a version number" ;;
  esac
  EXTRAS="$(printf '%s' "${COWORK_JUDGE_EXTRAS:-}" | tr -d ' \t\r\n')"
  case "$EXTRAS" in
    *[!A-Za-z0-9,._-]*) fail_stage install "COWORK_JUDGE_EXTRAS='$EXTRAS' is not a comma-separated list of extras" ;;
  esac
  say "cowork-judge==$REQ (source: $SRC)${EXTRAS:+, extras [$EXTRAS]}"
}

find_python() {
  local c v major minor
  for c in ${COWORK_JUDGE_PYTHON:+"$COWORK_JUDGE_PYTHON"} python3 python3.13 python3.12 python3.11 python3.10 python; do
    command -v "$c" >/dev/null 2>&1 || continue
    v="$("$c" -I -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)" || v=""
    case "$v" in [0-9]*.[0-9]*.[0-9]*) ;; *) PY_SEEN="$PY_SEEN $c(unusable)"; continue ;; esac
    major="${v%%.*}"; minor="${v#*.}"; minor="${minor%%.*}"
    if [ "$major" -gt 3 ] || { [ "$major" -eq 3 ] && [ "$minor" -ge 10 ]; }; then
      PY="$(command -v "$c")"; PY_VERSION="$v"
      return 0
    fi
    PY_SEEN="$PY_SEEN $c=$v"
  done
  fail_stage python "no python3 >= 3.10 on PATH (found:${PY_SEEN:- none}); install one in the task image or set COWORK_JUDGE_PYTHON"
}

# ---------------------------------------------------------------- install
# Exit status: 0 = this project's cowork-judge at version $REQ; 4 = some other project; 3 = missing.
verify_judge() {
  "$1" -I - "$REQ" <<'PY' 2>&1
import importlib.metadata as md
import sys

want = sys.argv[1]
try:
    have = md.version("cowork-judge")
    import cowork_judge
except Exception as exc:  # not installed, or broken
    print("cowork-judge is not importable here: %s" % exc)
    sys.exit(3)
if not hasattr(cowork_judge, "ABI"):
    print("the installed cowork-judge %s is not this project (no cowork_judge.ABI)" % have)
    sys.exit(4)
try:
    from packaging.version import Version
except ImportError:
    try:
        from pip._vendor.packaging.version import Version
    except ImportError:
        Version = str
if Version(have) != Version(want):
    print("cowork-judge %s is installed, %s was requested" % (have, want))
    sys.exit(3)
PY
}

pick_home() {
  if [ -n "${COWORK_JUDGE_HOME:-}" ]; then
    HOME_DIR="$COWORK_JUDGE_HOME"
  else
    HOME_DIR="/opt/cowork-judge"
    if [ -r "$HOME_DIR/venv-$REQ-py${PY_VERSION%.*}/.cowork-judge-installed" ]; then
      :  # a judge baked into the image (cowork-judge init --image): reused even where it is read-only
    elif ! mkdir -p -- "$HOME_DIR" 2>/dev/null || [ ! -w "$HOME_DIR" ]; then
      HOME_DIR="${TMPDIR:-/tmp}/cowork-judge"
    fi
  fi
  mkdir -p -- "$HOME_DIR" 2>/dev/null || fail_stage venv "cannot create the judge's home $HOME_DIR"
  VENV="$HOME_DIR/venv-$REQ-py${PY_VERSION%.*}"
}

# Trials that share one judge home (a fleet's volume, one /opt/cowork-judge for several sandboxes)
# may all find it cold at once: one of them installs, the others wait for it and reuse its venv.
# The lock is flock(1) on $VENV.lock (fd 9, released with the process), else a lock folder
# (mkdir is atomic) that is broken once older than the install budget + 60 s (its owner is dead:
# every install step runs under COWORK_INSTALL_TIMEOUT). No lock at all where the home is read-only.
lock_venv() { # lock_venv SECONDS: 0 = held (or nothing to lock), 1 = still held by another trial
  local secs="$1" t0=$SECONDS said=0
  if command -v flock >/dev/null 2>&1 && { exec 9>>"$VENV.lock"; } 2>/dev/null; then
    flock -n 9 && return 0
    say "another trial is installing into $VENV; waiting for it (at most ${secs}s)"
    flock -w "$secs" 9 && return 0
    return 1
  fi
  while ! mkdir -- "$VENV.lockdir" 2>/dev/null; do
    [ -d "$VENV.lockdir" ] || return 0  # cannot create it (read-only home): install unlocked
    if [ -n "$(find "$VENV.lockdir" -maxdepth 0 -mmin "+$(((secs + 60 + 59) / 60))" 2>/dev/null)" ]; then
      say "breaking the stale install lock $VENV.lockdir"
      rm -rf -- "$VENV.lockdir"
      continue
    fi
    if [ "$said" = 0 ]; then say "another trial is installing into $VENV; waiting for it (at most ${secs}s)"; said=1; fi
    [ $((SECONDS - t0)) -lt "$secs" ] || return 1
    sleep 1
  done
  LOCK_DIR="$VENV.lockdir"
  return 0
}

# True when $VENV (the home's default venv-<version>-py<X.Y>) holds a finished install of this
# version with OTHER extras: another task's trial may be judging from it right now, so it is never
# replaced; these extras get their own venv-<version>-py<X.Y>-x-<extras> beside it.
stamped_for_other_extras() {
  local have
  case "$VENV" in *-x-*) return 1 ;; esac
  have="$(cat "$VENV/.cowork-judge-installed" 2>/dev/null)" || return 1
  case "$have" in "cowork-judge==$REQ ["*"]") [ "$have" != "$want_stamp" ] ;; *) return 1 ;; esac
}

extras_venv() { local tag="${EXTRAS:-none}"; printf '%s' "$VENV-x-${tag//,/+}"; }

unlock_venv() {
  if [ -n "$LOCK_DIR" ]; then rm -rf -- "$LOCK_DIR"; LOCK_DIR=""; fi
  { flock -u 9; exec 9>&-; } 2>/dev/null
  return 0
}

install_judge() {
  local stamp want_stamp pip_timeout pip_retries total status dl wheel t0 out
  local -a pip pip_opts cert
  pick_home
  if [ -n "${COWORK_WHEEL_URL:-}" ]; then INDEX_DESC="$(redact_url "$COWORK_WHEEL_URL")"; fi
  want_stamp="cowork-judge==$REQ [$EXTRAS]"  # any index: verify_judge proves it is this project
  if stamped_for_other_extras; then VENV="$(extras_venv)"; say "$HOME_DIR holds another set of extras: using $VENV"; fi
  stamp="$(cat "$VENV/.cowork-judge-installed" 2>/dev/null)" || stamp=""
  if [ "$stamp" = "$want_stamp" ] && verify_judge "$VENV/bin/python" >/dev/null; then
    JPY="$VENV/bin/python"; INSTALLED=1; REUSED=1
    say "reusing $VENV (no network)"
    return 0
  fi
  if [ -z "$EXTRAS" ] && [ -z "${COWORK_WHEEL_URL:-}" ] && verify_judge "$PY" >/dev/null; then
    JPY="$PY"; INSTALLED=1; REUSED=1
    say "reusing the cowork-judge $REQ installed for $PY (no network)"
    return 0
  fi
  t0=$SECONDS
  total="${COWORK_INSTALL_TIMEOUT:-300}"
  case "$total" in "" | *[!0-9]*) total=300 ;; esac
  lock_venv "$total" || fail_stage install "another trial held the install lock of $VENV for more than ${total}s (COWORK_INSTALL_TIMEOUT)"
  if stamped_for_other_extras; then  # a concurrent trial of another task installed other extras here meanwhile
    unlock_venv
    VENV="$(extras_venv)"
    say "a concurrent trial installed another set of extras: using $VENV"
    lock_venv "$total" || fail_stage install "another trial held the install lock of $VENV for more than ${total}s (COWORK_INSTALL_TIMEOUT)"
  fi
  stamp="$(cat "$VENV/.cowork-judge-installed" 2>/dev/null)" || stamp=""
  if [ "$stamp" = "$want_stamp" ] && verify_judge "$VENV/bin/python" >/dev/null; then
    unlock_venv
    JPY="$VENV/bin/python"; INSTALLED=1; REUSED=1; INSTALL_SECONDS=$((SECONDS - t0))
    say "reusing $VENV, installed by a concurrent trial (waited ${INSTALL_SECONDS}s, no network)"
    return 0
  fi
  t0=$SECONDS  # the install's own budget starts once the lock is held
  rm -rf -- "$VENV"
  : >"$INSTALL_LOG" 2>/dev/null
  if "$PY" -I -m venv "$VENV" >>"$INSTALL_LOG" 2>&1; then
    pip=("$VENV/bin/python" -I -m pip)
  elif rm -rf -- "$VENV" && "$PY" -I -m venv --without-pip "$VENV" >>"$INSTALL_LOG" 2>&1 \
      && "$PY" -I -m pip --version >>"$INSTALL_LOG" 2>&1; then
    pip=("$PY" -I -m pip --python "$VENV/bin/python")  # the image's pip, into our venv
  else
    tail -n 20 "$INSTALL_LOG" >>"$LOG" 2>/dev/null
    fail_stage venv "$PY cannot create a virtual environment (no venv/ensurepip module and no pip)"
  fi
  pip_timeout="${COWORK_PIP_TIMEOUT:-15}"; pip_retries="${COWORK_PIP_RETRIES:-2}"
  case "$pip_timeout" in "" | *[!0-9]*) pip_timeout=15 ;; esac
  case "$pip_retries" in "" | *[!0-9]*) pip_retries=2 ;; esac
  if [ "$pip_retries" -lt 1 ]; then pip_retries=1; fi  # pip -q reports a refused connection only when it retries
  pip_opts=(--disable-pip-version-check --no-input --quiet --timeout "$pip_timeout" --retries "$pip_retries")
  cert=()
  if [ -n "${PIP_CERT:-}" ]; then cert=(--cert "$PIP_CERT"); fi
  if [ -n "${COWORK_WHEEL_URL:-}" ]; then
    # Dependency confusion: the judge's own wheel is fetched from COWORK_WHEEL_URL ALONE
    # (--isolated + PIP_CONFIG_FILE=/dev/null drop every other index, find-links and
    # config), pinned ==REQ; only then are its dependencies resolved from the usual indexes.
    dl="$HOME_DIR/download-$$"
    rm -rf -- "$dl"; mkdir -p -- "$dl"
    say "downloading cowork-judge==$REQ from $INDEX_DESC only"
    PIP_CONFIG_FILE=/dev/null with_timeout "$(remaining "$total" "$t0")" "${pip[@]}" --isolated download "${pip_opts[@]}" \
      ${cert[@]+"${cert[@]}"} --no-deps --only-binary=:all: --index-url "$COWORK_WHEEL_URL" \
      --dest "$dl" "cowork-judge==$REQ" >>"$INSTALL_LOG" 2>&1
    status=$?
    wheel=""
    for out in "$dl"/*.whl; do [ -f "$out" ] && wheel="$out"; done
    if [ "$status" -eq 0 ] && [ -n "$wheel" ]; then
      with_timeout "$(remaining "$total" "$t0")" "${pip[@]}" install "${pip_opts[@]}" --extra-index-url "$COWORK_WHEEL_URL" \
        "$wheel${EXTRAS:+[$EXTRAS]}" >>"$INSTALL_LOG" 2>&1
      status=$?
    elif [ "$status" -eq 0 ]; then
      status=1
    fi
    rm -rf -- "$dl"
  else
    say "installing cowork-judge==$REQ from pip's configured index"
    with_timeout "$(remaining "$total" "$t0")" "${pip[@]}" install "${pip_opts[@]}" "cowork-judge${EXTRAS:+[$EXTRAS]}==$REQ" >>"$INSTALL_LOG" 2>&1
    status=$?
  fi
  INSTALL_SECONDS=$((SECONDS - t0))
  if [ "$status" -ne 0 ]; then
    tail -n 40 "$INSTALL_LOG" >>"$LOG" 2>/dev/null
    tail -n 40 "$INSTALL_LOG" 2>/dev/null
    if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
      fail_stage install "pip did not finish within COWORK_INSTALL_TIMEOUT=${total}s (index unreachable or too slow)"
    fi
    fail_stage install "pip could not install cowork-judge${EXTRAS:+[$EXTRAS]}==$REQ from $INDEX_DESC (exit $status, see install.log)"
  fi
  out="$(verify_judge "$VENV/bin/python")"
  status=$?
  if [ "$status" -eq 4 ]; then
    fail_stage package "$out; set COWORK_WHEEL_URL to the index that serves this project's wheels"
  elif [ "$status" -ne 0 ]; then
    fail_stage install "$out"
  fi
  printf '%s' "$want_stamp" >"$VENV/.cowork-judge-installed" 2>/dev/null
  unlock_venv
  JPY="$VENV/bin/python"; INSTALLED=1
  say "installed cowork-judge==$REQ into $VENV in ${INSTALL_SECONDS}s"
}

# ---------------------------------------------------------------- capabilities
cap_json() { # available path version reason
  printf '{"available": %s, "path": %s, "version": %s, "reason": %s}' \
    "$1" "$(json_or_null "$2")" "$(json_or_null "$3")" "$(json_str "$4")"
}

probe_binary() { # label candidates...
  local label="$1" c p v
  shift
  for c in "$@"; do
    p="$(command -v "$c" 2>/dev/null)" || p=""
    if [ -z "$p" ] && [ -x "$c" ]; then p="$c"; fi
    [ -n "$p" ] || continue
    v="$(with_timeout 10 "$p" --version 2>/dev/null </dev/null | grep -m 1 -E '[0-9]+\.[0-9]+')" || v=""
    if [ -n "$v" ]; then cap_json true "$p" "$v" ""; else cap_json false "$p" "" "$label --version failed"; fi
    return 0
  done
  cap_json false "" "" "$label: not found"
}

probe_modules() { # prints the four module entries, comma-separated
  if [ -n "$JPY" ]; then
    "$JPY" -I - <<'PY' 2>/dev/null && return 0
import importlib.metadata as md
import importlib.util
import json
out = []
for module, dist in (("pymupdf", "pymupdf"), ("playwright", "playwright"), ("pptx", "python-pptx")):
    key = "python_pptx" if module == "pptx" else module
    if importlib.util.find_spec(module) is None:
        entry = {"available": False, "path": None, "version": None, "reason": "python module %s not installed" % module}
    else:
        try:
            version = md.version(dist)
        except md.PackageNotFoundError:
            version = None
        entry = {"available": True, "path": module, "version": version, "reason": ""}
    out.append('"%s": %s' % (key, json.dumps(entry)))
print(", ".join(out))
PY
  fi
  printf '"pymupdf": %s, "playwright": %s, "python_pptx": %s' "$(cap_json false "" "" "no judge python")" \
    "$(cap_json false "" "" "no judge python")" "$(cap_json false "" "" "no judge python")"
}

probe_cjk() {
  local fc fams
  fc="$(command -v fc-list 2>/dev/null)" || fc=""
  if [ -z "$fc" ]; then cap_json false "" "" "fc-list not found (fontconfig missing)"; return 0; fi
  fams="$( { with_timeout 10 "$fc" ':lang=zh' family; with_timeout 10 "$fc" ':lang=ja' family; } 2>/dev/null \
    | cut -d, -f1 | sort -u | head -n 6 | tr '\n' ',' | sed 's/,$//; s/,/, /g')"
  if [ -n "$fams" ]; then cap_json true "$fc" "$fams" ""; else cap_json false "$fc" "" "no font covering Chinese or Japanese"; fi
}

write_capabilities() {
  local t0=$SECONDS
  CAPS_DONE=1
  {
    printf '{\n  "schema": "cowork-judge/env-capabilities@1",\n  "probed_by": "test.sh",\n'
    printf '  "python_version": %s,\n' "$(json_or_null "$PY_VERSION")"
    printf '  "soffice": %s,\n' "$(probe_binary soffice "${JUDGE_SOFFICE_PATH:-soffice}" libreoffice /usr/bin/soffice /usr/lib/libreoffice/program/soffice /opt/libreoffice/program/soffice)"
    printf '  "chromium": %s,\n' "$(probe_binary chromium "${JUDGE_CHROMIUM_PATH:-chromium}" chromium-browser google-chrome google-chrome-stable /usr/bin/chromium /usr/lib/chromium/chromium)"
    printf '  %s,\n' "$(probe_modules)"
    printf '  "cjk_fonts": %s,\n' "$(probe_cjk)"
    printf '  "judge": {"requested_version": %s, "version_source": %s, "extras": %s, "index": %s, "python": %s, "venv": %s, "installed": %s, "reused": %s, "install_seconds": %d},\n' \
      "$(json_str "$REQ")" "$(json_str "$SRC")" "$(json_str "$EXTRAS")" "$(json_str "$INDEX_DESC")" \
      "$(json_or_null "$PY")" "$(json_or_null "$VENV")" "$([ "$INSTALLED" = 1 ] && echo true || echo false)" \
      "$([ "$REUSED" = 1 ] && echo true || echo false)" "$INSTALL_SECONDS"
    printf '  "seconds": %d\n}\n' "$((SECONDS - t0))"
  } | atomic_write "$VERIFIER_DIR/env_capabilities.json" || say "cannot write env_capabilities.json"
}

# ---------------------------------------------------------------- outcome
# reward.txt holds a finite float (or SKIPPED): the judge (or the custom entry) finished.
reward_text() { tr -d ' \t\r\n' <"$VERIFIER_DIR/reward.txt" 2>/dev/null | head -c 64; }

is_finite_float() {
  printf '%s' "$1" | grep -q -E '^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$'
}

ensure_reward_json() {
  local r="$1" j
  [ -s "$VERIFIER_DIR/reward.json" ] && return 0
  [ "$r" = "SKIPPED" ] && return 0  # Harbor reads reward.txt: the trial becomes an error, left out of the mean
  if printf '%s' "$r" | grep -q -E '^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$'; then j="$r"
  else j="$(awk -v x="$r" 'BEGIN { printf "%.17g", x + 0 }')"; fi
  printf '{"reward": %s}\n' "$j" | atomic_write "$VERIFIER_DIR/reward.json" || say "cannot write reward.json"
}

# The exit-message table (cowork_judge/install/exit_messages.py, rendered; kept in sync by
# scripts/release/sync_template.py): name<TAB>exit_code<TAB>ERE<TAB>reason, first match wins.
exit_rules() {
  cat <<'COWORK_EXIT_RULES'
no_python	judge:scorer_error	cowork-judge/test.sh: FAILED python:	no usable Python (3.10 or newer) in the image, the judge could not be installed
bad_version	judge:scorer_error	cowork-judge/test.sh: FAILED version:	COWORK_JUDGE_VERSION is not a version number
index_unreachable	judge:api_error	Retrying \(Retry\(total=|Could not fetch URL|Failed to establish a new connection|Name or service not known|Temporary failure in name resolution|Network is unreachable|No route to host|ProxyError|SSLError|certificate verify failed|HTTP error 5[0-9][0-9]|Read timed out\. \(read timeout=|ConnectTimeoutError	the package index could not be reached, the judge was not installed
version_missing	judge:scorer_error	No matching distribution found for cowork[-_.]judge|Could not find a version that satisfies the requirement cowork[-_.]judge	the requested cowork-judge version is not on the package index
wrong_package	judge:scorer_error	cowork-judge/test.sh: FAILED package:	the package installed as cowork-judge is not this project (an unrelated project shares the name)
install_failed	judge:scorer_error	cowork-judge/test.sh: FAILED (venv|install):	cowork-judge could not be installed
entry_missing	judge:scorer_error	cowork-judge/test.sh: FAILED entry-missing:	the custom judge entry (CUSTOM_JUDGE_ENTRY) does not exist or cannot be run
no_credential	judge:no_credential	no judge credentials|AuthenticationError|invalid_api_key|Incorrect API key|Error code: 401|401 Unauthorized|PermissionDeniedError|Error code: 403	the judge endpoint refused the credentials or none were configured
killed_at_deadline	judge:timeout	cowork-judge/test.sh: FAILED timeout:	the judge ran past its time limit and was stopped
rate_limit	judge:api_error	RateLimitError|Error code: 429|429 Too Many Requests|rate limit|Request rate increased too quickly|quota exceeded|insufficient_quota	the judge endpoint rate-limited the run
api_error	judge:api_error	APIConnectionError|APIStatusError|InternalServerError|Error code: 5[0-9][0-9]|Bad Gateway|Service Unavailable|stream disconnected|Connection refused|Connection reset	the judge endpoint failed
timeout	judge:timeout	APITimeoutError|Request timed out|TimeoutError|timed out|deadline exceeded|JUDGE_DEADLINE	a judge call or the run timed out
crash	judge:scorer_error	cowork-judge/test.sh: FAILED (judge|entry):|Traceback \(most recent call last\)|ModuleNotFoundError|ImportError|Segmentation fault|MemoryError|Killed	the judge crashed
default	judge:scorer_error	-	the judge left no reward and no known failure pattern is in the logs
COWORK_EXIT_RULES
}

infer_embedded() {
  local name code pattern reason f line
  local -a files=()
  for f in test-sh.log judge.log test-stdout.txt; do
    if [ -f "$VERIFIER_DIR/$f" ]; then files+=("$VERIFIER_DIR/$f"); fi
  done
  while IFS="$TAB" read -r name code pattern reason; do
    if [ "$name" = default ]; then INF_CODE="$code"; INF_REASON="$reason"; return 0; fi
    for f in ${files[@]+"${files[@]}"}; do
      line="$(tail -c 1000000 "$f" | LC_ALL=C grep -a -i -E -m 1 -e "$pattern" 2>/dev/null \
        | LC_ALL=C tr -c '\040-\176\n' '?' | LC_ALL=C tr -s ' ' | sed 's/^ //; s/ $//' | cut -c 1-300)"
      [ -n "$line" ] || continue
      INF_CODE="$code"; INF_REASON="$reason: $line"
      return 0
    done
  done <<EOF_RULES
$(exit_rules)
EOF_RULES
  INF_CODE="judge:scorer_error"; INF_REASON="no failure classification available"
}

infer_exit() {
  local out code reason
  INF_CODE="" INF_REASON=""
  if [ -n "$JPY" ] && out="$("$JPY" -I -m cowork_judge exit-message "$VERIFIER_DIR" 2>/dev/null)"; then
    IFS="$TAB" read -r code reason <<EOF_OUT
$out
EOF_OUT
    case "$code" in
      judge:no_credential | judge:scorer_error | judge:api_error | judge:timeout)
        INF_CODE="$code"; INF_REASON="$reason"; return 0 ;;
    esac
  fi
  infer_embedded
}

# The last-resort result document: the judge's own "failed before judging" document
# (src/cowork_judge/schemas/fallback-result.json, embedded verbatim and checked by
# scripts/release/sync_template.py); test.sh fills in the top-level lines below.
fallback_result() {
  cat <<'COWORK_FALLBACK_RESULT_JSON'
{
  "schema": "cowork-judge/result/v1",
  "status": "error",
  "exit_code": "judge:scorer_error",
  "exit_reason": "",
  "task_score": 0.0,
  "score_raw": null,
  "score_normalized": null,
  "fatal": false,
  "metric_id": "rubric_llm_judge",
  "version": "2.0.0",
  "abi": 2,
  "requested_version": null,
  "version_source": "package",
  "judge_backend": "openai",
  "judge_model": "gpt-5.5",
  "results": [],
  "criteria": [],
  "details": {
    "delivery": {
      "files": [],
      "missing": false,
      "from_chat": false,
      "stray": [],
      "ignored": [],
      "final_message_source": null
    },
    "weight_total": null,
    "earned": null,
    "weight_fallback": false,
    "instruction_source": null,
    "warnings": [],
    "evidence": {},
    "policy": {
      "reward_mode": "continuous",
      "pass_threshold": 0.75,
      "pass_compare": "gte",
      "unjudged_negative": "deduct",
      "systemic_fraction": 0.4,
      "systemic_min": 2,
      "ungrounded": "miss"
    },
    "fingerprint": null,
    "interrupted": false,
    "results": [],
    "summary": {
      "rubrics_total": 0,
      "judged": 0,
      "unjudged": 0,
      "scored": 0,
      "error_rows": 0
    },
    "raw_score": 0.0,
    "total_positive": 0.0,
    "scored_weight": 0.0,
    "reward": 0.0
  },
  "extra_fields": {
    "passed": false,
    "judge_coverage": 0.0,
    "judge_unjudged": 0,
    "judge_degraded": true,
    "judge_error_kind": null,
    "judge_seconds": 0.0,
    "judge_evidence_pages": 0,
    "judge_methods": {},
    "judge_coverage_by_method": {},
    "judge_unjudged_weight_frac": 0.0,
    "judge_called": false,
    "delivery_missing": false,
    "delivery_from_chat": false,
    "judge_calls": 0,
    "judge_tokens": 0
  },
  "guard": {
    "mode": "flag",
    "scanned": false,
    "flagged": false,
    "penalized": false,
    "reason": null,
    "findings": [],
    "findings_dropped": 0,
    "channels": {},
    "unscanned": [],
    "confirmation": null,
    "row": false,
    "row_hit": null,
    "row_reason": null
  },
  "score": 0.0,
  "is_hit_hurdle": false,
  "reward": 0.0,
  "judge_version": "2.0.0",
  "usage": {
    "model": "gpt-5.5",
    "vendor": "openai",
    "backend": "openai",
    "judged": "0/0",
    "api_calls": 0,
    "elapsed_seconds": 0.0,
    "timings": {
      "total": 0.0
    }
  }
}
COWORK_FALLBACK_RESULT_JSON
}

# The original 1.3.6's reward_exit_message.json for that document (core/legacy.py; embedded
# and checked the same way); fill_fallback fills in its lines too.
fallback_exit_message() {
  cat <<'COWORK_FALLBACK_EXIT_MESSAGE_JSON'
{
  "task_score": 0.0,
  "exit_code": "judge:scorer_error",
  "exit_reason": "",
  "extra_fields": {
    "passed": false,
    "judge_coverage": 0.0,
    "judge_unjudged": 0,
    "judge_degraded": true,
    "judge_error_kind": null,
    "judge_seconds": 0.0,
    "judge_evidence_pages": 0,
    "judge_methods": {},
    "judge_coverage_by_method": {},
    "judge_unjudged_weight_frac": 0.0,
    "judge_called": false,
    "delivery_missing": false,
    "delivery_from_chat": false,
    "judge_calls": 0,
    "judge_tokens": 0,
    "is_rubrics": false,
    "rubrics_total_num": 0,
    "rubrics_api_success_num": 0,
    "score_normalized": 0.0,
    "raw_score": 0.0,
    "reward_mode": "continuous",
    "pass_threshold": 0.75,
    "pass_compare": "gte",
    "is_hit_hurdle": false,
    "judge_version": "2.0.0",
    "metric_id": "rubric_llm_judge",
    "judge_model": "gpt-5.5",
    "judge_error_rows": 0,
    "judge_scored_weight_frac": 0.0,
    "judge_error_negative_skipped": 0,
    "judge_hurdle_unverifiable": false,
    "judge_no_scored_rows": true,
    "judge_reasoning_effort": null,
    "judge_reasoning_effort_degraded": false
  }
}
COWORK_FALLBACK_EXIT_MESSAGE_JSON
}

fill_fallback() {
  local line comma source="${1:-fallback_result}"
  while IFS= read -r line; do
    comma=""
    case "$line" in *,) comma="," ;; esac
    case "$line" in
      '  "exit_code": '*) printf '  "exit_code": %s%s\n' "$(json_str "$INF_CODE")" "$comma" ;;
      '  "exit_reason": '*) printf '  "exit_reason": %s%s\n' "$(json_str "$INF_REASON")" "$comma" ;;
      '  "requested_version": '*) printf '  "requested_version": %s%s\n' "$(json_or_null "$REQ")" "$comma" ;;
      '  "version_source": '*) printf '  "version_source": %s%s\n' "$(json_str "${SRC:-package}")" "$comma" ;;
      '  "metric_id": '*) printf '  "metric_id": %s%s\n' "$(json_str "${JUDGE_METRIC_ID:-rubric_llm_judge}")" "$comma" ;;
      '  "judge_backend": '*) printf '  "judge_backend": %s%s\n' "$(json_str "${JUDGE_BACKEND:-openai}")" "$comma" ;;
      '  "judge_model": '*) printf '  "judge_model": %s%s\n' "$(json_str "$(judge_model_label)")" "$comma" ;;
      '    "judge_seconds": '*) printf '    "judge_seconds": %d.0%s\n' "$((SECONDS - START_SECONDS))" "$comma" ;;
      '    "judge_model": '* | '    "model": '*) printf '%s %s%s\n' "${line%%:*}:" "$(json_str "$(judge_model_label)")" "$comma" ;;
      '    "backend": '*) printf '    "backend": %s%s\n' "$(json_str "${JUDGE_BACKEND:-openai}")" "$comma" ;;
      '    "metric_id": '*) printf '    "metric_id": %s%s\n' "$(json_str "${JUDGE_METRIC_ID:-rubric_llm_judge}")" "$comma" ;;
      *) printf '%s\n' "$line" ;;
    esac
  done <<EOF_DOC
$("$source")
EOF_DOC
}

finish_failed() {
  local reward="0.0"
  trap - INT TERM
  unlock_venv
  [ "$CAPS_DONE" = 1 ] || write_capabilities
  infer_exit
  say "no reward from the judge: $INF_CODE: $INF_REASON"
  fill_fallback | atomic_write "$VERIFIER_DIR/result.json" || say "cannot write result.json"
  fill_fallback fallback_exit_message | atomic_write "$VERIFIER_DIR/reward_exit_message.json" || say "cannot write reward_exit_message.json"
  if truthy "${JUDGE_SKIP:-}"; then
    reward="SKIPPED"  # JUDGE_SKIP: never a 0 in the mean; Harbor records the trial as an error
  else
    printf '{"reward": 0.0}\n' | atomic_write "$VERIFIER_DIR/reward.json" || say "cannot write reward.json"
  fi
  printf '%s\n' "$reward" | atomic_write "$VERIFIER_DIR/reward.txt" || printf '%s\n' "$reward" >"$VERIFIER_DIR/reward.txt"
  say "wrote reward $reward, reward.json and result.json ($INF_CODE)"
  exit 1
}

# ---------------------------------------------------------------- agent logs of a separate verifier
# Harbor never restores /logs/agent into a separate verifier; the task's [[verifier.collect]] hook
# (written by `cowork-judge init`) copied the final-message files to /logs/artifacts/cowork-judge-agent,
# which Harbor carries over. Put them back where the judge reads them, unless /logs/agent has its own.
restore_agent_logs() {
  local from="$LOGS_DIR/artifacts/cowork-judge-agent" to="$LOGS_DIR/agent" f n=0
  [ -d "$from" ] || return 0
  for f in trajectory.json final_answer.txt response.txt; do
    if [ -e "$to/$f" ] || [ -L "$to/$f" ]; then return 0; fi
  done
  mkdir -p -- "$to" 2>/dev/null || { say "cannot create $to: the agent's final message is not restored"; return 0; }
  for f in trajectory.json final_answer.txt response.txt; do
    if [ -f "$from/$f" ] && [ ! -L "$from/$f" ]; then cp -- "$from/$f" "$to/$f" 2>/dev/null && n=$((n + 1)); fi
  done
  say "restored $n agent log file(s) from $from to $to (separate verifier)"
}

# ---------------------------------------------------------------- run
# JUDGE_DEADLINE as whole seconds, read as the judge reads it (digits, spaces around, a fraction
# dropped); anything else, 0 or more than 7 days, is the judge's default 1800 (the judge warns).
deadline_seconds() {
  local d="${JUDGE_DEADLINE:-1800}"
  d="${d#"${d%%[![:space:]]*}"}"; d="${d%"${d##*[![:space:]]}"}"; d="${d%%.*}"
  case "$d" in "" | *[!0-9]* | ????????*) d=1800 ;; esac
  d=$((10#$d))
  [ "$d" -gt 0 ] && [ "$d" -le 604800 ] || d=1800  # the judge's own bounds: (0, 7 days]
  echo "$d"
}

run_judge() {
  local entry deadline status r
  local -a cmd
  deadline="$(deadline_seconds)"
  export JUDGE_TESTS_DIR="$TESTS_DIR"
  export PATH="${JPY%/*}:$PATH"
  # Fleet spreads (config/judge_config.py FLEET_*): a hand `cowork-judge run` defaults to 0, a trial does not.
  export JUDGE_START_JITTER="${JUDGE_START_JITTER:-180}" JUDGE_WORKFLOW_START_JITTER="${JUDGE_WORKFLOW_START_JITTER:-30}"
  if [ -n "${CUSTOM_JUDGE_ENTRY:-}" ]; then
    case "$CUSTOM_JUDGE_ENTRY" in /*) entry="$CUSTOM_JUDGE_ENTRY" ;; *) entry="$TESTS_DIR/$CUSTOM_JUDGE_ENTRY" ;; esac
    if [ ! -f "$entry" ]; then
      fail_stage entry-missing "CUSTOM_JUDGE_ENTRY=$CUSTOM_JUDGE_ENTRY: no such file ($entry)"
    fi
    case "$entry" in
      *.py) cmd=("$JPY" "$entry") ;;  # the judge's Python: cowork_judge is importable
      *) if [ -x "$entry" ]; then cmd=("$entry"); else cmd=(bash "$entry"); fi ;;
    esac
    say "running the custom judge entry $entry"
  else
    cmd=("$JPY" -I -m cowork_judge run)
    say "running cowork-judge run"
  fi
  with_timeout "$((deadline + 60))" "${cmd[@]}" </dev/null 2>&1 | tee -a "$LOG"
  status=${PIPESTATUS[0]}
  r="$(reward_text)"
  if { [ "$r" = "SKIPPED" ] || is_finite_float "$r"; } && { [ -s "$VERIFIER_DIR/result.json" ] || [ -n "${CUSTOM_JUDGE_ENTRY:-}" ]; }; then
    ensure_reward_json "$r"
    say "reward $r (exit status $status, $((SECONDS - START_SECONDS))s in all)"
    exit 0
  fi
  if [ "$status" -eq 124 ] || [ "$status" -eq 137 ]; then
    fail_stage timeout "${cmd[*]} did not finish within JUDGE_DEADLINE+60=$((deadline + 60))s and was stopped"
  fi
  if [ -n "${CUSTOM_JUDGE_ENTRY:-}" ]; then
    fail_stage entry "the custom judge entry $entry exited with status $status without writing a reward"
  fi
  fail_stage judge "cowork-judge run exited with status $status without writing a reward"
}

main() {
  if ! mkdir -p -- "$VERIFIER_DIR" 2>/dev/null || [ ! -w "$VERIFIER_DIR" ]; then
    printf '%s\n' "cowork-judge/test.sh: cannot write to $VERIFIER_DIR: no reward can be written" >&2
    exit 1
  fi
  rm -f -- "$VERIFIER_DIR/reward.txt" "$VERIFIER_DIR/reward.json" "$VERIFIER_DIR/result.json" "$VERIFIER_DIR/judge.log"
  : >"$LOG"
  pick_version
  find_python
  install_judge
  write_capabilities
  restore_agent_logs
  run_judge
}

trap 'say "interrupted"; finish_failed' INT TERM
main "$@"

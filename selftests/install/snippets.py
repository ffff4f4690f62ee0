"""Real log snippets of every way a run can end without a reward (copied from real runs:
pip 23 against a closed port and against PyPI, the openai 1.x client, bash, test.sh)."""

from __future__ import annotations

MARK = "cowork-judge/test.sh: FAILED"

PIP_REFUSED = """\
WARNING: Retrying (Retry(total=1, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection object at 0x7fe085e8ecd0>: Failed to establish a new connection: [Errno 111] Connection refused')': /simple/cowork-judge/
WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after connection broken by 'NewConnectionError('<pip._vendor.urllib3.connection.HTTPConnection object at 0x7fe084771fd0>: Failed to establish a new connection: [Errno 111] Connection refused')': /simple/cowork-judge/
ERROR: Could not find a version that satisfies the requirement cowork-judge==0.1.0 (from versions: none)
ERROR: No matching distribution found for cowork-judge==0.1.0
"""

PIP_MISSING = """\
ERROR: Could not find a version that satisfies the requirement cowork-judge==0.1.0 (from versions: 1.2.0, 1.2.1, 1.3.6)
ERROR: No matching distribution found for cowork-judge==0.1.0
"""

TRACEBACK_IMPORT = """\
Traceback (most recent call last):
  File "<frozen runpy>", line 198, in _run_module_as_main
  File "/opt/cowork-judge/venv-0.1.0-py3.11/lib/python3.11/site-packages/cowork_judge/__main__.py", line 3, in <module>
ModuleNotFoundError: No module named 'pydantic_core._pydantic_core'
"""

RATE_LIMIT = """\
Traceback (most recent call last):
  File "/tests/my_judge.py", line 40, in <module>
    reply = client.chat.completions.create(model=model, messages=messages)
openai.RateLimitError: Error code: 429 - {'error': {'message': 'Request rate increased too quickly', 'type': 'rate_limit_error'}}
"""

AUTH = """\
openai.AuthenticationError: Error code: 401 - {'error': {'message': 'Incorrect API key provided: sk-****', 'code': 'invalid_api_key'}}
"""

NO_CREDENTIAL_LOG = "2026-12-01 03:11:50,210 ERROR no judge credentials: set JUDGE_API_KEY and JUDGE_BASE_URL (or OPENAI_API_KEY / OPENAI_BASE_URL)\n"

API_TIMEOUT = "openai.APITimeoutError: Request timed out.\n"

CASES: dict[str, tuple[dict[str, str], str, str]] = {
    # name: ({log file: text}, expected exit_code, expected rule)
    "no python": ({"test-sh.log": f"{MARK} python: no python3 >= 3.10 on PATH (found: none)\n"},
                  "judge:scorer_error", "no_python"),
    "python too old": ({"test-sh.log": f"{MARK} python: no python3 >= 3.10 on PATH (found: python3=3.8.18 python=3.8.18)\n"},
                       "judge:scorer_error", "no_python"),
    "index unreachable": ({"test-sh.log": PIP_REFUSED + f"{MARK} install: pip could not install cowork-judge==0.1.0 from "
                                          "http://127.0.0.1:9/simple/ (exit 1, see install.log)\n"},
                          "judge:api_error", "index_unreachable"),
    "version missing": ({"test-sh.log": PIP_MISSING + f"{MARK} install: pip could not install cowork-judge==0.1.0 from "
                                        "default index (exit 1, see install.log)\n"},
                        "judge:scorer_error", "version_missing"),
    "judge crash": ({"test-sh.log": TRACEBACK_IMPORT + f"{MARK} judge: cowork-judge run exited with status 1 without writing a reward\n"},
                    "judge:scorer_error", "crash"),
    "custom entry failing": ({"test-sh.log": "my judge: cannot parse the deck\n"
                                             f"{MARK} entry: the custom judge entry /tests/judge.sh exited with status 3 without writing a reward\n"},
                             "judge:scorer_error", "crash"),
    "custom entry missing": ({"test-sh.log": f"{MARK} entry-missing: CUSTOM_JUDGE_ENTRY=judge.sh: no such file (/tests/judge.sh)\n"},
                             "judge:scorer_error", "entry_missing"),
    "no credential (judge log)": ({"judge.log": NO_CREDENTIAL_LOG}, "judge:no_credential", "no_credential"),
    "credential refused": ({"test-stdout.txt": AUTH + f"{MARK} entry: the custom judge entry /tests/j.py exited with status 1 without writing a reward\n"},
                           "judge:no_credential", "no_credential"),
    "rate limit": ({"test-sh.log": RATE_LIMIT + f"{MARK} entry: the custom judge entry /tests/my_judge.py exited with status 1 without writing a reward\n"},
                   "judge:api_error", "rate_limit"),
    "call timeout": ({"test-sh.log": API_TIMEOUT + f"{MARK} entry: the custom judge entry /tests/j.py exited with status 1 without writing a reward\n"},
                     "judge:timeout", "timeout"),
    "stopped at the deadline": ({"test-sh.log": f"{MARK} timeout: /tests/j.sh did not finish within JUDGE_DEADLINE+60=1860s and was stopped\n"},
                                "judge:timeout", "killed_at_deadline"),
    "nothing known": ({"test-sh.log": "something odd\n"}, "judge:scorer_error", "default"),
}

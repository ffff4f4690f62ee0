"""Small client for the internal judge service (model-graded evaluations).

Usage:
    python judge_api_client.py answers.jsonl --rubric rubric.json > verdicts.jsonl
"""

import json
import sys
import urllib.request

JUDGE_URL = "http://judge.eval.example.org/v1/judge"


def judge_one(answer: str, rubric: dict) -> dict:
    """POST one answer; returns {"verdicts": [{"id", "hit", "reason"}], "score": float}."""
    body = json.dumps({"answer": answer, "rubric": rubric}).encode()
    req = urllib.request.Request(JUDGE_URL, data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        result = json.load(resp)
    # the service returns score in [0, 1]; a missing score means the judge failed, not 0
    if "score" not in result:
        raise RuntimeError(f"judge returned no score: {result}")
    return result


def main() -> None:
    rubric = json.load(open(sys.argv[3]))
    for line in open(sys.argv[1]):
        item = json.loads(line)
        verdict = judge_one(item["answer"], rubric)
        hits = sum(v["hit"] for v in verdict["verdicts"])
        print(json.dumps({"id": item["id"], "score": verdict["score"], "hits": hits}))


if __name__ == "__main__":
    main()

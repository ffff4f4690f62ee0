#!/usr/bin/env python3
"""Release check: no private hostnames, private IP addresses, keys or tokens in the built artifacts.

Usage: leak_scan.py PATH...   (wheels and sdists are opened and every member is read; folders
are walked). Allowed strings (test fixtures' fake keys) are listed one per line in
scripts/release/leak_allowlist.txt. Exit status: 0 clean, 1 findings (printed, values masked),
2 bad arguments.
"""

from __future__ import annotations

import re
import sys
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

ALLOWLIST = Path(__file__).with_name("leak_allowlist.txt")

_OCTET = r"(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])"
PATTERNS: dict[str, re.Pattern[bytes]] = {
    "private IPv4 address": re.compile(
        rf"(?<![0-9.])(?:10\.{_OCTET}|172\.(?:1[6-9]|2[0-9]|3[01])|192\.168)\.{_OCTET}\.{_OCTET}(?![0-9]|\.[0-9])".encode()),
    "private hostname": re.compile(
        rb"\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*\.(?:internal|intranet|corp|lan)\b|\b[a-z0-9-]+-inc\.(?:com|net)\b", re.IGNORECASE),
    "OpenAI-style API key": re.compile(rb"\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{32,}"),
    "AWS access key id": re.compile(rb"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),
    "GitHub token": re.compile(rb"\b(?:ghp|gho|ghs|ghu)_[A-Za-z0-9]{36}\b|\bgithub_pat_[A-Za-z0-9_]{40,}"),
    "Slack token": re.compile(rb"\bxox[abprs]-[A-Za-z0-9-]{10,}"),
    "Google API key": re.compile(rb"\bAIza[0-9A-Za-z_-]{35}\b"),
    "Hugging Face token": re.compile(rb"\bhf_[A-Za-z0-9]{30,}\b"),
    "PyPI token": re.compile(rb"\bpypi-AgE[A-Za-z0-9_-]{20,}"),
    "private key block": re.compile(rb"-----BEGIN (?:[A-Z]+ )?PRIVATE KEY-----"),
    "bearer token": re.compile(rb"\bBearer [A-Za-z0-9._~+/-]{30,}=*"),
}
"""Finding kind → pattern, applied to raw bytes."""


def allowed() -> set[bytes]:
    """Exact strings that are not leaks (fake keys of the test suite), from `ALLOWLIST`."""
    try:
        lines = ALLOWLIST.read_bytes().splitlines()
    except OSError:
        return set()
    return {line.strip() for line in lines if line.strip() and not line.startswith(b"#")}


def members(path: Path) -> Iterator[tuple[str, bytes]]:
    """(display name, bytes) of every file in `path` (an archive, a folder or a plain file)."""
    if path.is_dir():
        for f in sorted(p for p in path.rglob("*") if p.is_file()):
            yield from members(f)
    elif path.name.endswith(".whl") or path.suffix == ".zip":
        with zipfile.ZipFile(path) as zf:
            for name in zf.namelist():
                if not name.endswith("/"):
                    yield f"{path.name}:{name}", zf.read(name)
    elif path.name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(path) as tf:
            for m in tf.getmembers():
                f = tf.extractfile(m) if m.isfile() else None
                if f is not None:
                    yield f"{path.name}:{m.name}", f.read()
    else:
        yield str(path), path.read_bytes()


def mask(value: bytes) -> str:
    text = value.decode("latin-1")
    return text if len(text) <= 8 else f"{text[:4]}…{text[-2:]} ({len(text)} chars)"


def scan(paths: list[Path]) -> list[str]:
    """Findings as lines ``kind: member: masked value`` ([] = clean)."""
    ok = allowed()
    findings = []
    for path in paths:
        for name, data in members(path):
            for kind, pattern in PATTERNS.items():
                for m in pattern.finditer(data):
                    if m.group(0) not in ok:
                        findings.append(f"{kind}: {name}: {mask(m.group(0))}")
    return findings


def main(argv: list[str] | None = None) -> int:
    args = [Path(a) for a in (sys.argv[1:] if argv is None else argv)]
    if not args or not all(a.exists() for a in args):
        print("usage: leak_scan.py PATH... (every path must exist)", file=sys.stderr)
        return 2
    findings = scan(args)
    for line in findings:
        print(f"leak_scan: {line}", file=sys.stderr)
    print(f"leak_scan: {len(findings)} finding(s) in {', '.join(a.name for a in args)}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

"""Lint A007 (trial 35 P-6) reads solve.sh through `install.solve_script.copy_commands`, the parse the dry run reads
too, through the real ``python -m cowork_judge lint``: quotes and comments as a shell reads them."""

from __future__ import annotations

from .test_lint_trial35 import _lint, _with_solution


def test_lint_a007_reads_a_quoted_source_with_a_hash(make_instance):
    """``cp "/solution/deck #2.pptx" …`` was cut at `` #`` and not read; the source is now checked (quotes as a
    shell reads them), and a comment after it still is not."""
    solve = 'cp "/solution/deck #2.pptx" /app/output/  # cp /solution/old.pptx /app/output/\n'
    proc = _lint(_with_solution(make_instance(), solve, {"output/deck.pptx": "deck"}))
    said = [line for line in proc.stdout.splitlines() if "A007" in line]
    assert proc.returncode == 0 and len(said) == 1, proc.stdout + proc.stderr
    assert "line 2: solve.sh copies /solution/deck #2.pptx" in said[0] and "(it holds output/deck.pptx)" in said[0]

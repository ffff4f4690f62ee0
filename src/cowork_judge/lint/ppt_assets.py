"""``ppt_judge``'s asset checks (SPEC §15): the instance's ``task_check_dir`` against its rubric.

Registered in `cowork_judge.lint.assets.ASSET_CHECKS`; called for every rubric that routes
rows to ``ppt_judge``, whether or not the instance has assets. Findings:

- **A010 (ERROR)**, each a row the judge would leave unjudged ``asset_broken`` or a score
  the package did not mean:
  - content rows (``workflow_group`` ``type1``/``type2``) and no ``task_check_dir``: the run leaves
    each unjudged ``asset_broken``;
  - anything `load_task_checks` finds wrong: a file missing or not the documented format
    (``cowork_judge/schemas/ppt_task_check.schema.json``), a check invalid, an id declared
    twice or starting with ``V-``, a type2 check paired with no type1 check, an anchor file
    missing, unreadable or outside the folder, a text anchor empty, not UTF-8 or over
    32 KiB, an image anchor (PNG, JPEG, GIF, WebP by content) over 5 MiB or 40 M pixels
    or that does not decode, a file named as an image whose content is none;
  - the id set of the checks ≠ the id set of the rubric's content rows (``ppt_judge``
    rows with ``workflow_group`` ``type1``/``type2``), or a row marked with the other kind;
  - ``manifest.pairs`` ≠ the type2 checks' ``paired_type1_id``, a type2 row whose
    ``depends_on`` lacks its paired type1, ``type1_only`` or ``counts`` that disagree with
    the checks;
- **A014 (WARN)** (trial 18 P-1): ``ppt_judge`` rows, all visual, and no ``task_check_dir``: the run
  judges every row, but only the deck's look — nothing checks its content against a checklist. An
  empty checklist (``gen-ppt-rubrics --no-checklist``: zero checks, zero counts) says so on purpose;
- **A011 (WARN)**: a content row whose description is not its check's question verbatim
  (the generator copies it; an edit on one side changes what is judged);
- **A013 (WARN)**: the visual : content balance gen-ppt-rubrics recorded no longer matches the
  weights (`cowork_judge.lint.ppt_balance`);
- **A012 (WARN)**: the checks are (also) in the original cowork-judge 1.3.x format
  (``type1_checklist.json``/``type2_checklist.json``): says which file each kind was read
  from. A ``ppt_judge`` row without ``workflow_group`` is a content row when its id is
  declared in the checks (the original's rule).

The files the judge reads (manifest, type1, type2, cited anchors) are reported as used;
any other file under ``workflow_assets/ppt_judge/`` is A001 (unused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from cowork_judge.lint import ppt_balance
from cowork_judge.lint.asset_check import AssetResult
from cowork_judge.lint.codes import Finding

WORKFLOW = "ppt_judge"


def check(ctx: Any) -> Any:
    """The A010/A011 findings of one instance (`lint.asset_check.AssetContext` in, `AssetResult` out)."""
    from cowork_judge.workflow.ppt_judge.assets import TASK_CHECK_DIR, TYPE2_FILE, load_task_checks
    from cowork_judge.workflow.ppt_judge.legacy_assets import ORIGINAL_FILES

    checks = load_task_checks(ctx.asset_dir)
    where = f"{ctx.display}/workflow_assets/{WORKFLOW}/{TASK_CHECK_DIR}"
    ppt_rows = [r for r in ctx.doc.rows if r.get("workflow_name") == WORKFLOW]
    content = {r.label: r for r in ppt_rows if checks.group_of(r.label, r.get("workflow_group"))}
    kinds = {rid: checks.group_of(rid, r.get("workflow_group")) or "type1" for rid, r in content.items()}
    out: list[Finding] = []
    if checks.present and ppt_rows and any(name in " ".join(checks.formats.values()) for name in ORIGINAL_FILES.values()):
        found = "; ".join(f"{k} from {v}" for k, v in checks.formats.items())
        out.append(Finding("A012", where, f"the original cowork-judge 1.3.x format was found and is read: {found} "
                                          "(`gen-ppt-rubrics` writes this project's type1.json/type2.json beside them)"))
    if not ppt_rows:
        return AssetResult(out, checks.used_files() if checks.present else set())
    out += ppt_balance.check(ctx.doc)
    if not checks.present:
        out.append(_no_checklist(where, len(ppt_rows), sorted(content)))
        return AssetResult(out, set())
    for p in checks.problems:
        row = p.check if p.check in content else None
        out.append(Finding("A010", f"{where}/{p.file}", p.message, row=row))

    declared = checks.declared
    for rid, row in content.items():
        kind = kinds[rid]
        if rid not in declared:
            out.append(Finding("A010", ctx.doc.file, f"content row ({kind}) has no check in {TASK_CHECK_DIR}: it is "
                                                     "unjudged asset_broken", row=rid, field="id"))
        elif declared[rid] != kind:
            out.append(Finding("A010", ctx.doc.file, f"marked {kind} (workflow_group) but {TASK_CHECK_DIR} declares it "
                                                     f"a {declared[rid]} check", row=rid, field="workflow_group"))
    for cid, kind in declared.items():
        if cid not in content:
            file = checks.file_of(kind)
            out.append(Finding("A010", f"{where}/{file}", f"check {cid} has no content row in rubric.json (a "
                                                          f"ppt_judge row with workflow_group {kind!r}): it is never "
                                                          "judged; run gen-ppt-rubrics --content"))

    for problem in checks.manifest_disagreements():  # the check gen-ppt-rubrics names when it writes (trial 11 F5)
        out.append(Finding("A010", f"{where}/{problem.file}", f"{problem.message} (run gen-ppt-rubrics --fix-manifest "
                                                              "to write them)"))
    pairs = {c.id: c.paired_type1_id for c in checks.type2.values()}
    for t2, t1 in pairs.items():
        row = content.get(t2)
        if row is not None and t1 not in _deps(row.get("depends_on")):
            out.append(Finding("A010", ctx.doc.file, f"depends_on lacks its paired type1 {t1!r} (manifest pairs, "
                                                     f"{TYPE2_FILE}): the row would score when {t1} missed",
                               row=t2, field="depends_on"))

    questions = {**{c.id: c.question for c in checks.type1.values()}, **{c.id: c.question for c in checks.type2.values()}}
    for rid, row in content.items():
        if rid in questions and row.description != questions[rid]:
            out.append(Finding("A011", ctx.doc.file, f"description is not the question of {TASK_CHECK_DIR} verbatim; "
                                                     "regenerate with gen-ppt-rubrics --content (or edit the checklist)",
                               row=rid, field="description"))
    return AssetResult(out, _existing(checks.used_files()))


def _no_checklist(where: str, n_rows: int, content: list[str]) -> Finding:
    """A010 for `content` rows with no task_check_dir (the run leaves each unjudged ``asset_broken``), else A014
    for `n_rows` visual rows that judge only the deck's look (trial 18 P-1: the run judges them all)."""
    if content:
        shown = ", ".join(content[:6]) + (f" and {len(content) - 6} more" if len(content) > 6 else "")
        return Finding("A010", where, f"content row(s) {shown} (workflow_group type1/type2) but the instance has no "
                                      "task_check_dir: each is unjudged asset_broken; write their checks there "
                                      "(docs/deck-judging.md) or remove the rows")
    return Finding("A014", where, f"no task_check_dir: the {n_rows} ppt_judge row(s) are visual rows and judge only the "
                                  "deck's look; nothing judges its content against a checklist (rows of your own may). "
                                  "Write the deck's checks there and run gen-ppt-rubrics --content, or, when your own "
                                  "rows judge the content, say so with gen-ppt-rubrics --no-checklist (an empty "
                                  "checklist)")


def _deps(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return [str(value)] if isinstance(value, (str, int)) else []


def _existing(paths: set[Path]) -> set[Path]:
    return {p for p in paths if p.exists()}

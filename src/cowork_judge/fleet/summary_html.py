"""The HTML view of a fleet summary: accounting, plots (reward histogram, coverage, error
kinds, per-tag hit rates) and tables. Pure: summary dict → one self-contained page."""

from __future__ import annotations

from typing import Any

from cowork_judge.fleet.html import esc, fmt, fmt_ci, key_values, page, table
from cowork_judge.fleet.svg import BAR_ALT, bars, histogram

MAX_PROBLEMS_SHOWN = 200
MAX_ROWS_SHOWN = 500


def render_summary(summary: dict[str, Any]) -> str:
    """The page of `summary` (as built by `fleet.summarize.Summarizer.result`)."""
    acc = summary["accounting"]
    conf = f"{summary['options']['confidence'] * 100:g}%"
    parts = [*_heading(summary, conf), *_accounting(summary), *_reward(summary, conf), *_judging(summary, conf),
             *_guard(summary), *_tags(summary, conf), *_groups(summary), *_rows(summary)]
    if "reasons" in summary:
        parts.append(_reasons(summary["reasons"]))
    parts.append(_problems(summary["problems"]))
    parts.append("<h2>Inputs</h2>")
    parts.append(f'<p class="sub">{summary["inputs"]["files"]:,} files; their SHA-256 digests are in the JSON summary.</p>')
    return page(f"Fleet summary ({acc['inputs']} inputs)", "\n".join(parts))


def _heading(summary: dict[str, Any], conf: str) -> list[str]:
    """The title and the line saying how the summary was made (`conf`: the interval level)."""
    acc, opts = summary["accounting"], summary["options"]
    parts = [f"<h1>Fleet summary: {acc['inputs']:,} inputs</h1>",
             f'<p class="sub">{esc(summary["generator"])} · {summary["inputs"]["files"]:,} files · '
             f'clusters: {summary["clusters"]["clusters"]:,} (task key {esc(opts["task_key"])}) · bootstrap '
             f'{opts["draws"]} draws, seed {opts["seed"]}, {conf} intervals</p>']
    if summary["intervals"]["note"]:
        parts.append(f'<p class="sub">{esc(summary["intervals"]["note"])}</p>')
    return parts


def _accounting(summary: dict[str, Any]) -> list[str]:
    """How many inputs fell in each class (share of all), and the systemic exit codes."""
    acc = summary["accounting"]
    parts = ["<h2>Accounting</h2>",
             table(["class", "inputs", "share"], [[k, v, v / acc["inputs"] if acc["inputs"] else None]
                                                 for k, v in acc.items() if k != "inputs"], numeric=[False, True, True])]
    if summary["systemic_exit_codes"]:
        parts.append(table(["exit_code", "documents"], list(summary["systemic_exit_codes"].items()), numeric=[False, True]))
    return parts


def _reward(summary: dict[str, Any], conf: str) -> list[str]:
    """Mean reward and pass rate (all and clean, with their intervals), quantiles, histogram."""
    reward, passing = summary["reward"], summary["pass"]
    return ["<h2>Reward</h2>", key_values([
        ("documents with a reward", reward["documents"]),
        ("mean reward", f"{fmt(reward['mean'])} ({conf} CI {fmt_ci(reward['mean_ci'])})"),
        ("clean documents (scored + delivery_missing)", reward["documents_clean"]),
        ("mean reward, degraded and systemic left out", f"{fmt(reward['mean_clean'])} ({conf} CI {fmt_ci(reward['mean_clean_ci'])})"),
        ("pass rate", f"{fmt(passing['rate'])} ({conf} CI {fmt_ci(passing['rate_ci'])})"),
        ("pass rate, clean", f"{fmt(passing['rate_clean'])} ({conf} CI {fmt_ci(passing['rate_clean_ci'])})"),
        ("quantiles", "  ".join(f"{k} {fmt(v, 3)}" for k, v in (reward["quantiles"] or {}).items()) or "–"),
    ]), histogram(reward["histogram"]["counts"], reward["histogram"]["edges"], title="Reward histogram (documents)")]


def _judging(summary: dict[str, Any], conf: str) -> list[str]:
    """Coverage, unjudged rows, error kinds (documents and rows) and the methods' coverage."""
    coverage = summary["coverage"]
    parts = ["<h2>Judging</h2>", key_values([
        ("mean coverage", f"{fmt(coverage['mean'])} ({conf} CI {fmt_ci(coverage['mean_ci'])})"),
        ("unjudged rows", f"{summary['unjudged']['rows']:,} of {summary['unjudged']['rows_total']:,}"),
        ("mean unjudged share of positive weight", fmt(summary["unjudged"]["weight_frac_mean"])),
    ]), histogram(coverage["histogram"]["counts"], coverage["histogram"]["edges"], title="Coverage histogram (documents)",
                  color="#5b9b6b")]
    kinds = summary["error_kinds"]
    for level in ("documents", "rows"):
        if kinds[level]:
            items = sorted(kinds[level].items(), key=lambda kv: (-kv[1], kv[0]))
            parts.append(bars([k for k, _ in items], [v for _, v in items], title=f"Error kinds ({level})", color=BAR_ALT))
    if summary["methods"]:
        parts.append(table(["method", "rows", "judged", "coverage"],
                           [[m, s["rows"], s["judged"], s["coverage"]] for m, s in summary["methods"].items()],
                           numeric=[False, True, True, True]))
    return parts


def _guard(summary: dict[str, Any]) -> list[str]:
    """The guard's counts and flagged samples by finding kind; nothing without a guard part."""
    guard = summary.get("guard")
    if not guard:
        return []
    parts = ["<h2>Guard</h2>",
             key_values([("samples scanned", f"{guard['scanned']:,}"), ("flagged", f"{guard['flagged']:,}"),
                         ("penalized (reward set to 0)", f"{guard['penalized']:,}"),
                         ("modes", ", ".join(f"{m} {n:,}" for m, n in guard["modes"].items()) or "-")])]
    if guard["kinds"]:
        items = sorted(guard["kinds"].items(), key=lambda kv: (-kv[1], kv[0]))
        parts.append(bars([k for k, _ in items], [v for _, v in items], title="Flagged samples by finding kind", color=BAR_ALT))
    return parts


def _tags(summary: dict[str, Any], conf: str) -> list[str]:
    """Hit rate by tag (bars with intervals, where a tag has one) and the tag table."""
    tags = summary["tags"]
    parts = ["<h2>Tags</h2>"]
    rated = [(k, v) for k, v in tags.items() if v["hit_rate"] is not None]
    if rated:
        parts.append(bars([k for k, _ in rated], [v["hit_rate"] for _, v in rated], max_value=1.0,
                          intervals=[tuple(v["hit_rate_ci"]) if v.get("hit_rate_ci") else None for _, v in rated],
                          title=f"Hit rate by tag (judged rows; whiskers: {conf} CI)", value_format="{:.3f}"))
    parts.append(_row_table(tags, "tag"))
    return parts


def _groups(summary: dict[str, Any]) -> list[str]:
    """One section per --group-by key: its document and row tables."""
    parts = []
    for name, group in summary["groups"].items():
        parts.append(f"<h2>Grouped by {esc(name)}</h2>")
        if not group:
            parts.append(f'<p class="warn">No row or document carries {esc(name)!s}.</p>')
        if "documents" in group:
            parts.append(_doc_table(group["documents"], name))
        if "rows" in group:
            parts.append(_row_table(group["rows"], name))
    return parts


def _rows(summary: dict[str, Any]) -> list[str]:
    """The row-id table, the first ``MAX_ROWS_SHOWN`` ids."""
    parts = ["<h2>Rows</h2>"]
    rows = list(summary["rows"].items())
    if len(rows) > MAX_ROWS_SHOWN:
        parts.append(f'<p class="sub">first {MAX_ROWS_SHOWN} of {len(rows):,} row ids (all are in the JSON)</p>')
    parts.append(_row_table(dict(rows[:MAX_ROWS_SHOWN]), "row id"))
    return parts


def _row_table(cells: dict[str, Any], label: str) -> str:
    rows = [[k, v["rows"], v["judged"], v["hits"], v["hit_rate"], fmt_ci(v.get("hit_rate_ci")), v["level_mean"],
             ", ".join(f"{e} {n}" for e, n in v["error_kinds"].items())] for k, v in cells.items()]
    return table([label, "rows", "judged", "hits", "hit rate", "CI", "mean level", "unjudged by kind"], rows,
                 numeric=[False, True, True, True, True, False, True, False])


def _doc_table(cells: dict[str, Any], label: str) -> str:
    rows = [[k, v["documents"], v["rewarded"], v["reward_mean"], fmt_ci(v.get("reward_ci")), v["pass_rate"],
             fmt_ci(v.get("pass_rate_ci")), v["reward_mean_clean"], v["coverage_mean"]] for k, v in cells.items()]
    return table([label, "documents", "rewarded", "mean reward", "CI", "pass rate", "CI", "mean reward (clean)", "coverage"],
                 rows, numeric=[False, True, True, True, False, True, False, True, True])


def _reasons(reasons: dict[str, Any]) -> str:
    """``--include-reasons``: the first distinct reasons per row id / exit code and outcome."""
    rows = []
    for level in ("rows", "exit_codes"):
        for key, outcomes in reasons[level].items():
            for outcome, sample in outcomes.items():
                rows += [[key, outcome, r["reason"], r["count"]] for r in sample["first"]]
                if sample["other"]:
                    rows.append([key, outcome, f"(other reasons: {sample['other']})", sample["other"]])
    return "<h2>Sample reasons</h2>" + table(["row id / exit code", "outcome", "reason", "count"], rows,
                                             numeric=[False, False, False, True])


def _problems(problems: list[dict[str, str]]) -> str:
    if not problems:
        return ""
    shown = problems[:MAX_PROBLEMS_SHOWN]
    more = f'<p class="sub">… and {len(problems) - len(shown):,} more (all are in the JSON)</p>' if len(problems) > len(shown) else ""
    return "<h2>Inputs not summarized</h2>" + table(["input", "class", "error"],
                                                  [[p["input"], p["class"], p["error"]] for p in shown]) + more

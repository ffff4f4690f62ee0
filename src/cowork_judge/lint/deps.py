"""``depends_on`` checks: dangling ids, cycles, transitive closure, and gates with no effect.

Gates use the RAW hit of each listed dependency (SPEC §4; a positive dependency is met when hit,
a hurdle or deduction when judged and not hit — `Criterion.gate_met`), so a row gated on B, where B is
gated on A, still scores when A missed unless it lists A too: ``depends_on`` must be the
transitive closure. `missing_closure` is shared with ``--fix-closure``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from cowork_judge.core.rubric import did_you_mean, spelled_id
from cowork_judge.lint.codes import Finding
from cowork_judge.lint.document import Row, RubricDoc

MAX_CLOSURE_WORK = 2_000_000
"""Dependency edges walked per rubric before giving up (a closed 2 000-row chain is ~2 M);
real rubrics walk a few hundred."""


def node_id(row: Row) -> str:
    """The id gates refer to: the engine's (generated ones included), else the label."""
    return row.crit.id if row.crit is not None else row.label


def dependencies(row: Row) -> list[str]:
    """The row's ``depends_on`` as the engine reads it (a scalar is one id; ids are
    stripped strings; duplicates dropped), [] when malformed (R003 reports that)."""
    if row.crit is not None:
        return list(row.crit.depends_on)
    value = row.get("depends_on")
    if isinstance(value, (str, int)) and not isinstance(value, bool):
        value = [value]
    if not isinstance(value, list):
        return []
    out: list[str] = []
    for v in value:
        if isinstance(v, (str, int)) and not isinstance(v, bool):
            text = str(v).strip()
            if text and text not in out:
                out.append(text)
    return out


def graph(doc: RubricDoc) -> dict[str, list[str]]:
    """id → its dependencies, for every row that is an object (first row wins on a duplicate id)."""
    out: dict[str, list[str]] = {}
    for row in doc.rows:
        if isinstance(row.raw, Mapping):
            out.setdefault(node_id(row), dependencies(row))
    return out


class ClosureTooLarge(Exception):
    """Computing the closure would walk more than `MAX_CLOSURE_WORK` edges."""


def missing_closure(deps: Mapping[str, list[str]]) -> dict[str, list[tuple[str, str]]]:
    """For each row, the transitive dependencies it does not list.

    Dangling ids and the row itself are never "missing" (D001 and D002 report them).

    Returns:
        id → [(missing id, the listed dependency it is reached through)], ids in row
        order; rows with nothing missing are left out.

    Raises:
        ClosureTooLarge: more than `MAX_CLOSURE_WORK` edges would be walked.
    """
    order = {node: n for n, node in enumerate(deps)}
    work = 0
    out: dict[str, list[tuple[str, str]]] = {}
    for node, direct in deps.items():
        listed = set(direct)
        via: dict[str, str] = {}
        stack = [(d, d) for d in reversed(direct) if d in deps]
        seen = set(listed)
        while stack:
            current, first = stack.pop()
            for nxt in deps[current]:
                work += 1
                if work > MAX_CLOSURE_WORK:
                    raise ClosureTooLarge(f"more than {MAX_CLOSURE_WORK} dependency edges")
                if nxt in seen or nxt not in deps:
                    continue
                seen.add(nxt)
                if nxt != node:
                    via[nxt] = first
                stack.append((nxt, first))
        if via:
            out[node] = sorted(via.items(), key=lambda item: order[item[0]])
    return out


def cycles(deps: Mapping[str, list[str]], *, limit: int = 10) -> list[list[str]]:
    """Up to `limit` dependency cycles (self-dependencies excluded), each as a closed path
    ``[a, b, a]``. Iterative depth-first search: a 10 000-row chain must not recurse."""
    state: dict[str, int] = {}  # 1 = on the current path, 2 = done
    found: list[list[str]] = []
    for start in deps:
        if start in state:
            continue
        path = [start]
        state[start] = 1
        stack = [iter(deps[start])]
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif nxt == path[-1] or nxt not in deps:
                continue
            elif state.get(nxt) == 1:
                if len(found) < limit:
                    found.append([*path[path.index(nxt):], nxt])
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(deps[nxt]))
    return found


def knots(deps: Mapping[str, list[str]]) -> list[set[str]]:
    """The strongly connected components of more than one row (each holds at least one cycle).

    Iterative Tarjan (Tarjan 1972, "Depth-first search and linear graph algorithms"): a
    10 000-row chain must not recurse. Dangling ids and self-loops are ignored."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[set[str]] = []
    counter = 0
    for root in deps:
        if root in index:
            continue
        work = [(root, iter(deps[root]))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            nxt = next(edges, None)
            if nxt is not None:
                if nxt not in deps or nxt == node:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(deps[nxt])))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    out.append(component)
    return out


class _Hints:
    """A dangling id spelled (`spelled_id`) with the nearest row id as a did-you-mean (trial 28 P-3), for the
    first `LIMIT` dangling ids of a rubric (``difflib`` over every id costs a rubric of thousands of rows)."""

    LIMIT = 50

    def __init__(self, ids: Mapping[str, object]) -> None:
        self.ids, self.left = sorted(ids), self.LIMIT

    def said(self, dep: str) -> str:
        """`dep` as D001 names it: ``'C-LOCATE-DEK' (did you mean 'C-LOCATE-DECK'?)``."""
        self.left -= 1
        return spelled_id(dep) + (did_you_mean(dep, self.ids) if self.left >= 0 else "")


def check(doc: RubricDoc) -> list[Finding]:
    """D001 dangling ids, D002 cycles and self-dependencies, D003 missing transitive ids,
    D004 ``depends_on`` on rows that are never gated (hurdles and deductions)."""
    return list(_check(doc))


def _check(doc: RubricDoc) -> Iterator[Finding]:
    deps = graph(doc)
    label = {node_id(r): r.label for r in doc.rows}
    hints = _Hints(deps)
    for row in doc.rows:
        if not isinstance(row.raw, Mapping):
            continue
        node, direct = node_id(row), dependencies(row)
        if not direct:
            continue
        dangling = [d for d in direct if d not in deps]
        if dangling:
            yield Finding("D001", doc.file, f"names no row: {', '.join(map(hints.said, dangling))} (the gate fails closed: this "
                                            "row never scores)", row=row.label, field="depends_on")
        if node in direct:
            yield Finding("D002", doc.file, "depends on itself (its gate opens only when it is hit)", row=row.label,
                          field="depends_on")
        crit = row.crit
        if crit is not None and (crit.hurdle or crit.weight < 0):
            kind = "hurdle" if crit.hurdle else "deduction"
            yield Finding("D004", doc.file, f"a {kind} row is always judged and never gated: its depends_on has no "
                                            "effect", row=row.label, field="depends_on")
    # One D002 per knot of rows that gate each other (however many cycles run through it), and no
    # D003 on its rows: their closure means nothing until the cycle is broken (issue 26: one
    # cycle used to yield 22 errors).
    found = cycles(deps, limit=1000)
    in_knot: set[str] = set()
    for knot in knots(deps):
        in_knot |= knot
        cycle = next((c for c in found if c[0] in knot), sorted(knot))
        extra = f" ({len(knot)} rows are in this knot: {', '.join(sorted(knot)[:12])})" if len(knot) > len(cycle) - 1 else ""
        yield Finding("D002", doc.file, f"cycle {' → '.join(cycle)}: these rows gate each other{extra}; break the cycle, "
                                        "then run --fix-closure", row=label.get(cycle[0], cycle[0]), field="depends_on")
    try:
        missing = missing_closure(deps)
    except ClosureTooLarge as exc:
        yield Finding("D003", doc.file, f"depends_on is too far from closed to list ({exc}); run --fix-closure")
        return
    for node, items in missing.items():
        if node in in_knot:
            continue
        listed = ", ".join(f"{m!r} (via {v!r})" for m, v in items[:20])
        more = f" and {len(items) - 20} more" if len(items) > 20 else ""
        yield Finding("D003", doc.file, f"not transitively closed: missing {listed}{more}; gates read raw hits, so "
                                        "list them (lint-rubric --fix-closure does)", row=label.get(node, node),
                      field="depends_on")


__all__ = ["ClosureTooLarge", "check", "cycles", "knots", "dependencies", "graph", "missing_closure", "node_id"]

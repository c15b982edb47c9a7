"""Writing a measured table in the paper's shape, the measured value beside the paper's, as
Markdown and HTML; and the list of experiments for the docs."""

from __future__ import annotations

import html
from pathlib import Path

from ..logs_report import STYLE, prose
from .experiments import (
    COST_RULE,
    STD_RULE,
    experiment_files,
    load_experiment,
    named_models,
    shown_roles,
)
from .measuring import Cell, Table


def number(value: float | None, decimals: int = 1) -> str:
    return "–" if value is None else f"{value:.{decimals}f}"


def column_decimals(table: Table, index: int) -> int:
    """One decimal for a whole column; three for an unscaled column whose values are all under 1
    (a cosine, a share), so that every row of a column reads alike."""
    if table.experiment.columns[index].scale != 1:
        return 1
    means = [c.mean for row in table.rows if (c := row.cells[index]) and c.mean is not None]
    return 3 if means and all(abs(m) < 1 for m in means) else 1


def cell_text(cell: Cell | None, decimals: int, paper: str | float | None) -> str:
    """`measured ± std (paper: X)`, without the paper's part where it reports no value; `n/a`
    where the row does not run the column's tasks."""
    if cell is None:
        return "n/a"
    mean, std = cell.mean, cell.std
    measured = number(mean, decimals) + ("" if std is None else f" ± {number(std, decimals)}")
    return measured if paper is None else f"{measured} (paper: {paper})"


def title(table: Table) -> str:
    return f"{table.experiment.table}: {table.experiment.caption}"


def intro(table: Table) -> list[str]:
    """What the paper measured and what this table was measured with, as markdown lines."""
    e = table.experiment
    roles = ", ".join(f"{r}={m}" for r, m in table.roles.items() if r not in e.models)
    runs = f"{table.epochs} run{'s' if table.epochs != 1 else ''} (Inspect epochs)"
    limit = "all samples" if table.limit is None else f"limit {table.limit} samples per task"
    shared = " ".join(f"{k}={v}" for k, v in table.solver_args.items())
    return [
        f"Experiment `{e.name}` (seed {e.seed}): {e.paper}. The paper's model: {e.paper_model}, "
        f"{e.runs} run{'s' if e.runs != 1 else ''}.",
        f"Measured with `{table.model}`"
        + (f" (roles: {roles})" if roles else "")
        + (f", every solver with `{shared}` where the row leaves it open" if shared else "")
        + f", {limit}, {runs}, {table.date}. Logs: `{table.log_dir}`.",
        *row_models(table),
        STD_RULE,
        COST_RULE,
    ]


def row_models(table: Table) -> list[str]:
    """The models of the rows that bind their own roles, and what the paper's model names ran
    on (none when no row binds a role)."""
    e = table.experiment
    own = [row for row in e.rows if row.model_roles]
    if not own:
        return []
    rows = "; ".join(
        f"{row.label}: "
        + ", ".join(f"{r}={m}" for r, m in shown_roles(e, row, table.model, table.roles).items())
        for row in own
    )
    found = named_models(e, table.model, table.roles)
    names = ", ".join(
        f"`{name}` = {found[name] or 'unbound'} ({meaning})" for name, meaning in e.models.items()
    )
    return [
        f"Rows with models of their own (over the roles above): {rows}."
        + (f" The paper's models: {names}." if names else "")
    ]


def table_cells(table: Table) -> list[list[str]]:
    """The header, then each row: its label, a cell per column, calls, tokens and dollars per
    sample."""
    columns = table.experiment.columns
    decimals = [column_decimals(table, i) for i in range(len(columns))]
    out = [["", *(c.label for c in columns), "calls/sample", "tokens/sample", "$/sample"]]
    for row in table.rows:
        paper = table.experiment.paper_values.get(row.label, {})
        cells = [
            cell_text(c, d, paper.get(col.label)) for c, d, col in zip(row.cells, decimals, columns)
        ]
        tokens = "–" if row.tokens is None else f"{row.tokens:.0f}"
        spent = "–" if row.dollars is None else f"{row.dollars:.3g}"
        out.append([row.label, *cells, number(row.calls), tokens, spent])
    return out


def table_notes(table: Table) -> tuple[str, ...]:
    return (*table.experiment.notes, *table.notes)


def to_markdown(table: Table) -> str:
    head, *rows = [[c.replace("|", "\\|") for c in r] for r in table_cells(table)]
    lines = [f"# {title(table)}", ""] + [line for text in intro(table) for line in (text, "")]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    lines += [""] + [f"- {note}" for note in table_notes(table)]
    return "\n".join(lines).rstrip() + "\n"


def to_html(table: Table) -> str:
    """The same table as a self-contained page (the report's style; nothing fetched)."""
    e = html.escape
    head, *rows = table_cells(table)
    parts = [
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>{e(title(table))}</title><style>{STYLE}</style></head><body>",
        f"<h1>{e(title(table))}</h1>",
        *(f"<p>{prose(text)}</p>" for text in intro(table)),
        "<table><thead><tr>",
        *(f"<th>{e(name)}</th>" for name in head),
        "</tr></thead><tbody>",
    ]
    for cells in rows:
        parts += ["<tr>", *(f"<td>{e(c)}</td>" for c in cells), "</tr>"]
    parts.append("</tbody></table>")
    parts += [f"<p>{prose(note)}</p>" for note in table_notes(table)]
    return "\n".join([*parts, "</body></html>\n"])


def write_table(table: Table, out_dir: str | Path) -> list[Path]:
    """`<name>.md` and `<name>.html` in `out_dir`."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    md, page = out / f"{table.experiment.name}.md", out / f"{table.experiment.name}.html"
    md.write_text(to_markdown(table), encoding="utf-8")
    page.write_text(to_html(table), encoding="utf-8")
    return [md, page]


def list_markdown() -> str:
    """The shipped experiments as a markdown table (docs/reproducing.md holds it; a test checks)."""
    lines = ["| experiment | seed | table | runs | evals | caption |", "|---|---|---|---|---|---|"]
    for path in experiment_files().values():
        e = load_experiment(path)
        caption = e.caption.replace("|", "\\|")
        lines.append(f"| `{e.name}` | {e.seed} | {e.table} | {e.runs} | {e.evals} | {caption} |")
    return "\n".join(lines) + "\n"

"""Read `inspect view` in Chromium as a person comparing methods does (run by scripts/viewer-check.sh).

Arguments: the viewer's URL, a file of expected rows (per line: a log's file name without `.eval`,
its method, the models it must show) and the directory for the screenshots. Every check reads the
text the page shows, cell by cell (the viewer's grids mark each cell with its column id); a failed
check exits non-zero naming the log and what was shown instead.
"""

from __future__ import annotations

import argparse
import time
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from playwright.sync_api import Page, sync_playwright

# the samples list's column of the `mad_tasks/method` score
METHOD_COLUMN = "score_mad_tasks/method"
# the samples list's columns in its screenshot (the check itself reads every column)
SAMPLE_COLUMNS = {"Task", "Model", "Log File", "Id", "Input", "Target", "Tokens", "final_answer",
                  "mad_tasks/method"}  # fmt: skip
WAIT = 90.0  # seconds for the server to answer and for the grids to fill
RELOAD = 10.0


@dataclass(frozen=True)
class Expected:
    method: str
    models: list[str]


def read_expected(path: Path) -> dict[str, Expected]:
    rows = {}
    for line in path.read_text().splitlines():
        name, method, *models = line.split()
        rows[name] = Expected(method, models)
    return rows


def wait_for(check: Callable[[], Any], what: str, page: Page | None = None) -> Any:
    """`check()` once true; the page is reloaded every RELOAD seconds meanwhile: the viewer
    (Inspect 0.3.285) now and then leaves a log's row without its header's fields until a reload."""
    start = time.monotonic()
    reloaded = start
    while not (result := check()):
        now = time.monotonic()
        if now > start + WAIT:
            shown = [row["cells"] for row in grid(page)] if page is not None else "-"
            raise SystemExit(f"viewer check failed: {what} (waited {WAIT:.0f} s); shown: {shown}")
        if page is not None and now > reloaded + RELOAD:
            page.reload()
            reloaded = now
        time.sleep(0.5)
    return result


def serving(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


def grid(page: Page) -> list[dict[str, Any]]:
    """The rows the page shows: each row's link and its cells' text by column id."""
    return page.evaluate(
        """() => [...document.querySelectorAll('[role=row]')].map(row => ({
            href: row.getAttribute('href') || '',
            cells: Object.fromEntries([...row.querySelectorAll('[role=gridcell]')]
                .map(cell => [cell.dataset.colId, cell.innerText.trim()])),
        }))"""
    )


def fail(log: str, what: str, shown: dict[str, str]) -> NoReturn:
    raise SystemExit(f"viewer check failed: {log}: {what}; the row shows {shown}")


def check_eval_list(page: Page, expected: dict[str, Expected]) -> dict[str, str]:
    """One row per log, whose Tags start with its method and whose text names each of its models;
    each log's tag (its run label)."""

    def tagged_rows() -> dict[str, dict[str, str]] | None:
        rows = {
            name: row["cells"]
            for row in grid(page)
            for name in expected
            if name in row["href"] and row["cells"].get("tags", "-") != "-"
        }
        return rows if len(rows) == len(expected) else None

    rows = wait_for(tagged_rows, "a row with tags for every log in the eval list", page)
    for name, want in expected.items():
        cells = rows[name]
        if cells["tags"].split()[0] != want.method:
            fail(name, f"Tags do not start with the method {want.method}", cells)
        for model in want.models:
            if model not in " ".join(cells.values()):
                fail(name, f"the model {model} is not shown", cells)
        print(f"eval list: {cells['tags']!r} on {cells['model']}, score {cells.get('score')}")
    return {name: rows[name]["tags"] for name in expected}


def check_samples_list(
    page: Page, expected: dict[str, Expected], samples: int, tags: dict[str, str]
) -> None:
    """Every sample of every log, each with its log's run label (its tag) in the method column."""

    def filled() -> list[dict[str, str]] | None:
        rows = [row["cells"] for row in grid(page) if METHOD_COLUMN in row["cells"]]
        return rows if len(rows) == samples else None

    rows = wait_for(filled, f"{samples} rows with a method column in the samples list", page)
    for cells in rows:
        names = [name for name in expected if cells.get("logFile", "").startswith(name)]
        if len(names) != 1:
            fail("?", "a sample of no log checked here", cells)
        if cells[METHOD_COLUMN] != tags[names[0]]:
            fail(names[0], f"a sample's run label is not its log's tag {tags[names[0]]!r}", cells)
    methods = sorted({cells[METHOD_COLUMN] for cells in rows})
    print(f"samples list: {len(rows)} samples, methods {', '.join(methods)}")


def screenshot(page: Page, path: Path) -> None:
    """The page down to the grid's last row (not the empty space below it)."""
    boxes = [row.bounding_box() for row in page.query_selector_all("[role=row]")]
    bottom = max(box["y"] + box["height"] for box in boxes if box is not None)
    width = page.viewport_size["width"] if page.viewport_size else 1500
    page.screenshot(path=path, clip={"x": 0, "y": 0, "width": width, "height": bottom + 4})
    print(f"screenshot: {path}")


def widen(page: Page, column: str, by: int) -> None:
    """Drag the resize handle of a column (by its id), as a person does to read a cut-off cell."""
    handle = page.get_by_label(f"Resize {column}", exact=True)
    box = handle.bounding_box() if handle.count() == 1 else None
    if box is None:
        return
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + by, y, steps=10)
    page.mouse.up()


def show_only(page: Page, columns: set[str]) -> None:
    """Tick in the grid's Columns menu exactly the columns named, as a person does to compare."""
    page.get_by_text("Columns", exact=True).first.click()
    for box in page.get_by_role("checkbox").all():
        if box.is_checked() != (box.evaluate("e => e.parentElement.innerText.trim()") in columns):
            box.click()
    page.get_by_text("Columns", exact=True).first.click()  # closes the menu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("url")
    parser.add_argument("expected", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--samples-per-log", type=int, default=3)
    args = parser.parse_args()
    expected = read_expected(args.expected)
    wait_for(lambda: serving(args.url), f"inspect view answering at {args.url}")
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=args.chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 900})
        page.goto(args.url)
        tags = check_eval_list(page, expected)
        widen(page, "tags", 200)
        screenshot(page, args.out / "eval-list.png")
        page.get_by_text("Samples", exact=True).first.click()
        check_samples_list(page, expected, args.samples_per_log * len(expected), tags)
        page.set_viewport_size({"width": 1700, "height": 900})
        show_only(page, SAMPLE_COLUMNS)
        widen(page, METHOD_COLUMN, 40)
        page.locator('[data-header-col-id="sampleId"]').click()  # each question's runs together
        screenshot(page, args.out / "samples-list.png")
        browser.close()
    print(f"viewer check passed: {len(expected)} logs; screenshots in {args.out}")


if __name__ == "__main__":
    main()

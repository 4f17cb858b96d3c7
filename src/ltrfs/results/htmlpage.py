"""Markdown tables as standalone HTML pages.

Snakemake's report shows PNG, PDF and HTML results inline and offers every other file (CSV,
Markdown) as a download only. Each table the workflow writes as Markdown (the fold-averaged
tables, ours beside the published numbers, the top features, the leaderboard) is therefore also
written as one self-contained HTML page: the same text, headings, footnotes and marks, with
inline CSS and no script, so that it reads as a table in the report and in any browser."""
from __future__ import annotations

import html
import re

import markdown

from ltrfs.atomic_files import write_text

STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; font-size: 13px;
       color: #1f2328; margin: 12px 16px; }
h1, h2, h3, h4 { font-weight: 600; margin: 18px 0 8px; }
h1 { font-size: 19px; } h2 { font-size: 16px; } h3 { font-size: 15px; } h4 { font-size: 13px; }
p { max-width: 980px; line-height: 1.45; }
div.table { overflow: auto; max-width: 100%; max-height: 85vh; margin: 6px 0 10px; }
table { border-collapse: collapse; }
th, td { border: 1px solid #d0d7de; padding: 3px 8px; white-space: nowrap; }
th { background: #f3f4f6; text-align: left; position: sticky; top: 0; }
tr:nth-child(even) td { background: #fafbfc; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-size: 12px; }
"""

# A cell that holds a decimal number, optionally bold and followed by "± spread" or marks (*, ▲).
_NUMBER_CELL = re.compile(r"<td(?: style=\"[^\"]*\")?>((?:<strong>)?[-+]?(?:\d*\.\d|nan\b|inf\b)[^<]*(?:</strong>[^<]*)?)</td>")


def page(text: str, title: str | None = None) -> str:
    """One HTML page (UTF-8, inline CSS) from Markdown text.

    Headings, paragraphs and pipe tables; cells that hold decimal numbers are right-aligned
    whatever the Markdown's alignment, and a table wider or taller than the window scrolls in
    its own box (``overflow: auto``, at most 85% of the window's height, the header row kept in
    view) rather than widening the page.

    Parameters
    ----------
    text : str
        Markdown.
    title : str or None
        The page's title, by default its first heading.

    Returns
    -------
    str
    """
    body = markdown.markdown(text, extensions=["tables"], output_format="html")
    body = _NUMBER_CELL.sub(r'<td class="num">\1</td>', body)
    # a table wider (or taller) than the window scrolls inside its own box, whose scroll bars stay in
    # view: the page and its notes keep the window's width
    body = body.replace("<table>", '<div class="table">\n<table>').replace("</table>", "</table>\n</div>")
    if title is None:
        heading = re.search(r"^#+\s*(.+)$", text, flags=re.M)
        title = heading.group(1).strip() if heading else "table"
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{html.escape(title)}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n{body}\n</body>\n</html>\n")


def write_markdown(md_path, text: str, html_path=None, title: str | None = None) -> None:
    """Write Markdown text to a file and, optionally, the same as an HTML page.

    Parameters
    ----------
    md_path : path
    text : str
    html_path : path or None
    title : str or None
        As ``page``.
    """
    write_text(md_path, text)
    if html_path is not None:
        write_text(html_path, page(text, title))

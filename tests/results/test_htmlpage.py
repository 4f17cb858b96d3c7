"""Markdown tables as HTML pages for the report (ltrfs.results.htmlpage)."""
import re

from ltrfs.results.htmlpage import page, write_markdown

TABLE = """### MQ2008: a <small> experiment

| method | k | NDCG@10 | p |
|---|---|---|---|
| waf | 46 | **0.2301 ± 0.0450** | |
| chi | vali (5,10) | 0.2213 ± 0.0457 * | 8.25e-05 |

Cells: mean ± standard deviation over the 5 folds' means.
"""


def test_page_keeps_cells_marks_and_footnote():
    html = page(TABLE)
    assert html.startswith("<!DOCTYPE html>") and "<meta charset=\"utf-8\">" in html
    assert "<title>MQ2008: a &lt;small&gt; experiment</title>" in html
    rows = re.findall(r"<tr>(.*?)</tr>", html, flags=re.S)
    assert len(rows) == 3  # header and two rows
    cells = [re.findall(r"<t[dh][^>]*>(.*?)</t[dh]>", row) for row in rows]
    assert cells[0] == ["method", "k", "NDCG@10", "p"]
    assert cells[1] == ["waf", "46", "<strong>0.2301 ± 0.0450</strong>", ""]
    assert cells[2] == ["chi", "vali (5,10)", "0.2213 ± 0.0457 *", "8.25e-05"]
    # decimal numbers right-aligned; names, k and empty cells not
    assert re.findall(r'<td class="num">(.*?)</td>', html) == [
        "<strong>0.2301 ± 0.0450</strong>", "0.2213 ± 0.0457 *", "8.25e-05"]
    assert "<p>Cells: mean ± standard deviation over the 5 folds' means.</p>" in html
    assert "<script" not in html


def test_numbers_right_aligned_whatever_the_markdown_alignment():
    html = page("| method | value |\n|:---|:---|\n| chi | 0.8187 |\n")
    assert '<td style="text-align: left;">chi</td>' in html and '<td class="num">0.8187</td>' in html


def test_write_markdown_writes_both_or_only_markdown(tmp_path):
    write_markdown(tmp_path / "t.md", TABLE, tmp_path / "t.html", title="given")
    assert (tmp_path / "t.md").read_text() == TABLE
    assert "<title>given</title>" in (tmp_path / "t.html").read_text()
    write_markdown(tmp_path / "u.md", "no table")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.html", "t.md", "u.md"]


def test_a_wide_table_scrolls_in_its_own_box_not_the_page():
    html = page(TABLE + "\n" + TABLE)
    boxes = re.findall(r'<div class="table">\s*<table>.*?</table>\s*</div>', html, flags=re.S)
    assert len(boxes) == 2 and html.count("<table>") == 2  # every table in its box, the notes outside
    assert re.search(r"div\.table \{[^}]*overflow: auto", html)
    assert "<p>Cells:" in html.split("</div>")[1]

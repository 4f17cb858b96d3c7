"""The package's docstrings cite the project's docs (docs/*.md, section 'Heading'): every cited
file exists and every cited section is a heading of that file."""
from __future__ import annotations

import re
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SRC = REPO / "src" / "ltrfs"
#: a docs path, optionally followed by ", section 'Heading'" (the heading may wrap lines)
CITATION = re.compile(r"(docs/[\w./-]+\.md)(?:,\s+section\s+'([^']+)')?")
#: files that still cite the unpublished SPEC.md while another change is in flight (to be emptied)
PENDING: set[str] = set()  # files still citing SPEC/DESIGN (none)


def headings(path: Path) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#+\s+(.+?)\s*#*$", path.read_text(), re.M)}


def citations() -> list[tuple[str, str, str | None]]:
    found = []
    for source in sorted(SRC.rglob("*.py")):
        for match in CITATION.finditer(source.read_text()):
            section = " ".join(match.group(2).split()) if match.group(2) else None
            found.append((str(source.relative_to(SRC)), match.group(1).rstrip("."), section))
    return found


def test_docs_citations_in_the_package_resolve():
    found = citations()
    assert len(found) >= 20  # the method notes are cited throughout the package
    missing = [(src, doc) for src, doc, _ in found if not (REPO / doc).is_file()]
    assert missing == []
    cache = {}
    unknown = [(src, doc, section) for src, doc, section in found if section is not None
               and section not in cache.setdefault(doc, headings(REPO / doc))]
    assert unknown == []


def test_no_docstring_cites_files_a_clone_does_not_have():
    stale = [str(p.relative_to(SRC)) for p in sorted(SRC.rglob("*.py"))
             if re.search(r"\bSPEC\b|SPEC\.md|DESIGN\.md", p.read_text()) and str(p.relative_to(SRC)) not in PENDING]
    assert stale == []


def test_citation_pattern_reads_wrapped_sections():
    text = "see docs/methods.md, section\n'Choice on vali and\nsignificance')."
    ((doc, section),) = [(m.group(1), " ".join(m.group(2).split())) for m in CITATION.finditer(text)]
    assert (doc, section) == ("docs/methods.md", "Choice on vali and significance")


# --------------------------------------------------------------------------------------------
# The docs pages: every config key documented, every link resolves, every method listed, the
# front door's Python example runs.

DOCS = REPO / "docs"
SCHEMA = REPO / "workflow" / "schemas" / "config.schema.yaml"
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.M | re.S)
INLINE_CODE = re.compile(r"`[^`\n]*`")
#: [text](target) and ![alt](target); the target ends at whitespace or ")"
LINK = re.compile(r"!?\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def markdown_pages() -> list[Path]:
    return [REPO / "README.md", *sorted(DOCS.rglob("*.md"))]


def schema_keys(node, path: str = "", root=None) -> list[tuple[str, str]]:
    """(key, dotted path) of every property the schema declares, at every nesting level:
    through ``properties``, ``$ref`` into ``definitions``, ``additionalProperties`` and ``items``."""
    root = node if root is None else root
    found: list[tuple[str, str]] = []
    if isinstance(node, list):
        for item in node:
            found += schema_keys(item, path, root)
        return found
    if not isinstance(node, dict):
        return found
    ref = node.get("$ref")
    if isinstance(ref, str) and ref.startswith("#/"):
        target = root
        for part in ref[2:].split("/"):
            target = target[part]
        found += schema_keys(target, path, root)
    for key, sub in (node.get("properties") or {}).items():
        found.append((key, f"{path}.{key}" if path else key))
        found += schema_keys(sub, f"{path}.{key}" if path else key, root)
    extra = node.get("additionalProperties")
    if isinstance(extra, dict):
        found += schema_keys(extra, f"{path}.*" if path else "*", root)
    if "items" in node:
        found += schema_keys(node["items"], f"{path}[]", root)
    return found


def undocumented_keys(keys, text: str) -> list[str]:
    """The dotted paths whose key has no table row of its own (``| `key` |``) in the page."""
    return [path for key, path in keys if f"| `{key}` |" not in text]


def test_every_config_key_documented():
    import yaml

    keys = schema_keys(yaml.safe_load(SCHEMA.read_text()))
    assert len(keys) >= 30  # top level, experiment, published, method and ranker keys
    assert {"run", "experiments.*.published.rows", "methods.*.threads", "rankers.*.grid"} <= {p for _, p in keys}
    assert undocumented_keys(keys, (DOCS / "configuration.md").read_text()) == []


def test_config_key_check_fails_on_a_missing_mention():
    import yaml

    keys = schema_keys(yaml.safe_load(SCHEMA.read_text()))
    text = (DOCS / "configuration.md").read_text().replace("| `tolerance` |", "| tolerance |")
    assert undocumented_keys(keys, text) == ["experiments.*.published.tolerance"]


def github_slug(heading: str, seen: dict) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped (letters, digits, spaces,
    '-' and '_' kept), spaces to '-', and '-1', '-2', ... for repeats."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading: its text
    slug = re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")
    n = seen.get(slug, 0)
    seen[slug] = n + 1
    return slug if n == 0 else f"{slug}-{n}"


def anchors(path: Path) -> set[str]:
    seen: dict = {}
    text = FENCE.sub("", path.read_text())
    return {github_slug(m.group(1), seen) for m in re.finditer(r"^#{1,6}\s+(.+?)\s*#*\s*$", text, re.M)}


def broken_links(path: Path) -> list[str]:
    """Every relative link or image of a Markdown file whose file, or #anchor, does not exist."""
    text = INLINE_CODE.sub("", FENCE.sub("", path.read_text()))
    broken = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / file_part).resolve() if file_part else path
        if not dest.exists():
            broken.append(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path.name}: {target}")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{path.relative_to(REPO) if path.is_relative_to(REPO) else path.name}: {target} (no such heading)")
    return broken


def test_links_resolve():
    pages = markdown_pages()
    assert len(pages) >= 20
    assert [b for page in pages for b in broken_links(page)] == []


def test_link_check_fails_on_broken_links(tmp_path):
    (tmp_path / "there.md").write_text("# A heading, with `code`\n\n## Twice\n\n## Twice\n")
    (tmp_path / "fig.png").write_bytes(b"")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#a-heading-with-code) [ok](there.md#twice-1) ![ok](fig.png)\n"
                    "[gone](missing.md) ![gone](figures/missing.png) [bad](there.md#nope) [bad](#nowhere)\n"
                    "`[code](not-a-link.md)` [web](https://example.org/x)\n"
                    "```\n[fenced](not-a-link-either.md)\n```\n")
    assert [b.split(": ", 1)[1] for b in broken_links(page)] == [
        "missing.md", "figures/missing.png", "there.md#nope (no such heading)", "#nowhere (no such heading)"]


def test_every_page_starts_with_a_title_and_a_summary():
    for page in sorted(DOCS.rglob("*.md")):
        lines = page.read_text().split("\n")
        assert lines[0].startswith("# ") and lines[1] == "" and lines[2].strip(), page


def test_architecture_lists_every_registered_selector_and_ranker():
    from ltrfs.rankers import RANKERS
    from ltrfs.selection import SELECTORS

    text = (DOCS / "architecture.md").read_text()
    missing = [name for name in [*SELECTORS, *RANKERS] if f"| `{name}` |" not in text]
    assert missing == []


def python_blocks(path: Path) -> list[str]:
    return re.findall(r"^```python\n(.*?)^```", path.read_text(), re.M | re.S)


def test_python_examples_run(capsys):
    blocks = python_blocks(REPO / "README.md") + python_blocks(DOCS / "python-api.md")
    assert len(blocks) == 2 and blocks[0] == blocks[1]  # the front door shows the API page's example
    exec(compile(blocks[0], "README.md", "exec"), {})
    first, ndcg = capsys.readouterr().out.split("\n")[:2]
    assert first.startswith("[0 3") and 0.8 < float(ndcg) <= 1.0  # the planted features first


def test_readme_links_every_docs_page():
    linked = {(REPO / target.partition("#")[0]).resolve() for target in LINK.findall((REPO / "README.md").read_text())}
    assert [str(p.relative_to(REPO)) for p in sorted(DOCS.rglob("*.md")) if p.resolve() not in linked] == []


# --------------------------------------------------------------------------------------------
# docs/papers/lei2017.md shows Lei & Han's tables as config/published/lei2017.csv holds them,
# each laid out as the report prints it (ltrfs.results.paper_layout), and the numbers behind the reading
# of Tables A.1-A.2's Coordinate Ascent and Random Forests rows.

LEI_OWN = [("l1_logistic/own", "Lasso"), ("rf_importance/own", "Random Forest"), ("svm_rfe/own", "SVM"),
           ("ordinal_cr/own", "Ordinal"), ("gbm_importance/own", "Boosting Trees")]
LEI_RANKLIB = [("waf/mart", "GBRT"), ("waf/ranknet", "RankNet"), ("waf/rankboost", "RankBoost"),
               ("waf/adarank_ndcg", "AdaRank"), ("waf/coord_ascent", "Coordinate Ascent"),
               ("waf/lambdamart", "LambdaMART"), ("waf/listnet", "ListNet"), ("waf/random_forest", "Random Forests")]
#: Tables A.1-A.2's rows that read as each other's table (docs/papers/lei2017.md)
LEI_SWAPPED = ("waf/coord_ascent", "waf/random_forest")


def lei2017_published_tables() -> dict[str, str]:
    """Every Lei & Han table the CSV holds, in the report's layout (the page shows each)."""
    from ltrfs.results import paper_layout as pl
    from ltrfs.datasets.registry import feature_names, load_registry

    values = pl.printed("lei2017", REPO / "config/published")
    out = {}
    curve = values[values.table == "Table 2.1"]
    out["Table 2.1"] = pl.published_grid(values, "Table 2.1", [("rf_importance/own", "CV error")],
                                         [(k, k) for k in curve.k], by="k", corner="features kept")
    registry = load_registry(REPO / "config/datasets.yaml")
    names = feature_names(registry["MSLR-WEB10K"], REPO / "config")
    for table in ("Table 3.1", "Table 3.2", "Table 3.3", "Table 3.4", "Table 3.5"):
        out[table] = pl.feature_lists({"paper": pl.published_features(values, table)}, names)
    for table, metric, rows in (("Table 3.6", "P", LEI_OWN), ("Table 3.7", "NDCG", LEI_OWN),
                                ("Table A.1", "P", LEI_RANKLIB), ("Table A.2", "NDCG", LEI_RANKLIB),
                                ("Table A.3", "P", LEI_RANKLIB), ("Table A.4", "NDCG", LEI_RANKLIB)):
        out[table] = pl.published_grid(values, table, rows, pl.cutoff_columns(metric))
    return out


def lei2017_swap_evidence() -> str:
    """Tables A.1-A.2's rows against the same models' rows of Tables A.3-A.4 (MSLR-WEB30K),
    and how often the appendix's 'GBRT, Coordinate Ascent and Random Forests best' holds."""
    import numpy as np

    from ltrfs.results import published

    values = published.load("lei2017", REPO / "config/published")

    def row(table, key, metric):
        method, ranker = key.split("/")
        part = values[(values.table == table) & (values.method == method) & (values.ranker == ranker)]
        return part.set_index("metric").value[[f"{metric}@{k}" for k in range(1, 11)]].to_numpy()

    def near(a, b):
        return f"{np.sqrt(np.mean((a - b) ** 2)):.3f}, r {np.corrcoef(a, b)[0, 1]:+.2f}"

    lines = ["| model | A.1 row vs A.3 (P) | A.1 row vs A.4 (NDCG) | A.2 row vs A.4 (NDCG) | A.2 row vs A.3 (P) "
             "| A.1: @10 − @1 | A.2: @10 − @1 | A.2 @1 − A.1 @1 |", "|" + "---|" * 8]
    for key, label in LEI_RANKLIB:
        p10k, n10k = row("Table A.1", key, "P"), row("Table A.2", key, "NDCG")
        p30k, n30k = row("Table A.3", key, "P"), row("Table A.4", key, "NDCG")
        lines.append(f"| {label} | {near(p10k, p30k)} | {near(p10k, n30k)} | {near(n10k, n30k)} | {near(n10k, p30k)} "
                     f"| {p10k[9] - p10k[0]:+.3f} | {n10k[9] - n10k[0]:+.3f} | {n10k[0] - p10k[0]:+.3f} |")

    def best_three(swapped: bool) -> list[str]:
        held = []
        for table, metric, other, other_metric in (("Table A.1", "P", "Table A.2", "NDCG"),
                                                   ("Table A.2", "NDCG", "Table A.1", "P")):
            for k in range(10):
                cells = {key: row(other, key, other_metric)[k] if swapped and key in LEI_SWAPPED
                         else row(table, key, metric)[k] for key, _ in LEI_RANKLIB}
                top = sorted(cells, key=lambda key: -cells[key])[:3]
                if set(top) == {"waf/mart", *LEI_SWAPPED}:
                    held.append(f"{metric}@{k + 1}")
        return held

    printed, swapped = best_three(False), best_three(True)
    lines += ["", textwrap.fill(f"GBRT, Coordinate Ascent and Random Forests are the three best of Tables A.1-A.2 "
                                f"at {len(printed)} of the 20 cutoffs as printed ({', '.join(printed)}) and at "
                                f"{len(swapped)} of 20 with the two models' rows read from the other table.",
                                width=100, break_on_hyphens=False)]
    return "\n".join(lines) + "\n"


def block_in(block: str, page: str) -> bool:
    """Whether the page has the block's lines on consecutive lines, each line as it is or
    continued by further columns (a published list beside ours: ``| 1 | X28 | name | X5 | ... |``)."""
    want, lines = block.splitlines(), page.splitlines()
    return any(all(lines[i + j].startswith(line) for j, line in enumerate(want))
               for i in range(len(lines) - len(want) + 1))


def test_block_in_reads_extended_rows_only_on_consecutive_lines():
    block = "| # | A |\n|---|---|\n| 1 | x |\n"
    assert block_in(block, "text\n| # | A | B |\n|---|---|---|\n| 1 | x | y |\nmore")
    assert not block_in(block, "| # | A |\n|---|---|\n\n| 1 | x |")
    assert not block_in(block, "| # | A |\n|---|---|\n| 1 | xy |")  # a cell ends at its " |"


def test_lei2017_page_shows_the_published_tables_as_the_csv_holds_them():
    page = (DOCS / "papers/lei2017.md").read_text()
    tables = lei2017_published_tables()
    assert len(tables) == 12
    missing = [name for name, text in tables.items() if not block_in(text, page)]
    assert missing == [], "regenerate with tests/test_docs.py's lei2017_published_tables():\n" + "\n".join(
        f"{name}:\n{tables[name]}" for name in missing)
    assert lei2017_swap_evidence() in page


def test_lei2017_appendix_rows_read_as_each_others_table():
    """Only Coordinate Ascent's and Random Forests' rows of Tables A.1-A.2 sit nearer the other
    metric's row of Tables A.3-A.4 (by distance and by correlation) than their own metric's."""
    evidence = [line.split(" | ") for line in lei2017_swap_evidence().splitlines()[2:10]]
    other = {cells[0].strip("| "): (float(cells[1].split(",")[0]) > float(cells[2].split(",")[0]),
                                     float(cells[3].split(",")[0]) > float(cells[4].split(",")[0]))
             for cells in evidence}
    assert other == {label: (key in LEI_SWAPPED,) * 2 for key, label in LEI_RANKLIB}

"""The package's docstrings cite the project's docs (docs/*.md, section 'Heading'): every cited
file exists and every cited section is a heading of that file."""
from __future__ import annotations

import re
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

"""Every relative link in the README, the CHANGELOG and docs/ points at a file that exists and,
where it names a section, at a heading of that file."""
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def slug(heading: str) -> str:
    """The anchor a Markdown renderer gives a heading (GitHub's rule)."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    return {slug(line.lstrip("#")) for line in page.read_text().splitlines()
            if line.startswith("#")}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(page.read_text()):
        if target.startswith(("http://", "https://", "mailto:")):
            continue
        path, _, anchor = target.partition("#")
        file = page if not path else page.parent / path
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md" and anchor not in anchors(file):
            broken.append(target)
    assert not broken, f"{page.name}: {broken}"


def test_the_architecture_page_names_every_folder_and_module():
    """docs/architecture.md is the code's real structure: every subpackage of alignment/ and
    train/ and every module in them is named there (a new or moved module fails this test
    until the page says where it sits)."""
    page = (ROOT / "docs" / "architecture.md").read_text()
    missing = []
    for package in ("alignment", "train"):
        for folder in sorted(p for p in (ROOT / package).iterdir() if (p / "__init__.py").is_file()):
            if not re.search(rf"\b{folder.name}/", page):
                missing.append(f"{package}/{folder.name}/")
            if folder.name in ("cli", "experiments"):  # listed by verb / experiment
                continue
            missing += [f"{package}/{folder.name}/{m.stem}" for m in sorted(folder.glob("*.py"))
                        if m.stem != "__init__" and not re.search(rf"\b{m.stem}\b", page)]
        missing += [f"{package}/{m.stem}" for m in sorted((ROOT / package).glob("*.py"))
                    if m.stem != "__init__" and not re.search(rf"\b{m.stem}\b", page)]
    assert not missing, missing


@pytest.mark.parametrize("page", [p for p in PAGES if p.parent.name == "docs"],
                         ids=lambda p: p.name)
def test_a_docs_page_can_be_read_to_the_end(page):
    """One question a page: none grows past 400 lines (split it by question instead)."""
    assert len(page.read_text().splitlines()) <= 400


def test_the_which_export_page_is_what_the_exports_say(capsys):
    """docs/which_export.md is made from the shipped exports' own headlines, not written."""
    from train.cli import main

    assert main(["exports", "--shipped", "--format", "markdown"]) == 0
    made = capsys.readouterr().out
    assert (ROOT / "docs" / "which_export.md").read_text(encoding="utf-8") == made, \
        "run: crossalign exports --shipped --format markdown > docs/which_export.md"


def test_the_readme_quotes_the_numbers_the_shipped_exports_carry():
    """The README's headline numbers are the exports' own: each benchmark's mean into English,
    and every measured export that is not into English with its interval."""
    from alignment.export.card import fmt_r
    from alignment.export.named import list_exports
    from alignment.export.which_export import benchmark_means, measured_exports

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    exports = measured_exports([e for e in list_exports() if e.where == "shipped"])
    means = benchmark_means(exports)
    for on in ("wmt17 test", "mlqe test"):
        assert f"**{fmt_r(means[('into English', on)][0])}**" in readme, on
    quoted = [e for e in exports if e.headline is not None and e.direction != "into English"]
    assert len(quoted) >= 4
    for e in quoted:
        h = e.headline
        assert f"{fmt_r(h.pearson)} [{fmt_r(h.lo)}, {fmt_r(h.hi)}]" in readme, e.name


def test_the_settings_page_gives_each_directions_shipped_setting():
    """docs/settings.md recommends only what ships: each direction's options are a shipped
    export's scoring.json, as ``ScoringConfig.options`` writes it."""
    from alignment.xmover.configuration import ScoringConfig

    page = " ".join((ROOT / "docs" / "settings.md").read_text(encoding="utf-8").split())
    for name in ("wmt17/de-en", "mlqe/en-de", "eval4nlp/ru-de"):
        options = " ".join(ScoringConfig.load(ROOT / "exports" / name).options())
        assert f"`{options}`" in page, name


def test_no_two_docs_pages_carry_the_same_measured_row():
    """A number has one home: a table row with a measurement appears on one page of docs/
    (other pages quote it in a sentence and link there), so a re-measured number changes in one
    place."""
    homes: dict[str, set[str]] = {}
    for page in sorted((ROOT / "docs").rglob("*.md")):
        for line in page.read_text().splitlines():
            if line.startswith("|") and re.search(r"\d", line) and line.count("|") >= 3:
                homes.setdefault(line.strip(), set()).add(page.relative_to(ROOT).as_posix())
    shared = {row[:80]: sorted(pages) for row, pages in homes.items() if len(pages) > 1}
    assert not shared, shared

"""The documentation site (docs/, mkdocs.yml): it builds with warnings as errors, every English
page has a Chinese page in step with it, and the repository cites nothing outside itself."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
ENGLISH = sorted(p for p in DOCS.glob("*.md") if not p.name.endswith(".zh.md"))
FENCE = re.compile(r"^```.*?^```", flags=re.M | re.S)


def _chinese(page: Path) -> Path:
    return page.with_name(page.stem + ".zh.md")


def _headings(text: str) -> Counter:
    return Counter(len(m.group(1)) for m in re.finditer(r"^(#{1,6}) ", FENCE.sub("", text), flags=re.M))


def _numbers(text: str) -> list:
    prose = re.sub(r"\]\([^)]*\)", "]", FENCE.sub("", text))  # link targets: paths, not content
    return sorted(re.findall(r"\d+(?:\.\d+)?", prose))


def _directives(text: str) -> list:
    """mkdocstrings (``:::``) and include (``--8<--``) lines, with their indented options."""
    return re.findall(r"^(?::::|--8<--).*(?:\n    .*)*", FENCE.sub("", text), flags=re.M)


def test_every_page_has_a_chinese_page_and_the_nav_lists_them():
    nav = (ROOT / "mkdocs.yml").read_text()
    assert len(ENGLISH) >= 7
    for page in ENGLISH:
        assert _chinese(page).is_file(), f"{page.name} has no Chinese page {_chinese(page).name}"
        assert f": {page.name}\n" in nav, f"{page.name} is not in mkdocs.yml's nav"
    assert {p.name for p in DOCS.glob("*.zh.md")} == {_chinese(p).name for p in ENGLISH}


@pytest.mark.parametrize("page", ENGLISH, ids=lambda p: p.stem)
def test_chinese_page_is_in_step(page):
    english, chinese = page.read_text(), _chinese(page).read_text()
    assert re.search(r"[\u4e00-\u9fff]", chinese), "the Chinese page is not in Chinese"
    assert _headings(chinese) == _headings(english), "headings per level differ"
    assert FENCE.findall(chinese) == FENCE.findall(english), "code blocks differ"
    assert _numbers(chinese) == _numbers(english), "numbers differ"
    assert _directives(chinese) == _directives(english), "API and include directives differ"


def test_the_repository_cites_nothing_outside_itself():
    outside = re.compile(r"shared/(?:DESIGN\.md|reference/)")
    skip = {".git", ".venv", "build", "node_modules", "__pycache__", ".pytest_cache"}
    offenders = []
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [s for s in subfolders if s not in skip]
        for name in files:
            path = Path(folder) / name
            if path.suffix in (".md", ".py", ".toml", ".yml", ".j2") and path != Path(__file__):
                if outside.search(path.read_text(errors="replace")):
                    offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_site_builds_strictly(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocs_static_i18n"):
        pytest.importorskip(module)
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-d", str(site)],
                          cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for page in ENGLISH:
        folder = "" if page.stem == "index" else page.stem
        for lang in ("", "zh"):
            assert (site / lang / folder / "index.html").is_file(), f"{lang}/{folder}"
    assert (site / "results.png").read_bytes() == (ROOT / "benchmarks" / "results" / "results.png").read_bytes()
    for lang in ("", "zh"):
        api = (site / lang / "api" / "index.html").read_text()
        assert "rbdgen.codegen.generator.generate" in api and "Load the URDF file at" in api  # docstrings rendered
        bench = (site / lang / "benchmarks" / "index.html").read_text()
        assert "Microseconds per call" in bench  # benchmarks/results/results.md included


def test_every_header_macro_is_documented():
    """Every macro a generated header defines (a floating base, a function on a link) is in the C embedding
    page, English and Chinese: with the page's prefix ``panda``, and a stack bound as
    ``RBDGEN_panda_STACK_<FUNCTION>``."""
    import rbdgen
    from robots import ROBOTS

    generated = rbdgen.generate(ROBOTS["solo12"].path, floating=True, ops=["mass_matrix", "jacobian"],
                                frames=["FL_FOOT"], prefix="p")
    macros = re.findall(r"^#define (\w+)", generated.files["p.h"], flags=re.M)
    stacks = {f"RBDGEN_p_STACK_{function.upper()}" for function in generated.manifest["operations"]}
    assert {"RBDGEN_p_BASE_SIZE", "RBDGEN_p_STACK_JACOBIAN_FL_FOOT"} <= set(macros)
    for page in (DOCS / "c-embedding.md", DOCS / "c-embedding.zh.md"):
        text = page.read_text()
        for macro in macros:
            documented = "RBDGEN_panda_STACK_<FUNCTION>" if macro in stacks else macro.replace("RBDGEN_p_", "RBDGEN_panda_")
            assert f"`{documented}`" in text, f"{page.name} does not document {macro}"


def test_pinocchio_page_example_prints_what_the_page_says():
    """"Coming from Pinocchio": its example converts a Solo12 state of example-robot-data between
    Pinocchio's conventions and rbdgen's and checks inverse dynamics, the mass matrix and forward
    dynamics against Pinocchio; run as written, it prints the page's output (True three times)."""
    import importlib.metadata

    pytest.importorskip("pinocchio")
    try:
        importlib.metadata.distribution("example-robot-data")
    except importlib.metadata.PackageNotFoundError:
        pytest.skip("example-robot-data is not installed")
    section = (DOCS / "pinocchio.md").read_text().split("## A converted example", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, flags=re.S).group(1)
    expected = re.search(r"```text\n(.*?)```", section, flags=re.S).group(1)
    assert expected.count("agree: True") == 3
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == expected

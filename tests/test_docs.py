"""The documentation site says what the code does.

- docs/hooks.md documents every hookspec of paperzoo.hookspecs, with its exact
  arguments and family, and no hook that does not exist;
- every page is in mkdocs.yml's nav and every nav entry exists; every file a page
  includes with pymdownx.snippets exists;
- the example plugin of docs/writing-a-plugin.md installs like a third-party
  plugin, is discovered, runs, and passes its own contract tests.

``mkdocs build --strict`` itself runs in the nox ``docs`` session.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from paperzoo import hookspecs

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MKDOCS_YML = ROOT / "mkdocs.yml"
HOOKS_MD = DOCS / "hooks.md"
EXAMPLE = DOCS / "examples" / "paperzoo-hello"
EXCLUDED_DIRS = ("examples",)  # mkdocs.yml: exclude_docs

HOOKSPECS: dict[str, Callable[..., Any]] = {
    name: func
    for name, func in inspect.getmembers(hookspecs, inspect.isfunction)
    if name.startswith("paperzoo_")
}
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*$")


def _sections(markdown: str) -> dict[str, str]:
    """``{heading text without backticks: text up to the next heading of same or higher level}``."""
    lines = markdown.splitlines()
    headings: list[tuple[int, int, str]] = []
    in_fence = False
    for i, line in enumerate(lines):
        if line.lstrip().startswith(("```", "~~~")):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match:
            headings.append((i, len(match.group(1)), match.group(2).strip("` ")))
    sections = {}
    for n, (start, level, title) in enumerate(headings):
        end = next((i for i, lvl, _ in headings[n + 1 :] if lvl <= level), len(lines))
        sections[title] = "\n".join(lines[start + 1 : end])
    return sections


def _hook_sections() -> dict[str, str]:
    return {
        t: s for t, s in _sections(HOOKS_MD.read_text(encoding="utf-8")).items() if t.startswith("paperzoo_")
    }


def _expected_family(name: str, func: Callable[..., Any]) -> str:
    opts = getattr(func, f"{hookspecs.PROJECT}_spec")
    if opts.get("historic"):
        return "historic"
    if opts.get("firstresult"):
        return "first-result"
    if name.startswith("paperzoo_on_"):
        return "lifecycle"
    return "registration"


def _documented_signature(name: str, section: str) -> list[str]:
    """Argument names of the ``def <name>(...)`` line in the hook's section."""
    match = re.search(rf"^def {name}\(.*$", section, flags=re.MULTILINE)
    assert match, f"docs/hooks.md: the {name} section has no 'def {name}(...)' signature"
    tree = ast.parse(match.group(0).rstrip(":") + ": ...")
    func = tree.body[0]
    assert isinstance(func, ast.FunctionDef)
    return [a.arg for a in func.args.posonlyargs + func.args.args + func.args.kwonlyargs]


# --------------------------------------------------------------------- hooks.md


def test_hookspecs_are_found() -> None:
    assert "paperzoo_register_experiments" in HOOKSPECS
    assert all(hasattr(f, f"{hookspecs.PROJECT}_spec") for f in HOOKSPECS.values())


@pytest.mark.parametrize("name", sorted(HOOKSPECS))
def test_every_hookspec_has_a_section_with_its_exact_signature(name: str) -> None:
    sections = _hook_sections()
    assert name in sections, f"docs/hooks.md has no '## {name}' section"
    section = sections[name]
    params = list(inspect.signature(HOOKSPECS[name]).parameters)
    assert _documented_signature(name, section) == params, f"documented signature of {name} differs"
    for param in params:
        assert re.search(rf"^- `{param}`:", section, flags=re.MULTILINE), (
            f"docs/hooks.md: argument {param!r} of {name} is not described ('- `{param}`: ...')"
        )


@pytest.mark.parametrize("name", sorted(HOOKSPECS))
def test_every_hook_section_states_its_family(name: str) -> None:
    section = _hook_sections().get(name, "")
    family = _expected_family(name, HOOKSPECS[name])
    assert f"**Family:** {family}\n" in section + "\n", (
        f"docs/hooks.md: {name} should say '**Family:** {family}'"
    )


def test_hook_reference_documents_no_unknown_hook() -> None:
    unknown = sorted(set(_hook_sections()) - set(HOOKSPECS))
    assert not unknown, f"docs/hooks.md documents hooks that paperzoo.hookspecs lacks: {unknown}"


# ------------------------------------------------------------------ site layout


def _nav_entries() -> list[str]:
    """The page paths of mkdocs.yml's ``nav:`` block (read without a YAML library)."""
    lines = MKDOCS_YML.read_text(encoding="utf-8").splitlines()
    start = lines.index("nav:")
    entries = []
    for line in lines[start + 1 :]:
        if line and not line[0].isspace() and not line.startswith("#"):
            break  # the next top-level key
        match = re.search(r"(?:-|:)\s*['\"]?([^\s'\":]+\.md)['\"]?\s*$", line)
        if match:
            entries.append(match.group(1))
    return entries


def _pages() -> set[str]:
    return {
        p.relative_to(DOCS).as_posix()
        for p in DOCS.rglob("*.md")
        if p.relative_to(DOCS).parts[0] not in EXCLUDED_DIRS
    }


def test_excluded_folders_are_excluded_in_mkdocs_yml() -> None:
    config = MKDOCS_YML.read_text(encoding="utf-8")
    for folder in EXCLUDED_DIRS:
        assert re.search(rf"^exclude_docs:.*\n(?:\s+.*\n)*?\s+{folder}/\s*$", config, flags=re.MULTILINE), (
            f"mkdocs.yml's exclude_docs should list {folder}/"
        )


def test_nav_is_read() -> None:
    entries = _nav_entries()
    assert entries[0] == "index.md"
    assert "hooks.md" in entries


def test_every_page_is_in_the_nav() -> None:
    missing = sorted(_pages() - set(_nav_entries()))
    assert not missing, f"pages missing from mkdocs.yml's nav: {missing}"


def test_every_nav_entry_exists() -> None:
    entries = _nav_entries()
    assert len(entries) == len(set(entries)), "a page is listed twice in the nav"
    dangling = sorted(set(entries) - _pages())
    assert not dangling, f"mkdocs.yml's nav lists pages that do not exist: {dangling}"


def test_every_snippet_include_exists() -> None:
    included = []
    for page in sorted(_pages()):
        for path in re.findall(r'^\s*--8<--\s+"([^"]+)"', (DOCS / page).read_text(encoding="utf-8"), re.M):
            included.append(path)
            assert (ROOT / path).is_file(), f"docs/{page} includes {path}, which does not exist"
    assert "docs/examples/paperzoo-hello/src/paperzoo_hello/plugin.py" in included


# -------------------------------------------------------------- example plugin


@pytest.fixture(scope="module")
def hello_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """docs/examples/paperzoo-hello, pip-installed into a fresh directory."""
    assert importlib.util.find_spec("poetry.core") is not None, (
        "building the example plugin needs poetry-core in this environment: pip install poetry-core"
    )
    source = tmp_path_factory.mktemp("source") / "paperzoo-hello"
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "build"))
    site = tmp_path_factory.mktemp("site")
    command = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "--no-index"]
    proc = subprocess.run(
        [*command, "--disable-pip-version-check", "--quiet", "--target", str(site), str(source)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, f"pip install of the example failed:\n{proc.stdout}\n{proc.stderr}"
    assert (site / "paperzoo_hello" / "plugin.py").is_file()
    return site


def _run(site: Path, home: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PAPERZOO_", "PYTEST_ADDOPTS"))}
    env.update(
        PYTHONPATH=os.pathsep.join([str(site), *filter(None, [os.environ.get("PYTHONPATH")])]),
        PAPERZOO_HOME=str(home),
        PAPERZOO_LOAD_PLUGINS="hello",  # other installed plugins cannot interfere
    )
    if "PAPERZOO_DATA_MIRROR" in os.environ:
        env["PAPERZOO_DATA_MIRROR"] = os.environ["PAPERZOO_DATA_MIRROR"]
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd or home.parent, timeout=300
    )


def test_example_plugin_is_discovered_and_loaded(hello_site: Path, paperzoo_home: Path) -> None:
    proc = _run(hello_site, paperzoo_home, "-m", "paperzoo.cli", "plugins", "--json")
    assert proc.returncode == 0, proc.stderr
    plugins = {p["name"]: p for p in json.loads(proc.stdout)}
    assert "hello" in plugins, f"the example plugin was not discovered: {sorted(plugins)}"
    hello = plugins["hello"]
    with open(EXAMPLE / "pyproject.toml", "rb") as fh:
        project = tomllib.load(fh)["project"]
    assert hello["status"] == "loaded"
    assert (hello["distribution"], hello["version"]) == (project["name"], project["version"])
    assert (hello["id"], hello["module"]) == ("hello", "paperzoo_hello.plugin:plugin")


def test_example_experiment_runs_and_reports_the_paper_value(hello_site: Path, paperzoo_home: Path) -> None:
    proc = _run(hello_site, paperzoo_home, "-m", "paperzoo.cli", "run", "hello.mean", "--json")
    assert proc.returncode == 0, proc.stderr
    outcome = json.loads(proc.stdout)
    assert outcome["status"] == "succeeded", outcome["error"]
    rows = {row["metric"]: row for row in outcome["result"]["rows"]}
    assert rows["mean"]["paper"] == 2.0
    assert abs(rows["mean"]["value"] - 2.0) < 0.5
    run_dir = Path(outcome["dir"])
    assert run_dir.parent == paperzoo_home / "runs"
    assert (run_dir / "result.json").is_file()
    assert (run_dir / "artifacts" / "estimate.json").is_file()


def test_example_sweep_from_the_tutorial_runs_every_combination(
    hello_site: Path, paperzoo_home: Path
) -> None:
    args = ["-m", "paperzoo.cli", "run", "hello.mean", "--seeds", "0-1", "--set", "shrinkage=0,0.5", "--json"]
    proc = _run(hello_site, paperzoo_home, *args)
    assert proc.returncode == 0, proc.stderr
    sweep = json.loads(proc.stdout)
    runs = sweep["runs"]
    assert sorted((r["seed"], r["overrides"]["shrinkage"]) for r in runs) == [
        (0, 0.0),
        (0, 0.5),
        (1, 0.0),
        (1, 0.5),
    ]
    assert all(r["status"] == "succeeded" for r in runs)


def test_example_passes_its_own_contract_tests(hello_site: Path, paperzoo_home: Path, tmp_path: Path) -> None:
    source = tmp_path / "paperzoo-hello"  # without src/: the tests import the installed plugin
    shutil.copytree(EXAMPLE, source, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache", "src"))
    proc = _run(
        hello_site, paperzoo_home, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests", cwd=source
    )
    assert proc.returncode == 0, f"{proc.stdout}\n{proc.stderr}"
    assert re.search(r"\b\d+ passed\b", proc.stdout)

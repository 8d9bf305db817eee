"""tools/catalog.py: the repository is consistent, and every kind of inconsistency
between plugins.toml, packages/*, their pyproject.toml and README.md is reported."""

from __future__ import annotations

import shutil
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]


PLUGINS_TOML = """\
# Catalog of first-party packages (a minimal copy for the tests).

[plugins.demo]
path = "packages/demo"
distribution = "paperzoo-demo"
kind = "paper"
framework = "torch"
title = "A demo paper"
notes = "../shared/papers/demo.md"
"""

PYPROJECT = """\
[project]
name = "paperzoo-demo"
version = "0.1.0"
dependencies = ["paperzoo>=0.1,<0.2", "numpy>=1.24", "torch>=2.3"]

[project.optional-dependencies]
test = ["pytest>=7.4"]

[project.entry-points."paperzoo.plugins"]
demo = "paperzoo_demo.plugin:plugin"

[build-system]
requires = ["poetry-core>=2.0"]
build-backend = "poetry.core.masonry.api"
"""

README = """\
# paperzoo

## Plugins

<!-- plugin-table:start -->
| id | distribution | framework | paper |
|---|---|---|---|
| [demo](packages/demo) | `paperzoo-demo` | torch | A demo paper |
<!-- plugin-table:end -->

More text.
"""

PACKAGE = "packages/demo"
WHERE = "packages/demo/pyproject.toml"


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A minimal consistent repository: one torch paper plugin, ``demo``."""
    root = tmp_path / "repo"
    package = root / PACKAGE
    (package / "src" / "paperzoo_demo").mkdir(parents=True)
    (root / "plugins.toml").write_text(PLUGINS_TOML, encoding="utf-8")
    (root / "README.md").write_text(README, encoding="utf-8")
    (package / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (package / "README.md").write_text("# paperzoo-demo\n", encoding="utf-8")
    (package / "CHANGELOG.md").write_text("# Changelog\n\n## 0.1.0\n", encoding="utf-8")
    (package / "src" / "paperzoo_demo" / "plugin.py").write_text('"""Hooks."""\n', encoding="utf-8")
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_real_repository_is_consistent(catalog: ModuleType) -> None:
    assert catalog.check(REPO) == []


def test_minimal_layout_is_consistent(repo: Path, catalog: ModuleType) -> None:
    assert catalog.check(repo) == []


def test_render_table_has_one_row_per_entry_sorted_by_id(repo: Path, catalog: ModuleType) -> None:
    with open(repo / "plugins.toml", "a", encoding="utf-8") as fh:
        fh.write(
            textwrap.dedent("""
            [plugins.aaa-llm]
            path = "packages/aaa-llm"
            distribution = "paperzoo-aaa-llm"
            kind = "shared"
            framework = "python"
            title = "LLM backends | shared"
            """)
        )
    assert catalog.render_table(repo) == (
        "| id | distribution | framework | paper |\n"
        "|---|---|---|---|\n"
        "| [aaa-llm](packages/aaa-llm) | `paperzoo-aaa-llm` | python | _shared_: LLM backends \\| shared |\n"
        "| [demo](packages/demo) | `paperzoo-demo` | torch | A demo paper |\n"
    )


# ------------------------------------------------------------- plugins.toml ↔ packages/


def test_reports_package_directory_without_catalog_entry(repo: Path, catalog: ModuleType) -> None:
    (repo / "packages" / "extra").mkdir()
    assert catalog.check(repo) == ["plugins.toml: packages/extra has no [plugins.extra] entry"]


def test_reports_catalog_entry_without_package_directory(repo: Path, catalog: ModuleType) -> None:
    shutil.rmtree(repo / PACKAGE)
    assert catalog.check(repo) == ["plugins.toml: [plugins.demo] path 'packages/demo' is not a directory"]


def test_reports_misspelt_catalog_field(repo: Path, catalog: ModuleType) -> None:
    edit(repo / "plugins.toml", 'notes = "../shared/papers/demo.md"', 'note = "../shared/papers/demo.md"')
    assert catalog.check(repo) == [
        "plugins.toml: [plugins.demo]: unknown field 'note'",
        'plugins.toml: [plugins.demo]: notes is missing (a paper plugin names its notes, "../shared/papers/demo.md")',
    ]


def test_reports_unknown_kind_and_framework(repo: Path, catalog: ModuleType) -> None:
    edit(repo / "plugins.toml", 'kind = "paper"', 'kind = "papers"')
    edit(repo / "plugins.toml", 'framework = "torch"', 'framework = "pytorch"')
    catalog.write_table(repo)
    assert catalog.check(repo) == [
        "plugins.toml: [plugins.demo]: kind 'papers' is not one of paper, shared, integration",
        "plugins.toml: [plugins.demo]: framework 'pytorch' is not one of numpy, torch, jax, python",
    ]


def test_reports_unreadable_catalog(repo: Path, catalog: ModuleType) -> None:
    (repo / "plugins.toml").write_text("[plugins.demo\n", encoding="utf-8")
    [problem] = catalog.check(repo)
    assert problem.startswith("plugins.toml: not valid TOML")


# ------------------------------------------------------------------ package pyproject


def test_reports_wrong_distribution_name(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", 'name = "paperzoo-demo"', 'name = "paperzoo_demo"')
    assert catalog.check(repo) == [
        f"{WHERE}: [project].name is 'paperzoo_demo', expected 'paperzoo-demo' (plugins.toml distribution)"
    ]


def test_reports_missing_version(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", 'version = "0.1.0"\n', "")
    assert catalog.check(repo) == [
        f"{WHERE}: [project].version is missing (each package carries its own version)"
    ]


def test_reports_other_build_backend(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"poetry.core.masonry.api"', '"setuptools.build_meta"')
    assert catalog.check(repo) == [
        f"{WHERE}: [build-system].build-backend is 'setuptools.build_meta', expected 'poetry.core.masonry.api'"
    ]


def test_reports_missing_entry_point(repo: Path, catalog: ModuleType) -> None:
    edit(
        repo / PACKAGE / "pyproject.toml",
        '[project.entry-points."paperzoo.plugins"]\ndemo = "paperzoo_demo.plugin:plugin"\n',
        "",
    )
    assert catalog.check(repo) == [
        f"{WHERE}: no entry point in group 'paperzoo.plugins'; expected demo = \"paperzoo_demo.plugin:plugin\""
    ]


def test_reports_entry_point_with_wrong_target(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"paperzoo_demo.plugin:plugin"', '"paperzoo_demo.hooks:plugin"')
    assert catalog.check(repo) == [
        f"{WHERE}: entry point demo = \"paperzoo_demo.hooks:plugin\" in group 'paperzoo.plugins'; "
        'expected demo = "paperzoo_demo.plugin:plugin"'
    ]


def test_reports_second_entry_point(repo: Path, catalog: ModuleType) -> None:
    edit(
        repo / PACKAGE / "pyproject.toml",
        'demo = "paperzoo_demo.plugin:plugin"',
        'demo = "paperzoo_demo.plugin:plugin"\nz = "z"',
    )
    assert catalog.check(repo) == [
        f"{WHERE}: 2 entry points in group 'paperzoo.plugins' (demo, z); "
        'expected exactly one, demo = "paperzoo_demo.plugin:plugin"'
    ]


def test_reports_missing_plugin_module(repo: Path, catalog: ModuleType) -> None:
    (repo / PACKAGE / "src" / "paperzoo_demo" / "plugin.py").unlink()
    assert catalog.check(repo) == [
        "packages/demo: src/paperzoo_demo/plugin.py is missing (the entry point's module)"
    ]


@pytest.mark.parametrize(
    "requirement", ["paperzoo>=0.1", "paperzoo==0.1.0", "paperzoo"], ids=["no-upper", "pinned", "bare"]
)
def test_reports_core_requirement_without_upper_bound(
    repo: Path, requirement: str, catalog: ModuleType
) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"paperzoo>=0.1,<0.2"', f'"{requirement}"')
    assert catalog.check(repo) == [
        f"{WHERE}: {requirement} must be a range with an upper bound, such as 'paperzoo>=0.1,<0.2'"
    ]


def test_reports_missing_core_requirement(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"paperzoo>=0.1,<0.2", ', "")
    assert catalog.check(repo) == [
        f"{WHERE}: dependencies do not include paperzoo; add a range such as 'paperzoo>=0.1,<0.2'"
    ]


def test_reports_core_range_that_excludes_the_checkout(repo: Path, catalog: ModuleType) -> None:
    (repo / "core").mkdir()
    (repo / "core" / "pyproject.toml").write_text('[project]\nname = "paperzoo"\nversion = "0.2.0"\n')
    assert catalog.check(repo) == [f"{WHERE}: paperzoo>=0.1,<0.2 excludes the core of this checkout (0.2.0)"]


def test_reports_pinned_torch(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"torch>=2.3"', '"torch==2.3.1"')
    assert catalog.check(repo) == [
        f"{WHERE}: torch==2.3.1 pins torch with ==; give a range such as 'torch>=2.3'"
    ]


def test_reports_pinned_torch_in_an_extra(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '["pytest>=7.4"]', '["pytest>=7.4", "torch==2.3.1"]')
    assert catalog.check(repo) == [
        f"{WHERE}: torch==2.3.1 pins torch with ==; give a range such as 'torch>=2.3'"
    ]


def test_reports_torch_without_range(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"torch>=2.3"', '"torch"')
    assert catalog.check(repo) == [f"{WHERE}: torch has no version range; give one such as 'torch>=2.3'"]


def test_reports_framework_library_missing_from_dependencies(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", ', "torch>=2.3"', "")
    assert catalog.check(repo) == [
        f"{WHERE}: framework is 'torch' (plugins.toml) but torch is not a dependency"
    ]


def test_reports_dependency_on_another_framework(repo: Path, catalog: ModuleType) -> None:
    edit(repo / PACKAGE / "pyproject.toml", '"torch>=2.3"', '"torch>=2.3", "jax>=0.4"')
    assert catalog.check(repo) == [
        f"{WHERE}: framework is 'torch' (plugins.toml) but it depends on jax; a plugin uses its own framework only"
    ]


# ----------------------------------------------------------------- files and README


def test_reports_missing_changelog(repo: Path, catalog: ModuleType) -> None:
    (repo / PACKAGE / "CHANGELOG.md").unlink()
    assert catalog.check(repo) == ["packages/demo: CHANGELOG.md is missing"]


def test_reports_missing_package_readme(repo: Path, catalog: ModuleType) -> None:
    (repo / PACKAGE / "README.md").unlink()
    assert catalog.check(repo) == ["packages/demo: README.md is missing"]


def test_reports_out_of_date_readme_table(repo: Path, catalog: ModuleType) -> None:
    edit(repo / "plugins.toml", 'title = "A demo paper"', 'title = "A renamed paper"')
    assert catalog.check(repo) == [
        "README.md: plugin table is out of date; run 'python tools/catalog.py table --write'"
    ]


def test_reports_readme_without_table_markers(repo: Path, catalog: ModuleType) -> None:
    edit(repo / "README.md", "<!-- plugin-table:end -->", "")
    assert catalog.check(repo) == [
        "README.md: plugin table markers <!-- plugin-table:start --> ... <!-- plugin-table:end --> not found"
    ]


# ---------------------------------------------------------------------------- CLI


def test_cli_check_fails_until_table_write_fixes_the_readme(
    repo: Path, capsys: pytest.CaptureFixture[str], catalog: ModuleType
) -> None:
    assert catalog.main(["--root", str(repo), "check"]) == 0
    assert "catalog OK: 1 package(s)" in capsys.readouterr().out

    edit(repo / "plugins.toml", 'title = "A demo paper"', 'title = "A renamed paper"')
    assert catalog.main(["--root", str(repo), "check"]) == 1
    assert "README.md: plugin table is out of date" in capsys.readouterr().out

    assert catalog.main(["--root", str(repo), "table", "--write"]) == 0
    readme = (repo / "README.md").read_text(encoding="utf-8")
    assert "| [demo](packages/demo) | `paperzoo-demo` | torch | A renamed paper |" in readme
    assert readme.startswith("# paperzoo\n\n## Plugins\n\n")
    assert readme.endswith("<!-- plugin-table:end -->\n\nMore text.\n")
    assert catalog.check(repo) == []


def test_cli_table_prints_without_writing(
    repo: Path, capsys: pytest.CaptureFixture[str], catalog: ModuleType
) -> None:
    before = (repo / "README.md").read_text(encoding="utf-8")
    edit(repo / "plugins.toml", 'title = "A demo paper"', 'title = "A renamed paper"')
    assert catalog.main(["--root", str(repo), "table"]) == 0
    assert capsys.readouterr().out == catalog.render_table(repo)
    assert (repo / "README.md").read_text(encoding="utf-8") == before

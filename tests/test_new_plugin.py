"""tools/new-plugin: the skeleton it writes is consistent with the catalog and passes
its own tests; invalid or existing ids are refused without writing anything.

Every test works on a temporary copy of README.md and plugins.toml, never on the
repository itself.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[1]
NEW_PLUGIN = REPO / "tools" / "new-plugin"


EXPECTED_FILES = [
    "pyproject.toml",
    "README.md",
    "CHANGELOG.md",
    "src/paperzoo_demo_x/__init__.py",
    "src/paperzoo_demo_x/plugin.py",
    "src/paperzoo_demo_x/estimators.py",
    "src/paperzoo_demo_x/experiments.py",
    "tests/test_contract.py",
    "benchmarks/README.md",
]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A temporary repository root: README.md, plugins.toml and a copy of packages/."""
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("README.md", "plugins.toml"):
        shutil.copy2(REPO / name, root / name)
    ignore = shutil.ignore_patterns("__pycache__", ".pytest_cache", "*.egg-info", "results")
    shutil.copytree(REPO / "packages", root / "packages", ignore=ignore)
    return root


def new_plugin(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(NEW_PLUGIN), *args, "--root", str(root)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def snapshot(root: Path) -> dict[str, bytes | None]:
    """Every path under ``root`` with its content (None for directories)."""
    return {
        p.relative_to(root).as_posix(): (p.read_bytes() if p.is_file() else None)
        for p in sorted(root.rglob("*"))
    }


def test_script_is_executable() -> None:
    assert os.access(NEW_PLUGIN, os.X_OK)
    assert NEW_PLUGIN.read_text(encoding="utf-8").startswith("#!/usr/bin/env python3\n")


def test_creates_package_entry_and_table_row_that_pass_the_catalog_check(
    root: Path, catalog: ModuleType
) -> None:
    done = new_plugin(root, "demo-x", "--framework", "numpy", "--title", "T")
    assert done.returncode == 0, done.stderr
    package = root / "packages" / "demo-x"
    for rel in EXPECTED_FILES:
        assert (package / rel).is_file(), f"{rel} was not written"
    assert catalog.check(root) == []

    with open(root / "plugins.toml", "rb") as fh:
        entry = tomllib.load(fh)["plugins"]["demo-x"]
    assert entry == {
        "path": "packages/demo-x",
        "distribution": "paperzoo-demo-x",
        "kind": "paper",
        "framework": "numpy",
        "title": "T",
        "notes": "../shared/papers/demo-x.md",
    }
    assert "| [demo-x](packages/demo-x) | `paperzoo-demo-x` | numpy | T |" in (root / "README.md").read_text()

    with open(package / "pyproject.toml", "rb") as fh:
        pyproject = tomllib.load(fh)
    project = pyproject["project"]
    assert project["dependencies"] == ["paperzoo>=0.1,<0.2", "numpy>=1.24"]
    assert project["optional-dependencies"] == {"test": ["pytest>=7.4"]}
    assert project["entry-points"]["paperzoo.plugins"] == {"demo-x": "paperzoo_demo_x.plugin:plugin"}
    assert pyproject["tool"]["poetry"]["packages"] == [{"include": "paperzoo_demo_x", "from": "src"}]
    assert "## 0.1.0 — unreleased" in (package / "CHANGELOG.md").read_text(encoding="utf-8")


def test_generated_package_passes_its_own_tests(root: Path) -> None:
    assert new_plugin(root, "demo-x", "--framework", "numpy", "--title", "T").returncode == 0
    package = root / "packages" / "demo-x"
    env = {**os.environ, "PYTHONPATH": str(package / "src")}
    env.pop("PYTEST_ADDOPTS", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(package / "tests")],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed is not None
    assert int(passed.group(1)) >= 15, done.stdout  # the contract suites ran, not just the unit tests
    assert "failed" not in done.stdout


@pytest.mark.parametrize(
    ("framework", "extra"),
    [
        ("python", []),
        ("torch", ["torch>=2.3"]),
        ("jax", ["jax>=0.4", "flax>=0.12,<0.13", "optax>=0.2"]),
    ],
)
def test_dependencies_follow_the_framework(
    root: Path, framework: str, extra: list[str], catalog: ModuleType
) -> None:
    done = new_plugin(root, "demo-x", "--framework", framework, "--title", "T")
    assert done.returncode == 0, done.stderr
    with open(root / "packages" / "demo-x" / "pyproject.toml", "rb") as fh:
        dependencies = tomllib.load(fh)["project"]["dependencies"]
    assert dependencies == ["paperzoo>=0.1,<0.2", "numpy>=1.24", *extra]
    assert catalog.check(root) == []


def test_shared_kind_has_no_paper_notes(root: Path, catalog: ModuleType) -> None:
    done = new_plugin(
        root, "shared-x", "--framework", "python", "--title", "LLM backends", "--kind", "shared"
    )
    assert done.returncode == 0, done.stderr
    with open(root / "plugins.toml", "rb") as fh:
        entry = tomllib.load(fh)["plugins"]["shared-x"]
    assert entry["kind"] == "shared"
    assert "notes" not in entry
    assert catalog.check(root) == []


def test_title_with_quotes_and_pipe_is_escaped(root: Path, catalog: ModuleType) -> None:
    title = 'Don\'t "trust" A | B'
    assert new_plugin(root, "demo-x", "--framework", "numpy", "--title", title).returncode == 0
    with open(root / "plugins.toml", "rb") as fh:
        assert tomllib.load(fh)["plugins"]["demo-x"]["title"] == title
    assert catalog.check(root) == []
    source = (root / "packages" / "demo-x" / "src" / "paperzoo_demo_x" / "plugin.py").read_text()
    compile(source, "plugin.py", "exec")


def test_generated_code_is_lint_clean(root: Path) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent))  # the env's ruff, as nox -s lint
    if ruff is None:
        pytest.skip("ruff is not installed beside this Python")
    shutil.copy2(REPO / "pyproject.toml", root / "pyproject.toml")  # the package extends its rules
    assert new_plugin(root, "demo-x", "--framework", "torch", "--title", "T").returncode == 0
    package = root / "packages" / "demo-x"
    for command in (["check", "--no-cache"], ["format", "--check", "--no-cache"]):
        done = subprocess.run([ruff, *command, str(package)], cwd=root, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout + done.stderr


# ------------------------------------------------------------------------- refusals


@pytest.mark.parametrize("bad_id", ["Demo", "1demo", "demo_x", "demo.x", "demo-", "demo--x", "core"])
def test_refuses_invalid_id_and_writes_nothing(root: Path, bad_id: str) -> None:
    before = snapshot(root)
    done = new_plugin(root, bad_id, "--framework", "numpy", "--title", "T")
    assert done.returncode == 2
    assert done.stderr.startswith(f"new-plugin: error: invalid id {bad_id!r}")
    assert len(done.stderr.strip().splitlines()) == 1
    assert snapshot(root) == before


def test_refuses_existing_id_and_writes_nothing(root: Path) -> None:
    assert new_plugin(root, "demo-x", "--framework", "numpy", "--title", "T").returncode == 0
    before = snapshot(root)
    done = new_plugin(root, "demo-x", "--framework", "torch", "--title", "Other")
    assert done.returncode == 2
    assert (
        done.stderr.strip() == f"new-plugin: error: 'demo-x' already exists: {root / 'packages' / 'demo-x'}"
    )
    assert snapshot(root) == before


def test_refuses_id_already_in_the_catalog(root: Path) -> None:
    with open(root / "plugins.toml", "a", encoding="utf-8") as fh:
        fh.write('\n[plugins.demo-x]\npath = "packages/demo-x"\n')
    before = snapshot(root)
    done = new_plugin(root, "demo-x", "--framework", "numpy", "--title", "T")
    assert done.returncode == 2
    assert (
        done.stderr.strip() == "new-plugin: error: 'demo-x' already exists: plugins.toml has [plugins.demo-x]"
    )
    assert snapshot(root) == before

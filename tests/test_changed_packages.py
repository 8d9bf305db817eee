"""tools/changed-packages: which packages a change touches, on a temporary git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
CHANGED_PACKAGES = REPO / "tools" / "changed-packages"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

GIT_ENV = {
    "GIT_AUTHOR_NAME": "test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}


def git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env={**os.environ, **GIT_ENV}, check=True, capture_output=True)


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def pyproject(name: str, *dependencies: str) -> str:
    deps = ", ".join(f'"{d}"' for d in dependencies)
    return f'[project]\nname = "{name}"\nversion = "0.1.0"\ndependencies = [{deps}]\n'


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """A repository with the core and packages a, b (b depends on a) and c, committed."""
    root = tmp_path / "repo"
    write(root / "core" / "pyproject.toml", pyproject("paperzoo"))
    write(root / "packages" / "a" / "pyproject.toml", pyproject("paperzoo-a", "paperzoo>=0.1,<0.2"))
    write(root / "packages" / "b" / "pyproject.toml", pyproject("paperzoo-b", "paperzoo-a>=0.1,<0.2"))
    write(root / "packages" / "c" / "pyproject.toml", pyproject("paperzoo-c", "paperzoo>=0.1,<0.2"))
    write(root / "noxfile.py", "")
    git(root, "init", "-q", "-b", "main")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "base")
    return root


def changed(root: Path, *args: str) -> list[str]:
    done = subprocess.run(
        [sys.executable, str(CHANGED_PACKAGES), *args, "--root", str(root), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_single_commit_counts_every_file(root: Path) -> None:
    assert changed(root) == ["core", "a", "b", "c"]


def test_default_ref_is_the_previous_commit(root: Path) -> None:
    write(root / "packages" / "a" / "src" / "x.py", "x = 1\n")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "change a")
    assert changed(root) == ["a"]


def test_uncommitted_and_untracked_changes_count(root: Path) -> None:
    write(root / "packages" / "c" / "pyproject.toml", pyproject("paperzoo-c", "paperzoo>=0.1,<0.3"))
    write(root / "core" / "new.py", "")
    assert changed(root, "HEAD") == ["core", "c"]


def test_files_outside_packages_belong_to_none(root: Path) -> None:
    write(root / "noxfile.py", "# changed\n")
    assert changed(root, "HEAD") == []


def test_with_dependents_adds_packages_that_require_a_changed_one(root: Path) -> None:
    write(root / "packages" / "a" / "README.md", "changed\n")
    assert changed(root, "HEAD") == ["a"]
    assert changed(root, "HEAD", "--with-dependents") == ["a", "b"]
    write(root / "core" / "x.py", "")
    assert changed(root, "HEAD", "--with-dependents") == ["core", "a", "b", "c"]


def test_plain_output_is_one_id_per_line_and_unknown_ref_fails(root: Path) -> None:
    write(root / "packages" / "b" / "x.py", "")
    write(root / "core" / "x.py", "")
    done = subprocess.run(
        [sys.executable, str(CHANGED_PACKAGES), "HEAD", "--root", str(root)], capture_output=True, text=True
    )
    assert done.stdout == "core\nb\n"
    done = subprocess.run(
        [sys.executable, str(CHANGED_PACKAGES), "no-such-ref", "--root", str(root)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "changed-packages: error: unknown git ref 'no-such-ref'"

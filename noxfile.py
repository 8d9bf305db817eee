"""Every development task of the paperzoo monorepo.

    nox -s demo              set up and reproduce every plugin's smoke experiment + report
    nox -s tests             all fast tests of the core and every package, one env
    nox -s plugin -- <id>    one package alone in a fresh env (proves it stands alone)
    nox -s slow              the tests marked slow
    nox -s oldest_core       every plugin's tests against the oldest core its range allows
    nox -s lint typecheck docs
    nox -s bench -- <id>     a package's benchmarks (JSON into packages/<id>/benchmarks/results)
    nox -s build -- <id>     wheel + sdist into dist/<id>, checked for path dependencies
    nox -s release -- <id>   build, check the CHANGELOG, tag paperzoo-<id>-vX.Y.Z

Environments are plain venvs filled by pip. torch is installed pinned, first, so
that a package's ``torch>=2.3`` range is already satisfied by the CPU build and no
multi-GB CUDA build is ever downloaded.
"""

from __future__ import annotations

import os
import re
import tomllib
import zipfile
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"
nox.options.sessions = ["lint", "tests"]
nox.options.reuse_existing_virtualenvs = False

ROOT = Path(__file__).parent
TORCH = "torch==2.13.0"
PYTHON = "3.11"
SHARED_MIRROR = ROOT.parent / "shared" / "data"


# ----------------------------------------------------------------- catalog


def catalog() -> dict[str, dict[str, str]]:
    """plugins.toml as {id: entry}."""
    with open(ROOT / "plugins.toml", "rb") as fh:
        return tomllib.load(fh).get("plugins", {})


def pyproject(path: Path) -> dict:
    with open(path / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def package_path(pid: str) -> Path:
    if pid == "core":
        return ROOT / "core"
    entries = catalog()
    if pid not in entries:
        known = ", ".join(sorted(entries)) or "(none yet)"
        raise SystemExit(f"unknown package {pid!r}; known: core, {known}")
    return ROOT / entries[pid]["path"]


def _requirements(path: Path, extras: tuple[str, ...] = ()) -> list[str]:
    project = pyproject(path)["project"]
    reqs = list(project.get("dependencies", []))
    for extra in extras:
        reqs += project.get("optional-dependencies", {}).get(extra, [])
    return reqs


def _req_name(req: str) -> str:
    return re.split(r"[\s<>=!~;\[(@]", req, maxsplit=1)[0].lower().replace("_", "-")


def with_internal_deps(ids: list[str]) -> list[str]:
    """``ids`` plus the first-party packages they depend on, dependencies first."""
    by_dist = {entry["distribution"]: pid for pid, entry in catalog().items()}
    ordered: list[str] = []

    def visit(pid: str) -> None:
        if pid in ordered:
            return
        for req in _requirements(package_path(pid), ("test",)):
            dep = by_dist.get(_req_name(req))
            if dep is not None:
                visit(dep)
        ordered.append(pid)

    for pid in ids:
        visit(pid)
    return ordered


def install(session: nox.Session, ids: list[str], *, extras: str = "test", core: bool = True) -> None:
    """Install the core (unless ``core=False``: already installed) and packages ``ids`` (with their first-party deps)."""
    ids = with_internal_deps(ids)
    paths = [package_path(pid) for pid in ids]
    if any(_req_name(r) == "torch" for p in paths for r in _requirements(p, (extras,))):
        session.install(TORCH)
    targets = [f"{ROOT / 'core'}[plots,testing]"] if core else []
    targets += [
        f"{p}[{extras}]" if extras in pyproject(p)["project"].get("optional-dependencies", {}) else str(p)
        for p in paths
    ]
    session.install(*targets)
    # files some packages need without their dependencies ([tool.paperzoo] no-deps)
    no_deps = [
        req for p in paths for req in pyproject(p).get("tool", {}).get("paperzoo", {}).get("no-deps", [])
    ]
    if no_deps:
        session.install("--no-deps", *no_deps)


def test_env(session: nox.Session) -> dict[str, str]:
    env = {}
    if "PAPERZOO_DATA_MIRROR" not in os.environ and SHARED_MIRROR.is_dir():
        env["PAPERZOO_DATA_MIRROR"] = str(SHARED_MIRROR)
    return env


def one_package(session: nox.Session) -> str:
    if len(session.posargs) != 1:
        session.error(f"usage: nox -s {session.name} -- <id>   (ids: core, {', '.join(sorted(catalog()))})")
    package_path(session.posargs[0])
    return session.posargs[0]


def test_paths(ids: list[str]) -> list[str]:
    return [str(package_path(pid) / "tests") for pid in ids if (package_path(pid) / "tests").is_dir()]


# ---------------------------------------------------------------- sessions


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """Install the core and every plugin, reproduce their smoke experiments, write the report."""
    install(session, sorted(catalog()), extras="demo")
    session.run("paperzoo", "plugins")
    session.run("paperzoo", "reproduce", "--scale", "smoke", *session.posargs, env=test_env(session))


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """All fast tests of the core, the cross-package suite and every package."""
    ids = sorted(catalog())
    install(session, ids)
    session.install("poetry-core>=2.0", "build", "ruff>=0.6", "scikit-learn>=1.3")
    session.run(
        "pytest",
        "-m",
        "not slow",
        "core/tests",
        "tests",
        *test_paths(ids),
        *session.posargs,
        env=test_env(session),
    )


@nox.session(python=PYTHON)
def plugin(session: nox.Session) -> None:
    """One package alone in a fresh environment: installs and passes its own tests."""
    pid = one_package(session)
    if pid == "core":
        session.install(f"{ROOT / 'core'}[plots,testing]")
        session.run("pytest", "-m", "not slow", "core/tests", env=test_env(session))
        return
    install(session, [pid])
    session.run("paperzoo", "plugins")
    session.run("pytest", "-m", "not slow", *test_paths([pid]), env=test_env(session))


@nox.session(python=PYTHON)
def slow(session: nox.Session) -> None:
    """The tests marked slow (all packages, or those given: nox -s slow -- <id>...)."""
    ids = session.posargs or sorted(catalog())
    install(session, [i for i in ids if i != "core"])
    paths = (["core/tests", "tests"] if not session.posargs or "core" in ids else []) + test_paths(
        [i for i in ids if i != "core"]
    )
    # exit code 5: no slow test in the selection, which is fine
    session.run("pytest", "-m", "slow", *paths, env=test_env(session), success_codes=[0, 5])


def _core_floor(pid: str) -> str:
    """The lowest core version ``paperzoo>=X`` in package ``pid``'s dependencies allows."""
    from packaging.requirements import Requirement

    for text in _requirements(package_path(pid)):
        req = Requirement(text)
        if req.name == "paperzoo":
            floors = [s.version for s in req.specifier if s.operator in (">=", "~=", "==")]
            if floors:
                return min(floors, key=lambda v: tuple(int(x) for x in re.findall(r"\d+", v)))
    raise SystemExit(f"{pid}: no lower bound on paperzoo in its dependencies")


def _core_source(session: nox.Session, version: str) -> Path:
    """The core's source at ``version``: this checkout, or the tag ``paperzoo-v<version>``."""
    if pyproject(ROOT / "core")["project"]["version"] == version:
        return ROOT / "core"
    tag = f"paperzoo-v{version}"
    out = Path(session.create_tmp()) / tag
    if not out.is_dir():
        out.mkdir(parents=True)
        archive = out.with_suffix(".tar")
        session.run("git", "archive", "--format=tar", "-o", str(archive), tag, "core", external=True)
        session.run("tar", "-xf", str(archive), "-C", str(out), external=True)
    return out / "core"


@nox.session(python=PYTHON)
def oldest_core(session: nox.Session) -> None:
    """Each plugin (or those given) against the oldest core its ``paperzoo>=X`` allows.

    A plugin's range promises it works with every core from X on; this session
    installs core X (this checkout's core, or the release tag ``paperzoo-vX``)
    first, then the plugin, and runs the plugin's fast tests.
    """
    ids = session.posargs or sorted(catalog())
    by_floor: dict[str, list[str]] = {}
    for pid in ids:
        by_floor.setdefault(_core_floor(pid), []).append(pid)
    for floor, group in sorted(by_floor.items()):
        session.log(f"core {floor}: {', '.join(group)}")
        session.install(f"{_core_source(session, floor)}[plots,testing]")
        install(session, group, core=False)
        session.run(
            "python", "-c", f"import paperzoo; assert paperzoo.__version__ == {floor!r}, paperzoo.__version__"
        )
        session.run("pytest", "-m", "not slow", *test_paths(group), env=test_env(session))


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff: lint and formatting."""
    session.install("ruff>=0.6")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", "--diff", ".")


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """mypy: strict on the core."""
    session.install("mypy>=1.10", f"{ROOT / 'core'}[plots,testing]")
    session.run("mypy", "core/src/paperzoo")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the mkdocs-material site with --strict (nox -s docs -- serve to preview)."""
    session.install("mkdocs-material>=9.5", "pymdown-extensions>=10")
    if session.posargs[:1] == ["serve"]:
        session.run("mkdocs", "serve")
    else:
        session.run("mkdocs", "build", "--strict", "--site-dir", str(ROOT / "site"))


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Run packages/<id>/benchmarks/*.py; each writes JSON into benchmarks/results/."""
    pid = one_package(session)
    path = package_path(pid)
    scripts = sorted((path / "benchmarks").glob("*.py"))
    if not scripts:
        session.error(f"{path}/benchmarks has no scripts")
    install(session, [pid], extras="bench")
    out = path / "benchmarks" / "results"
    for script in scripts:
        session.run("python", str(script), "--out", str(out), *session.posargs[1:], env=test_env(session))


def _check_metadata(session: nox.Session, wheel: Path) -> None:
    with zipfile.ZipFile(wheel) as zf:
        name = next(n for n in zf.namelist() if n.endswith(".dist-info/METADATA"))
        metadata = zf.read(name).decode()
    # a direct reference ("name @ file:///..." or "name @ https://...") cannot be published
    leaks = [line for line in metadata.splitlines() if line.startswith("Requires-Dist:") and " @ " in line]
    if leaks:
        session.error(f"{wheel.name} carries path dependencies: {leaks}")
    session.log(f"{wheel.name}: METADATA has no path dependency")


@nox.session(python=PYTHON)
def build(session: nox.Session) -> None:
    """Build wheel + sdist of one package with the poetry-core backend; check METADATA."""
    _build(session, one_package(session))


def _build(session: nox.Session, pid: str) -> None:
    out = ROOT / "dist" / pid
    session.install("build")
    for old in out.glob("*"):
        old.unlink()
    session.run("python", "-m", "build", "--outdir", str(out), str(package_path(pid)))
    for wheel in out.glob("*.whl"):
        _check_metadata(session, wheel)


@nox.session(python=PYTHON)
def release(session: nox.Session) -> None:
    """Build one package, check its CHANGELOG names the version, tag it (no upload)."""
    pid = one_package(session)
    path = package_path(pid)
    project = pyproject(path)["project"]
    version, dist = project["version"], project["name"]
    changelog = (path / "CHANGELOG.md").read_text(encoding="utf-8")
    if not re.search(rf"^## {re.escape(version)} — \d{{4}}-\d{{2}}-\d{{2}}$", changelog, re.MULTILINE):
        session.error(f"{path}/CHANGELOG.md needs a dated '## {version} — YYYY-MM-DD' section to release")
    _build(session, pid)
    tag = f"{dist}-v{version}"
    session.run("git", "tag", "-a", tag, "-m", f"{dist} {version}", external=True)
    session.log(f"tagged {tag}; push it and upload dist/{pid}/* with twine or poetry publish")

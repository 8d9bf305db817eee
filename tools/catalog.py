"""The catalog of first-party packages, checked against the packages themselves.

``plugins.toml`` lists every package under ``packages/``; this module checks that
the catalog, the package directories, each package's ``pyproject.toml`` and the
plugin table of ``README.md`` agree, and renders that table::

    python tools/catalog.py check            # print the problems; exit 1 if there are any
    python tools/catalog.py table            # print the README plugin table
    python tools/catalog.py table --write    # rewrite it in README.md

Imported by ``tests/test_catalog.py`` and ``tools/new-plugin``. Needs only the
standard library and ``packaging``.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

__all__ = [
    "BUILD_BACKEND",
    "ENTRY_POINT_GROUP",
    "FRAMEWORKS",
    "ID_PATTERN",
    "KINDS",
    "TABLE_END",
    "TABLE_START",
    "CatalogError",
    "check",
    "distribution_name",
    "load_catalog",
    "main",
    "module_name",
    "render_table",
    "write_known",
    "write_table",
]

ROOT = Path(__file__).resolve().parent.parent

ID_PATTERN = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
"""Package ids: lowercase letters and digits, words joined by single hyphens."""
KINDS = ("paper", "shared", "integration")
FRAMEWORKS = ("numpy", "torch", "jax", "python")
REQUIRED_FIELDS = ("path", "distribution", "kind", "framework", "title")
OPTIONAL_FIELDS = ("notes",)
BUILD_BACKEND = "poetry.core.masonry.api"
ENTRY_POINT_GROUP = "paperzoo.plugins"
TABLE_START = "<!-- plugin-table:start -->"
TABLE_END = "<!-- plugin-table:end -->"
TABLE_HEADER = "| id | distribution | framework | paper |\n|---|---|---|---|"

# Framework libraries that must be required by range (never pinned with ==), and
# the library each framework of plugins.toml implies.
FRAMEWORK_LIBRARIES = ("torch", "jax", "jaxlib")
FRAMEWORK_REQUIREMENT = {"torch": "torch", "jax": "jax"}
RANGE_EXAMPLE = {"torch": "torch>=2.3", "jax": "jax>=0.4", "jaxlib": "jaxlib>=0.4"}

_LOWER = {">=", ">", "~="}
_UPPER = {"<", "<=", "~="}
_PINS = {"==", "==="}


class CatalogError(Exception):
    """plugins.toml is missing or cannot be read as a catalog."""


def distribution_name(pid: str) -> str:
    """``"demo-x"`` → ``"paperzoo-demo-x"``."""
    return f"paperzoo-{pid}"


def module_name(pid: str) -> str:
    """``"demo-x"`` → ``"paperzoo_demo_x"`` (the import name)."""
    return "paperzoo_" + pid.replace("-", "_")


# ------------------------------------------------------------------------ reading


def load_catalog(root: Path | str) -> dict[str, dict[str, Any]]:
    """plugins.toml of ``root`` as ``{id: entry}``, sorted by id.

    Raises:
        CatalogError: the file is missing, is not TOML, or its entries are not
            ``[plugins.<id>]`` tables.
    """
    path = Path(root) / "plugins.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CatalogError(f"plugins.toml: not found in {Path(root)}") from None
    except tomllib.TOMLDecodeError as exc:
        raise CatalogError(f"plugins.toml: not valid TOML: {exc}") from None
    extra = sorted(set(data) - {"plugins"})
    if extra:
        raise CatalogError(f"plugins.toml: unknown top-level key(s) {', '.join(extra)}; use [plugins.<id>]")
    plugins = data.get("plugins", {})
    bad = sorted(k for k, v in plugins.items() if not isinstance(v, dict))
    if bad:
        raise CatalogError(f"plugins.toml: plugins.{bad[0]} is not a table; use [plugins.{bad[0]}]")
    return {pid: dict(plugins[pid]) for pid in sorted(plugins)}


def _read_toml(path: Path) -> dict[str, Any]:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _core_version(root: Path) -> Version | None:
    """Version of the core in this checkout (``core/pyproject.toml``), if there is one."""
    try:
        return Version(_read_toml(root / "core" / "pyproject.toml")["project"]["version"])
    except (OSError, KeyError, TypeError, tomllib.TOMLDecodeError, InvalidVersion):
        return None


def package_dirs(root: Path | str) -> list[str]:
    """Names of the directories under ``packages/`` (hidden ones and caches skipped)."""
    packages = Path(root) / "packages"
    if not packages.is_dir():
        return []
    return sorted(p.name for p in packages.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


# ------------------------------------------------------------------------- checks


def check(root: Path | str) -> list[str]:
    """Every inconsistency between plugins.toml, packages/*, their pyprojects and README.md.

    Returns:
        Human-readable problems, each starting with the file it is about; empty
        when the catalog is consistent.
    """
    root = Path(root)
    try:
        catalog = load_catalog(root)
    except CatalogError as exc:
        return [str(exc)]
    problems: list[str] = []
    for pid, entry in catalog.items():
        problems += _check_entry(pid, entry)
    for name in package_dirs(root):
        if name not in catalog:
            problems.append(f"plugins.toml: packages/{name} has no [plugins.{name}] entry")
    core_version = _core_version(root)
    for pid, entry in catalog.items():
        rel = entry.get("path")
        if not isinstance(rel, str) or not rel:
            continue
        if not (root / rel).is_dir():
            problems.append(f"plugins.toml: [plugins.{pid}] path {rel!r} is not a directory")
            continue
        problems += _check_package(root, rel, pid, entry, core_version)
    problems += _check_readme(root, catalog)
    problems += _check_known(root, catalog)
    return problems


def _check_entry(pid: str, entry: dict[str, Any]) -> list[str]:
    where = f"plugins.toml: [plugins.{pid}]"
    problems = []
    if not ID_PATTERN.match(pid):
        problems.append(f"{where}: invalid id; use lowercase letters and digits joined by single hyphens")
    for key in REQUIRED_FIELDS:
        if key not in entry:
            problems.append(f"{where}: {key} is missing")
        elif not isinstance(entry[key], str) or not entry[key].strip():
            problems.append(f"{where}: {key} must be a non-empty string")
    for key in sorted(set(entry) - set(REQUIRED_FIELDS) - set(OPTIONAL_FIELDS)):
        problems.append(f"{where}: unknown field {key!r}")
    expected = {"path": f"packages/{pid}", "distribution": distribution_name(pid)}
    for key, value in expected.items():
        if isinstance(entry.get(key), str) and entry[key] and entry[key] != value:
            problems.append(f"{where}: {key} is {entry[key]!r}, expected {value!r}")
    if isinstance(entry.get("kind"), str) and entry["kind"] and entry["kind"] not in KINDS:
        problems.append(f"{where}: kind {entry['kind']!r} is not one of {', '.join(KINDS)}")
    framework = entry.get("framework")
    if isinstance(framework, str) and framework and framework not in FRAMEWORKS:
        problems.append(f"{where}: framework {framework!r} is not one of {', '.join(FRAMEWORKS)}")
    if entry.get("kind") == "paper" and not entry.get("notes"):
        problems.append(
            f'{where}: notes is missing (a paper plugin names its notes, "../shared/papers/{pid}.md")'
        )
    return problems


def _parse_requirements(
    where: str, values: Any, label: str, problems: list[str]
) -> list[tuple[str, Requirement]]:
    """``(as written, parsed)`` per requirement; the invalid ones become problems."""
    if not isinstance(values, list):
        problems.append(f"{where}: {label} must be a list of requirement strings")
        return []
    parsed = []
    for value in values:
        try:
            parsed.append((value, Requirement(value)))
        except (InvalidRequirement, TypeError):
            problems.append(f"{where}: {label} has an invalid requirement {value!r}")
    return parsed


def _table_at(data: dict[str, Any], key: str) -> dict[str, Any]:
    """``data[key]`` when it is a table, else an empty one (the checks then report it)."""
    value = data.get(key, {})
    return value if isinstance(value, dict) else {}


def _operators(specifier: SpecifierSet) -> set[str]:
    return {spec.operator for spec in specifier}


def _check_package(
    root: Path, rel: str, pid: str, entry: dict[str, Any], core_version: Version | None
) -> list[str]:
    path = root / rel
    problems = [
        f"{rel}: {name} is missing" for name in ("README.md", "CHANGELOG.md") if not (path / name).is_file()
    ]
    where = f"{rel}/pyproject.toml"
    try:
        data = _read_toml(path / "pyproject.toml")
    except FileNotFoundError:
        return [*problems, f"{rel}: pyproject.toml is missing"]
    except tomllib.TOMLDecodeError as exc:
        return [*problems, f"{where}: not valid TOML: {exc}"]
    project = data.get("project")
    if not isinstance(project, dict):
        return [*problems, f"{where}: no [project] table (PEP 621 metadata)"]

    distribution = entry.get("distribution") or distribution_name(pid)
    if project.get("name") != distribution:
        problems.append(
            f"{where}: [project].name is {project.get('name')!r}, expected {distribution!r} "
            "(plugins.toml distribution)"
        )
    if "version" not in project:
        problems.append(f"{where}: [project].version is missing (each package carries its own version)")
    else:
        try:
            Version(str(project["version"]))
        except InvalidVersion:
            problems.append(f"{where}: [project].version {project['version']!r} is not a PEP 440 version")
    backend = _table_at(data, "build-system").get("build-backend")
    if backend != BUILD_BACKEND:
        problems.append(f"{where}: [build-system].build-backend is {backend!r}, expected {BUILD_BACKEND!r}")

    module = module_name(pid)
    wanted = f'{pid} = "{module}.plugin:plugin"'
    entry_points = _table_at(_table_at(project, "entry-points"), ENTRY_POINT_GROUP)
    if not entry_points:
        problems.append(f"{where}: no entry point in group {ENTRY_POINT_GROUP!r}; expected {wanted}")
    elif len(entry_points) > 1:
        problems.append(
            f"{where}: {len(entry_points)} entry points in group {ENTRY_POINT_GROUP!r} "
            f"({', '.join(sorted(entry_points))}); expected exactly one, {wanted}"
        )
    else:
        ((name, value),) = entry_points.items()
        if name != pid or value != f"{module}.plugin:plugin":
            problems.append(
                f'{where}: entry point {name} = "{value}" in group {ENTRY_POINT_GROUP!r}; expected {wanted}'
            )
    if not (path / "src" / module / "plugin.py").is_file():
        problems.append(f"{rel}: src/{module}/plugin.py is missing (the entry point's module)")

    dependencies = _parse_requirements(where, project.get("dependencies", []), "dependencies", problems)
    optional = _table_at(project, "optional-dependencies")
    extras = [
        req
        for extra, values in sorted(optional.items())
        for req in _parse_requirements(where, values, f"optional-dependencies.{extra}", problems)
    ]
    problems += _check_core_requirement(where, dependencies, core_version)
    for text, req in dependencies + extras:
        name = canonicalize_name(req.name)
        if name not in FRAMEWORK_LIBRARIES:
            continue
        operators = _operators(req.specifier)
        if operators & _PINS:
            problems.append(
                f"{where}: {text} pins {name} with ==; give a range such as {RANGE_EXAMPLE[name]!r}"
            )
        elif not operators & _LOWER:
            problems.append(f"{where}: {text} has no version range; give one such as {RANGE_EXAMPLE[name]!r}")
    problems += _check_framework(where, entry.get("framework"), dependencies)
    return problems


def _check_core_requirement(
    where: str, dependencies: list[tuple[str, Requirement]], core_version: Version | None
) -> list[str]:
    core = [(text, req) for text, req in dependencies if canonicalize_name(req.name) == "paperzoo"]
    if not core:
        return [f"{where}: dependencies do not include paperzoo; add a range such as 'paperzoo>=0.1,<0.2'"]
    text, req = core[0]
    operators = _operators(req.specifier)
    if operators & _PINS or not operators & _LOWER or not operators & _UPPER:
        return [f"{where}: {text} must be a range with an upper bound, such as 'paperzoo>=0.1,<0.2'"]
    if core_version is not None and not req.specifier.contains(core_version, prereleases=True):
        return [f"{where}: {text} excludes the core of this checkout ({core_version})"]
    return []


def _check_framework(where: str, framework: Any, dependencies: list[tuple[str, Requirement]]) -> list[str]:
    if framework not in FRAMEWORKS:  # reported with the plugins.toml entry
        return []
    names = {canonicalize_name(req.name) for _, req in dependencies}
    problems = []
    own = FRAMEWORK_REQUIREMENT.get(framework)
    if own is not None and own not in names:
        problems.append(f"{where}: framework is {framework!r} (plugins.toml) but {own} is not a dependency")
    for other in sorted(set(FRAMEWORK_REQUIREMENT.values()) - {own}):
        if other in names:
            problems.append(
                f"{where}: framework is {framework!r} (plugins.toml) but it depends on {other}; "
                "a plugin uses its own framework only"
            )
    return problems


# -------------------------------------------------------------------------- table


def _cell(text: Any) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(catalog: dict[str, dict[str, Any]]) -> str:
    lines = [TABLE_HEADER]
    for pid, entry in sorted(catalog.items()):
        path = entry.get("path") or f"packages/{pid}"
        distribution = entry.get("distribution") or distribution_name(pid)
        title = _cell(entry.get("title", ""))
        kind = entry.get("kind", "paper")
        paper = title if kind == "paper" else f"_{_cell(kind)}_: {title}"
        lines.append(
            f"| [{pid}]({path}) | `{distribution}` | {_cell(entry.get('framework', ''))} | {paper} |"
        )
    return "\n".join(lines) + "\n"


def render_table(root: Path | str) -> str:
    """README.md's plugin table (the text between the markers), from plugins.toml.

    Raises:
        CatalogError: plugins.toml cannot be read.
    """
    return _table(load_catalog(root))


def _split_readme(text: str) -> tuple[str, str, str] | None:
    """``(before, table, after)`` around the plugin table markers, or None."""
    start = text.find(TABLE_START)
    end = text.find(TABLE_END, start + 1)
    if start < 0 or end < 0:
        return None
    body_start = start + len(TABLE_START)
    return text[:body_start], text[body_start:end], text[end:]


def _check_readme(root: Path, catalog: dict[str, dict[str, Any]]) -> list[str]:
    try:
        text = (root / "README.md").read_text(encoding="utf-8")
    except FileNotFoundError:
        return ["README.md: missing"]
    parts = _split_readme(text)
    if parts is None:
        return [f"README.md: plugin table markers {TABLE_START} ... {TABLE_END} not found"]
    if parts[1].strip() != _table(catalog).strip():
        return ["README.md: plugin table is out of date; run 'python tools/catalog.py table --write'"]
    return []


KNOWN = Path("core/src/paperzoo/known_plugins.toml")
"""The core's copy of the catalog, for install hints of plugins that are not installed."""


def render_known(catalog: dict[str, dict[str, Any]]) -> str:
    """The text of the core's ``known_plugins.toml``: id, distribution, kind and title of each package."""
    lines = [
        "# First-party plugins, for install hints (`paperzoo plugins`, unknown names).",
        "# Generated from plugins.toml by `python tools/catalog.py table --write`; do not edit.",
    ]
    for pid, entry in sorted(catalog.items()):
        title = str(entry.get("title", "")).replace("\\", "\\\\").replace('"', '\\"')
        lines += ["", f'["{pid}"]', f'distribution = "{entry.get("distribution", distribution_name(pid))}"',
                  f'kind = "{entry.get("kind", "")}"', f'title = "{title}"']  # fmt: skip
    return "\n".join(lines) + "\n"


def _check_known(root: Path, catalog: dict[str, dict[str, Any]]) -> list[str]:
    path = root / KNOWN
    if not path.parent.is_dir():  # a checkout without the core's sources
        return []
    if not path.is_file() or path.read_text(encoding="utf-8") != render_known(catalog):
        return [f"{KNOWN}: out of date with plugins.toml; run python tools/catalog.py table --write"]
    return []


def write_known(root: Path | str) -> bool:
    """Rewrite the core's ``known_plugins.toml`` from plugins.toml; whether it changed."""
    path = Path(root) / KNOWN
    if not path.parent.is_dir():
        return False
    text = render_known(load_catalog(root))
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.write_text(text, encoding="utf-8")
    return True


def write_table(root: Path | str) -> bool:
    """Rewrite README.md's plugin table from plugins.toml.

    Returns:
        Whether README.md changed.

    Raises:
        CatalogError: plugins.toml cannot be read, or README.md has no markers.
    """
    readme = Path(root) / "README.md"
    text = readme.read_text(encoding="utf-8")
    parts = _split_readme(text)
    if parts is None:
        raise CatalogError(f"README.md: plugin table markers {TABLE_START} ... {TABLE_END} not found")
    new = f"{parts[0]}\n{render_table(root)}{parts[2]}"
    if new == text:
        return False
    readme.write_text(new, encoding="utf-8")
    return True


# ---------------------------------------------------------------------------- CLI


def main(argv: Sequence[str] | None = None) -> int:
    """``catalog.py check`` / ``catalog.py table [--write]``; returns the exit status."""
    parser = argparse.ArgumentParser(prog="tools/catalog.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this checkout)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("check", help="print every inconsistency; exit 1 if there is one")
    table = sub.add_parser("table", help="print README.md's plugin table")
    table.add_argument("--write", action="store_true", help="rewrite the table in README.md")
    args = parser.parse_args(argv)
    try:
        if args.command == "check":
            problems = check(args.root)
            for problem in problems:
                print(problem)
            if problems:
                print(f"{len(problems)} problem(s) in the catalog", file=sys.stderr)
                return 1
            print(f"catalog OK: {len(load_catalog(args.root))} package(s)")
            return 0
        if args.write:
            changed = write_known(args.root) | write_table(args.root)
            print(
                "README.md: plugin table updated" if changed else "README.md: plugin table already up to date"
            )
        else:
            print(render_table(args.root), end="")
    except (CatalogError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

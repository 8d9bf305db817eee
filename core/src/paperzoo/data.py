"""The data layer: data home, mirrors, verified downloads.

A loader describes each file it needs as a :class:`DataFile` (where it lives, the
real URL it comes from, its sha256) and calls :func:`fetch`. Lookup order:

1. ``<data home>/<path>`` (``$PAPERZOO_HOME/data``),
2. the ``paperzoo_resolve_data_path`` hook (first plugin to answer wins),
3. each directory of ``$PAPERZOO_DATA_MIRROR`` (``os.pathsep``-separated),
4. a download from ``url`` into the data home.

Every file found or downloaded is checked against its sha256. Downloads go to a
temporary file that is renamed into place only once verified, so an interrupted
download never leaves a file that looks complete.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from paperzoo.errors import DataError
from paperzoo.paths import data_home

__all__ = [
    "MIRROR_ENV",
    "DataFile",
    "fetch",
    "locate",
    "locate_unverified",
    "mirror_dirs",
    "sha256sum",
    "verify",
]

MIRROR_ENV = "PAPERZOO_DATA_MIRROR"
OFFLINE_ENV = "PAPERZOO_OFFLINE"
_CHUNK = 1 << 20
_verified: dict[tuple[str, int, int], str] = {}

Resolver = Callable[[str], Path | None]


@dataclass(frozen=True)
class DataFile:
    """One file a dataset needs.

    Attributes:
        path: Relative POSIX path under the data home and under each mirror,
            conventionally ``"<dataset>/<file>"``.
        url: Real download URL: of the file itself, or of an archive holding it.
        sha256: Checksum of the file at ``path`` (after extraction, if any).
        member: Path of the file inside the archive at ``url``, if ``url`` is an archive.
        archive_sha256: Checksum of that archive, verified before extraction.
        size: Size in bytes of the file at ``path``, for listings.
    """

    path: str
    url: str
    sha256: str
    member: str | None = None
    archive_sha256: str | None = None
    size: int | None = None

    def __post_init__(self) -> None:
        pure = PurePosixPath(self.path)
        if pure.is_absolute() or ".." in pure.parts or not self.path:
            raise DataError(
                f"invalid data path {self.path!r}",
                hint="use a relative path like 'dataset/file.csv' with no '..'",
            )
        if len(self.sha256) != 64 or any(c not in "0123456789abcdef" for c in self.sha256):
            raise DataError(f"{self.path}: sha256 must be 64 lowercase hex digits, got {self.sha256!r}")
        if self.member is not None and self.archive_sha256 is None:
            raise DataError(
                f"{self.path}: comes from an archive but declares no archive_sha256",
                hint="every download must be verifiable; add the archive's sha256",
            )

    def describe(self) -> dict[str, Any]:
        """Plain-data description."""
        return dict(self.__dict__)


def sha256sum(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest()


def _matches(path: Path, sha256: str) -> bool:
    """Whether ``path`` has checksum ``sha256`` (memoised on size and mtime)."""
    st = path.stat()
    key = (str(path), st.st_size, st.st_mtime_ns)
    if key not in _verified:
        _verified[key] = sha256sum(path)
    return _verified[key] == sha256


def mirror_dirs() -> list[Path]:
    """Directories listed in ``$PAPERZOO_DATA_MIRROR``, in order."""
    raw = os.environ.get(MIRROR_ENV, "")
    return [Path(p).expanduser() for p in raw.split(os.pathsep) if p.strip()]


def _host_resolver() -> Resolver | None:
    """The ``paperzoo_resolve_data_path`` hook of the process-wide host, if one exists."""
    from paperzoo.host import current_host

    host = current_host()
    if host is None:
        return None
    return lambda name: host.hooks.resolve_data_path(name=name)


def _candidates(file: DataFile, resolver: Resolver | None) -> Iterable[tuple[str, Path]]:
    yield "data home", data_home() / file.path
    resolver = resolver or _host_resolver()
    if resolver is not None:
        resolved = resolver(file.path)
        if resolved is not None:
            yield "plugin", Path(resolved)
    for mirror in mirror_dirs():
        yield f"mirror {mirror}", mirror / file.path


def locate(file: DataFile, *, resolver: Resolver | None = None) -> Path | None:
    """Return a verified local copy of ``file`` without downloading, or ``None``.

    Every candidate is tried in order; a corrupt copy does not hide a good one later.

    Raises:
        DataError: copies exist but none matches the checksum.
    """
    corrupt: list[str] = []
    for where, candidate in _candidates(file, resolver):
        if candidate.is_file():
            if _matches(candidate, file.sha256):
                return candidate
            corrupt.append(f"{candidate} ({where})")
    if corrupt:
        raise DataError(
            f"{corrupt[0]} does not match its sha256 {file.sha256[:12]}…"
            + (f" (nor do {len(corrupt) - 1} other copies)" if len(corrupt) > 1 else ""),
            hint="the file is corrupt or a different version; delete it and fetch again",
        )
    return None


def locate_unverified(file: DataFile, *, resolver: Resolver | None = None) -> Path | None:
    """Where ``file`` is locally, without checking its checksum (for listings)."""
    for _, candidate in _candidates(file, resolver):
        if candidate.is_file():
            return candidate
    return None


def fetch(
    file: DataFile,
    *,
    resolver: Resolver | None = None,
    progress: Callable[[int, int | None], None] | None = None,
) -> Path:
    """Return a verified local path to ``file``, downloading it if needed.

    Args:
        file: What to fetch.
        resolver: Extra lookup between the data home and the mirrors; by default
            the ``paperzoo_resolve_data_path`` hook of the process-wide host.
        progress: Called as ``progress(bytes_done, bytes_total)`` while downloading.

    Raises:
        DataError: the file is nowhere locally and cannot be downloaded, or the
            download does not match its checksum.
    """
    found = locate(file, resolver=resolver)
    if found is not None:
        return found
    if os.environ.get(OFFLINE_ENV, "").strip().lower() not in ("", "0", "false", "no", "off"):
        raise _offline_error(file, "downloads are disabled by PAPERZOO_OFFLINE")
    target = data_home() / file.path
    target.parent.mkdir(parents=True, exist_ok=True)
    if file.member is None:
        _download(file.url, target, file.sha256, progress)
    else:
        archive = _download_archive(file, progress)
        _extract_member(archive, file, target)
    return target


def verify(file: DataFile, *, resolver: Resolver | None = None) -> tuple[str, Path | None]:
    """Check ``file`` without downloading.

    Returns:
        ``("ok", path)``, ``("missing", None)`` or ``("corrupt", path)``.
    """
    for _, candidate in _candidates(file, resolver):
        if candidate.is_file():
            return ("ok" if _matches(candidate, file.sha256) else "corrupt"), candidate
    return "missing", None


def _offline_error(file: DataFile, reason: str) -> DataError:
    return DataError(
        f"{file.path} is not available locally and cannot be downloaded from {file.url} ({reason})",
        hint=f"download it by hand into {data_home() / file.path}, or set {MIRROR_ENV} "
        "to a directory holding a mirror of it",
    )


def _download(
    url: str,
    target: Path,
    sha256: str,
    progress: Callable[[int, int | None], None] | None,
) -> None:
    """Download ``url`` to ``target`` through a temporary file, verified."""
    import http.client
    import urllib.error
    import urllib.request

    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        digest = hashlib.sha256()
        request = urllib.request.Request(url, headers={"User-Agent": "paperzoo"})
        try:
            with os.fdopen(fd, "wb") as out, urllib.request.urlopen(request, timeout=60) as response:
                total = response.headers.get("Content-Length")
                total_int = int(total) if total and total.isdigit() else None
                done = 0
                for chunk in iter(lambda: response.read(_CHUNK), b""):
                    out.write(chunk)
                    digest.update(chunk)
                    done += len(chunk)
                    if progress is not None:
                        progress(done, total_int)
        except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", exc)
            raise DataError(
                f"cannot download {url}: {reason}",
                hint=f"check your connection, or set {MIRROR_ENV} to a directory holding "
                f"a mirror of {target.name}",
            ) from exc
        if digest.hexdigest() != sha256:
            raise DataError(
                f"download of {url} does not match its sha256 (got {digest.hexdigest()[:12]}…, "
                f"expected {sha256[:12]}…)",
                hint="the source changed or the transfer was corrupted; try again or report it",
            )
        tmp.replace(target)
    finally:
        tmp.unlink(missing_ok=True)


def _download_archive(file: DataFile, progress: Callable[[int, int | None], None] | None) -> Path:
    """Download (or reuse) the archive ``file`` comes from, cached by checksum."""
    cache = data_home() / ".archives"
    cache.mkdir(parents=True, exist_ok=True)
    name = PurePosixPath(file.url.split("?", 1)[0]).name or "archive"
    assert file.archive_sha256 is not None  # checked by DataFile
    archive = cache / f"{file.archive_sha256[:16]}-{name}"
    if archive.is_file() and _matches(archive, file.archive_sha256):
        return archive
    _download(file.url, archive, file.archive_sha256, progress)
    return archive


def _extract_member(archive: Path, file: DataFile, target: Path) -> None:
    """Extract ``file.member`` from ``archive`` to ``target``, verified."""
    from paperzoo.archives import extract_archive

    assert file.member is not None
    staging = Path(tempfile.mkdtemp(prefix=".unpack-", dir=target.parent))
    try:
        extract_archive(archive, staging)
        member = staging / file.member
        if not member.is_file():
            raise DataError(
                f"{archive.name} has no member {file.member!r}",
                hint="the source changed; report this to the plugin's authors",
            )
        if sha256sum(member) != file.sha256:
            raise DataError(
                f"{file.member} in {archive.name} does not match its sha256",
                hint="the source changed; report this to the plugin's authors",
            )
        member.replace(target)
    finally:
        shutil.rmtree(staging, ignore_errors=True)

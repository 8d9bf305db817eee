"""Safe extraction of zip and tar archives.

Every member is checked before anything is written: absolute paths, ``..``
components, drive letters, device files, and links (symbolic or hard) that point
outside the target directory are rejected with :class:`~paperzoo.errors.DataError`.
Members are written into a temporary directory beside the target and moved into
place only when the whole archive extracted cleanly, so a failure never leaves a
half-extracted tree behind.
"""

from __future__ import annotations

import shutil
import tarfile
import tempfile
import zipfile
from pathlib import Path, PurePosixPath, PureWindowsPath

from paperzoo.errors import DataError

__all__ = ["extract_archive", "is_archive"]

_ARCHIVE_SUFFIXES = (".zip", ".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")


def is_archive(name: str) -> bool:
    """Whether ``name`` ends like a zip or tar archive."""
    return name.lower().endswith(_ARCHIVE_SUFFIXES)


def _check_member_name(archive: Path, name: str) -> PurePosixPath:
    posix = PurePosixPath(name.replace("\\", "/"))
    if (
        posix.is_absolute()
        or PureWindowsPath(name).drive
        or ".." in posix.parts
        or name.startswith(("/", "\\"))
    ):
        raise DataError(
            f"refusing to extract {archive.name}: member {name!r} would be written "
            "outside the target directory",
            hint="the archive is malformed or malicious; delete it and download it again",
        )
    return posix


def _check_link_target(archive: Path, name: str, target: str) -> None:
    """A link at ``name`` pointing at ``target`` must stay inside the tree."""
    link_parent = PurePosixPath(name.replace("\\", "/")).parent
    target_posix = PurePosixPath(target.replace("\\", "/"))
    if target_posix.is_absolute() or PureWindowsPath(target).drive:
        escapes = True
    else:
        depth = len(link_parent.parts)
        escapes = False
        for part in target_posix.parts:
            depth += -1 if part == ".." else (0 if part == "." else 1)
            if depth < 0:
                escapes = True
                break
    if escapes:
        raise DataError(
            f"refusing to extract {archive.name}: link {name!r} points outside the "
            f"target directory ({target!r})",
            hint="the archive is malformed or malicious; delete it and download it again",
        )


def _extract_zip(archive: Path, dest: Path) -> None:
    with zipfile.ZipFile(archive) as zf:
        infos = zf.infolist()
        for info in infos:
            _check_member_name(archive, info.filename)
            mode = info.external_attr >> 16
            if (mode & 0o170000) == 0o120000:  # a symlink stored by Info-ZIP
                _check_link_target(archive, info.filename, zf.read(info).decode())
        for info in infos:
            mode = info.external_attr >> 16
            if (mode & 0o170000) == 0o120000:
                continue  # never materialise links from zip files
            zf.extract(info, dest)


def _extract_tar(archive: Path, dest: Path) -> None:
    with tarfile.open(archive) as tf:
        members = tf.getmembers()
        for member in members:
            _check_member_name(archive, member.name)
            if member.issym():
                _check_link_target(archive, member.name, member.linkname)
            elif member.islnk():
                _check_member_name(archive, member.linkname)
            elif not (member.isfile() or member.isdir()):
                raise DataError(
                    f"refusing to extract {archive.name}: member {member.name!r} is a "
                    "device, fifo or other special file",
                    hint="the archive is malformed or malicious; delete it and download it again",
                )
        # The "data" filter (PEP 706) repeats these checks inside tarfile itself.
        tf.extractall(dest, members=members, filter="data")


def _merge(source: Path, dest: Path) -> None:
    """Move the tree ``source`` into ``dest`` file by file; other files in ``dest`` stay."""
    for item in sorted(source.iterdir()):
        target = dest / item.name
        if item.is_dir() and not item.is_symlink():
            if (target.exists() and not target.is_dir()) or target.is_symlink():
                target.unlink()
            target.mkdir(exist_ok=True)
            _merge(item, target)
        else:
            if target.is_dir() and not target.is_symlink():
                shutil.rmtree(target)
            item.replace(target)


def extract_archive(archive: Path, dest: Path) -> Path:
    """Extract ``archive`` (zip or tar, any compression) into ``dest`` safely.

    Args:
        archive: The archive file.
        dest: The directory to extract into; created if missing. Existing files
            with the same paths as members are replaced; other files are kept.

    Returns:
        ``dest``.

    Raises:
        DataError: a member would escape ``dest`` or the archive is corrupt.
    """
    archive = Path(archive)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".extract-", dir=dest))
    try:
        try:
            if zipfile.is_zipfile(archive):
                _extract_zip(archive, staging)
            elif tarfile.is_tarfile(archive):
                _extract_tar(archive, staging)
            else:
                raise DataError(
                    f"{archive.name} is neither a zip nor a tar archive",
                    hint="delete it and download it again",
                )
        except (zipfile.BadZipFile, tarfile.TarError, EOFError) as exc:
            raise DataError(
                f"{archive.name} is corrupt: {exc}", hint="delete it and download it again"
            ) from exc
        _merge(staging, dest)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return dest

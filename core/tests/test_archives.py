from __future__ import annotations

import io
import tarfile
import zipfile
from pathlib import Path

import pytest

from paperzoo.archives import extract_archive, is_archive
from paperzoo.errors import DataError


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def _tar(path: Path, members: list[tarfile.TarInfo], data: dict[str, bytes] | None = None) -> Path:
    data = data or {}
    with tarfile.open(path, "w:gz") as tf:
        for info in members:
            payload = data.get(info.name)
            if payload is not None:
                info.size = len(payload)
                tf.addfile(info, io.BytesIO(payload))
            else:
                tf.addfile(info)
    return path


def _link(name: str, target: str, *, hard: bool = False) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type = tarfile.LNKTYPE if hard else tarfile.SYMTYPE
    info.linkname = target
    return info


def _listing(root: Path) -> list[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))


def test_good_zip_and_tar_extract(tmp_path: Path) -> None:
    z = _zip(tmp_path / "a.zip", {"d/x.txt": b"x", "y.txt": b"y"})
    out = extract_archive(z, tmp_path / "out")
    assert (out / "d" / "x.txt").read_bytes() == b"x"
    t = _tar(tmp_path / "a.tar.gz", [tarfile.TarInfo("d/z.txt"), _link("d/link", "z.txt")], {"d/z.txt": b"z"})
    extract_archive(t, tmp_path / "out2")
    assert (tmp_path / "out2" / "d" / "z.txt").read_bytes() == b"z"
    assert (tmp_path / "out2" / "d" / "link").resolve() == (tmp_path / "out2" / "d" / "z.txt").resolve()


@pytest.mark.parametrize(
    "name", ["../evil.txt", "/abs/evil.txt", "a/../../evil.txt", "C:/evil.txt", "..\\evil.txt"]
)
def test_zip_member_escaping_is_rejected_and_nothing_written(tmp_path: Path, name: str) -> None:
    z = _zip(tmp_path / "bad.zip", {"ok.txt": b"fine", name: b"evil"})
    out = tmp_path / "out"
    with pytest.raises(DataError, match="outside the target directory"):
        extract_archive(z, out)
    assert _listing(out) == []
    assert not (tmp_path / "evil.txt").exists()


@pytest.mark.parametrize(
    "member",
    [
        _link("escape", "../../etc/passwd"),
        _link("abs", "/etc/passwd"),
        _link("d/up", "../../x"),
        _link("hard", "../outside", hard=True),
    ],
)
def test_tar_links_escaping_are_rejected(tmp_path: Path, member: tarfile.TarInfo) -> None:
    t = _tar(tmp_path / "bad.tar.gz", [tarfile.TarInfo("ok.txt"), member], {"ok.txt": b"fine"})
    out = tmp_path / "out"
    with pytest.raises(DataError, match="outside the target directory"):
        extract_archive(t, out)
    assert _listing(out) == []


def test_tar_device_files_are_rejected(tmp_path: Path) -> None:
    dev = tarfile.TarInfo("dev")
    dev.type = tarfile.CHRTYPE
    t = _tar(tmp_path / "dev.tar.gz", [dev])
    with pytest.raises(DataError, match="special file"):
        extract_archive(t, tmp_path / "out")


def test_corrupt_and_foreign_files(tmp_path: Path) -> None:
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"PK\x03\x04 broken")
    with pytest.raises(DataError):
        extract_archive(junk, tmp_path / "out")
    text = tmp_path / "plain.txt"
    text.write_text("hello")
    with pytest.raises(DataError, match="neither a zip nor a tar"):
        extract_archive(text, tmp_path / "out")


def test_is_archive() -> None:
    assert is_archive("x.tar.gz")
    assert is_archive("X.ZIP")
    assert not is_archive("x.csv")


def test_extraction_merges_into_existing_directories(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / "d").mkdir(parents=True)
    (out / "d" / "precious.txt").write_text("keep me")
    (out / "d" / "x.txt").write_text("old")
    extract_archive(_zip(tmp_path / "a.zip", {"d/x.txt": b"new", "d/e/y.txt": b"y"}), out)
    assert (out / "d" / "precious.txt").read_text() == "keep me"
    assert (out / "d" / "x.txt").read_text() == "new"
    assert (out / "d" / "e" / "y.txt").read_text() == "y"

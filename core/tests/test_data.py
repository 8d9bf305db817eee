from __future__ import annotations

import hashlib
import http.server
import io
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from paperzoo import hookimpl
from paperzoo.data import DataFile, fetch, locate, verify
from paperzoo.errors import DataError
from paperzoo.host import PluginHost, reset_host

PAYLOAD = b"a,b\n1,2\n"
SHA = hashlib.sha256(PAYLOAD).hexdigest()


def _file(url: str = "https://example.invalid/d/x.csv", **kw: object) -> DataFile:
    return DataFile(path="d/x.csv", url=url, sha256=SHA, **kw)  # type: ignore[arg-type]


class _Server(http.server.ThreadingHTTPServer):
    files: dict[str, bytes]
    truncate: bool = False


class _Handler(http.server.BaseHTTPRequestHandler):
    server: _Server

    def do_GET(self) -> None:
        data = self.server.files.get(self.path)
        if data is None:
            self.send_error(404)
            return
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data[: len(data) // 2] if self.server.truncate else data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def server() -> Iterator[_Server]:
    srv = _Server(("127.0.0.1", 0), _Handler)
    srv.files = {}
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _url(srv: _Server, path: str) -> str:
    return f"http://127.0.0.1:{srv.server_address[1]}{path}"


def test_invalid_datafiles_are_rejected() -> None:
    with pytest.raises(DataError, match="invalid data path"):
        DataFile(path="../x", url="u", sha256=SHA)
    with pytest.raises(DataError, match="64 lowercase hex"):
        DataFile(path="x", url="u", sha256="abc")
    with pytest.raises(DataError, match="archive_sha256"):
        DataFile(path="x", url="u", sha256=SHA, member="x")


def test_found_in_data_home_first(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (home / "data" / "d").mkdir(parents=True)
    (home / "data" / "d" / "x.csv").write_bytes(PAYLOAD)
    mirror = tmp_path / "mirror"
    (mirror / "d").mkdir(parents=True)
    (mirror / "d" / "x.csv").write_bytes(PAYLOAD)
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", str(mirror))
    assert fetch(_file()) == home / "data" / "d" / "x.csv"


def test_found_in_second_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    (b / "d").mkdir(parents=True)
    (b / "d" / "x.csv").write_bytes(PAYLOAD)
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", f"{a}:{b}")
    assert fetch(_file()) == b / "d" / "x.csv"
    assert verify(_file()) == ("ok", b / "d" / "x.csv")


def test_corrupt_copy_is_reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "x.csv").write_bytes(b"tampered")
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", str(tmp_path))
    with pytest.raises(DataError, match="does not match its sha256"):
        locate(_file())
    assert verify(_file())[0] == "corrupt"


def test_offline_error_names_url_and_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_OFFLINE", "1")
    with pytest.raises(DataError) as info:
        fetch(_file())
    assert "https://example.invalid/d/x.csv" in str(info.value)
    assert "PAPERZOO_DATA_MIRROR" in str(info.value)


def test_unreachable_host_error_names_url_and_variable() -> None:
    with pytest.raises(DataError) as info:
        fetch(_file(url="http://127.0.0.1:9/nothing.csv"))
    assert "cannot download http://127.0.0.1:9/nothing.csv" in str(info.value)
    assert "PAPERZOO_DATA_MIRROR" in str(info.value)


def test_download_is_verified_and_atomic(home: Path, server: _Server) -> None:
    server.files["/x.csv"] = PAYLOAD
    seen: list[int] = []
    path = fetch(_file(url=_url(server, "/x.csv")), progress=lambda done, total: seen.append(done))
    assert path == home / "data" / "d" / "x.csv"
    assert path.read_bytes() == PAYLOAD
    assert seen[-1] == len(PAYLOAD)
    assert [p.name for p in path.parent.iterdir()] == ["x.csv"]


def test_interrupted_download_leaves_no_file(home: Path, server: _Server) -> None:
    server.files["/x.csv"] = PAYLOAD
    server.truncate = True
    with pytest.raises(DataError):
        fetch(_file(url=_url(server, "/x.csv")))
    assert list((home / "data" / "d").iterdir()) == []


def test_wrong_checksum_download_leaves_no_file(home: Path, server: _Server) -> None:
    server.files["/x.csv"] = b"something else"
    with pytest.raises(DataError, match="does not match its sha256"):
        fetch(_file(url=_url(server, "/x.csv")))
    assert list((home / "data" / "d").iterdir()) == []


def test_member_of_downloaded_archive(home: Path, server: _Server) -> None:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("inner/x.csv", PAYLOAD)
        zf.writestr("inner/other.txt", b"o")
    archive = buf.getvalue()
    server.files["/a.zip"] = archive
    file = _file(
        url=_url(server, "/a.zip"), member="inner/x.csv", archive_sha256=hashlib.sha256(archive).hexdigest()
    )
    path = fetch(file)
    assert path.read_bytes() == PAYLOAD
    del server.files["/a.zip"]  # a second file from the same archive reuses the cached copy
    path.unlink()
    assert fetch(file).read_bytes() == PAYLOAD


def test_resolve_data_path_hook_is_consulted(tmp_path: Path) -> None:
    elsewhere = tmp_path / "cluster" / "x.csv"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes(PAYLOAD)
    asked: list[str] = []

    class Resolver:
        @hookimpl
        def paperzoo_resolve_data_path(self, name: str) -> Path | None:
            asked.append(name)
            return elsewhere if name == "d/x.csv" else None

    host = PluginHost(entry_points=False)
    host.register(Resolver(), name="resolver")
    reset_host(host)
    assert fetch(_file()) == elsewhere
    assert asked == ["d/x.csv"]


def test_raising_resolver_is_skipped_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    class Broken:
        @hookimpl
        def paperzoo_resolve_data_path(self, name: str) -> Path | None:
            raise OSError("cluster file system unmounted")

    (tmp_path / "mirror" / "d").mkdir(parents=True)
    (tmp_path / "mirror" / "d" / "x.csv").write_bytes(PAYLOAD)
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", str(tmp_path / "mirror"))
    host = PluginHost(entry_points=False)
    host.register(Broken(), name="broken-resolver")
    reset_host(host)
    assert fetch(_file()) == tmp_path / "mirror" / "d" / "x.csv"
    assert "broken-resolver failed in paperzoo_resolve_data_path" in caplog.text


@pytest.mark.parametrize("value", ["0", "false", "no", ""])
def test_offline_variable_false_values_allow_downloads(value: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PAPERZOO_OFFLINE", value)
    with pytest.raises(DataError, match="cannot download"):
        fetch(_file(url="http://127.0.0.1:9/nothing.csv"))


def test_run_uses_its_own_hosts_resolver(tmp_path: Path) -> None:
    """execute(host=h) resolves data through h's plugins, not the process-wide host's."""
    from paperzoo.runs import RunRequest, execute
    from paperzoo.specs import ExperimentSpec
    from paperzoo.testing import demo_plugin

    cache = tmp_path / "cache"
    demo_plugin.write_numbers(cache)

    class Plugin:
        @hookimpl
        def paperzoo_resolve_data_path(self, name: str) -> Path | None:
            return cache / name

        @hookimpl
        def paperzoo_register_experiments(self, register):  # type: ignore[no-untyped-def]
            register(ExperimentSpec("p.load", "paperzoo.testing.demo_plugin:load_numbers_experiment"))

    host = PluginHost(entry_points=False)
    host.register(Plugin(), name="p")
    reset_host(PluginHost(entry_points=False))  # a different, empty process-wide host
    outcome = execute(RunRequest("p.load"), host=host)
    assert outcome.ok, outcome.error
    assert outcome.result is not None
    assert outcome.result.value("sum") == 10.0


def test_a_corrupt_copy_does_not_hide_a_good_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bad, good = tmp_path / "bad", tmp_path / "good"
    for root, data in ((bad, b"tampered"), (good, PAYLOAD)):
        (root / "d").mkdir(parents=True)
        (root / "d" / "x.csv").write_bytes(data)
    monkeypatch.setenv("PAPERZOO_DATA_MIRROR", f"{bad}:{good}")
    assert fetch(_file()) == good / "d" / "x.csv"


class _Garbage(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.wfile.write(b"NOT HTTP AT ALL\\r\\n\\r\\n")

    def log_message(self, *args: object) -> None:
        pass


def test_broken_http_answers_are_data_errors_and_leak_no_descriptor(home: Path) -> None:
    import os

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Garbage)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        before = len(os.listdir("/proc/self/fd"))
        for _ in range(5):
            with pytest.raises(DataError, match="cannot download"):
                fetch(_file(url=f"http://127.0.0.1:{srv.server_address[1]}/x.csv"))
        assert len(os.listdir("/proc/self/fd")) <= before + 1
    finally:
        srv.shutdown()
        srv.server_close()
    assert list((home / "data" / "d").iterdir()) == []

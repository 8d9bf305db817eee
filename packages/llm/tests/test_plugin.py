"""The plugin: backend hook, registry, command line, lightness."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from paperzoo import hookimpl
from paperzoo.cli import main
from paperzoo.errors import ConfigError, UnknownNameError
from paperzoo.host import PluginHost
from paperzoo_llm.backends.openai_api import OpenAIBackend
from paperzoo_llm.backends.scripted import ScriptedBackend
from paperzoo_llm.registry import BackendSpec, backends, get_backend, parse_backend


def test_builtin_backends_are_registered(host: PluginHost) -> None:
    assert backends().names() == ["openai", "scripted", "transformers"]
    assert isinstance(get_backend("scripted:yes"), ScriptedBackend)
    assert get_backend("scripted").model == "echo"


def test_the_manifest_declares_its_three_hooks(host: PluginHost) -> None:
    hooks = set(host.hooks_of("llm"))
    assert {"paperzoo_addhooks", "paperzoo_llm_backends", "paperzoo_register_commands"} <= hooks
    assert host.record("llm").info.url.endswith("packages/llm")


def test_unknown_backend_suggests_close_names(host: PluginHost) -> None:
    with pytest.raises(UnknownNameError, match="unknown LLM backend 'opeani'") as info:
        get_backend("opeani:gpt")
    assert info.value.hint == "did you mean 'openai'?"
    with pytest.raises(ConfigError, match="invalid backend"):
        parse_backend("")


class EchoTwice(ScriptedBackend):
    name = "twice"

    def __init__(self, model: str = "echo", **options: object) -> None:
        super().__init__("echo", policy=lambda m, p, i: m[-1].content * 2, **options)  # type: ignore[arg-type]


class ThirdParty:
    @hookimpl
    def paperzoo_llm_backends(self, register):  # type: ignore[no-untyped-def]
        register(BackendSpec("twice", f"{__name__}:EchoTwice", "Says it twice."))


def test_a_third_party_backend_plugs_in(host: PluginHost) -> None:
    host.register(ThirdParty(), name="third-party")
    assert "twice" in backends().names()
    assert get_backend("twice").chat("ab").text == "abab"


def test_cli_backends_and_chat(host: PluginHost, capsys: pytest.CaptureFixture[str]) -> None:
    main(["llm", "backends", "--json"])
    assert [b["name"] for b in json.loads(capsys.readouterr().out)] == ["openai", "scripted", "transformers"]
    main(["llm", "chat", "scripted:count", "hi", "-n", "2", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert [c["text"] for c in data["completions"]] == ["sample 0", "sample 1"]
    main(["llm", "chat", "scripted:echo", "say this"])
    captured = capsys.readouterr()
    assert captured.out.strip() == "say this"
    assert "2 prompt + 2 completion tokens" in captured.err
    with pytest.raises(SystemExit) as exit_info:
        main(["llm", "chat", "nobody:x", "hi"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "unknown LLM backend 'nobody'" in err
    assert "paperzoo llm backends" in err


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_command_serves_over_http(tmp_path: Path) -> None:
    port = _free_port()
    env = {**os.environ, "PAPERZOO_HOME": str(tmp_path), "PAPERZOO_LOAD_PLUGINS": "llm"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "paperzoo.cli", "llm", "serve", "--backend", "scripted:echo", "--port", str(port),
         "--quiet"],
        env=env, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stderr is not None
        banner = proc.stderr.readline()
        assert f"http://127.0.0.1:{port}/v1" in banner, banner
        backend = OpenAIBackend("echo", base_url=f"http://127.0.0.1:{port}/v1", max_retries=0)
        for _ in range(50):  # the socket is bound before the banner; be patient on a loaded machine
            try:
                assert backend.chat("over the wire").text == "over the wire"
                break
            except Exception:
                time.sleep(0.1)
        else:
            pytest.fail("the server never answered")
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=10)
    assert proc.returncode == 0

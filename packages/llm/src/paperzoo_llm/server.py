"""A small OpenAI-compatible chat server for any backend (``paperzoo llm serve``).

It answers ``POST /v1/chat/completions`` (``n``, ``temperature``, ``top_p``,
``max_tokens``/``max_completion_tokens``, ``stop``, ``seed``; usage counts; errors
in OpenAI's JSON format), ``GET /v1/models`` and ``GET /health``. Streaming is not
supported (400). It exists so that the ``openai`` backend is tested over real HTTP,
and so a local model (``transformers:smollm2``) can be served to any
OpenAI-compatible client.

For testing clients, ``faults`` injects failures into the next requests: an HTTP
status (``429``, ``500``, ``503``, ``401``), ``"sleep:<seconds>"`` (answer late),
``"malformed"`` (a 200 with a body that is not JSON) or ``"n=1"`` (ignore ``n``).
"""

from __future__ import annotations

import contextlib
import errno
import json
import secrets
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from paperzoo.errors import ConfigError, PaperzooError
from paperzoo_llm.backend import LLMBackend

__all__ = ["LLMServer"]

_ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 404: "not_found_error",
                429: "rate_limit_error"}  # fmt: skip


class _Handler(BaseHTTPRequestHandler):
    server: _HTTPServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # one small answer per request: send it now

    def log_message(self, format: str, *args: Any) -> None:
        if self.server.owner.verbose:
            super().log_message(format, *args)

    # ------------------------------------------------------------- replies

    def _send(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (a timeout): nobody to answer

    def _json(self, status: int, data: Any, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), headers)

    def _error(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        kind = _ERROR_TYPES.get(status, "server_error" if status >= 500 else "invalid_request_error")
        self._json(
            status, {"error": {"message": message, "type": kind, "param": None, "code": status}}, headers
        )

    # ------------------------------------------------------------ requests

    def do_GET(self) -> None:
        owner = self.server.owner
        if self.path.rstrip("/") in ("/v1/models", "/models"):
            self._json(200, {"object": "list", "data": [{"id": owner.model_name, "object": "model",
                                                         "owned_by": "paperzoo"}]})  # fmt: skip
        elif self.path.rstrip("/") == "/health":
            self._json(200, {"status": "ok", "model": owner.model_name})
        else:
            self._error(404, f"no route GET {self.path}")

    def do_POST(self) -> None:
        owner = self.server.owner
        try:
            length = int(self.headers.get("Content-Length") or 0)
            if length < 0:
                raise ValueError
        except ValueError:
            self.close_connection = True
            self._error(400, f"invalid Content-Length {self.headers.get('Content-Length')!r}")
            return
        raw = self.rfile.read(length)
        owner.count()
        if self.path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
            self._error(404, f"no route POST {self.path}")
            return
        if owner.api_key is not None and self.headers.get("Authorization") != f"Bearer {owner.api_key}":
            self._error(401, "invalid API key")
            return
        fault = owner.next_fault()
        ignore_n = False
        if isinstance(fault, int):
            self._error(fault, f"injected fault: HTTP {fault}", {"retry-after-ms": "20"})
            return
        if fault == "malformed":
            self._send(200, b'{"id": "chatcmpl-broken", "choices": [')
            return
        if fault == "n=1":
            ignore_n = True
        elif fault is not None and fault.startswith("sleep:"):
            time.sleep(float(fault.split(":", 1)[1]))
        try:
            request = json.loads(raw or b"null")
            if not isinstance(request, dict):
                raise ValueError("the body must be a JSON object")
        except ValueError as exc:
            self._error(400, f"invalid JSON body: {exc}")
            return
        try:
            answer = owner.complete(request, ignore_n=ignore_n)
        except PaperzooError as exc:
            self._error(400 if isinstance(exc, ConfigError) else 500, str(exc))
            return
        except Exception as exc:  # the backend broke: report it like a server would
            self._error(500, f"{type(exc).__name__}: {exc}")
            return
        self._json(200, answer)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    owner: LLMServer

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.connections.discard(request)
        super().shutdown_request(request)

    def close_connections(self) -> None:
        """End every open (keep-alive) connection, so no handler answers after stop."""
        with self.connections_lock:
            connections = list(self.connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class LLMServer:
    """Serve ``backend`` over OpenAI's chat-completions API.

    Args:
        backend: Any :class:`~paperzoo_llm.backend.LLMBackend`.
        host: Interface to bind; 127.0.0.1 by default (local use only).
        port: Port; 0 picks a free one (see :attr:`url`).
        model_name: Model id reported to clients (default: the backend's model).
        api_key: If set, requests must carry ``Authorization: Bearer <api_key>``.
        faults: Failures to inject into the next requests (see the module docs).
        verbose: Log each request to stderr.

    Example:
        >>> with LLMServer(ScriptedBackend("echo")) as server:      # doctest: +SKIP
        ...     OpenAIBackend("echo", base_url=server.url).chat("hi").text
        'hi'
    """

    def __init__(
        self,
        backend: LLMBackend,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model_name: str | None = None,
        api_key: str | None = None,
        faults: Iterable[int | str] = (),
        verbose: bool = False,
    ) -> None:
        self.backend = backend
        self.model_name = model_name or backend.model
        self.api_key = api_key
        self.verbose = verbose
        self.faults: deque[int | str] = deque(faults)
        self.requests = 0
        self._lock = threading.Lock()
        if not isinstance(port, int) or not 0 <= port <= 65535:
            raise ConfigError(f"port must be an integer from 0 to 65535, got {port!r}")
        try:
            self._http = _HTTPServer((host, port), _Handler)
        except OSError as exc:
            in_use = exc.errno == errno.EADDRINUSE
            raise ConfigError(
                f"cannot listen on {host}:{port}: {exc.strerror or exc}",
                hint="choose another --port" if in_use else "check --host names an interface of this machine",
            ) from None
        self._http.owner = self
        self._thread: threading.Thread | None = None
        self._serving = False

    @property
    def url(self) -> str:
        """Base URL for OpenAI clients, ``http://host:port/v1``."""
        host, port = self._http.server_address[:2]
        return f"http://{host}:{port}/v1"

    def count(self) -> None:
        with self._lock:
            self.requests += 1

    def next_fault(self) -> int | str | None:
        with self._lock:
            return self.faults.popleft() if self.faults else None

    def complete(self, request: dict[str, Any], *, ignore_n: bool = False) -> dict[str, Any]:
        """Answer one chat-completions request body."""
        if request.get("stream"):
            raise ConfigError("streaming is not supported by this server; send stream=false")
        messages = request.get("messages")
        if not isinstance(messages, list):
            raise ConfigError("'messages' must be a list of {role, content} objects")
        stop = request.get("stop")
        if stop is not None and not isinstance(stop, (str, list)):
            raise ConfigError(f"'stop' must be a string or a list of strings, got {stop!r}")

        def number(key: str, default: float, kind: type) -> Any:
            value = request.get(key)
            try:
                return default if value is None else kind(value)
            except (TypeError, ValueError):
                raise ConfigError(f"'{key}' must be a number, got {value!r}") from None

        response = self.backend.chat(
            messages,
            n=1 if ignore_n else number("n", 1, int),
            temperature=number("temperature", 1.0, float),
            top_p=number("top_p", 1.0, float),
            max_tokens=request.get("max_completion_tokens") or request.get("max_tokens"),
            stop=[stop] if isinstance(stop, str) else stop,
            seed=request.get("seed"),
        )
        return {
            "id": f"chatcmpl-{secrets.token_hex(8)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model_name,
            "choices": [
                {
                    "index": c.index,
                    "message": {"role": "assistant", "content": c.text},
                    "finish_reason": c.finish_reason,
                    "logprobs": None,
                }
                for c in response.completions
            ],
            "usage": {
                "prompt_tokens": response.usage.prompt_tokens,
                "completion_tokens": response.usage.completion_tokens,
                "total_tokens": response.usage.total_tokens,
            },
        }

    def start(self) -> LLMServer:
        """Serve in a background thread."""
        self._serving = True
        self._thread = threading.Thread(
            target=self._http.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="paperzoo-llm-server",
            daemon=True,
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in this thread until interrupted."""
        self._serving = True
        try:
            self._http.serve_forever()
        finally:
            self._serving = False

    def stop(self) -> None:
        """Stop serving, end open connections and close the socket."""
        if self._serving and self._thread is not None:
            self._http.shutdown()
            self._thread.join(timeout=5)
        self._serving = False
        self._http.close_connections()
        self._http.server_close()

    def __enter__(self) -> LLMServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

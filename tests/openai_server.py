"""A real OpenAI-compatible chat server on 127.0.0.1 for tests: subclass :class:`ChatHandler`
and say how to answer; :func:`running` serves it, bounded in time, and stops it."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class ChatServer(ThreadingHTTPServer):
    """Bound to 127.0.0.1 on a free port; handlers share ``lock``."""

    daemon_threads = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self.lock = threading.Lock()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class ChatHandler(BaseHTTPRequestHandler):
    """JSON replies, quiet logs, and the chat-completion body a client expects."""

    def log_message(self, *args: Any) -> None:
        pass

    def send_json(self, code: int, body: dict[str, Any]) -> None:
        data = json.dumps(body).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_reply(self, model: str, content: str, number: int = 0) -> None:
        message = {"role": "assistant", "content": content}
        self.send_json(200, {
            "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })  # fmt: skip

    def read_json(self) -> dict[str, Any]:
        return json.loads(self.rfile.read(int(self.headers["Content-Length"])))


@contextmanager
def running(server: ChatServer, limit_s: float = 60.0) -> Iterator[ChatServer]:
    """Serve in a thread; shut down on exit, or after ``limit_s`` even if a test hangs."""
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.daemon = True
    thread.start()
    stop = threading.Timer(limit_s, server.shutdown)
    stop.daemon = True
    stop.start()
    try:
        yield server
    finally:
        stop.cancel()
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


class ScriptedServer(ChatServer):
    """Answers request N (1-based) as ``script[N]`` says, else with a good reply:

    * ``drip:<s>``: a good reply sent one byte every ``s`` seconds, status line and headers
      included (a per-read timeout never trips; only a whole-request deadline ends it);
    * ``retry-after:<value>``: HTTP 429 with that ``Retry-After`` header.

    ``reply`` is the assistant's text for a good reply; ``requests`` counts what came in."""

    def __init__(self, script: dict[int, str], reply: str) -> None:
        super().__init__(ScriptedHandler)
        self.script, self.reply = script, reply
        self.requests = 0
        self.stopping = threading.Event()  # ends a drip when the test stops the server

    def shutdown(self) -> None:
        self.stopping.set()
        super().shutdown()


class ScriptedHandler(ChatHandler):
    server: ScriptedServer

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.read_json()
        with self.server.lock:
            self.server.requests += 1
            number = self.server.requests
        act = self.server.script.get(number, "ok")
        if act.startswith("retry-after:"):
            data = b'{"error": {"message": "slow down", "type": "rate_limit"}}'
            self.send_response(429)
            self.send_header("Retry-After", act.split(":", 1)[1])
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)
            return
        message = {"role": "assistant", "content": self.server.reply}
        data = json.dumps({
            "id": f"chatcmpl-{number}", "object": "chat.completion", "created": 0,
            "model": body.get("model", ""),
            "choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
        }).encode()  # fmt: skip
        head = (
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
            f"Content-Length: {len(data)}\r\n\r\n"
        ).encode()
        if not act.startswith("drip:"):
            self.wfile.write(head + data)
            return
        gap = float(act.split(":", 1)[1])
        for i in range(len(head + data)):
            if self.server.stopping.wait(gap):
                return
            try:
                self.wfile.write((head + data)[i : i + 1])
                self.wfile.flush()
            except OSError:  # the client gave up: what a deadline should do
                return

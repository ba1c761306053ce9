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

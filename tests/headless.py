"""Drive Debian's headless Chromium from tests through the DevTools protocol over a pipe
(``--remote-debugging-pipe``: JSON messages ending in NUL on file descriptors 3 and 4), so
no websocket client or browser download is needed: load a page, evaluate JavaScript, click
at an element's centre with real mouse events."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def require_tool(name: str, package: str | None = None) -> str:
    """The path of the command-line tool ``name``. A test that needs it fails without it
    (never skips: a skipped check is a check CI never ran), saying how to install it."""
    path = shutil.which(name)
    if path is None:
        pytest.fail(
            f"{name} is not on PATH and this test needs it: install it with "
            f"`apt-get update && apt-get install -y {package or name}` (.ci/run does)",
            pytrace=False,
        )
    return path


def chromium() -> str:
    """Debian's Chromium, which the browser tests drive; fails the test without it."""
    return CHROMIUM or require_tool("chromium")


FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--mute-audio",
    "--remote-debugging-pipe",
)


class Browser:
    """One headless Chromium with one page; ``close`` (or ``with``) ends it."""

    def __init__(self, profile: Path, timeout: float = 60.0) -> None:
        browser = chromium()
        to_browser, self._write = os.pipe()  # the browser reads fd 3
        self._read, from_browser = os.pipe()  # and writes fd 4
        os.set_inheritable(to_browser, True)
        os.set_inheritable(from_browser, True)
        # the child gets them as 3 and 4 (dup2 before exec; closing fds would undo it)
        self.proc = subprocess.Popen(
            [browser, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            close_fds=False,
            preexec_fn=lambda: (os.dup2(to_browser, 3), os.dup2(from_browser, 4)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.timeout = timeout
        self._buf = b""
        self._next = 0
        self.session: str | None = None

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.send("Browser.close", session=False)
        except (OSError, RuntimeError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._write)
        os.close(self._read)

    def send(self, method: str, session: bool = True, **params: Any) -> dict[str, Any]:
        """Send one command and return its result (events in between are dropped)."""
        self._next += 1
        msg: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._write, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            while b"\0" not in self._buf:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"chromium did not answer {method}")
                chunk = os.read(self._read, 1 << 16)
                if not chunk:
                    raise RuntimeError("chromium closed the pipe")
                self._buf += chunk
            raw, self._buf = self._buf.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self._next:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def open(self, url: str) -> None:
        """Open ``url`` in a new page and wait until it has loaded."""
        target = self.send("Target.createTarget", session=False, url=url)["targetId"]
        self.session = self.send(
            "Target.attachToTarget", session=False, targetId=target, flatten=True
        )["sessionId"]
        self.wait(f"location.href === {json.dumps(url)} && document.readyState === 'complete'")

    def js(self, expression: str) -> Any:
        """Evaluate ``expression`` in the page (promises awaited) and return its value."""
        result = self.send(
            "Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True
        )
        if "exceptionDetails" in result:
            raise RuntimeError(f"{expression}: {result['exceptionDetails']}")
        return result["result"].get("value")

    def wait(self, condition: str) -> None:
        deadline = time.monotonic() + self.timeout
        while not self.js(f"!!({condition})"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"timed out waiting for {condition}")
            time.sleep(0.05)

    def click(self, selector: str) -> None:
        """Scroll the element into view and click its centre with the mouse."""
        box = self.js(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " const x = r.x + r.width / 2, y = r.y + r.height / 2;"
            " const hit = document.elementFromPoint(x, y);"
            " return [x, y, !!hit && (hit === e || e.contains(hit)), hit && hit.outerHTML]; })()"
        )
        if not box[2]:
            raise RuntimeError(f"{selector} is covered at its centre by {str(box[3])[:200]}")
        for kind in ("mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", type=kind, x=box[0], y=box[1],
                      button="left", clickCount=1)  # fmt: skip

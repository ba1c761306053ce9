"""Asking a chat endpoint: a client with one deadline per whole request, bounded retries
with backoff (``Retry-After`` honoured up to ``max_backoff``), and the reply cache's entries."""

from __future__ import annotations

import contextlib
import json
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempogen.io import content_hash
from tempogen.retrieval.llm_config import LLMConfig, LLMError
from tempogen.retrieval.pairs import CaptionPair

# --------------------------------------------------------------------------- asking


@dataclass
class LLMResult:
    """Pairs obtained, and what happened: rounds answered, cache hits, HTTP requests made
    (retries included), the failure that stopped the conversation if any, and a log."""

    pairs: list[CaptionPair]
    rounds: int = 0
    cache_hits: int = 0
    requests: int = 0
    error: str | None = None
    log: list[str] = field(default_factory=list)


Messages = list[dict[str, Any]]  # a message's content: text, or parts (text and images)


def cache_key(base_url: str | None, model: str, messages: Messages) -> str:
    """SHA-256 of (base_url, model, messages): equal conversations hit the same entry."""
    return content_hash({"base_url": base_url or "", "model": model, "messages": messages})


class MalformedReply(Exception):
    """A 200 reply without a usable message (empty, no choices, not chat JSON): retried."""


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, MalformedReply | RequestDeadline):
        return True
    if isinstance(exc, openai.APIConnectionError | openai.RateLimitError):
        return True  # APITimeoutError is an APIConnectionError
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return True  # a garbled 200 body
    return isinstance(exc, openai.APIStatusError) and (
        exc.status_code >= 500 or exc.status_code in (408, 409)
    )


def retry_after(exc: BaseException) -> float | None:
    """Seconds a 429/503 reply asks the client to wait (``Retry-After``: seconds or an
    HTTP date), or None when it does not say."""
    response = getattr(exc, "response", None)
    raw = response.headers.get("retry-after") if response is not None else None
    if not raw:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        pass
    from email.utils import parsedate_to_datetime

    try:
        when = parsedate_to_datetime(raw)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _describe(exc: BaseException) -> str:
    import openai

    if isinstance(exc, MalformedReply):
        return str(exc)
    if isinstance(exc, RequestDeadline):
        return f"timed out: {exc}"
    if isinstance(exc, openai.APIStatusError):
        return f"HTTP {exc.status_code}: {exc.message}"
    if isinstance(exc, openai.APITimeoutError):
        return "timed out"
    if isinstance(exc, openai.APIConnectionError):
        cause = exc.__cause__ or exc
        return f"cannot connect ({cause})"
    if isinstance(exc, openai.APIResponseValidationError | json.JSONDecodeError):
        return "malformed reply (not chat-completion JSON)"
    return f"{type(exc).__name__}: {exc}"


class RequestDeadline(Exception):
    """A request ran past its whole-request deadline (``LLMConfig.timeout``): retried."""


class ChatClient:
    """An OpenAI client whose every request has one deadline for the whole request.

    httpx's timeout bounds each socket read, so a server dripping a byte every half second
    never trips it; here the request runs in a daemon thread and is abandoned (its
    connections closed, a fresh client made) once ``config.timeout`` seconds have passed."""

    def __init__(self, config: LLMConfig) -> None:
        self.config = config
        self._client: Any = None

    def _openai(self) -> Any:
        try:
            import openai
        except ImportError as exc:  # pragma: no cover - openai is a dependency
            raise LLMError(
                "the 'openai' package is needed for --source llm: pip install openai"
            ) from exc
        if self._client is None:
            c = self.config
            self._client = openai.OpenAI(
                base_url=c.base_url, api_key=c.api_key, timeout=c.timeout, max_retries=0
            )
        return self._client

    def complete(self, **kwargs: Any) -> Any:
        """``chat.completions.create(**kwargs)``, or :class:`RequestDeadline` at the deadline."""
        client = self._openai()
        box: dict[str, Any] = {}
        done = threading.Event()

        def run() -> None:
            try:
                box["reply"] = client.chat.completions.create(**kwargs)
            except BaseException as exc:  # handed to the caller's thread
                box["error"] = exc
            finally:
                done.set()

        threading.Thread(target=run, name="tempogen-llm-request", daemon=True).start()
        if not done.wait(self.config.timeout):
            self._client = None
            with contextlib.suppress(Exception):
                client.close()  # the abandoned thread's reads fail once its socket is closed
            raise RequestDeadline(
                f"no complete reply within the {self.config.timeout:g} s deadline"
            )
        if "error" in box:
            raise box["error"]
        return box["reply"]


def chat_client(config: LLMConfig) -> ChatClient:
    """A client for ``config``'s endpoint: its own retries off (:func:`ask_chat` retries), a
    whole-request deadline of ``config.timeout`` seconds."""
    return ChatClient(config)


def notify_stderr(line: str) -> None:
    """Say ``line`` on stderr, prefixed ``tempogen:`` (the default ``notify``)."""
    print(f"tempogen: {line}", file=sys.stderr, flush=True)


def ask_chat(
    client: ChatClient,
    config: LLMConfig,
    messages: Messages,
    sleep: Callable[[float], None],
    result: LLMResult,
    notify: Callable[[str], None] = notify_stderr,
) -> str:
    """One chat completion with bounded retries; raise LLMError naming the endpoint.

    Each attempt has ``config.timeout`` seconds in all; between attempts it waits the
    backoff, or what a ``Retry-After`` header asks capped at ``config.max_backoff``, and
    says so through ``notify`` (stderr): how long, why, and which attempt comes next."""
    delay = config.backoff
    for attempt in range(1, config.max_attempts + 1):
        result.requests += 1
        try:
            kwargs: dict[str, Any] = {"model": config.model, "messages": messages}
            if config.temperature is not None:
                kwargs["temperature"] = config.temperature
            reply = client.complete(**kwargs)
            choices = getattr(reply, "choices", None)
            if not isinstance(choices, list) or not choices:
                raise MalformedReply("malformed reply (no choices)")
            content = getattr(getattr(choices[0], "message", None), "content", None)
            if not isinstance(content, str) or not content.strip():
                raise MalformedReply("empty reply")
            return content
        except Exception as exc:
            what = _describe(exc)
            if not _retryable(exc):
                raise LLMError(f"{config.endpoint}: {what}") from exc
            if attempt == config.max_attempts:
                raise LLMError(
                    f"{config.endpoint}: {what}; gave up after {attempt} attempts"
                ) from exc
            asked = retry_after(exc)
            wait = min(max(delay, asked), config.max_backoff) if asked is not None else delay
            said = ""
            if asked is not None:
                capped = f", capped at max_backoff {config.max_backoff:g}s" if asked > wait else ""
                said = f" (Retry-After {asked:g}s{capped})"
            result.log.append(f"attempt {attempt}: {what}; retrying in {wait:.2f}s{said}")
            if asked is not None or wait >= 5:
                notify(
                    f"{config.endpoint}: {what}; waiting {wait:g} s{said} before attempt "
                    f"{attempt + 1} of {config.max_attempts}"
                )
            sleep(wait)
            delay = min(delay * 2, config.max_backoff)
    raise LLMError(f"{config.endpoint}: max_attempts must be at least 1")  # pragma: no cover


def read_cached_reply(path: Path) -> tuple[str | None, str]:
    """A cached reply's text, or None and why the entry cannot be used (unreadable, not
    UTF-8, not JSON, no ``response`` text): a damaged entry is asked again, never a crash."""
    try:
        data = json.loads(path.read_bytes().decode("utf-8"))
    except OSError as exc:
        return None, f"cannot read: {exc.strerror or exc}"
    except (UnicodeDecodeError, ValueError) as exc:
        return None, f"not JSON: {exc}"
    reply = data.get("response") if isinstance(data, dict) else None
    if not isinstance(reply, str) or not reply.strip():
        return None, "no 'response' text"
    return reply, ""

"""Caption pairs from an LLM behind any OpenAI-compatible endpoint, following Vinoground's
protocol: seed examples, "give me 10 examples", then "give me 10 different ones" in the same
conversation until N pairs.

Every response is cached on disk, keyed by a hash of (base_url, model, messages), so a rerun
asks nothing already answered; a damaged entry is reported and asked again. Transient
failures (connection errors, requests past their deadline, 429, 408, 5xx, and 200 replies
that are empty or not chat JSON) are retried with exponential backoff, waiting what a
``Retry-After`` header asks up to ``max_backoff`` and saying so on stderr. ``timeout`` is a
deadline for each whole request, not for each socket read. Failure policy: pairs received
before a failure are kept and returned with the failure in ``LLMResult.error``;
:class:`LLMError`, naming the endpoint, is raised only when not a single pair arrived.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tempogen.errors import ConfigurationError, ExternalServiceError
from tempogen.io import content_hash, write_json
from tempogen.retrieval.audit import suggest_categories, words
from tempogen.retrieval.pairs import CaptionPair

ENV_BASE_URL = "TEMPOGEN_LLM_BASE_URL"
ENV_API_KEY = "TEMPOGEN_LLM_API_KEY"
ENV_MODEL = "TEMPOGEN_LLM_MODEL"

SEED_EXAMPLES: tuple[tuple[str, str], ...] = (
    ("a man eats then watches tv", "a man watches tv then eats"),
    ("a woman jumps before she runs", "a woman runs before she jumps"),
    ("water turning into ice", "ice turning into water"),
    (
        "the calligrapher writes with his pen before he dips it into the ink",
        "the calligrapher dips his pen into the ink before he writes with it",
    ),
    ("the camera zooms in then pans left", "the camera pans left then zooms in"),
)

SYSTEM_PROMPT = (
    "You write caption pairs for a video benchmark of temporal reasoning. Each pair "
    "describes two videos that differ only in the order in which things happen."
)

FIRST_REQUEST = "give me 10 examples."
NEXT_REQUEST = "give me 10 different ones."


def user_prompt(seeds: Sequence[tuple[str, str]] = SEED_EXAMPLES) -> str:
    """The opening request, in the spirit of Vinoground's App. F prompt, with seed pairs."""
    examples = "; ".join(f'"{a}" vs "{b}"' for a, b in seeds)
    return (
        "I am looking for pairs of videos that are temporal counterfactuals of each other: "
        "the same events or states, happening in the opposite order. For example, video "
        f"pairs described by these caption pairs: {examples}. Rules: both captions of a pair "
        "use exactly the same words, only in a different order; the only difference is "
        "the order of two events or states (joined by words like then, before, after, "
        "and then, turning into), never who does what to whom in a single moment (so "
        '"a man waves at a woman" vs "a woman waves at a man" is not allowed). Mix '
        "unrelated actions, a person changing how they handle an object, objects changing "
        "state, movements from one place to another, changing surroundings and camera "
        'moves. Write one pair per line, numbered, as: 1. "caption" vs "caption". '
        f"{FIRST_REQUEST}"
    )


class LLMError(ExternalServiceError):
    """No pair could be obtained from the endpoint; the message names it."""


@dataclass(frozen=True)
class LLMConfig:
    """Where and how to ask; small delays and few attempts make tests fast."""

    base_url: str | None
    api_key: str
    model: str
    timeout: float = 60.0  # seconds for each whole request (not per socket read)
    max_attempts: int = 5
    backoff: float = 1.0
    max_backoff: float = 30.0  # the longest wait between attempts, Retry-After included
    temperature: float | None = None

    def __post_init__(self) -> None:
        for key in ("timeout", "max_attempts", "backoff", "max_backoff"):
            kind, lo, hi = LLM_FIELDS[key]
            value = getattr(self, key)
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or (kind is int and not isinstance(value, int)) or not lo <= value <= hi:
                raise ConfigurationError(
                    f"LLM setting {key}: must be within {lo:g}..{hi:g}, got {value!r}"
                )

    @property
    def endpoint(self) -> str:
        return f"{self.base_url or 'https://api.openai.com/v1'} (model {self.model})"


def resolve_config(
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    **options: Any,
) -> LLMConfig:
    """Take each setting from the argument, else the TEMPOGEN_LLM_* environment variable.

    A key is required only for OpenAI's own endpoint; a local server gets "unused".
    """
    base_url = base_url or os.environ.get(ENV_BASE_URL) or None
    api_key = api_key or os.environ.get(ENV_API_KEY) or None
    model = model or os.environ.get(ENV_MODEL) or None
    if not model:
        raise LLMError(f"no model given: pass one or set {ENV_MODEL}")
    if not api_key:
        if not base_url:
            raise LLMError(
                f"no API key for OpenAI's endpoint: set {ENV_API_KEY}, or {ENV_BASE_URL}"
                " for a local OpenAI-compatible server"
            )
        api_key = "unused"
    url = base_url.rstrip("/") if base_url else None
    return LLMConfig(base_url=url, api_key=api_key, model=model, **options)


LLM_FIELDS = {  # YAML key -> (type, low, high); strings have no bounds
    "base_url": (str, None, None),
    "model": (str, None, None),
    "timeout": (float, 0.1, 3600.0),
    "max_attempts": (int, 1, 50),
    "backoff": (float, 0.0, 600.0),
    "max_backoff": (float, 0.0, 3600.0),
    "temperature": (float, 0.0, 2.0),
}


def load_llm_options(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Endpoint settings from a YAML file (``base_url``, ``model``, ``timeout`` seconds per
    request, ``max_attempts``, ``backoff``, ``max_backoff``, ``temperature``); a wrong key or
    value is an :class:`LLMError` naming file, line and field. Keys stay out of files: the API
    key comes from the flag or ``TEMPOGEN_LLM_API_KEY``."""
    from tempogen.errors import InputFileError
    from tempogen.io import load_yaml

    try:
        data, lines = load_yaml(path, "LLM settings")
    except InputFileError as exc:
        raise LLMError(str(exc)) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise LLMError(f"{path}:1: expected a mapping of settings, got {type(data).__name__}")
    out: dict[str, Any] = {}
    for key, value in data.items():
        where = f"{path}:{lines.get(str(key), 1)}: {key}"
        if key not in LLM_FIELDS:
            raise LLMError(f"{where}: unknown setting; known: {', '.join(LLM_FIELDS)}")
        kind, lo, hi = LLM_FIELDS[key]
        if kind is str:
            if not isinstance(value, str) or not value:
                raise LLMError(f"{where}: expected text, got {value!r}")
        else:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or (kind is int and not isinstance(value, int)):
                raise LLMError(f"{where}: expected {kind.__name__}, got {value!r}")
            if not lo <= value <= hi:
                raise LLMError(f"{where}: must be within {lo:g}..{hi:g}, got {value!r}")
        out[key] = kind(value)
    return out


# --------------------------------------------------------------------------- parsing

_QUOTED = re.compile(r'"([^"]+)"|\u201c([^\u201d]+)\u201d|(?<![a-z])\'([^\']+)\'(?![a-z])', re.I)
_SEPARATORS = re.compile(
    r"\s+(?:vs\.?|versus|v\.)\s+|\s*(?:->|=>|→|⟶|⇒)\s*|\s+\|\s+|\s+/\s+|\s+[-\u2013\u2014]\s+",
    re.I,
)
_NUMBER = re.compile(r"^\s*(?:[-*\u2022]\s*)?(?:\(?(\d+)([a-z]?)[.):]|\(?([a-z])[.)])?\s*", re.I)
_LABEL = re.compile(
    r"^\s*(?:\*\*)?(?:pair\s*\d*|positive|negative|pos|neg|caption\s*[12ab]?|original|"
    r"counterfactual|video\s*[12ab]|[ab])(?:\*\*)?\s*[:.)-]\s*(?:\*\*)?\s*",
    re.I,
)


def _clean(text: str) -> str:
    text = text.strip().strip("*_`").strip()
    text = text.strip("\"'\u201c\u201d\u2018\u2019").strip()
    text = re.sub(r"\s+", " ", text)
    return text.rstrip(".;,").strip()


def _split(line: str) -> tuple[str, str] | None:
    quoted = [next(g for g in m.groups() if g) for m in _QUOTED.finditer(line)]
    if len(quoted) == 2:
        return _clean(quoted[0]), _clean(quoted[1])
    parts = [p for p in _SEPARATORS.split(line) if p.strip()]
    if len(parts) == 2:
        return _clean(_LABEL.sub("", parts[0])), _clean(_LABEL.sub("", parts[1]))
    return None


def _close(a: str, b: str) -> bool:
    """Two lines share most words: a guard so chatter is never paired with a caption."""
    wa, wb = set(words(a)), set(words(b))
    return bool(wa and wb) and len(wa & wb) / len(wa | wb) >= 0.5


_FENCED_JSON = re.compile(r"```(?:json)?\s*([\[{].*?[\]}])\s*```", re.S)


def _from_json(text: str) -> list[tuple[str, str]] | None:
    fenced = _FENCED_JSON.search(text)
    body = fenced.group(1) if fenced else text.strip()
    if body[:1] not in ("[", "{"):
        return None
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        return None
    if isinstance(data, dict):
        data = next((v for v in data.values() if isinstance(v, list)), [data])
    out = []
    for item in data if isinstance(data, list) else []:
        if isinstance(item, dict):
            vals = [item.get(k) for k in ("pos", "neg")]
            if not all(isinstance(v, str) for v in vals):
                vals = [v for v in item.values() if isinstance(v, str)][:2]
        elif isinstance(item, list):
            vals = [v for v in item if isinstance(v, str)][:2]
        else:
            continue
        if len(vals) == 2 and all(v.strip() for v in vals):
            out.append((_clean(vals[0]), _clean(vals[1])))
    return out or None


def parse_pairs(text: str) -> list[tuple[str, str]]:
    """Caption pairs from a reply in any common layout, in order, without repeats.

    One line per pair, numbered or bulleted or not: two quoted captions, or two captions
    joined by "vs", "->", "=>", "|", " / " or a dash. Two lines per pair: a caption line
    (numbered or labelled "Positive:", "Caption 1:", "1a.", ...) followed by a second caption
    line, accepted only when the two share most words. A JSON list of {"pos","neg"} objects
    or of two-string lists also works.
    """
    js = _from_json(text)
    if js is not None:
        return _unique(js)
    pairs: list[tuple[str, str]] = []
    pending: tuple[str, str | None] | None = None  # (caption, item number)
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("```") or re.fullmatch(r"[|:\- ]+", line):
            continue
        m = _NUMBER.match(line)
        number = m.group(1) if m and m.group(1) else None
        body = _LABEL.sub("", line[m.end() :] if m else line).strip()
        body = body.strip("|").strip()
        if "|" in body and _split(body) is None:  # markdown table row: | a | b |
            cells = [c.strip() for c in body.split("|") if c.strip()]
            if len(cells) >= 2:
                body = f'"{cells[-2]}" "{cells[-1]}"'
        got = _split(body)
        if got is not None:
            pairs.append(got)
            pending = None
            continue
        caption = _clean(body)
        if not caption or caption.endswith(":") or len(words(caption)) < 2:
            pending = None
            continue
        if pending is not None and (number is None or number == pending[1]):
            if _close(pending[0], caption):
                pairs.append((pending[0], caption))
                pending = None
                continue
        pending = (caption, number)
    return _unique(pairs)


def _unique(pairs: list[tuple[str, str]]) -> list[tuple[str, str]]:
    seen: set[tuple[str, ...]] = set()
    out = []
    for a, b in pairs:
        if len(words(a)) < 2 or len(words(b)) < 2:  # headers, stray labels
            continue
        key = tuple(sorted((" ".join(words(a)), " ".join(words(b)))))
        if key in seen or key[0] == key[1]:
            continue
        seen.add(key)
        out.append((a, b))
    return out


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


def _stderr(line: str) -> None:
    print(f"tempogen: {line}", file=sys.stderr, flush=True)


def ask_chat(
    client: ChatClient,
    config: LLMConfig,
    messages: Messages,
    sleep: Callable[[float], None],
    result: LLMResult,
    notify: Callable[[str], None] = _stderr,
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


def generate_llm_pairs(
    n: int,
    config: LLMConfig,
    cache_dir: str | os.PathLike[str] | None = None,
    seeds: Sequence[tuple[str, str]] = SEED_EXAMPLES,
    max_rounds: int | None = None,
    stall_rounds: int = 3,
    sleep: Callable[[float], None] = time.sleep,
    notify: Callable[[str], None] = _stderr,
) -> LLMResult:
    """Ask for pairs, 10 a round in one conversation, until ``n`` distinct pairs.

    Stops after ``max_rounds`` (default: 2 * ceil(n / 10) + 2) or ``stall_rounds`` rounds in
    a row without a new pair. Categories are suggested by the audit's keyword rules.
    """
    if n <= 0:
        return LLMResult([])
    rounds_cap = max_rounds if max_rounds is not None else 2 * -(-n // 10) + 2
    cache = Path(cache_dir) if cache_dir is not None else None
    messages: Messages = [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": user_prompt(seeds)},
    ]
    result = LLMResult([])
    seen: set[tuple[str, ...]] = set()
    client = None
    stalled = 0
    while len(result.pairs) < n and result.rounds < rounds_cap and stalled < stall_rounds:
        key = cache_key(config.base_url, config.model, messages)
        entry = cache / f"{key}.json" if cache is not None else None
        text = None
        if entry is not None and entry.is_file():
            text, why = read_cached_reply(entry)
            if text is not None:
                result.cache_hits += 1
            else:  # a damaged entry is asked again and rewritten
                result.log.append(f"{entry}: damaged cache entry ({why}); asked again")
                notify(result.log[-1])
        if text is None:
            client = client or chat_client(config)
            try:
                text = ask_chat(client, config, messages, sleep, result, notify)
            except LLMError as exc:
                result.error = str(exc)
                break
            if entry is not None:
                record = {"base_url": config.base_url, "model": config.model}
                write_json(entry, {**record, "messages": messages, "response": text})
        result.rounds += 1
        new = 0
        for pos, neg in parse_pairs(text):
            k = tuple(sorted((" ".join(words(pos)), " ".join(words(neg)))))
            if k in seen:
                continue
            seen.add(k)
            new += 1
            major, minor = suggest_categories(pos, neg)
            result.pairs.append(
                CaptionPair(
                    pos,
                    neg,
                    major,
                    minor,
                    "llm",
                    {
                        "base_url": config.base_url,
                        "model": config.model,
                        "round": result.rounds,
                        "response": cache_key(config.base_url, config.model, messages),
                        "categories": "suggested by keyword rules",
                    },
                )
            )
        stalled = 0 if new else stalled + 1
        messages = [
            *messages,
            {"role": "assistant", "content": text},
            {"role": "user", "content": NEXT_REQUEST},
        ]
    result.pairs = result.pairs[:n]
    if len(result.pairs) < n and result.error is None:
        why = "no new pairs" if stalled >= stall_rounds else "the round limit"
        result.log.append(f"stopped at {len(result.pairs)} of {n} pairs: {why}")
    if not result.pairs:
        raise LLMError(result.error or f"{config.endpoint}: no caption pairs in the replies")
    return result

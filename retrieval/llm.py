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

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from tempogen.io import write_json
from tempogen.retrieval.audit import suggest_categories, words
from tempogen.retrieval.llm_client import (
    ChatClient,
    LLMResult,
    MalformedReply,
    Messages,
    RequestDeadline,
    ask_chat,
    cache_key,
    chat_client,
    notify_stderr,
    read_cached_reply,
    retry_after,
)
from tempogen.retrieval.llm_config import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    LLM_FIELDS,
    LLMConfig,
    LLMError,
    load_llm_options,
    resolve_config,
)
from tempogen.retrieval.llm_parse import parse_pairs
from tempogen.retrieval.pairs import CaptionPair

__all__ = [  # the endpoint settings, client and reply parser live in llm_config/_client/_parse
    "ENV_API_KEY",
    "ENV_BASE_URL",
    "ENV_MODEL",
    "FIRST_REQUEST",
    "LLM_FIELDS",
    "NEXT_REQUEST",
    "SEED_EXAMPLES",
    "SYSTEM_PROMPT",
    "ChatClient",
    "LLMConfig",
    "LLMError",
    "LLMResult",
    "MalformedReply",
    "Messages",
    "RequestDeadline",
    "ask_chat",
    "cache_key",
    "chat_client",
    "generate_llm_pairs",
    "load_llm_options",
    "parse_pairs",
    "read_cached_reply",
    "resolve_config",
    "retry_after",
    "user_prompt",
]

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


def generate_llm_pairs(
    n: int,
    config: LLMConfig,
    cache_dir: str | os.PathLike[str] | None = None,
    seeds: Sequence[tuple[str, str]] = SEED_EXAMPLES,
    max_rounds: int | None = None,
    stall_rounds: int = 3,
    sleep: Callable[[float], None] = time.sleep,
    notify: Callable[[str], None] = notify_stderr,
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

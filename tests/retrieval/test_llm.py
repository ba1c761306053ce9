"""llm: Vinoground's conversation against a real local OpenAI-compatible HTTP server, with
retries, an on-disk cache, partial results and a clear error for an unreachable endpoint."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from kit import run_cli
from openai_server import ChatHandler, ChatServer, running

from tempogen.retrieval.audit import audit_pairs
from tempogen.retrieval.llm import (
    ENV_API_KEY,
    ENV_BASE_URL,
    ENV_MODEL,
    FIRST_REQUEST,
    NEXT_REQUEST,
    LLMConfig,
    LLMError,
    cache_key,
    generate_llm_pairs,
    parse_pairs,
    resolve_config,
)

SUBJECTS = ["a man", "a woman", "a boy", "a girl", "a chef", "a nurse", "a pilot", "a baker"]
VERBS = ["eats", "sings", "jumps", "claps", "waves", "reads", "runs", "sleeps", "dances", "swims"]


def reply_for_round(r: int) -> str:
    """Ten pairs for round r (1-based), in a different layout each round."""
    lines = [f"Sure, here are 10 {'more ' if r > 1 else ''}examples:", ""]
    for i in range(10):
        s = SUBJECTS[(r - 1) % len(SUBJECTS)]
        a, b = VERBS[i], VERBS[(i + r) % len(VERBS)]
        if a == b:
            b = "laughs"
        pos, neg = f"{s} {a} then {b}", f"{s} {b} then {a}"
        layout = r % 3
        if layout == 1:
            lines.append(f'{i + 1}. "{pos}" vs "{neg}"')
        elif layout == 2:
            lines.append(f"{i + 1}) {pos} -> {neg}")
        else:
            lines += [f"{i + 1}. {pos}", f"   {neg}"]
    return "\n".join(lines)


class FakeOpenAI(ChatServer):
    """POST /v1/chat/completions: answers from the conversation, fails on chosen requests."""

    def __init__(
        self, fail: set[int], max_rounds: int | None = None, script: dict[int, str] | None = None
    ) -> None:
        super().__init__(Handler)
        self.fail = fail  # 1-based request numbers answered with HTTP 500
        # request number -> misbehaviour: empty, nochoices, garbled, 429:<retry-after>, hang:<s>
        self.script = script or {}
        self.max_rounds = max_rounds  # after this round, every request fails
        self.requests: list[dict[str, Any]] = []


class Handler(ChatHandler):
    server: FakeOpenAI

    def _raw(self, code: int, data: bytes, extra: dict[str, str] | None = None) -> None:
        self.send_response(code)
        for k, v in (extra or {}).items():
            self.send_header(k, v)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self) -> None:  # noqa: N802 - http.server's name
        body = self.read_json()
        with self.server.lock:
            self.server.requests.append(body)
            number = len(self.server.requests)
        if self.path != "/v1/chat/completions":
            self.send_json(404, {"error": {"message": f"no route {self.path}"}})
            return
        act = self.server.script.get(number, "")
        if act.startswith("hang:"):
            time.sleep(float(act[5:]))  # longer than the client waits
        elif act.startswith("429:"):
            data = b'{"error": {"message": "slow down", "type": "rate_limit"}}'
            self._raw(429, data, {"Retry-After": act[4:]})
            return
        elif act == "garbled":
            self._raw(200, b'{"id": "x", "choices": [{"mess')
            return
        elif act in ("empty", "nochoices"):
            choice = {"index": 0, "message": {"role": "assistant", "content": ""}}
            self.send_json(200, {"id": "x", "object": "chat.completion", "created": 0,
                                 "model": body["model"], "choices": [] if act == "nochoices" else [choice]})  # fmt: skip
            return
        messages = body["messages"]
        rnd = sum(m["role"] == "user" for m in messages)
        cap = self.server.max_rounds
        if number in self.server.fail or (cap is not None and rnd > cap):
            self.send_json(500, {"error": {"message": "boom", "type": "server_error"}})
            return
        self.send_reply(body["model"], reply_for_round(rnd), number)


def serve(
    fail: set[int], max_rounds: int | None = None, script: dict[int, str] | None = None
) -> Iterator[FakeOpenAI]:
    with running(FakeOpenAI(fail, max_rounds, script)) as server:
        yield server


@pytest.fixture
def flaky() -> Iterator[FakeOpenAI]:
    yield from serve(fail={2})


@pytest.fixture
def dies_after_round_one() -> Iterator[FakeOpenAI]:
    yield from serve(fail=set(), max_rounds=1)


def closed_port_url() -> str:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    return f"http://127.0.0.1:{port}/v1"


def config(url: str, attempts: int = 4) -> LLMConfig:
    return LLMConfig(url, "test-key", "fake-gpt", timeout=5, max_attempts=attempts, backoff=0.01)


def test_conversation_follows_vinoground_and_survives_a_500(flaky, tmp_path):
    delays: list[float] = []
    res = generate_llm_pairs(25, config(flaky.url), tmp_path / "cache", sleep=delays.append)
    assert len(res.pairs) == 25 and res.error is None
    assert res.rounds == 3 and res.requests == 4 and res.cache_hits == 0
    assert delays == [0.01] and "HTTP 500" in res.log[0]
    reqs = flaky.requests
    assert [len(r["messages"]) for r in reqs] == [2, 4, 4, 6]  # the 2nd request failed
    first = reqs[0]["messages"]
    assert [m["role"] for m in first] == ["system", "user"]
    assert first[1]["content"].endswith(FIRST_REQUEST)
    assert '"a man eats then watches tv" vs "a man watches tv then eats"' in first[1]["content"]
    last = reqs[-1]["messages"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert last[-1]["content"] == NEXT_REQUEST
    assert last[2]["content"] == reply_for_round(1)
    assert all(r["model"] == "fake-gpt" for r in reqs)
    # three layouts were parsed; every pair is a valid temporal swap, labelled and traced
    assert all(v.ok for v in audit_pairs(res.pairs)), [v.messages for v in audit_pairs(res.pairs)]
    assert {p.provenance["round"] for p in res.pairs} == {1, 2, 3}
    assert all(p.source == "llm" and p.major == "action" for p in res.pairs)
    assert len(list((tmp_path / "cache").glob("*.json"))) == 3


def test_rerun_reads_the_cache_and_asks_nothing(flaky, tmp_path):
    cache = tmp_path / "cache"
    first = generate_llm_pairs(20, config(flaky.url), cache, sleep=lambda s: None)
    asked = len(flaky.requests)
    again = generate_llm_pairs(20, config(flaky.url), cache, sleep=lambda s: None)
    assert len(flaky.requests) == asked
    assert (again.requests, again.cache_hits) == (0, 2)
    assert [p.to_json() for p in again.pairs] == [p.to_json() for p in first.pairs]
    # the cache is keyed by (base_url, model, messages): another model asks again
    other = LLMConfig(flaky.url, "k", "other-model", timeout=5, max_attempts=3, backoff=0.01)
    generate_llm_pairs(5, other, cache, sleep=lambda s: None)
    assert len(flaky.requests) == asked + 1 and flaky.requests[-1]["model"] == "other-model"
    entry = json.loads(next(cache.glob("*.json")).read_text())
    assert cache_key(entry["base_url"], entry["model"], entry["messages"]) in {
        p.stem for p in cache.glob("*.json")
    }


def test_pairs_before_a_failure_are_kept(dies_after_round_one, tmp_path):
    res = generate_llm_pairs(30, config(dies_after_round_one.url, attempts=3), tmp_path)
    assert len(res.pairs) == 10 and res.rounds == 1
    assert res.error is not None
    assert dies_after_round_one.url in res.error and "fake-gpt" in res.error
    assert "HTTP 500" in res.error and "gave up after 3 attempts" in res.error
    assert len(dies_after_round_one.requests) == 1 + 3


def test_unreachable_endpoint_is_a_clear_error(tmp_path):
    url = closed_port_url()
    with pytest.raises(LLMError) as info:
        generate_llm_pairs(10, config(url, attempts=2), tmp_path, sleep=lambda s: None)
    msg = str(info.value)
    assert msg.startswith(f"{url} (model fake-gpt): cannot connect")
    assert "gave up after 2 attempts" in msg


def test_a_client_error_is_not_retried(flaky, tmp_path):
    bad = LLMConfig(flaky.url + "/wrong", "k", "m", timeout=5, max_attempts=4, backoff=0.01)
    with pytest.raises(LLMError, match=r"/wrong \(model m\): HTTP 404"):
        generate_llm_pairs(10, bad, None)
    assert len(flaky.requests) == 1


def test_config_from_arguments_or_environment(monkeypatch):
    for var in (ENV_BASE_URL, ENV_API_KEY, ENV_MODEL):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(LLMError, match=ENV_MODEL):
        resolve_config()
    with pytest.raises(LLMError, match=ENV_API_KEY):
        resolve_config(model="gpt-4")
    monkeypatch.setenv(ENV_BASE_URL, "http://localhost:8000/v1/")
    monkeypatch.setenv(ENV_MODEL, "llama")
    cfg = resolve_config(max_attempts=2)
    assert (cfg.base_url, cfg.api_key, cfg.model, cfg.max_attempts) == (
        "http://localhost:8000/v1",
        "unused",
        "llama",
        2,
    )
    assert resolve_config(model="x", api_key="k").model == "x"


@pytest.mark.parametrize(
    "text",
    [
        '1. "a man eats then watches TV" vs "a man watches TV then eats"',
        "2) a man eats then watches TV -> a man watches TV then eats.",
        "- **a man eats then watches TV** vs. **a man watches TV then eats**",
        "\u201ca man eats then watches TV\u201d / \u201ca man watches TV then eats\u201d",
        "1. a man eats then watches TV\n   a man watches TV then eats",
        "1a. Positive: a man eats then watches TV\n1b. Negative: a man watches TV then eats",
        "Pair 1:\nCaption 1: a man eats then watches TV\nCaption 2: a man watches TV then eats",
        "| # | pos | neg |\n|---|---|---|\n| 1 | a man eats then watches TV | a man watches TV then eats |",
        '```json\n[{"pos": "a man eats then watches TV", "neg": "a man watches TV then eats"}]\n```',
    ],
)
def test_parse_pairs_layouts(text):
    assert parse_pairs(f"Here you go:\n\n{text}\n\nWant more?") == [
        ("a man eats then watches TV", "a man watches TV then eats")
    ]


def test_parse_pairs_skips_chatter_and_repeats():
    text = (
        "Here are some ideas for you\n"
        "1. a girl sings then dances\n"
        "2. a dog barks then sits\n"  # two unrelated single lines are not a pair
        '3. "a boy runs then jumps" vs "a boy jumps then runs"\n'
        '4. "a boy jumps then runs" vs "a boy runs then jumps"\n'  # the same pair reversed
        "I hope these help with your benchmark!"
    )
    assert parse_pairs(text) == [("a boy runs then jumps", "a boy jumps then runs")]


# misbehaving servers (issue 13 item 3) -------------------------------------------------------


@pytest.fixture
def misbehaving() -> Iterator[FakeOpenAI]:
    yield from serve(
        fail=set(), script={1: "empty", 2: "garbled", 3: "nochoices", 4: "429:1.5", 5: "hang:3"}
    )


def test_malformed_replies_rate_limits_and_hangs_are_retried(misbehaving, tmp_path):
    delays: list[float] = []
    cfg = LLMConfig(misbehaving.url, "k", "fake-gpt", timeout=0.5, max_attempts=6, backoff=0.01)
    start = time.monotonic()
    res = generate_llm_pairs(10, cfg, tmp_path / "cache", sleep=delays.append)
    assert time.monotonic() - start < 8  # the hang cost one 0.5 s timeout, not minutes
    assert len(res.pairs) == 10 and res.error is None and res.requests == 6
    log = "\n".join(res.log)
    for what in ("empty reply", "malformed reply", "no choices", "HTTP 429", "timed out"):
        assert what in log, (what, log)
    assert delays[3] == 1.5 and "Retry-After 1.5s" in res.log[3]  # honoured, not 0.08 s
    assert len(list((tmp_path / "cache").glob("*.json"))) == 1  # the good reply is cached


def _cli(*args: str) -> Any:
    return run_cli("captions", "generate", "--source", "llm", *args, timeout=120)


def test_a_partial_result_is_kept_and_exits_non_zero_with_counts(dies_after_round_one, tmp_path):
    out = tmp_path / "pairs.jsonl"
    proc = _cli("-n", "30", "--base-url", dies_after_round_one.url, "--model", "fake-gpt",
                "--max-attempts", "2", "--timeout", "5", "--out", str(out))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "got 10 of 30 caption pairs" in proc.stderr and "a rerun resumes" in proc.stderr
    assert len(out.read_text().splitlines()) == 10
    assert len(list((tmp_path / ".llm-cache").glob("*.json"))) == 1


def test_llm_settings_from_yaml_name_file_line_and_field(flaky, tmp_path):
    from tempogen.retrieval.llm import load_llm_options

    good = tmp_path / "llm.yaml"
    good.write_text(f"base_url: {flaky.url}\nmodel: fake-gpt\ntimeout: 2.5\nmax_attempts: 3\n")
    assert load_llm_options(good) == {
        "base_url": flaky.url, "model": "fake-gpt", "timeout": 2.5, "max_attempts": 3,
    }  # fmt: skip
    out = tmp_path / "p.jsonl"
    proc = _cli("-n", "5", "--llm-config", str(good), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert len(out.read_text().splitlines()) == 5
    bad = tmp_path / "bad.yaml"
    bad.write_text("model: m\ntimeout: soon\n")
    with pytest.raises(LLMError, match=rf"{bad}:2: timeout: expected float"):
        load_llm_options(bad)
    bad.write_text("model: m\nretries: 3\n")
    with pytest.raises(LLMError, match=rf"{bad}:2: retries: unknown setting"):
        load_llm_options(bad)


# deadlines and bounds (issue 25) -------------------------------------------------------------


def _cli_timed(limit_s: float, *args: str) -> Any:
    """The command, or a test failure naming how long it ran past ``limit_s``."""
    import subprocess

    try:
        return run_cli("captions", "generate", "--source", "llm", *args, timeout=limit_s)
    except subprocess.TimeoutExpired:
        pytest.fail(f"still running after {limit_s} s: a wait without bound")


def test_a_dripping_server_is_cut_at_the_whole_request_deadline(tmp_path):
    """One byte every 0.2 s keeps every socket read under the timeout; a 1 s deadline for the
    whole request still ends each attempt, and two attempts end the run with a clear error."""
    from openai_server import ScriptedServer

    server = ScriptedServer({1: "drip:0.2", 2: "drip:0.2"}, reply_for_round(1))
    with running(server, limit_s=120):
        proc = _cli_timed(40, "-n", "5", "--base-url", server.url, "--model", "m",
                          "--timeout", "1", "--max-attempts", "2",
                          "--out", str(tmp_path / "p.jsonl"))  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert "timed out: no complete reply within the 1 s deadline" in proc.stderr
    assert "gave up after 2 attempts" in proc.stderr
    assert server.requests == 2 and not (tmp_path / "p.jsonl").exists()


def test_retry_after_is_capped_and_announced_with_the_wait(tmp_path):
    """Retry-After: 120 is waited for max_backoff (0.5 s here) at most, and stderr says so:
    the wait, what the server asked, the cap and the attempt that comes next."""
    from openai_server import ScriptedServer

    server = ScriptedServer({1: "retry-after:120"}, reply_for_round(1))
    settings = tmp_path / "llm.yaml"
    with running(server, limit_s=120):
        settings.write_text(f"base_url: {server.url}\nmodel: m\nmax_backoff: 0.5\n")
        proc = _cli_timed(40, "-n", "5", "--llm-config", str(settings),
                          "--out", str(tmp_path / "p.jsonl"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert (
        f"tempogen: {server.url} (model m): HTTP 429: Error code: 429 - slow down; waiting 0.5 s "
        "(Retry-After 120s, capped at max_backoff 0.5s) before attempt 2 of 5"
    ) in proc.stderr, proc.stderr
    assert server.requests == 2
    assert len((tmp_path / "p.jsonl").read_text().splitlines()) == 5


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--max-attempts", "0"], "--max-attempts"),
        (["--max-attempts", "-3"], "--max-attempts"),
        (["--max-attempts", "51"], "--max-attempts"),
        (["--timeout", "0"], "--timeout"),
        (["--timeout", "nan"], "--timeout"),
        (["--timeout", "1e9"], "--timeout"),
        (["-n", "100000"], "-n"),
        (["-n", "-5"], "-n"),
    ],
)
def test_costly_llm_options_are_bounded_up_front(args, flag, tmp_path):
    url = closed_port_url()
    proc = _cli_timed(60, "--base-url", url, "--model", "m", "--out", str(tmp_path / "p.jsonl"),
                      *args)  # fmt: skip
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"argument {flag}: must be " in proc.stderr, proc.stderr
    assert not (tmp_path / "p.jsonl").exists()


def test_a_damaged_cache_entry_is_reported_and_asked_again(flaky, tmp_path):
    import subprocess
    import sys

    cache, out = tmp_path / "cache", tmp_path / "p.jsonl"
    cmd = [sys.executable, "-m", "tempogen.cli", "captions", "generate", "--source", "llm",
           "-n", "5", "--base-url", flaky.url, "--model", "fake-gpt", "--cache-dir", str(cache),
           "--out", str(out)]  # fmt: skip
    assert subprocess.run(cmd, capture_output=True, timeout=60).returncode == 0
    (entry,) = cache.glob("*.json")
    entry.write_bytes(b'{"response": "half')
    asked = len(flaky.requests)
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert f"{entry}: damaged cache entry (not JSON" in proc.stderr
    assert len(flaky.requests) > asked and json.loads(entry.read_text())["response"]


def test_llm_config_refuses_zero_attempts_in_the_library_too():
    from tempogen.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="max_attempts: must be within 1..50, got 0"):
        LLMConfig("http://127.0.0.1:9/v1", "k", "m", max_attempts=0)

"""Every code block in README.md and docs/ runs (docs/contributing.md's contract), one test per
page in its own sandbox; and the runner itself refuses what the contract refuses."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from docblocks import (
    Block,
    BlockError,
    copy_template,
    doc_pages,
    link_venv,
    needs_sandbox,
    parse_blocks,
    run_blocks,
    run_page,
    sandbox_env,
)
from kit import REPO

# A page whose blocks are known to break the contract today, and why: each is an expected
# failure, strict (once the page is fixed the test fails until its line here is removed).
STALE: dict[str, str] = {}


def page_params(shard: int, shards: int) -> list[Any]:
    """Every ``shards``-th page from ``shard`` as a test parameter: marked slow when it runs
    code (it waits for the tiny build), an expected failure when :data:`STALE` lists it. The
    pages are cut in two files' shares so that make test's two workers run them side by side
    (this file and test_code_blocks_more.py)."""
    params = []
    for page in doc_pages()[shard::shards]:
        marks = []
        try:
            if needs_sandbox(parse_blocks((REPO / page).read_text(encoding="utf-8"), page)):
                marks.append(pytest.mark.slow)
        except BlockError:
            pass  # the test itself names what is wrong
        if page in STALE:
            marks.append(pytest.mark.xfail(reason=STALE[page], strict=True))
        params.append(pytest.param(page, id=page, marks=marks))
    return params


def check_page(page: str, request: Any, tmp_path: Path) -> None:
    """The page's blocks in page order, in its own sandbox; the first that breaks the contract
    or fails fails the test, naming its page and line. Blocks not run are listed at the end."""
    text = (REPO / page).read_text(encoding="utf-8")
    try:
        done = run_page(page, text, tmp_path, lambda: request.getfixturevalue("docs_template"))
    except BlockError as exc:
        failure = str(exc)
    else:
        failure = ""
    if failure:
        pytest.fail(failure, pytrace=False)
    for block, what in done:
        if what.startswith("not run"):
            request.node.user_properties.append(("not run", f"{block.where}: {block.not_run}"))


@pytest.mark.parametrize("page", page_params(0, 2))
def test_page_code_blocks_run(page: str, request, tmp_path: Path) -> None:
    """Half the pages (the other half: test_code_blocks_more.py)."""
    check_page(page, request, tmp_path)


# -- the runner itself: synthetic pages through the same functions ------------------------------


@pytest.fixture
def bare_template(tmp_path: Path) -> Path:
    """A template with no dataset: a sandbox holding only the linked environment, and a HOME."""
    root = tmp_path / "template"
    (root / "sandbox").mkdir(parents=True)
    (root / "home").mkdir()
    link_venv(root / "sandbox" / ".venv")
    return root


def _fails(text: str, tmp_path: Path, template: Path | None = None) -> str:
    """The message a synthetic page ``page.md`` fails with (it must fail)."""
    work = tmp_path / "work"
    work.mkdir()
    with pytest.raises(BlockError) as info:
        run_page("page.md", text, work, lambda: template or pytest.fail("needs no sandbox"))
    return str(info.value)


def _runs(text: str, tmp_path: Path, template: Path) -> tuple[list[tuple[Block, str]], Path]:
    """What happened to each block of a synthetic page that passes, and its sandbox."""
    work = tmp_path / "work"
    work.mkdir()
    return run_page("page.md", text, work, lambda: template), work / "sandbox"


def test_fences_are_parsed_with_page_line_language_and_comments() -> None:
    text = (
        "# t\n"  # 1
        '```sh title="a"\n'  # 2
        "echo one\n"
        "```\n"
        "<!-- file: c.yaml -->\n"  # 5
        "~~~yaml\n"  # 6
        "a: 1\n"
        "~~~\n"
        "1. a list item\n"  # 9
        "\n"
        "    ```python\n"  # 11
        "    print(1)\n"
        "        x = 2\n"
        "    ```\n"
        "<!-- not run: needs a GPU -->\n"  # 15
        "````text\n"  # 16
        "```sh\n"
        "inside\n"
        "```\n"
        "````\n"
        "```{.json}\n"  # 21
        "{}\n"
        "```\n"
        "inline ```not a fence``` here\n"
        "```inline``` code at the start of a line\n"
        "```\n"  # 25
        "```\n"
    )
    blocks = parse_blocks(text, "p.md")
    got = [(b.line, b.lang, b.code, b.file, b.not_run) for b in blocks]
    assert got == [
        (2, "sh", "echo one\n", None, None),
        (6, "yaml", "a: 1\n", "c.yaml", None),
        (11, "python", "print(1)\n    x = 2\n", None, None),
        (16, "text", "```sh\ninside\n```\n", None, "needs a GPU"),
        (21, "json", "{}\n", None, None),
        (26, "", "", None, None),
    ]
    assert blocks[0].where == "p.md:2"


def test_an_unclosed_fence_fails_naming_its_line(tmp_path: Path) -> None:
    assert _fails("a\n\n```sh\necho hi\n", tmp_path).startswith("page.md:3: the fence ``` is")


@pytest.mark.parametrize(
    "text",
    ["<!-- not run: a GPU -->\n\n```sh\nexit 1\n```\n", "<!-- file: c.yaml -->\ntext\n",
     "<!-- file: c.yaml -->\n"],
    ids=["blank-line-between", "before-prose", "at-the-end"],
)  # fmt: skip
def test_a_comment_away_from_its_fence_fails(text: str, tmp_path: Path) -> None:
    assert _fails(text, tmp_path).startswith("page.md:1: <!-- ")


def test_a_failing_sh_block_fails_naming_page_line_code_and_output(
    tmp_path: Path, bare_template: Path
) -> None:
    page = (
        "```sh\necho first > first.txt\n```\n\ntext\n\n"
        "```sh\necho to-stdout\necho to-stderr >&2\nexit 3\n```\n"
        "```sh\necho never > never.txt\n```\n"
    )
    msg = _fails(page, tmp_path, bare_template)
    assert msg.startswith("page.md:7: ```sh block exited 3\n")
    assert "echo to-stderr >&2\nexit 3\n" in msg  # the block
    assert "--- stdout (tail) ---\nto-stdout" in msg and "--- stderr (tail) ---\nto-stderr" in msg
    sandbox = tmp_path / "work" / "sandbox"
    assert (sandbox / "first.txt").exists()  # in page order: the block before it ran
    assert not (sandbox / "never.txt").exists()  # and nothing after it


@pytest.mark.parametrize(
    "code", ["false | cat\n", "echo $UNSET_VARIABLE\n", "false\necho after\n"], ids=str.strip
)
def test_sh_runs_with_errexit_nounset_and_pipefail(
    code: str, tmp_path: Path, bare_template: Path
) -> None:
    assert "page.md:1: ```sh block exited" in _fails(f"```sh\n{code}```\n", tmp_path, bare_template)


def test_a_failing_python_block_fails_with_its_traceback(
    tmp_path: Path, bare_template: Path
) -> None:
    msg = _fails("t\n```python\nx = 1\n1 / 0\n```\n", tmp_path, bare_template)
    assert msg.startswith("page.md:2: ```python block exited 1\n")
    assert 'File "<string>", line 4, in <module>' in msg  # the page's line number
    assert "ZeroDivisionError" in msg


def test_a_failing_sh_command_is_reported_at_its_page_line(
    tmp_path: Path, bare_template: Path
) -> None:
    msg = _fails("t\n\n```sh\ntrue\nno-such-command-here\n```\n", tmp_path, bare_template)
    assert msg.startswith("page.md:3: ```sh block exited 127\n")
    assert "line 5: no-such-command-here: command not found" in msg


def test_a_block_past_its_timeout_fails_and_what_it_started_is_killed(
    tmp_path: Path, bare_template: Path
) -> None:
    work = tmp_path / "work"
    sandbox, home = copy_template(bare_template, work)
    block = parse_blocks("```sh\nsleep 60 &\necho $! > child.pid\nwait\n```\n", "page.md")[0]
    with pytest.raises(BlockError, match=r"^page\.md:1: ```sh block timed out after 1 s"):
        run_blocks([block], sandbox, sandbox_env(sandbox, home, "http://127.0.0.1:9/v1"), 1.0)
    status = Path(f"/proc/{int((sandbox / 'child.pid').read_text())}/status")
    for _ in range(100):  # SIGKILL is sent; the kernel ends it a moment later
        # gone, or a zombie its new parent has yet to reap
        if not status.exists() or "\nState:\tZ" in status.read_text():
            break
        time.sleep(0.05)
    else:
        pytest.fail("the block's background child outlived it")


@pytest.mark.parametrize("fence", ["```bash", "```console", "```shell", "```Python", "```"])
def test_a_fence_outside_the_contract_fails(fence: str, tmp_path: Path) -> None:
    msg = _fails(f"x\n\n{fence}\necho hi\n```\n", tmp_path)
    assert msg.startswith("page.md:3: ") and "is not in the contract" in msg


def test_every_broken_block_is_named_at_once(tmp_path: Path) -> None:
    msg = _fails("```bash\nls\n```\n<!-- not run: -->\n```sh\nls\n```\n", tmp_path)
    assert "page.md:1: ```bash" in msg and "page.md:5: <!-- not run --> needs a reason" in msg


@pytest.mark.parametrize(
    "comment", ["<!-- not run: -->", "<!-- not run:   -->", "<!-- not run -->"]
)
def test_not_run_without_a_reason_fails(comment: str, tmp_path: Path) -> None:
    msg = _fails(f"{comment}\n```sh\nexit 1\n```\n", tmp_path)
    assert msg.startswith("page.md:2: <!-- not run --> needs a reason")


def test_not_run_with_a_reason_skips_the_block_and_is_listed(
    tmp_path: Path, bare_template: Path
) -> None:
    page = "<!-- not run: a cluster's second node -->\n```sh\nexit 1\n```\n```sh\ntrue\n```\n"
    done, _ = _runs(page, tmp_path, bare_template)
    assert [what for _, what in done] == ["not run: a cluster's second node", "ran"]


@pytest.mark.parametrize(
    ("lang", "body"),
    [
        ("yaml", "a: [1, 2\n"),
        ("yaml", "a: 1\n a: 2\n"),
        ("json", '{"a": 1,}\n'),
        ("jsonl", '{"a": 1}\n{"a": \n'),
        ("csv", 'id,task\n1,"count\n'),
        ("csv", "id,task\n1,count,extra\n"),
        ("toml", "a = \n"),
    ],
)
def test_a_malformed_data_block_fails(lang: str, body: str, tmp_path: Path) -> None:
    msg = _fails(f"t\n```{lang}\n{body}```\n", tmp_path)
    assert msg.startswith(f"page.md:2: malformed ```{lang}: ")


def test_well_formed_data_blocks_are_parsed_without_a_sandbox(tmp_path: Path) -> None:
    page = "".join(
        f"```{lang}\n{body}```\n"
        for lang, body in [
            ("yaml", "a: [1, 2]\n"), ("json", '{"a": 1}\n'), ("jsonl", '{"a": 1}\n\n{"b": 2}\n'),
            ("csv", "id,task\n1,count\n"), ("toml", "a = 1\n"),
        ]
    )  # fmt: skip
    done = run_page("page.md", page, tmp_path, lambda: pytest.fail("needs no sandbox"))
    assert [what for _, what in done] == ["parsed"] * 5


@pytest.mark.parametrize("name", ["../x.yaml", "/tmp/x.yaml", "a/../../x.yaml", ".", "sub/.."])
def test_a_file_block_outside_the_sandbox_fails(
    name: str, tmp_path: Path, bare_template: Path
) -> None:
    msg = _fails(f"t\n<!-- file: {name} -->\n```yaml\na: 1\n```\n", tmp_path, bare_template)
    assert msg.startswith(f"page.md:3: <!-- file: {name} --> is outside the sandbox")
    assert not (tmp_path / "work" / "x.yaml").exists()


@pytest.mark.parametrize(
    ("page", "problem"),
    [
        ("<!-- file: run.sh -->\n```sh\necho\n```\n", "is for yaml"),
        ("<!-- file: out.txt -->\n```text\nhello\n```\n", "is for yaml"),
        ("<!-- file: -->\n```yaml\na: 1\n```\n", "needs a name"),
    ],
)
def test_a_file_comment_needs_a_name_and_a_data_or_python_block(
    page: str, problem: str, tmp_path: Path
) -> None:
    msg = _fails(page, tmp_path)
    assert msg.startswith("page.md:2: <!-- file:") and problem in msg


def test_files_are_written_in_page_order_and_python_runs_in_the_sandbox(
    tmp_path: Path, bare_template: Path
) -> None:
    page = (
        "```sh\ntest ! -e conf/c.yaml\n```\n"
        "<!-- file: conf/c.yaml -->\n```yaml\nsize: [320, 180]  # not parsed: any text\n```\n"
        "<!-- file: my_plugin.py -->\n```python\nVALUE = 42\n```\n"
        "```sh\ngrep -q 'size: \\[320, 180\\]' conf/c.yaml\n```\n"
        "```python\nimport os, sys\nimport my_plugin, tempogen\nopen('py.txt', 'w').write(\n"
        "    f'{my_plugin.VALUE} {sys.prefix} {tempogen.__file__} {os.environ[\"HOME\"]}')\n```\n"
        "```text\n$ touch shown.txt\n```\n"
    )
    done, sandbox = _runs(page, tmp_path, bare_template)
    assert [what for _, what in done] == [
        "ran", "written: conf/c.yaml", "written: my_plugin.py", "ran", "ran", "shown"
    ]  # fmt: skip
    value, prefix, package, home = (sandbox / "py.txt").read_text().split()
    assert value == "42"  # imported from the sandbox, the working folder
    assert Path(prefix) == sandbox / ".venv"  # the sandbox's environment: the project's
    assert (sandbox / ".venv" / "lib").is_symlink()  # linked, not copied
    assert Path(package).is_relative_to(REPO)
    assert Path(home) == tmp_path / "work" / "home"
    assert not (sandbox / "shown.txt").exists()  # a text block is never run


def test_the_endpoint_answers_an_option_letter_in_the_sandbox(
    tmp_path: Path, bare_template: Path
) -> None:
    """``$TEMPOGEN_TEST_ENDPOINT`` is an OpenAI-compatible chat endpoint; no other network."""
    script = (
        "import json, os, urllib.request\n"
        "url = os.environ['TEMPOGEN_TEST_ENDPOINT'] + '/chat/completions'\n"
        "text = 'Which way?\\nA. Left.\\nB. Right.\\nAnswer with the letter.'\n"
        "body = {'model': 'm', 'messages': [{'role': 'user', 'content': [\n"
        "    {'type': 'text', 'text': text}]}]}\n"
        "req = urllib.request.Request(url, json.dumps(body).encode(),\n"
        "                             {'Content-Type': 'application/json'})\n"
        "reply = json.load(urllib.request.urlopen(req, timeout=10))\n"
        "open('reply.txt', 'w').write(reply['choices'][0]['message']['content'])\n"
        "try:\n"
        "    urllib.request.urlopen('http://example.com/', timeout=10)\n"
        "except OSError:\n"
        "    open('offline.txt', 'w').write('no network')\n"
    )
    _, sandbox = _runs(f"```python\n{script}```\n", tmp_path, bare_template)
    assert (sandbox / "reply.txt").read_text() == "A"
    assert (sandbox / "offline.txt").read_text() == "no network"


SANDBOX_PAGE = """\
The sandbox a page runs in, as the contract (docs/contributing.md) describes it:

```sh
make -q setup    # the linked environment counts as installed: make installs nothing
make dataset     # resumes the tiny build at once
ls configs/tiny.yaml examples/freeze.py assets/smpl_mannequin.pkl Makefile
ls dataset/tomato dataset/vinoground dataset/videott dataset/hf dataset/lmms_eval \\
  dataset/retrieval/candidates.jsonl dataset/index.html dataset/report.html
tempogen validate dataset
tempogen eval run --dataset dataset --endpoint "$TEMPOGEN_TEST_ENDPOINT" --model docs \\
  --set tomato --settings uniform16 --out run -q
```

```python
import json
import yaml

tiny = yaml.safe_load(open("configs/default.yaml"))
assert tiny["size"] == [320, 180] and tiny["samples_per_task"] == 2, tiny
rows = [json.loads(line) for line in open("dataset/manifest.jsonl")]
assert any("~" in r["id"] for r in rows) and any(r["id"].endswith("-twin") for r in rows)
run = json.load(open("run/scores.json"))["tomato"]["models"]["docs"]["runs"]["uniform16"]
assert run["total"] == len(rows) and run["unparsable"] == 0, run
```
"""


@pytest.mark.slow
def test_a_page_runs_against_the_tiny_build_and_the_endpoint(request, tmp_path: Path) -> None:
    """The real template: ``make dataset`` built it and resumes it, every export is there, and
    ``tempogen eval run`` scores the endpoint's answers with none unparsable."""
    done = run_page("sandbox.md", SANDBOX_PAGE, tmp_path,
                    lambda: request.getfixturevalue("docs_template"))  # fmt: skip
    assert [what for _, what in done] == ["ran", "ran"]


def test_a_snippet_include_runs_the_file_and_a_missing_one_fails(tmp_path: Path) -> None:
    """``--8<-- "examples/x.py"`` in a block is the file's text, as on the site; a path that
    is missing, or outside the repository, is an error naming the page and line."""
    (block,) = parse_blocks('```python\n--8<-- "examples/freeze.py"\n```\n', "p.md")
    assert block.code == (REPO / "examples" / "freeze.py").read_text(encoding="utf-8")
    for bad in ("examples/nowhere.py", "../etc/passwd"):
        with pytest.raises(BlockError, match=rf"p\.md:2: --8<-- '{re.escape(bad)}': no such"):
            parse_blocks(f'```python\n--8<-- "{bad}"\n```\n', "p.md")

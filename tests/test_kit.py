"""The test kit's forked CLI runner answers as a fresh ``python -m tempogen.cli`` does."""

from __future__ import annotations

import logging
import os
import warnings

import kit


def test_a_forked_run_answers_as_a_fresh_process_does(tmp_path) -> None:
    for args in (["--help"], ["no-such-command"], ["validate", str(tmp_path / "nope")]):
        fresh, forked = kit.run_cli(*args), kit.run_cli(*args, fork=True)
        assert (forked.returncode, forked.stdout, forked.stderr) == (
            fresh.returncode, fresh.stdout, fresh.stderr,
        ), args  # fmt: skip


def test_a_forked_child_prints_warnings_and_log_records_as_a_fresh_interpreter(capfd) -> None:
    """pytest records warnings and captures log records; a forked child undoes both, so what
    a command warns or logs reaches its stderr, where the tests read it."""
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        try:
            kit._as_a_fresh_interpreter()
            warnings.warn("a warning from the child", UserWarning, stacklevel=1)
            logging.getLogger("tempogen.kit-test").warning("a log record from the child")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    err = capfd.readouterr().err
    assert "UserWarning: a warning from the child" in err
    assert "a log record from the child" in err

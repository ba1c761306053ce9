"""The other half of the pages whose code blocks run (tests/docs/test_code_blocks.py holds the
first half and the runner's own tests): a file of its own so that make test's two pytest-xdist
workers (--dist loadfile) run the pages side by side."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_code_blocks import check_page, page_params


@pytest.mark.parametrize("page", page_params(1, 2))
def test_page_code_blocks_run_more(page: str, request, tmp_path: Path) -> None:
    check_page(page, request, tmp_path)

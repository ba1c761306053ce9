"""Benches cannot rot: the build benches (generate, ray, remote) and retrieval at their quick
size; apart from tests/bench/test_quick.py so that two pytest-xdist workers share them out."""

from __future__ import annotations

import pytest
from quick_bench import SECOND_FILE, run_quick

# the ray bench starts a Ray cluster: not while tests/test_ray*.py run one on the other worker
pytestmark = pytest.mark.usefixtures("one_ray_cluster")


@pytest.mark.slow
@pytest.mark.parametrize("name", SECOND_FILE)
def test_make_bench_quick_runs_every_bench(name: str, tmp_path) -> None:
    run_quick(name, tmp_path)

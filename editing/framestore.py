"""Source frames an out-of-order time map (a reverse) must hold: in one preallocated arena up
to ``MEMORY_BUDGET``, beyond it in a temporary file."""

from __future__ import annotations

import math
import tempfile

import numpy as np

# Distinct source frames a non-sequential time map may hold in memory before spilling to a
# temporary file on disk (reverse of a long clip).
MEMORY_BUDGET = 512 * 1024 * 1024


class FrameStore:
    """Source frames kept for an out-of-order time map: in memory up to the budget, else
    in a temporary raw file, so reversing a long clip costs disk, not memory.

    A frame is a tuple of arrays of fixed ``shapes`` (one RGB array, or three I420 planes).
    In memory, all frames live in one arena allocated up front (touched only as it fills);
    on disk, each frame is one contiguous record, read back into one reused buffer.
    """

    def __init__(self, shapes: list[tuple[int, ...]], count: int) -> None:
        self.shapes = [tuple(s) for s in shapes]
        self.sizes = [math.prod(s) for s in self.shapes]
        self.nbytes = sum(self.sizes)
        self.slot: dict[int, int] = {}
        self.in_memory = count * self.nbytes <= MEMORY_BUDGET
        self.file = None if self.in_memory else tempfile.TemporaryFile(prefix="tempogen-")
        self.data = np.empty((count if self.in_memory else 1, self.nbytes), np.uint8)
        self.bytes_spilled = 0

    def _views(self, row: np.ndarray) -> tuple[np.ndarray, ...]:
        out, at = [], 0
        for shape, size in zip(self.shapes, self.sizes, strict=True):
            out.append(row[at : at + size].reshape(shape))
            at += size
        return tuple(out)

    def put(self, i: int, parts: tuple[np.ndarray, ...]) -> None:
        k = len(self.slot)
        self.slot[i] = k
        if self.in_memory:
            for dst, src in zip(self._views(self.data[k]), parts, strict=True):
                np.copyto(dst, src)
            return
        assert self.file is not None
        for src in parts:
            self.file.write(np.ascontiguousarray(src).data.cast("B"))
        self.bytes_spilled += self.nbytes

    def get(self, i: int) -> tuple[np.ndarray, ...]:
        k = self.slot[i]
        if self.in_memory:
            return self._views(self.data[k])
        assert self.file is not None
        self.file.seek(k * self.nbytes)
        self.file.readinto(memoryview(self.data[0]))
        return self._views(self.data[0])

    def close(self) -> None:
        if self.file is not None:
            self.file.close()

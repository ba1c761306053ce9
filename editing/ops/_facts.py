"""The built-in facts, for ops that declare one effect for several of them."""

BUILTIN = (
    "direction",
    "rotation",
    "speed",
    "frequency",
    "count",
    "order",
    "trajectory",
    "approach",
)

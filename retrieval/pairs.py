"""A temporal counterfactual caption pair and its Vinoground categories: the record every caption
source (offline, LLM, files) produces and the audit reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    pass


MAJORS: tuple[str, ...] = ("object", "action", "viewpoint")
MINORS: tuple[str, ...] = ("interaction", "cyclical", "spatial", "contextual")


@dataclass(frozen=True)
class CaptionPair:
    """One counterfactual pair with Vinoground's labels; ``major`` is "" when unlabelled."""

    pos: str
    neg: str
    major: str = ""
    minor: tuple[str, ...] = ()
    source: str = ""
    provenance: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    def __post_init__(self) -> None:
        if self.major and self.major not in MAJORS:
            raise ValueError(f"major {self.major!r} is not one of {', '.join(MAJORS)}")
        bad = [m for m in self.minor if m not in MINORS]
        if bad:
            raise ValueError(f"minor {', '.join(map(repr, bad))} not among {', '.join(MINORS)}")
        object.__setattr__(self, "minor", tuple(self.minor))

    def to_json(self) -> dict[str, Any]:
        return {
            "pos": self.pos,
            "neg": self.neg,
            "major": self.major,
            "minor": list(self.minor),
            "source": self.source,
            "provenance": dict(self.provenance),
        }

    @classmethod
    def from_json(cls, row: dict[str, Any]) -> CaptionPair:
        """Build from a JSON object; ``minor`` may be a list or a ';'-separated string."""
        for key in ("pos", "neg"):
            if not isinstance(row.get(key), str) or not row[key].strip():
                raise ValueError(f"{key!r} must be a non-empty string")
        prov = row.get("provenance") or {}
        if not isinstance(prov, dict):
            raise ValueError("'provenance' must be an object")
        return cls(
            pos=row["pos"].strip(),
            neg=row["neg"].strip(),
            major=_major(row.get("major")),
            minor=_minor(row.get("minor")),
            source=str(row.get("source") or ""),
            provenance=prov,
        )


def _major(value: Any) -> str:
    if value is None:
        return ""
    if not isinstance(value, str):
        raise ValueError(f"'major' must be a string, got {type(value).__name__}")
    value = value.strip().lower()
    if value and value not in MAJORS:
        raise ValueError(f"major {value!r} is not one of {', '.join(MAJORS)}")
    return value


def _minor(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        items = value.split(";")
    elif isinstance(value, list | tuple):
        items = list(value)
    else:
        raise ValueError(f"'minor' must be a list or a ';'-separated string, not {value!r}")
    out: list[str] = []
    for item in items:
        if not isinstance(item, str):
            raise ValueError(f"'minor' entries must be strings, got {item!r}")
        item = item.strip().lower()
        if not item:
            continue
        if item not in MINORS:
            raise ValueError(f"minor {item!r} is not one of {', '.join(MINORS)}")
        if item not in out:
            out.append(item)
    return tuple(out)


# --------------------------------------------------------------------------- offline

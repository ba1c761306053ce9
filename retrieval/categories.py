"""Keyword rules that suggest a caption pair's Vinoground major and minor categories."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tempogen.retrieval.events import TRANSFORM_CONNECTIVES, Events, parse_events, words
from tempogen.retrieval.pairs import MINORS

if TYPE_CHECKING:
    pass


_VIEWPOINT = frozenset(
    "camera cameras zooms zoom zooming panning dolly viewpoint perspective footage".split()
)
# camera words that also name what people do ("tilts his head", "cuts the apple")
_VIEWPOINT_WEAK = frozenset("pans pan tilts tilt tilting lens shot close angle cuts".split())
_AGENTS = frozenset(
    "man woman men women boy boys girl girls person people child children kid kids baby "
    "guy lady chef cook player players teenager teen athlete dancer singer worker student "
    "teacher doctor calligrapher painter artist biker cyclist rider skier surfer skater "
    "driver runner swimmer climber musician mother father mom dad he she they someone "
    "dog cat horse bird puppy kitten monkey".split()
)
_DIRECTIONS = frozenset(
    "left right toward towards away across forward forwards backward backwards upward "
    "upwards downward downwards clockwise counterclockwise anticlockwise above below "
    "behind top bottom".split()
)
_SCENERY = frozenset(
    "street streets stairs staircase tunnel bridge forest road background scenery scene "
    "sky city field beach mountain mountains river hallway corridor highway trail park "
    "landscape town village".split()
)
_INVERSES: tuple[tuple[str, str], ...] = (
    ("opens", "closes"),
    ("open", "close"),
    ("on", "off"),
    ("up", "down"),
    ("in", "out"),
    ("inflates", "deflates"),
    ("throws", "catches"),
    ("sits", "stands"),
    ("inhales", "exhales"),
    ("fills", "empties"),
    ("writes", "dips"),
    ("picks", "puts"),
    ("washes", "dries"),
    ("pushes", "pulls"),
    ("starts", "stops"),
    ("enters", "exits"),
    ("enters", "leaves"),
    ("raises", "lowers"),
    ("lifts", "drops"),
    ("ties", "unties"),
    ("locks", "unlocks"),
    ("wraps", "unwraps"),
    ("plugs", "unplugs"),
    ("rises", "falls"),
    ("climbs", "descends"),
    ("appears", "disappears"),
    ("wakes", "sleeps"),
)


def suggest_categories(pos: str, neg: str = "") -> tuple[str, tuple[str, ...]]:
    """Suggest Vinoground's major and minor categories from keyword rules.

    Major: ``viewpoint`` when a camera word appears (camera, zooms, ...; pans, tilts, cuts
    only when no agent is named);
    ``object`` when a state-change connective joins the events ("turning into", ...) or no
    agent (person, animal, subject pronoun) is named; ``action`` otherwise.
    Minors, not for viewpoint: ``spatial`` for a direction word (left, toward, across, ...)
    or an agent moving "from A to B"; ``interaction`` for an agent acting on an object
    referred back to ("it", "them"); ``cyclical`` when one event holds a word and the other
    its inverse (opens/closes, up/down, throws/catches, ...); ``contextual`` for an agent
    moving through scenery (street, stairs, tunnel, ...).
    """
    toks = words(pos) + words(neg)
    ts = set(toks)
    parsed = parse_events(pos)
    events = parsed.events if isinstance(parsed, Events) else ()
    conn = parsed.connective if isinstance(parsed, Events) else ""
    agent = bool(ts & _AGENTS)
    if ts & _VIEWPOINT or (ts & _VIEWPOINT_WEAK and not agent):
        return "viewpoint", ()
    transform = tuple(conn.split()) in TRANSFORM_CONNECTIVES
    major = "object" if transform or not agent else "action"
    minor: list[str] = []
    if ts & {"it", "them"} and agent:
        minor.append("interaction")
    if len(events) == 2:
        e0, e1 = set(events[0]), set(events[1])
        if any((x in e0 and y in e1) or (y in e0 and x in e1) for x, y in _INVERSES):
            minor.append("cyclical")
    if (ts & _DIRECTIONS) or (conn == "from ... to" and major == "action"):
        minor.append("spatial")
    if agent and ts & _SCENERY:
        minor.append("contextual")
    return major, tuple(m for m in MINORS if m in minor)

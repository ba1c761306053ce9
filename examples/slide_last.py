"""A motion pattern that asks the new fact of docs/extend/fact.md, ``last_direction``: a shape
slides in one direction, then turns and slides on; the question asks where it heads at the
end."""

from last_direction import LastDirection

from tempogen.generators.motion import Motion, Scene, register_motion
from tempogen.generators.patterns.direction import Slide


@register_motion
class SlideLast(Motion):
    """Two legs, the second one answering (or no movement)."""

    name = "slide_last"
    task = "direction"
    fact = LastDirection.name
    answers = ("left", "right", "up", "down", "none")
    question = "In which direction does {subject} move at the end of the video?"

    def animate(self, scene: Scene, answer: str) -> None:
        if answer == "none":
            return Slide().animate(scene, ())
        first = [d for d in ("left", "right", "up", "down") if d not in (answer, FLIP[answer])]
        Slide().animate(scene, (first[int(scene.rng.integers(len(first)))], answer))


FLIP = {"left": "right", "right": "left", "up": "down", "down": "up"}

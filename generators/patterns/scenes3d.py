"""3D scenes shared by several simulated-object patterns: a moon orbiting a planet, a ball
bouncing on a floor, lamps on posts and a body flying on a plane facing the camera. Each
plans 3D poses, labels them through the camera the renderer draws with and sets
``scene.world`` (see :mod:`.rigid3d`); the patterns in :mod:`.objects3d` and
:mod:`.objects3d_tasks` choose the timing."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import trimesh

from tempogen.generators.paths import event_samples
from tempogen.generators.patterns.rigid3d import (
    POST,
    UNLIT,
    RigidWorld,
    add_part,
    aim_camera,
    floor_camera,
    paint_looks,
    rotation,
    translate,
    unproject,
)
from tempogen.generators.patterns.velocity import TOP_GAP, bounce_heights
from tempogen.generators.scene import Look, Scene

FOV = 40.0  # degrees: the vertical field of view of a fixed camera before the scene
AWAY = translate((0.0, -1e3, 0.0))  # a hidden body: far below the floor, out of view

# a moon orbiting a planet (:func:`orbit_clip`)
ORBIT_DEPTH = 5.0  # metres from the camera to the planet
PLANET_SIZE = (1.8, 2.4)  # the planet's radius, in scene units (:attr:`Scene.unit`)
MOON_SIZE = (0.8, 1.0)  # the moon's radius, in scene units
ORBIT_SIZE = (0.3, 0.4)  # the orbit's radius, as a share of the canvas's shorter side
ORBIT_SHIFT = 0.15  # most the planet strays from the middle, as a share of the width
ORBIT_MARGIN = 1.5  # moon radii kept between the orbit and the canvas's edge
ORBIT_CLEAR = 1.5  # the moon passes the planet this many times their radii apart, or more
ORBIT_TILT = 25.0  # most degrees the orbit's plane tilts from facing the camera

# a ball bouncing in place (:func:`bounce_clip`)
BOUNCE_AIM = 0.7  # metres above the floor the camera looks at
BOUNCE_RADIUS = (0.16, 0.22)  # metres
BOUNCE_TOP = (0.9, 1.2)  # metres: the highest centre above the floor
BOUNCE_SPREAD = (0.6, 0.4)  # most metres the ball stands off the middle, across and in depth
BOUNCE_BAND = 0.2  # half the width of the bouncing ball's band, as a share of its radius

# lamps on posts (:func:`lamps`)
LAMP_AIM = 0.5  # metres above the floor the camera looks at
BULB_RADIUS = (0.13, 0.17)  # metres
POST_HEIGHT = (0.45, 0.7)  # metres
POST_RADIUS = 0.05  # metres
LAMP_GAP = (0.55, 0.75)  # metres between two posts
LAMP_SHIFT = 0.2  # most metres the row stands off the middle
LAMP_DEPTH = 0.25  # most metres a post stands before or behind the row
SHELL = 1.03  # a lit shell's radius over its bulb's
FLASH = 0.5  # a flash's length, in sample intervals

# a body in the air (:func:`airborne`)
AIR_DEPTH = (3.5, 4.5)  # metres from the camera to the body's plane
AIR_SIDE = 0.5  # most metres the camera stands to either side
AIR_RISE = (0.8, 1.6)  # metres the camera stands above the floor
AIR_AIM = 0.9  # metres above the floor the camera looks at
AIR_FOV = (38.0, 44.0)  # degrees: the camera's vertical field of view
AIR_SIZE = (1.0, 1.3)  # the body's radius, in scene units
AIR_MARGIN = 1.3  # body radii kept between its path and the canvas's edge
TUMBLE = (1.0, 2.0)  # radians per second a flying cube turns


def orbit_clip(
    scene: Scene, phase_of: Callable[[np.random.Generator], np.ndarray], kind: str
) -> None:
    """A moon circling a planet on a plane facing the camera, tilted up to 25 degrees, at the
    angles (degrees, counter-clockwise on screen) ``phase_of(scene.rng)`` gives per frame."""
    planet_look, moon_look = paint_looks(scene, "circle", "circle")
    cam = aim_camera(scene, (0.0, 0.0, ORBIT_DEPTH), (0.0, 0.0, 0.0), FOV)
    rng = scene.rng
    planet_px = scene.unit * rng.uniform(*PLANET_SIZE)
    moon_px = scene.unit * rng.uniform(*MOON_SIZE)
    orbit_px = rng.uniform(*ORBIT_SIZE) * min(scene.width, scene.height)
    room = scene.width / 2 - orbit_px - ORBIT_MARGIN * moon_px
    room = max(0.0, min(ORBIT_SHIFT * scene.width, room))
    cx = scene.width / 2 + rng.uniform(-1, 1) * room
    planet = unproject(cam, cx, scene.height / 2, ORBIT_DEPTH)
    ppm = cam.pixels_per_metre(planet)
    # the ellipse's short axis keeps the moon clear of the planet
    clear = ORBIT_CLEAR * (planet_px + moon_px) / orbit_px
    most = min(ORBIT_TILT, math.degrees(math.acos(min(clear, 1))))
    tilt = math.radians(rng.uniform(-1, 1) * most)
    right = cam.pose[:3, 0]
    normal = rotation(right, tilt)[:3, :3] @ (cam.pose[:3, 3] - planet)
    normal -= (normal @ right) * right  # square to ``right``: the orbit is a true circle
    normal /= np.linalg.norm(normal)
    up = np.cross(normal, right)
    phase = np.radians(phase_of(rng))
    # counter-clockwise from ``right`` towards ``up`` on screen, hence the minus sign
    r = orbit_px / ppm
    moon = planet + r * (np.cos(-phase)[:, None] * right + np.sin(-phase)[:, None] * up)
    world = RigidWorld(cam, scene.n)
    world.add(
        trimesh.creation.icosphere(4, planet_px / ppm),
        translate(planet),
        color=planet_look.color,
    )
    poses = np.repeat(np.eye(4)[None], scene.n, axis=0)
    poses[:, :3, 3] = moon
    world.add(trimesh.creation.icosphere(3, moon_px / ppm), poses, color=moon_look.color)
    scene.world = world
    scene.meta["paints"] = world.paints()

    p = cam.project(planet)
    m = cam.project(moon)
    moon_scale = np.array([cam.pixels_per_metre(q) for q in moon]) / ppm
    planet_look.size = planet_px + 1.0
    moon_look.size = moon_px + 1.0
    add_part(scene, "planet", planet_look, "planet", role="prop", x=p[0], y=p[1])
    add_part(scene, "subject", moon_look, "moon", x=m[:, 0], y=m[:, 1], scale=moon_scale)
    scene.ask(["subject", "planet"], kind=kind)


def bounce_clip(scene: Scene, contacts: list[int]) -> None:
    """A ball bouncing in place on a floor, touching it at the frames ``contacts``."""
    look, band = paint_looks(scene, "circle", "block")
    rng = scene.rng
    cam = floor_camera(scene, BOUNCE_AIM)
    rad = rng.uniform(*BOUNCE_RADIUS)
    top = rng.uniform(*BOUNCE_TOP)  # highest centre above the floor (metres)
    # bounce_heights works in "y down" units: floor at ``f``, room above the ball = top - rad
    f = top + TOP_GAP * rad
    heights = f - bounce_heights(scene, contacts, f, rad)
    across, deep = BOUNCE_SPREAD
    x0, z0 = rng.uniform(-across, across), rng.uniform(-deep, deep)
    centres = np.stack([np.full(scene.n, x0), heights, np.full(scene.n, z0)], 1)
    spin = rng.uniform(0, 2 * math.pi)
    poses = np.stack([translate(c) for c in centres])
    poses[:, :3, :3] = trimesh.transformations.rotation_matrix(spin, (0, 1, 0))[:3, :3]
    ball = trimesh.creation.icosphere(3, rad)
    in_band = np.abs(ball.vertices[:, 1]) < BOUNCE_BAND * rad
    paint = np.where(in_band[:, None], band.color, look.color)
    world = RigidWorld(cam, scene.n, floor=0.0)
    world.add(ball, poses, vertex_colors=paint)
    scene.world = world
    scene.meta["paints"] = world.paints()

    px = cam.project(centres)
    ppm = np.array([cam.pixels_per_metre(c) for c in centres])
    contact = np.array([x0, rad, z0])
    look.size = rad * cam.pixels_per_metre(contact) + 1.0
    scale = ppm / cam.pixels_per_metre(contact)
    add_part(scene, "subject", look, "ball", x=px[:, 0], y=px[:, 1], scale=scale)
    floor = scene.add_floor(float(cam.project(contact)[1]) + look.size)
    scene.nouns[floor.name] = "the floor"
    scene.ask(["subject", "floor"], kind="bounce")


def lamps(scene: Scene, names: list[str], lit: dict[str, np.ndarray]) -> None:
    """Bulbs on posts in a row on a floor; a bulb shows its paint on the frames it is lit
    (a lit shell just outside the grey bulb, moved out of view when off)."""
    looks: list[Look] = paint_looks(scene, *["circle"] * len(names))
    rng = scene.rng
    cam = floor_camera(scene, LAMP_AIM)
    rad = rng.uniform(*BULB_RADIUS)
    post_h = rng.uniform(*POST_HEIGHT)
    gap = rng.uniform(*LAMP_GAP)
    shift = rng.uniform(-LAMP_SHIFT, LAMP_SHIFT)
    xs = (np.arange(len(names)) - (len(names) - 1) / 2) * gap + shift
    zs = rng.uniform(-LAMP_DEPTH, LAMP_DEPTH, len(names))
    world = RigidWorld(cam, scene.n, floor=0.0)
    for name, look, x, z in zip(names, looks, xs, zs):
        centre = np.array([x, post_h + rad, z])
        post = trimesh.creation.cylinder(radius=POST_RADIUS, height=post_h, sections=24)
        post.apply_transform(
            translate((x, post_h / 2, z))
            @ trimesh.transformations.rotation_matrix(-math.pi / 2, (1, 0, 0))
        )
        world.add(post, np.eye(4), color=POST)
        world.add(trimesh.creation.icosphere(3, rad), translate(centre), color=UNLIT)
        shell = np.stack([translate(centre) if on else AWAY for on in lit[name]])
        world.add(trimesh.creation.icosphere(3, SHELL * rad), shell, color=look.color)
        c = cam.project(centre)
        look.size = SHELL * rad * cam.pixels_per_metre(centre) + 1.0
        add_part(scene, name, look, "lamp", role="cue", x=c[0], y=c[1], lit=lit[name])
    scene.world = world
    scene.meta["paints"] = world.paints()


def flashes(scene: Scene, gaps: list[int] | None) -> np.ndarray:
    """Frames a lamp is lit: one flash per event sample, each about half an interval."""
    lit = np.zeros(scene.n, bool)
    for k in event_samples(scene, gaps) if gaps is not None else []:
        f = scene.sample_frame(k)
        lit[f : f + max(1, int(FLASH * scene.interval))] = True
    return lit


def airborne(
    scene: Scene,
    path: Callable[[Scene, float], tuple[np.ndarray, np.ndarray]] | None,
    noun: str,
    cube: bool = False,
) -> None:
    """A ball (or a tumbling cube) in the air on a plane facing the camera, so that its centre
    is seen at the pixels ``path(scene, margin)`` gives (None: it hovers in place). It is one
    paint: a band seen obliquely would cover one side more than the other and bias its
    centroid."""
    (look,) = paint_looks(scene, "circle")
    rng = scene.rng
    depth = rng.uniform(*AIR_DEPTH)
    eye = (rng.uniform(-AIR_SIDE, AIR_SIDE), rng.uniform(*AIR_RISE), depth)
    cam = aim_camera(scene, eye, (0.0, AIR_AIM, 0.0), rng.uniform(*AIR_FOV))
    look.size = scene.unit * rng.uniform(*AIR_SIZE)
    margin = look.size * AIR_MARGIN
    if path is None:
        u, v = (np.full(scene.n, c) for c in scene.place(margin))
    else:
        u, v = path(scene, margin)
    centres = np.stack([unproject(cam, a, b, depth) for a, b in zip(u, v)])
    rad = look.size / cam.focal * depth
    poses = np.stack([translate(c) for c in centres])
    body = trimesh.creation.icosphere(3, rad)
    if cube:  # corners within the ball's radius; it turns a quarter turn or so per second
        body = trimesh.creation.box([2 * rad / math.sqrt(3)] * 3)
        axis = rng.normal(size=3)
        rate = rng.uniform(*TUMBLE) * rng.choice([-1.0, 1.0]) / scene.fps
        for i in range(scene.n):
            poses[i] = poses[i] @ rotation(axis / np.linalg.norm(axis), rate * i)
    world = RigidWorld(cam, scene.n)  # in the air: no floor for the path to cross
    world.add(body, poses, color=look.color)
    scene.world = world
    scene.meta["paints"] = world.paints()
    px = cam.project(centres)
    look.size += 1.0
    add_part(scene, "subject", look, noun, x=px[:, 0], y=px[:, 1])
    scene.ask(["subject"])

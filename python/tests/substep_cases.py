"""Scenes that show what the physics substep changes (docs/embedding.md,
"A coarser substep"): each builds a world with `--step-ms MS` and
`--realism none` (no kick errors, no noise: only the substep differs
between two runs of a scene), plays it through the public sslsim API in
16 ms steps and returns a few numbers. test_substep.py holds the
documented bounds against them; bench/substep.py prints them for the
results file. Nothing here times anything.
"""
import math

import numpy as np

import sslsim

#: the robots' centre-to-dribbler distance and the ball's radius (m), set
#: here (to the defaults) because the scenes place things by them
C2D, BALL_R = 0.075, 0.0215
#: an empty field (the scenes teleport what they need), with those sizes
INI = ("[sim]\ninitial_robots_per_team = 0\n[ball]\nradius = %r\n[blue]\ncenter_to_dribbler = %r\n"
       "[yellow]\ncenter_to_dribbler = %r\n" % (BALL_R, C2D, C2D))


def world(ms):
    return sslsim.World(ini=INI, args=["--step-ms", str(ms), "--realism", "none"], vision=False)


def command(w, team, rid, forward=0.0, left=0.0, angular=0.0, kick=0.0, dribbler=0.0):
    w.robot_commands([team], [rid], np.array([[forward, left, angular, kick, 0.0, dribbler]], float))


def robot(w, team, rid):
    t = w.truth()
    for i in range(len(t["team"])):
        if t["team"][i] == team and t["id"][i] == rid:
            return {"x": float(t["pos"][i][0]), "y": float(t["pos"][i][1]),
                    "orientation": float(t["orientation"][i]), "ball_contact": bool(t["ball_contact"][i])}
    raise KeyError((team, rid))


def ball(w):
    b = w.truth()["ball"]
    return [float(v) for v in b]


def steps(w, seconds, each=None):
    """seconds of 16 ms steps; each(w, i) before step i."""
    for i in range(int(round(seconds / 0.016))):
        if each:
            each(w, i)
        w.step(0.016)


def drive(ms):
    """Blue 0 from rest: 2 m/s forward for 1 s, then 1 m/s left while
    turning at 2 rad/s for 1 s. Its pose (x, y, orientation) at 1 s and 2 s."""
    w = world(ms)
    w.teleport_robot(0, 0, 0.0, 0.0, 0.0)
    w.teleport_ball(3.0, 3.0)
    out = []
    for phase in range(2):
        steps(w, 1.0, lambda w, i: command(w, 0, 0, forward=2.0) if phase == 0 else
              command(w, 0, 0, left=1.0, angular=2.0))
        r = robot(w, 0, 0)
        out.append((r["x"], r["y"], r["orientation"]))
    w.close()
    return out


def kick(ms, speed=6.0):
    """A flat kick of `speed` from a seated ball: the ball's speed 0.1 s
    after the kick and how far it has gone 1 s after it (x, m)."""
    w = world(ms)
    w.teleport_robot(0, 0, 0.0, 0.0, 0.0)
    w.teleport_ball(C2D + BALL_R, 0.0)
    command(w, 0, 0, kick=speed)
    w.step(0.016)
    command(w, 0, 0)
    steps(w, 0.096)
    b = ball(w)
    v = math.hypot(b[3], b[4])
    steps(w, 0.896)
    x = ball(w)[0]
    w.close()
    return v, x


def roll(ms):
    """A ball sent at 3 m/s along the field: how far it rolls in 2 s (m)."""
    w = world(ms)
    w.teleport_ball(-4.0, 0.0, 3.0, 0.0)
    steps(w, 2.0)
    d = ball(w)[0] + 4.0
    w.close()
    return d


def face_to_face(ms):
    """Two robots 0.6 m apart drive at each other at 0.5 m/s for 2 s:
    the distance between their centres where they stop (m)."""
    w = world(ms)
    w.teleport_robot(0, 0, -0.3, 0.0, 0.0)
    w.teleport_robot(1, 0, 0.3, 0.0, math.pi)
    w.teleport_ball(3.0, 3.0)
    steps(w, 2.0, lambda w, i: (command(w, 0, 0, forward=0.5), command(w, 1, 0, forward=0.5)))
    gap = robot(w, 1, 0)["x"] - robot(w, 0, 0)["x"]
    w.close()
    return gap


def wall(ms):
    """A ball sent at 4 m/s straight at the touch-line board: its deepest
    y (m) and its speed coming back (m/s) 0.512 s after it was sent."""
    w = world(ms)
    w.teleport_ball(0.0, 4.0, 0.0, 4.0)
    deepest = 4.0
    for _ in range(32):
        w.step(0.016)
        deepest = max(deepest, ball(w)[1])
    b = ball(w)
    w.close()
    return deepest, -b[4]


def bounce(ms):
    """A ball at 5 m/s into the flat side of a robot turned 90 degrees:
    its velocity (vx, vy) 0.4 s later."""
    w = world(ms)
    w.teleport_robot(0, 0, 0.0, 0.0, math.pi / 2)
    w.teleport_ball(-1.0, 0.0, 5.0, 0.0)
    steps(w, 0.4)
    b = ball(w)
    w.close()
    return b[3], b[4]


def dribble(ms):
    """Blue 0 drives at 0.5 m/s with its dribbler at 5000 rpm toward a
    ball 0.4 m ahead, catches it and carries it on for 2 s: whether it
    still has it (break beam) and the ball's distance from its centre (m)."""
    w = world(ms)
    w.teleport_robot(0, 0, 0.0, 0.0, 0.0)
    w.teleport_ball(0.4, 0.0)
    steps(w, 2.5, lambda w, i: command(w, 0, 0, forward=0.5, dribbler=5000.0))
    r, b = robot(w, 0, 0), ball(w)
    w.close()
    return r["ball_contact"], math.hypot(b[0] - r["x"], b[1] - r["y"])


def flat(v):
    """A scene's result as a list of floats (poses flattened)."""
    if isinstance(v, (list, tuple)):
        return [x for e in v for x in flat(e)]
    return [float(v)]


SCENES = (("drive", drive), ("kick", kick), ("roll", roll), ("face_to_face", face_to_face), ("wall", wall),
          ("bounce", bounce), ("dribble", dribble))

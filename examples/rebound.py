#!/usr/bin/python3
"""rebound.py - a worked example of comparing what the cameras report with
the truth: a ball shot at a robot, its speed after the bounce as the truth
gives it and as positions from consecutive camera frames give it
(docs/physics.md, "The rebound as the cameras see it").

Blue robot 0 stands side-on at (robot_x, 0.3); the ball starts at
(ball_x, 0.3) with speed (m/s) along x towards it. Each camera frame's
capture instant is found from the frames before the bounce (the frame's
t_capture minus the latency that puts the reported positions on the true
path), so each pair of consecutive frames is compared with the truth's
own positions at the same two instants. Speeds are printed as a fraction
of the incoming speed.

usage: /usr/bin/python3 examples/rebound.py [--realism NAME] [--no-occlusion]
       [--near-camera] [--speed V] [--seed N]
  --near-camera   shoot from the far side of the robot, so the camera
                  that sees the rebound looks at the ball from its own side
  --no-occlusion  [realism] enable_invisible_ball = false on the default
                  realism: robots hide no part of the ball
(run from the ssl-sim source tree after `make`, or anywhere after
`make install`).
"""
import argparse
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402

import sslsim  # noqa: E402


def measure(realism=None, occlusion=True, near_camera=False, speed=3.0, seed=1):
    """Run the shot; returns a dict: incoming (m/s), truth_after (the
    truth's rebound speed just after the bounce, fraction of incoming)
    and pairs, a list of (ms after the bounce of the later frame, vision
    fraction, truth fraction) for the frame pairs that end after the
    bounce, of the camera on the rebound's side."""
    ini = "" if occlusion else "[realism]\nenable_invisible_ball = false\n"
    args = ["--realism", realism] if realism else []
    w = sslsim.World(ini=ini or None, args=args, seed=seed)
    # the far camera case: the ball comes from the field centre, the robot
    # stands between it and camera 0 (at +x); the near case mirrors it so
    # camera 1 (at -x) is behind the ball
    sign = -1.0 if near_camera else 1.0
    robot_x, ball_x, cam = 1.0 * sign, (0.3 if not near_camera else -2.0), (1 if near_camera else 0)
    w.teleport_robot(0, 0, robot_x, 0.3, math.pi / 2)
    w.step(0.1)
    w.teleport_ball(ball_x, 0.3, speed, 0.0)
    truth, frames = [], []
    for _ in range(700):
        w.step(0.001)
        t = w.truth()
        b = t["ball"]
        truth.append((t["time"], b[0], b[3]))
        for d in w.detections():
            if int(d["camera_id"]) != cam or d["ball_count"] < 1:
                continue
            bs = d["balls"][: d["ball_count"]]
            i = int(np.argmin((bs["x"] - b[0]) ** 2 + (bs["y"] - b[1]) ** 2))
            if abs(bs["y"][i] - 0.3) > 0.05:
                continue  # a frame captured before the shot, the ball still at the centre
            frames.append((int(d["frame_number"]), float(d["t_capture"]), float(bs["x"][i])))
    truth = np.array(truth)
    moving = np.arange(len(truth)) > 5
    kb = int(np.argmax(moving & (truth[:, 2] < 0)))
    if kb == 0:
        raise RuntimeError("the ball did not bounce")
    tb, vin = truth[kb, 0], truth[kb - 2, 2]
    # the latency from the frames on the straight run before the bounce:
    # the truth instant at which the ball was where the frame shows it
    frames.sort()
    top = int(np.argmax([f[2] for f in frames]))  # the frame nearest the bounce
    pre = [f for f in frames[:max(top - 2, 0)] if truth[20, 1] < f[2] < truth[kb - 10, 1]]
    lat = float(np.median([f[1] - np.interp(f[2], truth[20:kb - 10, 1], truth[20:kb - 10, 0]) for f in pre]))

    def x_at(t):
        return float(np.interp(t, truth[:, 0], truth[:, 1]))

    pairs = []
    for a, b in zip(frames, frames[1:]):
        ta, tb2 = a[1] - lat, b[1] - lat
        if tb2 <= tb or b[0] != a[0] + 1 or tb2 - tb > 0.1:
            continue
        vis = (b[2] - a[2]) / (b[1] - a[1])
        tru = (x_at(tb2) - x_at(ta)) / (tb2 - ta)
        pairs.append(((tb2 - tb) * 1000, -vis / vin, -tru / vin, ta < tb))
    return {"incoming": vin, "truth_after": -truth[kb + 1, 2] / vin, "pairs": pairs}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--realism", default=None, help="a realism preset (default: the default, realistic)")
    p.add_argument("--no-occlusion", action="store_true")
    p.add_argument("--near-camera", action="store_true")
    p.add_argument("--speed", type=float, default=3.0)
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if a.realism and a.no_occlusion:
        p.error("--no-occlusion changes the default realism; a --realism preset replaces all of [realism]")
    m = measure(a.realism, not a.no_occlusion, a.near_camera, a.speed, a.seed)
    print("incoming %.3f m/s; the truth's rebound just after the bounce: %.3f of it"
          % (m["incoming"], m["truth_after"]))
    print("frame pair ending (ms after the bounce)   vision   truth over the same pair")
    for ms, vis, tru, spans in m["pairs"]:
        print("  %6.1f%s %28.3f %9.3f" % (ms, " (spans the bounce)" if spans else "                   ", vis, tru))


if __name__ == "__main__":
    main()

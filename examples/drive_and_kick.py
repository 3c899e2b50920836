#!/usr/bin/python3
"""drive_and_kick.py - a worked example of sslsim.SslSimEnv: blue robot 0
drives behind the ball and kicks it into the yellow goal (at +x).

The reward and the end of an episode are the user's to define; here:
  - reward: the ball's progress towards the goal centre each step (m),
    plus 10 when it is in the goal;
  - terminated: a goal, or the ball out of the field;
  - truncated: 10 s of sim time (625 steps of 16 ms).
The controller is a hand-written proportional one (no learning), to show
what the observations and actions mean; a learner would replace
`controller`. It reads the observation, so with --vision it drives from
what the cameras saw (the reward and the end still use the truth). The yellow team is moved to its touch line at reset, so the
shot is not blocked.

usage: /usr/bin/python3 examples/drive_and_kick.py [--episodes N] [--vision]
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



class Field:
    """The field in force (env.world.limits(): division and [field] keys),
    m; set by main() before the first episode."""
    half_length = half_width = goal_half_width = run_off = 0.0
    goal = np.zeros(2)

    @classmethod
    def read(cls, limits):
        cls.half_length, cls.half_width = limits["field_length"] / 2, limits["field_width"] / 2
        cls.goal_half_width, cls.run_off = limits["goal_width"] / 2, limits["boundary_width"]
        cls.goal = np.array([cls.half_length, 0.0])


def in_goal(ball):
    return ball[0] > Field.half_length and abs(ball[1]) < Field.goal_half_width


def reward_fn(obs, info):
    ball = info["truth"]["ball"][:2]
    before = reward_fn.last if reward_fn.last is not None else ball
    reward_fn.last = ball
    progress = np.linalg.norm(Field.goal - before) - np.linalg.norm(Field.goal - ball)
    return float(progress + (10.0 if in_goal(ball) else 0.0))


reward_fn.last = None


def termination_fn(obs, info):
    ball = info["truth"]["ball"]
    return bool(in_goal(ball) or abs(ball[0]) > Field.half_length + Field.run_off
                or abs(ball[1]) > Field.half_width + Field.run_off)


def seen(env, obs):
    """The ball (x, y), and blue 0's (x, y) and heading, as the observation
    has them (env.obs_layout): the truth, or with --vision each one's
    newest camera detection, noise, latency and dropouts included. Blue 0
    is the first robot observed (the controlled ones come first)."""
    _, head, per = env.obs_layout
    robot = obs[head:head + per].astype(np.float64)  # truth: present x y orientation ...; vision: age x y orientation
    ball = obs[0:2] if env.observation == "truth" else obs[1:3]  # truth: x y z ...; vision: age x y
    return ball.astype(np.float64), robot[1:3], float(robot[3])


def controller(env, obs):
    """Drive robot 0 to a point behind the ball on the goal line, face the
    goal, kick when lined up, from what the observation shows."""
    ball, pos, heading = seen(env, obs)
    to_goal = (Field.goal - ball) / np.linalg.norm(Field.goal - ball)
    target = ball - 0.11 * to_goal  # the dribbler touching the ball
    err = target - pos
    # world error into the robot's frame (forward = heading)
    c, s = math.cos(heading), math.sin(heading)
    forward, left = c * err[0] + s * err[1], -s * err[0] + c * err[1]
    want = math.atan2(to_goal[1], to_goal[0])
    turn = math.atan2(math.sin(want - heading), math.cos(want - heading))
    behind = np.dot(ball - pos, to_goal) > 0.0
    far = np.linalg.norm(err) > 0.3
    if not behind and far:  # go round the ball: aim wide of it first
        side = np.array([-to_goal[1], to_goal[0]])
        target = ball - 0.4 * to_goal + 0.4 * side * np.sign(np.dot(pos - ball, side) or 1.0)
        err = target - pos
        forward, left = c * err[0] + s * err[1], -s * err[0] + c * err[1]
    action = np.zeros(env.action_space.shape)
    gain = 3.0
    action[0, 0] = np.clip(gain * forward, -2.0, 2.0)
    action[0, 1] = np.clip(gain * left, -2.0, 2.0)
    action[0, 2] = np.clip(4.0 * turn, -6.0, 6.0)
    lined_up = abs(turn) < 0.1 and np.linalg.norm(ball - pos) < 0.15
    action[0, 3] = 5.0 if lined_up else 0.0
    return action


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--episodes", type=int, default=3)
    ap.add_argument("--vision", action="store_true", help="observe vision detections instead of the truth")
    a = ap.parse_args()
    env = sslsim.SslSimEnv(observation="vision" if a.vision else "truth", max_steps=625,
                           reward_fn=reward_fn, termination_fn=termination_fn)
    Field.read(env.world.limits())
    goals = 0
    for episode in range(a.episodes):
        rng = np.random.default_rng(episode)
        ball = (rng.uniform(-1.0, 3.0), rng.uniform(-2.5, 2.5))
        robots = {(0, 0): (ball[0] - 1.5, ball[1] - 1.0, 0.0)}
        robots.update({(1, i): (-5.0 + 0.5 * i, -Field.half_width - 0.2, 0.0) for i in range(11)})
        obs, info = env.reset(seed=episode, options={"ball": ball, "robots": robots})
        reward_fn.last = None
        total, steps = 0.0, 0
        while True:
            obs, reward, terminated, truncated, info = env.step(controller(env, obs))
            total += reward
            steps += 1
            if terminated or truncated:
                break
        scored = in_goal(info["truth"]["ball"])
        goals += scored
        print("episode %d: ball from (%.2f, %.2f), %s after %.2f s, return %.2f"
              % (episode, ball[0], ball[1], "GOAL" if scored else "no goal", steps * env.dt, total))
    print("%d goals in %d episodes" % (goals, a.episodes))
    env.close()


if __name__ == "__main__":
    main()

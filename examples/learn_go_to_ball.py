#!/usr/bin/python3
"""learn_go_to_ball.py - a policy that learns the go_to_ball task from the
cameras' view, with numpy alone (no torch, nothing downloaded).

The environment is sslsim.SslSimVectorEnv with its default task,
go_to_ball for blue robot 0 (docs/embedding.md, "Tasks"), and vision
observations: the ball's and the robot's newest detections (age, x, y
and the robot's orientation), with the default realism (noise, latency,
dropouts, two cameras).

The policy is linear in four hand-made features of that observation:
the ball's position in the robot's own frame (ahead, to the left), its
bearing (rad) and a constant. Three rows of weights map them to the
robot's forward, left and angular speed; the kick and the dribbler stay
off. That is 12 numbers, all zero at the start (the robot stands still).

The learner is an evolution strategy over the batch: each generation
draws 32 perturbations of the weights and gives world 2i the weights
plus perturbation i and world 2i+1 the weights minus it (antithetic
pairs), both worlds with the same seed, so the pair sees the same scene.
Every world plays one episode; the score is its return (the task's
reward: progress towards the ball and its heading, +10 on success). The
weights move along the perturbations weighted by the pairs' centred
ranks, scaled by the learning rate.

After training it plays fresh scenes (seeds no generation used) with the
learned weights, and the same scenes with a random policy (forward, left
and angular speed uniform in the action space), and prints both success
rates.

--train-step-ms 2 trains in worlds with 2 ms physics substeps (about
1.4x to 1.75x the world-steps per CPU second of the default 1 ms,
docs/embedding.md, "A coarser substep") and still evaluates in worlds
with the default substep, the physics the policy will meet.

usage: /usr/bin/python3 examples/learn_go_to_ball.py [--generations N]
       [--max-steps N] [--episodes N] [--lr X] [--sigma X] [--seed N]
       [--train-step-ms MS]
(run from the ssl-sim source tree after `make`, or anywhere after
`make install`). The last line is a summary a program can read:
"summary: trained S/N random R/N".
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import numpy as np  # noqa: E402

import sslsim  # noqa: E402

#: the policy's weights: one row per commanded speed (forward, left,
#: angular), one column per feature (ball ahead, ball left, bearing, 1)
SHAPE = (3, 4)
#: evaluation scenes start at this seed, far from any generation's
EVAL_SEED = 1 << 40


def features(obs):
    """(n, 4) features of vision observations (n, 7): the ball in the
    robot's frame (m ahead, m to the left), its bearing (rad) and 1.
    A world that has not yet seen the ball or the robot (age -1) reads
    zeros and stands still."""
    ball_age, bx, by, robot_age, rx, ry, heading = obs.T.astype(np.float64)
    dx, dy = bx - rx, by - ry
    c, s = np.cos(heading), np.sin(heading)
    ahead, left = c * dx + s * dy, -s * dx + c * dy
    f = np.stack([ahead, left, np.arctan2(left, ahead), np.ones_like(ahead)], axis=1)
    f[(ball_age < 0) | (robot_age < 0)] = 0.0
    return f


def act(env, weights, obs):
    """The actions (n, 1, 6) of per-world weights (n, 3, 4) on obs: the
    three speeds clipped to the action space, kick and dribbler off."""
    speeds = np.einsum("nij,nj->ni", weights, features(obs))
    low, high = env.single_action_space.low[0, :3], env.single_action_space.high[0, :3]
    actions = np.zeros(env.action_space.shape)
    actions[:, 0, :3] = np.clip(speeds, low, high)
    return actions


def play(env, seeds, policy):
    """One episode in every world, world k seeded seeds[k], actions from
    policy(obs) -> (n, 1, 6). Returns each world's return and whether it
    succeeded (ended by the task's success)."""
    obs, _ = env.reset(seed=[int(s) for s in seeds])
    n = env.num_envs
    live = np.ones(n, dtype=bool)
    returns = np.zeros(n)
    success = np.zeros(n, dtype=bool)
    half_bonus = sslsim.GO_TO_BALL["bonus"] / 2
    while live.any():
        obs, rewards, terminated, truncated, _ = env.step(policy(obs))
        returns[live] += rewards[live]
        # a step's progress is centimetres, so only the bonus passes half of it
        success |= live & terminated & (rewards > half_bonus)
        live &= ~(terminated | truncated)
    return returns, success


def centred_ranks(x):
    """x's ranks scaled to [-0.5, 0.5] (ties broken by position)."""
    ranks = np.empty(len(x))
    ranks[np.argsort(x, kind="stable")] = np.arange(len(x))
    return ranks / (len(x) - 1) - 0.5


def train(env, generations, lr, sigma, seed, log=print):
    """Evolution strategies over env's worlds (an even number): returns
    the learned weights (3, 4)."""
    n = env.num_envs
    pairs = n // 2
    rng = np.random.default_rng(seed)
    weights = np.zeros(SHAPE)
    for g in range(generations):
        eps = rng.standard_normal((pairs,) + SHAPE)
        population = np.repeat(weights[None], n, axis=0)
        population[0::2] += sigma * eps
        population[1::2] -= sigma * eps
        # a pair shares its scene; every generation has new scenes
        seeds = np.repeat(seed * (1 << 20) + g * pairs + np.arange(pairs), 2)
        returns, success = play(env, seeds, lambda obs: act(env, population, obs))
        ranks = centred_ranks(returns)
        step = np.einsum("p,pij->ij", ranks[0::2] - ranks[1::2], eps) / pairs
        weights = weights + lr * step
        log("generation %2d: mean return %6.2f, success %5.1f %%"
            % (g + 1, returns.mean(), 100.0 * success.mean()))
    return weights


def evaluate(env, weights, episodes, seed):
    """(successes of the learned weights, successes of the random policy)
    over `episodes` scenes (a multiple of env.num_envs), the same scenes
    for both."""
    n = env.num_envs
    rng = np.random.default_rng(seed)
    low, high = env.action_space.low[:, :, :3], env.action_space.high[:, :, :3]

    def random_policy(obs):
        actions = np.zeros(env.action_space.shape)
        actions[:, :, :3] = rng.uniform(low, high)
        return actions

    trained = np.repeat(weights[None], n, axis=0)
    ours = theirs = 0
    for start in range(0, episodes, n):
        seeds = EVAL_SEED + seed * (1 << 20) + start + np.arange(n)
        ours += int(play(env, seeds, lambda obs: act(env, trained, obs))[1].sum())
        theirs += int(play(env, seeds, random_policy)[1].sum())
    return ours, theirs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--generations", type=int, default=40, help="ES generations (default 40)")
    ap.add_argument("--max-steps", type=int, default=500, help="steps of 16 ms per episode (default 500, 8 s)")
    ap.add_argument("--episodes", type=int, default=256, help="evaluation episodes per policy (default 256)")
    ap.add_argument("--worlds", type=int, default=64, help="worlds in the batch, even (default 64)")
    ap.add_argument("--lr", type=float, default=2.0, help="learning rate (default 2)")
    ap.add_argument("--sigma", type=float, default=0.5, help="perturbation scale (default 0.5)")
    ap.add_argument("--seed", type=int, default=1, help="seeds the perturbations and every scene (default 1)")
    ap.add_argument("--threads", type=int, default=0, help="the batch's threads (default one per core)")
    ap.add_argument("--train-step-ms", type=float, default=None,
                    help="train with this physics substep in ms (e.g. 2; default the simulator's 1); "
                         "the evaluation always uses the default")
    a = ap.parse_args()
    if (a.worlds < 2 or a.worlds % 2 or a.episodes < 1 or a.max_steps < 1 or a.generations < 0 or a.seed < 0
            or a.threads < 0):
        ap.error("--worlds must be even and at least 2, --episodes and --max-steps positive, --generations, "
                 "--seed and --threads not negative")
    start = time.monotonic()
    env = sslsim.SslSimVectorEnv(a.worlds, observation="vision", max_steps=a.max_steps, threads=a.threads)
    trainer = env
    if a.train_step_ms is not None:
        try:
            trainer = sslsim.SslSimVectorEnv(a.worlds, observation="vision", max_steps=a.max_steps,
                                             threads=a.threads, args=["--step-ms", repr(a.train_step_ms)])
        except ValueError as e:  # a substep that does not divide the 16 ms step (an SslSimError)
            env.close()
            ap.error("--train-step-ms %r: %s" % (a.train_step_ms, e))
    weights = train(trainer, a.generations, a.lr, a.sigma, a.seed)
    if trainer is not env:
        trainer.close()
    print("weights (rows forward, left, angular; columns ahead, left, bearing, 1):")
    print(np.array2string(weights, precision=3, suppress_small=True))
    trained_at = time.monotonic()
    episodes = -(-a.episodes // a.worlds) * a.worlds
    ours, theirs = evaluate(env, weights, episodes, a.seed)
    env.close()
    end = time.monotonic()
    print("trained in %.1f s, evaluated in %.1f s" % (trained_at - start, end - trained_at))
    print("success over %d fresh scenes: trained %.1f %%, random %.1f %%"
          % (episodes, 100.0 * ours / episodes, 100.0 * theirs / episodes))
    print("summary: trained %d/%d random %d/%d" % (ours, episodes, theirs, episodes))


if __name__ == "__main__":
    main()

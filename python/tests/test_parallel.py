"""Tests of sslsim.SslSimParallelEnv, both teams as agents with the
interface of PettingZoo's parallel API (the package is not installed:
the contract is checked here, the way PettingZoo's own parallel API test
walks it), with the defaults a user meets; and of each team's own frame:
yellow's observation is blue's of the scene turned half a turn, so one
policy plays either side.
"""
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402

import sslsim  # noqa: E402
from tests.docs_example import run_docs_block  # noqa: E402


def check_parallel_contract(test, env, steps=30, seed=0):
    """PettingZoo's parallel API contract, step by step: the agents,
    spaces that are the same objects on every call, dicts keyed by the
    live agents, values inside the spaces and of the right types, and an
    empty agent list once the episode ends. Returns the steps walked."""
    test.assertEqual(env.possible_agents, ["blue", "yellow"])
    test.assertEqual(env.max_num_agents, 2)
    for a in env.possible_agents:
        test.assertIs(env.observation_space(a), env.observation_space(a))
        test.assertIs(env.action_space(a), env.action_space(a))
        test.assertIs(env.observation_space(a), env.observation_spaces[a])
        for space in (env.observation_space(a), env.action_space(a)):
            test.assertTrue(np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)))
    observations, infos = env.reset(seed=seed)
    test.assertEqual(env.agents, env.possible_agents)
    test.assertEqual(env.num_agents, 2)
    test.assertEqual(set(observations), set(env.agents))
    test.assertEqual(set(infos), set(env.agents))
    for a in env.agents:
        test.assertEqual(observations[a].dtype, np.float32)
        test.assertIn(observations[a], env.observation_space(a))
        test.assertIsInstance(infos[a], dict)
    test.assertIn(env.state(), env.state_space)
    walked = 0
    for _ in range(steps):
        if not env.agents:
            break
        live = list(env.agents)
        actions = {a: env.action_space(a).sample() for a in live}
        observations, rewards, terminations, truncations, infos = env.step(actions)
        walked += 1
        for d in (observations, rewards, terminations, truncations, infos):
            test.assertEqual(set(d), set(live))
        for a in live:
            test.assertIn(observations[a], env.observation_space(a))
            test.assertIsInstance(rewards[a], float)
            test.assertIsInstance(terminations[a], bool)
            test.assertIsInstance(truncations[a], bool)
            if terminations[a] or truncations[a]:
                test.assertNotIn(a, env.agents)
            else:
                test.assertIn(a, env.agents)
        test.assertIn(env.state(), env.state_space)
    return walked


def turned(robot):
    """(x, y, orientation) turned half a turn about the centre."""
    x, y, o = robot
    return (-x, -y, o - math.pi if o > 0 else o + math.pi)


def symmetric_scene(seed):
    """Options placing every robot of blue at random in its half, at
    least 1.2 m from the centre line, and yellow's same id at its image
    turned half a turn; the ball at the centre, the one place a ball is
    its own image. (The physics resolves simultaneous contacts in a fixed
    order, so two robots touching the ball at once would break the
    symmetry in the physics, not in the observation: the scene keeps them
    away from it.)"""
    rng = np.random.default_rng(seed)
    robots = {}
    for i in range(11):
        pose = (float(rng.uniform(-4, -1.2)), float(rng.uniform(-3, 3)), float(rng.uniform(-3, 3)))
        robots[(0, i)], robots[(1, i)] = pose, turned(pose)
    return {"robots": robots, "ball": (0.0, 0.0)}


class ParallelApiTest(unittest.TestCase):
    def test_the_docs_example_runs_as_written(self):
        """docs/embedding.md's block under "Both teams as agents", run by /usr/bin/python3."""
        run_docs_block(self, "embedding.md", "### Both teams as agents", "SslSimParallelEnv(")

    def test_the_contract_holds_for_both_kinds_through_truncation(self):
        for kind, size in (("truth", 6 + 7 * 22), ("vision", 3 + 4 * 22)):
            with sslsim.SslSimParallelEnv(observation=kind, max_steps=12) as env:
                self.assertEqual(env.agents, [])
                for a in env.possible_agents:
                    self.assertEqual(env.observation_space(a).shape, (size,))
                    self.assertEqual(env.action_space(a).shape, (11, 6))
                self.assertEqual(check_parallel_contract(self, env), 12)
                self.assertEqual(env.agents, [])
                with self.assertRaisesRegex(RuntimeError, "reset"):
                    env.step({a: env.action_space(a).sample() for a in env.possible_agents})
                env.reset()
                self.assertEqual(env.agents, ["blue", "yellow"])

    def test_termination_and_rewards_come_from_the_callbacks_for_both_agents(self):
        """termination_fn ends the episode for both at once; reward_fn's
        dict is what each agent gets (here: the ball's x in each frame,
        which is zero-sum since yellow's frame is turned)."""
        calls = []

        def reward(observations, infos):
            return {a: observations[a][0] for a in observations}

        def done(observations, infos):
            calls.append(infos["blue"]["time"])
            return len(calls) == 3

        with sslsim.SslSimParallelEnv(reward_fn=reward, termination_fn=done) as env:
            env.reset(seed=2, options={"ball": (1.0, 0.5, 2.0, 0.0)})
            for t in range(3):
                _, rewards, terms, truncs, _ = env.step({a: np.zeros((11, 6)) for a in env.agents})
                self.assertAlmostEqual(rewards["blue"], -rewards["yellow"], places=6)
            self.assertGreater(rewards["blue"], 1.0)
            self.assertEqual(terms, {"blue": True, "yellow": True})
            self.assertEqual(truncs, {"blue": False, "yellow": False})
            self.assertEqual(env.agents, [])

    def test_a_seed_fixes_the_episode_and_reset_without_one_moves_on(self):
        def episode(env, seed):
            obs, _ = env.reset(seed=seed)
            out = [obs["blue"].tobytes() + obs["yellow"].tobytes()]
            rng = np.random.default_rng(5)
            for _ in range(20):
                acts = {a: rng.uniform(env.action_space(a).low, env.action_space(a).high) for a in env.agents}
                obs, *_ = env.step(acts)
                out.append(obs["blue"].tobytes() + obs["yellow"].tobytes())
            return out

        with sslsim.SslSimParallelEnv(observation="vision") as a, \
                sslsim.SslSimParallelEnv(observation="vision") as b:
            self.assertEqual(episode(a, 7), episode(b, 7))
            self.assertNotEqual(episode(a, 7), episode(a, 8))
            a.reset(seed=7)
            a.reset()
            self.assertEqual(a.world.seed, 8)

    def test_bad_actions_name_the_agent_and_step_nothing(self):
        with sslsim.SslSimParallelEnv() as env:
            env.reset(seed=1)
            good = {a: np.zeros((11, 6)) for a in env.agents}
            t = env.world.time
            with self.assertRaisesRegex(TypeError, "dict"):
                env.step(np.zeros((22, 6)))
            with self.assertRaisesRegex(ValueError, "missing \\['yellow'\\]"):
                env.step({"blue": good["blue"]})
            with self.assertRaisesRegex(ValueError, "unknown \\['green'\\]"):
                env.step(dict(good, green=good["blue"]))
            with self.assertRaisesRegex(ValueError, "actions\\['yellow'\\].*shape"):
                env.step(dict(good, yellow=np.zeros((10, 6))))
            bad = good["blue"].copy()
            bad[3, 2] = np.nan
            with self.assertRaisesRegex(ValueError, "actions\\['blue'\\].*finite"):
                env.step(dict(good, blue=bad))
            with self.assertRaisesRegex(TypeError, "actions\\['blue'\\]"):
                env.step(dict(good, blue=[["x"] * 6] * 11))
            self.assertEqual(env.world.time, t)
            env.step(good)
            self.assertGreater(env.world.time, t)
        with self.assertRaisesRegex(KeyError, "green"):
            sslsim.SslSimParallelEnv().action_space("green")
        with self.assertRaisesRegex(ValueError, "robots"):
            sslsim.SslSimParallelEnv(robots={"red": [0]})
        with self.assertRaisesRegex(ValueError, "robots\\['blue'\\]"):
            sslsim.SslSimParallelEnv(robots={"blue": [1, 1]})

    def test_bad_reset_options_are_refused_before_the_reset(self):
        """A reset with an unknown option, or a ball of one number, raises
        ValueError naming it, and the episode in progress is untouched:
        same world, same live agents, and the next reset() is still the
        next episode."""
        with sslsim.SslSimParallelEnv() as env:
            env.reset(seed=1)
            env.step({a: np.full((11, 6), 0.5) for a in env.agents})
            before = (env.world.seed, env.world.time, env.world.truth_record().tobytes())
            for options, name in (({"bad": 1}, "options"), ({"ball": (1,)}, "ball")):
                with self.assertRaisesRegex(ValueError, name):
                    env.reset(seed=5, options=options)
                self.assertEqual((env.world.seed, env.world.time, env.world.truth_record().tobytes()), before)
                self.assertEqual(env.agents, ["blue", "yellow"])
            env.reset()
            self.assertEqual(env.world.seed, 2)

    def test_robots_choose_who_each_agent_drives_and_sees_first(self):
        with sslsim.SslSimParallelEnv(robots={"blue": [0, 3], "yellow": [5]}) as env:
            self.assertEqual(env.action_space("blue").shape, (2, 6))
            self.assertEqual(env.action_space("yellow").shape, (1, 6))
            self.assertEqual(env.observation_space("blue").shape, (6 + 7 * (2 + 11),))
            obs, _ = env.reset(seed=1, options={"robots": {(1, 5): (2.0, 1.0, 0.0)}})
            self.assertEqual(obs["yellow"][6:10].tolist(), [1.0, -2.0, -1.0, np.float32(math.pi)])


class OwnFrameTest(unittest.TestCase):
    def test_one_policy_plays_either_side(self):
        """In a scene symmetric under the half turn, one policy fed each
        agent's own observation keeps the two observations equal, step
        after step: yellow sees its game exactly as blue sees its own.
        The tolerance is float32 rounding of positions (within 1e-5 m,
        a few ulps at the field's size) accumulated by the physics."""
        rng = np.random.default_rng(3)
        weights = rng.normal(0, 0.3, size=(6, 6 + 7 * 22)).astype(np.float32)

        def policy(obs):
            row = np.tanh(weights @ obs)
            # at most 0.3 m/s: in 150 steps (2.4 s) no robot reaches the ball
            return np.tile(np.array([0.3, 0.2, 4.0, 0.0, 0.0, 0.0]) * np.r_[row[:3], 0, 0, 0], (11, 1))

        with sslsim.SslSimParallelEnv(observation="truth", max_steps=150) as env:
            scene = symmetric_scene(4)
            obs, _ = env.reset(seed=4, options=scene)
            np.testing.assert_allclose(obs["blue"], obs["yellow"], atol=1e-6)
            while env.agents:
                obs, *_ = env.step({a: policy(obs[a]) for a in env.agents})
                np.testing.assert_allclose(obs["blue"], obs["yellow"], atol=1e-5)
            start = np.array(scene["robots"][(0, 0)][:2])
            self.assertGreater(np.hypot(*(env.world.truth()["pos"][0] - start)), 0.1)  # the policy did drive

    def test_yellows_vision_is_the_world_frame_turned(self):
        """Vision: yellow's observation equals an observer of the same
        robots in the world's frame, turned by the documented rule (x, y
        negated, orientation + pi, ages kept), frame by frame."""
        with sslsim.SslSimParallelEnv(observation="vision") as env:
            env.reset(seed=6)
            w = env.world
            observed = [(1, i) for i in range(11)] + [(0, i) for i in range(11)]
            plain = sslsim.learn.Observer("vision", observed, 1, w.limits())
            buf = np.zeros(plain.size, dtype=np.float32)
            plain.write(0, w, buf)
            seen = 0
            for _ in range(40):
                obs, *_ = env.step({a: np.tile([1.0, 0.0, 1.0, 0, 0, 0], (11, 1)) for a in env.agents})
                plain.write(0, w, buf)
                want = buf.reshape(-1)
                got = obs["yellow"]
                ball, robots = (want[:3], got[:3]), (want[3:].reshape(-1, 4), got[3:].reshape(-1, 4))
                self.assertEqual(ball[1][0], ball[0][0])
                if ball[0][0] >= 0:
                    np.testing.assert_array_equal(ball[1][1:], 0.0 - ball[0][1:])
                np.testing.assert_array_equal(robots[1][:, 0], robots[0][:, 0])
                for r_want, r_got in zip(*robots):
                    if r_want[0] < 0:
                        np.testing.assert_array_equal(r_got, r_want)
                        continue
                    seen += 1
                    np.testing.assert_array_equal(r_got[1:3], 0.0 - r_want[1:3])
                    self.assertAlmostEqual(math.remainder(r_got[3] - r_want[3] - math.pi, 2 * math.pi), 0.0,
                                           places=6)
            self.assertGreater(seen, 100)
            plain.close()


if __name__ == "__main__":
    unittest.main()

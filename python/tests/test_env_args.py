"""Tests of what a user gets wrong with the environments: each mistake
raises an exception naming the argument, and changes nothing: a closed
environment, arguments SslSimEnv's siblings refuse, seeds outside 64
bits, actions beyond the float range. Run by `make test`
(scripts/run-python-tests.sh) with the system /usr/bin/python3.
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402

import sslsim  # noqa: E402


class EnvArgumentsTest(unittest.TestCase):
    def test_a_closed_env_refuses_reset_and_step(self):
        """step() after close() once freed-world memory in C (a crash); now
        close() frees the world, the observer and the task, twice is fine,
        and reset() and step() raise ValueError, with and without a task."""
        for task in (None, "shoot"):
            for observation in ("truth", "vision"):
                env = sslsim.SslSimEnv(observation=observation, task=task)
                env.reset(seed=1)
                action = np.zeros(env.action_space.shape)
                env.step(action)
                env.close()
                env.close()
                with self.assertRaisesRegex(ValueError, "closed"):
                    env.step(action)
                with self.assertRaisesRegex(ValueError, "closed"):
                    env.reset(seed=1)

    def test_bad_arguments_name_the_argument_and_change_nothing(self):
        """What SslSimVectorEnv and SslSimParallelEnv refuse, SslSimEnv
        refuses too, instead of ignoring it: reward_fn or termination_fn
        with a task (the task gives both), max_steps 0, an unknown reset
        option (a typo such as "bal") and a ball of neither 2 nor 4
        numbers. Each ValueError names the argument, and a refused reset
        leaves the world and the episode count as they were."""
        with self.assertRaisesRegex(ValueError, "reward_fn"):
            sslsim.SslSimEnv(task="go_to_ball", reward_fn=lambda obs, info: 1.0)
        with self.assertRaisesRegex(ValueError, "termination_fn"):
            sslsim.SslSimEnv(task="go_to_ball", termination_fn=lambda obs, info: True)
        for steps in (0, -3, 2.5):
            with self.assertRaisesRegex(ValueError, "max_steps"):
                sslsim.SslSimEnv(max_steps=steps)
        env = sslsim.SslSimEnv()
        env.reset(seed=3)
        env.step(np.full(env.action_space.shape, 0.5))
        before = (env.world.seed, env.world.time, env.world.truth_record().tobytes())
        for options, name in (({"bal": (1.0, 0.0)}, "options"), ({"ball": (1,)}, "ball"),
                              ({"ball": (1, 2, 3)}, "ball"), ({"ball": "xy"}, "ball"),
                              ({"robots": {(0, 1): (1.0, 2.0)}}, "robots")):
            with self.assertRaisesRegex(ValueError, name):
                env.reset(seed=9, options=options)
            self.assertEqual((env.world.seed, env.world.time, env.world.truth_record().tobytes()), before)
        env.reset()
        self.assertEqual(env.world.seed, 4, "a refused reset counted as an episode")
        obs, info = env.reset(options={"ball": (1.0, -0.5), "robots": {(0, 1): (-1.0, 2.0, 0.5)}})
        self.assertEqual(info["errors"], [])
        np.testing.assert_allclose(info["truth"]["ball"][:2], [1.0, -0.5], atol=1e-6)

    def test_any_int_seed_is_taken_mod_2_64(self):
        """reset(seed=-1), or a seed of 2**64 and more, is the episode of
        that seed mod 2**64 (the world's seed is 64 bits), np_random
        included, instead of numpy's "expected non-negative integer";
        reset() goes on from there."""
        def episode(env, seed):
            obs, _ = env.reset(seed=seed)
            trace = [obs] + [env.step(np.full(env.action_space.shape, 0.5))[0] for _ in range(5)]
            return np.array(trace), env.world.seed, env.np_random.integers(1 << 62)

        env = sslsim.SslSimEnv(task="go_to_ball")
        for seed, same in ((-1, 2 ** 64 - 1), (2 ** 64 + 3, 3)):
            got, want = episode(env, seed), episode(env, same)
            np.testing.assert_array_equal(got[0], want[0])
            self.assertEqual(got[1:], want[1:])
            self.assertEqual(got[1], same)
        env.reset(seed=-1)
        env.reset()
        self.assertEqual(env.world.seed, 0)

    def test_a_huge_finite_action_is_out_of_the_space_not_an_error(self):
        """An action of 1e300 (finite, beyond a 32-bit float) is an action
        outside the space like 1e7: the same step, the same protocol
        error (UNSUPPORTED beyond 1e6, docs/physics.md), no exception, in
        World, SslSimEnv and SslSimVectorEnv. NaN and infinity still
        raise."""
        def world_after(value):
            w = sslsim.World(seed=1)
            errors = w.robot_commands([0], [0], [[value, 0.5, -value, value, value, value]])
            w.step(0.016)
            return errors, w.truth_record().tobytes()

        self.assertEqual(world_after(1e300), world_after(1e7))
        self.assertEqual(world_after(-1e300), world_after(-1e7))
        self.assertEqual(len(world_after(1e300)[0]), 1)

        def env_after(value):
            env = sslsim.SslSimEnv()
            env.reset(seed=1)
            obs, _, _, _, info = env.step(np.full(env.action_space.shape, value))
            return obs.tobytes(), info["errors"]

        self.assertEqual(env_after(1e300), env_after(1e7))
        with sslsim.SslSimVectorEnv(2) as a, sslsim.SslSimVectorEnv(2) as b:
            a.reset(seed=1)
            b.reset(seed=1)
            np.testing.assert_array_equal(a.step(np.full(a.action_space.shape, -1e300))[0],
                                          b.step(np.full(b.action_space.shape, -1e7))[0])
        env = sslsim.SslSimEnv()
        env.reset(seed=1)
        for bad in (np.nan, np.inf, -np.inf):
            with self.assertRaises(ValueError):
                env.step(np.full(env.action_space.shape, bad))


if __name__ == "__main__":
    unittest.main()

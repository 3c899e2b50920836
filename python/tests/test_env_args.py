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


class ValuesTest(unittest.TestCase):
    """Values a user gets wrong that the environments used to take, or took
    only half: each raises an exception naming the argument before
    anything changes."""

    def test_a_bad_option_value_is_refused_before_the_reset(self):
        """A NaN ball, a robot of team 5 or id 2**32 + 3 (once robot 3), a
        NaN pose and options that are not a dict were refused only after
        the world had been reset (its episode gone, the next reset a seed
        further on). Now nothing has changed when they raise, in SslSimEnv
        and SslSimParallelEnv."""
        bad = (({"ball": (float("nan"), 0.0)}, r"options\['ball'\].*finite"),
               ({"ball": (1.0, 0.0, float("inf"), 0.0)}, r"options\['ball'\].*finite"),
               ({"robots": {(5, 0): (1.0, 2.0, 0.0)}}, r"options\['robots'\] key.*team 0/1"),
               ({"robots": {(0, 2 ** 32 + 3): (1.0, 2.0, 0.0)}}, r"options\['robots'\] key.*id 0..255"),
               ({"robots": {(0, 1.5): (1.0, 2.0, 0.0)}}, r"options\['robots'\] key.*two ints"),
               ({"robots": {(0, 0): (float("nan"), 2.0, 0.0)}}, r"options\['robots'\]\[\(0, 0\)\].*finite"),
               ([1], "options must be None or a dict"))
        for make in (lambda: sslsim.SslSimEnv(task="go_to_ball"), sslsim.SslSimParallelEnv):
            env = make()
            env.reset(seed=5)
            if isinstance(env, sslsim.SslSimEnv):
                env.step(np.ones(env.action_space.shape))
            world = env.world if isinstance(env, sslsim.SslSimEnv) else env._world
            world.step(0.016)
            before = (world.seed, world.time, world.truth_record().tobytes())
            for options, pattern in bad:
                with self.assertRaisesRegex(ValueError, pattern):
                    env.reset(options=options)
                self.assertEqual((world.seed, world.time, world.truth_record().tobytes()), before)
            env.reset()
            self.assertEqual(world.seed, 6, "a refused reset counted as an episode")
            env.close()

    def test_a_seed_is_an_int_everywhere(self):
        """reset(seed=1.5) was seed 1, reset(seed="7") seed 7, a vector
        env's reset(seed="1234") the seeds 1, 2, 3, 4, and Batch's seeds
        refused 2**64 (OverflowError) where every other seed is taken mod
        2**64. Now a seed that is not an int is TypeError naming it, and
        Batch's seeds wrap as the docs say."""
        env = sslsim.SslSimEnv()
        env.reset(seed=3)
        for seed in (1.5, "7", [1, 2], True):
            with self.assertRaisesRegex(TypeError, "seed must be an int"):
                env.reset(seed=seed)
            self.assertEqual(env.world.seed, 3)
        env.close()
        with self.assertRaisesRegex(TypeError, "seed must be an int"):
            sslsim.World(seed=2.5, vision=False)
        with sslsim.SslSimVectorEnv(4) as venv:
            for seed, pattern in (([1.5, 2.5, 3.5, 4.5], r"seed\[0\] must be an int"),
                                  ([1, 2, 3, "4"], r"seed\[3\] must be an int"),
                                  ("1234", "seed must be a list of 4 ints")):
                with self.assertRaisesRegex(TypeError, pattern):
                    venv.reset(seed=seed)
            _, infos = venv.reset(seed=np.array([-1, 0, 2 ** 62, 7]))
            self.assertEqual(infos["seed"].tolist(), [2 ** 64 - 1, 0, 2 ** 62, 7])
        with sslsim.Batch(3, seeds=[2 ** 64 + 5, -1, 9], vision=False) as b:
            self.assertEqual([b.world(k).seed for k in range(3)], [5, 2 ** 64 - 1, 9])
        with self.assertRaisesRegex(TypeError, r"seeds\[1\] must be an int"):
            sslsim.Batch(2, seeds=[1, 2.5], vision=False)
        with self.assertRaisesRegex(ValueError, "seeds must list 2 seeds"):
            sslsim.Batch(2, seeds=[1], vision=False)
        penv = sslsim.SslSimParallelEnv()
        with self.assertRaisesRegex(TypeError, "seed must be an int"):
            penv.reset(seed=1.5)
        penv.close()

    def test_robots_are_checked_when_the_env_is_made(self):
        """SslSimVectorEnv took controlled=[(0, 300)] and failed only at
        its first step, and [(5, 0)] gave a bare IndexError; SslSimEnv
        took an id of 1.5 as 1. Both now check every (team, id) they are
        given when they are made, naming it."""
        for robots, pattern in (([(5, 0)], r"controlled\[0\].*team 0/1"), ([(0, 300)], r"controlled\[0\]"),
                                ([(0, 1), (0, 2 ** 32 + 3)], r"controlled\[1\]"),
                                ([(0, 1.5)], r"controlled\[0\].*two ints"), ([0], r"controlled\[0\]")):
            with self.assertRaisesRegex(ValueError, pattern):
                sslsim.SslSimVectorEnv(2, task=None, controlled=robots)
            with self.assertRaisesRegex(ValueError, pattern):
                sslsim.SslSimEnv(task="shoot", controlled=robots)
        with self.assertRaisesRegex(ValueError, r"observed\[1\]"):
            sslsim.SslSimVectorEnv(2, observed=[(0, 0), (1, -1)])
        with self.assertRaisesRegex(ValueError, "controlled must be a list"):
            sslsim.SslSimEnv(controlled=7)

    def test_a_world_names_what_it_refuses(self):
        """World.robot_commands put team 2**32 and id 2**32 + 3 into 32-bit
        fields, driving blue robot 3; a string where a number belongs
        raised ctypes' "argument 2: wrong type" or float()'s message; an
        action of bools or complex numbers (the imaginary part dropped)
        was taken. Each now names the argument."""
        w = sslsim.World(seed=1, vision=False)
        drive = [[2.0, 0, 0, 0, 0, 0]]
        before = w.truth_record().tobytes()
        for teams, ids, name in (([2 ** 32], [3], "teams"), ([0], [2 ** 32 + 3], "ids"), ([0], [1.5], "ids")):
            with self.assertRaisesRegex(ValueError, name):
                w.robot_commands(teams=teams, ids=ids, actions=drive)
        for _ in range(10):
            w.step(0.016)
        self.assertEqual(w.truth()["pos"].tolist(), sslsim.World(seed=1, vision=False).truth()["pos"].tolist(),
                         "a refused command moved a robot")
        self.assertNotEqual(before, w.truth_record().tobytes())
        with self.assertRaisesRegex(ValueError, "x must be a number"):
            w.teleport_ball("a", 0)
        with self.assertRaisesRegex(ValueError, "orientation must be a number"):
            w.teleport_robot(0, 1, 0.0, 0.0, None)
        with self.assertRaisesRegex(ValueError, "team and id"):
            w.teleport_robot(0, 2 ** 40)
        with self.assertRaisesRegex(ValueError, "dt must be a number"):
            w.step("x")
        w.close()
        with self.assertRaisesRegex(ValueError, "dt must be a number"):
            sslsim.SslSimEnv(dt="x")
        with self.assertRaisesRegex(ValueError, "dt must be a number"):
            sslsim.SslSimVectorEnv(2, dt=None)
        with self.assertRaisesRegex(ValueError, "max_steps"):
            sslsim.SslSimEnv(max_steps=True)
        env = sslsim.SslSimEnv()
        env.reset(seed=1)
        t = env.world.time
        for dtype in (bool, complex, str):
            with self.assertRaisesRegex(TypeError, "action must be real numbers"):
                env.step(np.ones(env.action_space.shape, dtype=dtype))
        self.assertEqual(env.world.time, t)
        env.step(np.ones(env.action_space.shape, dtype=np.int32))  # integers are numbers
        env.close()


if __name__ == "__main__":
    unittest.main()

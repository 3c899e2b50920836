"""Tests of sslsim.SslSimVectorEnv (Gymnasium 1.x VectorEnv's interface
over a Batch) and of the go_to_ball task, with the defaults a user meets:
shapes, spaces and finite bounds for both observation kinds, the
next-step autoreset rule, seeds that fix a world's bytes whatever the
batch size or thread count, the task's documented formula, reset
distribution and termination, one observation code for SslSimEnv and the
vector env, and bad input raising exceptions that name the argument.
"""
import math
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402

import sslsim  # noqa: E402
from tests import env_checker  # noqa: E402
from tests.docs_example import run_docs_block  # noqa: E402


def actions_for(env, steps, seed=0):
    """A reproducible sequence of actions in the env's action space, per
    world a stream of its own (so world k's actions can be replayed in
    another batch)."""
    rng = np.random.default_rng(seed)
    low, high = env.single_action_space.low, env.single_action_space.high
    return rng.uniform(low, high, size=(steps,) + low.shape).astype(np.float32)


def roll(env, seeds, per_world_actions):
    """obs, rewards, terminated, truncated of every step, per world, after
    reset(seed=seeds); world k takes per_world_actions[k][t]."""
    obs, _ = env.reset(seed=seeds)
    out = [[(o.tobytes(), 0.0, False, False)] for o in obs]
    steps = len(per_world_actions[0])
    for t in range(steps):
        a = np.stack([per_world_actions[k][t] for k in range(env.num_envs)])
        obs, rew, term, trunc, _ = env.step(a)
        for k in range(env.num_envs):
            out[k].append((obs[k].tobytes(), float(rew[k]), bool(term[k]), bool(trunc[k])))
    return out


class VectorInterfaceTest(unittest.TestCase):
    def test_the_docs_example_runs_as_written(self):
        """docs/embedding.md's block under "The vector environment", run by
        /usr/bin/python3 from the source tree as a user would."""
        run_docs_block(self, "embedding.md", "### The vector environment", "SslSimVectorEnv(64)", timeout=120)

    def test_shapes_spaces_and_bounds_for_both_kinds(self):
        for kind, d in (("truth", 13), ("vision", 7)):
            with sslsim.SslSimVectorEnv(4, observation=kind) as env:
                self.assertEqual(env.num_envs, 4)
                self.assertEqual(env.single_observation_space.shape, (d,))
                self.assertEqual(env.observation_space.shape, (4, d))
                self.assertEqual(env.single_action_space.shape, (1, 6))
                self.assertEqual(env.action_space.shape, (4, 1, 6))
                for space in (env.single_observation_space, env.observation_space, env.single_action_space,
                              env.action_space):
                    self.assertTrue(np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)))
                    self.assertTrue(np.all(space.low < space.high))
                obs, infos = env.reset(seed=3)
                self.assertEqual((obs.shape, obs.dtype), ((4, d), np.float32))
                self.assertIn(obs, env.observation_space)
                self.assertIsInstance(infos, dict)
                for _ in range(20):
                    obs, rew, term, trunc, infos = env.step(env.action_space.sample())
                    self.assertIn(obs, env.observation_space)
                    self.assertEqual((rew.shape, rew.dtype), ((4,), np.float64))
                    self.assertEqual((term.shape, term.dtype, trunc.shape, trunc.dtype),
                                     ((4,), np.bool_, (4,), np.bool_))
                    self.assertTrue(np.all(np.isfinite(rew)))

    def test_each_single_space_passes_the_projects_checker_as_a_single_env(self):
        """The vector env is no gymnasium.Env, so check_env does not apply
        to it; the same task and observer behind SslSimEnv pass it."""
        for kind in ("truth", "vision"):
            env_checker.check_env(sslsim.SslSimEnv(observation=kind, task="go_to_ball"))

    def test_returned_arrays_are_copies(self):
        with sslsim.SslSimVectorEnv(2) as env:
            first, _ = env.reset(seed=1)
            kept = first.copy()
            env.step(env.action_space.sample())
            np.testing.assert_array_equal(first, kept)


class AutoresetTest(unittest.TestCase):
    def test_next_step_autoreset_after_truncation(self):
        """max_steps 3: step 3 truncates; step 4 ignores its action and
        returns the next episode's first observation (seed + 2**32), reward
        0, both flags False."""
        with sslsim.SslSimVectorEnv(2, max_steps=3) as env:
            env.reset(seed=10)
            for t in range(3):
                obs, rew, term, trunc, infos = env.step(env.action_space.sample())
            self.assertEqual(trunc.tolist(), [True, True])
            obs, rew, term, trunc, infos = env.step(env.action_space.sample())
            self.assertEqual(rew.tolist(), [0.0, 0.0])
            self.assertEqual((term.tolist(), trunc.tolist()), ([False, False], [False, False]))
            self.assertEqual(infos["seed"].tolist(), [10 + 2 ** 32, 11 + 2 ** 32])
            with sslsim.SslSimVectorEnv(2) as fresh:
                first, _ = fresh.reset(seed=[10 + 2 ** 32, 11 + 2 ** 32])
            np.testing.assert_array_equal(obs, first)
            obs, rew, term, trunc, infos = env.step(env.action_space.sample())
            self.assertEqual(trunc.tolist(), [False, False])

    def test_success_terminates_with_the_bonus_and_resets_next_step(self):
        """The robot put next to the ball, facing it: the next step ends
        the episode with the bonus; the step after resets that world only."""
        with sslsim.SslSimVectorEnv(2) as env:
            env.reset(seed=4)
            w = env.batch.world(0)
            t = w.truth()
            bx, by = t["ball"][:2]
            w.teleport_robot(0, 0, bx - 0.12, by, 0.0)
            obs, rew, term, trunc, _ = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
            self.assertEqual(term.tolist(), [True, False])
            self.assertGreater(rew[0], sslsim.learn.GO_TO_BALL["bonus"] - 1.0)
            before = env.batch.world(1).time
            obs, rew, term, trunc, infos = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
            self.assertEqual(env.batch.world(0).time, 0.0)
            self.assertGreater(env.batch.world(1).time, before)
            self.assertEqual(infos["seed"].tolist(), [4 + 2 ** 32, 5])


class ResetMaskTest(unittest.TestCase):
    """Gymnasium 1.x's reset(options={"reset_mask": m}): the masked worlds
    start their next episode, the others go on as if nothing happened."""

    def test_masked_worlds_reset_and_the_others_go_on_unchanged(self):
        for kind in ("truth", "vision"):
            with self.subTest(kind=kind), sslsim.SslSimVectorEnv(4, observation=kind) as env, \
                    sslsim.SslSimVectorEnv(4, observation=kind) as ref:
                rng = np.random.default_rng(3)
                env.reset(seed=20)
                ref.reset(seed=20)
                for _ in range(5):
                    a = rng.uniform(-1, 1, env.action_space.shape)
                    before, *_ = env.step(a)
                    ref.step(a)
                mask = np.array([True, False, True, False])
                obs, infos = env.reset(options={"reset_mask": mask})
                # the held rows are the last step's; the reset ones the next episode's first
                np.testing.assert_array_equal(obs[~mask], before[~mask])
                self.assertEqual(infos["seed"].tolist(), [20 + 2 ** 32, 21, 22 + 2 ** 32, 23])
                with sslsim.SslSimVectorEnv(4, observation=kind) as fresh:
                    first, _ = fresh.reset(seed=[20 + 2 ** 32, 21, 22 + 2 ** 32, 23])
                np.testing.assert_array_equal(obs[mask], first[mask])
                # the held worlds' episodes go on byte for byte as in a run without the reset
                for _ in range(5):
                    a = rng.uniform(-1, 1, env.action_space.shape)
                    o1, r1, te1, tr1, _ = env.step(a)
                    o2, r2, te2, tr2, _ = ref.step(a)
                    np.testing.assert_array_equal(o1[~mask], o2[~mask])
                    np.testing.assert_array_equal(r1[~mask], r2[~mask])
                self.assertEqual(env.batch.world(0).time, env.batch.world(2).time)
                self.assertGreater(env.batch.world(1).time, env.batch.world(0).time)

    def test_a_seed_with_a_mask_seeds_only_the_masked_worlds(self):
        with sslsim.SslSimVectorEnv(3) as env:
            env.reset(seed=7)
            _, infos = env.reset(seed=100, options={"reset_mask": np.array([False, True, False])})
            self.assertEqual(infos["seed"].tolist(), [7, 101, 9])

    def test_a_held_world_that_ended_still_autoresets_on_the_next_step(self):
        with sslsim.SslSimVectorEnv(2, max_steps=2) as env:
            env.reset(seed=40)
            for _ in range(2):
                _, _, _, trunc, _ = env.step(np.zeros(env.action_space.shape))
            self.assertEqual(trunc.tolist(), [True, True])
            env.reset(options={"reset_mask": np.array([True, False])})
            _, rew, term, trunc, infos = env.step(np.zeros(env.action_space.shape))
            # world 0 was reset by the mask and steps; world 1 autoresets now
            self.assertEqual(infos["seed"].tolist(), [40 + 2 ** 32, 41 + 2 ** 32])
            self.assertEqual(env.batch.world(1).time, 0.0)
            self.assertGreater(env.batch.world(0).time, 0.0)

    def test_bad_masks_name_the_option_and_change_nothing(self):
        with sslsim.SslSimVectorEnv(2) as env:
            with self.assertRaisesRegex(ValueError, "reset_mask.*before the first reset"):
                env.reset(options={"reset_mask": np.array([True, False])})
            obs, _ = env.reset(seed=1)
            t = env.batch.world(0).time
            for bad, why in (([1, 0], "bool array"), (np.array([True]), "shape"),
                             (np.array([False, False]), "no world")):
                with self.assertRaisesRegex(ValueError, "reset_mask.*" + why):
                    env.reset(options={"reset_mask": bad})
            with self.assertRaisesRegex(ValueError, "only reset_mask is known"):
                env.reset(options={"autoreset": True})
            self.assertEqual(env.batch.world(0).time, t)


class SeedTest(unittest.TestCase):
    def test_a_worlds_bytes_depend_only_on_its_seed(self):
        """World seeded 5 gives the same observations, rewards and flags
        (through autoresets) in a batch of 2 on 1 thread and in a batch of
        3 on 2 threads at another position, for both kinds."""
        for kind in ("truth", "vision"):
            a = sslsim.SslSimVectorEnv(2, observation=kind, threads=1, max_steps=15)
            b = sslsim.SslSimVectorEnv(3, observation=kind, threads=2, max_steps=15)
            act5 = actions_for(a, 40, seed=5)
            other = actions_for(a, 40, seed=6)
            ra = roll(a, [5, 9], [act5, other])
            rb = roll(b, [9, 1, 5], [other, other, act5])
            self.assertEqual(ra[0], rb[2], kind)
            self.assertEqual(ra[1], rb[0], kind)
            self.assertNotEqual(ra[0], ra[1])
            a.close()
            b.close()

    def test_int_seed_is_seed_plus_k_and_reset_without_seed_moves_on(self):
        with sslsim.SslSimVectorEnv(3) as env:
            _, infos = env.reset(seed=7)
            self.assertEqual(infos["seed"].tolist(), [7, 8, 9])
            _, infos = env.reset()
            self.assertEqual(infos["seed"].tolist(), [7 + 2 ** 32, 8 + 2 ** 32, 9 + 2 ** 32])
            again, _ = env.reset(seed=7)
            first, _ = sslsim.SslSimVectorEnv(3).reset(seed=7)
            np.testing.assert_array_equal(again, first)

    def test_any_int_seed_is_taken_mod_2_64(self):
        """reset(seed=-1) gives world k the seed (k - 1) mod 2**64, as
        SslSimEnv takes it, np_random included, instead of numpy's
        "expected non-negative integer"."""
        with sslsim.SslSimVectorEnv(2) as env:
            got, infos = env.reset(seed=-1)
            self.assertEqual(infos["seed"].tolist(), [2 ** 64 - 1, 0])
            draw = env.np_random.integers(1 << 62)
            want, _ = env.reset(seed=2 ** 64 - 1)
            np.testing.assert_array_equal(got, want)
            self.assertEqual(draw, env.np_random.integers(1 << 62))
            _, infos = env.reset(seed=[-2, 2 ** 64 + 5])
            self.assertEqual(infos["seed"].tolist(), [2 ** 64 - 2, 5])

    def test_the_vector_env_and_sslsimenv_share_task_and_observation(self):
        """One home: SslSimEnv(task=name, seed=s) and world k of the vector
        env seeded s give the same floats, step by step (go_to_ball, and
        dribble with the task's own floats)."""
        for kind, task in (("truth", "go_to_ball"), ("vision", "go_to_ball"), ("vision", "dribble")):
            single = sslsim.SslSimEnv(observation=kind, task=task, seed=12)
            vec = sslsim.SslSimVectorEnv(2, observation=kind, task=task, max_steps=1000)
            acts = actions_for(vec, 30, seed=1)
            o1, _ = single.reset()
            ov, _ = vec.reset(seed=[3, 12])
            np.testing.assert_array_equal(o1, ov[1])
            for t in range(30):
                o1, r1, d1, _, _ = single.step(acts[t])
                ov, rv, dv, _, _ = vec.step(np.stack([acts[t], acts[t]]))
                np.testing.assert_array_equal(o1, ov[1])
                self.assertEqual(np.float32(r1), np.float32(rv[1]))
                self.assertEqual(d1, bool(dv[1]))
                if d1:
                    break
            vec.close()


class GoToBallTest(unittest.TestCase):
    def test_reset_puts_the_robot_alone_away_from_the_ball(self):
        """The reset distribution of docs/embedding.md: only blue 0 on the
        field, both inside the lines by the margin, at least APART apart,
        the ball at rest."""
        g = sslsim.learn.GO_TO_BALL
        with sslsim.SslSimVectorEnv(16) as env:
            env.reset(seed=100)
            lim = env.batch.world(0).limits()
            seen = set()
            for k in range(16):
                t = env.batch.world(k).truth()
                self.assertEqual(list(zip(t["team"].tolist(), t["id"].tolist())), [(0, 0)])
                ball, robot = t["ball"], t["pos"][0]
                for x, y in (ball[:2], robot):
                    self.assertLessEqual(abs(x), lim["field_length"] / 2 - g["margin"] + 1e-6)
                    self.assertLessEqual(abs(y), lim["field_width"] / 2 - g["margin"] + 1e-6)
                self.assertGreaterEqual(math.hypot(*(ball[:2] - robot)), g["apart"] - 1e-6)
                self.assertEqual(ball[3:].tolist(), [0.0, 0.0, 0.0])
                seen.add(round(float(ball[0]), 3))
            self.assertEqual(len(seen), 16)

    def test_reward_is_the_documented_progress(self):
        """r = (d0 - d1) + TURN * (phi0 - phi1), no bonus away from the ball."""
        g = sslsim.learn.GO_TO_BALL

        def measure(w):
            t = w.truth()
            dx, dy = t["ball"][:2] - t["pos"][0]
            heading = abs(math.remainder(math.atan2(dy, dx) - t["orientation"][0], 2 * math.pi))
            return math.hypot(dx, dy), heading

        with sslsim.SslSimVectorEnv(3) as env:
            env.reset(seed=21)
            act = np.zeros(env.action_space.shape, dtype=np.float32)
            act[:, 0, 0] = 2.0  # forward
            act[:, 0, 2] = 1.0  # turning
            for _ in range(5):
                before = [measure(env.batch.world(k)) for k in range(3)]
                _, rew, term, _, _ = env.step(act)
                for k in range(3):
                    d1, h1 = measure(env.batch.world(k))
                    want = (before[k][0] - d1) + g["turn"] * (before[k][1] - h1)
                    self.assertAlmostEqual(rew[k], want, places=5)
                    self.assertFalse(term[k])

    def test_ball_out_of_the_field_ends_with_the_penalty(self):
        g = sslsim.learn.GO_TO_BALL
        with sslsim.SslSimVectorEnv(1) as env:
            env.reset(seed=2)
            w = env.batch.world(0)
            w.teleport_ball(0.0, -5.0, 0.0, -3.0)
            _, rew, term, _, _ = env.step(np.zeros(env.action_space.shape, dtype=np.float32))
            self.assertTrue(term[0])
            self.assertLess(rew[0], g["out"] + 1.0)


class StepInfoTest(unittest.TestCase):
    def test_info_read_later_holds_its_own_steps_values(self):
        """SslSimEnv's info is decoded when first read, from a snapshot of
        its step: read after more steps it still says what that step saw,
        and a dict built from it equals it."""
        for kind in ("truth", "vision"):
            env = sslsim.SslSimEnv(observation=kind)
            env.reset(seed=8)
            a = np.zeros(env.action_space.shape)
            infos, truths, dets = [], [], []
            for _ in range(5):
                _, _, _, _, info = env.step(a + 1.0)
                infos.append(info)
                truths.append(env.world.truth_record().tobytes())
                dets.append([sslsim.detection_dict(r) for r in env.world.detections()])
            for info, t, d in zip(infos, truths, dets):
                want = sslsim.truth_dict(np.frombuffer(t, dtype=sslsim.TRUTH)[0])
                self.assertEqual(sorted(info), sorted(["truth", "time", "errors"]
                                                      + (["detections"] if kind == "vision" else [])))
                self.assertEqual(info["time"], want["time"])
                np.testing.assert_array_equal(info["truth"]["pos"], want["pos"])
                if kind == "vision":
                    self.assertEqual(len(info["detections"]), len(d))
                    for got, exp in zip(info["detections"], d):
                        self.assertEqual(got["t_capture"], exp["t_capture"])
                        np.testing.assert_array_equal(got["robots"]["pos"], exp["robots"]["pos"])
                self.assertTrue(env_checker.equivalent(dict(info), dict(info.items())))


class BadInputTest(unittest.TestCase):
    def test_bad_actions_name_the_argument(self):
        with sslsim.SslSimVectorEnv(2) as env:
            with self.assertRaisesRegex(RuntimeError, "reset"):
                env.step(np.zeros((2, 1, 6)))
            env.reset(seed=1)
            with self.assertRaisesRegex(ValueError, "actions.*shape"):
                env.step(np.zeros((2, 6)))
            with self.assertRaisesRegex(TypeError, "actions.*float"):
                env.step(np.zeros((2, 1, 6), dtype=np.int64))
            with self.assertRaisesRegex(TypeError, "actions.*float"):
                env.step([["a"] * 6] * 2)
            bad = np.zeros((2, 1, 6))
            bad[1, 0, 4] = np.nan
            with self.assertRaisesRegex(ValueError, "actions.*finite.*world 1"):
                env.step(bad)
            bad[1, 0, 4] = np.inf
            with self.assertRaisesRegex(ValueError, "actions"):
                env.step(bad)
            # nothing was lost: the env still steps
            obs, *_ = env.step(np.zeros((2, 1, 6)))
            self.assertIn(obs, env.observation_space)
        env.close()
        with self.assertRaisesRegex(ValueError, "closed"):
            env.reset(seed=1)

    def test_a_rollout_is_the_same_steps_and_refuses_a_bad_policy(self):
        """rollout(policy, 20) over an autoreset (max_steps 8) returns what
        20 steps with the policy's actions return, in one call; a policy
        that answers with the wrong shape or dtype is named."""
        def policy(obs, worlds):  # forward at 0.4 + 0.1 * world, the rest still
            a = np.zeros((len(obs), 1, 6))
            a[:, 0, 0] = 0.4 + 0.1 * worlds
            return a

        with sslsim.SslSimVectorEnv(3, max_steps=8, threads=1) as env, \
                sslsim.SslSimVectorEnv(3, max_steps=8, threads=1) as plain:
            with self.assertRaisesRegex(RuntimeError, "reset"):
                env.rollout(policy, 2)
            env.reset(seed=5)
            obs, _ = plain.reset(seed=5)
            traj = env.rollout(policy, 20)
            for t in range(20):
                np.testing.assert_array_equal(traj["obs"][t], obs)
                np.testing.assert_array_equal(traj["actions"][t], policy(obs, np.arange(3)))
                obs, rew, term, trunc, infos = plain.step(policy(obs, np.arange(3)))
                np.testing.assert_array_equal(traj["rewards"][t], rew)
                np.testing.assert_array_equal(traj["terminated"][t], term)
                np.testing.assert_array_equal(traj["truncated"][t], trunc)
                np.testing.assert_array_equal(traj["seeds"][t], infos["seed"])
            np.testing.assert_array_equal(traj["last_obs"], obs)
            self.assertTrue(traj["truncated"][7].all())
            with self.assertRaisesRegex(ValueError, "steps"):
                env.rollout(policy, 0)
            with self.assertRaisesRegex(ValueError, "policy.*shape"):
                env.rollout(lambda o, w: np.zeros((3, 6)), 1)
            with self.assertRaisesRegex(TypeError, "policy.*float"):
                env.rollout(lambda o, w: np.zeros((3, 1, 6), dtype=int), 1)
            with self.assertRaisesRegex(TypeError, "policy"):
                env.rollout(None, 1)

    def test_a_refused_step_moves_nothing_and_skips_no_episode(self):
        """A NaN in the step that autoresets world 0 refuses the step; the
        next good step resets world 0 with the episode's next seed."""
        with sslsim.SslSimVectorEnv(2, max_steps=2) as env:
            env.reset(seed=30)
            env.step(np.zeros((2, 1, 6)))
            env.step(np.zeros((2, 1, 6)))
            t = [env.batch.world(k).time for k in range(2)]
            bad = np.zeros((2, 1, 6))
            bad[0, 0, 0] = np.nan
            with self.assertRaisesRegex(ValueError, "actions.*world 0"):
                env.step(bad)
            self.assertEqual([env.batch.world(k).time for k in range(2)], t)
            _, _, _, _, infos = env.step(np.zeros((2, 1, 6)))
            self.assertEqual(infos["seed"].tolist(), [30 + 2 ** 32, 31 + 2 ** 32])

    def test_bad_seeds_options_and_construction_name_the_argument(self):
        with sslsim.SslSimVectorEnv(2) as env:
            with self.assertRaisesRegex(ValueError, "seed"):
                env.reset(seed=[1, 2, 3])
            with self.assertRaisesRegex(TypeError, r"seed\[0\]"):
                env.reset(seed=["x", 1])
            with self.assertRaisesRegex(ValueError, "options"):
                env.reset(options={"unknown": 1})
        with self.assertRaisesRegex(ValueError, "observation"):
            sslsim.SslSimVectorEnv(2, observation="radar")
        with self.assertRaisesRegex(ValueError, "task"):
            sslsim.SslSimVectorEnv(2, task="juggle")
        with self.assertRaisesRegex(ValueError, "n must"):
            sslsim.SslSimVectorEnv(0)
        with self.assertRaisesRegex(ValueError, "max_steps"):
            sslsim.SslSimVectorEnv(2, max_steps=0)


if __name__ == "__main__":
    unittest.main()

"""Tests of libsslsim's task library through the Python environments a
user meets (SslSimVectorEnv, SslSimEnv, SslSimParallelEnv), with their
defaults: every task chosen by name gives observations inside its space
(its own floats included), finite rewards and bytes that depend only on
a world's seed; a scripted shot scores with the bonus and the world
autoresets; dribble's target is in the observation; a game's goal pays
+1/-1 to the teams and restarts from a kick-off; the docs' example runs;
bad names raise an exception naming the argument.
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
from tests.test_vector import actions_for, roll  # noqa: E402


def behind(world, team, rid, aim):
    """Robot (team, rid) put 0.12 m behind the ball on the line from aim, facing aim."""
    b = world.truth()["ball"][:2]
    a = math.atan2(aim[1] - b[1], aim[0] - b[0])
    world.teleport_robot(team, rid, b[0] - 0.12 * math.cos(a), b[1] - 0.12 * math.sin(a), a)


class TaskListTest(unittest.TestCase):
    def test_the_docs_example_runs_as_written(self):
        run_docs_block(self, "embedding.md", "### Tasks", 'task="shoot"', timeout=120)

    def test_every_task_by_name_fills_its_spaces_for_both_kinds(self):
        self.assertEqual(sslsim.TASKS, ("go_to_ball", "shoot", "dribble", "pass", "penalty", "keepaway_1v1",
                                        "keepaway_2v2", "game_b", "game_a"))
        for name in sslsim.TASKS:
            for kind in ("truth", "vision"):
                with sslsim.SslSimVectorEnv(2, observation=kind, task=name, max_steps=40) as env:
                    per = 7 if kind == "truth" else 4
                    head = 6 if kind == "truth" else 3
                    self.assertEqual(env.single_observation_space.shape,
                                     (head + per * len(env.observed) + env.task_size,), name)
                    self.assertEqual(env.single_action_space.shape, (len(env.controlled), 6))
                    obs, _ = env.reset(seed=4)
                    self.assertIn(obs, env.observation_space, name)
                    for _ in range(50):
                        obs, rew, term, trunc, _ = env.step(env.action_space.sample())
                        self.assertIn(obs, env.observation_space, name)
                        self.assertTrue(np.all(np.isfinite(rew)), name)

    def test_each_task_drives_and_observes_its_scene(self):
        want = {"go_to_ball": (1, 1), "shoot": (1, 1), "dribble": (1, 1), "pass": (2, 2), "penalty": (1, 2),
                "keepaway_1v1": (1, 2), "keepaway_2v2": (2, 4), "game_b": (6, 12), "game_a": (11, 22)}
        for name, (driven, seen) in want.items():
            env = sslsim.SslSimEnv(task=name)
            self.assertEqual((len(env.controlled), len(env.observed)), (driven, seen), name)
            self.assertEqual(env.task_size, 2 if name in ("dribble", "pass") else 0)
            env.reset(seed=1)
            t = env.world.truth()
            self.assertEqual(sorted(zip(t["team"].tolist(), t["id"].tolist())), sorted(env.observed), name)
            env.close()

    def test_sslsimenv_with_a_task_passes_the_projects_checker(self):
        """dribble (the task's own floats in the space) and game_b (12
        robots, its rules moving things between steps)."""
        for name in ("dribble", "game_b"):
            env_checker.check_env(sslsim.SslSimEnv(observation="vision", task=name))

    def test_a_game_of_division_b_gets_its_field(self):
        with sslsim.SslSimVectorEnv(1, task="game_b") as env:
            self.assertEqual(env.batch.world(0).limits()["field_length"], 9.0)
        with sslsim.SslSimVectorEnv(1, task="game_a", args=["--division", "b"]) as env:
            self.assertEqual(env.batch.world(0).limits()["field_length"], 12.0)

    def test_bad_task_names_name_the_argument(self):
        for make in (lambda: sslsim.SslSimEnv(task="juggle"), lambda: sslsim.SslSimVectorEnv(2, task="juggle"),
                     lambda: sslsim.SslSimParallelEnv(task="juggle"), lambda: sslsim.SslSimEnv(task=3)):
            with self.assertRaisesRegex(ValueError, "task must be .*shoot"):
                make()
        with self.assertRaisesRegex(ValueError, "task must have both teams"):
            sslsim.SslSimParallelEnv(task="shoot")
        with self.assertRaisesRegex(ValueError, "reward_fn"):
            sslsim.SslSimParallelEnv(task="game_a", reward_fn=lambda o, i: {})
        with self.assertRaisesRegex(ValueError, "task 'pass'.*id"):
            sslsim.SslSimEnv(task="pass", controlled=[(0, 15)])


class TaskSeedTest(unittest.TestCase):
    def test_a_worlds_bytes_depend_only_on_its_seed_for_every_task(self):
        """World seeded 5 gives the same observations, rewards and flags
        (through autoresets) in a batch of 2 on 1 thread and at another
        position in a batch of 3 on 2 threads."""
        for name in sslsim.TASKS:
            a = sslsim.SslSimVectorEnv(2, task=name, threads=1, max_steps=12)
            b = sslsim.SslSimVectorEnv(3, task=name, threads=2, max_steps=12)
            act5, other = actions_for(a, 30, seed=5), actions_for(a, 30, seed=6)
            ra = roll(a, [5, 9], [act5, other])
            rb = roll(b, [9, 1, 5], [other, other, act5])
            self.assertEqual(ra[0], rb[2], name)
            self.assertEqual(ra[1], rb[0], name)
            self.assertNotEqual(ra[0], ra[1], name)
            a.close()
            b.close()


class ShootTest(unittest.TestCase):
    def test_a_robot_behind_the_ball_kicking_at_the_goal_scores_with_the_bonus(self):
        """Blue attacks the goal at +x: each world's robot put behind the
        ball, kicking forward, scores; the bonus arrives with
        terminated, and the next step autoresets those worlds."""
        c = sslsim.TASK_CONSTANTS["shoot"]
        with sslsim.SslSimVectorEnv(4, task="shoot") as env:
            env.reset(seed=40)
            hl = env.batch.world(0).limits()["field_length"] / 2
            for k in range(4):
                behind(env.batch.world(k), 0, 0, (hl, 0.0))
            act = np.zeros(env.action_space.shape)
            act[:, 0, 0], act[:, 0, 3] = 0.3, 6.5
            scored = np.zeros(4, dtype=bool)
            for _ in range(300):
                _, rew, term, _, infos = env.step(act)
                for k in np.flatnonzero(term & ~scored):
                    self.assertGreater(rew[k], c["bonus"] - 1.0, k)
                    scored[k] = True
                if scored.all():
                    break
            self.assertTrue(scored.all())

    def test_the_ball_starts_in_the_attacked_half_for_yellow_too(self):
        with sslsim.SslSimVectorEnv(8, task="shoot", controlled=[(1, 2)]) as env:
            env.reset(seed=2)
            for k in range(8):
                t = env.batch.world(k).truth()
                self.assertLessEqual(t["ball"][0], 0.0)
                self.assertEqual(list(zip(t["team"].tolist(), t["id"].tolist())), [(1, 2)])


class DribbleTest(unittest.TestCase):
    def test_the_target_is_the_observations_last_two_floats(self):
        c = sslsim.TASK_CONSTANTS["dribble"]
        with sslsim.SslSimVectorEnv(8, task="dribble") as env:
            obs, _ = env.reset(seed=8)
            for k in range(8):
                target = obs[k, -2:]
                ball = env.batch.world(k).truth()["ball"][:2]
                d = math.hypot(*(target - ball))
                self.assertTrue(c["target_min"] - 1e-4 <= d <= c["target_max"] + 1e-4, d)


class GameTest(unittest.TestCase):
    def test_a_goal_pays_the_teams_one_each_way_and_restarts_from_a_kick_off(self):
        """Parallel env, task game_a: the ball rolled into yellow's goal
        (+x) gives blue +1 and yellow -1, the episode goes on, and the
        observation of that step already shows the kick-off: the ball at
        the centre, every robot in its own half."""
        env = sslsim.SslSimParallelEnv(task="game_a", max_steps=50)
        obs, _ = env.reset(seed=5)
        self.assertEqual(env.action_space("blue").shape, (11, 6))
        w = env.world
        hl = w.limits()["field_length"] / 2
        w.teleport_ball(hl - 0.05, 0.2, 2.0, 0.0)
        idle = {a: np.zeros(env.action_space(a).shape) for a in env.agents}
        total = {"blue": 0.0, "yellow": 0.0}
        for _ in range(5):
            obs, rew, term, trunc, _ = env.step(idle)
            for a in rew:
                total[a] += rew[a]
            self.assertFalse(term["blue"] or term["yellow"])
        self.assertEqual(total, {"blue": 1.0, "yellow": -1.0})
        t = w.truth()
        self.assertEqual(t["ball"][:2].tolist(), [0.0, 0.0])
        side = np.where(t["team"] == 0, -1.0, 1.0)
        self.assertTrue(np.all(side * t["pos"][:, 0] > 0))
        np.testing.assert_array_equal(obs["blue"][:2], [0.0, 0.0])
        env.close()

    def test_two_team_tasks_in_the_parallel_env_are_zero_sum(self):
        """penalty and keep-away as matches: blue drives its side, yellow
        the keeper or the chasers; every step yellow's reward is minus
        blue's; keep-away pays blue the seconds kept."""
        for name, blue, yellow in (("penalty", 1, 1), ("keepaway_1v1", 1, 1), ("keepaway_2v2", 2, 2)):
            env = sslsim.SslSimParallelEnv(task=name, max_steps=40)
            self.assertEqual((env.action_space("blue").shape[0], env.action_space("yellow").shape[0]),
                             (blue, yellow), name)
            env.reset(seed=2)
            idle = {a: np.zeros(env.action_space(a).shape) for a in env.agents}
            _, rew, term, _, _ = env.step(idle)
            self.assertEqual(rew["yellow"], -rew["blue"], name)
            if name.startswith("keepaway"):
                self.assertAlmostEqual(rew["blue"], env.dt, places=6)
            while env.agents:
                _, rew, _, _, _ = env.step({a: env.action_space(a).sample() for a in env.agents})
                self.assertEqual(rew["yellow"], -rew["blue"], name)
            env.close()

    def test_a_ball_out_is_put_back_inside(self):
        c = sslsim.TASK_CONSTANTS["game_b"]
        env = sslsim.SslSimEnv(task="game_b")
        env.reset(seed=1)
        hw = env.world.limits()["field_width"] / 2
        env.world.teleport_ball(-1.0, -hw + 0.02, 0.0, -1.5)
        for _ in range(6):
            _, r, term, _, _ = env.step(np.zeros(env.action_space.shape))
            self.assertEqual((r, term), (0.0, False))
        ball = env.world.truth()["ball"]
        self.assertAlmostEqual(ball[1], -hw + c["inset"], places=3)
        env.close()


if __name__ == "__main__":
    unittest.main()

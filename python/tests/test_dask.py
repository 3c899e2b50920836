"""Tests of sslsim.dask on a real Dask cluster: a LocalCluster whose
workers are separate processes talking TCP on 127.0.0.1, as `dask
scheduler` and `dask worker` would on lab machines. The cluster env gives
the same bytes as one SslSimVectorEnv, whatever the number of workers;
bad input is refused by name and leaves the workers alive; a killed
worker is an error on the next step, not a hang.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

import numpy as np  # noqa: E402
import psutil  # noqa: E402  (a dependency of distributed)
import distributed.security  # noqa: E402
from distributed import Client, LocalCluster  # noqa: E402

import sslsim  # noqa: E402
from tests.docs_example import ROOT, run_docs_block  # noqa: E402
from sslsim.dask import DaskVectorEnv, WorkerLost  # noqa: E402


# Every port of the cluster on loopback: host= places the scheduler's and
# workers' TCP there, but their HTTP servers (health, metrics; the
# dashboard needs Bokeh) bind every interface unless told otherwise.
LOOPBACK = dict(host="127.0.0.1", dashboard_address="127.0.0.1:0", worker_dashboard_address="127.0.0.1:0")


def cluster(workers, **kw):
    """A LocalCluster of `workers` worker processes, one thread each, every port on 127.0.0.1."""
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, silence_logs=50, **LOOPBACK, **kw)


def run(env, seeds, actions):
    """Every step's (obs, rewards, terminated, truncated, seeds) as bytes, after reset(seed=seeds)."""
    obs, infos = env.reset(seed=seeds)
    out = [(obs.tobytes(), infos["seed"].tobytes())]
    for a in actions:
        obs, rew, term, trunc, infos = env.step(a)
        out.append((obs.tobytes(), rew.tobytes(), term.tobytes(), trunc.tobytes(), infos["seed"].tobytes()))
    return out


class LinearPolicy:
    """A rollout policy (module level, so workers import it by name): each
    world's action from its own observation row and its index in the env,
    so the bytes cannot depend on which worker holds it."""

    def __init__(self, dim, k, seed):
        rng = np.random.default_rng(seed)
        self.w = rng.normal(0, 0.2, size=(dim, k * 6))
        self.k = k

    def __call__(self, obs, worlds):
        a = np.tanh(obs.astype(np.float64) @ self.w) + 0.05 * (worlds % 7)[:, None]
        return a.reshape(len(obs), self.k, 6)


def stepped(env, policy, steps):
    """What a rollout must equal: `steps` plain steps with the policy's actions, as bytes."""
    obs, out = env._obs.copy(), []
    for _ in range(steps):
        a = policy(obs.copy(), np.arange(env.num_envs))
        o, rew, term, trunc, infos = env.step(a)
        out.append((obs.tobytes(), np.asarray(a, dtype=np.float64).tobytes(), rew.tobytes(), term.tobytes(),
                    trunc.tobytes(), infos["seed"].tobytes()))
        obs = o
    return out, obs


def as_steps(traj):
    """A trajectory's arrays as stepped()'s per-step bytes."""
    rows = zip(traj["obs"], traj["actions"], traj["rewards"], traj["terminated"], traj["truncated"], traj["seeds"])
    return [tuple(x.tobytes() for x in row) for row in rows], traj["last_obs"]


class DaskClusterTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.cluster = cluster(2)
        cls.client = Client(cls.cluster, direct_to_workers=True)
        cls.workers = sorted(cls.client.scheduler_info()["workers"])

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()

    def test_the_cluster_uses_worker_processes_over_loopback_tcp(self):
        self.assertEqual(len(self.workers), 2)
        for address in self.workers:
            self.assertTrue(address.startswith("tcp://127.0.0.1:"), address)
        pids = self.client.run(os.getpid)
        self.assertEqual(len(set(pids.values()) | {os.getpid()}), 3)
        for pid in list(pids.values()) + [os.getpid()]:
            listening = [c.laddr for c in psutil.Process(pid).connections(kind="inet")
                         if c.status == psutil.CONN_LISTEN]
            self.assertTrue(listening)
            self.assertEqual({a.ip for a in listening}, {"127.0.0.1"}, (pid, listening))

    def test_same_seeds_on_one_and_two_workers_give_the_same_bytes(self):
        """Five worlds (split 5 on one worker, 3 + 2 on two), through
        autoresets (max_steps 12) and for both kinds: every observation,
        reward, flag and episode seed is the same, and equals one local
        SslSimVectorEnv's."""
        for kind in ("vision", "truth"):
            one = DaskVectorEnv(self.client, 5, workers=self.workers[:1], observation=kind, max_steps=12)
            two = DaskVectorEnv(self.client, 5, observation=kind, max_steps=12)
            local = sslsim.SslSimVectorEnv(5, observation=kind, max_steps=12, threads=1)
            self.assertEqual([c for _, _, c in one.shards], [5])
            self.assertEqual([(o, c) for _, o, c in two.shards], [(0, 3), (3, 2)])
            rng = np.random.default_rng(3)
            low, high = two.action_space.low, two.action_space.high
            actions = [rng.uniform(low, high) for _ in range(30)]
            a, b, c = run(one, 40, actions), run(two, 40, actions), run(local, 40, actions)
            self.assertEqual(a, b, kind)
            self.assertEqual(a, c, kind)
            self.assertIn(b"\x01", b"".join(step[3] for step in a[1:]))  # an episode was truncated
            one.close()
            two.close()
            local.close()

    def test_a_rollout_is_its_steps_on_one_and_two_workers(self):
        """rollout(policy, 30) over autoresets (max_steps 12), both kinds:
        one worker, two workers (the policy runs in each worker for its
        shard, told the worlds' global indices) and a local env's rollout
        all give the bytes of 30 plain steps with that policy; the env
        then goes on stepping where the rollout left it."""
        for kind in ("vision", "truth"):
            one = DaskVectorEnv(self.client, 5, workers=self.workers[:1], observation=kind, max_steps=12)
            two = DaskVectorEnv(self.client, 5, observation=kind, max_steps=12)
            local = sslsim.SslSimVectorEnv(5, observation=kind, max_steps=12, threads=1)
            plain = sslsim.SslSimVectorEnv(5, observation=kind, max_steps=12, threads=1)
            policy = LinearPolicy(plain.single_observation_space.shape[0], len(plain.controlled), 4)
            for env in (one, two, local, plain):
                env.reset(seed=21)
            want, want_last = stepped(plain, policy, 30)
            self.assertIn(b"\x01", b"".join(step[4] for step in want))  # an episode was truncated
            for env in (one, two, local):
                got, last = as_steps(env.rollout(policy, 30))
                self.assertEqual(got, want, kind)
                np.testing.assert_array_equal(last, want_last)
            a = np.full(plain.action_space.shape, 0.3)
            after = plain.step(a)[0]
            for env in (one, two, local):
                np.testing.assert_array_equal(env.step(a)[0], after)
            for env in (one, two, local, plain):
                env.close()

    def test_a_bad_policy_is_refused_by_name_and_the_workers_go_on(self):
        with DaskVectorEnv(self.client, 4) as env:
            with self.assertRaisesRegex(RuntimeError, "reset"):
                env.rollout(LinearPolicy(13, 1, 0), 3)
            env.reset(seed=2)
            with self.assertRaisesRegex(ValueError, "steps"):
                env.rollout(LinearPolicy(13, 1, 0), 0)
            with self.assertRaisesRegex(ValueError, "policy.*shape"):
                env.rollout(lambda obs, worlds: np.ones_like(obs), 3)  # (m, D) is not (m, k, 6)
            with self.assertRaisesRegex(RuntimeError, "policy raised KeyError"):
                env.rollout(lambda obs, worlds: {}["no such key"], 3)
            traj = env.rollout(LinearPolicy(13, 1, 0), 3)
            self.assertEqual(traj["obs"].shape, (3, 4, 13))
        self.assertEqual(sorted(self.client.scheduler_info()["workers"]), self.workers)

    def test_default_and_listed_seeds_are_global(self):
        """Without a seed world k has the configuration's seed plus k, as
        in one SslSimVectorEnv; a list gives each world its own."""
        with DaskVectorEnv(self.client, 3) as env, sslsim.SslSimVectorEnv(3, threads=1) as local:
            got, infos = env.reset()
            want, linfos = local.reset()
            self.assertEqual(infos["seed"].tolist(), linfos["seed"].tolist())
            np.testing.assert_array_equal(got, want)
            env.reset(seed=11)
            local.reset(seed=11)
            self.assertEqual(env.np_random.integers(1 << 30), local.np_random.integers(1 << 30))
            _, infos = env.reset(seed=-1)  # mod 2**64, as the local env takes it
            self.assertEqual(infos["seed"].tolist(), [2 ** 64 - 1, 0, 1])
            local.reset(seed=2 ** 64 - 1)
            self.assertEqual(env.np_random.integers(1 << 30), local.np_random.integers(1 << 30))
            _, infos = env.reset(seed=[9, 4, 7])
            self.assertEqual(infos["seed"].tolist(), [9, 4, 7])

    def test_a_reset_mask_over_shards_matches_the_local_vector_env(self):
        """reset_mask split over the shards; a shard whose worlds the mask
        leaves out is not asked, and its rows are the last returned."""
        with DaskVectorEnv(self.client, 4) as env, sslsim.SslSimVectorEnv(4, threads=1) as local:
            self.assertEqual(len({a for a, _, _ in env.shards}), 2)
            env.reset(seed=3)
            local.reset(seed=3)
            for _ in range(3):
                a = np.full(env.action_space.shape, 0.5)
                env.step(a)
                local.step(a)
            mask = np.array([False, False, True, False])  # the first shard's worlds held
            got, infos = env.reset(options={"reset_mask": mask})
            want, linfos = local.reset(options={"reset_mask": mask})
            np.testing.assert_array_equal(got, want)
            self.assertEqual(infos["seed"].tolist(), linfos["seed"].tolist())
            got, *_ = env.step(np.zeros(env.action_space.shape))
            want, *_ = local.step(np.zeros(env.action_space.shape))
            np.testing.assert_array_equal(got, want)

    def test_spaces_and_dtypes_match_the_local_vector_env(self):
        with DaskVectorEnv(self.client, 3, observation="vision") as env, \
                sslsim.SslSimVectorEnv(3, observation="vision") as local:
            for name in ("single_observation_space", "observation_space", "single_action_space",
                         "action_space"):
                mine, theirs = getattr(env, name), getattr(local, name)
                np.testing.assert_array_equal(mine.low, theirs.low)
                np.testing.assert_array_equal(mine.high, theirs.high)
            self.assertEqual(env.metadata["autoreset_mode"], "NextStep")
            self.assertIs(env.unwrapped, env)
            obs, _ = env.reset(seed=1)
            o, r, te, tr, _ = env.step(env.action_space.sample())
            self.assertEqual((o.dtype, r.dtype, te.dtype, tr.dtype), (np.float32, np.float64, np.bool_, np.bool_))
            self.assertIn(o, env.observation_space)

    def test_bad_input_names_the_argument_and_the_workers_go_on(self):
        with DaskVectorEnv(self.client, 4) as env:
            with self.assertRaisesRegex(RuntimeError, "reset"):
                env.step(np.zeros((4, 1, 6)))
            env.reset(seed=2)
            bad = np.zeros((4, 1, 6))
            bad[3, 0, 1] = np.nan
            with self.assertRaisesRegex(ValueError, "actions.*finite.*world 3"):
                env.step(bad)
            with self.assertRaisesRegex(ValueError, "actions.*shape"):
                env.step(np.zeros((3, 1, 6)))
            with self.assertRaisesRegex(TypeError, "actions.*float"):
                env.step(np.zeros((4, 1, 6), dtype=np.int32))
            with self.assertRaisesRegex(ValueError, "seed"):
                env.reset(seed=[1, 2])
            with self.assertRaisesRegex(ValueError, "options"):
                env.reset(options={"reset_mask": np.zeros(4, dtype=bool)})
            obs, *_ = env.step(np.zeros((4, 1, 6)))
            self.assertEqual(obs.shape, (4, 13))
        with self.assertRaisesRegex(ValueError, "closed"):
            env.reset()
        # a worker the cluster does not have is refused by name (its shard
        # would wait out the timeout, then raise a bare TimeoutError)
        with self.assertRaisesRegex(ValueError, "workers: 'tcp://127.0.0.1:9' is not a worker"):
            DaskVectorEnv(self.client, 2, workers=[self.workers[0], "tcp://127.0.0.1:9"], timeout=5)
        # a shard refusing its construction (an unknown task) answers in the client, by name
        with self.assertRaisesRegex(ValueError, "task"):
            DaskVectorEnv(self.client, 2, task="juggle")
        self.assertEqual(sorted(self.client.scheduler_info()["workers"]), self.workers)

    def test_a_shards_sslsim_error_reaches_the_client_as_itself(self):
        """The library's refusals in a shard (SslSimError, which carries
        .status) travel back pickled: an unknown flag, and a step that is
        not a whole number of substeps (refused when the env is made).
        They used to fail to unpickle in the client, which then waited out
        the timeout and called the live worker lost."""
        started = time.monotonic()
        with self.assertRaisesRegex(sslsim.SslSimError, "unknown option"):
            DaskVectorEnv(self.client, 2, args=["--no-such-flag"], timeout=20)
        with self.assertRaisesRegex(sslsim.SslSimError, "substeps") as caught:
            DaskVectorEnv(self.client, 4, dt=0.015, args=["--step-ms", "2"], timeout=20)
        self.assertLess(caught.exception.status, 0)
        self.assertLess(time.monotonic() - started, 20)
        with DaskVectorEnv(self.client, 4) as env:  # the workers go on
            env.reset(seed=1)
            env.step(np.zeros((4, 1, 6)))

    def test_the_docs_example_runs_as_written(self):
        """docs/dask.md's first block, run by /usr/bin/python3 from the source tree."""
        run_docs_block(self, "dask.md", None, "LocalCluster")

    def test_the_docs_rollout_example_runs_as_written(self):
        """docs/dask.md's rollout block: its policy class is defined in the
        script (__main__), so it reaches the workers by value."""
        run_docs_block(self, "dask.md", "## Rollouts", "env.rollout(")


class TlsTest(unittest.TestCase):
    def test_the_env_runs_over_mutual_tls(self):
        """docs/dask.md's TLS advice on one machine: LocalCluster(security=True)
        makes throwaway certificates; every address is tls://, and the env
        steps over it as over tcp://."""
        with cluster(1, security=True) as c, \
                Client(c, security=c.security, direct_to_workers=True) as client:
            self.assertTrue(c.scheduler_address.startswith("tls://127.0.0.1:"))
            workers = list(client.scheduler_info()["workers"])
            self.assertTrue(all(w.startswith("tls://127.0.0.1:") for w in workers), workers)
            with DaskVectorEnv(client, 2) as env, sslsim.SslSimVectorEnv(2, threads=1) as local:
                a = [np.full(env.action_space.shape, 0.5)] * 5
                self.assertEqual(run(env, 3, a), run(local, 3, a))


def docs_sh_block(after):
    """The first ```sh block of docs/dask.md after the text `after`."""
    with open(os.path.join(ROOT, "docs", "dask.md"), encoding="utf-8") as f:
        text = f.read()
    start = text.index("```sh\n", text.index(after)) + len("```sh\n")
    return text[start:text.index("```", start)]


@unittest.skipUnless(shutil.which("openssl") and shutil.which("dask"), "needs openssl and the dask command")
class LabTlsTest(unittest.TestCase):
    """docs/dask.md's "Securing Dask's TCP with TLS" as a user does it:
    certificates from the page's openssl recipe, `dask scheduler` and
    `dask worker` processes with the page's TLS options (bound to
    127.0.0.1 here), a client with the page's Security settings steps an
    env, and a client without TLS is refused."""

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="sslsim-dask-tls-")
        self.procs = []
        subprocess.run(["sh", "-e", "-c", docs_sh_block("Without a lab authority")], cwd=self.dir, check=True,
                       capture_output=True, timeout=120)

    def tearDown(self):
        for p in self.procs:
            p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, args, env=None):
        log = open(os.path.join(self.dir, "%s-%d.log" % (args[1], len(self.procs))), "wb")
        self.procs.append(subprocess.Popen(args, cwd=self.dir, env=env, stdout=log, stderr=subprocess.STDOUT))
        log.close()

    def test_the_pages_tls_settings_connect_and_plain_tcp_is_refused(self):
        tls = ["--tls-ca-file", "ca.pem"]
        info = os.path.join(self.dir, "scheduler.json")
        self.start(["dask", "scheduler", "--protocol", "tls", *tls, "--tls-cert", "sched.pem",
                    "--tls-key", "sched-key.pem", "--host", "127.0.0.1", "--port", "0",
                    "--dashboard-address", "127.0.0.1:0", "--scheduler-file", info])
        deadline = time.monotonic() + 60
        while not os.path.exists(info) and time.monotonic() < deadline:
            time.sleep(0.1)
        with open(info) as f:
            address = json.load(f)["address"]
        self.assertTrue(address.startswith("tls://127.0.0.1:"), address)
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
        self.start(["dask", "worker", address, "--nworkers", "2", "--nthreads", "1", "--no-dashboard", *tls,
                    "--tls-cert", "worker.pem", "--tls-key", "worker-key.pem", "--host", "127.0.0.1",
                    "--dashboard-address", "127.0.0.1:0"], env=env)
        sec = distributed.security.Security(tls_ca_file=os.path.join(self.dir, "ca.pem"),
                                            tls_client_cert=os.path.join(self.dir, "client.pem"),
                                            tls_client_key=os.path.join(self.dir, "client-key.pem"),
                                            require_encryption=True)
        with Client(address, security=sec, direct_to_workers=True, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
            workers = sorted(client.scheduler_info()["workers"])
            self.assertTrue(all(w.startswith("tls://127.0.0.1:") for w in workers), workers)
            with DaskVectorEnv(client, 4) as dask_env, sslsim.SslSimVectorEnv(4, threads=1) as local:
                self.assertEqual(len(dask_env.shards), 2)
                a = [np.full(dask_env.action_space.shape, 0.5)] * 5
                self.assertEqual(run(dask_env, 3, a), run(local, 3, a))
        plain = address.replace("tls://", "tcp://")
        with self.assertRaises(OSError):
            Client(plain, timeout=3)


class WorkerDeathTest(unittest.TestCase):
    def test_a_killed_worker_is_an_error_on_the_next_step(self):
        """SIGKILL to the process of the worker holding worlds 2..3: the
        next step raises WorkerLost naming it (well before the env's
        timeout, so it was noticed, not waited out), and so does every
        later call. (Closing the cluster afterwards, Debian's distributed
        2022.12 prints an AssertionError from the restarted worker's
        shuffle extension being closed twice: its own noise at shutdown,
        after the test's checks.)"""
        with cluster(2) as c, Client(c, direct_to_workers=True) as client:
            env = DaskVectorEnv(client, 4)
            env.reset(seed=1)
            env.step(np.zeros(env.action_space.shape))
            address = env.shards[1][0]
            pid = client.run(os.getpid, workers=[address])[address]
            os.kill(pid, signal.SIGKILL)
            started = time.monotonic()
            with self.assertRaisesRegex(WorkerLost, "%s holding worlds 2..3" % address):
                env.step(np.zeros(env.action_space.shape))
            self.assertLess(time.monotonic() - started, env.timeout)
            with self.assertRaisesRegex(WorkerLost, address):
                env.step(np.zeros(env.action_space.shape))
            with self.assertRaisesRegex(WorkerLost, address):
                env.reset(seed=1)
            env.close()

    def test_a_worker_known_dead_is_an_error_too(self):
        """The same kill, but the next call comes after the scheduler has
        noticed: distributed then refuses the call to the actor itself
        ("Worker holding Actor was lost", a ValueError); that is
        WorkerLost too, on every later call, and close() still works."""
        with cluster(2) as c, Client(c, direct_to_workers=True) as client:
            env = DaskVectorEnv(client, 4)
            env.reset(seed=1)
            address = env.shards[1][0]
            os.kill(client.run(os.getpid, workers=[address])[address], signal.SIGKILL)
            deadline = time.monotonic() + 30
            while address in client.scheduler_info()["workers"] and time.monotonic() < deadline:
                time.sleep(0.1)
            with self.assertRaisesRegex(WorkerLost, "%s holding worlds 2..3" % address):
                env.step(np.zeros(env.action_space.shape))
            with self.assertRaisesRegex(WorkerLost, address):
                env.rollout(LinearPolicy(env.single_observation_space.shape[0], 1, 0), 2)
            env.close()
            env.close()


    def test_a_killed_worker_is_an_error_on_the_next_rollout(self):
        """The same kill before a rollout of 1000 steps: WorkerLost as soon
        as the connection drops, not after the rollout's longer wait
        (1000 times the timeout)."""
        with cluster(2) as c, Client(c, direct_to_workers=True) as client:
            env = DaskVectorEnv(client, 4, timeout=5.0)
            env.reset(seed=1)
            policy = LinearPolicy(env.single_observation_space.shape[0], 1, 0)
            env.rollout(policy, 2)
            address = env.shards[1][0]
            os.kill(client.run(os.getpid, workers=[address])[address], signal.SIGKILL)
            started = time.monotonic()
            with self.assertRaisesRegex(WorkerLost, "%s holding worlds 2..3" % address):
                env.rollout(policy, 1000)
            self.assertLess(time.monotonic() - started, 60)
            env.close()

if __name__ == "__main__":
    unittest.main()

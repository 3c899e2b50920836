"""task_bytes.py - one hash of the go_to_ball task's outputs (SslSimVectorEnv and
SslSimEnv, both kinds, random actions from a fixed seed): run it against
two trees (PYTHONPATH=TREE/python SSLSIM_LIBRARY=TREE/build/lib/libsslsim.so.1)
to see that a change kept every byte. bench/results/tasks.txt has the figures."""
import hashlib

import numpy as np

import sslsim  # noqa: E402
h = hashlib.sha256()
for kind in ("truth", "vision"):
    env = sslsim.SslSimVectorEnv(4, observation=kind, max_steps=60)
    obs, _ = env.reset(seed=3)
    rng = np.random.default_rng(0)
    h.update(obs.tobytes())
    for t in range(300):
        a = rng.uniform(env.single_action_space.low, env.single_action_space.high, size=env.action_space.shape)
        obs, r, te, tr, _ = env.step(a)
        for x in (obs, r, te, tr):
            h.update(np.ascontiguousarray(x).tobytes())
    env.close()
    e = sslsim.SslSimEnv(observation=kind, task="go_to_ball", seed=5)
    o, _ = e.reset()
    h.update(o.tobytes())
    for t in range(300):
        o, r, te, tr, _ = e.step(rng.uniform(e.action_space.low, e.action_space.high))
        h.update(o.tobytes()); h.update(np.float64(r).tobytes()); h.update(bytes([te]))
        if te: o, _ = e.reset()
print(h.hexdigest())

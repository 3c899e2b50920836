"""sslsim.rollout: many steps of a vector env under a policy in one call.

    traj = env.rollout(policy, 100)     # SslSimVectorEnv or DaskVectorEnv
    traj["obs"]      # (100, N, D) the observation each action was chosen from
    traj["actions"]  # (100, N, k, 6) what the policy chose
    traj["rewards"], traj["terminated"], traj["truncated"], traj["seeds"]  # (100, N)
    traj["last_obs"] # (N, D) the observation after the last step

policy(obs, worlds) -> actions: obs (m, D) float32 for m of the env's
worlds, worlds (m,) their indices in the env, actions (m, k, 6) floats.
On a DaskVectorEnv each worker calls it for its own shard, inside the
worker, so the policy travels there by pickle (a function of an importable
module, a class instance, or with Dask's cloudpickle a lambda or closure)
and a rollout costs one round trip instead of one a step. A policy that
computes each world's row from that row and its index alone gives every
world the same bytes whatever the number of workers; one that draws
random numbers should seed them from `worlds` (docs/dask.md).

The loop is the vector env's own step, with its next-step autoreset:
a rollout is exactly `steps` calls of env.step with the policy's actions.
"""
import numpy as np


def check_steps(steps):
    """ValueError naming the argument unless steps is a positive integer."""
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool) or steps < 1:
        raise ValueError("steps must be a positive integer, not %r" % (steps,))


def rollout(env, policy, steps, obs, worlds=None):
    """Step `env` (a vector env whose last observation is `obs`) `steps`
    times with actions = policy(obs, worlds); worlds defaults to
    arange(num_envs). Returns the dict of arrays the module's text lists."""
    check_steps(steps)
    if not callable(policy):
        raise TypeError("policy must be callable as policy(obs, worlds), not %r" % (policy,))
    n = env.num_envs
    worlds = np.arange(n, dtype=np.int64) if worlds is None else np.asarray(worlds, dtype=np.int64)
    shape = env.action_space.shape
    out = {"obs": np.empty((steps,) + obs.shape, dtype=obs.dtype),
           "actions": np.empty((steps,) + shape, dtype=np.float64),
           "rewards": np.empty((steps, n), dtype=np.float64),
           "terminated": np.empty((steps, n), dtype=bool),
           "truncated": np.empty((steps, n), dtype=bool),
           "seeds": np.empty((steps, n), dtype=np.uint64)}
    for t in range(steps):
        out["obs"][t] = obs
        a = np.asarray(policy(obs.copy(), worlds))
        if a.dtype.kind != "f":
            raise TypeError("policy: its actions must be floats, not %s" % a.dtype)
        if a.shape != shape:
            raise ValueError("policy: its actions must have shape %s, not %s" % (shape, a.shape))
        out["actions"][t] = a  # float64, as the step takes them
        obs, rew, term, trunc, infos = env.step(out["actions"][t])
        out["rewards"][t], out["terminated"][t], out["truncated"][t] = rew, term, trunc
        out["seeds"][t] = infos["seed"]
    out["last_obs"] = obs
    return out


def join(parts):
    """One trajectory of the env from its shards' (in world order):
    arrays joined along the world axis."""
    keys = parts[0].keys()
    return {k: np.concatenate([p[k] for p in parts], axis=0 if k == "last_obs" else 1) for k in keys}

"""check_env(env): the checks gymnasium.utils.env_checker.check_env makes
of an environment, for machines without Gymnasium (it is not packaged by
Debian), written for this project. Where Gymnasium only warns (infinite
bounds, an observation outside its space or of another dtype, a reward
that is not a finite number, a flag that is not a bool) this checker
fails, and it adds one check of its own: info holds plain values only
(numbers, strings, lists, tuples, dicts and numpy arrays of bool, integer
or float dtype), so that info can be compared, copied and stored.

What is checked, in Gymnasium's order:
  - spaces: action_space and observation_space exist; Box low/high have
    the space's shape, are finite and low < high everywhere;
  - no `seed` method (dropped from the API), reset has keyword arguments
    seed (default None) and options;
  - reset() returns (obs, info) with obs in the space (its dtype) and info
    a dict;
  - reset(seed=123) twice gives equal observations and the same
    np_random state; reset() after each of them gives equal observations;
    reset(seed=456) gives another np_random state;
  - reset(options={}) works;
  - step(action_space.sample()) returns five values: obs in the space,
    a finite float reward, bool terminated and truncated, a dict info;
  - step determinism: the same seed and action give equal obs, reward,
    terminated, info, and do not truncate after one step;
  - render_mode None when metadata["render_modes"] is empty, else one of
    them (render() is called only then); close() twice (this closes env).
"""
import inspect
import numbers

import numpy as np

PLAIN_KINDS = "biuf"  # numpy dtype kinds: bool, signed, unsigned, float


def equivalent(a, b):
    """a and b hold the same data: same types, same keys, same shapes and
    dtypes, equal values (exactly: the simulator is deterministic)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(equivalent(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(equivalent(x, y) for x, y in zip(a, b))
    if isinstance(a, np.ndarray):
        return a.shape == b.shape and a.dtype == b.dtype and bool(np.array_equal(a, b))
    return bool(a == b)


def plain_problems(value, where="info"):
    """Where `value` holds something other than plain values: a list of
    "path: what" strings (empty when all is plain)."""
    if isinstance(value, dict):
        out = []
        for k, v in value.items():
            if not isinstance(k, str):
                out.append("%s: key %r is not a string" % (where, k))
            out += plain_problems(v, "%s[%r]" % (where, k))
        return out
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in plain_problems(v, "%s[%d]" % (where, i))]
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in PLAIN_KINDS or value.dtype.fields is not None:
            return ["%s: numpy array of dtype %s" % (where, value.dtype)]
        return []
    if value is None or isinstance(value, (bool, numbers.Number, str, np.generic)):
        if isinstance(value, np.generic) and value.dtype.kind not in PLAIN_KINDS:
            return ["%s: numpy scalar of dtype %s" % (where, value.dtype)]
        return []
    return ["%s: %s" % (where, type(value).__name__)]


def _check_box(space, name):
    for attr in ("shape", "dtype", "low", "high", "sample", "seed", "contains"):
        assert hasattr(space, attr), "%s has no %s" % (name, attr)
    assert space.low.shape == space.shape, "%s low shape %s != %s" % (name, space.low.shape, space.shape)
    assert space.high.shape == space.shape, "%s high shape %s != %s" % (name, space.high.shape, space.shape)
    assert np.all(np.isfinite(space.low)) and np.all(np.isfinite(space.high)), "%s has infinite bounds" % name
    assert np.all(space.low < space.high), "%s has low >= high at %s" % (name, np.argwhere(space.low >= space.high))


def _check_obs(env, obs, method):
    space = env.observation_space
    assert isinstance(obs, np.ndarray), "%s: obs is a %s, not a numpy array" % (method, type(obs).__name__)
    assert obs.dtype == space.dtype, "%s: obs dtype %s, space %s" % (method, obs.dtype, space.dtype)
    assert obs.shape == space.shape, "%s: obs shape %s, space %s" % (method, obs.shape, space.shape)
    outside = np.argwhere((obs < space.low) | (obs > space.high) | ~np.isfinite(obs)).ravel()
    assert len(outside) == 0, "%s: obs outside the space at %s: %s not in [%s, %s]" % (
        method, outside, obs[outside], space.low[outside], space.high[outside])
    assert obs in space, "%s: obs not in the observation space" % method


def _check_info(info, method):
    assert isinstance(info, dict), "%s: info is a %s, not a dict" % (method, type(info).__name__)
    problems = plain_problems(info)
    assert not problems, "%s: info holds non-plain values: %s" % (method, "; ".join(problems))


def _rng_state(env):
    rng = env.unwrapped._np_random
    assert rng is not None, "reset(seed=...) did not seed np_random (super().reset(seed=seed) missing?)"
    return rng.bit_generator.state


def check_reset(env):
    sig = inspect.signature(env.reset)
    assert "seed" in sig.parameters and sig.parameters["seed"].default is None, \
        "reset needs a keyword seed defaulting to None"
    assert "options" in sig.parameters, "reset needs a keyword options"
    result = env.reset()
    assert isinstance(result, tuple) and len(result) == 2, "reset() must return (obs, info)"
    _check_obs(env, result[0], "reset()")
    _check_info(result[1], "reset()")

    obs_1, _ = env.reset(seed=123)
    _check_obs(env, obs_1, "reset(seed=123)")
    state_1 = _rng_state(env)
    obs_2, _ = env.reset()
    _check_obs(env, obs_2, "reset() after reset(seed=123)")
    obs_3, _ = env.reset(seed=123)
    state_3 = _rng_state(env)
    obs_4, _ = env.reset()
    assert equivalent(obs_1, obs_3), "reset(seed=123) twice gave different observations"
    assert equivalent(obs_2, obs_4), "reset() after reset(seed=123) twice gave different observations"
    assert state_1 == state_3, "reset(seed=123) twice gave different np_random states"
    obs_5, _ = env.reset(seed=456)
    _check_obs(env, obs_5, "reset(seed=456)")
    assert _rng_state(env) != state_1, "reset(seed=456) left np_random as seed 123 made it"
    env.reset(options={})


def check_step(env, seed=123):
    env.reset(seed=seed)
    result = env.step(env.action_space.sample())
    assert isinstance(result, tuple) and len(result) == 5, \
        "step must return (obs, reward, terminated, truncated, info)"
    obs, reward, terminated, truncated, info = result
    _check_obs(env, obs, "step()")
    assert isinstance(reward, (numbers.Real, np.floating, np.integer)) and not isinstance(reward, bool), \
        "reward is a %s" % type(reward).__name__
    assert np.isfinite(reward), "reward is %r" % reward
    assert isinstance(terminated, (bool, np.bool_)), "terminated is a %s" % type(terminated).__name__
    assert isinstance(truncated, (bool, np.bool_)), "truncated is a %s" % type(truncated).__name__
    _check_info(info, "step()")

    env.action_space.seed(seed)
    action = env.action_space.sample()
    env.reset(seed=seed)
    first = env.step(action)
    state = _rng_state(env)
    env.reset(seed=seed)
    again = env.step(action)
    assert _rng_state(env) == state, "np_random differs after the same seed and step"
    for k, name in enumerate(("obs", "reward", "terminated")):
        assert equivalent(first[k], again[k]), "the same seed and action gave another %s" % name
    assert first[3] is False and again[3] is False, "the environment truncates after one step"
    assert equivalent(first[4], again[4]), "the same seed and action gave another info"


def check_env(env):
    """Every check above; raises AssertionError naming the first failure."""
    assert hasattr(env, "action_space"), "no action_space"
    assert hasattr(env, "observation_space"), "no observation_space"
    _check_box(env.action_space, "action_space")
    _check_box(env.observation_space, "observation_space")
    assert not callable(getattr(env, "seed", None)), "env.seed() was dropped from the API: seed through reset"
    check_reset(env)
    check_step(env)
    modes = env.metadata.get("render_modes")
    assert isinstance(modes, (list, tuple)), "metadata['render_modes'] must be a list"
    if not modes:
        assert env.render_mode is None, "render_mode %r without render_modes" % env.render_mode
    else:
        assert env.render_mode is None or env.render_mode in modes, "render_mode %r not in %s" % (
            env.render_mode, modes)
    if env.render_mode is not None:
        env.render()
    env.close()
    env.close()

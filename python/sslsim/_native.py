"""Loading libsslsim with ctypes and the numpy layouts of its structs.

The library is found, in this order: $SSLSIM_LIBRARY; the path `make
install` wrote into _installed.py; the build tree this file sits in
(build/lib/libsslsim.so.1 two directories up); the system's library path.
The struct layouts below are checked against sslsim_sizeof at load time, so
a mismatched library is an ImportError, never a corrupted buffer.
"""
import ctypes
import ctypes.util
import os

import numpy as np

SOVERSION = 1

OK, EINVAL, EDECODE, ENOMEM, EIO, ECONFIG = 0, -1, -2, -3, -4, -5

MSG_SIMULATOR_COMMAND = 0
MSG_ROBOT_CONTROL_BLUE = 1
MSG_ROBOT_CONTROL_YELLOW = 2
MSG_SIMULATOR_CONFIG = 3

MAX_ROBOTS = 64
MAX_DET_BALLS = 1 + 64 + 8  # sslsim.h: the ball, a dribbler false ball per robot, 8 ghosts
MAX_DET_ROBOTS = 128

TRUTH_ROBOT = np.dtype([
    ("team", "<i4"), ("id", "<i4"),
    ("x", "<f8"), ("y", "<f8"), ("orientation", "<f8"),
    ("vx", "<f8"), ("vy", "<f8"), ("omega", "<f8"),
    ("ball_contact", "<i4"), ("pad_", "<i4"),
])
TRUTH = np.dtype([
    ("time_ns", "<u8"), ("ball", "<f8", (6,)),
    ("robot_count", "<i4"), ("pad_", "<i4"),
    ("robots", TRUTH_ROBOT, (MAX_ROBOTS,)),
])
COMMAND = np.dtype([
    ("team", "<i4"), ("id", "<i4"),
    ("forward", "<f8"), ("left", "<f8"), ("angular", "<f8"),
    ("kick_speed", "<f8"), ("kick_angle", "<f8"), ("dribbler_speed", "<f8"),
])
DET_BALL = np.dtype([("x", "<f8"), ("y", "<f8"), ("z", "<f8"),
                     ("confidence", "<f8"), ("area", "<f8")])
DET_ROBOT = np.dtype([("team", "<i4"), ("id", "<i4"), ("x", "<f8"), ("y", "<f8"),
                      ("orientation", "<f8"), ("confidence", "<f8")])
DETECTION = np.dtype([
    ("camera_id", "<i4"), ("frame_number", "<u4"),
    ("t_capture", "<f8"), ("t_sent", "<f8"),
    ("ball_count", "<i4"), ("robot_count", "<i4"),
    ("balls", DET_BALL, (MAX_DET_BALLS,)),
    ("robots", DET_ROBOT, (MAX_DET_ROBOTS,)),
])


class Config(ctypes.Structure):
    _fields_ = [("ini", ctypes.c_char_p), ("args", ctypes.POINTER(ctypes.c_char_p)),
                ("seed", ctypes.c_uint64), ("has_seed", ctypes.c_int), ("vision", ctypes.c_int)]


class Limits(ctypes.Structure):
    _fields_ = [(n, ctypes.c_double) for n in ("field_length", "field_width", "boundary_width", "goal_width",
                                               "goal_depth", "wall_height")] + \
               [(n, ctypes.c_double * 2) for n in ("robot_speed_max", "robot_angular_max", "kick_speed_max",
                                                   "chip_speed_max", "dribbler_rpm_max")] + \
               [("boundary_width_goal_line", ctypes.c_double)]


class BatchEnv(ctypes.Structure):
    """sslsim_batch_env_t: one call of sslsim_batch_env_step."""
    _fields_ = [("dt", ctypes.c_double), ("actions", ctypes.c_void_p), ("teams", ctypes.c_void_p),
                ("ids", ctypes.c_void_p), ("per_world", ctypes.c_int), ("reset", ctypes.c_void_p),
                ("seeds", ctypes.c_void_p), ("obs", ctypes.c_void_p), ("obs_out", ctypes.c_void_p),
                ("task", ctypes.c_void_p), ("rewards", ctypes.c_void_p), ("terminated", ctypes.c_void_p)]


OBS_TRUTH, OBS_VISION = 0, 1
ENV_STEP, ENV_RESET, ENV_HOLD = 0, 1, 2  # sslsim.h SSLSIM_ENV_*: sslsim_batch_env_t.reset
OBS_KINDS = {"truth": OBS_TRUTH, "vision": OBS_VISION}
OBS_MAX_AGE = 10.0  # sslsim.h SSLSIM_OBS_MAX_AGE


def _candidates():
    env = os.environ.get("SSLSIM_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _installed  # written by `make install`
        yield _installed.LIBRARY
    except ImportError:
        pass
    here = os.path.dirname(os.path.abspath(__file__))
    yield os.path.join(here, "..", "..", "build", "lib", "libsslsim.so.%d" % SOVERSION)
    found = ctypes.util.find_library("sslsim")
    if found:
        yield found


def _load():
    tried = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path)
        except OSError as e:
            tried.append("%s (%s)" % (path, e))
    raise ImportError("libsslsim not found; tried: " + "; ".join(tried) +
                      ". Build it (make) or set SSLSIM_LIBRARY.")


lib = _load()

_P = ctypes.c_void_p
_SIG = {
    "sslsim_config_init": (None, [ctypes.POINTER(Config)]),
    "sslsim_sizeof": (ctypes.c_size_t, [ctypes.c_char_p]),
    "sslsim_world_new": (_P, [ctypes.POINTER(Config), ctypes.c_char_p, ctypes.c_size_t]),
    "sslsim_world_free": (None, [_P]),
    "sslsim_world_step": (ctypes.c_int, [_P, ctypes.c_double]),
    "sslsim_world_substeps": (ctypes.c_int64, [_P, ctypes.c_double]),
    "sslsim_world_command": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t]),
    "sslsim_world_error": (ctypes.c_char_p, [_P, ctypes.c_int]),
    "sslsim_world_robot_commands": (ctypes.c_int, [_P, _P, ctypes.c_int]),
    "sslsim_world_teleport_ball": (ctypes.c_int, [_P] + [ctypes.c_double] * 4),
    "sslsim_world_teleport_robot": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_int] + [ctypes.c_double] * 3
                                    + [ctypes.c_int]),
    "sslsim_world_vision_count": (ctypes.c_int, [_P]),
    "sslsim_world_vision": (ctypes.c_int, [_P, ctypes.c_int, ctypes.POINTER(ctypes.POINTER(ctypes.c_uint8)),
                                           ctypes.POINTER(ctypes.c_size_t)]),
    "sslsim_world_detection": (ctypes.c_int, [_P, ctypes.c_int, _P]),
    "sslsim_world_truth": (None, [_P, _P]),
    "sslsim_world_time_ns": (ctypes.c_uint64, [_P]),
    "sslsim_world_seed": (ctypes.c_uint64, [_P]),
    "sslsim_world_limits": (ctypes.c_int, [_P, ctypes.POINTER(Limits)]),
    "sslsim_world_reset": (ctypes.c_int, [_P, ctypes.c_uint64]),
    "sslsim_world_save": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "sslsim_world_load": (ctypes.c_int, [_P, ctypes.c_char_p]),
    "sslsim_world_last_error": (ctypes.c_char_p, [_P]),
    "sslsim_batch_new": (_P, [ctypes.c_int, ctypes.POINTER(Config), ctypes.c_int, _P, ctypes.c_char_p,
                              ctypes.c_size_t]),
    "sslsim_batch_free": (None, [_P]),
    "sslsim_batch_size": (ctypes.c_int, [_P]),
    "sslsim_batch_threads": (ctypes.c_int, [_P]),
    "sslsim_batch_world": (_P, [_P, ctypes.c_int]),
    "sslsim_batch_robot_commands": (ctypes.c_int, [_P, _P, ctypes.c_int]),
    "sslsim_batch_step": (ctypes.c_int, [_P, ctypes.c_double]),
    "sslsim_batch_truth": (None, [_P, _P]),
    "sslsim_batch_reset": (ctypes.c_int, [_P, ctypes.c_int, ctypes.c_uint64]),
    "sslsim_batch_last_error": (ctypes.c_char_p, [_P]),
    "sslsim_detection_decode": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_size_t, _P]),
    "sslsim_world_vision_all": (ctypes.c_int, [_P, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_size_t),
                                               _P, _P, ctypes.c_int]),
    "sslsim_world_env_step": (ctypes.c_int, [_P, _P, _P, ctypes.c_int, _P, ctypes.c_double, _P, ctypes.c_int, _P,
                                             _P]),
    "sslsim_world_actions": (ctypes.c_int, [_P, _P, _P, ctypes.c_int, _P]),
    "sslsim_obs_new": (_P, [ctypes.c_int, _P, _P, ctypes.c_int, ctypes.c_int, ctypes.POINTER(Limits),
                            ctypes.c_char_p, ctypes.c_size_t]),
    "sslsim_obs_free": (None, [_P]),
    "sslsim_obs_size": (ctypes.c_int, [_P]),
    "sslsim_obs_bounds": (None, [_P, _P, _P]),
    "sslsim_obs_forget": (None, [_P, ctypes.c_int]),
    "sslsim_obs_set_frame": (ctypes.c_int, [_P, ctypes.c_int]),
    "sslsim_obs_write": (ctypes.c_int, [_P, ctypes.c_int, _P, _P]),
    "sslsim_task_new": (_P, [ctypes.c_char_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_char_p,
                             ctypes.c_size_t]),
    "sslsim_task_free": (None, [_P]),
    "sslsim_task_constant": (ctypes.c_double, [ctypes.c_char_p, ctypes.c_char_p]),
    "sslsim_task_constant_name": (ctypes.c_char_p, [ctypes.c_char_p, ctypes.c_int]),
    "sslsim_task_name": (ctypes.c_char_p, [ctypes.c_int]),
    "sslsim_task_flags": (ctypes.POINTER(ctypes.c_char_p), [ctypes.c_char_p]),
    "sslsim_task_robots": (ctypes.c_int, [_P, _P, _P, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]),
    "sslsim_task_obs_size": (ctypes.c_int, [_P]),
    "sslsim_task_obs_bounds": (None, [_P, ctypes.POINTER(Limits), _P, _P]),
    "sslsim_task_observe": (None, [_P, ctypes.c_int, ctypes.c_int, _P]),
    "sslsim_task_reset": (ctypes.c_int, [_P, ctypes.c_int, _P, ctypes.c_uint64]),
    "sslsim_task_evaluate": (None, [_P, ctypes.c_int, _P, _P, _P]),
    "sslsim_batch_env_step": (ctypes.c_int, [_P, _P]),
    "sslsim_batch_observe": (ctypes.c_int, [_P, _P, _P]),
}
for _name, (_res, _args) in _SIG.items():
    _f = getattr(lib, _name)
    _f.restype = _res
    _f.argtypes = _args

for _c, _dt in (("sslsim_truth_t", TRUTH), ("sslsim_detection_t", DETECTION),
                ("sslsim_robot_command_t", COMMAND), ("sslsim_config_t", Config),
                ("sslsim_limits_t", Limits), ("sslsim_batch_env_t", BatchEnv)):
    _size = ctypes.sizeof(_dt) if isinstance(_dt, type) else _dt.itemsize
    if lib.sslsim_sizeof(_c.encode()) != _size:
        raise ImportError("libsslsim's %s is %d bytes, this module expects %d: library and module "
                          "come from different builds" % (_c, lib.sslsim_sizeof(_c.encode()), _size))


def make_config(ini=None, args=None, seed=None, vision=True):
    """A Config and the objects it points into (keep both alive)."""
    cfg = Config()
    lib.sslsim_config_init(ctypes.byref(cfg))
    keep = []
    if ini is not None:
        b = ini.encode() if isinstance(ini, str) else bytes(ini)
        keep.append(b)
        cfg.ini = b
    if args:
        arr = (ctypes.c_char_p * (len(args) + 1))(*[str(a).encode() for a in args], None)
        keep.append(arr)
        cfg.args = arr
    if seed is not None:
        cfg.seed = seed64(seed)
        cfg.has_seed = 1
    cfg.vision = 1 if vision else 0
    return cfg, keep


def seed64(seed, name="seed"):
    """A seed as libsslsim takes it (uint64_t): any Python or numpy int,
    reduced mod 2**64 (-1 is 2**64 - 1). Every seed of the module,
    np_random's too, goes through here, so seeds equal mod 2**64 are the
    same seed. Anything else (a float, a string, a bool) is TypeError
    naming `name`: 1.5 is not quietly seed 1, as Gymnasium refuses it too."""
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError("%s must be an int, not %r" % (name, seed))
    return int(seed) & 0xFFFFFFFFFFFFFFFF


def seed_array(seeds, n, name="seeds"):
    """n seeds (a sequence of ints or an integer array) as a uint64 array
    of shape (n,), each one as seed64 takes it; TypeError naming the item
    (seeds[k]) that is not an int, ValueError for another count."""
    if isinstance(seeds, np.ndarray) and seeds.dtype.kind in "iu" and seeds.ndim == 1:
        out = seeds.astype(np.uint64)  # two's complement: mod 2**64, as seed64
    else:
        if isinstance(seeds, (str, bytes, int, np.integer)) or not hasattr(seeds, "__len__"):
            raise TypeError("%s must be a list of %d ints, not %r" % (name, n, seeds))
        out = np.array([seed64(s, "%s[%d]" % (name, k)) for k, s in enumerate(seeds)], dtype=np.uint64)
    if out.shape != (n,):
        raise ValueError("%s must list %d seeds, not %d" % (name, n, len(seeds)))
    return np.ascontiguousarray(out)


def ptr(array):
    """The address of a C-contiguous numpy array, for a void * argument."""
    return array.ctypes.data_as(ctypes.c_void_p)

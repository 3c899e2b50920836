"""sslsim.World and sslsim.Batch: libsslsim's worlds from Python.

A World is one simulator stepped in-process; a Batch steps many on a pool
of C threads with one call. Failures raise SslSimError (a ValueError)
carrying the library's status code and reason; nothing the caller passes
can crash the interpreter: shapes, dtypes and finiteness are checked here,
and the library checks again.
"""
import ctypes

import numpy as np

from . import _native as N

_MSG_KINDS = {
    "simulator_command": N.MSG_SIMULATOR_COMMAND,
    "robot_control_blue": N.MSG_ROBOT_CONTROL_BLUE,
    "robot_control_yellow": N.MSG_ROBOT_CONTROL_YELLOW,
    "simulator_config": N.MSG_SIMULATOR_CONFIG,
}

#: fields of one action row, in order (units: m/s, m/s, rad/s, m/s, degrees, rpm)
ACTION_FIELDS = ("forward", "left", "angular", "kick_speed", "kick_angle", "dribbler_speed")


class SslSimError(ValueError):
    """A refused call: .status is the library's code (sslsim.h)."""

    def __init__(self, status, reason):
        super().__init__(reason)
        self.status = status

    def __reduce__(self):
        # pickled (a Dask worker's answer) with both arguments, .status too
        return (type(self), (self.status, self.args[0]), self.__dict__)


def _check(status, reason_fn):
    if status < 0:
        raise SslSimError(status, reason_fn())
    return status


def number(value, name):
    """value as a float, or ValueError naming it (`name`) for a string,
    None or a list, where ctypes or float() would name neither."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError("%s must be a number, not %r" % (name, value)) from None


def _int32s(values, name):
    """values as an int32 array, or ValueError naming them for anything
    but integers within int32: 2**32 + 3 is not quietly 3."""
    a = np.asarray(values)
    if a.dtype.kind not in "iu" or (a.size and (a.min() < -2**31 or a.max() > 2**31 - 1)):
        raise ValueError("%s must be integers (team 0/1, id 0..255), not %r" % (name, values))
    return a.astype(np.int32)


def commands(teams, ids, actions):
    """A COMMAND record array from teams (n,), ids (n,) and actions (n, 6)
    (ACTION_FIELDS order). Raises ValueError for wrong shapes or non-finite
    values."""
    actions = np.asarray(actions, dtype=np.float64)
    teams = _int32s(teams, "teams")
    ids = _int32s(ids, "ids")
    if actions.ndim != 2 or actions.shape[1] != len(ACTION_FIELDS):
        raise ValueError("actions must have shape (n, %d), not %s" % (len(ACTION_FIELDS), actions.shape))
    n = actions.shape[0]
    if teams.shape != (n,) or ids.shape != (n,):
        raise ValueError("teams and ids must have shape (%d,), not %s and %s" % (n, teams.shape, ids.shape))
    if not np.all(np.isfinite(actions)):
        raise ValueError("actions must be finite (NaN or infinity in row %d)"
                         % int(np.argwhere(~np.isfinite(actions))[0][0]))
    out = np.zeros(n, dtype=N.COMMAND)
    out["team"] = teams
    out["id"] = ids
    for i, f in enumerate(ACTION_FIELDS):
        out[f] = actions[:, i]
    return out


def truth_dict(rec):
    """One TRUTH record as plain arrays: time (s), ball (6,) x y z vx vy vz,
    and per present robot team, id, pos (n, 2), orientation, vel (n, 2),
    omega, ball_contact."""
    n = int(rec["robot_count"])
    r = rec["robots"][:n]
    return {
        "time": float(rec["time_ns"]) / 1e9,
        "ball": np.array(rec["ball"]),
        "team": r["team"].copy(), "id": r["id"].copy(),
        "pos": np.stack([r["x"], r["y"]], axis=1),
        "orientation": r["orientation"].copy(),
        "vel": np.stack([r["vx"], r["vy"]], axis=1),
        "omega": r["omega"].copy(),
        "ball_contact": r["ball_contact"].astype(bool),
    }


def detection_dict(rec):
    """One DETECTION record as plain values: camera_id, frame_number,
    t_capture, t_sent (s), balls {pos (n, 3), confidence, area} and robots
    {team, id, pos (n, 2), orientation, confidence} of the packet's
    detections only (m, rad)."""
    b = rec["balls"][:int(rec["ball_count"])]
    r = rec["robots"][:int(rec["robot_count"])]
    return {
        "camera_id": int(rec["camera_id"]), "frame_number": int(rec["frame_number"]),
        "t_capture": float(rec["t_capture"]), "t_sent": float(rec["t_sent"]),
        "balls": {"pos": np.stack([b["x"], b["y"], b["z"]], axis=1), "confidence": b["confidence"].copy(),
                  "area": b["area"].copy()},
        "robots": {"team": r["team"].copy(), "id": r["id"].copy(), "pos": np.stack([r["x"], r["y"]], axis=1),
                   "orientation": r["orientation"].copy(), "confidence": r["confidence"].copy()},
    }


class World:
    """One in-process ssl-sim world (sslsim_world_t).

    World(ini=None, args=None, seed=None, vision=True): ini is INI text in
    ssl-sim's configuration format, args `ssl-sim run` flags (for example
    ["--realism", "none"]), seed replaces [sim] seed, vision=False skips
    the camera model (truth only).
    """

    def __init__(self, ini=None, args=None, seed=None, vision=True, _handle=None, _owner=None):
        self._owner = _owner
        if _handle is not None:
            self._h = _handle
            return
        cfg, keep = N.make_config(ini, args, seed, vision)
        err = ctypes.create_string_buffer(512)
        self._h = N.lib.sslsim_world_new(ctypes.byref(cfg), err, len(err))
        del keep
        if not self._h:
            raise SslSimError(N.ECONFIG, err.value.decode(errors="replace"))

    def close(self):
        """Free the world (a batch's world belongs to its batch)."""
        if self._owner is None and getattr(self, "_h", None):
            N.lib.sslsim_world_free(self._h)
        self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handle(self):
        if not self._h:
            raise ValueError("the world is closed")
        return self._h

    def _reason(self):
        return N.lib.sslsim_world_last_error(self._h).decode(errors="replace")

    def _errors(self, count):
        return [N.lib.sslsim_world_error(self._h, i).decode(errors="replace") for i in range(count)]

    # ---- stepping and commands -------------------------------------------
    def step(self, dt=0.016):
        """Advance dt seconds (a whole number of substeps, at most 10 s)."""
        h = self._handle()
        _check(N.lib.sslsim_world_step(h, number(dt, "dt")), self._reason)

    def substeps(self, dt=0.016):
        """How many substeps a step of dt seconds is; SslSimError (naming
        dt) for a dt that step() refuses. Changes nothing."""
        return _check(N.lib.sslsim_world_substeps(self._handle(), number(dt, "dt")), self._reason)

    def command(self, kind, data):
        """Apply one packed protocol message; kind is "simulator_command",
        "robot_control_blue", "robot_control_yellow" or "simulator_config".
        Returns the protocol errors ("CODE: detail") it produced."""
        h = self._handle()
        if kind not in _MSG_KINDS:
            raise ValueError("kind must be one of %s" % ", ".join(_MSG_KINDS))
        data = bytes(data)
        n = _check(N.lib.sslsim_world_command(h, _MSG_KINDS[kind], data, len(data)), self._reason)
        return self._errors(n)

    def robot_commands(self, teams, ids, actions):
        """Command robots: teams (n,) 0 blue / 1 yellow, ids (n,), actions
        (n, 6) in ACTION_FIELDS order. Returns the protocol errors."""
        h = self._handle()
        cmds = commands(teams, ids, actions)
        n = _check(N.lib.sslsim_world_robot_commands(h, N.ptr(cmds), len(cmds)), self._reason)
        return self._errors(n)

    def teleport_ball(self, x, y, vx=0.0, vy=0.0):
        h = self._handle()
        x, y, vx, vy = (number(v, n) for v, n in ((x, "x"), (y, "y"), (vx, "vx"), (vy, "vy")))
        return self._errors(_check(N.lib.sslsim_world_teleport_ball(h, x, y, vx, vy), self._reason))

    def teleport_robot(self, team, id, x=0.0, y=0.0, orientation=0.0, present=True):
        h = self._handle()
        team, id = _int32s([team, id], "team and id")
        x, y, orientation = (number(v, n) for v, n in ((x, "x"), (y, "y"), (orientation, "orientation")))
        return self._errors(_check(N.lib.sslsim_world_teleport_robot(h, int(team), int(id), x, y, orientation,
                                                                      1 if present else 0), self._reason))

    # ---- what comes out --------------------------------------------------
    def vision(self):
        """The last step's vision packets: a list of packed SSL_WrapperPacket
        bytes, oldest first."""
        h = self._handle()
        out = []
        data = ctypes.POINTER(ctypes.c_uint8)()
        size = ctypes.c_size_t()
        for i in range(N.lib.sslsim_world_vision_count(h)):
            _check(N.lib.sslsim_world_vision(h, i, ctypes.byref(data), ctypes.byref(size)), self._reason)
            out.append(ctypes.string_at(data, size.value))
        return out

    def detections(self):
        """The last step's vision packets decoded (by the library, from the
        bytes): a DETECTION record array, one per packet, oldest first;
        rec["balls"][:rec["ball_count"]] and rec["robots"][:rec["robot_count"]]
        hold the detections (m, rad)."""
        h = self._handle()
        n = N.lib.sslsim_world_vision_count(h)
        out = np.zeros(n, dtype=N.DETECTION)
        for i in range(n):
            _check(N.lib.sslsim_world_detection(h, i, N.ptr(out[i:i + 1])), self._reason)
        return out

    def truth_record(self):
        """The true state as a TRUTH record (a fresh copy)."""
        h = self._handle()
        rec = np.zeros(1, dtype=N.TRUTH)
        N.lib.sslsim_world_truth(h, N.ptr(rec))
        return rec[0]

    def truth(self):
        """The true state as plain arrays (truth_dict)."""
        return truth_dict(self.truth_record())

    def limits(self):
        """The field sizes and robot limits in force, as a dict of floats
        (per-team values as [blue, yellow] lists): field_length,
        field_width, boundary_width (along the touch lines),
        boundary_width_goal_line (behind the goal lines), goal_width,
        goal_depth, wall_height (m), robot_speed_max (m/s),
        robot_angular_max (rad/s), kick_speed_max, chip_speed_max (m/s),
        dribbler_rpm_max (rpm)."""
        h = self._handle()
        out = N.Limits()
        _check(N.lib.sslsim_world_limits(h, ctypes.byref(out)), self._reason)
        return {name: (list(getattr(out, name)) if isinstance(kind(), ctypes.Array) else float(getattr(out, name)))
                for name, kind in N.Limits._fields_}

    @property
    def seed(self):
        """The [sim] seed in force (the last reset's)."""
        return int(N.lib.sslsim_world_seed(self._handle()))

    @property
    def time(self):
        """Simulation time, s."""
        return N.lib.sslsim_world_time_ns(self._handle()) / 1e9

    # ---- whole state -----------------------------------------------------
    def reset(self, seed):
        """Start again from the configuration, with `seed`."""
        h = self._handle()
        _check(N.lib.sslsim_world_reset(h, N.seed64(seed)), self._reason)

    def save(self, path):
        h = self._handle()
        _check(N.lib.sslsim_world_save(h, str(path).encode()), self._reason)

    def load(self, path):
        h = self._handle()
        _check(N.lib.sslsim_world_load(h, str(path).encode()), self._reason)


class Batch:
    """n independent worlds stepped together on C threads (sslsim_batch_t).

    Batch(n, threads=0, seeds=None, ini=None, args=None, seed=None,
    vision=True): threads 0 means one per core; world k's seed is seeds[k],
    or the configuration's seed (or `seed`) plus k.
    """

    def __init__(self, n, threads=0, seeds=None, ini=None, args=None, seed=None, vision=True):
        if not isinstance(n, (int, np.integer)) or n < 1:
            raise ValueError("n must be a positive integer, not %r" % (n,))
        cfg, keep = N.make_config(ini, args, seed, vision)
        seed_arr = None
        if seeds is not None:
            seed_arr = N.seed_array(seeds, int(n))
        err = ctypes.create_string_buffer(512)
        self._h = N.lib.sslsim_batch_new(int(n), ctypes.byref(cfg), int(threads),
                                         N.ptr(seed_arr) if seed_arr is not None else None, err, len(err))
        del keep
        if not self._h:
            raise SslSimError(N.ECONFIG, err.value.decode(errors="replace"))
        self.n = int(n)
        self.threads = N.lib.sslsim_batch_threads(self._h)
        self._truth = np.zeros(self.n, dtype=N.TRUTH)
        self._worlds = [World(_handle=N.lib.sslsim_batch_world(self._h, k), _owner=self) for k in range(self.n)]

    def close(self):
        if getattr(self, "_h", None):
            for w in self._worlds:
                w._h = None
            N.lib.sslsim_batch_free(self._h)
        self._h = None

    def __del__(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __len__(self):
        return self.n

    def _handle(self):
        if not self._h:
            raise ValueError("the batch is closed")
        return self._h

    def _reason(self):
        return N.lib.sslsim_batch_last_error(self._h).decode(errors="replace")

    def world(self, k):
        """World k (belongs to the batch; use it between steps only)."""
        self._handle()
        return self._worlds[k]

    def set_commands(self, cmds):
        """Queue commands for the next step: a COMMAND record array of
        shape (n, per_world) (sslsim.commands builds rows)."""
        h = self._handle()
        cmds = np.asarray(cmds)
        if cmds.dtype != N.COMMAND or cmds.ndim != 2 or cmds.shape[0] != self.n:
            raise ValueError("commands must be a COMMAND array of shape (%d, per_world), not %s %s"
                             % (self.n, cmds.dtype, cmds.shape))
        cmds = np.ascontiguousarray(cmds)
        _check(N.lib.sslsim_batch_robot_commands(h, N.ptr(cmds), cmds.shape[1]), self._reason)

    def step(self, dt=0.016):
        """Step every world by dt, in parallel."""
        _check(N.lib.sslsim_batch_step(self._handle(), number(dt, "dt")), self._reason)

    def truth_records(self, out=None):
        """Every world's truth as a TRUTH array of shape (n,); pass `out`
        (the same) to reuse one buffer."""
        h = self._handle()
        if out is None:
            out = np.zeros(self.n, dtype=N.TRUTH)
        elif out.dtype != N.TRUTH or out.shape != (self.n,) or not out.flags.c_contiguous:
            raise ValueError("out must be a contiguous TRUTH array of shape (%d,)" % self.n)
        N.lib.sslsim_batch_truth(h, N.ptr(out))
        return out

    def reset(self, k, seed):
        if not 0 <= int(k) < self.n:
            raise IndexError("no world %d in a batch of %d" % (k, self.n))
        _check(N.lib.sslsim_batch_reset(self._handle(), int(k), N.seed64(seed)), self._reason)

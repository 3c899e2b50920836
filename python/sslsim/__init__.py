"""sslsim: the ssl-sim RoboCup SSL simulator stepped in-process (libsslsim
through ctypes; numpy for arrays; no compiled extension).

    import sslsim
    w = sslsim.World(seed=1)
    w.robot_commands([0], [0], [[1.0, 0, 0, 0, 0, 0]])
    w.step(0.016)
    w.vision()      # packed SSL_WrapperPacket bytes of the step
    w.detections()  # the same, decoded
    w.truth()       # the true state

sslsim.Batch steps many worlds on C threads; sslsim.SslSimEnv is a
Gymnasium-style environment (registered as "SslSim-v0" when Gymnasium is
installed), sslsim.SslSimVectorEnv a vector one over a Batch,
sslsim.SslSimParallelEnv both teams as agents (PettingZoo's parallel
API) and sslsim.dask (with python3-distributed) worlds on a Dask cluster. docs/embedding.md of ssl-sim describes all of it.
"""
from ._native import COMMAND, DETECTION, TRUTH  # noqa: F401
from .world import ACTION_FIELDS, Batch, SslSimError, World, commands, detection_dict, truth_dict  # noqa: F401
from . import learn  # noqa: F401
from .learn import GO_TO_BALL, MAX_AGE, TASK_CONSTANTS, TASKS, observation_bounds  # noqa: F401
from .env import Box, SslSimEnv, register  # noqa: F401
from .vector import SslSimVectorEnv  # noqa: F401
from .parallel import SslSimParallelEnv  # noqa: F401

register()

__all__ = ["World", "Batch", "SslSimEnv", "SslSimVectorEnv", "SslSimParallelEnv", "SslSimError", "TASKS", "TASK_CONSTANTS", "GO_TO_BALL", "Box",
           "commands", "truth_dict", "detection_dict", "observation_bounds", "MAX_AGE", "register",
           "ACTION_FIELDS", "TRUTH", "COMMAND", "DETECTION"]

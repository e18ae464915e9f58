"""The tools `bench.py` times, one module per tool, each behind small adapters ("peers", `base.Peer`)."""

from .adam import AdamC, AdamPython
from .dynibo import DyniboPython
from .mujoco import MujocoPython
from .pinocchio import PinocchioCpp, PinocchioPython, build_pinocchio_bench
from .rbdgen import NumpyBatch, RbdgenBatch, RbdgenBatchC, RbdgenC, RbdgenPython

#: Every peer, in column order.
ALL_PEERS = (RbdgenC, RbdgenPython, RbdgenBatch, RbdgenBatchC, NumpyBatch, PinocchioCpp, PinocchioPython, DyniboPython,
             MujocoPython, AdamPython, AdamC)

__all__ = ["ALL_PEERS", "build_pinocchio_bench"] + [cls.__name__ for cls in ALL_PEERS]

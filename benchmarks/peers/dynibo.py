"""dynibo 0.5.2 from Python."""

from __future__ import annotations

from rbdgen.testing import ARGUMENTS

from ..case import Unavailable
from .base import Peer, stack


class DyniboPython(Peer):
    key, label = "dynibo_py", "dynibo Python"
    implementation = "dynibo"
    full_coordinates = True
    describe = "dynibo 0.5.2 Robot / FloatingRobot methods from Python, one state per call"

    def setup(self, case):
        super().setup(case)
        try:
            from rbdgen.testing import DyniboReference
            self.ref = DyniboReference(case.urdf, case.floating, joint_names=case.joint_names)
        except ImportError as exc:
            raise Unavailable(f"dynibo is not installed ({exc})") from None

    def timed(self, op):
        ref, st = self.ref, self.case.check
        fn = getattr(ref.robot, op)
        rows = [ref.arguments(op, st.ref_base(i), **{n: getattr(st, n)[i] for n in ARGUMENTS[op]})
                for i in range(st.n)]
        return fn, rows, 1

    def results(self, op):
        fn, args, _ = self.timed(op)
        return stack([self.ref.result(op, fn(*a)) for a in args])

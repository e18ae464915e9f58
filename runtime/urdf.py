"""URDF loader (placeholder until the loader lands)."""


def load_urdf(path, floating=False, joint_order=None, armature=None, gravity=(0.0, 0.0, -9.80665)):
    raise NotImplementedError

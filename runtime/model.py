"""The robot model: a frozen, validated kinematic tree of rigid bodies.

Conventions (dynibo 0.5.2):

* A *body* is what a moving joint moves: body ``i`` is the child of joint ``i``.
  Fixed joints are merged away: their child links keep a frame on the moving
  body they are welded to, and their inertia is added to that body.
* ``Joint.parent`` is the index of the parent body, or ``-1`` for the root
  (the world for a fixed base, the floating base body otherwise). Parents come
  before children (``parent < index``).
* A *mimic* joint (`Mimic`) moves a body but takes no coordinate: its position is
  ``multiplier * q_m + offset`` for an independent joint ``m`` (chains of mimics
  are resolved to the first independent joint when loading). ``joint_names`` and
  ``joint_count`` count the independent joints only, in body order: with
  ``q_full = P q + offset`` the algorithms run on the bodies and reduce their
  results by ``P^T`` (see `rbdgen.algorithms.coordinates`).
* Every URDF link has a ``Link``: the body it is welded to (``-1``: the
  root/base) and the pose of the link frame in that body's frame.
* A ``Transform`` is the pose of a child frame in its parent frame: ``rotation``
  holds the child's axes as columns, in parent coordinates (row-major 3x3);
  ``translation`` is the child's origin in parent coordinates.
* An ``Inertia`` is given in its body's frame: mass, centre of mass and the
  rotational inertia about the centre of mass.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from typing import Optional

from .errors import ModelError

Vec3 = tuple[float, float, float]
Mat3 = tuple[Vec3, Vec3, Vec3]
Quat = tuple[float, float, float, float]

IDENTITY3: Mat3 = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))
ZERO3: Vec3 = (0.0, 0.0, 0.0)
STANDARD_GRAVITY: Vec3 = (0.0, 0.0, -9.80665)
JOINT_KINDS = ("revolute", "prismatic")


def _numbers_of(value, n: int, what: str) -> tuple:
    try:
        out = tuple(float(x) for x in value)
    except (TypeError, ValueError) as exc:
        raise ModelError(f"{what}: expected {n} numbers, got {value!r}") from exc
    if len(out) != n:
        raise ModelError(f"{what}: expected {n} numbers, got {len(out)}")
    if not all(math.isfinite(x) for x in out):
        raise ModelError(f"{what}: non-finite value in {out}")
    return out


def _vec3(value, what: str) -> Vec3:
    return _numbers_of(value, 3, what)


def unit_axis(axis, where: str) -> Vec3:
    """``axis`` divided by its length (a unit axis stays as it is, so normalising is idempotent);
    a `ModelError` for a zero axis (length below 1e-12). The length is taken after dividing by the
    largest component: the squares of ``1e200`` overflow, which made such an axis zero."""
    axis = _vec3(axis, f"{where} axis")
    scale = max(abs(x) for x in axis)
    scaled = tuple(x / scale for x in axis) if scale > 0.0 else axis
    length = math.sqrt(sum(x * x for x in scaled))
    if scale * length < 1e-12:
        raise ModelError(f"{where}: zero axis")
    if abs(scale * length - 1.0) > 4e-16:
        axis = tuple(x / length for x in scaled)
    return axis


def _mat3(value, what: str) -> Mat3:
    try:
        rows = tuple(_vec3(row, what) for row in value)
    except TypeError as exc:
        raise ModelError(f"{what}: expected a 3x3 matrix") from exc
    if len(rows) != 3:
        raise ModelError(f"{what}: expected a 3x3 matrix")
    return rows


def _matmul3(a: Mat3, b: Mat3) -> Mat3:
    return tuple(tuple(sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)) for i in range(3))


def _matvec3(a: Mat3, v: Vec3) -> Vec3:
    return tuple(sum(a[i][k] * v[k] for k in range(3)) for i in range(3))


def _transpose3(a: Mat3) -> Mat3:
    return tuple(tuple(a[j][i] for j in range(3)) for i in range(3))


def _snap(x: float) -> float:
    """x made exactly 0, 1 or -1 when within 1e-15 of one of them."""
    for target in (0.0, 1.0, -1.0):
        if abs(x - target) <= 1e-15:
            return target
    return x


def _quat_mul(a: Quat, b: Quat) -> Quat:
    """Hamilton product of two (x, y, z, w) quaternions."""
    (ax, ay, az, aw), (bx, by, bz, bw) = a, b
    return (aw * bx + ax * bw + ay * bz - az * by,
            aw * by - ax * bz + ay * bw + az * bx,
            aw * bz + ax * by - ay * bx + az * bw,
            aw * bw - ax * bx - ay * by - az * bz)


def quaternion_matrix(quat, s=2):
    """Rotation matrix of a quaternion (x, y, z, w), s = 2 / |q|^2 (2: a unit one): 1 + s w ux + s ux ux with
    u = (x, y, z); columns are the rotated frame's axes.

    Each entry is a product with u prescaled by s (12 multiplications). Plain arithmetic, so the one formula
    serves floats here, and NumPy arrays and traced values in the algorithms (`algorithms.kinematics`),
    whose graph folds the constant zeros and ones.
    """
    x, y, z, w = quat
    xs, ys, zs = s * x, s * y, s * z
    xx, yy, zz = x * xs, y * ys, z * zs
    xy, xz, yz = x * ys, x * zs, y * zs
    wx, wy, wz = w * xs, w * ys, w * zs
    return ((1 - (yy + zz), xy - wz, xz + wy),
            (xy + wz, 1 - (xx + zz), yz - wx),
            (xz - wy, yz + wx, 1 - (xx + yy)))


def _rotation_quat(R: Mat3) -> Quat:
    """The quaternion (x, y, z, w), w >= 0, of a rotation matrix (Shepperd's method)."""
    trace = R[0][0] + R[1][1] + R[2][2]
    k = max(range(4), key=lambda i: trace if i == 3 else R[i][i])
    if k == 3:
        w = 0.5 * math.sqrt(1 + trace)
        v = [(R[2][1] - R[1][2]) / (4 * w), (R[0][2] - R[2][0]) / (4 * w), (R[1][0] - R[0][1]) / (4 * w)]
    else:
        i, j, m = k, (k + 1) % 3, (k + 2) % 3
        v = [0.0] * 3
        v[i] = 0.5 * math.sqrt(1 + R[i][i] - R[j][j] - R[m][m])
        v[j] = (R[j][i] + R[i][j]) / (4 * v[i])
        v[m] = (R[m][i] + R[i][m]) / (4 * v[i])
        w = (R[m][j] - R[j][m]) / (4 * v[i])
    quat = (*v, w)
    if w < 0 or (w == 0 and next(x for x in v if x != 0) < 0):
        quat = tuple(-x for x in quat)
    return tuple(_snap(x) for x in quat)


@dataclasses.dataclass(frozen=True)
class Transform:
    """Pose of a child frame in its parent frame (rotation columns = child axes).

    ``quaternion`` (x, y, z, w) is the same rotation with the sign the description gave
    it: a URDF origin's ``rpy`` as the product of its three half-angle quaternions (the
    sign dynibo reports in link poses, w may be negative), a composition as the product
    of the parts'. Given only a rotation, it is the quaternion with w >= 0.
    """

    rotation: Mat3 = IDENTITY3
    translation: Vec3 = ZERO3
    quaternion: Optional[Quat] = None

    def __post_init__(self):
        rotation = _mat3(self.rotation, "transform rotation")
        object.__setattr__(self, "rotation", rotation)
        object.__setattr__(self, "translation", _vec3(self.translation, "transform translation"))
        rrt = _matmul3(rotation, _transpose3(rotation))
        if any(abs(rrt[i][j] - (i == j)) > 1e-9 for i in range(3) for j in range(3)):
            raise ModelError(f"transform rotation is not orthonormal: {rotation}")
        if self.quaternion is None:
            object.__setattr__(self, "quaternion", _rotation_quat(rotation))
            return
        quat = _numbers_of(self.quaternion, 4, "transform quaternion")
        object.__setattr__(self, "quaternion", quat)
        same = quaternion_matrix(quat)
        if any(abs(same[i][j] - rotation[i][j]) > 1e-9 for i in range(3) for j in range(3)):
            raise ModelError(f"transform quaternion {quat} (x, y, z, w) is not the rotation {rotation}")

    @staticmethod
    def from_rpy(xyz=ZERO3, rpy=ZERO3) -> "Transform":
        """URDF origin: rotation ``Rz(yaw) @ Ry(pitch) @ Rx(roll)``, then translation.

        Sines and cosines within 1e-15 of 0 or +-1 (angles that are multiples of
        pi/2 written in decimal) are made exact, so the generated code drops the
        terms they would multiply; the change is below double round-off of the angle.
        The quaternion is ``qz(yaw) qy(pitch) qx(roll)`` of the half angles, snapped alike.
        """
        roll, pitch, yaw = _vec3(rpy, "rpy")
        cr, sr = _snap(math.cos(roll)), _snap(math.sin(roll))
        cp, sp = _snap(math.cos(pitch)), _snap(math.sin(pitch))
        cy, sy = _snap(math.cos(yaw)), _snap(math.sin(yaw))
        rotation = (
            (cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr),
            (sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr),
            (-sp, cp * sr, cp * cr),
        )
        qx = (math.sin(roll / 2), 0.0, 0.0, math.cos(roll / 2))
        qy = (0.0, math.sin(pitch / 2), 0.0, math.cos(pitch / 2))
        qz = (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))
        quat = tuple(_snap(x) for x in _quat_mul(_quat_mul(qz, qy), qx))
        return Transform(rotation, _vec3(xyz, "xyz"), quat)

    def compose(self, child: "Transform") -> "Transform":
        """Pose of ``child``'s frame in this transform's parent frame."""
        return Transform(
            _matmul3(self.rotation, child.rotation),
            tuple(a + b for a, b in zip(_matvec3(self.rotation, child.translation), self.translation)),
            _quat_mul(self.quaternion, child.quaternion),
        )

    def apply(self, point: Vec3) -> Vec3:
        return tuple(a + b for a, b in zip(_matvec3(self.rotation, point), self.translation))


@dataclasses.dataclass(frozen=True)
class Inertia:
    """Mass, centre of mass and rotational inertia about the centre of mass, in the body frame.

    The mass must be finite and non-negative and the tensor finite and symmetric. Whether a rigid
    body has the tensor (positive semi-definite, triangle inequality) is the loaders' inertia
    policy (`rbdgen.inertias`): files that break it load in Pinocchio and dynibo."""

    mass: float = 0.0
    com: Vec3 = ZERO3
    rotational: Mat3 = ((0.0,) * 3,) * 3

    def __post_init__(self):
        mass = float(self.mass)
        if not math.isfinite(mass) or mass < 0.0:
            raise ModelError(f"mass must be finite and non-negative, got {self.mass!r}")
        object.__setattr__(self, "mass", mass)
        object.__setattr__(self, "com", _vec3(self.com, "centre of mass"))
        rotational = _mat3(self.rotational, "inertia tensor")
        scale = max(1.0, max(abs(x) for row in rotational for x in row))
        if any(abs(rotational[i][j] - rotational[j][i]) > 1e-9 * scale for i in range(3) for j in range(i)):
            raise ModelError(f"inertia tensor is not symmetric: {rotational}")
        rotational = tuple(tuple(0.5 * (rotational[i][j] + rotational[j][i]) for j in range(3)) for i in range(3))
        object.__setattr__(self, "rotational", rotational)

    def transformed(self, pose: Transform) -> "Inertia":
        """The same body's inertia expressed in the parent frame of ``pose``."""
        r = pose.rotation
        return Inertia(self.mass, pose.apply(self.com), _matmul3(_matmul3(r, self.rotational), _transpose3(r)))

    def __add__(self, other: "Inertia") -> "Inertia":
        """Inertia of two bodies welded together (both in the same frame)."""
        mass = self.mass + other.mass
        if mass == 0.0:
            return Inertia(0.0, ZERO3, tuple(tuple(a + b for a, b in zip(ra, rb)) for ra, rb in zip(self.rotational, other.rotational)))
        com = tuple((self.mass * a + other.mass * b) / mass for a, b in zip(self.com, other.com))
        return Inertia(mass, com, _add3(self.about_point(com), other.about_point(com)))

    def about_point(self, point: Vec3) -> Mat3:
        """Rotational inertia about ``point`` (parallel-axis theorem)."""
        d = tuple(c - p for c, p in zip(self.com, point))
        dd = sum(x * x for x in d)
        return tuple(
            tuple(self.rotational[i][j] + self.mass * ((dd if i == j else 0.0) - d[i] * d[j]) for j in range(3))
            for i in range(3)
        )


def _add3(a: Mat3, b: Mat3) -> Mat3:
    return tuple(tuple(x + y for x, y in zip(ra, rb)) for ra, rb in zip(a, b))


def symmetric_eigenvalues(a: Mat3) -> tuple[float, float, float]:
    """Eigenvalues of a symmetric 3x3 matrix in ascending order (closed form, Smith 1961)."""
    p1 = a[0][1] ** 2 + a[0][2] ** 2 + a[1][2] ** 2
    q = (a[0][0] + a[1][1] + a[2][2]) / 3.0
    if p1 == 0.0:
        return tuple(sorted((a[0][0], a[1][1], a[2][2])))
    p2 = sum((a[i][i] - q) ** 2 for i in range(3)) + 2.0 * p1
    p = math.sqrt(p2 / 6.0)
    b = tuple(tuple((a[i][j] - (q if i == j else 0.0)) / p for j in range(3)) for i in range(3))
    det_b = (
        b[0][0] * (b[1][1] * b[2][2] - b[1][2] * b[2][1])
        - b[0][1] * (b[1][0] * b[2][2] - b[1][2] * b[2][0])
        + b[0][2] * (b[1][0] * b[2][1] - b[1][1] * b[2][0])
    )
    phi = math.acos(max(-1.0, min(1.0, det_b / 2.0))) / 3.0
    high = q + 2.0 * p * math.cos(phi)
    low = q + 2.0 * p * math.cos(phi + 2.0 * math.pi / 3.0)
    return low, 3.0 * q - high - low, high


@dataclasses.dataclass(frozen=True)
class Limits:
    """Joint limits from the URDF (``inf`` where none is given)."""

    lower: float = -math.inf
    upper: float = math.inf
    effort: float = math.inf
    velocity: float = math.inf

    def __post_init__(self):
        for field in dataclasses.fields(self):
            try:
                value = float(getattr(self, field.name))
            except (TypeError, ValueError):
                raise ModelError(f"{field.name} {getattr(self, field.name)!r} is not a number") from None
            if math.isnan(value):
                raise ModelError(f"{field.name} is NaN")
            object.__setattr__(self, field.name, value)
        if self.lower > self.upper:
            raise ModelError(f"lower {self.lower} is above upper {self.upper}")
        for field in ("effort", "velocity"):
            if getattr(self, field) < 0.0:
                raise ModelError(f"{field} {getattr(self, field)} is negative (it bounds a magnitude)")


@dataclasses.dataclass(frozen=True)
class Mimic:
    """The joint's position is ``multiplier * q[joint] + offset``; ``joint`` is an independent joint."""

    joint: str
    multiplier: float = 1.0
    offset: float = 0.0

    def __post_init__(self):
        if not isinstance(self.joint, str) or not self.joint:
            raise ModelError(f"mimic joint must be a joint's name, got {self.joint!r}")
        for field in ("multiplier", "offset"):
            try:
                value = float(getattr(self, field))
            except (TypeError, ValueError):
                raise ModelError(f"mimic {field} {getattr(self, field)!r} is not a number") from None
            if not math.isfinite(value):
                raise ModelError(f"mimic {field} must be finite, got {value}")
            object.__setattr__(self, field, value)


@dataclasses.dataclass(frozen=True)
class Joint:
    """A moving joint and the body it moves.

    ``origin`` is the joint frame at ``q = 0`` in the parent body's frame (fixed
    joints between the two already folded in); ``axis`` is a unit vector in the
    joint frame; ``inertia`` is the moved body's inertia in the joint frame,
    including everything welded to it; ``mimic``: None for an independent joint.
    """

    name: str
    kind: str
    parent: int
    origin: Transform
    axis: Vec3
    inertia: Inertia
    armature: float = 0.0
    limits: Limits = Limits()
    mimic: Mimic | None = None

    def __post_init__(self):
        if self.kind not in JOINT_KINDS:
            raise ModelError(f"joint {self.name!r}: unsupported kind {self.kind!r}")
        object.__setattr__(self, "axis", unit_axis(self.axis, f"joint {self.name!r}"))
        if self.mimic is not None and not isinstance(self.mimic, Mimic):
            raise ModelError(f"joint {self.name!r}: mimic must be a Mimic or None, got {self.mimic!r}")
        armature = float(self.armature)
        if not math.isfinite(armature) or armature < 0.0:
            raise ModelError(f"joint {self.name!r}: armature must be finite and non-negative, got {self.armature!r}")
        object.__setattr__(self, "armature", armature)


@dataclasses.dataclass(frozen=True)
class Link:
    """A URDF link: the body it is welded to (-1: root/base) and its frame on that body."""

    name: str
    body: int
    pose: Transform = Transform()


@dataclasses.dataclass(frozen=True)
class InertiaNote:
    """One link whose inertia is not a rigid body's, and what the inertia policy (`rbdgen.inertias`) did with it.

    ``violation``: ``"not positive semi-definite"`` or ``"triangle inequality"``; ``size``: by
    how much (the negative principal moment's magnitude, or the excess of the largest moment
    over the sum of the other two), ``relative``: ``size`` over the largest principal moment
    (in magnitude);
    ``given``: the rotational inertia as the file states it, about the centre of mass in link
    axes; ``in_use``: False for a link welded to a fixed base (its inertia plays no part).
    Under ``"balance"``: ``inertia_change`` the largest change of a moment (2-norm of the
    difference, kg m^2) and ``mass_matrix_change`` that of the mass matrix at ``q = 0`` (2-norm,
    relative to the mass matrix's)."""

    link: str
    policy: str
    violation: str
    size: float
    relative: float
    given: Mat3
    in_use: bool = True
    inertia_change: float = 0.0
    mass_matrix_change: float = 0.0


@dataclasses.dataclass(frozen=True)
class InertiaReport:
    """The policy a model was loaded with and the links it applied to."""

    policy: str
    links: tuple = ()

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class RobotModel:
    """A validated kinematic tree. Build it with `rbdgen.load_urdf` or directly."""

    name: str
    joints: tuple[Joint, ...]
    links: tuple[Link, ...]
    floating: bool = False
    base_inertia: Inertia = Inertia()
    gravity: Vec3 = STANDARD_GRAVITY
    #: How the loader treated link inertias no rigid body has (an `InertiaReport`;
    #: None for a model built directly). Not part of the model's identity: its values are.
    inertia_report: Optional[InertiaReport] = dataclasses.field(default=None, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "joints", tuple(self.joints))
        object.__setattr__(self, "links", tuple(self.links))
        object.__setattr__(self, "gravity", _vec3(self.gravity, "gravity"))
        if not self.name or not all(c.isalnum() or c == "_" for c in self.name) or self.name[0].isdigit():
            raise ModelError(f"robot name {self.name!r} must be a C identifier (letters, digits, '_')")
        names = [j.name for j in self.joints]
        if len(set(names)) != len(names):
            raise ModelError(f"duplicate joint names in {names}")
        link_names = [link.name for link in self.links]
        if len(set(link_names)) != len(link_names):
            raise ModelError(f"duplicate link names in {link_names}")
        for i, joint in enumerate(self.joints):
            if not -1 <= joint.parent < i:
                raise ModelError(f"joint {joint.name!r}: parent body {joint.parent} must come before body {i}")
        for link in self.links:
            if not -1 <= link.body < len(self.joints):
                raise ModelError(f"link {link.name!r}: unknown body {link.body}")
        by_name = {j.name: j for j in self.joints}
        for joint in self.joints:
            if joint.mimic is None:
                continue
            master = by_name.get(joint.mimic.joint)
            if master is None or master.mimic is not None:
                raise ModelError(f"joint {joint.name!r} mimics {joint.mimic.joint!r}, which is not an independent "
                                 f"joint of the model (chains of mimics must be resolved to their first joint)")
        if self.floating and self.base_inertia.mass + sum(j.inertia.mass for j in self.joints) <= 0.0:
            raise ModelError("floating base: the whole tree is massless")

    def __repr__(self) -> str:
        return (f"<RobotModel {self.name}: J={self.joint_count}, G={self.generalized_count}, L={len(self.links)}, "
                f"{'floating' if self.floating else 'fixed'} base>")

    # -- sizes and names -------------------------------------------------
    @property
    def joint_count(self) -> int:
        """J: the number of independent moving joints (length of q, qd, qdd)."""
        return len(self.joint_names)

    @property
    def generalized_count(self) -> int:
        """G: J for a fixed base, J + 6 for a floating base."""
        return self.joint_count + (6 if self.floating else 0)

    @property
    def joint_names(self) -> tuple[str, ...]:
        """The independent joints (one coordinate each), in body order."""
        return tuple(j.name for j in self.joints if j.mimic is None)

    @property
    def coordinates(self) -> tuple[tuple[int, float, float], ...]:
        """Per body: ``(k, multiplier, offset)``, its position being ``multiplier * q[k] + offset``
        (``(k, 1.0, 0.0)`` for the independent joint with coordinate k)."""
        index = {name: k for k, name in enumerate(self.joint_names)}
        return tuple((index[j.name], 1.0, 0.0) if j.mimic is None
                     else (index[j.mimic.joint], j.mimic.multiplier, j.mimic.offset) for j in self.joints)

    @property
    def link_names(self) -> tuple[str, ...]:
        return tuple(link.name for link in self.links)

    @property
    def total_mass(self) -> float:
        return self.base_inertia.mass + sum(j.inertia.mass for j in self.joints)

    def link_id(self, name: str) -> int:
        """Index of the URDF link called ``name`` (ValueError if there is none)."""
        try:
            return self.link_names.index(name)
        except ValueError:
            raise ValueError(f"unknown link {name!r}; links are {list(self.link_names)}") from None

    def children(self, body: int) -> tuple[int, ...]:
        return tuple(i for i, j in enumerate(self.joints) if j.parent == body)

    # -- identity --------------------------------------------------------
    def as_dict(self) -> dict:
        """Plain data (JSON-ready); ``mimic`` appears on mimic joints only; ``inertia_report`` (the
        loader's report, in the manifest on its own) does not."""
        data = dataclasses.asdict(self)
        del data["inertia_report"]
        for joint in data["joints"]:
            if joint["mimic"] is None:
                del joint["mimic"]
        return data

    @staticmethod
    def from_dict(data: dict) -> "RobotModel":
        """Inverse of `as_dict` (for example after a JSON round trip)."""
        def inertia(d):
            return Inertia(d["mass"], d["com"], d["rotational"])

        def transform(d):
            return Transform(d["rotation"], d["translation"], d.get("quaternion"))

        joints = [
            Joint(j["name"], j["kind"], j["parent"], transform(j["origin"]), j["axis"], inertia(j["inertia"]),
                  j["armature"], Limits(**j["limits"]), Mimic(**j["mimic"]) if j.get("mimic") else None)
            for j in data["joints"]
        ]
        links = [Link(link["name"], link["body"], transform(link["pose"])) for link in data["links"]]
        return RobotModel(data["name"], joints, links, data["floating"], inertia(data["base_inertia"]), data["gravity"])

    @property
    def digest(self) -> str:
        """SHA-256 of the model's canonical JSON form: same model, same digest."""
        text = json.dumps(self.as_dict(), sort_keys=True, default=repr, separators=(",", ":"))
        return hashlib.sha256(text.encode()).hexdigest()


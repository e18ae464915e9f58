"""The two reference adapters (Pinocchio, dynibo 0.5.2) agree on every test robot.

This is what makes them usable as references for rbdgen: they are independent
implementations, and after the conversions of ``rbdgen.testing.references`` they give the same
numbers in rbdgen's (= dynibo's) conventions.
"""

from __future__ import annotations

import numpy as np
import pytest

pin = pytest.importorskip("pinocchio")
dynibo = pytest.importorskip("dynibo")

from helpers import LOAD_LINKS, NAMES, model, random_states  # noqa: E402
from helpers import dynibo as dynibo_reference  # noqa: E402
from helpers import pinocchio as pinocchio_reference  # noqa: E402
from rbdgen.testing import DyniboReference, MimicReference, PinocchioReference, dynibo_joint_order  # noqa: E402
from robots import ROBOTS  # noqa: E402

TIGHT = 1e-12  # mass matrix, inverse dynamics
LOOSE = 1e-10  # gravity, velocity products, forward dynamics, kinetic energy

SAMPLES = {"talos": 3, "g1": 4}


def close(a, b, tol):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape
    err = np.linalg.norm(a - b)
    assert err <= tol * max(1.0, np.linalg.norm(b)), f"error {err:.3e} for norm {np.linalg.norm(b):.3e}"


def refs(name):
    """The (Pinocchio, dynibo) references of robot ``name`` (cached in `helpers`)."""
    return pinocchio_reference(name), dynibo_reference(name)


def unreduced(ref):
    """The reference itself, or the one over the URDF without its mimic tags (Talos)."""
    return ref.full if isinstance(ref, MimicReference) else ref


def states(name, seed):
    """Random (base, q, qd, qdd, tau, loads) samples for robot ``name`` (`rbdgen.testing.random_states`)."""
    st = random_states(model(name), SAMPLES.get(name, 6), seed, load_links=LOAD_LINKS[name])
    for i in range(st.n):
        yield st.ref_base(i), st.q[i], st.qd[i], st.qdd[i], st.tau[i], st.load_lists[i]


@pytest.mark.parametrize("name", NAMES)
def test_registry_and_load_links(name):
    p, d = refs(name)
    assert p.J == d.J == model(name).joint_count and p.G == d.G
    robot = unreduced(d).robot
    assert unreduced(d).J == robot.joint_count and unreduced(d).G == robot.generalized_count
    for link in LOAD_LINKS[name]:
        robot.link_id(link)  # raises if unknown


@pytest.mark.parametrize("name", NAMES)
def test_mass_matrix(name):
    p, d = refs(name)
    for base, q, *_ in states(name, 1):
        Mp, Md = p.mass_matrix(base, q), d.mass_matrix(base, q)
        assert Mp.shape == (p.G, p.G)
        close(Mp, Md, TIGHT)
        close(Md, Md.T, TIGHT)


@pytest.mark.parametrize("name", NAMES)
def test_inverse_dynamics(name):
    p, d = refs(name)
    for base, q, qd, qdd, _, loads in states(name, 2):
        close(p.inverse_dynamics(base, q, qd, qdd), d.inverse_dynamics(base, q, qd, qdd), TIGHT)
        close(p.inverse_dynamics(base, q, qd, qdd, loads),
              d.inverse_dynamics(base, q, qd, qdd, loads), TIGHT)


@pytest.mark.parametrize("name", NAMES)
def test_gravity(name):
    p, d = refs(name)
    for base, q, _, _, _, loads in states(name, 3):
        close(p.gravity(base, q), d.gravity(base, q), LOOSE)
        close(p.gravity(base, q, loads), d.gravity(base, q, loads), LOOSE)
        # gravity = ID at zero joint velocity/acceleration and a base at rest
        rest = None if base is None else (base[0], base[1])
        z = np.zeros(p.J)
        close(d.gravity(base, q, loads), d.inverse_dynamics(rest, q, z, z, loads), LOOSE)


@pytest.mark.parametrize("name", NAMES)
def test_velocity_products(name):
    p, d = refs(name)
    for base, q, qd, qdd, _, _ in states(name, 4):
        c = d.velocity_product_forces(base, q, qd)
        close(p.velocity_product_forces(base, q, qd), c, LOOSE)
        if base is None:
            # ID = M qdd + C + g for a fixed base
            close(d.inverse_dynamics(None, q, qd, qdd),
                  d.mass_matrix(None, q) @ qdd + c + d.gravity(None, q), LOOSE)


@pytest.mark.parametrize("name", NAMES)
def test_forward_dynamics(name):
    p, d = refs(name)
    for base, q, qd, qdd, tau, loads in states(name, 5):
        for ld in ((), loads):
            a_p = p.forward_dynamics(base, q, qd, tau, ld)
            a_d = d.forward_dynamics(base, q, qd, tau, ld)
            close(a_p, a_d, LOOSE)
            # FD inverts ID (base acceleration taken from the FD result)
            if base is None:
                close(d.inverse_dynamics(None, q, qd, a_d, ld), tau, LOOSE)
            else:
                b = (base[0], base[1], base[2], a_d[:6])
                close(d.inverse_dynamics(b, q, qd, a_d[6:], ld), tau, LOOSE)


@pytest.mark.parametrize("name", NAMES)
def test_kinetic_energy(name):
    p, d = refs(name)
    for base, q, qd, *_ in states(name, 6):
        close(p.kinetic_energy(base, q, qd), d.kinetic_energy(base, q, qd), LOOSE)


# -- conventions ------------------------------------------------------------


@pytest.mark.parametrize("name", ["g1", "talos", "hand", "solo12"])
def test_joint_order_is_not_pinocchios(name):
    """The permutation is exercised: Pinocchio's depth-first order differs."""
    p = unreduced(refs(name)[0])
    first = 2 if p.floating else 1
    assert list(p.model.names[first:]) != p.joint_names
    assert sorted(p.model.names[first:]) == sorted(p.joint_names)


def test_custom_joint_order():
    p, d = refs("g1")
    order = list(reversed(p.joint_names))
    p2 = PinocchioReference(ROBOTS["g1"].path, True, joint_names=order)
    d2 = DyniboReference(ROBOTS["g1"].path, True, joint_names=order)
    (base, q, qd, qdd, tau, loads), = list(states("g1", 7))[:1]
    perm = [p.joint_names.index(n) for n in order]
    gperm = list(range(6)) + [6 + i for i in perm]
    M = d.mass_matrix(base, q)
    close(d2.mass_matrix(base, q[perm]), M[np.ix_(gperm, gperm)], TIGHT)
    close(p2.mass_matrix(base, q[perm]), M[np.ix_(gperm, gperm)], TIGHT)
    tau_id = d.inverse_dynamics(base, q, qd, qdd, loads)
    close(p2.inverse_dynamics(base, q[perm], qd[perm], qdd[perm], loads), tau_id[gperm], TIGHT)
    close(d2.inverse_dynamics(base, q[perm], qd[perm], qdd[perm], loads), tau_id[gperm], TIGHT)
    a = d.forward_dynamics(base, q, qd, tau, loads)
    close(d2.forward_dynamics(base, q[perm], qd[perm], tau[gperm], loads), a[gperm], LOOSE)


_SYNTHETIC = {
    # A fixed joint counts as a breadth-first level: xC (under the fixed zA)
    # comes after yB, although it is one *moving* joint away from the root.
    "fixed_depth": (["base", "a", "b", "c", "d"],
                    [("zA", "fixed", "base", "a"), ("yB", "revolute", "base", "b"),
                     ("xC", "revolute", "a", "c"), ("wD", "revolute", "b", "d")],
                    ["yB", "xC", "wD"]),
    # Children follow the joints' document order, not the links'.
    "child_order": (["base", "d", "c", "b", "a"],
                    [("j1", "revolute", "base", "a"), ("j2", "revolute", "base", "b"),
                     ("j3", "revolute", "a", "c"), ("j4", "revolute", "b", "d")],
                    ["j1", "j2", "j3", "j4"]),
    # Document order of joints, even when children are listed before parents.
    "doc_reverse": (["base", "a", "b", "c", "d", "e"],
                    [("k5", "revolute", "c", "e"), ("k4", "revolute", "b", "d"),
                     ("k3", "revolute", "a", "c"), ("k2", "revolute", "base", "b"),
                     ("k1", "revolute", "base", "a")],
                    ["k2", "k1", "k4", "k3", "k5"]),
}


def _synthetic_urdf(links, joints, rng):
    out = ['<robot name="synthetic">']
    for name in links:
        m, i = rng.uniform(0.5, 2.0), rng.uniform(0.01, 0.1, 3)
        c = rng.uniform(-0.1, 0.1, 3)
        out.append(f'<link name="{name}"><inertial><origin xyz="{c[0]} {c[1]} {c[2]}"/>'
                   f'<mass value="{m}"/><inertia ixx="{i[0] + i[1]}" ixy="0" ixz="0" '
                   f'iyy="{i[1] + i[2]}" iyz="0" izz="{i[0] + i[2]}"/></inertial></link>')
    for name, kind, parent, child in joints:
        o, ax = rng.uniform(-0.3, 0.3, 3), rng.normal(size=3)
        s = (f'<joint name="{name}" type="{kind}"><parent link="{parent}"/><child link="{child}"/>'
             f'<origin xyz="{o[0]} {o[1]} {o[2]}" rpy="{rng.uniform(-1, 1)} 0 0"/>')
        if kind != "fixed":
            s += (f'<axis xyz="{ax[0]} {ax[1]} {ax[2]}"/>'
                  '<limit lower="-1" upper="1" effort="1" velocity="1"/>')
        out.append(s + "</joint>")
    return "".join(out) + "</robot>"


@pytest.mark.parametrize("case", list(_SYNTHETIC))
def test_dynibo_joint_order_rule(case, tmp_path):
    """dynibo's order is breadth-first over all joints, children in joint document order."""
    links, joints, expected = _SYNTHETIC[case]
    rng = np.random.default_rng(11)
    path = tmp_path / f"{case}.urdf"
    path.write_text(_synthetic_urdf(links, joints, rng))
    assert dynibo_joint_order(path) == expected
    robot = dynibo.Robot.from_urdf(str(path))
    q = rng.uniform(-1, 1, len(expected))
    native = np.asarray(robot.mass_matrix(q)).reshape(len(q), len(q), order="F")
    close(PinocchioReference(path, False, joint_names=expected).mass_matrix(None, q), native, TIGHT)
    wrong = expected[1:] + expected[:1]
    Mw = PinocchioReference(path, False, joint_names=wrong).mass_matrix(None, q)
    assert np.linalg.norm(Mw - native) > 1e-6 * np.linalg.norm(native)


def test_load_sign():
    """A dynibo load is the wrench the link applies: ID changes by +J^T [torque; force]."""
    path = ROBOTS["double_pendulum"].path
    d = DyniboReference(path, False)
    model = pin.buildModelFromUrdf(path)
    data = model.createData()
    q = np.array([0.3, -0.7])
    fid = model.getFrameId("link2", pin.BODY)
    Jl = pin.computeFrameJacobian(model, data, q, fid, pin.LOCAL)  # rows [v; omega], link frame
    torque, force = np.array([0.2, -0.4, 0.5]), np.array([1.0, 2.0, -3.0])
    delta = d.gravity(None, q, [("link2", torque, force)]) - d.gravity(None, q)
    expected = Jl.T @ np.concatenate([force, torque])
    close(delta, expected, TIGHT)
    assert np.linalg.norm(expected) > 0.1


def test_armature():
    path = ROBOTS["panda"].path
    arm = {"panda_joint2": 0.25, "panda_joint6": 0.1}
    p0, p1 = PinocchioReference(path, False), PinocchioReference(path, False, armature=arm)
    rng = np.random.default_rng(8)
    q, qd, qdd = rng.normal(size=7), rng.normal(size=7), rng.normal(size=7)
    extra = np.diag([arm.get(n, 0.0) for n in p0.joint_names])
    close(p1.mass_matrix(None, q), p0.mass_matrix(None, q) + extra, TIGHT)
    close(p1.inverse_dynamics(None, q, qd, qdd), p0.inverse_dynamics(None, q, qd, qdd) + extra @ qdd,
          TIGHT)
    tau = p1.inverse_dynamics(None, q, qd, qdd)
    close(p1.forward_dynamics(None, q, qd, tau), qdd, LOOSE)
    with pytest.raises(NotImplementedError):
        DyniboReference(path, False, armature=arm)


def test_fixed_base_rejects_base_and_quaternion_is_normalised():
    p, d = refs("solo12")
    rng = np.random.default_rng(9)
    q = rng.normal(size=12)
    quat = random_states(model("solo12"), 1, 9).quat[0]
    b1 = (np.array([1.0, 2.0, 3.0]), quat)
    b2 = (np.array([1.0, 2.0, 3.0]), 3.0 * quat)
    close(p.mass_matrix(b2, q), d.mass_matrix(b1, q), TIGHT)
    close(d.mass_matrix(b2, q), d.mass_matrix(b1, q), TIGHT)
    p2, _ = refs("ur5")
    with pytest.raises(ValueError):
        p2.mass_matrix(b1, np.zeros(6))


def test_talos_references_are_reduced_by_its_mimic_tags():
    """Talos' 12 mimic joints follow their gripper's joint (multiplier +-1, no offset): the
    references work on the URDF without the tags, reduced by that map, and the reduction matters
    (the mimic bodies' inertia lands on their master's diagonal)."""
    p, d = refs("talos")
    assert isinstance(p, MimicReference) and isinstance(d, MimicReference)
    assert p.P.shape == (unreduced(p).J, p.J) == (44, 32)
    mimic_rows = [i for i, n in enumerate(unreduced(p).joint_names) if n not in p.joint_names]
    assert len(mimic_rows) == 12 and not p.o.any()
    masters = {p.joint_names[int(np.flatnonzero(p.P[i])[0])] for i in mimic_rows}
    assert masters == {"gripper_left_joint", "gripper_right_joint"}
    assert set(np.abs(p.P[mimic_rows]).sum(axis=1)) == {1.0}
    (base, q, *_), = list(states("talos", 8))[:1]
    M, M_full = p.mass_matrix(base, q), unreduced(p).mass_matrix(base, p.full_state(q)[0])
    k = 6 + p.joint_names.index("gripper_left_joint")
    k_full = 6 + unreduced(p).joint_names.index("gripper_left_joint")
    assert M[k, k] > 1.5 * M_full[k_full, k_full]

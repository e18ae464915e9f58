"""The public operations: one `Operation` record each, the single source of their facts.

An operation maps named flat inputs to named flat outputs (lists of scalars) by
running the algorithms on any scalar backend: `NumpySolver` evaluates it on
arrays, code generation traces it on symbols (C) or on CasADi SX, and the solver
methods, the C signatures and docs, the manifest and the validation all read the
record: its inputs and outputs (names, shapes in terms of J, G and L, docs), whether
it takes loads, its algorithm, its validation tolerance and the operation holding
its Jacobians. Adding an operation is an algorithm, one record and its reference test (docs/design.md,
"Adding an operation"); code elsewhere reads the record's fields, never the operation's name.

A floating base adds the input ``base`` first: `BASE_SIZE` values laid out by `BASE`:
translation (3), quaternion xyzw (4), velocity (6) and acceleration (6), world frame,
angular first.
An input marked ``floating_only`` (``base1``, the second state's base of ``difference``, laid out as
``base``) exists for a floating base only, as such outputs do. ``dt`` is a scalar input (shape ``()``).
``loads`` holds L*6 values, one ``[torque, force]`` wrench per link in link order.
The constrained operations (group ``"contacts"``, `contact_dynamics`) are sized by the contacts the
tree declares (`rbdgen.contacts`): K contacts, C constraint rows, R reference values; ``reference``
exists only where the Baumgarte gain kp is not zero (``baumgarte_only``).
Matrices are stored column-major; per-link tables (``loads``) row by row.

Mimic joints (`coordinates`): the joint inputs are the J independent coordinates;
each algorithm gets them expanded to every body (``q_full = P q + offset``), runs
on the whole tree and its results are reduced (``P^T tau``, ``P^T M P``). Forward
dynamics runs ABA with each group of bodies one coordinate moves as one macro joint
(`aba`) where the group hangs from one body (a gripper's fingers from the wrist); a
group that does not (a mimic joint in another branch than its master, below joints of
its own) couples coordinates no single tree sweep eliminates, and forward dynamics is
then computed as ``forward_dynamics_crba`` (reduced mass matrix, one RNEA bias, one
checked solve: the tree-sparse LTDL where the reduced matrix keeps a tree's pattern,
`ltdl.coordinate_parents`, else the dense Cholesky).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Optional

from .. import spatial as sp
from . import (base_parameters, centroidal, configuration, contact_derivatives, contact_dynamics, coordinates, energy,
               frames, kinematics_derivatives, loop_dynamics, parametric, regressor, taskspace)
from .aba import aba, aba_obstacle
from .coriolis import coriolis_matrix, mass_matrix_derivative
from .dual import Dual, DualOps, seed, tangent
from .crba import crba
from .fd_derivatives import fd_derivatives
from .kinematics import Tree, rotate, rotate_back
from .ltdl import coordinate_parents, solve_tree
from .minv import mass_matrix_inverse
from .minv_aba import mass_matrix_inverse_aba
from .passivity import passivity_forces
from .rnea import rnea, rnea_passes
from .rnea_derivatives import rnea_derivatives

#: The flat ``base`` input: each field's slice (the one statement of this layout).
BASE = {"translation": slice(0, 3), "quat": slice(3, 7), "velocity": slice(7, 13), "acceleration": slice(13, 19)}
BASE_SIZE = BASE["acceleration"].stop


@dataclass(frozen=True)
class Port:
    """A named input or output: its shape (ints or the sizes ``"J"``, ``"G"``, ``"L"``) and its doc."""

    name: str
    shape: tuple
    doc: str
    by_row: bool = False  # a per-link table stored row by row (matrices are column-major)
    symmetric: bool = False  # both triangles hold the same scalars
    floating_only: bool = False  # exists for a floating base only (an input or an output)
    wrt: Optional[str] = None  # a Jacobian: the input it differentiates by
    optional: bool = False  # an input the C takes as NULL for none (zero)
    meaning: str = ""  # the Python doc of a Jacobian output, where it says more than the input it is by
    flag: str = ""  # an output chosen by a keyword flag (`Operation.result` "selected"): the flag's name
    key: str = ""  # ... and the output's key in the returned dict
    baumgarte_only: bool = False  # an input that exists only where the contacts' kp is not zero

    @property
    def c_ordered(self) -> bool:
        """Whether the flat values are the array in C order: a scalar, a vector, a symmetric matrix or a
        per-link table."""
        return len(self.shape) <= 1 or self.symmetric or self.by_row

    @property
    def numerical(self) -> bool:
        """Whether a size is the number of identifiable parameters (``"Pb"``: a numerical factorisation)."""
        return "Pb" in self.shape

    def dims(self, sizes: dict) -> tuple:
        return tuple(sizes.get(d, d) for d in self.shape)

    def size(self, sizes: dict) -> int:
        out = 1
        for d in self.dims(sizes):
            out *= d
        return out


#: The parts of the base state, as the docs describe them.
_BASE_DOCS = {"translation": "translation", "quat": "quaternion xyzw", "velocity": "velocity [omega_W, pdot_W]",
              "acceleration": "acceleration [omegadot_W, pddot_W]"}

#: Array kinds every input accepts as numbers: floating point, signed and unsigned integers.
#: Bool, complex, strings and objects would lose or invent information: a TypeError.
NUMBER_KINDS = "fiu"

#: The inputs, shared by every operation that takes them.
INPUTS = {p.name: p for p in (
    Port("base", (BASE_SIZE,), f"base state, {BASE_SIZE} values: "
         + ", ".join(f"{_BASE_DOCS[part]} ({s.stop - s.start})" for part, s in BASE.items())
         + "; world frame, angular first"),
    Port("q", ("J",), "joint positions (J)"),
    Port("qd", ("J",), "joint velocities (J)"),
    Port("qdd", ("J",), "joint accelerations (J)"),
    Port("tau", ("G",), "generalized forces (G)"),
    Port("qd_ref", ("G",), "reference velocity (G): floating base, [omega_W, pdot_W] first"),
    Port("qdd_ref", ("G",), "reference acceleration (G): floating base, [omegadot_W, pddot_W] (classical) first"),
    Port("loads", ("L", 6), "link wrenches [torque, force] at each link origin in the link frame "
         "(L x 6, row per link); may be NULL", by_row=True, optional=True),
    Port("v", ("G",), "velocity (G), held for dt: floating base, [omega_W, pdot_W] first"),
    Port("dt", (), "time step [s]"),
    Port("base1", (BASE_SIZE,), "the second state's base, laid out as base (its velocity and acceleration "
         "unused)", floating_only=True),
    Port("q1", ("J",), "the second state's joint positions (J)"),
    Port("active", ("K",), "1.0 (active) or 0.0 (inactive) per declared contact (K)"),
    Port("reference", ("R",), "each contact's target: a point's position (3), a frame's position and unit "
         "quaternion xyzw (7), world frame (R)", baumgarte_only=True),
    Port("params", ("Q",), "inertial parameters of the parametric bodies, 10 each: m, m c, Ixx, Ixy, Iyy, Ixz, Iyz, "
         "Izz about the body origin (a build with parameters=; rbdgen.parameters)"),
)}

#: The sizes of the constrained operations' ports (`rbdgen.contacts.ContactModel.dimensions`).
CONTACT_SIZES = ("K", "C", "R")


@dataclass(frozen=True)
class Operation:
    """One public operation (see the module docstring)."""

    name: str
    doc: str  # one line: what it computes and how
    inputs: tuple  # names in `INPUTS`, in signature order (a floating base adds "base" first)
    outputs: tuple  # Port
    algorithm: Optional[Callable] = None  # (tree, ops, unpacked inputs) -> flat outputs
    tolerance: tuple = (1e-12, 1e-4)  # normwise relative error allowed by `validate`: double, float
    derivative: Optional[str] = None  # the operation holding this one's Jacobians
    of: Optional[str] = None  # for a derivative: the operation it differentiates
    optional_outputs: bool = False  # the C takes NULL for an output that is not wanted
    link: bool = False  # takes a link (C: one function per link chosen at generation time)
    group: str = "dynamics"  # "dynamics" (generated by default), "kinematics", "derivatives", "control" or
    #                          "configuration", "identification"
    mimic_doc: Optional[str] = None  # the doc line where the model has mimic joints ABA cannot take (`aba_obstacle`)
    solves: bool = False  # solves with M: `validate`'s tolerances grow with cond(M)
    algorithms: tuple = ()  # (label, algorithm) pairs, an algorithm another operation's name or a function like
    #                         ``algorithm``: the C may trace this one with any of them
    example: bool = False  # the call a generated folder's README shows (where generated)
    # the Python method (`rbdgen.signatures` builds it from these fields and the ports)
    result: str = "array"  # "array": one array (``out=``); "jacobians": a dict by output name; "selected": the
    #                        outputs chosen by their ports' keyword flags, a dict by key; "state": a floating
    #                        base's (BaseState, array), a fixed base's one array; "constrained": the contact
    #                        operations' tuple of arrays (their derivatives: a dict by name), ``reference=``
    summary: str = ""  # its doc's first line(s), where they say more than ``doc``
    returns: str = ""  # what it returns, after the output's name and shape
    floating_returns: str = ""  # the same for a floating base, where it differs
    tool: Optional[str] = None  # takes ``tool=`` (a point on the link): the operation giving the link's pose

    @property
    def loads(self) -> bool:
        return "loads" in self.inputs

    def describe(self, tree: Tree) -> str:
        """The doc line for ``tree``'s model."""
        return self.mimic_doc if self.mimic_doc and aba_obstacle(tree) else self.doc

    def input_names(self, floating: bool, reference: bool = False) -> tuple:
        """The inputs in signature order (``reference``: the contacts' kp is not zero)."""
        return (("base",) if floating else ()) + tuple(
            n for n in self.inputs if (floating or not INPUTS[n].floating_only)
            and (reference or not INPUTS[n].baumgarte_only))

    def input_ports(self, floating: bool, reference: bool = False) -> tuple:
        return tuple(INPUTS[n] for n in self.input_names(floating, reference))

    def output_ports(self, floating: bool) -> tuple:
        return tuple(p for p in self.outputs if floating or not p.floating_only)


class Dimensions(dict):
    """The sizes shapes are written in: J joints, G generalized coordinates, L links, P inertial parameters
    (10 per body, `rbdgen.parameters`), Q those given at run time (`parametric`), with contacts or loops
    their sizes (`CONTACT_SIZES`) and, computed on first use, Pb identifiable ones (`base_parameters.factor`)."""

    def __init__(self, tree: Tree, link_count: int):
        bodies = tree.nb + (1 if tree.floating else 0)
        contacts = tree.contacts.dimensions() if tree.contacts else {}
        loops = tree.loops.dimensions() if tree.loops else {}
        super().__init__(J=tree.nj, G=tree.nj + (6 if tree.floating else 0), L=link_count, P=10 * bodies,
                         Q=10 * len(tree.parameters), **contacts, **loops)
        self.tree = tree

    def __missing__(self, key: str) -> int:
        if key != "Pb":
            raise KeyError(key)
        self[key] = len(base_parameters.factor(self.tree)[0])
        return self[key]

    def __contains__(self, key) -> bool:
        return key == "Pb" or super().__contains__(key)

    def get(self, key, default=None):
        return self[key] if key == "Pb" else super().get(key, default)


def dimensions(tree: Tree, link_count: int) -> Dimensions:
    """The sizes shapes are written in (`Dimensions`)."""
    return Dimensions(tree, link_count)


class _State:
    """An operation's flat inputs unpacked for the algorithms (absent ones zero, absent loads None)."""

    def __init__(self, tree: Tree, inputs: dict, link: Optional[int]):
        self.link = link
        self.zeros, self.still = [0] * tree.nb, [0] * 6
        self.q = coordinates.positions(tree, inputs["q"])
        self.qd, self.qdd = (coordinates.rates(tree, inputs[k]) if k in inputs else self.zeros for k in ("qd", "qdd"))
        self.tau = inputs.get("tau")
        off = 6 if tree.floating else 0
        self.qd_ref, self.qdd_ref = (list(inputs[k][:off]) + coordinates.rates(tree, inputs[k][off:]) if k in inputs
                                     else None for k in ("qd_ref", "qdd_ref"))
        loads = inputs.get("loads")
        self.loads = None if loads is None else [loads[6 * k: 6 * k + 6] for k in range(len(loads) // 6)]
        base = inputs.get("base")
        self.base = tuple(base[BASE[k]] for k in BASE) if tree.floating else None  # (translation, quat, ...)
        _, self.quat, self.velocity, self.acceleration = self.base or (None,) * 4
        # the configuration operations' own inputs, as given (independent coordinates)
        self.positions, self.v, self.q1 = inputs["q"], inputs.get("v"), inputs.get("q1")
        self.dt = inputs["dt"][0] if "dt" in inputs else None
        self.base1 = tuple(inputs["base1"][BASE[k]] for k in BASE) if "base1" in inputs and tree.floating else None
        self.active, self.reference = inputs.get("active"), inputs.get("reference")
        self.inputs = inputs  # as given: forward-mode derivatives run the operation again on them
        # the G velocities nu = [base velocity, qd] (independent coordinates)
        self.nu = (list(self.velocity) if tree.floating else []) + list(inputs["qd"]) if "qd" in inputs else None


def _column_major(H):
    return [H[r][c] for c in range(len(H)) for r in range(len(H))]


def _mass_matrix(tree, ops, x):
    return {"M": _column_major(coordinates.matrix(tree, crba(tree, ops, x.q, x.quat)))}


def _forces(tree, ops, x, *args, **options):
    return coordinates.forces(tree, rnea(tree, ops, x.q, *args, **options))


def _bias(tree, ops, x):
    """The G bias forces ``h``: inverse dynamics at zero acceleration, with gravity and the loads."""
    return _forces(tree, ops, x, x.qd, x.zeros, (x.quat, x.velocity, x.still), x.loads)


def _velocity_product_forces(tree, ops, x):
    return {"c": _forces(tree, ops, x, x.qd, x.zeros, (x.quat, x.velocity, x.still), None, gravity=False)}


def _gravity(tree, ops, x):
    return {"g": _forces(tree, ops, x, x.zeros, x.zeros, (x.quat, x.still, x.still), x.loads)}


def _inverse_dynamics(tree, ops, x):
    return {"tau": _forces(tree, ops, x, x.qd, x.qdd, (x.quat, x.velocity, x.acceleration), x.loads)}


def _loop_forward_dynamics(tree, ops, x):
    h = _bias(tree, ops, x)
    acc, _ = loop_dynamics.forward_dynamics(tree, ops, x.q, x.qd, x.tau, h, x.base)
    return {"acc": acc}


def _forward_dynamics(tree, ops, x):
    if tree.loops:  # closed loops (`rbdgen.algorithms.loop_dynamics`)
        return _loop_forward_dynamics(tree, ops, x)
    if aba_obstacle(tree):  # mimic joints ABA cannot take (see the module docstring)
        return _forward_dynamics_crba(tree, ops, x)
    return {"acc": aba(tree, ops, x.q, x.qd, x.tau, (x.quat, x.velocity), x.loads)}


def _forward_dynamics_crba(tree, ops, x):
    # qdd = M^-1 (tau - b): b = ID(q, qd, 0) from one RNEA pass, then one checked solve: the tree-sparse
    # LTDL, or the dense Cholesky where mimic joints couple coordinates outside a tree's pattern.
    # A floating base is solved in its body frame B (`crba` without the quaternion): H_B (T acc) = T tau - b_B
    if tree.loops:
        return _loop_forward_dynamics(tree, ops, x)
    H = coordinates.matrix(tree, crba(tree, ops, x.q))
    r = rnea_passes(tree, ops, x.q, x.qd, x.zeros, (x.quat, x.velocity, x.still), x.loads)
    tau = list(rotate(r.E0, x.tau[:6])) + list(x.tau[6:]) if tree.floating else x.tau    # T tau
    bias = coordinates.forces(tree, (list(r.f0) if tree.floating else []) + r.tau)      # b_B
    rhs = [sp.sub(t, b) for t, b in zip(tau, bias)]
    lam = coordinate_parents(tree)
    acc = list(ops.solve_spd(H, rhs, "mass matrix")) if lam is None else solve_tree(H, rhs, lam, ops, "mass matrix")
    return {"acc": list(rotate_back(r.E0, acc[:6])) + acc[6:] if tree.floating else acc}          # acc = T^T (T acc)


def _flat_jacobians(op, tree, columns):
    """Flat column-major Jacobian outputs of ``op`` from ``{wrt: [columns]}``."""
    return {p.name: [v for column in columns[p.wrt] for v in column] for p in operation(op).output_ports(tree.floating)}


def _inverse_dynamics_derivatives(tree, ops, x):
    jac = rnea_derivatives(tree, ops, x.q, x.qd, x.qdd, (x.quat, x.velocity, x.acceleration), x.loads)
    return _flat_jacobians("inverse_dynamics_derivatives", tree, coordinates.jacobians(tree, jac))


def _forward_dynamics_derivatives(tree, ops, x):
    if tree.loops:  # forward-mode derivatives of the loops' solve
        return _forward_jacobians("forward_dynamics_derivatives", tree, ops, x.inputs)
    return _flat_jacobians("forward_dynamics_derivatives", tree,
                           fd_derivatives(tree, ops, x.q, x.qd, x.tau, (x.quat, x.velocity), x.loads))


def _passive_terms(tree, ops, x):
    return {**_mass_matrix(tree, ops, x), "g": _gravity(tree, ops, x)["g"], **_velocity_product_forces(tree, ops, x)}


def _base_velocity(x):
    return (x.quat, x.velocity) if x.base else None


def _coriolis_matrix(tree, ops, x):
    C = coriolis_matrix(tree, ops, x.q, x.qd, _base_velocity(x))
    return {"C": _column_major(coordinates.matrix(tree, C, symmetric=False))}


def _mass_matrix_derivative(tree, ops, x):
    Mdot = mass_matrix_derivative(tree, ops, x.q, x.qd, _base_velocity(x))
    return {"Mdot": _column_major(coordinates.matrix(tree, Mdot))}


def _mass_matrix_inverse(tree, ops, x):
    return {"Minv": _column_major(mass_matrix_inverse(tree, ops, x.q, x.quat))}


def _mass_matrix_inverse_aba(tree, ops, x):
    return {"Minv": _column_major(mass_matrix_inverse_aba(tree, ops, x.q, x.quat))}


def _kinetic_energy(tree, ops, x):
    return {"kinetic_energy": [energy.kinetic_energy(tree, ops, x.q, x.qd, _base_velocity(x))]}


def _potential_energy(tree, ops, x):
    return {"potential_energy": [energy.potential_energy(tree, ops, x.q, x.base)]}


def _momentum(tree, ops, x):
    return {"momentum": coordinates.forces(tree, energy.momentum(tree, ops, x.q, x.qd, _base_velocity(x)))}


def _passivity_forces(tree, ops, x):
    return {"tau": coordinates.forces(tree, passivity_forces(tree, ops, x.q, x.qd, x.qd_ref, x.qdd_ref,
                                                             _base_velocity(x), x.loads))}


def _task_space(tree, ops, x):
    return taskspace.task_space(tree, ops, x.q, x.quat, _jacobian(tree, ops, x)["jacobian"])


def _regressor_columns(tree, ops, x) -> list:
    return regressor.regressor_columns(tree, ops, x.q, x.qd, x.qdd, (x.quat, x.velocity, x.acceleration))


def _inverse_dynamics_regressor(tree, ops, x):
    return {"regressor": [v for column in _regressor_columns(tree, ops, x) for v in column]}


def _inverse_dynamics_base_regressor(tree, ops, x):
    columns = _regressor_columns(tree, ops, x)
    return {"base_regressor": [v for k in base_parameters.factor(tree)[0] for v in columns[k]]}


def _inverse_dynamics_known_forces(tree, ops, x):
    return {"tau_known": coordinates.forces(tree, regressor.known_forces(
        tree, ops, x.q, x.qdd, (x.quat, x.velocity, x.acceleration), x.loads))}


def _energy_regressor(tree, ops, x):
    kinetic, potential = regressor.energy_regressor(tree, ops, x.q, x.qd, x.base)
    return {"energy_regressor": [v for pair in zip(kinetic, potential) for v in pair]}


def _operational_space_inertia(tree, ops, x):
    Lam, _ = _task_space(tree, ops, x)
    return {"Lambda": [Lam[r][c] for c in range(6) for r in range(6)]}


def _dynamically_consistent_inverse(tree, ops, x):
    Jsharp = taskspace.dynamically_consistent_inverse(*_task_space(tree, ops, x))
    return {"jacobian_inverse": _column_major_rect(Jsharp)}


def _column_major_rect(rows):
    return [rows[r][c] for c in range(len(rows[0])) for r in range(len(rows))]


def _reduced(tree, flat, rows):
    """A column-major ``rows`` x (one column per body coordinate) matrix times P: rows x G (mimic joints)."""
    per_row = [coordinates.forces(tree, flat[r::rows]) for r in range(rows)]
    return [row[c] for c in range(len(per_row[0])) for row in per_row]


def _forward_kinematics(tree, ops, x):
    return {"pose": frames.forward_kinematics(tree, ops, x.q, x.base, x.link)}


def _forward_kinematics_all(tree, ops, x):
    return {"poses": frames.forward_kinematics_all(tree, ops, x.q, x.base)}


def _jacobian(tree, ops, x):
    return {"jacobian": _reduced(tree, frames.jacobian(tree, ops, x.q, x.base, x.link), 6)}


def _jacobian_derivative(tree, ops, x):
    return {"jacobian_derivative": _reduced(tree, frames.jacobian_derivative(tree, ops, x.q, x.qd, x.base, x.link), 6)}


def _forward_velocity_kinematics(tree, ops, x):
    return {"twist": frames.forward_velocity_kinematics(tree, ops, x.q, x.qd, x.base, x.link)}


def _forward_acceleration_kinematics(tree, ops, x):
    return {"acceleration": frames.forward_acceleration_kinematics(tree, ops, x.q, x.qd, x.qdd, x.base, x.link)}


def _center_of_mass(tree, ops, x):
    return {"com": centroidal.center_of_mass(tree, ops, x.q, x.base)}


def _center_of_mass_jacobian(tree, ops, x):
    return {"com_jacobian": _reduced(tree, centroidal.center_of_mass_jacobian(tree, ops, x.q, x.base), 3)}


def _centroidal_momentum_matrix(tree, ops, x):
    return {"centroidal_matrix": _reduced(tree, centroidal.centroidal_momentum_matrix(tree, ops, x.q, x.base), 6)}


def _centroidal_momentum_bias(tree, ops, x):
    return {"centroidal_bias": centroidal.centroidal_momentum_bias(tree, ops, x.q, x.qd, x.base)}


def _center_of_mass_velocity(tree, ops, x):
    return {"vcom": kinematics_derivatives.center_of_mass_velocity(tree, ops, x.q, x.qd, x.base)}


def _forward_velocity_kinematics_derivatives(tree, ops, x):
    return _flat_jacobians("forward_velocity_kinematics_derivatives", tree,
                           kinematics_derivatives.frame_derivatives(tree, ops, x.q, x.qd, x.base, x.link))


def _forward_acceleration_kinematics_derivatives(tree, ops, x):
    return _flat_jacobians("forward_acceleration_kinematics_derivatives", tree,
                           kinematics_derivatives.frame_derivatives(tree, ops, x.q, x.qd, x.base, x.link, x.qdd))


def _center_of_mass_derivatives(tree, ops, x):
    return _flat_jacobians("center_of_mass_derivatives", tree,
                           kinematics_derivatives.center_of_mass_derivatives(tree, ops, x.q, x.qd, x.base))
def _integrate(tree, ops, x):
    base, q = configuration.integrate(tree, ops, x.base, x.positions, x.v, x.dt)
    return {**({"base_next": base} if base else {}), "q_next": q}


def _integrate_derivatives(tree, ops, x):
    by_x, by_v, by_dt = configuration.integrate_jacobians(tree, ops, x.v, x.dt)
    return {"dx_next_dx": by_x, "dx_next_dv": by_v, "dx_next_ddt": by_dt}


def _difference(tree, ops, x):
    return {"v": configuration.difference(tree, ops, x.base, x.positions, x.base1, x.q1)}


def _difference_derivatives(tree, ops, x):
    by_x0, by_x1 = configuration.difference_jacobians(tree, ops, x.base, x.base1, len(x.positions))
    return {"dv_dx0": by_x0, "dv_dx1": by_x1}


def _loops(tree, ops, x, still=False):
    """The kinematics of the model's loops (at zero joint rates where ``still``: their rows only), or None."""
    return loop_dynamics.LoopKinematics(tree, ops, x.q, x.zeros if still else x.qd, x.base) if tree.loops else None


def _loop_inverse_dynamics(tree, ops, x):
    tau = _inverse_dynamics(tree, ops, x)["tau"]
    tau_actuated, forces = loop_dynamics.inverse_dynamics(tree, ops, x.q, x.base, tau)
    return {"tau_actuated": tau_actuated, "loop_forces": forces}


def _contact_dynamics(tree, ops, x):
    h = _bias(tree, ops, x)
    acc, forces = contact_dynamics.contact_dynamics(tree, ops, x.q, x.qd, x.nu, x.tau, h, x.base, x.active,
                                                    x.reference, _loops(tree, ops, x))
    return {"acc": acc, "forces": forces}


def _impulse_dynamics(tree, ops, x):
    qd_plus, impulses = contact_dynamics.impulse_dynamics(tree, ops, x.q, x.nu, x.base, x.active,
                                                          _loops(tree, ops, x, still=True))
    return {"qd_plus": qd_plus, "impulses": impulses}


def _world_rotated(quat, first: int) -> list:
    """The base quaternion as Duals along a world-frame rotation vector dtheta (directions ``first`` to
    ``first + 2``): q -> q + [dtheta, 0] q / 2."""
    turns = [frames.quat_mul(tuple(int(i == k) for i in range(3)) + (0,), quat) for k in range(3)]
    return [Dual(q, {first + k: sp.mul(0.5, turns[k][i]) for k in range(3)})
            for i, q in enumerate(quat)]


def _forward_jacobians(op, tree, ops, inputs):
    """The Jacobian outputs of derivative operation ``op`` by forward-mode derivatives (`dual`) of the
    operation it differentiates, ``wrt`` each port's input; a base rotation along a world rotation vector."""
    record = operation(op)
    dims = dimensions(tree, 0)
    columns = {"q": dims["J"], "qd": dims["J"], "tau": dims["G"], "base_velocity": 6, "base_rotation": 3}
    wrt = list(dict.fromkeys(p.wrt for p in record.output_ports(tree.floating)))
    first, at = {}, 0
    for w in wrt:
        first[w], at = at, at + columns[w]
    dual = dict(inputs)
    for w in ("q", "qd", "tau"):
        if w in first:
            dual[w] = seed(inputs[w], first[w])
    if tree.floating:
        base = list(inputs["base"])
        base[BASE["velocity"]] = seed(base[BASE["velocity"]], first["base_velocity"])
        base[BASE["quat"]] = _world_rotated(tuple(base[BASE["quat"]]), first["base_rotation"])
        dual["base"] = base
    values = evaluate(tree, DualOps(ops), record.of, dual)
    out = {}
    for port in record.output_ports(tree.floating):
        of = port.name[1:-len(f"_d{port.wrt}")]
        out[port.name] = [tangent(y, first[port.wrt] + c) for c in range(columns[port.wrt]) for y in values[of]]
    return out


def _constrained(op, tree, jacobians) -> dict:
    """The Jacobian outputs of ``op`` from ``{output: {wrt: columns}}``, column-major."""
    return {port.name: [y for column in jacobians[port.name[1:-len(f"_d{port.wrt}")]][port.wrt] for y in column]
            for port in operation(op).output_ports(tree.floating)}


def _analytic(tree) -> bool:
    """Whether the constrained derivatives are analytic (`contact_derivatives`): an exact solve (no damping) of
    the contacts only (no closed loops); else forward-mode duals."""
    return not tree.loops and tree.contacts.mu == 0


def _contact_dynamics_derivatives(tree, ops, x):
    if not _analytic(tree):
        return _forward_jacobians("contact_dynamics_derivatives", tree, ops, x.inputs)
    h = _bias(tree, ops, x)
    return _constrained("contact_dynamics_derivatives", tree, contact_derivatives.contact_dynamics_derivatives(
        tree, ops, x.q, x.qd, x.nu, x.tau, h, x.base, x.active, x.reference, x.loads))


def _impulse_dynamics_derivatives(tree, ops, x):
    if not _analytic(tree):
        return _forward_jacobians("impulse_dynamics_derivatives", tree, ops, x.inputs)
    return _constrained("impulse_dynamics_derivatives", tree, contact_derivatives.impulse_dynamics_derivatives(
        tree, ops, x.q, x.nu, x.base, x.active))


def _constrained_jacobians(outputs: tuple, wrt: tuple) -> tuple:
    """``d<out>_d<x>`` for each ``(out, rows)`` of ``outputs`` and each input ``x`` of ``wrt`` (column-major)."""
    cols = {"q": "J", "qd": "J", "tau": "G", "base_velocity": 6, "base_rotation": 3}
    return tuple(Port(f"d{out}_d{x}", (rows, cols[x]), f"Jacobian d{out}/d{x} ({rows} rows, column-major)",
                      floating_only=x.startswith("base_"), wrt=x) for out, rows in outputs for x in wrt)


_M = Port("M", ("G", "G"), "mass matrix (G x G, column-major)", symmetric=True)
_C = Port("c", ("G",), "velocity-product forces C(q, qd) qd (G)")
_ACC = Port("acc", ("G",), "generalized accelerations (G); floating base: [omegadot_W, pddot_W (classical), qdd]")
_FD_TOLERANCE = (1e-10, 1e-3)


def _kinematic_jacobians(of: str, rows: int, wrt: tuple, meanings: dict) -> tuple:
    """The Jacobian outputs ``d<of>_d<x>`` of a kinematic quantity of ``rows`` entries (column-major);
    ``meanings``: the Python doc of those whose meaning says more than the input they are by."""
    cols = {"q": "J", "qd": "J", "qdd": "J", "base_velocity": 6, "base_acceleration": 6, "base_rotation": 3}
    return tuple(Port(f"d{of}_d{x}", (rows, cols[x]), f"Jacobian d{of}/d{x} ({rows} rows, column-major)",
                      floating_only=x.startswith("base_"), wrt=x, meaning=meanings.get(x, "")) for x in wrt)


def _jacobians(of: str, wrt: tuple) -> tuple:
    """The Jacobian outputs ``d<of>_d<x>`` (G rows, column-major); ``base_*`` ones for a floating base only."""
    cols = {"q": "J", "qd": "J", "qdd": "J", "tau": "G", "base_velocity": 6, "base_acceleration": 6,
            "base_rotation": 3}
    return tuple(Port(f"d{of}_d{x}", ("G", cols[x]), f"Jacobian d{of}/d{x} (G rows, column-major)",
                      floating_only=x.startswith("base_"), wrt=x) for x in wrt)


#: Every operation, by name, in the order of the generated code.
OPERATIONS = {op.name: op for op in (
    Operation("mass_matrix", "M(q), the joint-space inertia matrix (CRBA).", ("q",), (_M,), _mass_matrix,
              summary="Joint-space inertia matrix M(q) (composite-rigid-body algorithm).",
              returns="Symmetric positive definite (armature on the joint diagonal) [kg m^2, kg m, kg]."),
    Operation("velocity_product_forces", "C(q, qd) qd, the Coriolis and centrifugal forces (RNEA, no gravity).",
              ("q", "qd"), (_C,), _velocity_product_forces,
              summary="Coriolis and centrifugal forces C(q, qd) qd (no gravity, base acceleration or loads).",
              returns="Generalized forces [N m, N]."),
    Operation("gravity", "g(q) + J^T loads, the forces that hold the robot still (RNEA).", ("q", "loads"),
              (Port("g", ("G",), "gravity and load forces g(q) + J^T loads (G)"),), _gravity,
              summary="Forces that hold the robot still: g(q) + J^T loads = ID(q, 0, 0, loads), motionless base.",
              returns="Generalized forces [N m, N]."),
    Operation("inverse_dynamics", "tau = M qdd + C qd + g + J^T loads (RNEA).", ("q", "qd", "qdd", "loads"),
              (Port("tau", ("G",), "generalized forces (G)"),), _inverse_dynamics,
              derivative="inverse_dynamics_derivatives", example=True,
              summary="Inverse dynamics tau = M qdd + C qd + g + J^T loads (recursive Newton-Euler).",
              returns="Generalized forces [N m, N]; floating base: the base wrench [torque, force] (world axes, "
                      "about the base origin) first."),
    Operation("forward_dynamics", "qdd = M^-1 (tau - C qd - g - J^T loads) by the articulated-body algorithm.",
              ("q", "qd", "tau", "loads"), (_ACC,), _forward_dynamics, _FD_TOLERANCE,
              derivative="forward_dynamics_derivatives", solves=True,
              algorithms=(("aba", "forward_dynamics"), ("crba", "forward_dynamics_crba")),
              summary="Forward dynamics qdd = M^-1 (tau - C qd - g - J^T loads) (articulated-body algorithm; the\n"
                      "generated C may use CRBA and a tree-sparse solve instead: its manifest says which).",
              returns="Generalized accelerations; floating base: the base's classical acceleration "
                      "[omegadot_W, pddot_W] first [rad/s^2, m/s^2].",
              mimic_doc="qdd = M^-1 (tau - C qd - g - J^T loads); with mimic joints across branches by CRBA, one RNEA "
                        "bias and one checked solve (tree-sparse LTDL, or dense Cholesky where they couple branches)."),
    Operation("forward_dynamics_crba", "qdd from M (CRBA), the bias of one RNEA call and one checked tree-sparse LTDL solve.",
              ("q", "qd", "tau", "loads"), (_ACC,), _forward_dynamics_crba, _FD_TOLERANCE, solves=True,
              returns="As `forward_dynamics`, to rounding."),
    Operation("passive_terms", "M, g and C qd from one pass; pass NULL for an output that is not wanted.",
              ("q", "qd"), (replace(_M, flag="mass_matrix", key="mass_matrix"),
                            Port("g", ("G",), "gravity forces g(q) (G)", flag="gravity", key="gravity"),
                            replace(_C, flag="coriolis", key="velocity_product_forces")), _passive_terms,
              optional_outputs=True, result="selected",
              summary="Any of M(q), g(q) and C(q, qd) qd from one pass (one recursive pass over the tree)."),
    # Jacobians: analytic in NumPy and C (`rnea_derivatives`, `fd_derivatives`), CasADi's own AD in CasADi
    Operation("inverse_dynamics_derivatives",
              "Jacobians of inverse dynamics (analytic RNEA derivatives), column-major, G rows.",
              ("q", "qd", "qdd", "loads"),
              _jacobians("tau", ("q", "qd", "qdd", "base_velocity", "base_acceleration", "base_rotation")),
              _inverse_dynamics_derivatives, tolerance=(1e-6, 1e-2), of="inverse_dynamics", group="derivatives",
              result="jacobians", summary="Jacobians of `inverse_dynamics` (analytic derivatives of the recursive "
                                          "Newton-Euler algorithm)."),
    Operation("forward_dynamics_derivatives",
              "Jacobians of forward dynamics: -M^-1 dID/dx and M^-1 (sparse LTDL of M), column-major, G rows.",
              ("q", "qd", "tau", "loads"),
              _jacobians("acc", ("q", "qd", "tau", "base_velocity", "base_rotation")),
              _forward_dynamics_derivatives, tolerance=(1e-6, 1e-2), of="forward_dynamics", group="derivatives",
              solves=True, result="jacobians",
              summary="Jacobians of `forward_dynamics`: -M^-1 dID/dx and dacc/dtau = M^-1."),
    # kinematics (rbdgen.algorithms.frames, centroidal): a link's origin, world axes, angular first
    Operation("forward_kinematics", "The pose of a link frame in the world.", ("q",),
              (Port("pose", (7,), "[x, y, z, qx, qy, qz, qw] of the link frame in the world (7)"),),
              _forward_kinematics, link=True, group="kinematics",
              returns="[x, y, z, qx, qy, qz, qw]: the link origin [m] and the unit quaternion of its frame, "
                      "world frame."),
    Operation("forward_kinematics_all", "The pose of every link frame in the world.", ("q",),
              (Port("poses", ("L", 7), "[x, y, z, qx, qy, qz, qw] of each link frame (L x 7, row per link)",
                    by_row=True),), _forward_kinematics_all, group="kinematics",
              returns="One row [x, y, z, qx, qy, qz, qw] per link, in `link_id` order."),
    Operation("jacobian", "The Jacobian of a link origin: its twist [omega, pdot] (world axes) is J nu.", ("q",),
              (Port("jacobian", (6, "G"), "link Jacobian (6 x G, column-major), angular rows first"),),
              _jacobian, link=True, group="kinematics",
              returns="The link origin's twist [omega, pdot] (world axes) is J nu, nu = qd, or [base velocity, qd]\n"
                      "    for a floating base (its six columns first)."),
    Operation("jacobian_derivative", "dJ/dt of a link Jacobian: Jdot nu is the link's acceleration at nudot = 0.",
              ("q", "qd"), (Port("jacobian_derivative", (6, "G"), "time derivative of the link Jacobian "
                                 "(6 x G, column-major)"),), _jacobian_derivative, link=True, group="kinematics",
              returns="dJ/dt; Jdot nu is the link's classical acceleration at nudot = 0."),
    Operation("forward_velocity_kinematics", "The twist [omega, pdot] of a link origin (world axes).", ("q", "qd"),
              (Port("twist", (6,), "[omega, pdot] of the link origin, world axes (6)"),),
              _forward_velocity_kinematics, link=True, group="kinematics", tool="forward_kinematics",
              returns="[omega, pdot] of the link origin (of ``tool`` where given), world axes [rad/s, m/s]."),
    Operation("forward_acceleration_kinematics", "The classical acceleration of a link origin: J nudot + Jdot nu.",
              ("q", "qd", "qdd"), (Port("acceleration", (6,), "[omegadot, pddot] of the link origin, world axes "
                                        "(6)"),), _forward_acceleration_kinematics, link=True, group="kinematics",
              returns="Classical acceleration [omegadot, pddot] = J nudot + Jdot nu of the link origin, world "
                      "axes [rad/s^2, m/s^2]."),
    Operation("center_of_mass", "The centre of mass of the moving bodies in the world.", ("q",),
              (Port("com", (3,), "centre of mass, world frame (3)"),), _center_of_mass, group="kinematics",
              returns="The centre of mass of the moving bodies (a fixed base's root link excluded), world "
                      "frame [m]."),
    Operation("center_of_mass_jacobian", "The Jacobian of the centre of mass: its velocity is Jc nu.", ("q",),
              (Port("com_jacobian", (3, "G"), "centre-of-mass Jacobian (3 x G, column-major)"),),
              _center_of_mass_jacobian, group="kinematics",
              returns="Jc: the centre of mass's velocity is Jc nu (world axes)."),
    Operation("centroidal_momentum_matrix", "A_G: the momentum about the centre of mass is A_G nu "
              "(angular first, world axes).", ("q",),
              (Port("centroidal_matrix", (6, "G"), "centroidal momentum matrix (6 x G, column-major)"),),
              _centroidal_momentum_matrix, group="kinematics",
              returns="A_G: A_G nu is the momentum about the centre of mass, angular first, world axes "
                      "(Pinocchio's computeCentroidalMap puts the linear part first)."),
    Operation("centroidal_momentum_bias", "Adot_G nu: the rate of the centroidal momentum at nudot = 0.",
              ("q", "qd"), (Port("centroidal_bias", (6,), "Adot_G nu, angular first, world axes (6)"),),
              _centroidal_momentum_bias, group="kinematics",
              returns="Adot_G nu, angular first, world axes [N m, N]."),
    # what controllers build from M, C qd and g (rbdgen.algorithms.coriolis, energy, minv)
    Operation("coriolis_matrix", "C(q, qd), the Coriolis matrix: C qd = C(q, qd) qd and Mdot = C + C^T "
              "(Christoffel-consistent).", ("q", "qd"),
              (Port("C", ("G", "G"), "Coriolis matrix (G x G, column-major)"),), _coriolis_matrix, group="control",
              summary="Coriolis matrix C(q, qd) (Echeandia and Wensing's recursive factorisation).",
              returns="C qd equals `velocity_product_forces` and Mdot = C + C^T (Christoffel-consistent:\n"
                      "    Mdot - 2 C is skew-symmetric); floating base: nu = [base velocity, qd] [kg m^2/s, kg m/s, "
                      "kg/s]."),
    Operation("mass_matrix_derivative", "Mdot(q, qd) = C + C^T, the rate of the mass matrix along the motion.",
              ("q", "qd"), (Port("Mdot", ("G", "G"), "time derivative of the mass matrix (G x G, column-major)",
                                 symmetric=True),), _mass_matrix_derivative, group="control",
              summary="Time derivative of the mass matrix Mdot(q, qd) = C + C^T (from the Coriolis matrix).",
              returns="Symmetric; Mdot - 2 C is skew-symmetric; floating base: along nu = [base velocity, qd]\n"
                      "    (the base's turning included) [kg m^2/s, kg m/s, kg/s]."),
    Operation("mass_matrix_inverse", "M(q)^-1, by the checked tree-sparse LTDL factor of M.", ("q",),
              (Port("Minv", ("G", "G"), "inverse mass matrix (G x G, column-major)", symmetric=True),),
              _mass_matrix_inverse, _FD_TOLERANCE, group="control", solves=True,
              algorithms=(("ltdl", _mass_matrix_inverse), ("aba", _mass_matrix_inverse_aba)),
              summary="Inverse mass matrix M(q)^-1 (the checked tree-sparse LTDL factor of M).",
              returns="Symmetric positive definite."),
    Operation("kinetic_energy", "T = 1/2 nu^T M nu, the kinetic energy.", ("q", "qd"),
              (Port("kinetic_energy", (), "kinetic energy [J]"),), _kinetic_energy, group="control",
              summary="Kinetic energy T = 1/2 nu^T M nu (the rotors' armature included).", returns="[J]."),
    Operation("potential_energy", "V = -g . sum m c, the potential energy of the moving bodies in gravity.", ("q",),
              (Port("potential_energy", (), "potential energy [J], zero with the centre of mass at the world "
                    "origin"),), _potential_energy, group="control",
              summary="Potential energy V = -g . sum m c of the moving bodies (a fixed base's root excluded).",
              returns="[J], zero with the centre of mass at the world origin."),
    Operation("momentum", "p = M nu, the generalized momentum.", ("q", "qd"),
              (Port("momentum", ("G",), "generalized momentum M nu (G)"),), _momentum, group="control",
              summary="Generalized momentum p = M nu.",
              returns="[kg m^2/s, kg m/s]; floating base: the base's [angular, linear]\n    momentum (world axes, "
                      "about the base origin) first."),
    Operation("passivity_forces", "tau = M qdd_ref + C(q, qd) qd_ref + g + J^T loads in one RNEA-like pass.",
              ("q", "qd", "qd_ref", "qdd_ref", "loads"), (Port("tau", ("G",), "generalized forces (G)"),),
              _passivity_forces, group="control",
              summary="Passivity-based control's torques M qdd_ref + C(q, qd) qd_ref + g + J^T loads (one pass).",
              returns="Generalized forces [N m, N]; with qd_ref = nu and qdd_ref = nudot, `inverse_dynamics`."),
    Operation("operational_space_inertia", "Lambda = (J M^-1 J^T)^-1, the task-space inertia of a link frame "
              "(J: its Jacobian, angular first).", ("q",),
              (Port("Lambda", (6, 6), "task-space inertia (6 x 6, angular first)", symmetric=True),),
              _operational_space_inertia, _FD_TOLERANCE, link=True, group="control", solves=True,
              summary="Task-space inertia Lambda = (J M^-1 J^T)^-1 of a link frame (J: `jacobian`).",
              returns="Symmetric, angular first [kg m^2, kg m, kg]; a link that cannot move in every\n    direction "
                      "there raises a SolverError (SingularError or IllConditionedError)."),
    Operation("dynamically_consistent_inverse", "J# = M^-1 J^T Lambda, the dynamically consistent inverse of a "
              "link Jacobian.", ("q",),
              (Port("jacobian_inverse", ("G", 6), "dynamically consistent inverse (G x 6, column-major)"),),
              _dynamically_consistent_inverse, _FD_TOLERANCE, link=True, group="control", solves=True,
              summary="Dynamically consistent inverse J# = M^-1 J^T Lambda of a link Jacobian.",
              returns="J J# = I; a singular task raises as for `operational_space_inertia`."),
    # identification (rbdgen.algorithms.regressor, rbdgen.identification): linear in the parameters pi
    Operation("inverse_dynamics_regressor", "Y(q, qd, qdd) with tau = Y pi + armature qdd + J^T loads "
              "(pi: 10 inertial parameters per body).", ("q", "qd", "qdd"),
              (Port("regressor", ("G", "P"), "inverse dynamics regressor (G x 10 B, column-major; columns as "
                    "rbdgen.parameters)"),), _inverse_dynamics_regressor, group="identification",
              summary="Inverse dynamics regressor Y(q, qd, qdd): tau = Y pi + armature qdd + J^T loads.",
              returns="P = 10 per body (the floating base's first), in rbdgen.parameters' order: m, m c, inertia "
                      "about the body\n    origin (Pinocchio's computeJointTorqueRegressor)."),
    Operation("inverse_dynamics_base_regressor", "Y_base(q, qd, qdd), the regressor's identifiable columns: "
              "tau = Y_base pi_base + armature qdd + J^T loads.", ("q", "qd", "qdd"),
              (Port("base_regressor", ("G", "Pb"), "base regressor (G x rank, column-major; columns as "
                    "rbdgen.identifiable)"),), _inverse_dynamics_base_regressor, group="identification",
              returns="The columns rbdgen.identifiable(model).columns of the regressor."),
    Operation("inverse_dynamics_known_forces", "armature qdd + J^T loads: what inverse dynamics adds to Y pi "
              "(independent of the inertial parameters).", ("q", "qdd", "loads"),
              (Port("tau_known", ("G",), "known generalized forces armature qdd + J^T loads (G)"),),
              _inverse_dynamics_known_forces, group="identification",
              returns="Generalized forces [N m, N]; floating base: the base wrench first."),
    Operation("energy_regressor", "[kinetic; potential] (2 x 10 B): T = kinetic pi + 1/2 sum armature qd^2 and "
              "V = potential pi.", ("q", "qd"),
              (Port("energy_regressor", (2, "P"), "energy regressor (2 x 10 B, column-major): kinetic row, "
                    "potential row"),), _energy_regressor, group="identification",
              returns="Kinetic and potential rows [J per parameter unit]."),
    # kinematics derivatives: analytic in NumPy and C (`kinematics_derivatives`), CasADi's own AD in CasADi
    Operation("center_of_mass_velocity", "The velocity of the centre of mass: Jc nu (world axes).", ("q", "qd"),
              (Port("vcom", (3,), "centre-of-mass velocity, world axes (3)"),), _center_of_mass_velocity,
              group="kinematics", returns="Jc nu: the velocity of the centre of mass, world axes [m/s]."),
    Operation("forward_velocity_kinematics_derivatives",
              "Jacobians of a link origin's twist [omega, pdot] (analytic), column-major, 6 rows.", ("q", "qd"),
              _kinematic_jacobians("twist", 6, ("q", "qd", "base_velocity", "base_rotation"), {
                  "qd": "By the joint velocities: the link Jacobian's joint columns.",
                  "base_velocity": "By the base velocity [omega_W, pdot_W]: the link Jacobian's base columns."}),
              _forward_velocity_kinematics_derivatives, tolerance=(1e-6, 1e-2), of="forward_velocity_kinematics",
              link=True, group="derivatives", result="jacobians",
              summary="Jacobians of `forward_velocity_kinematics`: the link origin's twist [omega, pdot] (world "
                      "axes), analytic."),
    Operation("forward_acceleration_kinematics_derivatives",
              "Jacobians of a link origin's classical acceleration [omegadot, pddot] (analytic), column-major, "
              "6 rows.", ("q", "qd", "qdd"),
              _kinematic_jacobians("acceleration", 6, ("q", "qd", "qdd", "base_velocity", "base_acceleration",
                                                       "base_rotation"), {
                  "qdd": "By the joint accelerations: the link Jacobian's joint columns.",
                  "base_acceleration": "By the base's classical acceleration: the link Jacobian's base columns."}),
              _forward_acceleration_kinematics_derivatives, tolerance=(1e-6, 1e-2),
              of="forward_acceleration_kinematics", link=True, group="derivatives", result="jacobians",
              summary="Jacobians of `forward_acceleration_kinematics`: the link origin's classical acceleration "
                      "[omegadot, pddot] (world axes), analytic."),
    Operation("center_of_mass_derivatives",
              "Jacobians of the centre of mass's velocity (analytic); dvcom/dqd is also dcom/dq, column-major, "
              "3 rows.", ("q", "qd"),
              _kinematic_jacobians("vcom", 3, ("q", "qd", "base_velocity", "base_rotation"), {
                  "qd": "By the joint velocities: the centre-of-mass Jacobian's joint columns, also d com/dq.",
                  "base_velocity": "By the base velocity [omega_W, pdot_W]: the centre-of-mass Jacobian's base "
                                   "columns."}),
              _center_of_mass_derivatives, tolerance=(1e-6, 1e-2), of="center_of_mass_velocity",
              group="derivatives", result="jacobians",
              summary="Jacobians of `center_of_mass_velocity` (analytic); dvcom/dqd is also d com/dq and, floating, "
                      "dvcom/dbase_velocity's angular columns d com/dtheta."),
    # the configuration space (rbdgen.algorithms.configuration): tangent vectors [dtheta_W, dp_W, dq], R -> exp(dtheta x) R
    Operation("integrate", "x + v dt: the velocity v held for dt (floating base: p + pdot dt, exp(omega dt) R, on "
              "R3 x SO(3)).", ("q", "v", "dt"),
              (Port("base_next", (BASE_SIZE,), "the moved base, laid out as base (velocity and acceleration "
                    "copied)", floating_only=True),
               Port("q_next", ("J",), "the moved joint positions q + qd dt (J)")), _integrate, group="configuration",
              result="state",
              summary="The state moved by the velocity v held constant for dt: q + qd dt; a floating base on R3 x "
                      "SO(3),\np + pdot dt and exp(omega dt) R (world axes; not Pinocchio's SE(3) exponential of a "
                      "body twist).",
              returns="Joint positions q + qd dt [rad, m].",
              floating_returns="The moved base (unit quaternion; velocity and acceleration those of ``base``) and\n"
                               "    the joint positions q + qd dt, shape (J,) or (N, J)."),
    Operation("difference", "v with integrate(x0, v, 1) = x1 (floating base: [log(R1 R0^T), p1 - p0], the "
              "shortest rotation).", ("q", "base1", "q1"),
              (Port("v", ("G",), "velocity (G) from state (base, q) to state (base1, q1) in unit time"),),
              _difference, tolerance=(1e-10, 1e-3), group="configuration",
              summary="The velocity v that moves the state (base, q) to (base1, q1) in unit time: integrate(x0, v, 1) "
                      "= x1.",
              returns="q1 - q.",
              floating_returns="[log(R1 R^T), p1 - p, q1 - q]: the shortest rotation (angle at most pi) as a\n"
                               "    world-frame rotation vector, then the translation and joint differences."),
    Operation("integrate_derivatives", "Jacobians of integrate on tangent vectors [dtheta_W, dp_W, dq] "
              "(R -> exp(dtheta x) R), column-major, G rows.", ("q", "v", "dt"),
              (Port("dx_next_dx", ("G", "G"), "d next/d x, tangent vectors (G x G, column-major)",
                    meaning="d next/dx: diag(exp(omega dt), I, I); the base rotation's columns first."),
               Port("dx_next_dv", ("G", "G"), "d next/d v (G x G, column-major)",
                    meaning="d next/dv: dt diag(J_l(omega dt), I, I), J_l the left Jacobian of SO(3)."),
               Port("dx_next_ddt", ("G",), "d next/d dt, a tangent vector (G)", meaning="d next/d dt: v.")),
              _integrate_derivatives, tolerance=(1e-10, 1e-3), group="configuration", result="jacobians",
              summary="Jacobians of `integrate` on tangent vectors [dtheta_W, dp_W, dq] (R -> exp(dtheta x) R)."),
    Operation("difference_derivatives", "Jacobians of difference by either state's tangent vector "
              "[dtheta_W, dp_W, dq] (R -> exp(dtheta x) R), column-major, G rows.", ("q", "base1", "q1"),
              (Port("dv_dx0", ("G", "G"), "d v/d x0, the first state's tangent vector (G x G, column-major)",
                    meaning="d v/dx0, the state (base, q): -diag(J_l(-v_rot)^-1, I, I)."),
               Port("dv_dx1", ("G", "G"), "d v/d x1, the second state's tangent vector (G x G, column-major)",
                    meaning="d v/dx1, the state (base1, q1): diag(J_l(v_rot)^-1, I, I).")),
              _difference_derivatives, tolerance=(1e-10, 1e-3), group="configuration", result="jacobians",
              summary="Jacobians of `difference` by either state's tangent vector [dtheta_W, dp_W, dq]\n"
                      "(R -> exp(dtheta x) R)."),
    # constrained dynamics (rbdgen.algorithms.contact_dynamics) on the contacts declared at generation
    Operation("contact_dynamics", "acc and the contact forces: M acc + h = tau + J^T f with each active contact's "
              "classical acceleration -kd v_c - kp e_c (M's tree-sparse LTDL, then J M^-1 J^T).",
              ("q", "qd", "tau", "active", "reference", "loads"),
              (_ACC, Port("forces", ("C",), "contact forces: per point [fx, fy, fz], per frame [torque, force] "
                          "about the point, world axes, on the robot (C)")),
              _contact_dynamics, _FD_TOLERANCE, group="contacts", solves=True,
              derivative="contact_dynamics_derivatives", result="constrained",
              summary="Forward dynamics under the declared contacts: M acc + h = tau + J^T forces, each active "
                      "contact's\nclassical acceleration -kd v_c - kp e_c (tree-sparse LTDL of M, then J M^-1 J^T).",
              returns="acc, shape (G,) or (N, G), as `forward_dynamics`'s; forces, shape (C,) or (N, C): per point "
                      "contact\n    [fx, fy, fz], per frame contact [torque, force] about its point, world axes, "
                      "exerted on the\n    robot; zero for an inactive contact."),
    Operation("impulse_dynamics", "qd_plus = nu + M^-1 J^T impulses with J qd_plus = -e J nu on the active "
              "contacts (restitution e).", ("q", "qd", "active"),
              (Port("qd_plus", ("G",), "velocity after the impact (G): floating base, [omega_W, pdot_W] first"),
               Port("impulses", ("C",), "contact impulses, laid out as the forces (C)")),
              _impulse_dynamics, _FD_TOLERANCE, group="contacts", solves=True,
              derivative="impulse_dynamics_derivatives", result="constrained",
              summary="The velocity after an impact on the active contacts: J qd_plus = -e J nu (restitution e).",
              returns="qd_plus, shape (G,) or (N, G); impulses, shape (C,) or (N, C), laid out as\n    "
                      "`contact_dynamics`' forces [N s, N m s]."),
    # a model with closed loops (rbdgen.algorithms.loop_dynamics), its actuated joints declared at generation
    Operation("loop_inverse_dynamics", "The actuated joints' torques and the loop forces of a motion consistent with "
              "the loops: S^T tau_actuated + J^T loop_forces = M qdd + C qd + g + J^T loads (least norm).",
              ("q", "qd", "qdd", "loads"),
              (Port("tau_actuated", ("A",), "the actuated joints' forces, in their declaration order (A)"),
               Port("loop_forces", ("LC",), "loop forces: per point loop [fx, fy, fz], per frame loop [torque, "
                    "force] about the point, world axes, link2 on link1 (LC)")),
              _loop_inverse_dynamics, _FD_TOLERANCE, group="loops", solves=True, result="constrained",
              summary="The actuated joints' forces and the loop forces of a motion consistent with the closed "
                      "loops:\n    S^T tau_actuated + J^T loop_forces = M qdd + C qd + g + J^T loads (least norm; "
                      "`rbdgen.loops`).",
              returns="tau_actuated, shape (A,) or (N, A), the actuated joints' in declaration order; loop_forces,\n"
                      "    shape (LC,) or (N, LC): per point loop [fx, fy, fz], per frame loop [torque, force] about "
                      "its\n    point, world axes, what link2 exerts on link1."),
    # their Jacobians: analytic (`contact_derivatives`; damped or looped builds: forward-mode `dual`) in NumPy and
    # C, CasADi's own AD in CasADi
    Operation("contact_dynamics_derivatives", "Jacobians of contact_dynamics (analytic: the KKT system "
              "differentiated), column-major.", ("q", "qd", "tau", "active", "reference", "loads"),
              _constrained_jacobians((("acc", "G"), ("forces", "C")),
                                     ("q", "qd", "tau", "base_velocity", "base_rotation")),
              _contact_dynamics_derivatives, tolerance=(1e-6, 1e-2), of="contact_dynamics", group="contacts",
              solves=True, result="constrained",
              summary="Jacobians of `contact_dynamics` (analytic: the KKT system differentiated): d acc/dx "
                      "and d forces/dx."),
    Operation("impulse_dynamics_derivatives", "Jacobians of impulse_dynamics (analytic: the KKT system "
              "differentiated), column-major.", ("q", "qd", "active"),
              _constrained_jacobians((("qd_plus", "G"), ("impulses", "C")), ("q", "qd", "base_velocity",
                                                                              "base_rotation")),
              _impulse_dynamics_derivatives, tolerance=(1e-6, 1e-2), of="impulse_dynamics", group="contacts",
              solves=True, result="constrained",
              summary="Jacobians of `impulse_dynamics` (analytic: the KKT system differentiated): d qd_plus/dx "
                      "and d impulses/dx."),
)}


#: The operation whose M conditions the solves (`Operation.solves`: `validate`'s tolerances grow with cond(M)).
MASS_MATRIX = "mass_matrix"

#: The operations inverse kinematics (`rbdgen.ik`) iterates on: a link's pose and its Jacobian.
INVERSE_KINEMATICS = ("forward_kinematics", "jacobian")


def operation(name: str) -> Operation:
    """The record of operation ``name`` (a ValueError listing the operations otherwise)."""
    try:
        return OPERATIONS[name]
    except KeyError:
        raise ValueError(f"unknown operation {name!r}; expected one of {list(OPERATIONS)}") from None


def sizes(tree: Tree, link_count: int, ops=()) -> dict:
    """Length of every named input and output of every operation (the constrained operations' and those sized by
    contacts: where the tree has contacts; an output of `Port.numerical` size only for the operations ``ops``)."""
    dims = dimensions(tree, link_count)
    ports = list(INPUTS.values()) + [p for op in OPERATIONS.values() for p in op.outputs
                                     if (tree.contacts or op.group != "contacts") and
                                     (tree.loops and tree.loops.actuated or op.group != "loops") and
                                     (not p.numerical or op.name in ops)]
    return {p.name: p.size(dims) for p in ports if all(d in dims or not isinstance(d, str) for d in p.shape)}


def evaluate(tree: Tree, ops, op: str, inputs: dict, link: Optional[int] = None,
             algorithm: Optional[Callable] = None) -> dict:
    """Run ``op`` (by ``algorithm``, one of its `Operation.algorithms`, where given) on flat inputs (``loads`` may
    be absent or None; ``params`` for a tree with `Tree.parameters`) and, where it takes one, a link id."""
    if tree.parameters:
        tree = parametric.substitute(tree, inputs["params"])
    return (algorithm or operation(op).algorithm)(tree, ops, _State(tree, inputs, link))

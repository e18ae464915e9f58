# Generated from the operation records by `python -c "from rbdgen import signatures; signatures.write_stub()"`: do not edit.
"""The solver methods `rbdgen.signatures` builds from the operation records, for type checkers."""

import abc
from typing import Dict, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike

from .interface import BaseState, SolverBase
from .signatures import LinkRef, Loads, Mask, Out, Threads, Tool


class FixedBaseMethods(SolverBase, metaclass=abc.ABCMeta):
    def mass_matrix(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Joint-space inertia matrix M(q) (composite-rigid-body algorithm).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        M : ndarray, shape (G, G) or (N, G, G)
            Symmetric positive definite (armature on the joint diagonal) [kg m^2, kg m, kg].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def velocity_product_forces(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Coriolis and centrifugal forces C(q, qd) qd (no gravity, base acceleration or loads).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        c : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def gravity(self, q: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Forces that hold the robot still: g(q) + J^T loads = ID(q, 0, 0, loads), motionless base.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        g : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Inverse dynamics tau = M qdd + C qd + g + J^T loads (recursive Newton-Euler).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        tau : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench [torque, force] (world axes, about the base origin) first.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Forward dynamics qdd = M^-1 (tau - C qd - g - J^T loads) (articulated-body algorithm; the
        generated C may use CRBA and a tree-sparse solve instead: its manifest says which).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        acc : ndarray, shape (G,) or (N, G)
            Generalized accelerations; floating base: the base's classical acceleration [omegadot_W, pddot_W] first [rad/s^2, m/s^2].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_dynamics_crba(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """qdd from M (CRBA), the bias of one RNEA call and one checked tree-sparse LTDL solve.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        acc : ndarray, shape (G,) or (N, G)
            As `forward_dynamics`, to rounding.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def passive_terms(self, q: ArrayLike, qd: ArrayLike, *, mass_matrix: bool = True, gravity: bool = True, coriolis: bool = True, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Any of M(q), g(q) and C(q, qd) qd from one pass (one recursive pass over the tree).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        mass_matrix, gravity, coriolis : bool
            Which results to compute (at least one).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict
            The requested keys among ``"mass_matrix"`` (G, G), ``"gravity"`` (G,) and
            ``"velocity_product_forces"`` (G,), batches with a leading N.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `inverse_dynamics` (analytic derivatives of the recursive Newton-Euler algorithm).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(tau)/dx by name, G rows (floating base: the base's six first):
            ``"dtau_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dtau_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dtau_dqdd"``: shape (G, J) or (N, G, J). By the joint accelerations (the mass matrix's columns of the joints).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `forward_dynamics`: -M^-1 dID/dx and dacc/dtau = M^-1.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(acc)/dx by name, G rows (floating base: the base's six first):
            ``"dacc_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dacc_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dacc_dtau"``: shape (G, G) or (N, G, G). By the generalized forces: M^-1.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_kinematics(self, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The pose of a link frame in the world.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        pose : ndarray, shape (7,) or (N, 7)
            [x, y, z, qx, qy, qz, qw]: the link origin [m] and the unit quaternion of its frame, world frame.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_kinematics_all(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The pose of every link frame in the world.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        poses : ndarray, shape (L, 7) or (N, L, 7)
            One row [x, y, z, qx, qy, qz, qw] per link, in `link_id` order.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def jacobian(self, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The Jacobian of a link origin: its twist [omega, pdot] (world axes) is J nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        jacobian : ndarray, shape (6, G) or (N, 6, G)
            The link origin's twist [omega, pdot] (world axes) is J nu, nu = qd, or [base velocity, qd]
            for a floating base (its six columns first).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def jacobian_derivative(self, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """dJ/dt of a link Jacobian: Jdot nu is the link's acceleration at nudot = 0.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        jacobian_derivative : ndarray, shape (6, G) or (N, 6, G)
            dJ/dt; Jdot nu is the link's classical acceleration at nudot = 0.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_velocity_kinematics(self, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, tool: Tool = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The twist [omega, pdot] of a link origin (world axes).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        tool : array_like, shape (3,), or Pose, optional
            A point on the link, in the link frame (a `Pose`: its translation; the
            rotation does not change the twist): the twist of that point instead.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        twist : ndarray, shape (6,) or (N, 6)
            [omega, pdot] of the link origin (of ``tool`` where given), world axes [rad/s, m/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_acceleration_kinematics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The classical acceleration of a link origin: J nudot + Jdot nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        acceleration : ndarray, shape (6,) or (N, 6)
            Classical acceleration [omegadot, pddot] = J nudot + Jdot nu of the link origin, world axes [rad/s^2, m/s^2].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The centre of mass of the moving bodies in the world.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        com : ndarray, shape (3,) or (N, 3)
            The centre of mass of the moving bodies (a fixed base's root link excluded), world frame [m].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass_jacobian(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The Jacobian of the centre of mass: its velocity is Jc nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        com_jacobian : ndarray, shape (3, G) or (N, 3, G)
            Jc: the centre of mass's velocity is Jc nu (world axes).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def centroidal_momentum_matrix(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """A_G: the momentum about the centre of mass is A_G nu (angular first, world axes).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        centroidal_matrix : ndarray, shape (6, G) or (N, 6, G)
            A_G: A_G nu is the momentum about the centre of mass, angular first, world axes (Pinocchio's computeCentroidalMap puts the linear part first).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def centroidal_momentum_bias(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Adot_G nu: the rate of the centroidal momentum at nudot = 0.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        centroidal_bias : ndarray, shape (6,) or (N, 6)
            Adot_G nu, angular first, world axes [N m, N].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def coriolis_matrix(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Coriolis matrix C(q, qd) (Echeandia and Wensing's recursive factorisation).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        C : ndarray, shape (G, G) or (N, G, G)
            C qd equals `velocity_product_forces` and Mdot = C + C^T (Christoffel-consistent:
            Mdot - 2 C is skew-symmetric); floating base: nu = [base velocity, qd] [kg m^2/s, kg m/s, kg/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def mass_matrix_derivative(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Time derivative of the mass matrix Mdot(q, qd) = C + C^T (from the Coriolis matrix).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        Mdot : ndarray, shape (G, G) or (N, G, G)
            Symmetric; Mdot - 2 C is skew-symmetric; floating base: along nu = [base velocity, qd]
            (the base's turning included) [kg m^2/s, kg m/s, kg/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def mass_matrix_inverse(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Inverse mass matrix M(q)^-1 (the checked tree-sparse LTDL factor of M).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        Minv : ndarray, shape (G, G) or (N, G, G)
            Symmetric positive definite.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def kinetic_energy(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Kinetic energy T = 1/2 nu^T M nu (the rotors' armature included).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        kinetic_energy : float or ndarray, shape (N,)
            [J].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def potential_energy(self, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Potential energy V = -g . sum m c of the moving bodies (a fixed base's root excluded).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        potential_energy : float or ndarray, shape (N,)
            [J], zero with the centre of mass at the world origin.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def momentum(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Generalized momentum p = M nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        momentum : ndarray, shape (G,) or (N, G)
            [kg m^2/s, kg m/s]; floating base: the base's [angular, linear]
            momentum (world axes, about the base origin) first.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def passivity_forces(self, q: ArrayLike, qd: ArrayLike, qd_ref: ArrayLike, qdd_ref: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Passivity-based control's torques M qdd_ref + C(q, qd) qd_ref + g + J^T loads (one pass).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qd_ref : array_like, shape (G,) or (N, G)
            Reference velocity; floating base: the base's [omega_W, pdot_W] first.
        qdd_ref : array_like, shape (G,) or (N, G)
            Reference acceleration; floating base: the base's classical [omegadot_W, pddot_W] first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        tau : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N]; with qd_ref = nu and qdd_ref = nudot, `inverse_dynamics`.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def operational_space_inertia(self, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Task-space inertia Lambda = (J M^-1 J^T)^-1 of a link frame (J: `jacobian`).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        Lambda : ndarray, shape (6, 6) or (N, 6, 6)
            Symmetric, angular first [kg m^2, kg m, kg]; a link that cannot move in every
            direction there raises a SolverError (SingularError or IllConditionedError).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def dynamically_consistent_inverse(self, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Dynamically consistent inverse J# = M^-1 J^T Lambda of a link Jacobian.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        jacobian_inverse : ndarray, shape (G, 6) or (N, G, 6)
            J J# = I; a singular task raises as for `operational_space_inertia`.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Inverse dynamics regressor Y(q, qd, qdd): tau = Y pi + armature qdd + J^T loads.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        regressor : ndarray, shape (G, P) or (N, G, P)
            P = 10 per body (the floating base's first), in rbdgen.parameters' order: m, m c, inertia about the body
            origin (Pinocchio's computeJointTorqueRegressor).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_base_regressor(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Y_base(q, qd, qdd), the regressor's identifiable columns: tau = Y_base pi_base + armature qdd + J^T loads.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        base_regressor : ndarray, shape (G, Pb) or (N, G, Pb)
            The columns rbdgen.identifiable(model).columns of the regressor.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_known_forces(self, q: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """armature qdd + J^T loads: what inverse dynamics adds to Y pi (independent of the inertial parameters).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        tau_known : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench first.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def energy_regressor(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """[kinetic; potential] (2 x 10 B): T = kinetic pi + 1/2 sum armature qd^2 and V = potential pi.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        energy_regressor : ndarray, shape (2, P) or (N, 2, P)
            Kinetic and potential rows [J per parameter unit].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass_velocity(self, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The velocity of the centre of mass: Jc nu (world axes).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        vcom : ndarray, shape (3,) or (N, 3)
            Jc nu: the velocity of the centre of mass, world axes [m/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_velocity_kinematics_derivatives(self, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `forward_velocity_kinematics`: the link origin's twist [omega, pdot] (world axes), analytic.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(twist)/dx by name, 6 rows:
            ``"dtwist_dq"``: shape (6, J) or (N, 6, J). By the joint positions.
            ``"dtwist_dqd"``: shape (6, J) or (N, 6, J). By the joint velocities: the link Jacobian's joint columns.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_acceleration_kinematics_derivatives(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, link: LinkRef, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `forward_acceleration_kinematics`: the link origin's classical acceleration [omegadot, pddot] (world axes), analytic.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(acceleration)/dx by name, 6 rows:
            ``"dacceleration_dq"``: shape (6, J) or (N, 6, J). By the joint positions.
            ``"dacceleration_dqd"``: shape (6, J) or (N, 6, J). By the joint velocities.
            ``"dacceleration_dqdd"``: shape (6, J) or (N, 6, J). By the joint accelerations: the link Jacobian's joint columns.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass_derivatives(self, q: ArrayLike, qd: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `center_of_mass_velocity` (analytic); dvcom/dqd is also d com/dq and, floating, dvcom/dbase_velocity's angular columns d com/dtheta.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(vcom)/dx by name, 3 rows:
            ``"dvcom_dq"``: shape (3, J) or (N, 3, J). By the joint positions.
            ``"dvcom_dqd"``: shape (3, J) or (N, 3, J). By the joint velocities: the centre-of-mass Jacobian's joint columns, also d com/dq.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def integrate(self, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The state moved by the velocity v held constant for dt: q + qd dt; a floating base on R3 x SO(3),
        p + pdot dt and exp(omega dt) R (world axes; not Pinocchio's SE(3) exponential of a body twist).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        v : array_like, shape (G,) or (N, G)
            Velocity held for dt; floating base: the base's [omega_W, pdot_W] first
            [rad/s, m/s].
        dt : float or array_like, shape (N,)
            Time step [s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        q_next : ndarray, shape (J,) or (N, J)
            Joint positions q + qd dt [rad, m].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def difference(self, q: ArrayLike, q1: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The velocity v that moves the state (base, q) to (base1, q1) in unit time: integrate(x0, v, 1) = x1.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        q1 : array_like, shape (J,) or (N, J)
            The second state's joint positions [rad, m].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        v : ndarray, shape (G,) or (N, G)
            q1 - q.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def integrate_derivatives(self, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `integrate` on tangent vectors [dtheta_W, dp_W, dq] (R -> exp(dtheta x) R).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        v : array_like, shape (G,) or (N, G)
            Velocity held for dt; floating base: the base's [omega_W, pdot_W] first
            [rad/s, m/s].
        dt : float or array_like, shape (N,)
            Time step [s].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            By name, G rows (tangent vectors of the result):
            ``"dx_next_dx"``: shape (G, G) or (N, ...). d next/dx: diag(exp(omega dt), I, I); the base rotation's columns first.
            ``"dx_next_dv"``: shape (G, G) or (N, ...). d next/dv: dt diag(J_l(omega dt), I, I), J_l the left Jacobian of SO(3).
            ``"dx_next_ddt"``: shape (G) or (N, ...). d next/d dt: v.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def difference_derivatives(self, q: ArrayLike, q1: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `difference` by either state's tangent vector [dtheta_W, dp_W, dq]
        (R -> exp(dtheta x) R).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        q1 : array_like, shape (J,) or (N, J)
            The second state's joint positions [rad, m].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            By name, G rows (tangent vectors of the result):
            ``"dv_dx0"``: shape (G, G) or (N, ...). d v/dx0, the state (base, q): -diag(J_l(-v_rot)^-1, I, I).
            ``"dv_dx1"``: shape (G, G) or (N, ...). d v/dx1, the state (base1, q1): diag(J_l(v_rot)^-1, I, I).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def contact_dynamics(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, active: ArrayLike, reference: Optional[ArrayLike] = None, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Tuple[np.ndarray, np.ndarray]:
        """Forward dynamics under the declared contacts: M acc + h = tau + J^T forces, each active contact's
        classical acceleration -kd v_c - kp e_c (tree-sparse LTDL of M, then J M^-1 J^T).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        reference : array_like, shape (R,) or (N, R), optional
            Only where the Baumgarte kp is not zero: each contact's target position (3) and, for a
            frame contact, unit quaternion xyzw (4), world frame.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (acc, forces) : (ndarray, ndarray)
            acc, shape (G,) or (N, G), as `forward_dynamics`'s; forces, shape (C,) or (N, C): per point contact
            [fx, fy, fz], per frame contact [torque, force] about its point, world axes, exerted on the
            robot; zero for an inactive contact.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def impulse_dynamics(self, q: ArrayLike, qd: ArrayLike, active: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Tuple[np.ndarray, np.ndarray]:
        """The velocity after an impact on the active contacts: J qd_plus = -e J nu (restitution e).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (qd_plus, impulses) : (ndarray, ndarray)
            qd_plus, shape (G,) or (N, G); impulses, shape (C,) or (N, C), laid out as
            `contact_dynamics`' forces [N s, N m s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def loop_inverse_dynamics(self, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Tuple[np.ndarray, np.ndarray]:
        """The actuated joints' forces and the loop forces of a motion consistent with the closed loops:
            S^T tau_actuated + J^T loop_forces = M qdd + C qd + g + J^T loads (least norm; `rbdgen.loops`).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (tau_actuated, loop_forces) : (ndarray, ndarray)
            tau_actuated, shape (A,) or (N, A), the actuated joints' in declaration order; loop_forces,
            shape (LC,) or (N, LC): per point loop [fx, fy, fz], per frame loop [torque, force] about its
            point, world axes, what link2 exerts on link1.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def contact_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, active: ArrayLike, reference: Optional[ArrayLike] = None, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `contact_dynamics` (analytic: the KKT system differentiated): d acc/dx and d forces/dx.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        reference : array_like, shape (R,) or (N, R), optional
            Only where the Baumgarte kp is not zero: each contact's target position (3) and, for a
            frame contact, unit quaternion xyzw (4), world frame.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(acc, forces)/dx by name, G rows (floating base: the base's six first):
            ``"dacc_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dacc_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dacc_dtau"``: shape (G, G) or (N, G, G). By the generalized forces: M^-1.
            ``"dforces_dq"``: shape (C, J) or (N, C, J). By the joint positions.
            ``"dforces_dqd"``: shape (C, J) or (N, C, J). By the joint velocities.
            ``"dforces_dtau"``: shape (C, G) or (N, C, G). By the generalized forces: M^-1.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def impulse_dynamics_derivatives(self, q: ArrayLike, qd: ArrayLike, active: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `impulse_dynamics` (analytic: the KKT system differentiated): d qd_plus/dx and d impulses/dx.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(qd_plus, impulses)/dx by name, G rows (floating base: the base's six first):
            ``"dqd_plus_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dqd_plus_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dimpulses_dq"``: shape (C, J) or (N, C, J). By the joint positions.
            ``"dimpulses_dqd"``: shape (C, J) or (N, C, J). By the joint velocities.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...


class FloatingBaseMethods(SolverBase, metaclass=abc.ABCMeta):
    def mass_matrix(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Joint-space inertia matrix M(q) (composite-rigid-body algorithm).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        M : ndarray, shape (G, G) or (N, G, G)
            Symmetric positive definite (armature on the joint diagonal) [kg m^2, kg m, kg].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def velocity_product_forces(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Coriolis and centrifugal forces C(q, qd) qd (no gravity, base acceleration or loads).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        c : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def gravity(self, base: BaseState, q: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Forces that hold the robot still: g(q) + J^T loads = ID(q, 0, 0, loads), motionless base.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        g : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Inverse dynamics tau = M qdd + C qd + g + J^T loads (recursive Newton-Euler).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        tau : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench [torque, force] (world axes, about the base origin) first.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Forward dynamics qdd = M^-1 (tau - C qd - g - J^T loads) (articulated-body algorithm; the
        generated C may use CRBA and a tree-sparse solve instead: its manifest says which).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        acc : ndarray, shape (G,) or (N, G)
            Generalized accelerations; floating base: the base's classical acceleration [omegadot_W, pddot_W] first [rad/s^2, m/s^2].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_dynamics_crba(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """qdd from M (CRBA), the bias of one RNEA call and one checked tree-sparse LTDL solve.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        acc : ndarray, shape (G,) or (N, G)
            As `forward_dynamics`, to rounding.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def passive_terms(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, mass_matrix: bool = True, gravity: bool = True, coriolis: bool = True, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Any of M(q), g(q) and C(q, qd) qd from one pass (one recursive pass over the tree).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        mass_matrix, gravity, coriolis : bool
            Which results to compute (at least one).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict
            The requested keys among ``"mass_matrix"`` (G, G), ``"gravity"`` (G,) and
            ``"velocity_product_forces"`` (G,), batches with a leading N.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `inverse_dynamics` (analytic derivatives of the recursive Newton-Euler algorithm).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(tau)/dx by name, G rows (floating base: the base's six first):
            ``"dtau_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dtau_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dtau_dqdd"``: shape (G, J) or (N, G, J). By the joint accelerations (the mass matrix's columns of the joints).
            ``"dtau_dbase_velocity"``: shape (G, 6) or (N, G, 6). By the base velocity [omega_W, pdot_W].
            ``"dtau_dbase_acceleration"``: shape (G, 6) or (N, G, 6). By the base's classical acceleration [omegadot_W, pddot_W].
            ``"dtau_dbase_rotation"``: shape (G, 3) or (N, G, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_dynamics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `forward_dynamics`: -M^-1 dID/dx and dacc/dtau = M^-1.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(acc)/dx by name, G rows (floating base: the base's six first):
            ``"dacc_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dacc_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dacc_dtau"``: shape (G, G) or (N, G, G). By the generalized forces: M^-1.
            ``"dacc_dbase_velocity"``: shape (G, 6) or (N, G, 6). By the base velocity [omega_W, pdot_W].
            ``"dacc_dbase_rotation"``: shape (G, 3) or (N, G, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_kinematics(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The pose of a link frame in the world.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        pose : ndarray, shape (7,) or (N, 7)
            [x, y, z, qx, qy, qz, qw]: the link origin [m] and the unit quaternion of its frame, world frame.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_kinematics_all(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The pose of every link frame in the world.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        poses : ndarray, shape (L, 7) or (N, L, 7)
            One row [x, y, z, qx, qy, qz, qw] per link, in `link_id` order.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def jacobian(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The Jacobian of a link origin: its twist [omega, pdot] (world axes) is J nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        jacobian : ndarray, shape (6, G) or (N, 6, G)
            The link origin's twist [omega, pdot] (world axes) is J nu, nu = qd, or [base velocity, qd]
            for a floating base (its six columns first).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def jacobian_derivative(self, base: BaseState, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """dJ/dt of a link Jacobian: Jdot nu is the link's acceleration at nudot = 0.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        jacobian_derivative : ndarray, shape (6, G) or (N, 6, G)
            dJ/dt; Jdot nu is the link's classical acceleration at nudot = 0.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_velocity_kinematics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, tool: Tool = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The twist [omega, pdot] of a link origin (world axes).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        tool : array_like, shape (3,), or Pose, optional
            A point on the link, in the link frame (a `Pose`: its translation; the
            rotation does not change the twist): the twist of that point instead.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        twist : ndarray, shape (6,) or (N, 6)
            [omega, pdot] of the link origin (of ``tool`` where given), world axes [rad/s, m/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_acceleration_kinematics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The classical acceleration of a link origin: J nudot + Jdot nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        acceleration : ndarray, shape (6,) or (N, 6)
            Classical acceleration [omegadot, pddot] = J nudot + Jdot nu of the link origin, world axes [rad/s^2, m/s^2].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The centre of mass of the moving bodies in the world.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        com : ndarray, shape (3,) or (N, 3)
            The centre of mass of the moving bodies (a fixed base's root link excluded), world frame [m].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass_jacobian(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The Jacobian of the centre of mass: its velocity is Jc nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        com_jacobian : ndarray, shape (3, G) or (N, 3, G)
            Jc: the centre of mass's velocity is Jc nu (world axes).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def centroidal_momentum_matrix(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """A_G: the momentum about the centre of mass is A_G nu (angular first, world axes).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        centroidal_matrix : ndarray, shape (6, G) or (N, 6, G)
            A_G: A_G nu is the momentum about the centre of mass, angular first, world axes (Pinocchio's computeCentroidalMap puts the linear part first).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def centroidal_momentum_bias(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Adot_G nu: the rate of the centroidal momentum at nudot = 0.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        centroidal_bias : ndarray, shape (6,) or (N, 6)
            Adot_G nu, angular first, world axes [N m, N].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def coriolis_matrix(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Coriolis matrix C(q, qd) (Echeandia and Wensing's recursive factorisation).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        C : ndarray, shape (G, G) or (N, G, G)
            C qd equals `velocity_product_forces` and Mdot = C + C^T (Christoffel-consistent:
            Mdot - 2 C is skew-symmetric); floating base: nu = [base velocity, qd] [kg m^2/s, kg m/s, kg/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def mass_matrix_derivative(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Time derivative of the mass matrix Mdot(q, qd) = C + C^T (from the Coriolis matrix).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        Mdot : ndarray, shape (G, G) or (N, G, G)
            Symmetric; Mdot - 2 C is skew-symmetric; floating base: along nu = [base velocity, qd]
            (the base's turning included) [kg m^2/s, kg m/s, kg/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def mass_matrix_inverse(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Inverse mass matrix M(q)^-1 (the checked tree-sparse LTDL factor of M).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        Minv : ndarray, shape (G, G) or (N, G, G)
            Symmetric positive definite.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def kinetic_energy(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Kinetic energy T = 1/2 nu^T M nu (the rotors' armature included).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        kinetic_energy : float or ndarray, shape (N,)
            [J].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def potential_energy(self, base: BaseState, q: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Potential energy V = -g . sum m c of the moving bodies (a fixed base's root excluded).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        potential_energy : float or ndarray, shape (N,)
            [J], zero with the centre of mass at the world origin.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def momentum(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Generalized momentum p = M nu.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        momentum : ndarray, shape (G,) or (N, G)
            [kg m^2/s, kg m/s]; floating base: the base's [angular, linear]
            momentum (world axes, about the base origin) first.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def passivity_forces(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qd_ref: ArrayLike, qdd_ref: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Passivity-based control's torques M qdd_ref + C(q, qd) qd_ref + g + J^T loads (one pass).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qd_ref : array_like, shape (G,) or (N, G)
            Reference velocity; floating base: the base's [omega_W, pdot_W] first.
        qdd_ref : array_like, shape (G,) or (N, G)
            Reference acceleration; floating base: the base's classical [omegadot_W, pddot_W] first.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        tau : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N]; with qd_ref = nu and qdd_ref = nudot, `inverse_dynamics`.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def operational_space_inertia(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Task-space inertia Lambda = (J M^-1 J^T)^-1 of a link frame (J: `jacobian`).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        Lambda : ndarray, shape (6, 6) or (N, 6, 6)
            Symmetric, angular first [kg m^2, kg m, kg]; a link that cannot move in every
            direction there raises a SolverError (SingularError or IllConditionedError).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def dynamically_consistent_inverse(self, base: BaseState, q: ArrayLike, link: LinkRef, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Dynamically consistent inverse J# = M^-1 J^T Lambda of a link Jacobian.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        jacobian_inverse : ndarray, shape (G, 6) or (N, G, 6)
            J J# = I; a singular task raises as for `operational_space_inertia`.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_regressor(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Inverse dynamics regressor Y(q, qd, qdd): tau = Y pi + armature qdd + J^T loads.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        regressor : ndarray, shape (G, P) or (N, G, P)
            P = 10 per body (the floating base's first), in rbdgen.parameters' order: m, m c, inertia about the body
            origin (Pinocchio's computeJointTorqueRegressor).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_base_regressor(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """Y_base(q, qd, qdd), the regressor's identifiable columns: tau = Y_base pi_base + armature qdd + J^T loads.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        base_regressor : ndarray, shape (G, Pb) or (N, G, Pb)
            The columns rbdgen.identifiable(model).columns of the regressor.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def inverse_dynamics_known_forces(self, base: BaseState, q: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """armature qdd + J^T loads: what inverse dynamics adds to Y pi (independent of the inertial parameters).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        tau_known : ndarray, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench first.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def energy_regressor(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """[kinetic; potential] (2 x 10 B): T = kinetic pi + 1/2 sum armature qd^2 and V = potential pi.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        energy_regressor : ndarray, shape (2, P) or (N, 2, P)
            Kinetic and potential rows [J per parameter unit].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass_velocity(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The velocity of the centre of mass: Jc nu (world axes).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        vcom : ndarray, shape (3,) or (N, 3)
            Jc nu: the velocity of the centre of mass, world axes [m/s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_velocity_kinematics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, link: LinkRef, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `forward_velocity_kinematics`: the link origin's twist [omega, pdot] (world axes), analytic.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(twist)/dx by name, 6 rows:
            ``"dtwist_dq"``: shape (6, J) or (N, 6, J). By the joint positions.
            ``"dtwist_dqd"``: shape (6, J) or (N, 6, J). By the joint velocities: the link Jacobian's joint columns.
            ``"dtwist_dbase_velocity"``: shape (6, 6) or (N, 6, 6). By the base velocity [omega_W, pdot_W]: the link Jacobian's base columns.
            ``"dtwist_dbase_rotation"``: shape (6, 3) or (N, 6, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def forward_acceleration_kinematics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, link: LinkRef, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `forward_acceleration_kinematics`: the link origin's classical acceleration [omegadot, pddot] (world axes), analytic.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        link : str or int
            The link (its frame's origin): a name or an id from `link_id`.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(acceleration)/dx by name, 6 rows:
            ``"dacceleration_dq"``: shape (6, J) or (N, 6, J). By the joint positions.
            ``"dacceleration_dqd"``: shape (6, J) or (N, 6, J). By the joint velocities.
            ``"dacceleration_dqdd"``: shape (6, J) or (N, 6, J). By the joint accelerations: the link Jacobian's joint columns.
            ``"dacceleration_dbase_velocity"``: shape (6, 6) or (N, 6, 6). By the base velocity [omega_W, pdot_W].
            ``"dacceleration_dbase_acceleration"``: shape (6, 6) or (N, 6, 6). By the base's classical acceleration: the link Jacobian's base columns.
            ``"dacceleration_dbase_rotation"``: shape (6, 3) or (N, 6, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def center_of_mass_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `center_of_mass_velocity` (analytic); dvcom/dqd is also d com/dq and, floating, dvcom/dbase_velocity's angular columns d com/dtheta.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(vcom)/dx by name, 3 rows:
            ``"dvcom_dq"``: shape (3, J) or (N, 3, J). By the joint positions.
            ``"dvcom_dqd"``: shape (3, J) or (N, 3, J). By the joint velocities: the centre-of-mass Jacobian's joint columns, also d com/dq.
            ``"dvcom_dbase_velocity"``: shape (3, 6) or (N, 3, 6). By the base velocity [omega_W, pdot_W]: the centre-of-mass Jacobian's base columns.
            ``"dvcom_dbase_rotation"``: shape (3, 3) or (N, 3, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def integrate(self, base: BaseState, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Tuple[BaseState, np.ndarray]:
        """The state moved by the velocity v held constant for dt: q + qd dt; a floating base on R3 x SO(3),
        p + pdot dt and exp(omega dt) R (world axes; not Pinocchio's SE(3) exponential of a body twist).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        v : array_like, shape (G,) or (N, G)
            Velocity held for dt; floating base: the base's [omega_W, pdot_W] first
            [rad/s, m/s].
        dt : float or array_like, shape (N,)
            Time step [s].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (base_next, q_next) : (BaseState, ndarray)
            The moved base (unit quaternion; velocity and acceleration those of ``base``) and
            the joint positions q + qd dt, shape (J,) or (N, J).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def difference(self, base: BaseState, q: ArrayLike, base1: BaseState, q1: ArrayLike, *, out: Out = None, mask: Mask = None, threads: Threads = None) -> np.ndarray:
        """The velocity v that moves the state (base, q) to (base1, q1) in unit time: integrate(x0, v, 1) = x1.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        base1 : BaseState
            The second state's base (its velocity and acceleration are not used).
        q1 : array_like, shape (J,) or (N, J)
            The second state's joint positions [rad, m].
        out : ndarray, optional
            A writeable, aligned float64 array of the result's shape that receives it
            (and is returned).
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        v : ndarray, shape (G,) or (N, G)
            [log(R1 R^T), p1 - p, q1 - q]: the shortest rotation (angle at most pi) as a
            world-frame rotation vector, then the translation and joint differences.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def integrate_derivatives(self, base: BaseState, q: ArrayLike, v: ArrayLike, dt: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `integrate` on tangent vectors [dtheta_W, dp_W, dq] (R -> exp(dtheta x) R).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        v : array_like, shape (G,) or (N, G)
            Velocity held for dt; floating base: the base's [omega_W, pdot_W] first
            [rad/s, m/s].
        dt : float or array_like, shape (N,)
            Time step [s].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            By name, G rows (tangent vectors of the result):
            ``"dx_next_dx"``: shape (G, G) or (N, ...). d next/dx: diag(exp(omega dt), I, I); the base rotation's columns first.
            ``"dx_next_dv"``: shape (G, G) or (N, ...). d next/dv: dt diag(J_l(omega dt), I, I), J_l the left Jacobian of SO(3).
            ``"dx_next_ddt"``: shape (G) or (N, ...). d next/d dt: v.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def difference_derivatives(self, base: BaseState, q: ArrayLike, base1: BaseState, q1: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `difference` by either state's tangent vector [dtheta_W, dp_W, dq]
        (R -> exp(dtheta x) R).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        base1 : BaseState
            The second state's base (its velocity and acceleration are not used).
        q1 : array_like, shape (J,) or (N, J)
            The second state's joint positions [rad, m].
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            By name, G rows (tangent vectors of the result):
            ``"dv_dx0"``: shape (G, G) or (N, ...). d v/dx0, the state (base, q): -diag(J_l(-v_rot)^-1, I, I).
            ``"dv_dx1"``: shape (G, G) or (N, ...). d v/dx1, the state (base1, q1): diag(J_l(v_rot)^-1, I, I).

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def contact_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, active: ArrayLike, reference: Optional[ArrayLike] = None, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Tuple[np.ndarray, np.ndarray]:
        """Forward dynamics under the declared contacts: M acc + h = tau + J^T forces, each active contact's
        classical acceleration -kd v_c - kp e_c (tree-sparse LTDL of M, then J M^-1 J^T).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        reference : array_like, shape (R,) or (N, R), optional
            Only where the Baumgarte kp is not zero: each contact's target position (3) and, for a
            frame contact, unit quaternion xyzw (4), world frame.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (acc, forces) : (ndarray, ndarray)
            acc, shape (G,) or (N, G), as `forward_dynamics`'s; forces, shape (C,) or (N, C): per point contact
            [fx, fy, fz], per frame contact [torque, force] about its point, world axes, exerted on the
            robot; zero for an inactive contact.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def impulse_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, active: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Tuple[np.ndarray, np.ndarray]:
        """The velocity after an impact on the active contacts: J qd_plus = -e J nu (restitution e).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (qd_plus, impulses) : (ndarray, ndarray)
            qd_plus, shape (G,) or (N, G); impulses, shape (C,) or (N, C), laid out as
            `contact_dynamics`' forces [N s, N m s].

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def loop_inverse_dynamics(self, base: BaseState, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Tuple[np.ndarray, np.ndarray]:
        """The actuated joints' forces and the loop forces of a motion consistent with the closed loops:
            S^T tau_actuated + J^T loop_forces = M qdd + C qd + g + J^T loads (least norm; `rbdgen.loops`).

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        qdd : array_like, shape (J,) or (N, J)
            Joint accelerations [rad/s^2, m/s^2].
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        (tau_actuated, loop_forces) : (ndarray, ndarray)
            tau_actuated, shape (A,) or (N, A), the actuated joints' in declaration order; loop_forces,
            shape (LC,) or (N, LC): per point loop [fx, fy, fz], per frame loop [torque, force] about its
            point, world axes, what link2 exerts on link1.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def contact_dynamics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, tau: ArrayLike, active: ArrayLike, reference: Optional[ArrayLike] = None, *, loads: Loads = None, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `contact_dynamics` (analytic: the KKT system differentiated): d acc/dx and d forces/dx.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        tau : array_like, shape (G,) or (N, G)
            Generalized forces [N m, N]; floating base: the base wrench
            [torque, force] (world axes, about the base origin) first.
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        reference : array_like, shape (R,) or (N, R), optional
            Only where the Baumgarte kp is not zero: each contact's target position (3) and, for a
            frame contact, unit quaternion xyzw (4), world frame.
        loads : sequence of Load or array_like, shape (L, 6) or (N, L, 6), optional
            Wrenches [torque, force] the links apply to their environment, at each link's origin
            in its frame, indexed by `link_id` [N m, N]. None or empty: no loads.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(acc, forces)/dx by name, G rows (floating base: the base's six first):
            ``"dacc_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dacc_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dacc_dtau"``: shape (G, G) or (N, G, G). By the generalized forces: M^-1.
            ``"dacc_dbase_velocity"``: shape (G, 6) or (N, G, 6). By the base velocity [omega_W, pdot_W].
            ``"dacc_dbase_rotation"``: shape (G, 3) or (N, G, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.
            ``"dforces_dq"``: shape (C, J) or (N, C, J). By the joint positions.
            ``"dforces_dqd"``: shape (C, J) or (N, C, J). By the joint velocities.
            ``"dforces_dtau"``: shape (C, G) or (N, C, G). By the generalized forces: M^-1.
            ``"dforces_dbase_velocity"``: shape (C, 6) or (N, C, 6). By the base velocity [omega_W, pdot_W].
            ``"dforces_dbase_rotation"``: shape (C, 3) or (N, C, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

    def impulse_dynamics_derivatives(self, base: BaseState, q: ArrayLike, qd: ArrayLike, active: ArrayLike, *, mask: Mask = None, threads: Threads = None) -> Dict[str, np.ndarray]:
        """Jacobians of `impulse_dynamics` (analytic: the KKT system differentiated): d qd_plus/dx and d impulses/dx.

        Arrays of floats or integers, or nested lists of numbers, are accepted (converted to
        float64 once); an unbatched argument is shared by every state of a batch.

        Parameters
        ----------
        base : BaseState
            The floating base: translation (3), unit-or-not quaternion rotation_xyzw (4),
            velocity [omega_W, pdot_W] and classical acceleration [omegadot_W, pddot_W] (6 each,
            world axes, angular first, default 0); each field unbatched or with a leading N.
        q : array_like, shape (J,) or (N, J)
            Joint positions [rad, m] in `joint_names` order.
        qd : array_like, shape (J,) or (N, J)
            Joint velocities [rad/s, m/s].
        active : array_like, shape (K,) or (N, K)
            1.0 (active) or 0.0 per declared contact, in declaration order.
        mask : array_like of bool, shape (N,), optional
            Batches only: evaluate the selected states; the others' results are zero.
        threads : int, optional
            Batches of at least `rbdgen.threads.MIN_STATES` states per thread are split into that
            many contiguous parts evaluated at once (a compiled solver; the NumPy engine runs one):
            results bit-identical to one thread. None: `rbdgen.threads.default_threads` (the
            ``RBDGEN_THREADS`` environment variable, else every core); 1: this thread only.

        Returns
        -------
        dict of ndarray
            d(qd_plus, impulses)/dx by name, G rows (floating base: the base's six first):
            ``"dqd_plus_dq"``: shape (G, J) or (N, G, J). By the joint positions.
            ``"dqd_plus_dqd"``: shape (G, J) or (N, G, J). By the joint velocities.
            ``"dqd_plus_dbase_velocity"``: shape (G, 6) or (N, G, 6). By the base velocity [omega_W, pdot_W].
            ``"dqd_plus_dbase_rotation"``: shape (G, 3) or (N, G, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.
            ``"dimpulses_dq"``: shape (C, J) or (N, C, J). By the joint positions.
            ``"dimpulses_dqd"``: shape (C, J) or (N, C, J). By the joint velocities.
            ``"dimpulses_dbase_velocity"``: shape (C, 6) or (N, C, 6). By the base velocity [omega_W, pdot_W].
            ``"dimpulses_dbase_rotation"``: shape (C, 3) or (N, C, 3). By a world-frame rotation vector of the base, R -> exp(dtheta x) R.

        Raises
        ------
        ValueError
            An argument of the wrong shape, a non-finite value, a zero quaternion, a bad ``out``
            (each message names the argument); batch sizes that differ.
        TypeError
            An argument that is not real numbers (bool, complex, strings, objects), a mask that is
            not boolean, a wrong call.
        SolverError
            A numerical failure at a state (`SingularError`, `IllConditionedError`, `NonFiniteError`);
            the message says which state.

        """
        ...

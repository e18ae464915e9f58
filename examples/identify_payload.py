"""Identify an unknown payload held by the Franka Emika Panda from joint torques, with rbdgen's base regressor.

The "real" robot is the bundled Panda with a 2.3 kg payload welded to its last body (centre of mass
0.05 m along the flange axis, a small box's inertia); its joint torques are measured with Gaussian
noise at random states. The nominal model (the URDF without the payload) is generated with
``inverse_dynamics_base_regressor``, its identifiable columns (`rbdgen.identifiable`); the base
parameters are fitted by least squares, ``tau = Y_base pi_base``; the payload's 10 parameters follow
from the change of the base parameters, ``pi_base - pi_base_nominal = map[:, last body] delta``
(the last body's block of the map has full rank). Prints the recovered mass and the torque
prediction error on fresh states, and projects the payload onto physically consistent parameters
(`rbdgen.consistency`) where noise made its small inertias unphysical.

    python examples/identify_payload.py --states 400 --noise 0.05

`identify()` is the programmatic entry point (tests/test_examples_identify.py uses it).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path

import numpy as np

import rbdgen
from rbdgen import consistency, parameters

URDF = Path(__file__).resolve().parents[1] / "generated" / "panda" / "panda.urdf"

#: The payload: mass [kg], centre of mass in the last body's frame [m] and its inertia there [kg m^2].
PAYLOAD_MASS = 2.3
PAYLOAD_COM = (0.0, 0.0, 0.05)
PAYLOAD_INERTIA = np.diag([0.004, 0.004, 0.002])


@dataclasses.dataclass
class Result:
    mass: float  # recovered payload mass [kg]
    com: np.ndarray  # recovered centre of mass [m]
    rank: int  # identifiable parameters
    fit_rms: float  # torque residual of the fit [N m]
    prediction_rms: float  # torque prediction error on fresh states [N m]
    violations: list  # what the identified payload breaks (rbdgen.consistency), empty if consistent
    projected: np.ndarray  # the nearest physically consistent payload parameters (10)


def with_payload(model: rbdgen.RobotModel) -> rbdgen.RobotModel:
    """The model with the payload added to its last body."""
    pi = parameters.parameter_vector(model)
    payload = rbdgen.Inertia(PAYLOAD_MASS, PAYLOAD_COM, tuple(map(tuple, PAYLOAD_INERTIA)))
    pi[-10:] += parameters.from_inertia(payload)
    return parameters.with_parameters(model, pi)


def _states(model, count, rng):
    lower = np.array([j.limits.lower for j in model.joints])
    upper = np.array([j.limits.upper for j in model.joints])
    return (rng.uniform(lower, upper, (count, model.joint_count)), rng.uniform(-1, 1, (count, model.joint_count)),
            rng.uniform(-2, 2, (count, model.joint_count)))


def identify(states: int = 400, noise: float = 0.05, seed: int = 0, cache=None) -> Result:
    """Simulate, fit and report (``noise``: standard deviation of the torque noise [N m])."""
    rng = np.random.default_rng(seed)
    nominal = rbdgen.load_urdf(URDF)
    real = rbdgen.NumpySolver(with_payload(nominal))
    solver = rbdgen.generate(nominal, ops=["inverse_dynamics_base_regressor"], prefix="panda_identify").compile(
        cache=cache)
    base = rbdgen.identifiable(nominal)

    q, qd, qdd = _states(nominal, states, rng)
    tau = real.inverse_dynamics(q, qd, qdd) + rng.normal(0, noise, (states, nominal.joint_count))
    Y = solver.inverse_dynamics_base_regressor(q, qd, qdd)                    # (N, G, rank)
    fitted, *_ = np.linalg.lstsq(Y.reshape(-1, base.rank), tau.reshape(-1), rcond=None)
    fit_rms = float(np.sqrt(np.mean((Y @ fitted - tau) ** 2)))

    change = fitted - base.base_parameters(parameters.parameter_vector(nominal))
    delta, *_ = np.linalg.lstsq(base.map[:, -10:], change, rcond=None)       # the payload's 10 parameters
    q, qd, qdd = _states(nominal, states, rng)
    predicted = solver.inverse_dynamics_base_regressor(q, qd, qdd) @ fitted
    prediction_rms = float(np.sqrt(np.mean((predicted - real.inverse_dynamics(q, qd, qdd)) ** 2)))
    return Result(float(delta[0]), delta[1:4] / delta[0], base.rank, fit_rms, prediction_rms,
                  consistency.violations(delta, names=["payload"]), consistency.project(delta))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--states", type=int, default=400, help="measured states (default 400)")
    parser.add_argument("--noise", type=float, default=0.05, help="torque noise std [N m] (default 0.05)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    result = identify(args.states, args.noise, args.seed)
    print(f"identifiable parameters: {result.rank} of 70")
    print(f"payload mass: {result.mass:.3f} kg (true {PAYLOAD_MASS} kg), centre of mass "
          f"{(np.round(result.com, 3) + 0.0).tolist()} m (true {list(PAYLOAD_COM)})")
    print(f"torque fit residual {result.fit_rms:.4f} N m (noise {args.noise} N m), prediction error on fresh "
          f"states {result.prediction_rms:.4f} N m")
    if result.violations:  # few or noisy states: the small inertias may come out unphysical
        print("\n".join(result.violations))
        print(f"projected onto consistent parameters: mass {result.projected[0]:.3f} kg")
    else:
        print("payload physically consistent")


if __name__ == "__main__":
    main()

// Pinocchio's controller quantities timed in a C++ loop, for benchmarks/controller.py.
//
// Usage: pinocchio_controller MODEL STATES FRAME ROUNDS TARGET_MS
//
//   MODEL     a pinocchio::Model saved by Python's `model.saveToBinary`
//   STATES    raw float64 file, S states of [q (nq), v (nv), a (nv), tau (nv)] (timing.hpp)
//   FRAME     the name of the link (a BODY frame) of the task-space inertia
//   ROUNDS    timed rounds per operation; each prints one time
//   TARGET_MS each timed round loops over all S states, repeated until it lasts about this long
//
// Prints one line per operation: "<op> <us per call, round 1> <round 2> ...", for
//   coriolis_matrix            computeCoriolisMatrix(q, v)
//   mass_matrix_inverse        computeMinverse(q) (its upper triangle, as Pinocchio leaves it)
//   kinetic_energy             computeKineticEnergy(q, v)
//   potential_energy           computePotentialEnergy(q)
//   operational_space_inertia  computeJointJacobians(q) + getFrameJacobian(FRAME, LOCAL_WORLD_ALIGNED)
//                              + computeMinverse(q) (symmetrised) + (J M^-1 J^T)^-1 (a 6 x 6 inverse)
//   passivity_forces           computeCoriolisMatrix(q, v) + crba(q) + computeGeneralizedGravity(q)
//                              + M a_r + C v_r + g (Pinocchio 4.1 has no passivityRNEA)
//   dynamically_consistent_inverse  as operational_space_inertia, then M^-1 J^T Lambda
//   integrate                  integrate(q, v dt)
//   difference                 difference(q_i, q_{i+1}) (the next state's q: a second configuration)
//   integrate_derivatives      dIntegrate(q, v dt) by both arguments (ARG0, ARG1)
//   difference_derivatives     dDifference(q_i, q_{i+1}) by both arguments
//   forward_velocity_kinematics_derivatives      computeForwardKinematicsDerivatives(q, v, a)
//                                                + getFrameVelocityDerivatives(FRAME, LOCAL_WORLD_ALIGNED)
//   forward_acceleration_kinematics_derivatives  computeForwardKinematicsDerivatives(q, v, a)
//                                                + getFrameAccelerationDerivatives(FRAME, LOCAL_WORLD_ALIGNED)
//   center_of_mass_derivatives computeForwardKinematicsDerivatives(q, v, 0) + centerOfMass(q, v)
//                              + getCenterOfMassVelocityDerivatives + jacobianCenterOfMass(q) (d vcom / d v)
// The passivity forces take v_r from the states' tau and a_r from their a, dt = 0.05: the values
// do not change the work of these algorithms (timing only; rbdgen's results are checked in Python).
// The algorithms are instantiated from the headers with this file's flags.

#include <cstdio>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/center-of-mass-derivatives.hpp>
#include <pinocchio/algorithm/center-of-mass.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/joint-configuration.hpp>
#include <pinocchio/algorithm/kinematics-derivatives.hpp>
#include <pinocchio/algorithm/energy.hpp>
#include <pinocchio/algorithm/frames-derivatives.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

#include "timing.hpp"

int main(int argc, char ** argv)
{
  timing::Command command;
  if (!timing::parse_command(argc, argv, "FRAME", command))
    return 2;
  const int rounds = command.rounds;
  const double target = command.target;
  pinocchio::Model model;
  timing::States st;
  std::size_t frame = 0;
  if (!timing::load(command, model, st) || !timing::find_link(model, command.arg, pinocchio::BODY, frame))
    return 2;
  pinocchio::Data data(model);
  const int nv = model.nv;
  const auto & q = st.q;
  const auto & v = st.v;
  Eigen::Matrix<double, 6, Eigen::Dynamic> J = Eigen::MatrixXd::Zero(6, nv);
  Eigen::Matrix<double, 6, Eigen::Dynamic> JMinv(6, nv);
  Eigen::Matrix<double, 6, 6> Lambda;
  Eigen::Matrix<double, Eigen::Dynamic, 6> Jbar(nv, 6);
  Eigen::VectorXd tau(nv), dq(nv), dv(nv), qout(model.nq), zero = Eigen::VectorXd::Zero(nv);
  Eigen::MatrixXd D0(nv, nv), D1(nv, nv);
  Eigen::Matrix<double, 6, Eigen::Dynamic> Vq = J, Vv = J, Aq = J, Av = J, Aa = J;
  Eigen::Matrix<double, 3, Eigen::Dynamic> Cq = Eigen::MatrixXd::Zero(3, nv);
  const double dt = 0.05;
  const long S = st.size;
  double sink = 0.0;
  auto bench = [&](const char * name, auto call) { timing::time_rounds(name, st.size, rounds, target, sink, call); };

  bench("coriolis_matrix", [&](long i) { return pinocchio::computeCoriolisMatrix(model, data, q[i], v[i])(0, nv - 1); });
  bench("mass_matrix_inverse", [&](long i) { return pinocchio::computeMinverse(model, data, q[i])(0, nv - 1); });
  bench("kinetic_energy", [&](long i) { return pinocchio::computeKineticEnergy(model, data, q[i], v[i]); });
  bench("potential_energy", [&](long i) { return pinocchio::computePotentialEnergy(model, data, q[i]); });
  bench("operational_space_inertia", [&](long i) {
    pinocchio::computeJointJacobians(model, data, q[i]);
    pinocchio::getFrameJacobian(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED, J);
    pinocchio::computeMinverse(model, data, q[i]);
    data.Minv.triangularView<Eigen::StrictlyLower>() = data.Minv.transpose().triangularView<Eigen::StrictlyLower>();
    JMinv.noalias() = J * data.Minv;
    Lambda.noalias() = JMinv * J.transpose();
    Lambda = Lambda.inverse().eval();
    return Lambda(0, 5);
  });
  bench("passivity_forces", [&](long i) {
    pinocchio::computeCoriolisMatrix(model, data, q[i], v[i]);
    pinocchio::crba(model, data, q[i]);  // the upper triangle
    pinocchio::computeGeneralizedGravity(model, data, q[i]);
    tau.noalias() = data.M.selfadjointView<Eigen::Upper>() * st.a[i];
    tau.noalias() += data.C * st.tau[i];
    tau += data.g;
    return tau(nv - 1);
  });
  bench("dynamically_consistent_inverse", [&](long i) {
    pinocchio::computeJointJacobians(model, data, q[i]);
    pinocchio::getFrameJacobian(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED, J);
    pinocchio::computeMinverse(model, data, q[i]);
    data.Minv.triangularView<Eigen::StrictlyLower>() = data.Minv.transpose().triangularView<Eigen::StrictlyLower>();
    JMinv.noalias() = J * data.Minv;
    Lambda.noalias() = JMinv * J.transpose();
    Lambda = Lambda.inverse().eval();
    Jbar.noalias() = JMinv.transpose() * Lambda;
    return Jbar(nv - 1, 5);
  });
  bench("integrate", [&](long i) {
    dq.noalias() = dt * v[i];
    pinocchio::integrate(model, q[i], dq, qout);
    return qout(model.nq - 1);
  });
  bench("difference", [&](long i) {
    pinocchio::difference(model, q[i], q[(i + 1) % S], dv);
    return dv(nv - 1);
  });
  bench("integrate_derivatives", [&](long i) {
    dq.noalias() = dt * v[i];
    pinocchio::dIntegrate(model, q[i], dq, D0, pinocchio::ARG0);
    pinocchio::dIntegrate(model, q[i], dq, D1, pinocchio::ARG1);
    return D0(0, 0) + D1(0, 0);
  });
  bench("difference_derivatives", [&](long i) {
    pinocchio::dDifference(model, q[i], q[(i + 1) % S], D0, pinocchio::ARG0);
    pinocchio::dDifference(model, q[i], q[(i + 1) % S], D1, pinocchio::ARG1);
    return D0(0, 0) + D1(0, 0);
  });
  bench("forward_velocity_kinematics_derivatives", [&](long i) {
    pinocchio::computeForwardKinematicsDerivatives(model, data, q[i], v[i], st.a[i]);
    pinocchio::getFrameVelocityDerivatives(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED, Vq, Vv);
    return Vq(0, nv - 1) + Vv(0, nv - 1);
  });
  bench("forward_acceleration_kinematics_derivatives", [&](long i) {
    pinocchio::computeForwardKinematicsDerivatives(model, data, q[i], v[i], st.a[i]);
    pinocchio::getFrameAccelerationDerivatives(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED, Vq, Aq, Av, Aa);
    return Aq(0, nv - 1) + Av(0, nv - 1) + Aa(0, nv - 1);
  });
  bench("center_of_mass_derivatives", [&](long i) {
    pinocchio::computeForwardKinematicsDerivatives(model, data, q[i], v[i], zero);
    pinocchio::centerOfMass(model, data, q[i], v[i]);
    pinocchio::getCenterOfMassVelocityDerivatives(model, data, Cq);
    return Cq(0, nv - 1) + pinocchio::jacobianCenterOfMass(model, data, q[i])(0, nv - 1);
  });
  std::fprintf(stderr, "%.17g\n", sink);
  return 0;
}

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
// The algorithms are instantiated from the headers with this file's flags.

#include <cstdio>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/energy.hpp>
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
  std::fprintf(stderr, "%.17g\n", sink);
  return 0;
}

// Pinocchio's kinematics timed in a C++ loop, for benchmarks/kinematics.py.
//
// Usage: pinocchio_kinematics MODEL STATES FRAME ROUNDS TARGET_MS
//
//   MODEL     a pinocchio::Model saved by Python's `model.saveToBinary`
//   STATES    raw float64 file, S states of [q (nq), v (nv), a (nv), tau (nv)] (timing.hpp);
//             kinematics.py writes a = 0 (Jdot nu is the classical acceleration at a = 0)
//   FRAME     the name of the link (a BODY frame) of the operations on one link
//   ROUNDS    timed rounds per operation; each prints one time
//   TARGET_MS each timed round loops over all S states, repeated until it lasts about this long
//
// Prints one line per operation: "<op> <us per call, round 1> <round 2> ...", for
//   fk_link         forwardKinematics(q) + updateFramePlacement(FRAME)
//   fk_all          framesForwardKinematics(q)
//   jacobian        computeFrameJacobian(q, FRAME, LOCAL_WORLD_ALIGNED)
//   jdot_nu         forwardKinematics(q, v, a) + getFrameClassicalAcceleration(FRAME, LOCAL_WORLD_ALIGNED)
//   com_jacobian    jacobianCenterOfMass(q)
//   centroidal_map  computeCentroidalMap(q)
// The algorithms are instantiated from the headers with this file's flags.

#include <cstdio>

#include <pinocchio/algorithm/center-of-mass.hpp>
#include <pinocchio/algorithm/centroidal.hpp>
#include <pinocchio/algorithm/frames.hpp>
#include <pinocchio/algorithm/jacobian.hpp>
#include <pinocchio/algorithm/kinematics.hpp>
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
  const auto & a = st.a;
  Eigen::MatrixXd J = Eigen::MatrixXd::Zero(6, nv);
  double sink = 0.0;
  auto bench = [&](const char * name, auto call) { timing::time_rounds(name, st.size, rounds, target, sink, call); };

  bench("fk_link", [&](long i) {
    pinocchio::forwardKinematics(model, data, q[i]);
    return pinocchio::updateFramePlacement(model, data, frame).translation()[0];
  });
  bench("fk_all", [&](long i) {
    pinocchio::framesForwardKinematics(model, data, q[i]);
    return data.oMf.back().translation()[0];
  });
  bench("jacobian", [&](long i) {
    pinocchio::computeFrameJacobian(model, data, q[i], frame, pinocchio::LOCAL_WORLD_ALIGNED, J);
    return J(0, nv - 1);
  });
  bench("jdot_nu", [&](long i) {
    pinocchio::forwardKinematics(model, data, q[i], v[i], a[i]);
    return pinocchio::getFrameClassicalAcceleration(model, data, frame, pinocchio::LOCAL_WORLD_ALIGNED).linear()[0];
  });
  bench("com_jacobian", [&](long i) { return pinocchio::jacobianCenterOfMass(model, data, q[i])(0, nv - 1); });
  bench("centroidal_map", [&](long i) { return pinocchio::computeCentroidalMap(model, data, q[i])(0, nv - 1); });
  std::fprintf(stderr, "%.17g\n", sink);
  return 0;
}

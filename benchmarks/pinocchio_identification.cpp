// Pinocchio's regressors timed in a C++ loop, for benchmarks/identification.py.
//
// Usage: pinocchio_identification MODEL STATES FRAME ROUNDS TARGET_MS
//
//   MODEL     a pinocchio::Model saved by Python's `model.saveToBinary`
//   STATES    raw float64 file, S states of [q (nq), v (nv), a (nv), tau (nv)] (timing.hpp)
//   FRAME     a link (unused: the common command line of these loops)
//   ROUNDS    timed rounds per operation; each prints one time
//   TARGET_MS each timed round loops over all S states, repeated until it lasts about this long
//
// Prints one line per operation: "<op> <us per call, round 1> <round 2> ...", for
//   regressor         computeJointTorqueRegressor(q, v, a)
//   base_regressor    computeJointTorqueRegressor(q, v, a) (Pinocchio has no base regressor)
//   energy_regressor  computeKineticEnergyRegressor(q, v) + computePotentialEnergyRegressor(q)
// The algorithms are instantiated from the headers with this file's flags.

#include <cstdio>

#include <pinocchio/algorithm/regressor.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

#include "timing.hpp"

int main(int argc, char ** argv)
{
  timing::Command command;
  if (!timing::parse_command(argc, argv, "FRAME", command))
    return 2;
  pinocchio::Model model;
  timing::States st;
  if (!timing::load(command, model, st))
    return 2;
  pinocchio::Data data(model);
  const int nv = model.nv;
  const auto & q = st.q;
  const auto & v = st.v;
  const auto & a = st.a;
  double sink = 0.0;
  auto bench = [&](const char * name, auto call) {
    timing::time_rounds(name, st.size, command.rounds, command.target, sink, call);
  };

  bench("regressor", [&](long i) {
    return pinocchio::computeJointTorqueRegressor(model, data, q[i], v[i], a[i])(nv - 1, 0);
  });
  bench("base_regressor", [&](long i) {
    return pinocchio::computeJointTorqueRegressor(model, data, q[i], v[i], a[i])(nv - 1, 0);
  });
  bench("energy_regressor", [&](long i) {
    const auto & kinetic = pinocchio::computeKineticEnergyRegressor(model, data, q[i], v[i]);
    const auto & potential = pinocchio::computePotentialEnergyRegressor(model, data, q[i]);
    return kinetic(0) + potential(0);
  });
  std::fprintf(stderr, "%.17g\n", sink);
  return 0;
}

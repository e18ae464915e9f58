// Pinocchio's analytic derivatives timed in a C++ loop, for benchmarks/derivatives.py.
//
// Usage: pinocchio_derivatives MODEL STATES ROUNDS TARGET_MS
//
//   MODEL     a pinocchio::Model saved by Python's `model.saveToBinary`
//   STATES    raw float64 file, S states of [q (nq), v (nv), a (nv), tau (nv)]
//   ROUNDS    timed rounds per operation; each prints one time
//   TARGET_MS each timed round loops over all S states, repeated until it lasts about this long
//
// Prints one line per operation: "<op> <us per call, round 1> <round 2> ...", for
// computeRNEADerivatives(q, v, a), computeABADerivatives(q, v, tau), aba(q, v, tau).
// The algorithms are instantiated from the headers with this file's flags.

#include <cstdio>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

#include "timing.hpp"

int main(int argc, char ** argv)
{
  timing::Command command;
  if (!timing::parse_command(argc, argv, nullptr, command))
    return 2;
  const int rounds = command.rounds;
  const double target = command.target;
  pinocchio::Model model;
  timing::States st;
  if (!timing::load(command, model, st))
    return 2;
  pinocchio::Data data(model);
  const int nv = model.nv;
  const auto & q = st.q;
  const auto & v = st.v;
  const auto & a = st.a;
  const auto & tau = st.tau;
  double sink = 0.0;
  auto bench = [&](const char * name, auto call) { timing::time_rounds(name, st.size, rounds, target, sink, call); };
  bench("inverse_dynamics_derivatives", [&](long i) {
    pinocchio::computeRNEADerivatives(model, data, q[i], v[i], a[i]);
    return data.dtau_dq(0, nv - 1);
  });
  bench("forward_dynamics_derivatives", [&](long i) {
    pinocchio::computeABADerivatives(model, data, q[i], v[i], tau[i]);
    return data.ddq_dq(0, nv - 1);
  });
  bench("forward_dynamics", [&](long i) { return pinocchio::aba(model, data, q[i], v[i], tau[i])[0]; });
  std::fprintf(stderr, "%.17g\n", sink);
  return 0;
}

// Pinocchio's C++ algorithms timed in a C++ loop, for benchmarks/bench.py.
//
// Usage: pinocchio_bench MODEL STATES OUT ROUNDS TARGET_MS
//
//   MODEL     a pinocchio::Model saved by Python's `model.saveToBinary` (bench.py
//             builds it from the URDF, with a free flyer for a floating base and
//             gravity 9.80665 m/s^2; the wheel ships no urdfdom headers, so the URDF
//             is not parsed here)
//   STATES    raw float64 file, S states of [q (nq), v (nv), a (nv), tau (nv)] in
//             Pinocchio's conventions (bench.py converts rbdgen's states)
//   OUT       raw float64 file written with every operation's result at each state,
//             in the order below (the mass matrix full, nv x nv, column-major)
//   ROUNDS    timed rounds per operation; each prints one time
//   TARGET_MS each timed round loops over all S states, repeated until it lasts
//             about this long (the repeat count is calibrated first, which also warms up)
//
// Prints one line per operation: "<op> <us per call, round 1> <round 2> ...".
// Operations: inverse_dynamics = rnea(q, v, a); mass_matrix = crba(q) (upper
// triangle, as Pinocchio fills it); forward_dynamics = aba(q, v, tau);
// gravity = computeGeneralizedGravity(q); velocity_product_forces =
// nonLinearEffects(q, v) on a copy of the model with zero gravity.
//
// The algorithms are instantiated from the headers in this translation unit (no
// PINOCCHIO_ENABLE_TEMPLATE_INSTANTIATION), so they are compiled with the flags this
// file is compiled with.

#include <cstdio>
#include <vector>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/crba.hpp>
#include <pinocchio/algorithm/rnea.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

#include "timing.hpp"

using Vec = timing::Vec;

int main(int argc, char ** argv)
{
  timing::Command command;
  if (!timing::parse_command(argc, argv, "OUT", command))
    return 2;
  const int rounds = command.rounds;
  const double target = command.target;

  pinocchio::Model model;
  model.loadFromBinary(command.model);
  pinocchio::Model model_nog = model;
  model_nog.gravity.setZero();
  pinocchio::Data data(model), data_nog(model_nog);
  const int nv = model.nv;
  timing::States st;
  if (!timing::read_states(command.states, model.nq, nv, st))
    return 2;
  const long S = st.size;
  const auto & q = st.q;
  const auto & v = st.v;
  const auto & a = st.a;
  const auto & tau = st.tau;

  std::vector<double> out;
  double sink = 0.0;

  // One operation: the timing loop over all states (timing.hpp), then `store()` of each state's
  // result into `out`.
  auto bench = [&](const char * name, auto call, auto store) {
    timing::time_rounds(name, S, rounds, target, sink, call);
    for (long i = 0; i < S; ++i)
    {
      call(i);
      store();
    }
  };
  auto store_vec = [&](const Vec & x) { out.insert(out.end(), x.data(), x.data() + x.size()); };

  bench("inverse_dynamics",
        [&](long i) { return pinocchio::rnea(model, data, q[i], v[i], a[i])[0]; },
        [&] { store_vec(data.tau); });
  bench("mass_matrix",
        [&](long i) { return pinocchio::crba(model, data, q[i])(0, nv - 1); },
        [&] {
          Eigen::MatrixXd M = data.M;
          M.triangularView<Eigen::StrictlyLower>() = M.transpose();
          out.insert(out.end(), M.data(), M.data() + M.size());
        });
  bench("forward_dynamics",
        [&](long i) { return pinocchio::aba(model, data, q[i], v[i], tau[i])[0]; },
        [&] { store_vec(data.ddq); });
  bench("gravity",
        [&](long i) { return pinocchio::computeGeneralizedGravity(model, data, q[i])[0]; },
        [&] { store_vec(data.g); });
  bench("velocity_product_forces",
        [&](long i) { return pinocchio::nonLinearEffects(model_nog, data_nog, q[i], v[i])[0]; },
        [&] { store_vec(data_nog.nle); });

  std::FILE * f = std::fopen(command.arg, "wb");
  if (!f || std::fwrite(out.data(), sizeof(double), out.size(), f) != out.size())
  {
    std::fprintf(stderr, "cannot write %s\n", command.arg);
    return 2;
  }
  std::fclose(f);
  std::fprintf(stderr, "sink %g\n", sink);
  return 0;
}

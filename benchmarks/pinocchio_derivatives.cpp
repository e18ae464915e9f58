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

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <vector>

#include <pinocchio/algorithm/aba.hpp>
#include <pinocchio/algorithm/aba-derivatives.hpp>
#include <pinocchio/algorithm/rnea-derivatives.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

using Clock = std::chrono::steady_clock;
using Vec = Eigen::VectorXd;

static double seconds_since(Clock::time_point t0)
{
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

int main(int argc, char ** argv)
{
  if (argc != 5)
  {
    std::fprintf(stderr, "usage: %s MODEL STATES ROUNDS TARGET_MS\n", argv[0]);
    return 2;
  }
  const int rounds = std::atoi(argv[3]);
  const double target = std::atof(argv[4]) * 1e-3;
  pinocchio::Model model;
  model.loadFromBinary(argv[1]);
  pinocchio::Data data(model);
  const int nq = model.nq, nv = model.nv;
  std::ifstream in(argv[2], std::ios::binary | std::ios::ate);
  const std::streamsize bytes = in ? (std::streamsize)in.tellg() : 0;
  const int per_state = nq + 3 * nv;
  const long S = bytes / (long)(sizeof(double) * per_state);
  if (S <= 0 || bytes != (std::streamsize)(S * per_state * sizeof(double)))
  {
    std::fprintf(stderr, "%s: not a whole number of states of %d doubles\n", argv[2], per_state);
    return 2;
  }
  in.seekg(0);
  std::vector<double> raw(S * per_state);
  in.read(reinterpret_cast<char *>(raw.data()), bytes);
  std::vector<Vec> q(S), v(S), a(S), tau(S);
  for (long i = 0; i < S; ++i)
  {
    const double * p = raw.data() + i * per_state;
    q[i] = Eigen::Map<const Vec>(p, nq);
    v[i] = Eigen::Map<const Vec>(p + nq, nv);
    a[i] = Eigen::Map<const Vec>(p + nq + nv, nv);
    tau[i] = Eigen::Map<const Vec>(p + nq + 2 * nv, nv);
  }
  double sink = 0.0;
  auto bench = [&](const char * name, auto call) {
    long reps = 1;
    for (;;)  // calibrate (and warm up)
    {
      const auto t0 = Clock::now();
      for (long r = 0; r < reps; ++r)
        for (long i = 0; i < S; ++i)
          sink += call(i);
      if (seconds_since(t0) >= 0.5 * target || reps > (1L << 30))
        break;
      reps *= 2;
    }
    reps *= 2;
    std::printf("%s", name);
    for (int k = 0; k < rounds; ++k)
    {
      const auto t0 = Clock::now();
      for (long r = 0; r < reps; ++r)
        for (long i = 0; i < S; ++i)
          sink += call(i);
      std::printf(" %.6f", 1e6 * seconds_since(t0) / (double)(reps * S));
    }
    std::printf("\n");
  };
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

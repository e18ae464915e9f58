// What the Pinocchio C++ benchmark programs share: the states file and the timing loop.
//
// States file: raw float64, S states of [q (nq), v (nv), a (nv), tau (nv)] in Pinocchio's
// conventions, written by the Python side.
//
// Command line: every program takes MODEL STATES [ARG] ROUNDS TARGET_MS (`parse_command`),
// ARG being its own argument, if any; `load` reads MODEL and STATES, `find_link` a link ARG.
//
// Timing: `time_rounds` loops over all S states, calling `call(i)` for state i and adding
// the value it returns to `sink` (so nothing is optimised away). It first calibrates the
// repeat count until one loop lasts about half of TARGET seconds (which also warms up),
// doubles it, then times ROUNDS loops, each with the code on other physical pages
// (placement.h), and prints one line, "<name> <us per call, round 1>
// <round 2> ...".

#pragma once

#include <chrono>
#include <cstdio>
#include <cstddef>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <vector>

#include <Eigen/Core>

#include "placement.h"

namespace timing
{

#ifdef BENCH_THREAD_CLOCK
// -DBENCH_THREAD_CLOCK: the thread's CPU time (on a machine shared with other work), as c_loop.py's
struct Clock
{
  using duration = std::chrono::nanoseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<Clock>;
  static constexpr bool is_steady = true;
  static time_point now()
  {
    timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return time_point(duration(t.tv_sec * 1000000000LL + t.tv_nsec));
  }
};
#else
using Clock = std::chrono::steady_clock;
#endif
using Vec = Eigen::VectorXd;

inline double seconds_since(Clock::time_point t0)
{
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// A program's command line: the model file (Pinocchio's binary format), the states file, its own
// argument (nullptr when it takes none), the rounds and the target length of one loop [s].
struct Command
{
  const char * model = nullptr;
  const char * states = nullptr;
  const char * arg = nullptr;
  int rounds = 0;
  double target = 0.0;
};

// Reads MODEL STATES [ARG] ROUNDS TARGET_MS (ARG when `arg_name` is not nullptr); prints the
// usage and returns false on a wrong count.
inline bool parse_command(int argc, char ** argv, const char * arg_name, Command & command)
{
  const int count = arg_name ? 6 : 5;
  if (argc != count)
  {
    std::fprintf(stderr, "usage: %s MODEL STATES %s%sROUNDS TARGET_MS\n", argv[0], arg_name ? arg_name : "",
                 arg_name ? " " : "");
    return false;
  }
  command.model = argv[1];
  command.states = argv[2];
  command.arg = arg_name ? argv[3] : nullptr;
  command.rounds = std::atoi(argv[count - 2]);
  command.target = std::atof(argv[count - 1]) * 1e-3;
  return true;
}

struct States
{
  long size = 0;
  std::vector<Vec> q, v, a, tau;
};

// Reads a states file; prints why and returns false when it cannot be read or is not whole.
inline bool read_states(const char * path, int nq, int nv, States & states)
{
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in)
  {
    std::fprintf(stderr, "cannot read %s\n", path);
    return false;
  }
  const std::streamsize bytes = in.tellg();
  const long per_state = nq + 3L * nv;
  const long S = (long)bytes / (long)(sizeof(double) * per_state);
  if (S <= 0 || bytes != (std::streamsize)(S * per_state * sizeof(double)))
  {
    std::fprintf(stderr, "%s: size %ld is not a multiple of %ld doubles\n", path, (long)bytes, per_state);
    return false;
  }
  in.seekg(0);
  std::vector<double> raw(S * per_state);
  in.read(reinterpret_cast<char *>(raw.data()), bytes);
  states.size = S;
  states.q.resize(S);
  states.v.resize(S);
  states.a.resize(S);
  states.tau.resize(S);
  for (long i = 0; i < S; ++i)
  {
    const double * p = raw.data() + i * per_state;
    states.q[i] = Eigen::Map<const Vec>(p, nq);
    states.v[i] = Eigen::Map<const Vec>(p + nq, nv);
    states.a[i] = Eigen::Map<const Vec>(p + nq + nv, nv);
    states.tau[i] = Eigen::Map<const Vec>(p + nq + 2 * nv, nv);
  }
  return true;
}

// Loads MODEL (a pinocchio::Model's binary file) and STATES for it; prints why and returns false
// when the states cannot be read.
template <class Model>
bool load(const Command & command, Model & model, States & states)
{
  model.loadFromBinary(command.model);
  return read_states(command.states, model.nq, model.nv, states);
}

// The index of the link ARG, a frame of `type` (pinocchio::BODY); prints why and returns false when
// the model has no such frame.
template <class Model, class FrameType>
bool find_link(const Model & model, const char * name, FrameType type, std::size_t & frame)
{
  if (!model.existFrame(name, type))
  {
    std::fprintf(stderr, "the model has no link (BODY frame) %s\n", name);
    return false;
  }
  frame = model.getFrameId(name, type);
  return true;
}

template <class Call>
void time_rounds(const char * name, long S, int rounds, double target, double & sink, Call call)
{
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
    bench_place_code();  // each round on other physical pages, as the C loops' (placement.h)
    const auto t0 = Clock::now();
    for (long r = 0; r < reps; ++r)
      for (long i = 0; i < S; ++i)
        sink += call(i);
    std::printf(" %.6f", 1e6 * seconds_since(t0) / (double)(reps * S));
  }
  std::printf("\n");
}

}  // namespace timing

// Pinocchio's constrained dynamics timed in a C++ loop, for benchmarks/contacts.py.
//
// Usage: pinocchio_contacts MODEL STATES CONTACTS ROUNDS TARGET_MS
//
//   MODEL     a pinocchio::Model saved by Python's `model.saveToBinary`
//   STATES    raw float64 file, S states of [q (nq), v (nv), a (nv), tau (nv)] (timing.hpp)
//   CONTACTS  LINK:3 or LINK:6 (a BODY frame, CONTACT_3D or CONTACT_6D, LOCAL_WORLD_ALIGNED), comma-separated
//   ROUNDS    timed rounds per operation; each prints one time
//   TARGET_MS each timed round loops over all S states, repeated until it lasts about this long
//
// Prints one line per operation: "<op> <us per call, round 1> <round 2> ...", for
//   contact_dynamics              constraintDynamics(q, v, tau) (initConstraintDynamics once, before)
//   impulse_dynamics              impulseDynamics(q, v), restitution 0
//   contact_dynamics_derivatives  constraintDynamics + computeConstraintDynamicsDerivatives
//   impulse_dynamics_derivatives  impulseDynamics + computeImpulseDynamicsDerivatives
// Every contact active, no damping (ProximalSettings with one iteration: the exact solve). The
// algorithms are instantiated from the headers with this file's flags.

#include <cstdio>
#include <cstring>
#include <string>

#include <pinocchio/algorithm/constrained-dynamics.hpp>
#include <pinocchio/algorithm/constrained-dynamics-derivatives.hpp>
#include <pinocchio/algorithm/impulse-dynamics.hpp>
#include <pinocchio/algorithm/impulse-dynamics-derivatives.hpp>
#include <pinocchio/multibody.hpp>
#include <pinocchio/serialization.hpp>

#include "timing.hpp"

int main(int argc, char ** argv)
{
  timing::Command command;
  if (!timing::parse_command(argc, argv, "CONTACTS", command))
    return 2;
  pinocchio::Model model;
  timing::States st;
  if (!timing::load(command, model, st))
    return 2;
  typedef pinocchio::RigidConstraintModel Contact;
  PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(Contact) contacts;
  const std::string spec(command.arg);
  std::size_t start = 0;
  while (start < spec.size())
  {
    std::size_t end = spec.find(',', start);
    if (end == std::string::npos)
      end = spec.size();
    const std::string item = spec.substr(start, end - start);
    const std::size_t colon = item.rfind(':');
    const std::string link = item.substr(0, colon);
    std::size_t frame = 0;
    if (colon == std::string::npos || !timing::find_link(model, link.c_str(), pinocchio::BODY, frame))
      return 2;
    const pinocchio::Frame & f = model.frames[frame];
    contacts.push_back(Contact(item.substr(colon + 1) == "6" ? pinocchio::CONTACT_6D : pinocchio::CONTACT_3D, model,
                               f.parentJoint, f.placement, pinocchio::LOCAL_WORLD_ALIGNED));
    start = end + 1;
  }
  PINOCCHIO_STD_VECTOR_WITH_EIGEN_ALLOCATOR(pinocchio::RigidConstraintData) datas;
  for (const auto & c : contacts)
    datas.push_back(pinocchio::RigidConstraintData(c));
  pinocchio::Data data(model);
  pinocchio::initConstraintDynamics(model, data, contacts, datas);
  pinocchio::ProximalSettings prox(1e-12, 0.0, 1);
  const int nv = model.nv;
  double sink = 0.0;
  auto bench = [&](const char * name, auto call) {
    timing::time_rounds(name, st.size, command.rounds, command.target, sink, call);
  };
  bench("contact_dynamics", [&](long i) {
    return pinocchio::constraintDynamics(model, data, st.q[i], st.v[i], st.tau[i], contacts, datas, prox)(nv - 1);
  });
  bench("impulse_dynamics", [&](long i) {
    return pinocchio::impulseDynamics(model, data, st.q[i], st.v[i], contacts, datas, 0.0, prox)(nv - 1);
  });
  bench("contact_dynamics_derivatives", [&](long i) {
    pinocchio::constraintDynamics(model, data, st.q[i], st.v[i], st.tau[i], contacts, datas, prox);
    pinocchio::computeConstraintDynamicsDerivatives(model, data, contacts, datas, prox);
    return data.ddq_dq(0, nv - 1);
  });
  bench("impulse_dynamics_derivatives", [&](long i) {
    pinocchio::impulseDynamics(model, data, st.q[i], st.v[i], contacts, datas, 0.0, prox);
    pinocchio::computeImpulseDynamicsDerivatives(model, data, contacts, datas, 0.0, prox);
    return data.ddq_dq(0, nv - 1);
  });
  std::fprintf(stderr, "%.17g\n", sink);
  return 0;
}

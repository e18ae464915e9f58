// Pinocchio's own code generation (CppADCodeGen) of one robot's algorithms, for
// benchmarks/codegen_peer.py.
//
// Usage: pinocchio_codegen MODEL FOLDER
//
//   MODEL   a pinocchio::Model saved by Python's `model.saveToBinary`
//   FOLDER  receives the C sources CppADCodeGen writes for each algorithm
//
// Tapes, with Pinocchio's own `CodeGen*` classes (pinocchio/codegen/cppadcg-algo.hpp),
// rnea(q, v, a), crba(q) (upper triangle), aba(q, v, tau), computeRNEADerivatives(q, v, a)
// and computeABADerivatives(q, v, tau), and saves each one's forward (zero-order) function
// only: `CodeGenRNEA` and `CodeGenABA` also emit an AD Jacobian by default, which is not
// what is compared. The C functions are named `pin_<op>_forward_zero` (CppADCodeGen's
// `<model>_forward_zero`); this program never compiles them (the Python side does, with
// the same flags as rbdgen's C).

#include <cstdio>
#include <fstream>
#include <string>

#include <pinocchio/codegen/cppadcg-algo.hpp>
#include <pinocchio/serialization.hpp>

namespace
{

// Each `CodeGen*` class with its forward function only, its sources saved into a folder.
template<typename CodeGen>
struct ForwardOnly : CodeGen
{
  ForwardOnly(const pinocchio::Model & model, const std::string & name)
  : CodeGen(model, name, name)
  {
    this->build_jacobian = false;
  }

  // Writes the C files CppADCodeGen makes of the taped function into ``folder``.
  void save(const std::string & folder)
  {
    this->initLib();
    CppAD::cg::SaveFilesModelLibraryProcessor<double>::saveLibrarySourcesTo(*this->libcgen_ptr, folder);
  }
};

template<typename CodeGen>
bool tape(const pinocchio::Model & model, const char * name, const std::string & folder)
{
  std::fprintf(stderr, "  taping %s\n", name);
  ForwardOnly<CodeGen> generator(model, name);
  generator.save(folder);
  const std::string probe = folder + "/" + name + "_forward_zero.c";
  if (std::ifstream(probe))
    return true;
  std::fprintf(stderr, "%s was not written\n", probe.c_str());
  return false;
}

} // namespace

int main(int argc, char ** argv)
{
  if (argc != 3)
  {
    std::fprintf(stderr, "usage: %s MODEL FOLDER\n", argv[0]);
    return 2;
  }
  pinocchio::Model model;
  model.loadFromBinary(argv[1]);
  const std::string folder = argv[2];
  const bool ok = tape<pinocchio::CodeGenRNEA<double>>(model, "pin_inverse_dynamics", folder)
                  && tape<pinocchio::CodeGenCRBA<double>>(model, "pin_mass_matrix", folder)
                  && tape<pinocchio::CodeGenABA<double>>(model, "pin_forward_dynamics", folder)
                  && tape<pinocchio::CodeGenRNEADerivatives<double>>(model, "pin_inverse_dynamics_derivatives", folder)
                  && tape<pinocchio::CodeGenABADerivatives<double>>(model, "pin_forward_dynamics_derivatives", folder);
  return ok ? 0 : 1;
}

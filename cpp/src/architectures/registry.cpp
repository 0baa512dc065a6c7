// Every architecture the engine runs: each is one file of this folder, which defines a function
// of the file's name returning its spec. The build lists the files in architecture_list.inc
// (CMakeLists.txt), one ARCHITECTURE(name) line each, in the order of their names: adding an
// architecture is adding its file. Lookups by model_type.
#include "multihead/architecture.h"

namespace multihead {
namespace architectures {

#define ARCHITECTURE(name) const ArchitectureSpec& name();
#include "architecture_list.inc"
#undef ARCHITECTURE

}  // namespace architectures

const std::vector<const ArchitectureSpec*>& all_architectures() {
  static const std::vector<const ArchitectureSpec*> all = {
#define ARCHITECTURE(name) &architectures::name(),
#include "architecture_list.inc"
#undef ARCHITECTURE
  };
  return all;
}

const ArchitectureSpec* find_architecture(const std::string& model_type) {
  for (const ArchitectureSpec* spec : all_architectures()) {
    if (model_type == spec->model_type) return spec;
  }
  return nullptr;
}

std::string architecture_list() {
  std::string list;
  for (const ArchitectureSpec* spec : all_architectures()) list += (list.empty() ? "" : ", ") + std::string(spec->model_type);
  return list;
}

}  // namespace multihead

// Every architecture the engine runs: each is defined in its own file of this folder, declared
// here, and listed once below. Adding one is a file and these two lines. Lookups by model_type.
#include "multihead/architecture.h"

namespace multihead {
namespace architectures {

const ArchitectureSpec& bert();
const ArchitectureSpec& distilbert();
const ArchitectureSpec& roberta();
const ArchitectureSpec& gpt2();
const ArchitectureSpec& gpt_neox();
const ArchitectureSpec& llama();
const ArchitectureSpec& mistral();
const ArchitectureSpec& qwen2();
const ArchitectureSpec& qwen3();
const ArchitectureSpec& gemma3();

}  // namespace architectures

const std::vector<const ArchitectureSpec*>& all_architectures() {
  static const std::vector<const ArchitectureSpec*> all = {
      &architectures::bert(),
      &architectures::distilbert(),
      &architectures::roberta(),
      &architectures::gpt2(),
      &architectures::gpt_neox(),
      &architectures::llama(),
      &architectures::mistral(),
      &architectures::qwen2(),
      &architectures::qwen3(),
      &architectures::gemma3(),
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

// What Llama and the decoders modelled on it (Qwen2, Qwen3, Mistral, Gemma 3) share: LlamaForCausalLM's module
// names, the config fields every one of them reads, and the file's extras to skip. Defined in
// llama.cpp; used by each family member's file.
#pragma once

#include <string>
#include <vector>

#include "multihead/architecture.h"

namespace multihead::architectures {

// LlamaModel's body under model.*: embed_tokens, per layer input_layernorm, self_attn's
// q/k/v/o_proj (with biases on q, k and v when `qkv_bias`), post_attention_layernorm (the
// pre-MLP norm), mlp's gate/up/down_proj, then the final norm; and lm_head.weight, the head.
std::vector<TensorRule> llama_tensors(bool qkv_bias);
// LlamaConfig's integer fields: num_key_value_heads defaults to the heads, head_dim to
// hidden_size / heads, max_position_embeddings to `positions`.
std::vector<IntField> llama_ints(int positions);
// `ints` with `member`'s defaults replaced: `fallback` when absent, `if_null` when null.
std::vector<IntField> with_default(std::vector<IntField> ints, int ModelConfig::*member, int fallback, int if_null);
// rope_theta (default 10000) and partial_rotary_factor.
const RopeFields* llama_rope();
// The whole of LlamaForCausalLM's spec, under another model_type and name, with
// max_position_embeddings defaulting to `positions`: pre-norm RMSNorm blocks, a gated SiLU MLP,
// RoPE, a causal mask, an LM head tied only when config says so, llama_tensors(false), and the
// rotary_emb.inv_freq buffers older files saved skipped (RoPE is computed from the config). Each
// family member's file changes what differs.
ArchitectureSpec llama_like(const char* model_type, const char* name, int positions);

}  // namespace multihead::architectures

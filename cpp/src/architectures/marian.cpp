// Marian (model_type "marian": Helsinki-NLP's opus-mt models), as transformers' modeling_marian.py
// names its modules: BART's blocks and names (bart_family.h) with sinusoidal positions that are
// not stored, embeddings scaled by √d_model (scale_embedding), no norm after the embeddings, SiLU
// ("swish"), and a non-zero final_logits_bias.
#include "bart_family.h"
#include "multihead/config.h"

namespace multihead::architectures {

const ArchitectureSpec& marian() {
  static const ArchitectureSpec spec{
      .model_type = "marian",
      .name = "Marian",
      .block = Block::post_norm,
      .norm = Norm::layer_norm,
      .mlp = Mlp::dense,
      .positions = Positions::sinusoidal,
      .mask = Mask::bidirectional,
      .lm_head = LmHead::tied,
      .embedding_scale = EmbeddingScale::from_config,
      .stacks = Stacks::encoder_decoder,
      .config = {.ints = bart_ints(58101), .activation = "activation_function", .activation_fallback = "gelu", .eps = nullptr,
                 .eps_fallback = 1e-5,
                 // Separate decoder embeddings (a target vocabulary of its own) are another model.
                 .required = {{"share_encoder_decoder_embeddings", "true"}},
                 .equal = bart_equal_sizes()},
      .prefixes = {"model."},
      .tensors = bart_body(),
      .duplicates = bart_duplicates(),
      // The computed positions, where a file keeps them, and the tied head's copy.
      .skipped = {"encoder.embed_positions.weight", "decoder.embed_positions.weight", "lm_head.weight"},
  };
  return spec;
}

}  // namespace multihead::architectures

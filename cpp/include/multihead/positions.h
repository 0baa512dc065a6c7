// The position schemes that are computed rather than stored: Marian's sinusoidal table and T5's
// relative position buckets (architecture.h's Positions::sinusoidal and Positions::relative).
// Each follows transformers' code to the float: the buckets' logarithm is taken in float32, as
// PyTorch takes it, because the bucket boundaries fall on values that rounding decides.
#pragma once

#include <cstdint>
#include <vector>

namespace multihead {

// The sinusoidal table (rows, d) into out, row-major, as MarianSinusoidalPositionalEmbedding
// writes it: row p, column c of the first half (⌈d/2⌉ columns) is sin(p / 10000^(2c/d)), column c
// of the second half cos(p / 10000^(2c/d)); not interleaved; in double, then rounded to float.
void sinusoidal_positions(int rows, int d, float* out);

// T5's bucket of a key at `relative` = key position − query position: exact offsets below half
// the buckets (of each direction's half, bidirectional), logarithmic bins up to max_distance,
// the last bucket beyond. Bidirectional (the encoder): later keys take the upper half. Causal (the
// decoder): later keys, which the mask hides anyway, share bucket 0 with the query's own.
int relative_position_bucket(int relative, bool bidirectional, int num_buckets, int max_distance);

// The score bias of every head for n_q queries at positions first_query … and n_k keys at 0 …:
// bias (h, n_q, n_k) with bias[i][r][j] = table[bucket(j − (first_query + r)), i], table
// (buckets, h) row-major as the checkpoint stores relative_attention_bias.
std::vector<float> relative_bias(const float* table, int heads, int n_q, int n_k, int first_query, bool bidirectional, int num_buckets,
                                 int max_distance);

}  // namespace multihead

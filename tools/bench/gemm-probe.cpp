// npm run bench's GEMM probe: the SIMD build's F32 and BF16-weight GEMM kernels A/B on the shapes
// of one SmolLM2-135M layer (width 576, 3 key/value heads of 64, MLP 1536) at 128 and 512 tokens,
// and at one token (a decode step). The kernels take turns round by round; each round times enough
// calls for about 0.1 s per kernel. Prints one JSON object: per shape the median GFLOP/s of each
// and the median of the per-round ratios bf16/f32 (of GFLOP/s), and the same for a whole layer's
// seven GEMMs at each token count. Built by `node tools/build.js gemm-probe` into build/wasm.
// `gemm-probe.js bert` instead times the F32 GEMM alone on BERT-base's shapes (width 768, MLP 3072)
// at 128 and 512 tokens: per shape its median GFLOP/s, and a layer's six GEMMs together.
// `gemm-probe.js stream BYTES` instead times reading BYTES of WASM memory once (a SIMD sum over a
// buffer that size, the median of 7 after one untimed pass): the floor under a decode step, which
// reads every weight once. Prints { "bytes", "ms" }.
#include <emscripten.h>
#include <wasm_simd128.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "multihead/kernels.h"

using namespace multihead;

namespace {

struct Shape {
  const char* what;
  size_t n, k;  // a weight of `k` inputs and `n` outputs
};
constexpr Shape kLayer[] = {{"q_proj", 576, 576}, {"k_proj", 192, 576}, {"v_proj", 192, 576}, {"o_proj", 576, 576},
                            {"gate_proj", 1536, 576}, {"up_proj", 1536, 576}, {"down_proj", 576, 1536}};
constexpr int kRounds = 11;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Seeded values; a bfloat16 weight and the float32 it stands for, so both kernels do the same sums.
struct Operands {
  std::vector<float> a, packed;
  std::vector<uint16_t> packed_bf16;
  Operands(size_t m, size_t n, size_t k) : a(m * k), packed(kernels::packed_size(k, n)), packed_bf16(kernels::packed_size(k, n)) {
    uint32_t state = 1;
    auto next = [&] { return (state = state * 1664525u + 1013904223u) / 4294967296.0f - 0.5f; };
    for (float& x : a) x = next();
    std::vector<uint16_t> bits(k * n);
    std::vector<float> wide(k * n);
    for (size_t i = 0; i < bits.size(); ++i) {
      const float x = next();
      uint32_t u;
      std::memcpy(&u, &x, sizeof u);
      bits[i] = uint16_t(u >> 16);
      wide[i] = kernels::bf16_to_f32(bits[i]);
    }
    kernels::pack_b(k, n, wide.data(), n, 1, 1.0f, packed.data());
    kernels::pack_b_bf16(k, n, bits.data(), n, 1, packed_bf16.data());
  }
};

}  // namespace

// The median time to sum `bytes` of memory, four f32x4 accumulators.
int stream(double bytes) {
  std::vector<float> buffer(size_t(bytes / 4) / 16 * 16, 1.0f);
  std::vector<double> times;
  float sink = 0;
  for (int round = 0; round < 8; ++round) {
    const double start = emscripten_get_now();
    v128_t acc[4] = {wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0), wasm_f32x4_splat(0)};
    for (size_t i = 0; i < buffer.size(); i += 16) {
      for (size_t a = 0; a < 4; ++a) acc[a] = wasm_f32x4_add(acc[a], wasm_v128_load(buffer.data() + i + 4 * a));
    }
    const v128_t sum = wasm_f32x4_add(wasm_f32x4_add(acc[0], acc[1]), wasm_f32x4_add(acc[2], acc[3]));
    sink += wasm_f32x4_extract_lane(sum, 0);
    if (round > 0) times.push_back(emscripten_get_now() - start);
  }
  std::printf("{\"bytes\":%.0f,\"ms\":%.3f,\"sum\":%.0f}\n", double(buffer.size()) * 4, median(times), double(sink));
  return 0;
}

// BERT-base's GEMMs: Q, K, V and the output (each 768 × 768), the MLP's two.
constexpr Shape kBertLayer[] = {{"768x768 (q, k, v, o)", 768, 768}, {"3072x768 (MLP in)", 3072, 768}, {"768x3072 (MLP out)", 768, 3072}};
constexpr int kBertCount[] = {4, 1, 1};  // how many of each a layer has

int bert() {
  const kernels::KernelSet& set = kernels::active_kernels();
  std::printf("{\"kernels\":\"%s\",\"shapes\":[", set.name);
  bool first = true;
  for (size_t m : {128, 512}) {
    double layer_flops = 0, layer_ms = 0;
    for (size_t s = 0; s < std::size(kBertLayer); ++s) {
      const Shape& shape = kBertLayer[s];
      Operands o(m, shape.n, shape.k);
      std::vector<float> c(m * shape.n);
      const double flops = 2.0 * m * shape.n * shape.k;
      const int calls = std::max(1, int(4e9 / flops));
      auto f32 = [&] {
        set.gemm(m, shape.n, shape.k, o.a.data(), shape.k, o.packed.data(), kernels::panel_stride(shape.k), nullptr, c.data(), shape.n);
      };
      f32();  // warm-up
      std::vector<double> times(kRounds);
      for (int r = 0; r < kRounds; ++r) {
        const double start = emscripten_get_now();
        for (int i = 0; i < calls; ++i) f32();
        times[r] = (emscripten_get_now() - start) / calls;
      }
      const double ms = median(times);
      layer_flops += kBertCount[s] * flops, layer_ms += kBertCount[s] * ms;
      std::printf("%s{\"m\":%zu,\"what\":\"%s\",\"gflops\":%.2f}", first ? "" : ",", m, shape.what, flops / ms / 1e6);
      first = false;
    }
    std::printf(",{\"m\":%zu,\"what\":\"layer\",\"gflops\":%.2f}", m, layer_flops / layer_ms / 1e6);
  }
  std::printf("]}\n");
  return 0;
}

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "stream") return stream(std::stod(argv[2]));
  if (argc == 2 && std::string(argv[1]) == "bert") return bert();
  const kernels::KernelSet& set = kernels::active_kernels();
  std::printf("{\"kernels\":\"%s\",\"shapes\":[", set.name);
  bool first = true;
  for (size_t m : {128, 512, 1}) {
    std::vector<double> layer_f32(kRounds), layer_bf16(kRounds);
    for (const Shape& s : kLayer) {
      Operands o(m, s.n, s.k);
      std::vector<float> c(m * s.n);
      const double flops = 2.0 * m * s.n * s.k;
      const int calls = std::max(1, int(4e9 / flops));  // about 0.1 s at 40 GFLOP/s
      auto time = [&](auto&& call) {
        const double start = emscripten_get_now();
        for (int i = 0; i < calls; ++i) call();
        return (emscripten_get_now() - start) / calls;
      };
      auto f32 = [&] { set.gemm(m, s.n, s.k, o.a.data(), s.k, o.packed.data(), kernels::panel_stride(s.k), nullptr, c.data(), s.n); };
      auto bf16 = [&] {
        set.gemm_bf16(m, s.n, s.k, o.a.data(), s.k, o.packed_bf16.data(), kernels::panel_stride(s.k), nullptr, c.data(), s.n);
      };
      time(f32), time(bf16);  // warm-up
      std::vector<double> t32(kRounds), t16(kRounds), ratio(kRounds);
      for (int r = 0; r < kRounds; ++r) {
        if (r % 2 == 0) {
          t32[r] = time(f32), t16[r] = time(bf16);
        } else {
          t16[r] = time(bf16), t32[r] = time(f32);
        }
        ratio[r] = t32[r] / t16[r];
        layer_f32[r] += t32[r], layer_bf16[r] += t16[r];
      }
      std::printf("%s{\"m\":%zu,\"what\":\"%s\",\"n\":%zu,\"k\":%zu,\"f32Gflops\":%.2f,\"bf16Gflops\":%.2f,\"ratio\":%.4f}",
                  first ? "" : ",", m, s.what, s.n, s.k, flops / median(t32) / 1e6, flops / median(t16) / 1e6, median(ratio));
      first = false;
    }
    std::vector<double> ratio(kRounds);
    for (int r = 0; r < kRounds; ++r) ratio[r] = layer_f32[r] / layer_bf16[r];
    std::printf(",{\"m\":%zu,\"what\":\"layer\",\"ratio\":%.4f}", m, median(ratio));
  }
  std::printf("]}\n");
}

// The thread pool (parallel.h) and what runs on it: every task runs once, errors are the lowest
// task's, and a layer, a model and its logits give the same bits at every thread count. Natively
// these use real threads; the WASM test runners are single-threaded builds, where set_threads
// reports 1 and the comparisons hold trivially (the threaded WASM build is tested from Jest).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "multihead/attention.h"
#include "multihead/kernels.h"
#include "multihead/model.h"
#include "multihead/parallel.h"
#include "safetensors_writer.h"

namespace multihead::testing {
namespace {

constexpr int kMostThreads = 4;

// Uses `count` threads for its lifetime, then one again, so no other test sees the pool.
struct Threads {
  explicit Threads(int count) : got(set_threads(count)) {}
  ~Threads() { set_threads(1); }
  int got;
};

bool same_bits(const float* a, const float* b, size_t count) { return std::memcmp(a, b, count * sizeof(float)) == 0; }

template <class M>
bool same_bits(const M& a, const M& b) {
  return a.size() == b.size() && same_bits(a.data(), b.data(), size_t(a.size()));
}

std::vector<float> wave(size_t count, double step, float scale = 1.0f) {
  std::vector<float> out(count);
  for (size_t i = 0; i < count; ++i) out[i] = scale * float(std::sin(double(i) * step + 0.3));
  return out;
}

TEST(ParallelFor, RunsEveryTaskOnceOnAThreadItNames) {
  for (int t = 1; t <= kMostThreads; ++t) {
    Threads threads(t);
    for (size_t count : {0, 1, 2, 7, 100}) {
      std::vector<std::atomic<int>> runs(count);
      std::atomic<bool> bad_thread{false};
      parallel_for(count, kParallelWork, [&](size_t i, size_t thread) {
        runs[i]++;
        if (thread >= size_t(thread_count())) bad_thread = true;
      });
      for (size_t i = 0; i < count; ++i) EXPECT_EQ(runs[i], 1) << "task " << i << " with " << t << " threads";
      EXPECT_FALSE(bad_thread);
    }
  }
}

// Regression: a worker started after some loops had run woke at once for a loop it never joined,
// and counted itself done twice; the caller of a later loop then returned before its tasks had all
// run, or waited for good (a hang seen once in CI). The race is timing's, so it is tried many times,
// and a watchdog turns a hang into a failure.
TEST(ParallelFor, WorkersStartedAfterEarlierLoopsJoinOnlyTheNextOne) {
  std::atomic<int> early{0};
  const auto rounds = [&] {
    for (int round = 0; round < 3000; ++round) {
      Threads threads(2 + round % 3);
      // The first loop starts at varied moments of the new workers' start.
      const auto start = std::chrono::steady_clock::now();
      while (std::chrono::steady_clock::now() - start < std::chrono::microseconds(round % 60)) {
      }
      for (int loop = 0; loop < 4; ++loop) {
        std::vector<std::atomic<int>> runs(16);
        parallel_for(runs.size(), kParallelWork, [&](size_t i, size_t) { runs[i]++; });
        for (auto& r : runs) early += r != 1;
      }
    }
  };
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  rounds();  // one thread, no pool: nothing to wait for
#else
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread runner([&] {
    rounds();
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    finished.notify_one();
  });
  std::unique_lock<std::mutex> lock(mutex);
  if (!finished.wait_for(lock, std::chrono::seconds(30), [&] { return done; })) {
    std::fprintf(stderr, "a loop's caller waited for good\n");
    std::abort();
  }
  lock.unlock();
  runner.join();
#endif
  EXPECT_EQ(early, 0) << "loops that returned before all their tasks had run";
}

TEST(ParallelFor, UsesTheThreadsAskedForWhereTheBuildHasThem) {
  Threads threads(3);
#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
  EXPECT_EQ(threads.got, 1);
#else
  EXPECT_EQ(threads.got, 3);
#endif
  EXPECT_EQ(thread_count(), threads.got);
}

TEST(ParallelFor, RethrowsTheLowestFailingTaskAfterRunningThemAll) {
  for (int t = 1; t <= kMostThreads; ++t) {
    Threads threads(t);
    std::atomic<int> ran{0};
    try {
      parallel_for(20, kParallelWork, [&](size_t i, size_t) {
        ran++;
        if (i == 13 || i == 5 || i == 17) throw std::runtime_error("task " + std::to_string(i));
      });
      ADD_FAILURE() << "no exception";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "task 5") << t << " threads";
    }
    // One thread stops at the first error; more threads run every task, as documented.
    if (thread_count() > 1) EXPECT_EQ(ran, 20);
  }
}

TEST(ParallelFor, ALoopInsideATaskRunsInThatTask) {
  Threads threads(kMostThreads);
  std::vector<std::atomic<int>> runs(8 * 8);
  parallel_for(8, kParallelWork, [&](size_t i, size_t outer) {
    parallel_for(8, kParallelWork, [&](size_t j, size_t inner) {
      runs[i * 8 + j]++;
      EXPECT_EQ(inner, 0u);  // inline: the task's own thread, named 0 for its scratch
      (void)outer;
    });
  });
  for (auto& r : runs) EXPECT_EQ(r, 1);
}

TEST(ParallelPanels, CoversTheColumnsOnceInWholePanelsItNumbers) {
  const size_t w = kernels::kPanelWidth;
  for (int t = 1; t <= kMostThreads; ++t) {
    Threads threads(t);
    for (size_t n : {size_t{0}, size_t{1}, w - 1, w, w + 1, 7 * w + 3, 64 * w}) {
      for (size_t grain : {1, 4}) {
        std::vector<std::atomic<int>> covered(n);
        std::atomic<bool> misplaced{false};
        parallel_panels(n, grain, [&](size_t j0, size_t j1, size_t panel) {
          if (j0 != panel * w || j1 <= j0 || j1 > n || (j1 % w != 0 && j1 != n)) misplaced = true;
          for (size_t j = j0; j < std::min(j1, n); ++j) covered[j]++;
        });
        EXPECT_FALSE(misplaced) << n << " columns, grain " << grain << ", " << t << " threads";
        for (size_t j = 0; j < n; ++j) EXPECT_EQ(covered[j], 1) << "column " << j << " of " << n;
      }
    }
  }
}

TEST(ParallelGemm, GivesTheKernelsBitsAtEveryThreadCountAndShape) {
  const auto& k = kernels::active_kernels();
  // Columns below, at and past panels and thread splits; rows odd and even; one column (the LM head).
  for (const auto [m, n, kk] : std::vector<std::array<size_t, 3>>{{300, 1, 900}, {64, 200, 64}, {65, 33, 130}, {7, 768, 64}, {129, 47, 80}}) {
    const std::vector<float> a = wave(m * kk, 0.37), b = wave(kk * n, 0.11), bias = wave(n, 0.5);
    std::vector<float> packed(kernels::packed_size(kk, n));
    kernels::pack_b(kk, n, b.data(), n, 1, 1.0f, packed.data());
    std::vector<float> expected(m * n);
    k.gemm(m, n, kk, a.data(), kk, packed.data(), kernels::panel_stride(kk), bias.data(), expected.data(), n);
    for (int t = 1; t <= kMostThreads; ++t) {
      Threads threads(t);
      std::vector<float> c(m * n, -1.0f);
      parallel_gemm(k.gemm, m, n, kk, a.data(), kk, packed.data(), kernels::panel_stride(kk), bias.data(), c.data(), n);
      EXPECT_TRUE(same_bits(c.data(), expected.data(), m * n)) << m << "×" << n << "×" << kk << ", " << t << " threads";
    }
  }
}

// The calls a GEMM made to the kernel below, and the widest: a product split over the threads is
// several calls, each of some of the columns.
std::atomic<int> gemm_calls{0};
std::atomic<size_t> widest_call{0};
void counting_gemm(size_t, size_t n, size_t, const float*, size_t, const float*, size_t, const float*, float*, size_t) {
  gemm_calls++;
  widest_call = std::max(widest_call.load(), n);
}
void counting_gemm_bf16(size_t m, size_t n, size_t k, const float*, size_t, const uint16_t*, size_t, const float*, float*, size_t) {
  counting_gemm(m, n, k, nullptr, 0, nullptr, 0, nullptr, nullptr, 0);
}

TEST(ParallelGemm, ASingleRowSplitsOnlyWeightsOfTwoMegabytesOrMore) {
  // A decode step's row reads each weight once: below 2 MiB of them, waking a worker costs more
  // than it saves. Each product here is past kParallelWork multiply-adds.
  Threads threads(2);
  if (threads.got < 2) GTEST_SKIP() << "this build has no threads";
  struct Case { size_t m, n, k; bool bf16; bool split; };
  for (const Case c : {Case{1, 768, 512, false, false}, Case{1, 1536, 576, true, false}, Case{1, 1024, 1024, false, true},
                       Case{1, 2048, 1024, true, true}, Case{2, 768, 512, false, true}}) {
    ASSERT_GE(c.m * c.n * c.k, kParallelWork);
    gemm_calls = 0;
    widest_call = 0;
    // The kernel reads nothing: B's one value stands for every panel (a stride of 0).
    std::vector<float> a(c.m * c.k), b(1), out(c.m * c.n);
    const std::vector<uint16_t> halves(1);
    if (c.bf16) {
      parallel_gemm(counting_gemm_bf16, c.m, c.n, c.k, a.data(), c.k, halves.data(), 0, nullptr, out.data(), c.n);
    } else {
      parallel_gemm(counting_gemm, c.m, c.n, c.k, a.data(), c.k, b.data(), 0, nullptr, out.data(), c.n);
    }
    const std::string what = std::to_string(c.m) + "×" + std::to_string(c.n) + "×" + std::to_string(c.k) + (c.bf16 ? " bf16" : " f32");
    if (c.split) {
      EXPECT_GT(gemm_calls, 1) << what;
    } else {
      EXPECT_EQ(gemm_calls, 1) << what;
      EXPECT_EQ(widest_call, c.n) << what;
    }
  }
}

TEST(ParallelAttention, EveryThreadCountGivesTheSameTraceBits) {
  // Four blocks of query rows per head, the last one short; and fewer tokens than one block, wide
  // enough to be split (each thread's scratch rows then hold fewer than a block).
  for (const auto [d, heads, n] : std::vector<std::array<int, 3>>{{64, 4, 100}, {512, 8, 20}})
  for (bool causal : {false, true}) {
    const AttentionConfig config = multi_head_config(d, heads, causal);
    const MultiHeadAttention layer(config, random_attention_weights(config, 7));
    const std::vector<float> x = wave(size_t(n) * size_t(d), 0.013);
    std::vector<uint8_t> mask(n, 1);
    mask[3] = mask[n - 5] = 0;
    const AttentionTrace one = layer.forward(x, n, mask);
    const Matrix one_output = layer.forward_output(x, n, mask);
    for (int t = 2; t <= kMostThreads; ++t) {
      Threads threads(t);
      const AttentionTrace many = layer.forward(x, n, mask);
      EXPECT_TRUE(same_bits(many.q, one.q) && same_bits(many.k, one.k) && same_bits(many.v, one.v));
      EXPECT_TRUE(same_bits(many.scores, one.scores)) << t << " threads, causal " << causal;
      EXPECT_TRUE(same_bits(many.weights, one.weights)) << t << " threads, causal " << causal;
      EXPECT_TRUE(same_bits(many.concat, one.concat) && same_bits(many.output, one.output));
      EXPECT_TRUE(same_bits(layer.forward_output(x, n, mask), one_output)) << "without a trace, " << t << " threads";
    }
  }
}

TEST(ParallelAttention, AnOverflowNamesTheFirstHeadWhateverTheThreadCount) {
  const AttentionConfig config = multi_head_config(64, 4, false);
  AttentionWeights w = random_attention_weights(config, 3);
  // Heads 1 and 3 get huge queries, so their scores overflow; head 1 is the one to name.
  for (size_t r = 0; r < 64; ++r) {
    for (size_t c : {16u, 17u, 48u, 49u}) w.wq[r * 64 + c] = 1e19f;
  }
  for (size_t r = 0; r < 64; ++r) {
    for (size_t c : {16u, 17u, 48u, 49u}) w.wk[r * 64 + c] = 1e19f;
  }
  const MultiHeadAttention layer(config, w);
  const std::vector<float> x = wave(100 * 64, 0.013, 1.0f);
  for (int t = 1; t <= kMostThreads; ++t) {
    Threads threads(t);
    try {
      layer.forward(x, 100);
      ADD_FAILURE() << "no overflow with " << t << " threads";
    } catch (const OverflowError& e) {
      EXPECT_EQ(std::string(e.what()), "attention: the scores of head 1 overflowed float32 (the input or the weights are too large)");
    }
    EXPECT_NO_THROW(MultiHeadAttention(config, random_attention_weights(config, 3)).forward(x, 100));
  }
}

// A model big enough that every step is split: d 64, ff 256, 3 layers, a vocabulary of 5000.
struct ModelCase {
  std::string name, config;
  std::vector<uint8_t> bytes;
};

std::vector<ModelCase> model_cases() {
  const BertSize size{5000, 64, 3, 256, 96, 2};
  std::map<std::string, TestTensor> bert = bert_tensors(size);
  add_transform_head(bert, size, "cls.predictions.transform.dense", "cls.predictions.transform.LayerNorm", "cls.predictions.bias");
  return {{"bert", bert_config_json(size, 4), safetensors_bytes(bert)},
          {"gpt2", gpt2_config_json(size, 4), safetensors_bytes(gpt2_tensors(size))}};
}

TEST(ParallelModel, EveryThreadCountGivesTheSameLayersHiddenStatesAndLogits) {
  for (const ModelCase& c : model_cases()) {
    const Model model(parse_model_config(c.config), SafetensorsFile(c.bytes));
    std::vector<int32_t> ids;
    for (int i = 0; i < 90; ++i) ids.push_back((i * 37 + 11) % 5000);
    std::vector<std::vector<float>> weights;
    const ModelRun one = model.run(ids, [&](Stack, int, const AttentionTrace& t) { weights.push_back(t.weights); });
    const std::vector<float> logits = model.logits(one.hidden.data() + 5 * 64);
    for (int t = 2; t <= kMostThreads; ++t) {
      Threads threads(t);
      size_t layer = 0;
      const ModelRun many = model.run(ids, [&](Stack, int, const AttentionTrace& tr) {
        EXPECT_TRUE(same_bits(tr.weights, weights[layer])) << c.name << " layer " << layer << ", " << t << " threads";
        ++layer;
      });
      EXPECT_EQ(layer, 3u);
      EXPECT_TRUE(same_bits(many.hidden, one.hidden)) << c.name << ", " << t << " threads";
      EXPECT_TRUE(same_bits(model.logits(many.hidden.data() + 5 * 64), logits)) << c.name << ", " << t << " threads";
    }
  }
}

}  // namespace
}  // namespace multihead::testing

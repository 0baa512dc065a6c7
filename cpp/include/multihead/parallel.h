// The engine's threads: one pool of worker threads beside the thread that calls the engine, and
// the ways a forward pass spreads work over them. Every split gives each output element to one
// thread, which computes it exactly as a single thread would: results do not depend on the
// thread count, bit for bit.
//
// Threads exist in native builds and in the WASM build linked with -pthread (its pool of Web
// Workers shares one SharedArrayBuffer). The single-threaded WASM builds run every task in the
// calling thread; set_threads() then reports 1.
//
// What it deliberately does not do: no work stealing or nested parallelism (a task that calls
// parallel_for runs that loop itself), no thread per call (the pool lives until set_threads
// changes it), and no allocation in worker threads (tasks write into buffers the caller made, so
// a worker never grows the WASM heap under the JavaScript views of the main thread).
#pragma once

#include <cstddef>
#include <functional>

#include "multihead/kernels.h"
#include "multihead/matrix.h"

namespace multihead {

// Uses `count` threads from now on, the calling one included: starts or stops workers to match.
// Returns the count in use, 1 where threads are unavailable. Call it only between passes, from
// the thread that runs the engine.
int set_threads(int count);
int thread_count();

// Loops whose work, in multiply-adds or comparable steps, is below this run in the calling
// thread: waking the workers would cost more than they save.
constexpr size_t kParallelWork = size_t{1} << 18;

// Runs task(i, thread) for every i in [0, count), spread over the threads when `work` (the whole
// loop's) reaches kParallelWork; `thread` (from 0 to thread_count() − 1) names the thread running
// it, for per-thread scratch. Returns once all ran. Every task runs even if one throws; then the
// exception of the lowest i is rethrown, so an error names the same step whatever the thread count.
void parallel_for(size_t count, size_t work, const std::function<void(size_t i, size_t thread)>& task);

// Splits [0, count) into contiguous ranges, a few per thread, and runs body(begin, end) on each,
// spread over the threads; `grain` is the smallest range worth a task of its own.
void parallel_ranges(size_t count, size_t grain, const std::function<void(size_t begin, size_t end)>& body);

// Splits `n` columns into ranges of whole kernels::kPanelWidth-wide panels, at least `grain` panels
// each, and runs body(j0, j1, panel) on each range: columns [j0, j1), of which j0 starts panel
// number `panel` of a packed operand (kernels::pack_b).
void parallel_panels(size_t n, size_t grain, const std::function<void(size_t j0, size_t j1, size_t panel)>& body);

// kernels::GemmFn `gemm`, C = A·B + bias (shapes as kernels.h), split over B's column panels, or
// over A's rows when B has fewer panels than there are threads (the LM head's single column).
// Small products run in the calling thread.
void parallel_gemm(kernels::GemmFn gemm, size_t m, size_t n, size_t k, const float* a, size_t lda,
                   const float* b_packed, size_t panel_stride, const float* bias, float* c, size_t ldc);
// The same with B's values bfloat16 (kernels::pack_b_bf16).
void parallel_gemm(kernels::Bf16GemmFn gemm, size_t m, size_t n, size_t k, const float* a, size_t lda,
                   const uint16_t* b_packed, size_t panel_stride, const float* bias, float* c, size_t ldc);
// C (m, n) = A (m, k)·B + bias with the active kernels, split over the threads: B (k, n) packed as
// floats (b_packed), or as bfloat16 when b_bf16 is not null.
void multiply(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed, const uint16_t* b_bf16,
              const float* bias, float* c, size_t ldc);
// C (m, b.cols) = A (m, b.rows)·B + bias with the active kernels, B packed as floats or bfloat16.
void multiply(size_t m, const float* a, size_t lda, const PackedMatrix& b, const float* bias, float* c, size_t ldc);

}  // namespace multihead

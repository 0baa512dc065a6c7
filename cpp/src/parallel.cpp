// The worker pool behind parallel.h: workers sleep on a condition variable until the caller posts
// a loop, take task indices from one atomic counter, and the caller takes part and then waits for
// them. In WASM a condition variable is a futex on shared memory (Atomics.wait and notify); on a
// browser's main thread, where Atomics.wait is not allowed, Emscripten spins instead.
#include "multihead/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace multihead {
namespace {

// parallel_ranges makes up to this many ranges per thread, which take them as they come free: a
// worker that wakes late, or runs while another process has its core, then leaves ranges to the
// others instead of holding up the loop with a fixed half of it.
constexpr size_t kRangesPerThread = 4;

#if defined(__EMSCRIPTEN__) && !defined(__EMSCRIPTEN_PTHREADS__)
constexpr bool kThreadsAvailable = false;  // a WASM build without -pthread cannot start a thread
#else
constexpr bool kThreadsAvailable = true;
#endif

// True in workers, and in the caller while it runs a loop: a parallel_for from inside a task runs
// inline, so tasks never wait on each other.
thread_local bool in_loop = false;

using Task = std::function<void(size_t, size_t)>;

class Pool {
 public:
  ~Pool() { resize(1); }

  int size() const { return int(workers_.size()) + 1; }

  void resize(int count) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    for (std::thread& w : workers_) w.join();
    workers_.clear();
    started_ = 0;
    stop_ = false;
    // A new worker starts from the loops already run: one that started from 0 after some had run
    // woke at once for a loop it never joined, and its extra count of busy_ could leave the caller
    // of a later loop waiting for good.
    for (int t = 1; t < count; ++t) workers_.emplace_back([this, t, seen = generation_] { work(size_t(t), seen); });
    // Wait until every worker runs: a WASM thread starts on its own time and allocates as it does,
    // which would otherwise show in the heap's use at some later moment, after the caller has read it.
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [&] { return started_ == workers_.size(); });
  }

  void run(size_t count, const Task& task) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      task_ = &task;
      count_ = count;
      next_ = 0;
      busy_ = workers_.size();
      error_ = nullptr;
      error_index_ = count;
      ++generation_;
    }
    wake_.notify_all();
    in_loop = true;
    drain(0);
    in_loop = false;
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    task_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work(size_t thread, unsigned long long seen) {
    in_loop = true;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ++started_;
    }
    done_.notify_all();
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
      }
      drain(thread);
      std::lock_guard<std::mutex> lock(mutex_);
      if (--busy_ == 0) done_.notify_one();
    }
  }

  // Takes tasks until none is left; keeps the error of the lowest task index.
  void drain(size_t thread) {
    for (size_t i; (i = next_.fetch_add(1)) < count_;) {
      try {
        (*task_)(i, thread);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (i < error_index_) {
          error_index_ = i;
          error_ = std::current_exception();
        }
      }
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  unsigned long long generation_ = 0;
  bool stop_ = false;
  const Task* task_ = nullptr;
  size_t count_ = 0;
  std::atomic<size_t> next_{0};
  size_t busy_ = 0;     // workers not yet finished with the current loop
  size_t started_ = 0;  // workers that have started running
  std::exception_ptr error_;
  size_t error_index_ = 0;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

int set_threads(int count) {
  if (!kThreadsAvailable) return 1;
  pool().resize(std::max(1, count));
  return pool().size();
}

int thread_count() { return kThreadsAvailable ? pool().size() : 1; }

void parallel_for(size_t count, size_t work, const Task& task) {
  if (count <= 1 || work < kParallelWork || in_loop || thread_count() == 1) {
    for (size_t i = 0; i < count; ++i) task(i, 0);
    return;
  }
  pool().run(count, task);
}

void parallel_ranges(size_t count, size_t grain, const std::function<void(size_t, size_t)>& body) {
  const size_t parts =
      std::max<size_t>(1, std::min(kRangesPerThread * size_t(thread_count()), count / std::max<size_t>(1, grain)));
  parallel_for(parts, kParallelWork, [&](size_t part, size_t) {
    const size_t begin = count * part / parts, end = count * (part + 1) / parts;
    if (begin < end) body(begin, end);
  });
}

void parallel_panels(size_t n, size_t grain, const std::function<void(size_t, size_t, size_t)>& body) {
  const size_t panels = (n + kernels::kPanelWidth - 1) / kernels::kPanelWidth;
  parallel_ranges(panels, grain, [&](size_t p0, size_t p1) {
    body(p0 * kernels::kPanelWidth, std::min(n, p1 * kernels::kPanelWidth), p0);
  });
}

namespace {

// A single row (a decode step's) reads each of B's values once for one multiply-add: its time is
// reading B. Below this many bytes of B that takes less than waking a worker and waiting for it.
// SmolLM2-135M's products are 0.2–1.8 MB of bfloat16: with each split once past kParallelWork, its
// decode steps took 1.12 times (per-round median; 0.93–1.26) as long on 2 threads as on 1 here,
// and 0.90 (0.85–0.94) with them in the caller. GPT-2's F32 products, 2.4–7 MB, gain from the split.
constexpr size_t kParallelRowBytes = size_t{2} << 20;

// parallel_gemm for B's values of type T (float, or bfloat16 bits), the kernel taking them.
template <class T, class Gemm>
void split_gemm(Gemm gemm, size_t m, size_t n, size_t k, const float* a, size_t lda, const T* b_packed, size_t panel_stride,
                const float* bias, float* c, size_t ldc) {
  const size_t panels = (n + kernels::kPanelWidth - 1) / kernels::kPanelWidth;
  const size_t threads = size_t(thread_count());
  if (threads == 1 || m * n * k < kParallelWork || (m == 1 && n * k * sizeof(T) < kParallelRowBytes)) {
    gemm(m, n, k, a, lda, b_packed, panel_stride, bias, c, ldc);
  } else if (panels >= threads) {
    parallel_panels(n, 1, [&](size_t j0, size_t j1, size_t panel) {
      gemm(m, j1 - j0, k, a, lda, b_packed + panel * panel_stride, panel_stride, bias ? bias + j0 : nullptr, c + j0, ldc);
    });
  } else {
    // Rows in pairs, the SIMD kernel's tile height, so every row is computed by the same tile.
    parallel_ranges((m + 1) / 2, 1, [&](size_t r0, size_t r1) {
      const size_t i0 = 2 * r0, i1 = std::min(m, 2 * r1);
      gemm(i1 - i0, n, k, a + i0 * lda, lda, b_packed, panel_stride, bias, c + i0 * ldc, ldc);
    });
  }
}

}  // namespace

void parallel_gemm(kernels::GemmFn gemm, size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed,
                   size_t panel_stride, const float* bias, float* c, size_t ldc) {
  split_gemm(gemm, m, n, k, a, lda, b_packed, panel_stride, bias, c, ldc);
}

void parallel_gemm(kernels::Bf16GemmFn gemm, size_t m, size_t n, size_t k, const float* a, size_t lda, const uint16_t* b_packed,
                   size_t panel_stride, const float* bias, float* c, size_t ldc) {
  split_gemm(gemm, m, n, k, a, lda, b_packed, panel_stride, bias, c, ldc);
}

void multiply(size_t m, size_t n, size_t k, const float* a, size_t lda, const float* b_packed, const uint16_t* b_bf16,
              const float* bias, float* c, size_t ldc) {
  const kernels::KernelSet& set = kernels::active_kernels();
  if (b_bf16) {
    parallel_gemm(set.gemm_bf16, m, n, k, a, lda, b_bf16, kernels::panel_stride(k), bias, c, ldc);
  } else {
    parallel_gemm(set.gemm, m, n, k, a, lda, b_packed, kernels::panel_stride(k), bias, c, ldc);
  }
}

void multiply(size_t m, const float* a, size_t lda, const PackedMatrix& b, const float* bias, float* c, size_t ldc) {
  multiply(m, b.cols, b.rows, a, lda, b.data.data(), b.is_bf16() ? b.bf16.data() : nullptr, bias, c, ldc);
}

}  // namespace multihead

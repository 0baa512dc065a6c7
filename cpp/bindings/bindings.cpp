// embind glue for the npm package: converts JavaScript values to C++ and back, and forwards.
// No logic lives here. Every function returns either its result or a JS Error *value*: a C++
// exception is caught here and never unwinds into JavaScript, because an exception crossing the
// WASM boundary leaks WASM stack and skips C++ destructors. web/src/ throws the returned Error.
#include <emscripten/bind.h>
#include <emscripten/heap.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <exception>
#include <memory>
#include <new>
#include <stdexcept>

#include "multihead/attention.h"
#include "multihead/model.h"
#include "multihead/safetensors.h"

using emscripten::val;
using namespace multihead;

namespace {

// What a user reads when the heap cannot hold what a call needs. The standard library's own
// words ("std::bad_alloc", "vector") say nothing a user can act on.
constexpr const char* kOutOfMemory =
    "out of memory: this needs more than the WASM heap can hold (2 GB at most); "
    "dispose() models and layers no longer in use, or give a smaller input";

// Runs `make` and returns its value, or the C++ exception as a JS Error (RangeError for limits).
template <class F>
val result_or_error(F&& make) {
  try {
    return make();
  } catch (const LimitError& e) {
    return val::global("RangeError").new_(std::string(e.what()));
  } catch (const std::bad_alloc&) {
    return val::global("RangeError").new_(std::string(kOutOfMemory));
  } catch (const std::length_error&) {
    // The standard library's, thrown when a size passes a container's max_size(): a request larger
    // than a 32-bit heap can address.
    return val::global("RangeError").new_(std::string(kOutOfMemory));
  } catch (const std::exception& e) {
    return val::global("Error").new_(std::string(e.what()));
  }
}

std::vector<float> floats(const val& array) { return emscripten::convertJSArrayToNumberVector<float>(array); }

std::vector<uint8_t> key_mask(const val& mask) {
  return mask.isUndefined() || mask.isNull() ? std::vector<uint8_t>{}
                                             : emscripten::convertJSArrayToNumberVector<uint8_t>(mask);
}

// A JS-owned Float32Array copy of C++ data.
val copy(const float* data, size_t size) {
  return val::global("Float32Array").new_(emscripten::typed_memory_view(size, data));
}

val create_attention(int d_model, int n_heads, bool causal, val w) {
  return result_or_error([&] {
    AttentionWeights weights{floats(w["wq"]), floats(w["wk"]), floats(w["wv"]), floats(w["wo"]),
                             floats(w["bq"]), floats(w["bk"]), floats(w["bv"]), floats(w["bo"])};
    return val(std::make_unique<MultiHeadAttention>(AttentionConfig{d_model, n_heads, causal}, std::move(weights)));
  });
}

val create_seeded_attention(int d_model, int n_heads, bool causal, uint32_t seed) {
  return result_or_error([&] {
    const AttentionConfig config{d_model, n_heads, causal};
    return val(std::make_unique<MultiHeadAttention>(config, random_attention_weights(config, seed)));
  });
}

// A Float32Array view of C++ data: no copy, valid until WASM memory next grows or the data changes.
val view(const float* data, size_t size) { return val(emscripten::typed_memory_view(size, data)); }

// The trace's arrays, as copies or as views.
template <class Convert>
val trace_object(const AttentionTrace& t, Convert convert) {
  val out = val::object();
  out.set("q", convert(t.q.data(), t.q.size()));
  out.set("k", convert(t.k.data(), t.k.size()));
  out.set("v", convert(t.v.data(), t.v.size()));
  out.set("scores", convert(t.scores.data(), t.scores.size()));
  out.set("weights", convert(t.weights.data(), t.weights.size()));
  out.set("concat", convert(t.concat.data(), t.concat.size()));
  out.set("output", convert(t.output.data(), t.output.size()));
  return out;
}

val forward(const MultiHeadAttention& attention, val x, int n_tokens, val mask) {
  return result_or_error([&] { return trace_object(attention.forward(floats(x), n_tokens, key_mask(mask)), copy); });
}

// Runs the layer into `trace`, a buffer the JS layer keeps across calls, and returns views of it.
val forward_view(const MultiHeadAttention& attention, val x, int n_tokens, val mask, AttentionTrace& trace) {
  return result_or_error([&] {
    attention.forward_into(floats(x), n_tokens, key_mask(mask), trace);
    return trace_object(trace, view);
  });
}

val forward_output(const MultiHeadAttention& attention, val x, int n_tokens, val mask) {
  return result_or_error([&] {
    const Matrix output = attention.forward_output(floats(x), n_tokens, key_mask(mask));
    return copy(output.data(), output.size());
  });
}

// config.json text and model.safetensors bytes → Model.
val load_model(const std::string& config_json, val weights) {
  return result_or_error([&] {
    const ModelConfig config = parse_bert_config(config_json);
    const SafetensorsFile file(emscripten::convertJSArrayToNumberVector<uint8_t>(weights));
    return val(std::make_unique<Model>(config, file));
  });
}

val model_config(const Model& model) {
  const ModelConfig& c = model.config();
  val out = val::object();
  out.set("vocabSize", c.vocab_size);
  out.set("dModel", c.hidden_size);
  out.set("numLayers", c.num_hidden_layers);
  out.set("numHeads", c.num_attention_heads);
  out.set("maxPositions", c.max_position_embeddings);
  return out;
}

val run_model(const Model& model, val ids) {
  return result_or_error([&] {
    const ModelTrace t = model.run(emscripten::convertJSArrayToNumberVector<int32_t>(ids));
    val layers = val::array();
    for (const AttentionTrace& layer : t.layers) layers.call<void>("push", trace_object(layer, copy));
    val inputs = val::array();
    for (const Matrix& input : t.inputs) inputs.call<void>("push", copy(input.data(), input.size()));
    val out = val::object();
    out.set("inputs", inputs);
    out.set("layers", layers);
    out.set("hidden", copy(t.hidden.data(), t.hidden.size()));
    return out;
  });
}

// Bytes malloc has handed out, and the size of the WASM heap (which only grows).
val memory() {
  val out = val::object();
  out.set("usedBytes", mallinfo().uordblks);
  out.set("heapBytes", emscripten_get_heap_size());
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(multihead) {
  emscripten::class_<MultiHeadAttention>("MultiHeadAttention");
  emscripten::class_<AttentionTrace>("AttentionTrace").constructor<>();
  emscripten::class_<Model>("Model");
  emscripten::function("createAttention", &create_attention);
  emscripten::function("createSeededAttention", &create_seeded_attention);
  emscripten::function("forward", &forward);
  emscripten::function("forwardView", &forward_view);
  emscripten::function("forwardOutput", &forward_output);
  emscripten::function("loadModel", &load_model);
  emscripten::function("modelConfig", &model_config);
  emscripten::function("runModel", &run_model);
  emscripten::function("memory", &memory);
  emscripten::constant("maxTokens", kMaxTokens);
  emscripten::constant("maxDModel", kMaxDModel);
}

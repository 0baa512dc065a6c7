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
#include "multihead/generation.h"
#include "multihead/model.h"
#include "multihead/patching.h"
#include "multihead/rope.h"
#include "multihead/model_loader.h"
#include "multihead/parallel.h"
#include "multihead/safetensors.h"

using emscripten::val;
using namespace multihead;

namespace {

// What a user reads when the heap cannot hold what a call needs. The standard library's own
// words ("std::bad_alloc", "vector") say nothing a user can act on.
constexpr const char* kOutOfMemory =
    "out of memory: this needs more than the WASM heap can hold (4 GB at most); "
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

AttentionConfig attention_config(int d_model, int n_heads, int n_kv_heads, int d_head, bool causal) {
  return {.d_model = d_model, .n_heads = n_heads, .n_kv_heads = n_kv_heads, .d_head = d_head, .causal = causal};
}

val create_attention(int d_model, int n_heads, int n_kv_heads, int d_head, bool causal, val w) {
  return result_or_error([&] {
    AttentionWeights weights{floats(w["wq"]), floats(w["wk"]), floats(w["wv"]), floats(w["wo"]),
                             floats(w["bq"]), floats(w["bk"]), floats(w["bv"]), floats(w["bo"])};
    return val(std::make_unique<MultiHeadAttention>(attention_config(d_model, n_heads, n_kv_heads, d_head, causal), std::move(weights)));
  });
}

val create_seeded_attention(int d_model, int n_heads, int n_kv_heads, int d_head, bool causal, uint32_t seed) {
  return result_or_error([&] {
    const AttentionConfig config = attention_config(d_model, n_heads, n_kv_heads, d_head, causal);
    return val(std::make_unique<MultiHeadAttention>(config, random_attention_weights(config, seed)));
  });
}

// A Float32Array view of C++ data: no copy, valid until WASM memory next grows or the data changes.
val view(const float* data, size_t size) { return val(emscripten::typed_memory_view(size, data)); }

// The trace's arrays, as copies or as views.
template <class Convert>
val trace_object(const AttentionTrace& t, Convert convert) {
  val out = val::object();
  out.set("nQueries", t.n_queries);
  out.set("nKeys", t.n_keys);
  out.set("numKeyValueHeads", t.n_kv_heads);
  out.set("headDim", t.d_head);
  out.set("q", convert(t.q.data(), t.q.size()));
  out.set("k", convert(t.k.data(), t.k.size()));
  // Before the rotation: the same arrays when the layer does not rotate.
  const Matrix& q0 = t.q_unrotated.size() ? t.q_unrotated : t.q;
  const Matrix& k0 = t.k_unrotated.size() ? t.k_unrotated : t.k;
  out.set("qBeforeRotation", convert(q0.data(), q0.size()));
  out.set("kBeforeRotation", convert(k0.data(), k0.size()));
  out.set("v", convert(t.v.data(), t.v.size()));
  out.set("scores", convert(t.scores.data(), t.scores.size()));
  out.set("weights", convert(t.weights.data(), t.weights.size()));
  out.set("concat", convert(t.concat.data(), t.concat.size()));
  out.set("output", convert(t.output.data(), t.output.size()));
  return out;
}

// `keys`: undefined for self-attention, or { x: Float32Array (nKeys × d), nKeys, queryPosition }
// for queries from `x` and keys and values from keys.x.
void forward_into(const MultiHeadAttention& attention, val x, int n_tokens, val mask, val keys, AttentionTrace& trace) {
  if (keys.isUndefined()) {
    attention.forward_into(floats(x), n_tokens, key_mask(mask), trace);
  } else {
    attention.forward_into(floats(x), n_tokens, floats(keys["x"]), keys["nKeys"].as<int>(), keys["queryPosition"].as<int>(),
                           key_mask(mask), trace);
  }
}

val forward(const MultiHeadAttention& attention, val x, int n_tokens, val mask, val keys) {
  return result_or_error([&] {
    AttentionTrace trace;
    forward_into(attention, x, n_tokens, mask, keys, trace);
    return trace_object(trace, copy);
  });
}

// Runs the layer into `trace`, a buffer the JS layer keeps across calls, and returns views of it.
val forward_view(const MultiHeadAttention& attention, val x, int n_tokens, val mask, val keys, AttentionTrace& trace) {
  return result_or_error([&] {
    forward_into(attention, x, n_tokens, mask, keys, trace);
    return trace_object(trace, view);
  });
}

val forward_output(const MultiHeadAttention& attention, val x, int n_tokens, val mask, val keys) {
  return result_or_error([&] {
    const Matrix output = keys.isUndefined()
        ? attention.forward_output(floats(x), n_tokens, key_mask(mask))
        : attention.forward_output(floats(x), n_tokens, floats(keys["x"]), keys["nKeys"].as<int>(),
                                   keys["queryPosition"].as<int>(), key_mask(mask));
    return copy(output.data(), output.size());
  });
}

// config.json text and the safetensors header (the file's first 8 + N bytes) → ModelLoader.
val create_model_loader(const std::string& config_json, val header) {
  return result_or_error([&] {
    const ModelConfig config = parse_model_config(config_json);
    const std::vector<uint8_t> bytes = emscripten::convertJSArrayToNumberVector<uint8_t>(header);
    return val(std::make_unique<ModelLoader>(config, SafetensorsHeader(bytes.data(), bytes.size())));
  });
}

val config_object(const ModelConfig& c, bool has_lm_head) {
  val out = val::object();
  out.set("architecture", std::string(c.architecture->model_type));
  out.set("architectureName", std::string(c.architecture->name));
  out.set("encoderDecoder", c.architecture->encoder_decoder());
  out.set("numDecoderLayers", c.num_decoder_layers);
  out.set("vocabSize", c.vocab_size);
  out.set("dModel", c.hidden_size);
  out.set("numLayers", c.num_hidden_layers);
  out.set("numHeads", c.num_attention_heads);
  out.set("numKeyValueHeads", c.num_key_value_heads);
  out.set("headDim", c.head_dim);
  val windows = val::array();
  for (int l = 0; l < c.num_hidden_layers; ++l) windows.call<void>("push", c.window(l));
  out.set("windows", windows);
  // Per layer, the RoPE it applies: how many leading dimensions of each head rotate, and their
  // frequencies (radians per position, one per pair); null where positions are not rotary.
  val rotations = val::array();
  for (int l = 0; l < c.num_hidden_layers; ++l) {
    if (c.architecture->positions != Positions::rotary) {
      rotations.call<void>("push", val::null());
      continue;
    }
    val rotation = val::object();
    rotation.set("dimensions", c.rope_of(l).rotary_dim);
    val frequencies = val::array();
    for (double f : rope_inv_freq(c.rope_of(l))) frequencies.call<void>("push", f);
    rotation.set("frequencies", frequencies);
    rotations.call<void>("push", rotation);
  }
  out.set("rotations", rotations);
  out.set("maxPositions", c.max_tokens());
  out.set("causal", c.architecture->mask == Mask::causal);
  out.set("logitSoftcap", c.logit_softcap);
  out.set("hasLmHead", has_lm_head);
  return out;
}

val loader_info(const ModelLoader& loader) {
  val out = val::object();
  out.set("dataStart", double(loader.data_start()));
  out.set("fileSize", double(loader.file_size()));
  out.set("weightBytes", double(loader.weight_bytes()));
  out.set("config", config_object(loader.config(), loader.has_lm_head()));
  return out;
}

// The next `size` bytes of the data section, which JS has copied to `pointer` in the WASM heap.
val loader_write(ModelLoader& loader, uintptr_t pointer, size_t size) {
  return result_or_error([&] {
    if (size > emscripten_get_heap_size() || pointer > emscripten_get_heap_size() - size) {
      throw std::invalid_argument("loaderWrite: pointer and size lie outside the WASM heap");
    }
    loader.write(reinterpret_cast<const uint8_t*>(pointer), size);
    return val::undefined();
  });
}

val loader_finish(ModelLoader& loader) {
  return result_or_error([&] { return val(std::make_unique<Model>(loader.finish())); });
}

val model_config(const Model& model) { return config_object(model.config(), model.has_lm_head()); }

// The JS wrapper's onLayer returns an Error instead of throwing (a JS exception must not unwind
// through C++ frames); this carries it out of Model::run.
struct StopRun {
  val error;
};

// ablation: a Uint8Array of one Ablation per head of every layer (0 none, 1 zero, 2 mean), or empty.
std::vector<Ablation> ablations(val ablation) {
  std::vector<Ablation> out;
  for (uint8_t a : emscripten::convertJSArrayToNumberVector<uint8_t>(ablation)) out.push_back(Ablation(a));
  return out;
}

// Matrices as a JS array of Float32Array copies.
val copies(const std::vector<Matrix>& matrices) {
  val out = val::array();
  for (const Matrix& m : matrices) out.call<void>("push", copy(m.data(), size_t(m.size())));
  return out;
}

// run(ids, hook), Model::run, Model::run_decoder or Generation::extend, with on_layer(layer,
// weights view, stack) as its hook, stack 'encoder', 'decoder' or 'cross': { inputs, crossInputs,
// hidden } as copies (crossInputs empty but for a decoder's pass).
template <class Run>
val run_with_hook(Run&& run, val ids, val on_layer) {
  try {
    return result_or_error([&] {
      const bool hook = !on_layer.isUndefined() && !on_layer.isNull();
      const auto on_trace = [&](Stack stack, int layer, const AttentionTrace& t) {
        if (!hook) return;
        val answer = on_layer(layer, view(t.weights.data(), t.weights.size()), std::string(stack_name(stack)));
        if (!answer.isUndefined()) throw StopRun{answer};  // an Error, or run()'s interruption
      };
      const ModelRun done = run(emscripten::convertJSArrayToNumberVector<int32_t>(ids), on_trace);
      val out = val::object();
      out.set("inputs", copies(done.inputs));
      out.set("crossInputs", copies(done.cross_inputs));
      out.set("hidden", copy(done.hidden.data(), size_t(done.hidden.size())));
      return out;
    });
  } catch (const StopRun& stop) {
    return stop.error;
  }
}

val run_model(const Model& model, val ids, val on_layer, val ablation) {
  const std::vector<Ablation> codes = ablations(ablation);
  return run_with_hook([&](const std::vector<int32_t>& i, const LayerHook& hook) { return model.run(i, hook, codes); }, ids, on_layer);
}

// n × d_model floats, checked, as a matrix of n rows: a layer's input, or an encoder's output.
Matrix rows_of(const Model& model, const val& values, const char* name) {
  const std::vector<float> x = floats(values);
  const int d = model.config().hidden_size;
  if (x.empty() || x.size() % size_t(d) != 0) {
    throw std::invalid_argument(std::string(name) + " has " + std::to_string(x.size()) + " values, expected n_tokens × d_model (d_model = " +
                                std::to_string(d) + ")");
  }
  return ConstMatrixMap(x.data(), Eigen::Index(x.size() / size_t(d)), d);
}

// An encoder–decoder's decoder over target ids, reading `memory`, the encoder's output (runModel's
// hidden for the source): as runModel, each layer's self-attention weights, then its
// cross-attention weights (h, n_target, n_source), to on_layer.
val run_decoder(const Model& model, val ids, val memory, val on_layer, val ablation) {
  const std::vector<Ablation> codes = ablations(ablation);
  return run_with_hook([&](const std::vector<int32_t>& i, const LayerHook& hook) {
    return model.run_decoder(i, rows_of(model, memory, "memory"), hook, codes);
  }, ids, on_layer);
}

// Room for `capacity` positions of text written with `model` (generation.h); an encoder–decoder's
// writing reads `memory`, the encoder's output for its source.
val create_generation(const Model& model, int capacity, val ablation, val memory) {
  return result_or_error([&] {
    if (memory.isUndefined() || memory.isNull()) return val(std::make_unique<Generation>(model, capacity, ablations(ablation)));
    const Matrix encoded = rows_of(model, memory, "memory");
    return val(std::make_unique<Generation>(model, capacity, ablations(ablation), &encoded));
  });
}

// The prompt, or one new id, after what `generation` holds: as runModel, each layer's weights
// (h, n_new, n_all) to on_layer.
val generation_extend(Generation& generation, val ids, val on_layer) {
  return run_with_hook([&](const std::vector<int32_t>& i, const LayerHook& hook) { return generation.extend(i, hook); }, ids, on_layer);
}

// The stack a JS name gives: 'encoder' (or undefined), 'decoder' or 'cross'.
Stack stack_of(const val& name) {
  if (name.isUndefined() || name.isNull()) return Stack::encoder;
  const std::string text = name.isString() ? name.as<std::string>() : "";
  for (Stack s : {Stack::encoder, Stack::decoder, Stack::cross}) {
    if (text == stack_name(s)) return s;
  }
  throw std::invalid_argument("stack must be 'encoder', 'decoder' or 'cross'");
}

// Layer `layer` of `stack` again from its kept input (a cross layer's over `memory`, the encoder's output).
val layer_trace(const Model& model, int layer, val input, val ablation, val stack, val memory) {
  return result_or_error([&] {
    const Matrix x = rows_of(model, input, "input");
    const Stack s = stack_of(stack);
    const Matrix encoded = s == Stack::cross ? rows_of(model, memory, "memory") : Matrix();
    return trace_object(model.layer_trace(s, layer, x, ablations(ablation), s == Stack::cross ? &encoded : nullptr), copy);
  });
}

val model_logits(const Model& model, val hidden) {
  return result_or_error([&] {
    const std::vector<float> h = floats(hidden);
    if (h.size() != size_t(model.config().hidden_size)) {
      throw std::invalid_argument("hidden has " + std::to_string(h.size()) + " values, expected d_model = " +
                                  std::to_string(model.config().hidden_size));
    }
    const std::vector<float> logits = model.logits(h.data());
    return copy(logits.data(), logits.size());
  });
}

std::vector<int32_t> ids_of(const val& ids) { return emscripten::convertJSArrayToNumberVector<int32_t>(ids); }

// Direct logit attribution at `position` of a run of ids with `ablation`: { parts, logit }, parts
// a Float64Array (embeddings, per layer its heads then its MLP, biases) summing to logit, the
// logit difference token − against (against −1: the logit alone) before any final soft cap.
val model_explain(const Model& model, val ids, val ablation, int position, int32_t token, int32_t against) {
  return result_or_error([&] {
    const ResidualParts parts = model.explain(ids_of(ids), position, ablations(ablation));
    const std::vector<double> shares = model.part_logits(parts, token, against);
    val out = val::object();
    out.set("parts", val::global("Float64Array").new_(emscripten::typed_memory_view(shares.size(), shares.data())));
    out.set("logit", model.logit_difference(parts.hidden().data(), token, against, false));
    return out;
  });
}

// The logit lens at `position`: (layers + 1, d) rows, the residual after the embeddings and after
// each layer, ready for modelLogits.
val model_lens(const Model& model, val ids, val ablation, int position) {
  return result_or_error([&] {
    const Matrix rows = model.lens(model.explain(ids_of(ids), position, ablations(ablation)));
    return copy(rows.data(), size_t(rows.size()));
  });
}

val create_patching(const Model& model, val clean, val corrupted, int position, int32_t token, int32_t against) {
  return result_or_error([&] { return val(std::make_unique<Patching>(model, ids_of(clean), ids_of(corrupted), position, token, against)); });
}

val patching_ends(const Patching& patching) {
  val out = val::object();
  out.set("clean", patching.clean());
  out.set("corrupted", patching.corrupted());
  return out;
}

val patching_head(const Patching& patching, int layer, int head) {
  return result_or_error([&] { return val(patching.head(layer, head)); });
}

val patching_position(const Patching& patching, int layer, int position) {
  return result_or_error([&] { return val(patching.position(layer, position)); });
}

// Uses `count` threads (the caller's included) and returns how many it got: 1 in a build without
// threads, fewer than asked if a worker could not start.
val use_threads(int count) {
  return result_or_error([&] { return val(set_threads(count)); });
}

// Bytes malloc has handed out, and the size of the WASM heap (which only grows).
// Every architecture the engine reads: config.json's model_type, the name a sentence gives it, and
// whether it is an encoder–decoder.
val architectures() {
  val out = val::array();
  for (const ArchitectureSpec* spec : all_architectures()) {
    val a = val::object();
    a.set("modelType", std::string(spec->model_type));
    a.set("name", std::string(spec->name));
    a.set("encoderDecoder", spec->encoder_decoder());
    out.call<void>("push", a);
  }
  return out;
}

val memory() {
  val out = val::object();
  // mallinfo's fields are int in Emscripten 3.1.6: above 2 GiB they read as negative, hence unsigned.
  out.set("usedBytes", double(unsigned(mallinfo().uordblks)));
  out.set("heapBytes", emscripten_get_heap_size());
  return out;
}

}  // namespace

EMSCRIPTEN_BINDINGS(multihead) {
  emscripten::class_<MultiHeadAttention>("MultiHeadAttention");
  emscripten::class_<AttentionTrace>("AttentionTrace").constructor<>();
  emscripten::class_<Model>("Model");
  emscripten::class_<ModelLoader>("ModelLoader");
  emscripten::class_<Generation>("Generation");
  emscripten::class_<Patching>("Patching");
  emscripten::function("createAttention", &create_attention);
  emscripten::function("createSeededAttention", &create_seeded_attention);
  emscripten::function("forward", &forward);
  emscripten::function("forwardView", &forward_view);
  emscripten::function("forwardOutput", &forward_output);
  emscripten::function("createModelLoader", &create_model_loader);
  emscripten::function("loaderInfo", &loader_info);
  emscripten::function("loaderWrite", &loader_write);
  emscripten::function("loaderFinish", &loader_finish);
  emscripten::function("modelConfig", &model_config);
  emscripten::function("runModel", &run_model);
  emscripten::function("runDecoder", &run_decoder);
  emscripten::function("createGeneration", &create_generation);
  emscripten::function("generationExtend", &generation_extend);
  emscripten::function("layerTrace", &layer_trace);
  emscripten::function("modelLogits", &model_logits);
  emscripten::function("modelExplain", &model_explain);
  emscripten::function("modelLens", &model_lens);
  emscripten::function("createPatching", &create_patching);
  emscripten::function("patchingEnds", &patching_ends);
  emscripten::function("patchingHead", &patching_head);
  emscripten::function("patchingPosition", &patching_position);
  emscripten::function("memory", &memory);
  emscripten::function("architectures", &architectures);
  emscripten::function("useThreads", &use_threads);
  emscripten::constant("maxTokens", kMaxTokens);
  emscripten::constant("maxDModel", kMaxDModel);
}

// A transformer model living in WASM memory (BERT, DistilBERT, RoBERTa or GPT-2, as config.json
// says): text in, every layer's attention out, and the language-model head's predictions.
//
// A run keeps what is small or always drawn (every head's weights, each layer's input, the final
// hidden states) as JavaScript copies; what is big is computed when asked for, from the model:
// one layer's full trace (Q, K, V, scores, head outputs), and the scores over the vocabulary at
// one position. So a 512-token BERT-base run never holds twelve full traces, nor 512 rows of
// 30522 logits.
import { checkBoolean, checkInteger, checkObject, describe } from '../check.js';
import { NativeHandle, orThrow } from '../engine/wasm-glue.js';
import { loadTokenizer } from '../tokenizer/tokenizer.js';
import { AttentionTrace, withShape } from '../engine/trace.js';
import { createLoader, streamInto } from '../engine/weights-stream.js';
import { Writing, checkGenerateOptions } from './generate.js';
import { likeliest } from './likeliest.js';
import { chatSettings, renderChat } from './chat.js';
import { contributionsFrom, lensFrom, patch, tokenId } from './why.js';
import { queryKeyMap } from '../analysis/query-key-map.js';
import { EncoderDecoderResult, ablationStack, encoderDecoderSettings, runEncoder, runEncoderDecoder, targetTokens } from './encoder-decoder.js';
import { STACKS } from './stacks.js';

export class Model {
  #module;
  #native; // NativeHandle of the embind Model
  #tokenizer;
  #windows; // per layer: its sliding window's keys, 0 for none
  #softcap; // Gemma's final logit soft cap, 0 for none
  #rotations; // per layer: { dimensions, frequencies } of its RoPE, or null
  #writings = new Set(); // generate()'s Writings still holding KV caches
  #chat; // { template, bosToken, eosToken } from tokenizer_config.json
  #seq2seq; // an encoder–decoder's { startIds, bannedIds, taskPrefixes } (encoder-decoder.js), or null

  /** @internal Use engine.loadModel(). */
  constructor(module, native, tokenizer, onDispose, chat, seq2seq = null) {
    this.#module = module;
    this.#native = new NativeHandle(native, 'model', () => onDispose(this));
    this.#tokenizer = tokenizer;
    const c = module.modelConfig(native);
    this.architecture = c.architecture;
    this.architectureName = c.architectureName;
    this.encoderDecoder = c.encoderDecoder;
    this.numDecoderLayers = c.numDecoderLayers;
    this.#seq2seq = seq2seq;
    this.decoderStartIds = seq2seq ? seq2seq.startIds : null;
    this.taskPrefixes = seq2seq ? seq2seq.taskPrefixes : Object.freeze({});
    this.causal = c.causal;
    this.hasLmHead = c.hasLmHead;
    this.vocabSize = c.vocabSize;
    this.dModel = c.dModel;
    this.numLayers = c.numLayers;
    this.numHeads = c.numHeads;
    this.numKeyValueHeads = c.numKeyValueHeads;
    this.headDim = c.headDim;
    this.maxTokens = c.maxPositions;
    this.#windows = Object.freeze(Array.from(c.windows));
    this.#softcap = c.logitSoftcap;
    this.#rotations = Object.freeze(Array.from(c.rotations, (r) => (r ? Object.freeze({ dimensions: r.dimensions, frequencies: Object.freeze([...r.frequencies]) }) : null)));
    const token = (t) => (t ? Object.freeze({ id: t.id, text: t.content }) : null);
    this.specialTokens = Object.freeze({ mask: token(tokenizer.maskToken), closing: token(tokenizer.closingToken) });
    this.eosTokenIds = Object.freeze(chat.eosIds.filter((id) => id < this.vocabSize));
    this.#chat = chat;
    this.chatTemplate = chat.template;
    Object.freeze(this);
  }

  /**
   * @internal Makes a model from loading/sources.js's files: the tokenizer is checked first, then the
   * safetensors header with config.json (before any weight is read), then the weights stream in.
   * `progress(file, loaded, total)` reports model.safetensors' bytes.
   */
  static async create(module, files, { signal, progress } = {}, onDispose) {
    const tokenizer = await loadTokenizer(files.tokenizer);
    signal?.throwIfAborted();
    const header = await files.weights.header(signal);
    signal?.throwIfAborted();
    const loader = createLoader(module, files.config, header);
    let native;
    try {
      const info = module.loaderInfo(loader);
      tokenizer.checkVocabularySize(info.config.vocabSize);
      const seq2seq = info.config.encoderDecoder ? encoderDecoderSettings(files.config, files.extras?.generationConfig, info.config.vocabSize) : null;
      const chat = await chatSettings({ config: files.config, ...files.extras }); // config.json is valid JSON now
      native = await streamInto(module, loader, info, files.weights, {
        signal,
        onProgress: (loaded, total) => progress?.('model.safetensors', loaded, total),
      });
      return new Model(module, native, tokenizer, onDispose, chat, seq2seq);
    } catch (error) {
      native?.delete();
      throw error;
    } finally {
      loader.delete(); // an aborted or refused load leaves nothing in WASM memory
    }
  }

  /**
   * Tokenizes `prompt` and runs the model. `prompt` is text, or { messages: [{ role, content }, …] }
   * for a model with a chat template (rendered as generate() renders it). Text longer than the
   * model's positions is truncated (the result says so; its totalTokens is then a lower bound, as
   * a long text is tokenized only as far as the tokens kept); empty text is an error.
   * `options.ablate` lists heads to switch off, [{ layer, head }], each one's output replaced
   * before its layer's output projection as `options.ablation` says: 'zero' (the default; Hugging
   * Face's head_mask) or 'mean' (its mean over the sentence's positions; in a causal model at position t over
   * positions 0..t, so a writing's steps replace it as a run of its text does). `options.maxTokens`
   * keeps at most that many tokens (at most the model's maxTokens, its default), truncating as the
   * model's limit does. `options.continuation` gives token ids to run after the prompt's, as
   * generate() wrote them (a writing's result.ids past the prompt): the result is that writing's,
   * and prompt and continuation together must fit in maxTokens, untruncated. `options.interrupt`,
   * an Int32Array, stops the run after the layer during which another thread made its first value
   * nonzero (a page's worker, told its run is no longer wanted): run() then throws an AbortError.
   * `options.onLayer(done)` is called as each layer is computed, before the next starts, with
   * done = { layer, ids, tokens, unknown, truncated, totalTokens, attention(head) }: the tokens are the
   * result's, and attention(head) that layer's weights as result.attention gives them, read during
   * the call only (a page shows each layer while the next ones run). What it throws stops the run
   * and is thrown by run().
   */
  run(prompt, options = {}) {
    this.#native.get(); // throws if disposed
    const { codes, ablated, ablation, maxAttentionBytes, maxTokens, continuation, interrupt, onLayer, target } = checkRunOptions(options, this.#shape(), this.maxTokens, this.vocabSize);
    if (this.encoderDecoder) return this.#runEncoderDecoder(prompt, target, { codes, ablated, ablation }, maxAttentionBytes, maxTokens, interrupt);
    // Past one token more than fits, the prompt is read only as far as it must be: `total` is
    // then a lower bound, more than maxTokens, and the tokens kept are the whole text's.
    const encoded = this.#encodePrompt(prompt, maxTokens + 1 - continuation.length);
    const total = encoded.ids.length + continuation.length;
    if (continuation.length) {
      if (total > maxTokens) {
        const atLeast = encoded.complete ? '' : 'at least ';
        throw new RangeError(`the prompt's ${atLeast}${encoded.ids.length} tokens and the continuation's ${continuation.length} are ${atLeast}${total}, more than ${maxTokens}`);
      }
      const ids = [...encoded.ids, ...continuation];
      const texts = continuation.map((id) => this.#tokenizer.tokenText(id));
      const tokens = { ids, tokens: [...encoded.tokens, ...texts], unknown: [...encoded.unknown, ...texts.map(() => false)], spans: [...encoded.spans, ...texts.map(() => null)] };
      return this.#runTokens(tokens, total, { codes, ablated, ablation }, maxAttentionBytes, { interrupt, onLayer });
    }
    return this.#runTokens(this.#truncated(encoded, maxTokens), total, { codes, ablated, ablation }, maxAttentionBytes, { interrupt, onLayer });
  }

  // An encoded text's first maxTokens tokens { ids, tokens, unknown, spans }. A text that ends with
  // its tokenizer's closing token (e.g. [SEP], </s>) keeps it when truncated, as the model was
  // trained with it; a text without one (GPT-2's) simply stops.
  #truncated(encoded, maxTokens) {
    const total = encoded.ids.length, keep = Math.min(total, maxTokens);
    const closing = keep < total && encoded.ids[total - 1] === this.#tokenizer.closingToken?.id;
    const pick = (list) => (closing ? [...list.slice(0, keep - 1), list[total - 1]] : list.slice(0, keep));
    return { ids: pick(encoded.ids), tokens: pick(encoded.tokens), unknown: pick(encoded.unknown), spans: pick(encoded.spans) };
  }

  // The model's attention layers by stack, and its heads: what an ablation list is checked against.
  #shape() {
    const layers = this.encoderDecoder ? { encoder: this.numLayers, decoder: this.numDecoderLayers, cross: this.numDecoderLayers } : { encoder: this.numLayers };
    return { layers, heads: this.numHeads, encoderDecoder: this.encoderDecoder };
  }

  // An encoder–decoder's source as run() reads a prompt: { kept: { ids, tokens, unknown, spans }, total }.
  #sourceTokens(source, maxTokens) {
    const encoded = this.#encodePrompt(source, maxTokens + 1);
    const kept = this.#truncated(encoded, maxTokens);
    this.#checkEmbeddable(kept.ids, kept.tokens);
    return { kept, total: encoded.ids.length };
  }

  // An encoder–decoder's writing (generate.js's Writing over its decoder): the encoder runs once
  // over the source, then each step runs one target token, its cross-attention reading the
  // encoder's output. The start ids are the writing's prompt, not steps.
  #writeTarget(source, options) {
    const checked = checkGenerateOptions(options, this.vocabSize);
    const switched = checkAblation(checked.ablate, checked.ablation, this.#shape());
    const { kept, total } = this.#sourceTokens(source, this.maxTokens);
    const compute = this.#compute();
    const ids = Int32Array.from(kept.ids);
    const budget = { left: MAX_ATTENTION_BYTES };
    const encoder = runEncoder(compute, ids, switched.codes, budget);
    const start = this.#seq2seq.startIds;
    const prompt = { ids: [...start], tokens: start.map((id) => this.#tokenizer.tokenText(id)), unknown: start.map(() => false), spans: start.map(() => null) };
    const writing = new Writing({
      module: this.#module, native: () => this.#native.get(), numLayers: this.numDecoderLayers, numHeads: this.numHeads, dModel: this.dModel,
      maxTokens: this.maxTokens, eosIds: this.eosTokenIds, ablationCodes: switched.codes, maxAttentionBytes: Math.max(budget.left, 0),
      memory: encoder.hidden, bannedIds: this.#seq2seq.bannedIds,
      tokenText: (id) => this.#tokenizer.tokenText(id), decode: (list, how) => this.#tokenizer.decode(list, how),
      runPrompt: () => this.#runEncoderDecoder(source, { ids: [] }, switched, MAX_ATTENTION_BYTES, this.maxTokens, null),
      finish: (raw) => new EncoderDecoderResult({
        source: { ...kept, ids, total }, target: { ids: raw.ids, tokens: raw.tokens }, codes: switched.codes, ablated: switched.ablated,
        ablation: switched.ablation, memory: encoder.hidden, hidden: raw.hidden,
        weights: { encoder: encoder.weights, decoder: raw.weights, cross: raw.crossWeights },
        inputs: { encoder: encoder.inputs, decoder: raw.inputs, cross: raw.crossInputs },
      }, compute),
    }, prompt, checked);
    this.#writings.add(writing);
    writing.result.then(() => this.#writings.delete(writing), () => this.#writings.delete(writing));
    return writing;
  }

  // An encoder–decoder's run (encoder-decoder.js): the source as run() reads a prompt, the target
  // after the decoder's start ids.
  #runEncoderDecoder(source, target = '', switched, maxAttentionBytes, maxTokens, interrupt) {
    const { kept, total } = this.#sourceTokens(source, maxTokens);
    const decoderInput = targetTokens(target, {
      startIds: this.#seq2seq.startIds, vocabSize: this.vocabSize, maxTokens,
      encode: (text) => this.#tokenizer.encodeTarget(text, { addSpecialTokens: false, atLeast: maxTokens + 1 }),
      tokenText: (id) => this.#tokenizer.tokenText(id),
    });
    this.#checkEmbeddable(decoderInput.ids, decoderInput.tokens);
    return runEncoderDecoder(this.#compute(), kept, total, decoderInput, switched, maxAttentionBytes, interrupt);
  }

  // What an encoder–decoder's result computes from the model when asked.
  #compute() {
    return {
      module: this.#module, native: () => this.#native.get(), numLayers: this.numLayers, numDecoderLayers: this.numDecoderLayers,
      numHeads: this.numHeads, dModel: this.dModel, hasLmHead: this.hasLmHead, tokenText: (id) => this.#tokenizer.tokenText(id),
      alive: () => !this.#native.disposed,
    };
  }

  // The tokens of run()'s and generate()'s prompt: text with the tokenizer's special tokens, or a
  // chat rendered by the model's template, whose text already holds the special tokens it writes
  // (a Llama 3 or Gemma template starts with the BOS), so it is tokenized without the tokenizer's own.
  // A prompt of `atLeast` tokens or more may be read in part (tokenizer.js: `complete` is then false).
  #encodePrompt(prompt, atLeast) {
    const chat = prompt !== null && typeof prompt === 'object' && 'messages' in prompt;
    if (typeof prompt !== 'string' && !chat) {
      throw new TypeError(`the prompt must be text (a string) or { messages: [{ role, content }, …] }, got ${describe(prompt)}`);
    }
    const text = chat ? renderChat(this.#chat, prompt.messages, this.maxTokens) : prompt;
    if (text.trim() === '') throw new RangeError(`${chat ? 'the rendered chat' : 'the prompt'} is empty: type at least one word`);
    const { ids, tokens, unknown, spans, complete } = this.#tokenizer.encode(text, { addSpecialTokens: !chat, atLeast });
    return { ids, tokens, unknown, spans, complete };
  }

  // The run of tokens { ids, tokens, unknown, spans } cut from `total`, with the heads `switched` off
  // ({ codes, ablated, ablation }): run()'s, and generate()'s result for a prompt it cannot write after.
  // A nonzero interrupt[0] stops it before the first layer or after any; onLayer sees each layer as it is done.
  #runTokens({ ids: list, tokens, unknown, spans }, total, { codes, ablated, ablation }, maxAttentionBytes, { interrupt = null, onLayer = null } = {}) {
    this.#checkEmbeddable(list, tokens); // before Int32Array, which would wrap an id of 2³¹ to −2³¹
    const ids = Int32Array.from(list);
    const interrupted = () => interrupt !== null && Atomics.load(interrupt, 0) !== 0;
    if (interrupted()) throw interruption();
    const weights = [];
    // The layers whose weights fit in maxAttentionBytes are kept, from the first; the others are
    // recomputed from their inputs (kept for every layer, n × dModel each) when they are asked for.
    const kept = Math.min(this.numLayers, Math.floor(maxAttentionBytes / (4 * this.numHeads * ids.length ** 2)));
    // Each kept layer's weights are copied while C++ holds that layer's trace: the view is valid
    // only during the call, as the next layer reuses its buffers. A failure is returned, not
    // thrown: an exception must not unwind through the C++ frames below this callback.
    // Any answer but undefined stops the run.
    let stopped = null;
    const n = ids.length;
    const raw = this.#module.runModel(this.#native.get(), ids, (layer, view) => {
      try {
        weights[layer] = layer < kept ? view.slice() : null;
        if (onLayer) {
          const held = weights[layer] ?? view;
          let open = true; // a layer not kept is C++'s buffer, which the next layer reuses
          const attention = (head) => {
            if (!open) throw new Error(`onLayer's attention(head) is read during the call only: layer ${layer + 1} has been replaced since`);
            const start = checkInteger('head', head, 0, this.numHeads - 1) * n * n;
            return withShape(held.slice(start, start + n * n), n, n);
          };
          try {
            onLayer({ layer, ids, tokens, unknown, truncated: total > n, totalTokens: total, attention });
          } finally {
            open = false;
          }
        }
        if (interrupted()) throw interruption();
      } catch (error) {
        // Thrown as it is (an interruption is a DOMException, which need not be an Error of this
        // realm) once the C++ frames have returned.
        stopped = { error };
        return error ?? null;
      }
      return undefined;
    }, codes);
    if (stopped) throw stopped.error;
    orThrow(raw);
    return new ModelResult({ ...raw, weights, ablated, ablation, spans }, ids, tokens, unknown, total, this, this.#source(codes));
  }

  // What a result computes from the model when asked, with the heads `codes` switch off.
  #source(codes) {
    return {
      layerTrace: (layer, input) => orThrow(this.#module.layerTrace(this.#native.get(), layer, input, codes, 'encoder', undefined)),
      logits: (row) => orThrow(this.#module.modelLogits(this.#native.get(), row)),
      explain: (ids, position, token, against) => orThrow(this.#module.modelExplain(this.#native.get(), ids, codes, position, token, against)),
      lens: (ids, position) => orThrow(this.#module.modelLens(this.#native.get(), ids, codes, position)),
      tokenId: (name, value) => tokenId(name, value, this.vocabSize, (text, atLeast) => this.#tokenizer.encode(text, { addSpecialTokens: false, atLeast })),
      tokenText: (id) => this.#tokenizer.tokenText(id),
      softcap: this.#softcap,
      alive: () => !this.#native.disposed,
    };
  }

  /**
   * Activation patching (why.js): runs `clean` and `corrupted`, two prompts (texts, or arrays of
   * token ids) of the same number of tokens, then the corrupted one again with one piece of the clean run put in: each head's
   * output (over: 'heads', the default) or the residual stream entering each layer at each
   * position (over: 'positions'). Each value is the logit difference token − against at
   * `position`, normalised to 0 for the corrupted run and 1 for the clean one. Resolves to
   * { over, position, values (per layer, a Float64Array of heads or positions), token, against,
   * clean, corrupted, tokens, runs, elapsedMs }.
   */
  async patch(options = {}) {
    this.#native.get(); // throws if disposed
    if (!this.hasLmHead) throw new Error('patch() reads the language-model head\'s logits, and this model has none in its model.safetensors');
    return patch({
      module: this.#module, native: () => this.#native.get(), numLayers: this.numLayers, numHeads: this.numHeads, vocabSize: this.vocabSize,
      maxTokens: this.maxTokens, causal: this.causal, maskId: this.specialTokens.mask?.id ?? null,
      encode: (text, special, atLeast) => {
        const encoded = this.#tokenizer.encode(text, { addSpecialTokens: special, atLeast });
        this.#checkEmbeddable(encoded.ids, encoded.tokens);
        return encoded;
      },
      tokenText: (id) => this.#tokenizer.tokenText(id),
      logits: (ids, position) => {
        const raw = orThrow(this.#module.runModel(this.#native.get(), Int32Array.from(ids), undefined, new Uint8Array(0)));
        return orThrow(this.#module.modelLogits(this.#native.get(), raw.hidden.subarray(position * this.dModel, (position + 1) * this.dModel)));
      },
    }, options);
  }

  // An added token may lie past the model's vocabulary (Gemma 3's image tokens, in the tokenizer
  // its text models share): only a text that produces one is refused, naming it.
  #checkEmbeddable(ids, tokens) {
    const outside = ids.findIndex((id) => id >= this.vocabSize);
    if (outside >= 0) {
      throw new RangeError(`the text gives the token ${JSON.stringify(tokens[outside])} (id ${ids[outside]}), which this model ` +
        `cannot embed: config.json's vocab_size is ${this.vocabSize} (ids 0 to ${this.vocabSize - 1})`);
    }
  }

  /**
   * Writes after `prompt`, token by token (generate.js): an async iterable of steps, each
   * { index, position, id, token, probability, alternatives, attention(layer, head), elapsedMs },
   * with a `result` promise of the ModelResult over prompt and output, and `stopReason` once it
   * has ended. Options: maxNewTokens (32), temperature (0: greedy), topK (0: all), topP (1),
   * repetitionPenalty (1: none), seed (0), stop (strings or token ids), signal, ablate and ablation
   * (as run()'s). It stops at an end-of-sequence id (eosTokenIds), a stop, maxNewTokens or the
   * model's length.
   */
  generate(prompt, options = {}) {
    this.#native.get(); // throws if disposed
    if (this.encoderDecoder) return this.#writeTarget(prompt, options);
    if (!this.causal || !this.hasLmHead) {
      throw new Error(`generate() needs a causal language model with its LM head; this ${this.architecture} model ` +
        `${this.causal ? 'has no LM head in its model.safetensors' : 'is a masked language model: it fills in blanks (predictions()), it does not write'}`);
    }
    const checked = checkGenerateOptions(options, this.vocabSize);
    const switched = checkAblation(checked.ablate, checked.ablation, this.#shape());
    const { codes, ablated, ablation } = switched;
    const prompted = this.#encodePrompt(prompt, this.maxTokens + 1);
    if (prompted.ids.length > this.maxTokens) {
      const count = prompted.complete ? `${prompted.ids.length} tokens, more than the model's ${this.maxTokens}` : `more than the model's ${this.maxTokens} tokens`;
      throw new RangeError(`the prompt has ${count}: shorten it to write after it`);
    }
    this.#checkEmbeddable(prompted.ids, prompted.tokens);
    const source = this.#source(codes);
    const writing = new Writing({
      module: this.#module, native: () => this.#native.get(), numLayers: this.numLayers, numHeads: this.numHeads, dModel: this.dModel,
      maxTokens: this.maxTokens, eosIds: this.eosTokenIds, ablationCodes: codes, maxAttentionBytes: MAX_ATTENTION_BYTES,
      tokenText: (id) => this.#tokenizer.tokenText(id), decode: (ids, options) => this.#tokenizer.decode(ids, options),
      runPrompt: () => this.#runTokens(prompted, prompted.ids.length, switched, MAX_ATTENTION_BYTES),
      finish: (raw) => new ModelResult({ ...raw, ablated, ablation }, raw.ids, raw.tokens, raw.unknown, raw.ids.length, this, source),
    }, prompted, checked);
    this.#writings.add(writing);
    writing.result.then(() => this.#writings.delete(writing), () => this.#writings.delete(writing));
    return writing;
  }

  /**
   * The tokenizer alone: `text`'s { ids, tokens } as run() would get them, before truncation. It
   * reads the whole text, so it costs what the text is long (run() reads a long text only as far
   * as it keeps).
   */
  tokenize(text) {
    this.#native.get(); // throws if disposed
    if (typeof text !== 'string') throw new TypeError(`text must be a string, got ${describe(text)}`);
    const { ids, tokens } = this.#tokenizer.encode(text);
    // An added token may have an id up to 2³² − 1, as the Rust library allows; an Int32Array holds up to 2³¹ − 1.
    const large = ids.findIndex((id) => id > 2 ** 31 - 1);
    if (large >= 0) {
      throw new RangeError(`the text gives the token ${JSON.stringify(tokens[large])} (id ${ids[large]}), larger than the ids ` +
        'tokenize() returns can hold (2147483647, an Int32Array\'s largest)');
    }
    return { ids: Int32Array.from(ids), tokens };
  }

  /** One vocabulary entry: { text } as the tokenizer writes it alone, and whether it is a special token. */
  token(id) {
    this.#native.get();
    checkInteger('id', id, 0, this.vocabSize - 1);
    return { text: this.#tokenizer.tokenText(id), special: this.#tokenizer.isSpecial(id) };
  }

  /**
   * The text of token ids together, through the tokenizer's decoder: what a writing wrote, as a
   * reader would read it (a byte-level model's emoji whole once all its bytes are there). With
   * skipSpecialTokens, tokenizer.json's special tokens (<|endoftext|>, [SEP]…) are left out.
   */
  decode(ids, options = {}) {
    this.#native.get();
    if (!Array.isArray(ids) && !(ids instanceof Int32Array)) throw new TypeError(`ids must be an Array or Int32Array of token ids, got ${describe(ids)}`);
    checkObject('options', options);
    const unknown = Object.keys(options).filter((key) => key !== 'skipSpecialTokens');
    if (unknown.length) throw new TypeError(`decode has no option ${unknown.join(', ')}; its one option is skipSpecialTokens`);
    const skipSpecialTokens = options.skipSpecialTokens === undefined ? false : checkBoolean('skipSpecialTokens', options.skipSpecialTokens);
    const checked = Array.from(ids, (id, i) => checkInteger(`ids[${i}]`, id, 0, this.vocabSize - 1));
    return this.#tokenizer.decode(checked, { skipSpecialTokens });
  }

  /**
   * How many keys a query of `layer` sees through its sliding window (the last ones, its own
   * included), or null when the layer attends to every key its mask allows.
   */
  attentionWindow(layer) {
    const window = this.#windows[checkInteger('layer', layer, 0, this.numLayers - 1)];
    return window > 0 ? window : null;
  }

  /**
   * The rotary position embedding (RoPE) of `layer`: { dimensions, frequencies }, where the first
   * `dimensions` of each head's headDim rotate in pairs (i, i + dimensions / 2) by position ×
   * frequencies[i] radians; null for a model whose positions are not rotary.
   */
  rotation(layer) {
    return this.#rotations[checkInteger('layer', layer, 0, this.numLayers - 1)];
  }

  /** Frees the model's WASM memory, and that of any writing not finished. Later calls throw; a second dispose() does nothing. */
  dispose() {
    for (const writing of this.#writings) writing.dispose();
    this.#writings.clear();
    this.#native.dispose();
  }

  get disposed() {
    return this.#native.disposed;
  }
}

/**
 * What model.run() returns. Its tokens, attention weights, layer inputs and hidden states are
 * plain JavaScript data, valid after the model's dispose(); trace(), logits() and predictions()
 * compute from the model, so they need it alive.
 */
export class ModelResult {
  #weights; // Float32Array (h, n, n) per layer, or null for a layer not kept (run's maxAttentionBytes)
  #inputs; // Float32Array (n, dModel) per layer
  #source; // the model's compute, for the lazy parts
  #last = null; // { layer, trace }: the most recent trace(), so redrawing one layer costs nothing

  constructor(raw, ids, tokens, unknown, totalTokens, model, source) {
    this.tokens = tokens;
    this.ids = ids;
    this.unknown = unknown;
    this.truncated = totalTokens > ids.length;
    this.totalTokens = totalTokens; // a lower bound when truncated: a long text is read only in part
    this.numLayers = model.numLayers;
    this.numHeads = model.numHeads;
    this.layers = model.numLayers; // the counts' names before numLayers and numHeads, kept for code written then
    this.heads = model.numHeads;
    this.dModel = model.dModel;
    this.causal = model.causal;
    this.hasLmHead = model.hasLmHead;
    this.hidden = raw.hidden; // (n, dModel)
    this.spans = Object.freeze(raw.spans.map((span) => span && Object.freeze(span.slice()))); // [start, end) in the text, or null
    this.ablated = raw.ablated; // [{ layer, head }] switched off, in layer then head order
    this.ablation = raw.ablation; // 'zero' | 'mean', or null when no head is
    this.#weights = raw.weights;
    this.#inputs = raw.inputs;
    this.#source = source;
    Object.freeze(this);
  }

  /**
   * Attention weights of one head in one layer, (nQueries × nKeys) row-major: query rows, key
   * columns (both n here). The array carries its shape as its nQueries and nKeys.
   */
  attention(layer, head) {
    const n = this.ids.length;
    const start = checkInteger('head', head, 0, this.numHeads - 1) * n * n;
    const kept = this.#weights[this.#layer(layer)];
    if (kept === null) return this.trace(layer).weights(head); // recomputed: the same numbers
    return withShape(kept.slice(start, start + n * n), n, n);
  }

  /** How many layers' attention weights the result keeps, from layer 0; the others are recomputed when asked for. */
  get keptLayers() {
    return this.#weights.filter((w) => w !== null).length;
  }

  /** What one layer's attention reads, (n × dModel). */
  layerInput(layer) {
    return this.#inputs[this.#layer(layer)].slice();
  }

  /** Every intermediate of one layer's attention, recomputed from that layer's input. */
  trace(layer) {
    this.#layer(layer);
    if (this.#last?.layer !== layer) {
      const data = this.#compute('trace()', () => this.#source.layerTrace(layer, this.#inputs[layer]));
      this.#last = { layer, trace: new AttentionTrace(data, this.dModel, this.numHeads, false) };
    }
    return this.#last.trace;
  }

  /**
   * The language-model head's raw scores over the vocabulary at `position`, a Float32Array of
   * vocabSize: for a masked LM the words it would put at that position, for a causal LM the
   * tokens it expects after it.
   */
  logits(position) {
    const p = checkInteger('position', position, 0, this.ids.length - 1);
    if (!this.hasLmHead) {
      throw new Error('This model has no language-model head (its model.safetensors holds none), so it makes no predictions');
    }
    return this.#compute('logits()', () => this.#source.logits(this.hidden.subarray(p * this.dModel, (p + 1) * this.dModel)));
  }

  /** The k most likely tokens at `position` (see logits), [{ token, id, probability }], most likely first. */
  predictions(position, k = 5) {
    const logits = this.logits(position);
    checkInteger('k', k, 1, logits.length);
    return likeliest(logits, k, this.#source.tokenText).top;
  }

  /**
   * Direct logit attribution: the logit of `token` at `position` (by default the top prediction),
   * or the difference token − against, split into what each head, each MLP, the embeddings and
   * the biases write into the residual stream, read through the final norm (and every later norm
   * of a post-norm model) frozen at its real scale. The parts sum to `logit`, before any final
   * soft cap (`softcap` names the one left out). token and against are ids or one-token strings.
   */
  contributions(position, { token, against } = {}) {
    const p = this.#position(position);
    this.#needHead();
    const t = token === undefined ? this.predictions(p, 1)[0].id : this.#source.tokenId('token', token);
    const a = against === undefined ? -1 : this.#source.tokenId('against', against);
    const raw = this.#compute('contributions()', () => this.#source.explain(this.ids, p, t, a));
    return contributionsFrom(raw, { numLayers: this.numLayers, numHeads: this.numHeads, position: p, token: t, against: a,
      tokenText: this.#source.tokenText, softcap: this.#source.softcap });
  }

  /**
   * The logit lens at `position`: numLayers + 1 lists of the k likeliest tokens, as predictions()
   * gives them: from the embeddings, then after each layer, each read through the final norm and
   * the LM head (a masked LM's head reads each layer's output). The last is predictions(position, k).
   */
  logitLens(position, k = 5) {
    const p = this.#position(position);
    this.#needHead();
    checkInteger('k', k, 1, 1000);
    const rows = this.#compute('logitLens()', () => this.#source.lens(this.ids, p));
    return lensFrom(rows, this.dModel, k, this.#source.logits, this.#source.tokenText);
  }

  /**
   * One head's queries and keys on one map (AttentionViz): 2-D coordinates for each token's query
   * and key, after RoPE where the model rotates, and the share of variance each axis explains
   * (analysis/query-key-map.js).
   */
  queryKeyMap(layer, head) {
    const trace = this.trace(layer);
    checkInteger('head', head, 0, this.numHeads - 1);
    return queryKeyMap(trace.queries(head), trace.keys(head), trace.headDim);
  }

  #position(position) {
    return checkInteger('position', position, 0, this.ids.length - 1);
  }

  #needHead() {
    if (!this.hasLmHead) {
      throw new Error('This model has no language-model head (its model.safetensors holds none), so it makes no predictions');
    }
  }

  #layer(layer) {
    return checkInteger('layer', layer, 0, this.numLayers - 1);
  }

  #compute(what, compute) {
    if (!this.#source.alive()) {
      throw new Error(`The model that made this result has been disposed: ${what} computes from the model, so call it before dispose()`);
    }
    return compute();
  }
}

const ABLATION_CODES = { zero: 1, mean: 2 }; // as C++'s Ablation: 0 leaves a head on

// The most attention weights a result keeps by default: 512 MiB, 128 layers of BERT-base at 512
// tokens, but 9 of Qwen2.5-0.5B's 24 at 1024 (each 14 × 1024² floats, 56 MiB).
const MAX_ATTENTION_BYTES = 512 * 2 ** 20;

/**
 * run()'s options, each read once, checked; unknown names are refused. Returns the C++ codes
 * (layers × heads, empty when no head is ablated), the frozen sorted list and the mode.
 */
function checkRunOptions(options, shape, modelMaxTokens, vocabSize) {
  checkObject('run options', options);
  const { ablate, ablation = 'zero', maxAttentionBytes = MAX_ATTENTION_BYTES, maxTokens = modelMaxTokens, continuation = [], interrupt = null,
    onLayer = null, target, ...rest } = options;
  const unknown = Object.keys(rest);
  if (unknown.length) {
    throw new TypeError(`run has no option ${unknown.join(', ')}; its options are ablate, ablation, maxAttentionBytes, maxTokens, continuation, interrupt, onLayer and target`);
  }
  if (!shape.encoderDecoder && target !== undefined) {
    throw new TypeError('run\'s target is an encoder–decoder\'s (T5, BART, Marian): the decoder\'s text; this model has one stack of layers');
  }
  if (shape.encoderDecoder && (onLayer !== null || (continuation.length ?? 0) > 0)) {
    throw new TypeError('an encoder–decoder\'s run takes target, ablate, ablation, maxAttentionBytes, maxTokens and interrupt; onLayer and continuation are one-stack models\'');
  }
  if (onLayer !== null && typeof onLayer !== 'function') throw new TypeError(`onLayer must be a function, got ${describe(onLayer)}`);
  if (interrupt !== null && !(interrupt instanceof Int32Array && interrupt.length >= 1)) {
    throw new TypeError(`interrupt must be an Int32Array (on a SharedArrayBuffer, for another thread to set), got ${describe(interrupt)}`);
  }
  const checked = checkAblation(ablate, ablation, shape);
  checkInteger('maxAttentionBytes', maxAttentionBytes, 0, Number.MAX_SAFE_INTEGER);
  checkInteger('maxTokens', maxTokens, 1, modelMaxTokens);
  if (!Array.isArray(continuation) && !(continuation instanceof Int32Array)) {
    throw new TypeError(`continuation must be an Array or Int32Array of token ids, got ${describe(continuation)}`);
  }
  if (continuation.length > modelMaxTokens) throw new RangeError(`continuation has ${continuation.length} ids, more than the model's ${modelMaxTokens} positions`);
  const ids = Array.from(continuation, (id, i) => checkInteger(`continuation[${i}]`, id, 0, vocabSize - 1));
  return { ...checked, maxAttentionBytes, maxTokens, continuation: ids, interrupt, onLayer, target };
}

/** What run() throws when its interrupt stops it. */
function interruption() {
  return new DOMException('the run was interrupted', 'AbortError');
}

/**
 * run()'s and generate()'s ablate and ablation as C++ codes, a frozen sorted list and the mode.
 * `shape` is { layers: { encoder, decoder?, cross? }, heads, encoderDecoder }: an entry's stack
 * ('encoder' when left out) says which of an encoder–decoder's attentions it switches off, and the
 * codes list every head of the encoder's layers, then the decoder's, then the cross-attention's.
 */
function checkAblation(ablate, ablation = 'zero', { layers, heads, encoderDecoder }) {
  if (!Object.hasOwn(ABLATION_CODES, ablation)) throw new TypeError(`ablation must be 'zero' or 'mean', got ${describe(ablation)}`);
  if (ablate === undefined) return { codes: new Uint8Array(0), ablated: Object.freeze([]), ablation: null };
  if (!Array.isArray(ablate)) throw new TypeError(`ablate must be an Array of { layer, head${encoderDecoder ? ', stack' : ''} }, got ${describe(ablate)}`);
  const stacks = STACKS.filter((s) => layers[s] !== undefined);
  const first = {}; // each stack's first layer in the codes
  let total = 0;
  for (const s of stacks) {
    first[s] = total;
    total += layers[s];
  }
  const count = ablate.length;
  if (count > total * heads) throw new RangeError(`ablate lists ${count} heads; the model has ${total * heads}`);
  const codes = new Uint8Array(total * heads);
  for (let i = 0; i < count; i++) {
    const entry = checkObject(`ablate[${i}]`, ablate[i]);
    const stack = ablationStack(entry, i, encoderDecoder);
    const { layer, head } = entry;
    checkInteger(`ablate[${i}].layer`, layer, 0, layers[stack] - 1);
    checkInteger(`ablate[${i}].head`, head, 0, heads - 1);
    const at = (first[stack] + layer) * heads + head;
    if (codes[at]) throw new RangeError(`ablate lists ${encoderDecoder ? `${stack} ` : ''}layer ${layer} head ${head} twice`);
    codes[at] = ABLATION_CODES[ablation];
  }
  const ablated = [];
  codes.forEach((code, i) => {
    if (!code) return;
    const row = Math.floor(i / heads), stack = stacks.findLast((s) => first[s] <= row);
    ablated.push(Object.freeze(encoderDecoder ? { layer: row - first[stack], head: i % heads, stack } : { layer: row, head: i % heads }));
  });
  if (!ablated.length) return { codes: new Uint8Array(0), ablated: Object.freeze([]), ablation: null };
  return { codes, ablated: Object.freeze(ablated), ablation };
}

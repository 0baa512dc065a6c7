// model.generate(): a causal model writes, token by token, over C++'s KV caches (generation.h).
// The prompt runs once; then each step chooses a token from the logits at the last position
// (greedy at temperature 0, else sampled with the seeded generator below, never Math.random),
// runs that one token, and hands over its attention row in every layer and head: the new query
// over every cached key, as a whole run over the same tokens computes it.
//
// A Writing is an async iterable of steps, used once. Between steps it yields to the event loop (a
// macrotask), so a page's Stop, typing and drawing go on while it writes; `signal` ends it there.
// `result` resolves, however it ended, to a ModelResult over prompt and output whose attention
// is assembled from the prefill and each step's row, as if the whole text had been run at once.
import { checkInteger, checkObject, describe } from '../check.js';
import { orThrow } from '../engine/wasm-glue.js';
import { withShape } from '../engine/trace.js';
import { likeliest, nucleus } from './likeliest.js';

const ALTERNATIVES = 5; // the likeliest tokens each step lists

/** generate()'s options, each read once and checked; unknown names are refused. */
export function checkGenerateOptions(options, vocabSize) {
  checkObject('generate options', options);
  const {
    maxNewTokens = 32, temperature = 0, topK = 0, topP = 1, repetitionPenalty = 1, seed = 0, stop = [], signal,
    ablate, ablation, ...rest
  } = options;
  const unknown = Object.keys(rest);
  if (unknown.length) {
    throw new TypeError(`generate has no option ${unknown.join(', ')}; its options are maxNewTokens, temperature, topK, topP, ` +
      'repetitionPenalty, seed, stop, signal, ablate and ablation');
  }
  checkInteger('maxNewTokens', maxNewTokens, 1, 1 << 20);
  const number = (name, value, low, high, lowOpen) => {
    if (typeof value !== 'number' || !Number.isFinite(value) || value < low || (lowOpen && value === low) || value > high) {
      throw new RangeError(`${name} must be a number from ${low}${lowOpen ? ' (not included)' : ''} to ${high}, got ${describe(value)}`);
    }
    return value;
  };
  number('temperature', temperature, 0, 100);
  checkInteger('topK', topK, 0, vocabSize);
  number('topP', topP, 0, 1, true);
  number('repetitionPenalty', repetitionPenalty, 0, 100, true);
  checkInteger('seed', seed, 0, 2 ** 32 - 1);
  const stops = Array.isArray(stop) ? stop : [stop];
  const stopIds = new Set(), stopStrings = [];
  stops.forEach((s, i) => {
    if (typeof s === 'string') {
      if (s === '') throw new RangeError(`stop[${i}] is the empty string, which every text contains; give at least one character`);
      stopStrings.push(s);
    } else {
      stopIds.add(checkInteger(`stop[${i}]`, s, 0, vocabSize - 1));
    }
  });
  if (signal !== undefined && !(signal instanceof AbortSignal)) throw new TypeError(`signal must be an AbortSignal, got ${describe(signal)}`);
  return { maxNewTokens, temperature, topK, topP, repetitionPenalty, seed, stopIds, stopStrings, signal, ablate, ablation };
}

/** A seeded generator of uniform numbers in [0, 1): mulberry32, the same sequence everywhere. */
export function seededRandom(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * The next token from `logits` (not changed): the repetition penalty on the ids seen so far (as
 * Hugging Face's: a positive logit divided by it, a negative one multiplied, once per distinct id
 * however often it was seen), then greedy at
 * temperature 0, else softmax(logits / temperature) cut to the topK likeliest and to the fewest
 * whose probabilities reach topP, and one draw of `random` over them (in nucleus()'s order; over
 * every token in id order when nothing is cut). Ties go to the lower id.
 */
export function chooseToken(logits, seen, { temperature, topK, topP, repetitionPenalty }, random) {
  // The logits as they are when nothing changes them (a greedy step reads a vocabulary once, not twice).
  const scores = repetitionPenalty === 1 ? logits : Float64Array.from(logits);
  if (repetitionPenalty !== 1) {
    // Once per distinct id, as transformers gathers the seen ids' logits and scatters them back:
    // a token seen k times is penalised once, not k times.
    for (const id of new Set(seen)) scores[id] = scores[id] > 0 ? scores[id] / repetitionPenalty : scores[id] * repetitionPenalty;
  }
  if (temperature === 0) {
    let best = 0;
    for (let i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i;
    return best;
  }
  const n = scores.length;
  let max = -Infinity;
  for (let i = 0; i < n; i++) if (scores[i] > max) max = scores[i];
  const weights = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[i] = Math.exp((scores[i] - max) / temperature);
  // The topK likeliest, sorted, of which topP takes the fewest reaching its share of their weights;
  // with no topK, the fewest reaching topP of all (in the order found: a draw needs no order);
  // with neither, every token, in id order.
  let keep;
  if (topK > 0) {
    keep = nucleus(weights, topK, Infinity).sort((a, b) => weights[b] - weights[a] || a - b);
    let whole = 0, count = 0, mass = 0;
    for (const id of keep) whole += weights[id];
    while (count < keep.length && (count === 0 || mass < topP * whole)) mass += weights[keep[count++]];
    keep = keep.slice(0, count);
  } else if (topP < 1) {
    keep = nucleus(weights, Infinity, topP * total);
  } else {
    let draw = random() * total;
    for (let i = 0; i < n; i++) if ((draw -= weights[i]) < 0) return i;
    return n - 1;
  }
  let mass = 0;
  for (const id of keep) mass += weights[id];
  let draw = random() * mass;
  for (const id of keep) if ((draw -= weights[id]) < 0) return id;
  return keep[keep.length - 1];
}

// The next macrotask: a message to ourselves, which browsers, workers and Node run at once
// (setTimeout is clamped to 4 ms once nested).
const nextTask = () => new Promise((resolve) => {
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    channel.port1.close();
    resolve();
  };
  channel.port2.postMessage(null);
});

/**
 * One text being written. `model` gives the engine's calls and the model's facts: { module,
 * native() (throws once the model is disposed), numLayers, numHeads, dModel, maxTokens, eosIds,
 * ablationCodes, maxAttentionBytes, tokenText(id), decode(ids, { skipSpecialTokens }), runPrompt() and finish(raw), each
 * → the result }. An encoder–decoder's writing is its decoder's: numLayers counts the decoder's
 * layers, the prompt is the decoder's start ids, `memory` is the encoder's output for the source
 * (each step's cross-attention reads it; null for a one-stack model), and `bannedIds` are never
 * chosen (Marian's pad).
 */
export class Writing {
  #model;
  #options;
  #prompt; // { ids, tokens, unknown, spans }
  #random;
  #native = null; // the C++ Generation, from the first step until the writing ends
  #capacity;
  #weights; // per layer: { prefill (h, p, p), steps: rows (h, 1, position + 1) each }, or null past the kept layers
  #rows = []; // per layer: the last step's rows, (h, 1, n_keys)
  #inputs = []; // per layer: Float32Array rows (capacity, dModel)
  #cross = null; // an encoder–decoder's cross layers: { prefill (h, p, n_source), steps: rows (h, 1, n_source) } or null each
  #crossRows = []; // per cross layer: the last step's rows, (h, 1, n_source)
  #crossInputs = []; // per cross layer: Float32Array rows (capacity, dModel)
  #hidden; // Float32Array (capacity, dModel)
  #ids = []; // the output's ids
  #pending = null; // why the next call ends it
  #resolve;
  #started = false;
  stopReason = null; // 'eos' | 'stop' | 'maxNewTokens' | 'length' | 'aborted' | 'returned' | 'error', once it has ended
  text = null; // what it wrote, decoded without special tokens, once it has ended
  prefillMs = null; // how long the prompt took to run, once it has: the first step's elapsedMs leaves it out

  constructor(model, prompt, options) {
    this.#model = model;
    this.#prompt = prompt;
    this.#options = options;
    this.#random = seededRandom(options.seed);
    this.#capacity = Math.min(model.maxTokens, prompt.ids.length + options.maxNewTokens);
    if (prompt.ids.length >= model.maxTokens) this.#pending = 'length';
    this.result = new Promise((resolve) => { this.#resolve = resolve; });
    this.result.catch(() => {}); // an error is thrown by the iteration too: unread here, it is not unhandled
  }

  [Symbol.asyncIterator]() {
    if (this.#started) throw new Error('a Writing is iterated once: call model.generate() again to write again');
    this.#started = true;
    return this;
  }

  /** The next step, or done once it has ended. */
  async next() {
    if (this.stopReason) return { done: true, value: undefined };
    await nextTask();
    if (this.stopReason) return { done: true, value: undefined }; // return() while waiting
    const { signal } = this.#options;
    if (signal?.aborted) {
      this.#end('aborted');
      throw signal.reason;
    }
    if (this.#pending) {
      this.#end(this.#pending);
      return { done: true, value: undefined };
    }
    try {
      return { done: false, value: this.#step() };
    } catch (error) {
      this.#end('error', error);
      throw error;
    }
  }

  /** Ends it early (a for-await loop's break): the result keeps what was written. */
  async return() {
    if (!this.stopReason) this.#end('returned');
    return { done: true, value: undefined };
  }

  /** Frees the caches, if they are still held, without a result: the model is being disposed. */
  dispose() {
    this.#native?.delete();
    this.#native = null;
    if (!this.stopReason) {
      this.stopReason = 'error';
      this.#resolve(Promise.reject(new Error('The model was disposed while it was writing')));
    }
  }

  get #length() {
    return this.#prompt.ids.length + this.#ids.length;
  }

  #step() {
    const m = this.#model;
    if (!this.#native) {
      const prefilling = performance.now();
      this.#prefill();
      this.prefillMs = performance.now() - prefilling;
    }
    const started = performance.now();
    const n = this.#length;
    const raw = orThrow(m.module.modelLogits(m.native(), this.#hidden.subarray((n - 1) * m.dModel, n * m.dModel)));
    const bad = raw.findIndex((v) => !Number.isFinite(v));
    if (bad >= 0) throw new Error(`the logits after position ${n - 1} are not finite (token id ${bad} is ${raw[bad]}): nothing can be chosen`);
    // A banned id's logit is −∞ when choosing, as Hugging Face's bad_words_ids makes it: the step's
    // probabilities leave it out.
    const logits = m.bannedIds?.length ? raw.slice() : raw;
    for (const banned of m.bannedIds ?? []) logits[banned] = -Infinity;
    const id = chooseToken(logits, [...this.#prompt.ids, ...this.#ids], this.#options, this.#random);
    this.#extend([id], n);
    this.#ids.push(id);
    const rows = this.#rows, crossRows = this.#crossRows, sources = m.memory ? m.memory.length / m.dModel : 0;
    const model = likeliest(logits, ALTERNATIVES, m.tokenText); // the model's own probabilities, before temperature and top-k/p
    const probability = model.probability(id), alternatives = model.top.map((a) => Object.freeze(a));
    const step = Object.freeze({
      index: this.#ids.length - 1, position: n, id, token: m.tokenText(id), text: this.#written(), probability, alternatives: Object.freeze(alternatives),
      attention: (layer, head) => {
        checkInteger('layer', layer, 0, m.numLayers - 1);
        checkInteger('head', head, 0, m.numHeads - 1);
        return withShape(rows[layer].slice(head * (n + 1), (head + 1) * (n + 1)), 1, n + 1); // (1 × n + 1): this token's query row
      },
      // An encoder–decoder's: this token's cross-attention row over the source, (1 × n_source).
      ...(m.memory && {
        crossAttention: (layer, head) => {
          checkInteger('layer', layer, 0, m.numLayers - 1);
          checkInteger('head', head, 0, m.numHeads - 1);
          return withShape(crossRows[layer].slice(head * sources, (head + 1) * sources), 1, sources);
        },
      }),
      elapsedMs: performance.now() - started,
    });
    this.#pending = this.#stopAfter(id);
    return step;
  }

  // Everything written so far as text, special tokens left out (Transformers.js's generated_text).
  #written() {
    return this.#model.decode(this.#ids, { skipSpecialTokens: true });
  }

  // Why writing stops after `id`, or null to go on.
  #stopAfter(id) {
    const { stopIds, stopStrings, maxNewTokens } = this.#options;
    if (this.#model.eosIds.includes(id)) return 'eos';
    if (stopIds.has(id)) return 'stop';
    if (stopStrings.length) {
      const text = this.#model.decode(this.#ids);
      if (stopStrings.some((s) => text.includes(s))) return 'stop';
    }
    if (this.#ids.length >= maxNewTokens) return 'maxNewTokens';
    if (this.#length >= this.#capacity) return 'length';
    return null;
  }

  #prefill() {
    const m = this.#model;
    this.#native = orThrow(m.module.createGeneration(m.native(), this.#capacity, m.ablationCodes, m.memory ?? undefined));
    const n = this.#capacity, sources = m.memory ? m.memory.length / m.dModel : 0;
    // As run(): the layers whose weights fit in maxAttentionBytes are kept, the others recomputed
    // from their inputs when the result is asked for them.
    const kept = Math.min(m.numLayers, Math.floor(m.maxAttentionBytes / (4 * m.numHeads * n * (n + sources))));
    this.#weights = Array.from({ length: m.numLayers }, (_, l) => (l < kept ? { prefill: null, steps: [] } : null));
    this.#inputs = Array.from({ length: m.numLayers }, () => new Float32Array(n * m.dModel));
    if (m.memory) {
      this.#cross = Array.from({ length: m.numLayers }, (_, l) => (l < kept ? { prefill: null, steps: [] } : null));
      this.#crossInputs = Array.from({ length: m.numLayers }, () => new Float32Array(n * m.dModel));
    }
    this.#hidden = new Float32Array(n * m.dModel);
    this.#extend(this.#prompt.ids, 0);
  }

  // Runs ids at positions `first`, … and stores their weights' rows, layer inputs and hidden states.
  #extend(ids, first) {
    const m = this.#model, count = ids.length;
    this.#rows = [];
    this.#crossRows = [];
    const raw = orThrow(m.module.generationExtend(this.#native, Int32Array.from(ids), (layer, view, stack) => {
      // view: (h, count, first + count), valid during this call: the prompt's matrices, or a step's
      // rows; a cross layer's (h, count, n_source).
      try {
        const rows = view.slice(), cross = stack === 'cross', kept = (cross ? this.#cross : this.#weights)[layer];
        if (count === 1 && first > 0) {
          (cross ? this.#crossRows : this.#rows)[layer] = rows;
          kept?.steps.push(rows);
        } else if (kept) {
          kept.prefill = rows;
        }
      } catch (error) {
        return error instanceof Error ? error : new Error(String(error));
      }
      return undefined;
    }));
    raw.inputs.forEach((input, layer) => this.#inputs[layer].set(input, first * m.dModel));
    raw.crossInputs.forEach((input, layer) => this.#crossInputs[layer].set(input, first * m.dModel));
    this.#hidden.set(raw.hidden, first * m.dModel);
  }

  // Ends the writing; `error` is what stopped it, if something failed: with no step written (the
  // prompt itself failed to run) the result rejects with it, else it holds what was written.
  #end(reason, error = null) {
    this.stopReason = reason;
    this.text = this.#written();
    this.#native?.delete();
    this.#native = null;
    try {
      if (error && this.#ids.length === 0) throw error;
      this.#resolve(this.#weights ? this.#assemble() : this.#model.runPrompt()); // nothing ran: the prompt alone, as run() gives it
    } catch (error) {
      this.#resolve(Promise.reject(error));
    }
    this.#weights = null;
  }

  // Each kept cross layer's (h, n, n_source) weights from the prompt's and every step's rows.
  #assembleCross(n) {
    const m = this.#model, h = m.numHeads, p = this.#prompt.ids.length, sources = m.memory.length / m.dModel;
    return this.#cross.map((w) => {
      if (w === null) return null;
      const out = new Float32Array(h * n * sources);
      for (let i = 0; i < h; i++) {
        out.set(w.prefill.subarray(i * p * sources, (i + 1) * p * sources), i * n * sources);
        w.steps.forEach((rows, s) => out.set(rows.subarray(i * sources, (i + 1) * sources), (i * n + p + s) * sources));
      }
      return out;
    });
  }

  // The ModelResult over the n positions written: each kept layer's (h, n, n) matrices from the
  // prompt's and every step's rows, zero where a query cannot see a key.
  #assemble() {
    const m = this.#model, h = m.numHeads;
    const n = this.#length, p = this.#prompt.ids.length, d = m.dModel;
    const weights = this.#weights.map((w) => {
      if (w === null) return null;
      const out = new Float32Array(h * n * n);
      for (let i = 0; i < h; i++) {
        for (let r = 0; r < p; r++) out.set(w.prefill.subarray((i * p + r) * p, (i * p + r + 1) * p), (i * n + r) * n);
        w.steps.forEach((rows, s) => {
          const keys = p + s + 1;
          out.set(rows.subarray(i * keys, (i + 1) * keys), (i * n + p + s) * n);
        });
      }
      return out;
    });
    const ids = Int32Array.from([...this.#prompt.ids, ...this.#ids]);
    return m.finish({
      weights, inputs: this.#inputs.map((x) => x.slice(0, n * d)), hidden: this.#hidden.slice(0, n * d), ids,
      crossWeights: this.#cross && this.#assembleCross(n), crossInputs: this.#crossInputs.map((x) => x.slice(0, n * d)),
      tokens: [...this.#prompt.tokens, ...this.#ids.map((id) => m.tokenText(id))],
      unknown: [...this.#prompt.unknown, ...this.#ids.map(() => false)],
      spans: [...this.#prompt.spans, ...this.#ids.map(() => null)],
    });
  }
}

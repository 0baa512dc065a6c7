// An encoder–decoder's run (T5, BART, Marian): the encoder over the source, then the decoder over
// the target, whose cross-attention reads the encoder's output. Its result holds three kinds of
// attention: the encoder's self-attention (source × source), the decoder's causal self-attention
// (target × target) and the cross-attention (target rows over source columns), each layer's
// weights kept while they fit in the run's budget and recomputed from the layer's kept input when
// asked for, as a one-stack model's result does (model.js).
//
// The decoder's input is the target as Hugging Face shifts it right for training: the model's
// start ids first (config.json's decoder_start_token_id; BART's forced_bos_token_id after it),
// then the target's tokens, without the closing </s>. Its logits at position t score the target
// token after position t.
import { checkInteger, describe } from '../check.js';
import { orThrow } from '../engine/wasm-glue.js';
import { AttentionTrace, withShape } from '../engine/trace.js';
import { likeliest } from './likeliest.js';
import { STACKS } from './stacks.js';

/**
 * What config.json says of an encoder–decoder's writing, generation_config.json's fields first
 * where the model has that file (as transformers reads them): the decoder's start ids, the ids
 * never written (Marian's pad, as its bad_words_ids say) and T5's task prefixes, { task: prefix }.
 */
export function encoderDecoderSettings(configText, generationConfig, vocabSize) {
  const config = { ...JSON.parse(configText) };
  for (const field of ['decoder_start_token_id', 'forced_bos_token_id', 'bad_words_ids']) {
    if (generationConfig?.[field] !== undefined) config[field] = generationConfig[field];
  }
  const id = (name, value) => {
    if (!Number.isInteger(value) || value < 0 || value >= vocabSize) {
      throw new RangeError(`config.json's ${name} must be a token id from 0 to ${vocabSize - 1}, got ${describe(value)}`);
    }
    return value;
  };
  if (config.decoder_start_token_id === undefined || config.decoder_start_token_id === null) {
    throw new Error('config.json (and generation_config.json) has no decoder_start_token_id: an encoder–decoder\'s decoder needs the id it starts from');
  }
  const startIds = [id('decoder_start_token_id', config.decoder_start_token_id)];
  if (config.forced_bos_token_id !== undefined && config.forced_bos_token_id !== null) startIds.push(id('forced_bos_token_id', config.forced_bos_token_id));
  const banned = [];
  for (const words of Array.isArray(config.bad_words_ids) ? config.bad_words_ids : []) {
    if (Array.isArray(words) && words.length === 1 && Number.isInteger(words[0]) && words[0] >= 0 && words[0] < vocabSize) banned.push(words[0]);
  }
  const tasks = {};
  const params = config.task_specific_params;
  if (params !== null && typeof params === 'object') {
    for (const [task, value] of Object.entries(params)) {
      if (typeof value?.prefix === 'string' && value.prefix.length <= 200) tasks[task] = value.prefix;
    }
  }
  return { startIds: Object.freeze(startIds), bannedIds: Object.freeze(banned), taskPrefixes: Object.freeze(tasks) };
}

/**
 * run()'s target: text, tokenized without special tokens (`encode(text)` → { ids, complete }: a
 * long text is read only as far as it must be, and `complete` false then), or { ids }; the
 * decoder's input is the start ids, then these. Returns { ids, tokens }.
 */
export function targetTokens(target, { startIds, vocabSize, maxTokens, encode, tokenText }) {
  let ids, complete = true;
  if (typeof target === 'string') {
    ({ ids, complete } = encode(target));
  } else if (target !== null && typeof target === 'object' && !Array.isArray(target)) {
    const { ids: given, ...rest } = target;
    if (Object.keys(rest).length || (!Array.isArray(given) && !(given instanceof Int32Array))) {
      throw new TypeError(`target must be text or { ids: [token ids] }, got ${describe(target)}`);
    }
    if (given.length > maxTokens) throw new RangeError(`target.ids has ${given.length} ids, more than the model's ${maxTokens} positions`);
    ids = Array.from(given, (v, i) => checkInteger(`target.ids[${i}]`, v, 0, vocabSize - 1));
  } else {
    throw new TypeError(`target must be text or { ids: [token ids] }, got ${describe(target)}`);
  }
  const all = [...startIds, ...ids];
  if (all.length > maxTokens) {
    throw new RangeError(`the target has ${complete ? '' : 'at least '}${ids.length} tokens, which with the ${startIds.length} start token${startIds.length === 1 ? '' : 's'} ` +
      `are more than the model's ${maxTokens}`);
  }
  return { ids: Int32Array.from(all), tokens: all.map(tokenText) };
}

// A hook for C++'s runs that keeps each attention's weights while `budget.left` bytes allow, into
// weights[stack][layer] (null past it), and stops the run once interrupt[0] is nonzero. C++ must
// not unwind through a JS exception: a failure is returned to it, and thrown once it has returned.
function keeper(weights, budget, interrupt) {
  const hook = (layer, view, stack) => {
    try {
      budget.left -= view.byteLength;
      weights[stack][layer] = budget.left >= 0 ? view.slice() : null;
      if (interrupt !== null && Atomics.load(interrupt, 0) !== 0) throw new DOMException('the run was interrupted', 'AbortError');
    } catch (error) {
      hook.stopped = { error };
      return error ?? null;
    }
    return undefined;
  };
  hook.stopped = null;
  return hook;
}

function finished(raw, hook) {
  if (hook.stopped) throw hook.stopped.error;
  return orThrow(raw);
}

/**
 * The encoder over `source` ids, keeping its attention while budget.left allows: { weights
 * (per layer, or null), inputs, hidden } (hidden: what the decoder's cross-attention reads).
 */
export function runEncoder(m, ids, codes, budget, interrupt = null) {
  const weights = { encoder: [] };
  const hook = keeper(weights, budget, interrupt);
  const raw = finished(m.module.runModel(m.native(), ids, hook, codes), hook);
  return { weights: weights.encoder, inputs: raw.inputs, hidden: raw.hidden };
}

/**
 * The encoder over `source` ({ ids, tokens, unknown, spans }, of `total` tokens before truncation)
 * and the decoder over `target` ({ ids, tokens }): each attention's weights kept while `budget`
 * bytes allow, in the order they come (the encoder's layers, then each decoder layer's self- and
 * cross-attention). A nonzero interrupt[0] stops it after any layer.
 */
export function runEncoderDecoder(m, source, total, target, { codes, ablated, ablation }, budget, interrupt) {
  const left = { left: budget };
  const ids = Int32Array.from(source.ids);
  const encoder = runEncoder(m, ids, codes, left, interrupt);
  const weights = { decoder: [], cross: [] };
  const hook = keeper(weights, left, interrupt);
  const decoded = finished(m.module.runDecoder(m.native(), target.ids, encoder.hidden, hook, codes), hook);
  return new EncoderDecoderResult({
    source: { ...source, ids, total }, target, codes, ablated, ablation, memory: encoder.hidden, hidden: decoded.hidden,
    weights: { encoder: encoder.weights, ...weights }, inputs: { encoder: encoder.inputs, decoder: decoded.inputs, cross: decoded.crossInputs },
  }, m);
}

export class EncoderDecoderResult {
  #weights; // { encoder, decoder, cross }: per layer a Float32Array (h, nq, nk), or null when not kept
  #inputs; // { encoder, decoder, cross }: per layer what its queries are projected from, (nq × dModel)
  #memory; // the encoder's output, (n_source × dModel): what the cross-attention's keys and values come from
  #codes; // the run's ablation, as C++'s codes
  #model; // the model's compute, for the lazy parts
  #last = null; // { stack, layer, trace }: the most recent trace()

  constructor(raw, model) {
    const { source, target } = raw;
    this.tokens = source.tokens;
    this.ids = source.ids;
    this.unknown = source.unknown;
    this.spans = Object.freeze(source.spans.map((span) => span && Object.freeze(span.slice())));
    this.truncated = source.total > source.ids.length;
    this.totalTokens = source.total;
    this.targetTokens = Object.freeze(target.tokens);
    this.targetIds = target.ids;
    this.encoderDecoder = true;
    this.numLayers = model.numLayers;
    this.numDecoderLayers = model.numDecoderLayers;
    this.numHeads = model.numHeads;
    this.dModel = model.dModel;
    this.causal = false;
    this.hasLmHead = model.hasLmHead;
    this.hidden = raw.hidden; // (n_target × dModel): the decoder's last hidden states
    this.ablated = raw.ablated;
    this.ablation = raw.ablation;
    this.#weights = raw.weights;
    this.#inputs = raw.inputs;
    this.#memory = raw.memory;
    this.#codes = raw.codes;
    this.#model = model;
    Object.freeze(this);
  }

  /** The encoder's self-attention of one head, (n_source × n_source), query rows and key columns. */
  attention(layer, head) {
    return this.#attention('encoder', layer, head);
  }

  /** The decoder's causal self-attention of one head, (n_target × n_target). */
  decoderAttention(layer, head) {
    return this.#attention('decoder', layer, head);
  }

  /** The cross-attention of one head: target rows over source columns, (n_target × n_source). */
  crossAttention(layer, head) {
    return this.#attention('cross', layer, head);
  }

  /** Every intermediate of one attention, recomputed from its kept input: stack 'encoder' (the default), 'decoder' or 'cross'. */
  trace(layer, stack = 'encoder') {
    this.#layer(stack, layer);
    if (this.#last?.layer !== layer || this.#last.stack !== stack) {
      const data = this.#compute('trace()', () => orThrow(this.#model.module.layerTrace(this.#model.native(), layer, this.#inputs[stack][layer],
        this.#codes, stack, stack === 'cross' ? this.#memory : undefined)));
      this.#last = { stack, layer, trace: new AttentionTrace(data, this.dModel, this.numHeads, stack === 'decoder') };
    }
    return this.#last.trace;
  }

  /** The language-model head's scores over the vocabulary for the target token after target position `position`. */
  logits(position) {
    const p = checkInteger('position', position, 0, this.targetIds.length - 1);
    return this.#compute('logits()', () => orThrow(this.#model.module.modelLogits(this.#model.native(), this.hidden.subarray(p * this.dModel, (p + 1) * this.dModel))));
  }

  /** The k likeliest target tokens after target position `position`, [{ token, id, probability }]. */
  predictions(position, k = 5) {
    const logits = this.logits(position);
    checkInteger('k', k, 1, logits.length);
    return likeliest(logits, k, this.#model.tokenText).top;
  }

  /** What an attention's queries are projected from, (n × dModel): stack 'encoder', 'decoder' or 'cross'. */
  layerInput(layer, stack = 'encoder') {
    return this.#inputs[stack][this.#layer(stack, layer)].slice();
  }

  #attention(stack, layer, head) {
    this.#layer(stack, layer);
    checkInteger('head', head, 0, this.numHeads - 1);
    const rows = stack === 'encoder' ? this.ids.length : this.targetIds.length;
    const columns = stack === 'decoder' ? this.targetIds.length : this.ids.length;
    const kept = this.#weights[stack][layer];
    if (kept === null) return this.trace(layer, stack).weights(head);
    const start = head * rows * columns;
    return withShape(kept.slice(start, start + rows * columns), rows, columns);
  }

  #layer(stack, layer) {
    if (!STACKS.includes(stack)) throw new TypeError(`stack must be 'encoder', 'decoder' or 'cross', got ${describe(stack)}`);
    return checkInteger('layer', layer, 0, (stack === 'encoder' ? this.numLayers : this.numDecoderLayers) - 1);
  }

  #compute(what, compute) {
    if (!this.#model.alive()) {
      throw new Error(`The model that made this result has been disposed: ${what} computes from the model, so call it before dispose()`);
    }
    return compute();
  }
}

/** An ablation entry's stack, checked: 'encoder' when absent. */
export function ablationStack(entry, i, encoderDecoder) {
  const stack = entry.stack ?? 'encoder';
  if (!STACKS.includes(stack)) throw new TypeError(`ablate[${i}].stack must be 'encoder', 'decoder' or 'cross', got ${describe(stack)}`);
  if (!encoderDecoder && stack !== 'encoder') {
    throw new RangeError(`ablate[${i}].stack is '${stack}', but this model has one stack of layers: leave stack out`);
  }
  return stack;
}

import { AttentionTrace, HeadWeights } from '../engine/trace.js';

/** A special token: its id, and its text as tokenizer.json spells it. */
export interface SpecialToken {
  readonly id: number;
  readonly text: string;
}

/** A transformer in WASM memory. Made by engine.loadModel(); dispose() when done. */
export class Model {
  private constructor();
  /** config.json's model_type: one of engine.architectures' modelType. */
  readonly architecture: string;
  /** The architecture as a sentence names it: 'BERT', 'GPT-2', 'Gemma 3'. */
  readonly architectureName: string;
  /** True for the decoders (GPT-2, GPT-NeoX, Llama, Mistral, Qwen2, Qwen3, Gemma 3): each token sees only itself and the tokens before it. */
  readonly causal: boolean;
  /**
   * True for T5, BART and Marian: an encoder reads the source and a decoder writes the target,
   * its cross-attention reading the encoder's output. run(source, { target }) then gives an
   * EncoderDecoderResult; numLayers counts the encoder's layers and numDecoderLayers the decoder's.
   */
  readonly encoderDecoder: boolean;
  /** An encoder–decoder's decoder layers (each has a self-attention and a cross-attention); 0 for the others. */
  readonly numDecoderLayers: number;
  /**
   * An encoder–decoder's decoder start: config.json's decoder_start_token_id, then its
   * forced_bos_token_id if it has one (BART: [2, 0]); null for the others.
   */
  readonly decoderStartIds: readonly number[] | null;
  /** T5's task prefixes from config.json's task_specific_params ({ translation_en_to_de: 'translate English to German: ' }); empty otherwise. */
  readonly taskPrefixes: Readonly<Record<string, string>>;
  /** Whether model.safetensors holds a language-model head, so results can predict tokens. */
  readonly hasLmHead: boolean;
  readonly vocabSize: number;
  readonly dModel: number;
  readonly numLayers: number;
  /** Query heads per layer. */
  readonly numHeads: number;
  /**
   * Key/value heads per layer: numHeads, or fewer with grouped-query attention, where query head h
   * reads key/value head ⌊h / (numHeads / numKeyValueHeads)⌋ (SmolLM2-135M: 9 on 3).
   */
  readonly numKeyValueHeads: number;
  /** The width of each head's queries, keys and values: dModel / numHeads unless config.json says otherwise. */
  readonly headDim: number;
  /**
   * Most tokens one run() keeps, special tokens included: the model's positions (512 for BERT,
   * 1024 for GPT-2; RoBERTa's 514 less the two its numbering skips).
   */
  readonly maxTokens: number;
  /**
   * The tokens with a job, from tokenizer.json: `mask`, the token a masked LM fills in ([MASK],
   * <mask>; the special token spelled "mask" in brackets), and `closing`, the special token the
   * tokenizer ends every text with ([SEP], </s>). Either is null when the tokenizer has none
   * (GPT-2 has neither).
   */
  readonly specialTokens: { readonly mask: SpecialToken | null; readonly closing: SpecialToken | null };
  /**
   * Where generate() stops: generation_config.json's eos_token_id when the model has that file,
   * else config.json's, as a list (empty when neither has one).
   */
  readonly eosTokenIds: readonly number[];
  /** tokenizer_config.json's chat template (Jinja), or null: generate({ messages }) renders it. */
  readonly chatTemplate: string | null;
  /**
   * How many keys a query of `layer` (from 0) sees through its sliding window, the last ones with
   * its own included, or null when the layer attends to every key its mask allows (every layer of
   * BERT, GPT-2 or Llama; each layer of Mistral with a sliding_window; Gemma 3's sliding layers,
   * five of every six).
   */
  attentionWindow(layer: number): number | null;
  /**
   * The rotary position embedding (RoPE) of `layer`: the first `dimensions` of each head rotate in
   * pairs (i, i + dimensions / 2) by position × frequencies[i] radians (dimensions / 2 of them,
   * fastest first); null for a model whose positions are not rotary.
   */
  rotation(layer: number): { readonly dimensions: number; readonly frequencies: readonly number[] } | null;
  readonly disposed: boolean;
  /**
   * Tokenizes `prompt` and runs every layer. Longer text is truncated to maxTokens (keeping the
   * closing special token, when the tokenizer has one); the result says so. A long text is
   * tokenized only up to a place past the tokens kept where cutting it changes none of them, so a
   * 10 MB paste costs about what a page of text does, and totalTokens is then a lower bound. Empty or
   * whitespace-only text throws a RangeError. A `{ messages }` prompt is rendered as generate()
   * renders it. With `options.continuation`, those token ids follow the prompt's: a writing's
   * output run again gives the writing's result.
   */
  run(prompt: string | { messages: ChatMessage[] }, options?: RunOptions): ModelResult;
  /**
   * An encoder–decoder's run: the encoder over `source` (truncated as a prompt is), then the
   * decoder over decoderStartIds followed by the target's tokens (text, tokenized without special
   * tokens, or { ids }; none by default), as Hugging Face shifts a target right.
   */
  run(source: string, options: RunOptions & { target?: string | { ids: readonly number[] | Int32Array } }): EncoderDecoderResult;
  /**
   * Writes after `prompt` (a causal model with its LM head only), token by token, over a KV
   * cache: iterate the Writing for its steps, as each is made; its `result` resolves to the
   * ModelResult over prompt and output, however the writing ended. A `{ messages }` prompt goes
   * through the model's chatTemplate first, and the text it renders is tokenized without the
   * tokenizer's special tokens (the template writes them), within bounds (an untrusted template
   * throws an Error named TemplateBoundError, whose `bound` is 'characters', 'work', 'blocks' or
   * 'time', once its text or a value passes 32 characters per token of maxTokens, it makes 2²⁶
   * characters in all, renders 100,000 blocks or runs 500 ms). Throws for a masked LM, an empty
   * prompt, a prompt longer than maxTokens, a chat without a template or one that fails to
   * render or passes its bounds, or a bad option.
   */
  generate(prompt: string | { messages: ChatMessage[] }, options?: GenerateOptions): Writing;
  /**
   * An encoder–decoder writes the target for `source`: the encoder runs once, then each step one
   * target token after decoderStartIds (which are not steps and do not count toward
   * maxNewTokens), each step with its crossAttention row. Greedy by default; config.json's
   * num_beams and no_repeat_ngram_size are not applied, and Marian's pad is never chosen.
   */
  generate<Result extends EncoderDecoderResult>(source: string, options?: GenerateOptions): Writing<Result>;
  /**
   * The tokenizer alone: the ids and token labels run() would get for `text`, before truncation.
   * It reads the whole text, so its cost grows with the text's length, where run() reads a long
   * text only as far as it keeps; ids.length is the whole text's count of tokens.
   */
  tokenize(text: string): { ids: Int32Array; tokens: string[] };
  /**
   * The text of token ids together, through the tokenizer's decoder (a byte-level model's bytes
   * become their characters once all are there); with skipSpecialTokens, without tokenizer.json's
   * special tokens (<|endoftext|>, [CLS], [SEP]…). An id outside the vocabulary throws a RangeError.
   */
  decode(ids: readonly number[] | Int32Array, options?: { skipSpecialTokens?: boolean }): string;
  /**
   * One vocabulary entry: its text as the tokenizer writes it alone (" cat" for GPT-2's "Ġcat"),
   * and whether it is one of tokenizer.json's special tokens ([CLS], <|endoftext|>, [UNK]…).
   */
  token(id: number): { text: string; special: boolean };
  /**
   * Activation patching: runs `clean` and `corrupted` (texts, or token ids), which must have the
   * same number of tokens (else a RangeError names both counts), then the corrupted one again with
   * one piece of the clean run put in, and reports how much of the logit difference
   * token − against at `position` comes back: 0 as in the corrupted run, 1 as in the clean one.
   * Each patched run starts from the layer it patches. Rejects with signal.reason when aborted.
   */
  patch(options: PatchOptions): Promise<PatchResult>;
  /** Frees the model's WASM memory. Later calls throw; a second dispose() does nothing. */
  dispose(): void;
}

/** A token of the vocabulary: its id, or a string the tokenizer makes into exactly one token (" William"). */
export type TokenChoice = number | string;

export interface PatchOptions {
  clean: string | number[] | Int32Array;
  corrupted: string | number[] | Int32Array;
  /** Default: the clean run's top prediction at `position`. */
  token?: TokenChoice;
  /** Default: the corrupted run's top prediction, or the clean run's second when they agree. */
  against?: TokenChoice;
  /**
   * 'heads' (default): each head's output at every position, one head at a time (numLayers ×
   * numHeads runs). 'positions': the residual stream entering each layer at each position
   * (numLayers × n runs).
   */
  over?: 'heads' | 'positions';
  /** Default: the last position of a causal model, the first mask token of a masked one. */
  position?: number;
  onProgress?: (progress: { done: number; total: number }) => void;
  signal?: AbortSignal;
}

export interface PatchResult {
  readonly over: 'heads' | 'positions';
  readonly position: number;
  /** Per layer, one value per head or per position: (patched − corrupted) / (clean − corrupted). */
  readonly values: readonly Float64Array[];
  readonly token: { readonly id: number; readonly text: string };
  readonly against: { readonly id: number; readonly text: string };
  /** The clean and corrupted runs' logit differences (after Gemma's final soft cap, as the model predicts). */
  readonly clean: number;
  readonly corrupted: number;
  readonly tokens: { readonly clean: readonly string[]; readonly corrupted: readonly string[] };
  readonly runs: number;
  readonly elapsedMs: number;
}

/** Direct logit attribution at one position (ModelResult.contributions). */
export interface Contributions {
  readonly position: number;
  readonly token: { readonly id: number; readonly text: string };
  readonly against: { readonly id: number; readonly text: string } | null;
  /** heads[layer][head]: the head's output through its slice of the output projection, its value bias included. */
  readonly heads: readonly Float64Array[];
  /** Each layer's MLP, its output bias included. */
  readonly mlps: Float64Array;
  /** The embeddings, positions included. */
  readonly embeddings: number;
  /** The output projections' biases and the norms' betas (and a masked LM head's biases). */
  readonly biases: number;
  /** The sum of every part. */
  readonly total: number;
  /** The model's own logit (difference), before any final soft cap: what the parts sum to. */
  readonly logit: number;
  /** The final soft cap the parts leave out (Gemma's), or null. */
  readonly softcap: number | null;
}

/** AttentionViz's map of one head's queries and keys (ModelResult.queryKeyMap). */
export interface QueryKeyMap {
  /** (x, y) per token's query, interleaved. */
  readonly queries: Float32Array;
  /** (x, y) per token's key, interleaved. */
  readonly keys: Float32Array;
  /** The share of the variance of the queries and keys together each axis explains. */
  readonly explained: readonly [number, number];
}

/** A head, counted from 0: layer 0 is the first. */
export interface HeadId {
  layer: number;
  head: number;
  /** An encoder–decoder's attention the head belongs to: 'encoder' (the default), 'decoder' or 'cross'. */
  stack?: 'encoder' | 'decoder' | 'cross';
}

/** Model.run's options. */
export interface RunOptions {
  /**
   * Heads to switch off (each at most once). An ablated head still computes its attention weights
   * (result.attention shows them), but what it passes to its layer's output projection is replaced
   * as `ablation` says, so every later layer and the predictions change.
   */
  ablate?: HeadId[];
  /**
   * 'zero' (default): the head's output is zero, as a 0 in Hugging Face's head_mask makes it.
   * 'mean': the head's output averaged over the sentence's positions; in a causal model, at
   * position t over positions 0..t (a running mean: it does nothing at position 0, and a writing
   * applies it step by step exactly as a run of its text does).
   */
  ablation?: 'zero' | 'mean';
  /**
   * The most bytes of attention weights the result keeps (default 512 MiB). Layers are kept from
   * the first while their weights (numHeads × n² floats each) fit; the others are recomputed from
   * their inputs when attention(layer, head) asks for them, which needs the model alive. A
   * 1024-token run of Qwen2.5-0.5B (24 layers of 14 heads) would otherwise keep 1.3 GiB.
   */
  maxAttentionBytes?: number;
  /**
   * The most tokens the run keeps, from 1 to the model's maxTokens (its default): a longer text is
   * truncated as the model's limit truncates it, and `truncated` says so.
   */
  maxTokens?: number;
  /**
   * Token ids run after the prompt's, as generate() wrote them (never truncated: prompt and
   * continuation must fit in maxTokens together).
   */
  continuation?: readonly number[] | Int32Array;
  /**
   * Stops the run: run() reads interrupt[0] before the first layer and after each, and throws an
   * AbortError ("the run was interrupted") once it is nonzero. run() is synchronous, so only
   * another thread can set it mid-run: put it on a SharedArrayBuffer (the page's worker gets one
   * from the page, which sets it when the reader has typed on).
   */
  interrupt?: Int32Array;
  /**
   * Called as each layer is computed, before the next one starts, so a page can show the first
   * layers while the others run. What it throws stops the run, and run() throws it.
   */
  onLayer?: (done: LayerDone) => void;
}

/** What run()'s onLayer is given: one layer, computed, and the tokens the result will hold. */
export interface LayerDone {
  /** The layer just computed, from 0. */
  readonly layer: number;
  readonly ids: Int32Array;
  readonly tokens: readonly string[];
  readonly unknown: readonly boolean[];
  readonly truncated: boolean;
  readonly totalTokens: number;
  /**
   * One head's weights of this layer, (n × n), as the result's attention(layer, head) will give
   * them: a copy, read during the call only (afterwards it throws).
   */
  attention(head: number): HeadWeights;
}

/** One turn of a chat: role 'system', 'user' or 'assistant' (as the template knows them). */
export interface ChatMessage {
  role: string;
  content: string;
}

/** Model.generate's options. */
export interface GenerateOptions {
  /** The most tokens to write (default 32); the model's maxTokens stops it too. */
  maxNewTokens?: number;
  /** 0 (default) writes the likeliest token; above 0 samples from softmax(logits / temperature). */
  temperature?: number;
  /** When sampling: only the topK likeliest tokens (default 0: all). */
  topK?: number;
  /** When sampling: only the fewest likeliest tokens whose probabilities reach topP (default 1). */
  topP?: number;
  /** Hugging Face's: the logits of tokens already in the text divided (if positive) or multiplied by it (default 1: none). */
  repetitionPenalty?: number;
  /** The sampler's seed, 0 to 2³² − 1 (default 0): the same seed writes the same tokens at any thread count. */
  seed?: number;
  /** Token ids, or strings of the written text, that end the writing once written (included). */
  stop?: string | number | (string | number)[];
  /** Ends the writing between two steps: the iteration throws signal.reason. */
  signal?: AbortSignal;
  /** Heads switched off for every step, as run()'s. */
  ablate?: HeadId[];
  ablation?: 'zero' | 'mean';
}

/** One step of a writing: the token written and its query's attention over every key so far. */
export interface WritingStep {
  /** The step's number, from 0. */
  readonly index: number;
  /** The token's position in the text (prompt included), from 0. */
  readonly position: number;
  readonly id: number;
  /** As the tokenizer writes it alone. */
  readonly token: string;
  /**
   * Everything written so far, this token included, decoded together without special tokens
   * (model.decode): joining the steps' `token`s is not the text ("williamatthe…", an emoji in bytes).
   */
  readonly text: string;
  /** The model's own probability for it (softmax of its logits, before temperature and top-k/p). */
  readonly probability: number;
  /** The likeliest five tokens at this position, with the model's probabilities. */
  readonly alternatives: readonly Prediction[];
  /** This token's attention row in `layer` and `head`: (1 × position + 1), nQueries 1, nKeys position + 1. An encoder–decoder's: its decoder's self-attention. */
  attention(layer: number, head: number): Float32Array & { nQueries: number; nKeys: number };
  /** An encoder–decoder's step only: this token's cross-attention row over the source, (1 × source tokens). */
  crossAttention?(layer: number, head: number): Float32Array & { nQueries: number; nKeys: number };
  /** Time to choose the token and run it (the first step's leaves out the prompt's run, Writing.prefillMs). */
  readonly elapsedMs: number;
}

/** What Model.generate returns: an async iterable of its steps, used once. */
export interface Writing<Result = ModelResult> extends AsyncIterable<WritingStep>, AsyncIterator<WritingStep> {
  /**
   * The ModelResult over prompt and output (an encoder–decoder's EncoderDecoderResult over the
   * source and the target written), however it ended; it rejects only if the model is disposed
   * while it writes, or if the prompt itself failed to run (with that error).
   */
  readonly result: Promise<Result>;
  /** Why it ended, once it has: 'eos', 'stop', 'maxNewTokens', 'length' (the model's), 'aborted', 'returned' (a loop's break) or 'error'. */
  readonly stopReason: 'eos' | 'stop' | 'maxNewTokens' | 'length' | 'aborted' | 'returned' | 'error' | null;
  /** How long the prompt took to run, in ms, once it has (null before the first step). */
  readonly prefillMs: number | null;
  /** What it wrote, decoded without special tokens, once it has ended (null before): Transformers.js's generated_text. */
  readonly text: string | null;
}

/** One of result.predictions(): a token, its id, and the head's probability for it. */
export interface Prediction {
  /** The token as the tokenizer writes it alone: "##ing", " cat" (GPT-2's "Ġcat"), "[MASK]". */
  token: string;
  id: number;
  probability: number;
}

/**
 * What Model.run returns. Tokens, attention weights, layer inputs and hidden states are plain
 * JavaScript data, valid after the model's dispose(). trace(), logits() and predictions()
 * compute from the model when called, so they need it alive (they throw once it is disposed):
 * a run keeps no vocabulary-sized scores, and no layer's full trace but the last one trace() made.
 */
/**
 * An encoder–decoder's run: three kinds of attention. Query rows, key columns, each carrying its
 * shape as nQueries and nKeys. Weights are kept while they fit in maxAttentionBytes and otherwise
 * recomputed from the kept inputs, which needs the model alive.
 */
export class EncoderDecoderResult {
  private constructor();
  /** The source's tokens, as a run's. */
  readonly tokens: readonly string[];
  readonly ids: Int32Array;
  readonly unknown: readonly boolean[];
  readonly spans: readonly (readonly [number, number] | null)[];
  readonly truncated: boolean;
  readonly totalTokens: number;
  /** The decoder's input: the start tokens, then the target's (without its closing </s>). */
  readonly targetTokens: readonly string[];
  readonly targetIds: Int32Array;
  readonly encoderDecoder: true;
  readonly numLayers: number;
  readonly numDecoderLayers: number;
  readonly numHeads: number;
  readonly dModel: number;
  readonly causal: false;
  readonly hasLmHead: boolean;
  /** The decoder's last hidden states, (targetIds.length × dModel). */
  readonly hidden: Float32Array;
  readonly ablated: readonly Required<HeadId>[];
  readonly ablation: 'zero' | 'mean' | null;
  /** The encoder's self-attention, (source × source). */
  attention(layer: number, head: number): HeadWeights;
  /** The decoder's causal self-attention, (target × target). */
  decoderAttention(layer: number, head: number): HeadWeights;
  /** The cross-attention: target rows over source columns. */
  crossAttention(layer: number, head: number): HeadWeights;
  /** One attention's every intermediate, recomputed from its input. */
  trace(layer: number, stack?: 'encoder' | 'decoder' | 'cross'): AttentionTrace;
  /** What one attention's queries are projected from, (n × dModel). */
  layerInput(layer: number, stack?: 'encoder' | 'decoder' | 'cross'): Float32Array;
  /** The LM head's scores for the target token after target position `position`. */
  logits(position: number): Float32Array;
  /** The k likeliest target tokens after target position `position`. */
  predictions(position: number, k?: number): Prediction[];
}

export class ModelResult {
  private constructor();
  /**
   * One label per position: the slice of the text the token came from, as typed, whatever the
   * tokenizer's normalizer does ("CAT" for the id of "cat", "ING" for the piece "##ing", " cat"
   * with its space for GPT-2's "Ġcat"). Tokens split from one character (a byte-level model's
   * bytes of an emoji) each show that character; tokens the tokenizer adds ([CLS], [SEP], <s>) show
   * as themselves. Where the labelling cannot follow a tokenizer's pipeline exactly (its replay of
   * the pipeline gives other tokens than @huggingface/tokenizers does), every label of that run is
   * the library's own token string instead ("cat", "##ing", "Ġcat"); the ids are the same either way.
   */
  readonly tokens: string[];
  /**
   * Where each token came from in the text, [start, end) in UTF-16 units, or null for a token the
   * tokenizer added ([CLS], [SEP], <|endoftext|>). All are null when the labels fell back to the
   * library's token strings (see tokens).
   */
  readonly spans: readonly (readonly [number, number] | null)[];
  /** The tokenizer's ids, as @huggingface/tokenizers gives them. */
  readonly ids: Int32Array;
  /** True where the text is not in the vocabulary (the token's id is the unknown token's, [UNK]). */
  readonly unknown: boolean[];
  /** True when the text had more tokens than the model's positions (or run()'s maxTokens). */
  readonly truncated: boolean;
  /**
   * tokens.length when not truncated. When truncated, at least tokens.length + 1: a long text is
   * tokenized only in part (run()), and this counts the tokens read, the whole text's when it was
   * short enough to be read whole. Model.tokenize(text).ids.length counts every token.
   */
  readonly totalTokens: number;
  readonly numLayers: number;
  readonly numHeads: number;
  /** @deprecated numLayers, under its former name. */
  readonly layers: number;
  /** @deprecated numHeads, under its former name. */
  readonly heads: number;
  readonly dModel: number;
  /** The model's causal flag: attention(l, h) is zero above the diagonal. */
  readonly causal: boolean;
  readonly hasLmHead: boolean;
  /** The final hidden states, (n × dModel) row-major: the last block's output (GPT-2: after ln_f). */
  readonly hidden: Float32Array;
  /** The heads run() switched off, in layer then head order; empty when none was. */
  readonly ablated: readonly HeadId[];
  /** How they were switched off, or null when none was. */
  readonly ablation: 'zero' | 'mean' | null;
  /**
   * Attention weights of one head in one layer, (nQueries × nKeys, both n here): query rows, key
   * columns. A layer past keptLayers is recomputed from its input (the same numbers), which needs
   * the model alive.
   */
  attention(layer: number, head: number): HeadWeights;
  /** How many layers' attention weights the result keeps, from layer 0 (run's maxAttentionBytes). */
  readonly keptLayers: number;
  /**
   * What one layer's attention reads, (n × dModel) row-major. BERT family: for layer 0 the
   * embeddings after the embedding LayerNorm, for layer l > 0 the output of layer l − 1. GPT-2:
   * ln_1 of the block's input.
   */
  layerInput(layer: number): Float32Array;
  /**
   * Every intermediate of one layer's attention (Q, K, V, scores, weights, head outputs),
   * computed now from layerInput(layer); the most recent one is kept, so asking again is free.
   */
  trace(layer: number): AttentionTrace;
  /**
   * The language-model head's raw scores over the vocabulary at `position` (vocabSize values):
   * for a masked LM what it would put at that position ([MASK]), for a causal LM the token it
   * expects next. Throws when the model has no head.
   */
  logits(position: number): Float32Array;
  /** The k (default 5) most likely tokens at `position` (see logits), most likely first. */
  predictions(position: number, k?: number): Prediction[];
  /**
   * Direct logit attribution: the logit of `token` at `position` (default: the top prediction),
   * or the difference token − against, split into what each head, each MLP, the embeddings and
   * the biases write into the residual stream, read through the final norm (and, in a post-norm
   * model, every later norm) frozen at its real scale. The parts sum to the logit. With heads
   * switched off, the attribution is the ablated run's.
   */
  contributions(position: number, options?: { token?: TokenChoice; against?: TokenChoice }): Contributions;
  /**
   * The logit lens at `position`: numLayers + 1 lists of the k (default 5) likeliest tokens,
   * from the embeddings and after each layer, read through the final norm and the LM head. The
   * last equals predictions(position, k).
   */
  logitLens(position: number, k?: number): Prediction[][];
  /** One head's queries and keys (after RoPE) projected on their top two principal components. */
  queryKeyMap(layer: number, head: number): QueryKeyMap;
}

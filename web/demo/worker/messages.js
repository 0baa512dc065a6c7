// The messages between the page (session.js, through limited-worker.js) and its worker
// (worker.js), as types both sides import, and the one limit both sides know. Arrays in answers are
// moved, not copied: once posted, the worker no longer has them.

/**
 * The most tokens the page runs: Qwen2.5-0.5B at 1024 is 24 × 14 heads of 1024² weights; models take
 * up to 4096. The worker cuts the text there, and the status line says so.
 */
export const PAGE_MAX_TOKENS = 1024;

/**
 * New inputs bring every layer's weights to the page while they take at most this many bytes
 * (BERT-base at 128 tokens takes 9 MiB), so another layer shows at once; past it, only the layers
 * asked for cross, one view at a time.
 */
export const ALL_LAYERS_BYTES = 64 * 2 ** 20;

// ── From the page ──────────────────────────────────────────────────────────────────────────────

/**
 * The first message: load the engine and this model (the built-in one when it is null, or when it
 * cannot load); the worker answers with a Ready. `interrupt` (on a SharedArrayBuffer, in a
 * cross-origin isolated page) is what the page sets to 1 to stop the run in flight between two
 * layers, once the reader has typed past it, and back to 0 before each run it sends.
 * @typedef {{ type: 'start', source: ModelSource | null, hubUrl?: string, revision?: string, interrupt: Int32Array | null }} Start
 */

/**
 * Load another model while the current one keeps answering; progress comes as LoadProgress, the
 * end as Loaded or LoadFailed. CancelLoad stops it. `revision` is a Hub model's (undefined: main).
 * @typedef {{ type: 'load', loadId: number, source: ModelSource, hubUrl?: string, revision?: string }} Load
 * @typedef {{ type: 'cancel-load', loadId: number }} CancelLoad
 */

/**
 * What engine.loadModel takes: a Hub id, a built-in model's { builtin }, or the three Files.
 * @typedef {string | { builtin: string } | { config: File, tokenizer: File, weights: File }} ModelSource
 */

/**
 * Run `text` (with `chat`, as the one user message of a chat through the model's template; with
 * `written`, followed by those ids, as a writing wrote them; the last run is kept, so another layer's trace or another position's predictions
 * do not run the model again) and answer with what is asked: for inputs the page has nothing of
 * yet (`fresh`), the head roles, and every layer's weights when they fit in ALL_LAYERS_BYTES; the
 * weights of the layers in `layers`; the model view's pooled thumbnails (`overview`); the average
 * of a layer's heads or the rollout up to it (`summary`); one layer's full trace (`trace`, a layer index or null); the predictions
 * after token `at` of a causal model; the strip of the written tokens (`steps`). `toy` runs the page's toy layer on the text's embeddings
 * instead. `ablate` switches heads off as `ablation` says. The answer is a RunAnswer or RunError
 * with the same id. With `stream`, a fresh run whose layers all go to the page sends them as they
 * are computed, in RunLayers (the answer then leaves them out), so the view draws the first layers
 * while the others run. For the Why? view, `why` asks for the parts of the logit at a position
 * (null: the default one) of a token (empty: the top prediction) against another (empty: none),
 * with the logit lens and a suggested corruption, and `queryKeys` for one head's query–key map.
 * An encoder–decoder's text is its source, `written` its target so far, and `stack` the attention
 * every answer is of: the encoder's, the decoder's or the cross-attention (worker/stack-run.js).
 * @typedef {{ type: 'run', id: number, text: string, toy: ToySettings | null, fresh: boolean, layers: number[],
 *   overview: boolean, summary: { kind: 'average' | 'rollout', layer: number } | null, trace: number | null, at: number | null, ablate?: Head[],
 *   ablation?: 'zero' | 'mean', chat?: boolean, written?: number[], steps?: boolean, stream?: boolean,
 *   why?: WhyRequest | null, queryKeys?: { layer: number, head: number } | null, stack?: Stack }} RunRequest
 * @typedef {'encoder' | 'decoder' | 'cross'} Stack
 * @typedef {{ position: number | null, token: string, against: string }} WhyRequest
 * @typedef {{ dModel: number, numHeads: number, numKeyValueHeads: number, causal: boolean, seed: number }} ToySettings
 * @typedef {{ layer: number, head: number }} Head
 */

/**
 * Measure every head over the probe set: RolesProgress, then RolesMeasured or RolesFailed.
 * CancelMeasure stops it.
 * @typedef {{ type: 'measure-roles', measureId: number }} MeasureRoles
 * @typedef {{ type: 'cancel-measure', measureId: number }} CancelMeasure
 */

/**
 * Patch every head's output from the run of `text` (with `chat` and `written`, as a RunRequest)
 * into the run of `corrupted` (the same text with one word swapped, followed by the same written
 * ids), one head at a time, for the logit difference `token − against` at `position` (as in a
 * WhyRequest; against empty: the corrupted run's top token): PatchProgress, then Patched or
 * PatchFailed. CancelPatch stops it; a newer Patch replaces it.
 * @typedef {{ type: 'patch', patchId: number, text: string, chat: boolean, written: number[], corrupted: string,
 *   position: number | null, token: string, against: string }} Patch
 * @typedef {{ type: 'cancel-patch', patchId: number }} CancelPatch
 */

/**
 * Write after `text` (with `chat`, the user message of a chat): WriteStep per token, then WriteDone.
 * Each step carries the new query's rows of the `layers` the page holds (an encoder–decoder's, of
 * its `stack`: the decoder's or the cross-attention). CancelWrite stops it between two steps (what
 * was written stays), as does a newer Write.
 * @typedef {{ type: 'write', writeId: number, text: string, chat: boolean, options: WriteOptions, ablate: Head[],
 *   ablation: 'zero' | 'mean', layers: number[], stack?: Stack }} Write
 * @typedef {{ maxNewTokens: number, temperature: number, topK: number, topP: number, seed: number }} WriteOptions
 * @typedef {{ type: 'cancel-write', writeId: number }} CancelWrite
 */

// ── From the worker ────────────────────────────────────────────────────────────────────────────

/**
 * @typedef {{ type: 'ready', info: ModelInfo }} Ready
 * @typedef {{ type: 'error', message: string }} StartError the engine or every model failed to load
 */

/**
 * What the page shows of a model: its kind, its sizes, its special tokens (from its tokenizer:
 * maskToken is null for a model that has none) and the engine build. `fallback` says why the
 * start model could not load, when the built-in one stands in.
 * `kvHeads` gives the key/value head each query head reads, and `windows` each layer's sliding
 * window (the keys a query sees), or null for full attention. `chat`: the model has a chat template.
 * An encoder–decoder (`encoderDecoder`) has numLayers in its encoder and numDecoderLayers in its
 * decoder, T5's task prefixes ({ task: prefix }), and `translates` when it is a translation model
 * (Marian) or offers a translation task.
 * @typedef {{ build: 'relaxed-simd' | 'simd' | 'scalar', threads: number, architecture: string, architectureName: string, causal: boolean, hasLmHead: boolean,
 *   encoderDecoder: boolean, numDecoderLayers: number, taskPrefixes: Record<string, string>, translates: boolean,
 *   dModel: number, numLayers: number, numHeads: number, numKeyValueHeads: number, headDim: number,
 *   kvHeads: number[], windows: (number | null)[], maxTokens: number, vocabSize: number,
 *   maskToken: string | null, closingToken: string | null, chat: boolean, fallback: string }} ModelInfo
 */

/**
 * @typedef {{ type: 'progress', loadId: number, file: string, loaded: number, total: number | null }} LoadProgress
 * @typedef {{ type: 'loaded', loadId: number, info: ModelInfo }} Loaded
 * @typedef {{ type: 'load-failed', loadId: number, message: string, aborted: boolean }} LoadFailed
 */

/**
 * The answer to a RunRequest: the tokens always; `layers`, `overview`, `summary` and `trace` as
 * asked (the toy layer's trace always); `roles` for fresh inputs; `predictions` of a model with an
 * LM head; for fresh inputs with heads switched off, `changes` (per layer, how far its output
 * moved). The shape of the model's attention (kvHeads, windows) is in its ModelInfo, sent once. An
 * encoder–decoder's cross-attention has `keyTokens` (the source's) besides its rows' `tokens`
 * (the target's), and its fresh answers the `alignment` its cross head roles read (cross-roles.js).
 * @typedef {{ type: 'result', id: number, tokens: string[], unknown: boolean[], truncated: boolean, totalTokens: number,
 *   causal: boolean, hasLmHead: boolean, ablated: Head[], ablation: string | null, ms: number,
 *   layers?: { layer: number, numHeads: number, weights: Float32Array[] }[], roles?: object[], changes?: number[],
 *   overview?: { block: number, labels: string[], layers: ({ weights: Float32Array[] } | null)[] },
 *   summary?: { kind: 'average' | 'rollout', layer: number, weights: Float32Array },
 *   trace?: { layer: number } & object, predictions?: Prediction[], steps?: WrittenStep[],
 *   why?: WhyAnswer, queryKeys?: object, keyTokens?: readonly string[], keyUnknown?: readonly boolean[],
 *   alignment?: { columns: (number | null)[], diagonal: number | null } }} RunAnswer
 * The Why? view's answer (why-data.js): `contributions` and `lens` at `position`, and `suggested`,
 * a corruption for patching ({ text, from, to }, or null), or `error` when the token or against
 * given is not one token of the vocabulary (the rest of the answer stands).
 * @typedef {{ position: number, contributions?: object, lens?: object, suggested?: object | null, error?: string }} WhyAnswer
 * Layers of a streamed run (`runId`: the RunRequest's id), before its answer: per layer, its head
 * roles, each head's weights (when the answer would have brought every layer's) and its model-view
 * thumbnails (when it would have brought a pooled overview, whose blocks `overview` gives), and the
 * tokens the answer will have. The answer's overview then has null for the layers streamed.
 * @typedef {{ type: 'run-layers', runId: number, layers: { layer: number, roles: object[], weights?: Float32Array[], thumbnails?: Float32Array[] }[],
 *   overview?: { block: number, labels: readonly string[] }, tokens: readonly string[], unknown: readonly boolean[], truncated: boolean, totalTokens: number }} RunLayers
 * A run that failed, or (`interrupted`) that the page's interrupt stopped.
 * @typedef {{ type: 'error', id: number, message: string, interrupted?: boolean }} RunError
 * @typedef {{ position: number, top: { token: string, id: number, probability: number, before?: number }[],
 *   now?: { token: string, id: number, probability: number }[] }} Prediction
 */

/**
 * A step of a writing: the token written (the model's probability for it and its likeliest
 * alternatives, at the position before it) and, per layer asked for, each head's row of the new
 * query over every key so far (1 × position + 1). `prefillMs` is the prompt's time.
 * @typedef {{ type: 'write-step', writeId: number, step: WrittenStep, prefillMs: number | null,
 *   rows: { layer: number, weights: Float32Array[] }[] }} WriteStep
 * @typedef {{ index: number, position: number, id: number, token: string, probability: number,
 *   alternatives: { token: string, id: number, probability: number }[], elapsedMs?: number }} WrittenStep
 * How a writing ended: its Writing's stopReason, and the error's message when one stopped it.
 * @typedef {{ type: 'write-done', writeId: number, reason: string, prefillMs: number | null, message: string }} WriteDone
 */

/**
 * @typedef {{ type: 'patch-progress', patchId: number, done: number, total: number }} PatchProgress
 * @typedef {{ type: 'patched', patchId: number, patch: object }} Patched model.patch()'s result, with `corruptedTokens`
 * @typedef {{ type: 'patch-failed', patchId: number, message: string, aborted: boolean }} PatchFailed
 */

/**
 * @typedef {{ type: 'roles-progress', measureId: number, done: number, total: number }} RolesProgress
 * @typedef {{ type: 'roles-measured', measureId: number, measured: object }} RolesMeasured
 * @typedef {{ type: 'roles-failed', measureId: number, message: string, aborted: boolean }} RolesFailed
 */


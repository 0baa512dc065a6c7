// Compiled (not run) by `tsc -p tests/types`: the hand-written .d.ts files must describe the
// package as the README uses it. A wrong or missing declaration fails the type check.
import {
  ROLES, averageHeads, deleteCachedModel, headRoles, listCachedModels, loadEngine, relaxedSimdSupported, rollout, simdSupported, type AttentionTrace, type Engine,
  type HeadRole, type LayerDone, measureHeadRoles,
} from 'multihead';

const engine: Engine = await loadEngine({ simd: simdSupported(), relaxedSimd: relaxedSimdSupported() });
const build: 'relaxed-simd' | 'simd' | 'scalar' = engine.build;
// @ts-expect-error relaxedSimd is a boolean
await loadEngine({ relaxedSimd: 'yes' });
const threads: number = (await loadEngine({ threads: 2 })).threads + engine.threads;
// @ts-expect-error threads is a number
await loadEngine({ threads: '2' });
const whyOneThread: string | undefined = engine.threadsError?.message;
const layer = engine.createAttention({ dModel: 12, numHeads: 3, causal: true, seed: 1 });
const trace: AttentionTrace = layer.forward(new Float32Array(7 * 12), 7, { keyMask: [1, 1, 1, 1, 1, 0, 0] });
const view: boolean = layer.forwardView(new Float32Array(7 * 12), 7).view;
const parts: Float32Array[] = [
  trace.weights(0), trace.scores(0), trace.queries(1), trace.keys(1), trace.values(2), trace.headOutput(2),
  trace.concat(), trace.output(), layer.output([0.5, 0.25], 1),
];
const sizes: number[] = [trace.nTokens, trace.dHead, engine.limits.maxTokens, engine.memory().usedBytes, parts.length];
console.log(build, threads, whyOneThread, sizes, layer.disposed);
layer.dispose();
const grouped = engine.createAttention({ dModel: 12, numHeads: 4, numKeyValueHeads: 2, headDim: 5, seed: 1 });
const shape: number[] = [grouped.numKeyValueHeads, grouped.headDim, grouped.forward(new Float32Array(12), 1).kvHead(3),
  grouped.forward(new Float32Array(12), 1).nKeys];
// @ts-expect-error numKeyValueHeads is a number
engine.createAttention({ dModel: 12, numHeads: 4, numKeyValueHeads: '2', seed: 1 });
console.log(shape);
grouped.dispose();

const model = await engine.loadModel();
const result = model.run('The cat sat on the mat.');
const tokens: string[] = result.tokens;
const weights: Float32Array = result.attention(result.layers - 1, model.numHeads - 1);
const headShape: [number, number] = [result.attention(result.numLayers - 1, result.numHeads - 1).nQueries, weights.length];
console.log(tokens, weights, headShape, result.truncated, result.unknown, result.trace(0).output(), result.hidden);
model.dispose();

// A Hub checkpoint, with progress and a way to cancel; its head's predictions.
const controller = new AbortController();
const gpt2 = await engine.loadModel('gpt2', {
  hubUrl: 'http://127.0.0.1:8080', revision: 'main', signal: controller.signal,
  onProgress: ({ file, loaded, total }) => console.log(file, loaded / total),
});
const architecture: string = gpt2.architecture;
const named: string = gpt2.architectureName;
const known: boolean = engine.architectures.some((a) => a.modelType === architecture && a.name === named && !a.encoderDecoder);
// A grouped-query model with sliding windows and RoPE: its shape, each layer's window, the queries
// and keys before and after the rotation, its RoPE, and bounds on the attention a run keeps and its tokens.
const gemma = await engine.loadModel('unsloth/gemma-3-270m');
const heads: number[] = [gemma.numHeads, gemma.numKeyValueHeads, gemma.headDim];
const window: number | null = gemma.attentionWindow(0);
const long = gemma.run('Once upon a time', { maxAttentionBytes: 64 * 2 ** 20, maxTokens: 1024 });
const rope = gemma.rotation(0);
if (rope) console.log(rope.dimensions, rope.frequencies[0].toFixed(3));
const kept: number = long.keptLayers;
const rotated: Float32Array[] = [long.trace(0).queriesBeforeRotation(0), long.trace(0).keysBeforeRotation(3), long.trace(0).queries(0)];
console.log(heads, window, kept, rotated, long.trace(0).kvHead(3));
// Each layer as it is computed, and a run another thread can stop.
const interrupt = new Int32Array(new SharedArrayBuffer(4));
gemma.run('Once upon a time', {
  interrupt,
  onLayer: ({ layer, ids, tokens, truncated, attention }: LayerDone) => {
    const first = attention(0);
    const rows: number = first.nQueries;
    console.log(layer, ids.length, tokens.length, truncated, first.length, rows);
  },
});
// Writing token by token: each step's token and attention row, how it ended, the whole result.
const writing = gemma.generate('Once upon a time', { maxNewTokens: 8, temperature: 0.7, topP: 0.9, seed: 1, stop: ['.', 2], signal: controller.signal });
for await (const step of writing) {
  const row = step.attention(0, 3);
  console.log(step.token, step.text.length, step.probability.toFixed(2), step.alternatives[0].token, row.nKeys, step.position, step.elapsedMs);
}
const written = await writing.result;
const chat = gemma.chatTemplate === null ? null : gemma.generate({ messages: [{ role: 'user', content: 'Hi' }] }, { maxNewTokens: 4 });
console.log(chat?.stopReason);
console.log(writing.stopReason, writing.prefillMs, written.tokens, gemma.eosTokenIds);
// The written text: each step's so far, the writing's once it ends, or any ids decoded.
const text: string | null = writing.text;
console.log(text?.length, gemma.decode(written.ids, { skipSpecialTokens: true }), gemma.decode([1, 2]));
// @ts-expect-error decode's option is skipSpecialTokens
gemma.decode([1], { skip: true });
// The writing again, from its ids: what a link to it shows; a chat through run() too.
const again = gemma.run('Once upon a time', { continuation: written.ids.slice(5) });
console.log(again.tokens, gemma.run({ messages: [{ role: 'user', content: 'Hi' }] }).ids);
// @ts-expect-error stop takes strings or ids
gemma.generate('x', { stop: [true] });
const next = gpt2.run('The cat sat on the');
const top: { token: string; id: number; probability: number }[] = next.predictions(next.ids.length - 1, 3);
const scores: Float32Array = next.logits(0);
console.log(architecture, known, gpt2.causal, gpt2.hasLmHead, top, scores, await listCachedModels());
const ablated = gpt2.run('The cat sat on the', { ablate: [{ layer: 1, head: 0 }], ablation: 'mean' });
const off: readonly { layer: number; head: number }[] = ablated.ablated;
console.log(off, ablated.ablation === 'mean');
const roles: HeadRole[] = headRoles(ablated);
const flow: Float32Array[] = [rollout(ablated), averageHeads(ablated, 0)];
console.log(roles[0].top?.role, roles[0].scores.induction, ROLES.previous.threshold, flow);
const measured = await measureHeadRoles(gpt2, {
  probes: { relations: { det: 'determiner → its noun' }, sentences: [{ text: 'The cat sat.', words: ['The', 'cat', 'sat.'], arcs: [['det', 0, 1]] }] },
  runs: 10, onProgress: ({ done, total }) => console.log(done / total), signal: controller.signal,
});
const inductionScore: number | null = measured.heads[0].scores.induction;
const detHead: number | undefined = measured.relations.det.best?.head;
console.log(inductionScore, detHead, measured.sentences.measured, measured.runs.seed);
// @ts-expect-error probes is required
await measureHeadRoles(gpt2, { runs: 10 });
// @ts-expect-error ablation is 'zero' or 'mean'
gpt2.run('The cat', { ablate: [], ablation: 'half' });
await deleteCachedModel({ id: 'gpt2', revision: 'main' });
const builtin = await engine.loadModel({ builtin: 'default' });
const local = await engine.loadModel({ config: new Blob(['{}']), tokenizer: new Blob(['{}']), weights: new Blob([]) });
builtin.dispose();
local.dispose();
engine.dispose();

// @ts-expect-error hubUrl must be a string or URL
engine.loadModel('gpt2', { hubUrl: 8080 });
// @ts-expect-error numHeads is required
engine.createAttention({ dModel: 12, seed: 1 });
// @ts-expect-error weights must have all eight arrays
engine.createAttention({ dModel: 4, numHeads: 1, weights: { wq: new Float32Array(16) } });

// The element: registered by importing multihead/element, typed through the tag name map.
import { MultiheadView } from 'multihead/element';
const element: MultiheadView = document.createElement('multihead-view');
element.setAttribute('view', 'head');
const shownTokens: string[] | null = element.tokens;
const firstHead: Float32Array | undefined = element.attention?.[0][0];
void [shownTokens, firstHead, element.exportSVG().length];
// Its events carry typed details; other events keep their own types.
element.addEventListener('cellselect', (event) => console.log(event.detail.weight.toFixed(3), event.detail.keyToken));
element.addEventListener('headselect', (event) => event.preventDefault());
element.addEventListener('click', (event) => console.log(event.clientX));
// @ts-expect-error render's detail has no weight
element.addEventListener('render', (event) => console.log(event.detail.weight));

// The package as users get it: `npm pack` makes the tarball, a fresh folder installs it (its
// dependencies come from npm's cache, which `npm ci` filled), and a Node ES module there imports
// 'multihead' by name and runs the default model. It must compute what this repository computes,
// from the files the tarball lists and nothing else.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadEngine } from '../../../web/src/index.js';
import { packAndInstall, run } from '../pack.js';
const SENTENCE = 'The cat sat on the mat.';
let dir, files;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'multihead-packed-'));
  files = await packAndInstall(dir);
}, 180000);

afterAll(() => rm(dir, { recursive: true, force: true }));

test('the tarball holds the five WASM builds with the threaded ones\' worker scripts, the single-file build, the three built-in models and the probe set, and no build leftovers', () => {
  for (const file of ['dist/multihead-simd.wasm', 'dist/multihead-scalar.wasm', 'dist/multihead-simd.mjs',
    'dist/multihead-simd-threads.mjs', 'dist/multihead-simd-threads.wasm', 'dist/multihead-simd-threads.worker.js', 'dist/package.json',
    'dist/multihead-relaxed.mjs', 'dist/multihead-relaxed.wasm', 'dist/multihead-relaxed-threads.mjs', 'dist/multihead-relaxed-threads.wasm',
    'dist/multihead-relaxed-threads.worker.js',
    'dist/multihead.js', 'web/src/index.js', 'web/src/element/element.js', 'web/models/default/model.safetensors',
    'web/models/causal/config.json', 'web/models/causal/tokenizer.json', 'web/models/causal/model.safetensors',
    'web/models/reverse/config.json', 'web/models/reverse/tokenizer.json', 'web/models/reverse/model.safetensors',
    'web/probes/syntax.json']) {
    expect(files).toContain(file);
  }
  expect(files.filter((f) => /^(build|tests|cpp|tools|node_modules)\//.test(f))).toEqual([]);
});

// Plain Node gets the SIMD build; with --experimental-wasm-relaxed-simd, the relaxed one.
test.each([['simd', []], ['relaxed-simd', ['--experimental-wasm-relaxed-simd']]])(
  'a Node ES module imports the installed package by name and gets this repository\'s numbers: the %s build', async (build, flags) => {
    const script = `
      import { loadEngine } from 'multihead';
      const engine = await loadEngine();
      const r = (await engine.loadModel()).run(${JSON.stringify(SENTENCE)});
      console.log(JSON.stringify({ build: engine.build, threads: engine.threads, tokens: r.tokens, weights: Array.from(r.attention(1, 1)) }));`;
    await writeFile(join(dir, 'use.mjs'), script);
    const { stdout } = await run(process.execPath, [...flags, 'use.mjs'], { cwd: dir });
    const got = JSON.parse(stdout);
    const engine = await loadEngine({ relaxedSimd: build === 'relaxed-simd' });
    const expected = (await engine.loadModel()).run(SENTENCE);
    expect(got.build).toBe(build);
    // The threaded build loads from the package, one thread per core of this machine (the child
    // process sees the real cores even when this suite runs as on a one-core machine).
    expect(got.threads).toBe(availableParallelism());
    expect(got.tokens).toEqual(expected.tokens);
    expect(got.weights).toEqual(Array.from(expected.attention(1, 1)));
    expect(await readdir(join(dir, 'node_modules/multihead/dist'))).toContain('multihead.js');
    engine.dispose();
  });

// Builds what is missing or out of date: `node tools/build.js wasm` writes the SIMD, scalar and
// threaded SIMD modules to dist/; `wasm-tests` also builds the GoogleTest runners of the WASM builds;
// `native` builds the native library and its GoogleTest suite; `native-sanitize` builds that suite
// with clang under ASan and UBSan, with the libFuzzer targets (run by tools/fuzz.js); `wasm-eigen` builds the
// benchmark's Eigen baseline into build/wasm-eigen; `node tools/build.js demo` builds the page (web/demo) into
// build/demo with Vite, and `single` bundles dist/multihead.js (one classic script with the two
// single-threaded WASM builds and both built-in models inlined) with esbuild; both need `wasm` first. CMake decides what is stale, so a second run is
// quick; the page takes a second or two and is always rebuilt.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

const BUILDS = {
  wasm: { dir: 'build/wasm', configure: ['emcmake', 'cmake'], targets: ['multihead-simd', 'multihead-scalar', 'multihead-simd-threads'] },
  'wasm-tests': { dir: 'build/wasm', configure: ['emcmake', 'cmake'], options: ['-DMULTIHEAD_TESTS=ON'], targets: [] }, // [] builds everything
  native: { dir: 'build/native', configure: ['cmake'], targets: [] },
  // The same suite under AddressSanitizer and UBSan, and the fuzzers of tests/fuzz (tools/fuzz.js).
  'native-sanitize': { dir: 'build/native-sanitize', configure: ['cmake', '-DCMAKE_CXX_COMPILER=clang++-14'], options: ['-DMULTIHEAD_SANITIZE=ON'], targets: [] },
  // The benchmark's baseline: our sources with Eigen for GEMM and softmax (npm run bench).
  'wasm-eigen': { dir: 'build/wasm-eigen', configure: ['emcmake', 'cmake', '-DMULTIHEAD_KERNELS=eigen'], targets: ['multihead-eigen'] },
};

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error?.code === 'ENOENT') {
    throw new Error(`${command} was not found. Install the Debian packages listed in README.md (bash .ci/run does it).`);
  }
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed with exit code ${result.status}`);
}

async function buildDemo() {
  const { build: vite } = await import('vite');
  const { default: config } = await import('../web/demo/vite.config.js');
  await vite({ ...config, configFile: false, logLevel: 'warn' });
  console.log(`build: the page is in ${config.build.outDir}`);
}

async function buildSingle() {
  const { build: esbuild } = await import('esbuild');
  await esbuild({
    entryPoints: [`${root}/web/src/single-file.js`],
    outfile: `${root}/dist/multihead.js`,
    bundle: true,
    format: 'iife',
    globalName: 'multihead',
    minify: true,
    target: 'es2022',
    loader: { '.wasm': 'binary', '.safetensors': 'binary' },
    logLevel: 'warning',
    // The glue's and the loader's import.meta.url are empty in a classic script: inline() supplies
    // the files they would locate (see web/src/engine/inlined.js).
    logOverride: { 'empty-import-meta': 'silent' },
  });
  console.log('build: the single-file build is dist/multihead.js');
}

const SCRIPTS = { demo: buildDemo, single: buildSingle };

/** Whether `dir` is configured, with every -DNAME=VALUE of `options` (wasm and wasm-tests share a folder). */
function configuredWith(dir, options) {
  const cache = `${root}/${dir}/CMakeCache.txt`;
  if (!existsSync(cache)) return false;
  const lines = readFileSync(cache, 'utf8').split('\n');
  return options.every((option) => {
    const [name, value] = option.replace(/^-D/, '').split('=');
    return lines.some((line) => line.startsWith(`${name}:`) && line.endsWith(`=${value}`));
  });
}

async function build(name) {
  if (name in SCRIPTS) return SCRIPTS[name]();
  const { dir, configure, options = [], targets } = BUILDS[name];
  if (!configuredWith(dir, options)) {
    run(configure[0], [...configure.slice(1), '-S', '.', '-B', dir, '-DCMAKE_BUILD_TYPE=Release', ...options]);
  }
  const only = targets.length ? ['--target', ...targets] : [];
  run('cmake', ['--build', dir, ...only, '--parallel', String(availableParallelism())]);
}

const names = process.argv.slice(2);
const unknown = names.filter((n) => !(n in BUILDS) && !(n in SCRIPTS));
if (names.length === 0 || unknown.length) {
  console.error(`usage: node tools/build.js ${[...Object.keys(BUILDS), ...Object.keys(SCRIPTS)].join('|')} …`);
  process.exit(2);
}
try {
  for (const name of names) await build(name);
} catch (error) {
  console.error(`build: ${error.message}`);
  process.exit(1);
}

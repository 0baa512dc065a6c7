// Builds what is missing or out of date. The CMake builds are CMakePresets.json's presets:
// `node tools/build.js wasm` writes the SIMD, scalar and threaded SIMD modules to dist/;
// `wasm-tests` also builds the GoogleTest runners of the WASM builds; `native` builds the native
// library and its GoogleTest suite; `native-sanitize` builds that suite with clang under ASan and
// UBSan, with the libFuzzer targets (run by tools/fuzz.js); `wasm-eigen` builds the benchmark's
// Eigen baseline, `gemm-probe` npm run bench's A/B of the two GEMM kernels. `demo` builds the page (web/demo) into build/demo with Vite, and `single`
// bundles dist/multihead.js (one classic script with the two single-threaded WASM builds and both
// built-in models inlined) with esbuild; both need `wasm` first. A preset is configured when its
// folder is new or was configured otherwise (wasm and wasm-tests share one); CMake decides what is
// stale, so a second run is quick. The page takes a second or two and is always rebuilt.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const PRESETS = JSON.parse(readFileSync(`${root}CMakePresets.json`, 'utf8'));
const CONFIGURE = Object.fromEntries(PRESETS.configurePresets.map((preset) => [preset.name, preset]));
const BUILDS = PRESETS.buildPresets.map((preset) => preset.name);

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

/** A configure preset with what it inherits: its binary folder and every cache variable. */
function resolved(name) {
  const preset = CONFIGURE[name];
  const parents = [preset.inherits ?? []].flat().map(resolved);
  const binaryDir = (preset.binaryDir ?? parents.find((p) => p.binaryDir)?.binaryDir)?.replace('${sourceDir}', root.replace(/\/$/, ''));
  return { binaryDir, cacheVariables: Object.assign({}, ...parents.map((p) => p.cacheVariables), preset.cacheVariables) };
}

/** Whether the preset's folder is configured with each of its cache variables. */
function configured({ binaryDir, cacheVariables }) {
  const cache = `${binaryDir}/CMakeCache.txt`;
  if (!existsSync(cache)) return false;
  const lines = readFileSync(cache, 'utf8').split('\n');
  return Object.entries(cacheVariables).every(([name, value]) => lines.some((line) => line.startsWith(`${name}:`) && line.endsWith(`=${value}`)));
}

async function build(name) {
  if (name in SCRIPTS) return SCRIPTS[name]();
  const { configurePreset } = PRESETS.buildPresets.find((preset) => preset.name === name);
  if (!configured(resolved(configurePreset))) run('cmake', ['--preset', configurePreset]);
  run('cmake', ['--build', '--preset', name, '--parallel', String(availableParallelism())]);
}

const names = process.argv.slice(2);
const unknown = names.filter((n) => !BUILDS.includes(n) && !(n in SCRIPTS));
if (names.length === 0 || unknown.length) {
  console.error(`usage: node tools/build.js ${[...BUILDS, ...Object.keys(SCRIPTS)].join('|')} …`);
  process.exit(2);
}
try {
  for (const name of names) await build(name);
} catch (error) {
  console.error(`build: ${error.message}`);
  process.exit(1);
}

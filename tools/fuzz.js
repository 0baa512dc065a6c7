// Runs the libFuzzer targets of tests/fuzz (built under ASan and UBSan by `node tools/build.js
// native-sanitize`, which this runs first) and fails on any finding: a crash, a sanitizer report,
// a leak, a timeout, an out-of-memory or an unexpected exception.
//
//   node tools/fuzz.js                  what npm test runs: each target a fixed number of runs from
//                                       its seeds (seed 1, a fresh corpus), the targets side by side,
//                                       one per core
//   node tools/fuzz.js --time=3600 model   fuzz longer by hand: an hour on the whole-model target,
//                                       keeping what it learns in build/native-sanitize/fuzz/<target>/corpus
//   node tools/fuzz.js --runs=N [target…]
//
// Each target first runs every seed whole once (the default model's 2.9 MB files too), then
// fuzzes from them with -max_len, which libFuzzer applies to seeds as well (so the default model
// contributes its header). A finding is saved as build/native-sanitize/fuzz/<target>/crash-…;
// reproduce it with `build/native-sanitize/<target>_fuzzer <that file>`. This script does not
// minimise findings or merge corpora: libFuzzer's -minimize_crash and -merge do that by hand.
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const build = `${root}build/native-sanitize`;
const models = `${root}web/models/default`;

// Runs per target in npm test: 20 to 45 s each on the 2-core CI machine, the targets side by
// side (the slowest first), so the step takes about as long as the slowest, under a minute. (At
// twice these, 40 to 85 s each, the step took 3 minutes, which with the relaxed-SIMD builds took
// CI past 20 minutes; longer runs are `--runs=N` or `--time=SECONDS`.)
// max_len fits the tiny models' files (2–9 KB) and the default model's 7.5 KB header.
const TARGETS = {
  safetensors: { runs: 75000, maxLen: 16384, seeds: [[`${models}/model.safetensors`, 'default.safetensors']] },
  config: { runs: 300000, maxLen: 4096, seeds: [[`${models}/config.json`, 'default.json'], ...committed('config')] },
  model: { runs: 75000, maxLen: 16384, seeds: [] }, // default.bin: the default model, joined by make_fuzz_seeds
};

function committed(target) {
  const dir = `${root}tests/fuzz/seeds/${target}`;
  return readdirSync(dir).map((name) => [`${dir}/${name}`, name]);
}

function parseArgs(argv) {
  const options = { targets: [] };
  for (const arg of argv) {
    const [, key, value] = arg.match(/^--(runs|time)=(\d+)$/) ?? [];
    if (key) options[key] = Number(value);
    else if (arg in TARGETS) options.targets.push(arg);
    else throw new Error(`usage: node tools/fuzz.js [--runs=N | --time=SECONDS] [${Object.keys(TARGETS).join('|')} …]`);
  }
  if (options.targets.length === 0) options.targets = Object.keys(TARGETS);
  return options;
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, encoding: 'utf8', maxBuffer: 1 << 30, stdio: 'inherit' });
  if (result.error) throw new Error(`${command} could not run: ${result.error.message}`);
  return result;
}

/** run() without blocking, its output kept in `log`: resolves to { status, stderr }. */
function runLogged(command, args, log) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '', stderr = '';
    child.stdout.on('data', (chunk) => { stdout += chunk; });
    child.stderr.on('data', (chunk) => { stderr += chunk; });
    child.on('error', (error) => reject(new Error(`${command} could not run: ${error.message}`)));
    child.on('close', (status) => {
      writeFileSync(log, `${stdout}${stderr}`);
      resolve({ status, stderr });
    });
  });
}

function prepareSeeds() {
  const seeds = `${build}/fuzz/seeds`;
  rmSync(seeds, { recursive: true, force: true });
  const made = run(`${build}/make_fuzz_seeds`, [seeds, models]);
  if (made.status !== 0) throw new Error('make_fuzz_seeds failed');
  for (const [target, { seeds: files }] of Object.entries(TARGETS)) {
    for (const [from, name] of files) copyFileSync(from, `${seeds}/${target}/${name}`);
  }
  return seeds;
}

function lastLines(text, n) {
  return text.trim().split('\n').slice(-n).join('\n');
}

async function fuzz(target, seeds, options) {
  const { runs, maxLen } = TARGETS[target];
  const binary = `${build}/${target}_fuzzer`;
  const work = `${build}/fuzz/${target}`;
  const corpus = `${work}/corpus`;
  // npm test starts from the seeds alone, so every run is the same; a timed run by hand keeps
  // the corpus it grew before.
  if (!options.time) rmSync(corpus, { recursive: true, force: true });
  mkdirSync(corpus, { recursive: true });
  const seedFiles = readdirSync(`${seeds}/${target}`).map((name) => `${seeds}/${target}/${name}`);
  const common = ['-rss_limit_mb=2048', '-timeout=10', `-artifact_prefix=${work}/`];

  // Every seed, whole: no -max_len applies to files named on the command line.
  const whole = await runLogged(binary, [...common, ...seedFiles], `${work}/seeds.log`);
  if (whole.status !== 0) return { target, failed: `a seed failed:\n${lastLines(whole.stderr, 40)}` };

  const limit = options.time ? [`-max_total_time=${options.time}`] : [`-runs=${options.runs ?? runs}`, '-seed=1'];
  const started = Date.now();
  const result = await runLogged(binary, [...common, ...limit, `-max_len=${maxLen}`, `-dict=${root}tests/fuzz/${target}.dict`,
    '-print_final_stats=1', corpus, `${seeds}/${target}`], `${work}/fuzz.log`);
  const seconds = (Date.now() - started) / 1000;
  const stat = (name) => Number(result.stderr.match(new RegExp(`stat::${name}:\\s+(\\d+)`))?.[1]);
  if (result.status === 0 && !Number.isInteger(stat('number_of_executed_units'))) {
    return { target, failed: `libFuzzer printed no final stats:\n${lastLines(result.stderr, 20)}` };
  }
  const summary = { target, seeds: seedFiles.length, executions: stat('number_of_executed_units'), seconds,
    coverage: Number(result.stderr.match(/cov: (\d+)/g)?.at(-1)?.slice(5)), corpus: readdirSync(corpus).length };
  if (result.status !== 0) {
    const artifact = result.stderr.match(/Test unit written to (\S+)/)?.[1] ?? '(none written)';
    return { ...summary, failed: `finding saved as ${artifact}:\n${lastLines(result.stderr, 60)}` };
  }
  return summary;
}

try {
  const options = parseArgs(process.argv.slice(2));
  const built = run('node', ['tools/build.js', 'native-sanitize']);
  if (built.status !== 0) throw new Error('the sanitizer build failed');
  const seeds = prepareSeeds();
  // The targets side by side, one per core, the longest (the most runs' worth of model) first.
  const queue = [...options.targets].sort((a, b) => (a === 'model' ? -1 : b === 'model' ? 1 : 0));
  const results = [];
  await Promise.all(Array.from({ length: Math.min(availableParallelism(), queue.length) }, async () => {
    while (queue.length) {
      const target = queue.shift();
      results.push(await fuzz(target, seeds, options));
    }
  }));
  let failures = 0;
  for (const r of results) {
    const target = r.target;
    if (r.failed) {
      failures++;
      console.error(`fuzz: ${target}: FAILED, ${r.failed}`);
    } else {
      console.log(`fuzz: ${target}: ${r.executions} executions in ${r.seconds.toFixed(1)} s `
        + `(${Math.round(r.executions / r.seconds)}/s), ${r.seeds} seeds, coverage ${r.coverage}, corpus ${r.corpus}: no findings`);
    }
  }
  if (failures) process.exit(1);
} catch (error) {
  console.error(`fuzz: ${error.message}`);
  process.exit(1);
}

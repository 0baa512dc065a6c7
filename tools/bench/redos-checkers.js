// Our ReDoS analyser (web/src/tokenizer/regex.js) against recheck, the npm library that decides
// the same question, on the patterns each must get right: the Split regexes of the tokenizers we
// must load (GPT-2, Llama 3, Qwen2 to Qwen3) and the hostile suite's patterns, which must be
// refused (tests/js/hostile/tokenizers.test.js). recheck runs as a browser would run it, its
// Scala.js build (RECHECK_BACKEND=pure), with its default parameters. Prints how many each gets
// right, the time per pattern and the size each adds to a bundle. Needs `npm run prebench` (which
// installs tools/bench/package.json); run `node tools/bench/redos-checkers.js`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { regexHazard } from '../../web/src/tokenizer/regex.js';

process.env.RECHECK_BACKEND = 'pure';
const require = createRequire(import.meta.url);
const { checkSync } = require('recheck');
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const LOADED = [
  ['GPT-2', "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+"],
  ['Llama 3', "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
  ['Qwen2 to Qwen3', "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"],
];
const HOSTILE = ['(a+)+$', '(\\w+\\s?)+$', '(a|ab)+$', '(?:\\s|\\p{L})+!', '(?i:a|A)+$', '\\p{N}{1,3}+$', '(a?){25}a{25}',
  '(.*a){12}', '(?:x(?:a|ab))+$', '(a)\\1+', '(?<w>a)\\k<w>', '[a-z]+[a-z]+[a-z]+[a-z]+!', '\\s*\\s*\\s*\\s*\\s*$',
  '[a-z]+[a-z]+[0-9]+', '\\s*\\s*[\\r\\n]+', '[a-z]+x?[a-z]+!', '[a-z]+[0-9]*[a-z]+!', '(?:[a-z]+[a-z]+|x)y',
  '[a-z]+(?:[a-z]+)!', '\\s+\\s+(?=x)', '[a-z]+(?=[a-z]*!)', '[a-z]{0,1000}[a-z]{0,1000}!'];

/**
 * The pattern as JavaScript reads it, which is what recheck takes: Node 20 has no (?i:…) group and
 * no possessive {n,m}+, which @huggingface/tokenizers rewrites (as a case-folding class per letter,
 * and as a repeated group) before compiling.
 */
function asJavaScript(source) {
  const folded = source.replace(/\(\?i:([^()]*)\)/g, (_, body) =>
    `(?:${body.replace(/[a-z]/gi, (c) => `[${c.toLowerCase()}${c.toUpperCase()}]`)})`);
  return folded.replace(/(\\p\{\w+\}\{\d+,\d+\})\+/g, '(?:$1)+');
}

function timed(decide) {
  const start = performance.now();
  const verdict = decide();
  return { verdict, ms: performance.now() - start };
}

const ours = (source) => timed(() => (regexHazard(source) ? 'refused' : 'accepted'));
const theirs = (source) => timed(() => {
  const { status, complexity } = checkSync(asJavaScript(source), 'u');
  return status === 'safe' ? 'accepted' : status === 'vulnerable' ? `refused (${complexity.type})` : status;
});

theirs('a+'); // recheck's first call starts its runtime
const rows = [...LOADED.map(([name, source]) => ({ name, source, want: 'accepted' })), ...HOSTILE.map((source) => ({ name: source, source, want: 'refused' }))]
  .map(({ name, source, want }) => {
    const a = ours(source), b = theirs(source);
    return { pattern: name, want, ours: a.verdict, 'ours ms': a.ms.toFixed(1), recheck: b.verdict, 'recheck ms': b.ms.toFixed(0) };
  });
console.table(rows);
for (const [label, key] of [['ours', 'ours'], ['recheck', 'recheck']]) {
  const right = (want) => rows.filter((row) => row.want === want && row[key].startsWith(want)).length;
  console.log(`${label}: accepts ${right('accepted')} of ${LOADED.length} tokenizer patterns, refuses ${right('refused')} of ${HOSTILE.length} hostile ones`);
}

const { outputFiles } = await build({ entryPoints: [`${ROOT}web/src/tokenizer/regex.js`], bundle: true, minify: true, format: 'esm', write: false });
const bundle = outputFiles[0].contents;
const library = readFileSync(require.resolve('recheck/lib/browser.js'));
const size = (bytes) => `${(bytes.length / 1024).toFixed(0)} KiB (${(gzipSync(bytes).length / 1024).toFixed(0)} KiB gzipped)`;
console.log(`bundle: ours ${size(bundle)}, recheck's browser build ${size(library)}`);

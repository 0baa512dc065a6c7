// Our tokenizer against the Rust tokenizers library (npm `tokenizers`, its Node binding), the
// reference every tokenizer.json must read as: fixed texts of many scripts and special tokens, and
// seeded random ones, each encoded by both.
import { createRequire } from 'node:module';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';

const { Tokenizer: RustTokenizer } = createRequire(import.meta.url)('tokenizers');

export const TEXTS = [
  'Hello world! The quick brown fox.', 'Hello world', '', ' ', 'The cat sat on the [MASK] near the door.',
  'The cat sat on the <mask> near the door.', 'Hello<|endoftext|> world <|endoftext|>', "They'd gone at 10 o'clock; it's 3.14!",
  'naïve café résumé, NAI\u0308VE CAFE\u0301', 'Straße İstanbul ΣΟΦΙΑ Москва', '中文字符 和 日本語のテキスト', '👩‍💻 🇫🇷 ❤️ 👍🏽',
  'tabs\tand\nnewlines\r\n  double  spaces   ', 'unbelievably antidisestablishmentarianism', 'x'.repeat(120), '$5 100% #1 @me e.g. U.S.A.',
  '  leading and trailing  ', 'ﬁne Ｆｕｌｌ x² ½', 'a\u0000b\u200bc\u00adz',
];

/** Seeded strings of words, letters, digits and symbols, for what the fixed texts miss. */
function randomTexts(count, seed) {
  let s = seed >>> 0;
  const next = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  const pieces = ['the', 'The', 'CAT', 'walking', "don't", 'played', 'über', 'Ελλάδα', '漢字', '🦓', '[MASK]', '<mask>', '<s>',
    '<|endoftext|>', '##ing', 'Ġthe', ' ', '  ', '\n', '.', ',', '!', '?', '-', '(', ')', '"', '1', '42', '3.5', 'e\u0301', '\t'];
  return Array.from({ length: count }, () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => pieces[Math.floor(next() * pieces.length)]).join(next() < 0.7 ? ' ' : ''));
}
export const ALL_TEXTS = [...TEXTS, ...randomTexts(300, 20261205)];

export const rustIds = async (json, text) => Array.from((await RustTokenizer.fromString(JSON.stringify(json)).encode(text)).getIds());

/** Every text's ids from our reader and from the Rust library, compared; returns how many. */
export async function expectRustIds(json, texts = ALL_TEXTS) {
  const ours = await loadTokenizer(json);
  const rust = RustTokenizer.fromString(JSON.stringify(json));
  for (const text of texts) {
    const expected = Array.from((await rust.encode(text)).getIds());
    const ids = Array.from(ours.encode(text).ids);
    if (ids.join() !== expected.join()) throw new Error(`ids of ${JSON.stringify(text)}: ours [${ids}], the Rust library's [${expected}]`);
  }
  return texts.length;
}

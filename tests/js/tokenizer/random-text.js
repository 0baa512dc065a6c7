// Test helper: seeded random strings for the tokenizer suites (property.test.js, long-text.test.js):
// runs of words, scripts, marks, emoji, controls, lone surrogates, special tokens and whitespace,
// the same strings every run for a seed.

/** mulberry32: a small seeded generator, so every run draws the same strings. */
export function generator(seed) {
  let s = seed >>> 0;
  const next = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const int = (n) => Math.floor(next() * n);
  const pick = (list) => list[int(list.length)];
  return { next, int, pick };
}

const WORDS = ['the', 'The', 'CAT', 'cat', 'sat', 'on', 'mat', 'playing', 'PLAYED', 'Plays', 'because', 'tired', 'children',
  "they'd", "o'clock", 'naïve', 'nai\u0308ve', 'café', 'cafe\u0301', 'résumé', 'ΟΔΥΣΣΕΥΣ', 'σοφός', 'Москва', 'İstanbul',
  'straße', 'ﬁne', 'Ｆｕｌｌ', 'x²', '½'];
const SPECIALS = ['[MASK]', '[CLS]', '[UNK]', '<mask>', '<s>', '<|endoftext|>'];
const SPACES = [' ', '  ', '\t', '\n', '\r\n', '\u00a0', '\u2028', '\u3000', '\ufeff', '\u000b', '\u0085', '\u200b'];
const CONTROLS = ['\u0000', '\u0001', '\u0007', '\u001b', '\u007f', '\u0080', '\u009f', '\u00ad', '\u200d', '\u2066'];
const EMOJI = ['🦓', '😀', '👍🏽', '👩‍💻', '👨‍👩‍👧‍👦', '🏳️‍🌈', '🇫🇷', '1️⃣', '❤️', '🧑🏿‍🚀'];
const RANGES = [
  [0x41, 0x5a], [0x61, 0x7a], [0x30, 0x39], [0x21, 0x2f], [0xc0, 0x17f], [0x300, 0x36f], [0x391, 0x3c9], [0x410, 0x44f],
  [0x4e00, 0x4e80], [0xac00, 0xac40], [0x1100, 0x1112], [0x1161, 0x1175], [0x11a8, 0x11c2], [0x627, 0x64a], [0x915, 0x939],
  [0x93e, 0x94d], [0xe01, 0xe3a], [0x2000, 0x206f], [0xe000, 0xe010], [0xfb00, 0xfb06], [0xff01, 0xff5e],
  [0x10000, 0x10100], [0x1d400, 0x1d430], [0x1f300, 0x1f64f], [0xe0020, 0xe007f], [0x10fff0, 0x10ffff],
];

/** One random string: a run of words, scripts, marks, emoji, controls, lone surrogates and whitespace. */
export function randomText(rng) {
  const parts = [];
  const count = 1 + rng.int(12);
  for (let i = 0; i < count; i++) {
    const kind = rng.int(10);
    if (kind === 0) parts.push(rng.pick(WORDS));
    else if (kind === 1) parts.push(rng.pick(SPECIALS));
    else if (kind === 2) parts.push(rng.pick(EMOJI));
    else if (kind === 3) parts.push(rng.pick(CONTROLS));
    else if (kind === 4) parts.push(rng.next() < 0.5 ? '\ud800' : '\udfff');
    else if (kind === 5) parts.push(String.fromCodePoint(0x300 + rng.int(0x70)).repeat(1 + rng.int(3)));
    else {
      const [lo, hi] = rng.pick(RANGES);
      let run = '';
      for (let n = 1 + rng.int(6); n > 0; n--) run += String.fromCodePoint(lo + rng.int(hi - lo + 1));
      parts.push(run);
    }
    const gap = rng.int(4);
    if (gap === 1) parts.push(' ');
    else if (gap === 2) parts.push(Array.from({ length: 1 + rng.int(3) }, () => rng.pick(SPACES)).join(''));
  }
  return parts.join('');
}

// A corrupted twin of a prompt for activation patching: one word swapped, so the two runs differ in
// one place and the patching map shows which heads carry what that word gave. The word swapped is
// the predicted word where the prompt already holds it (an induction prompt: "…Henry met William…
// Henry met" predicts "William", which becomes another name), else the last word that repeats, else
// the longest word: the key word the prediction most likely rests on.

// Replacements, tried in order until one keeps the prompt's token count (patching needs the same).
const NAMES = ['James', 'Mary', 'John', 'Anna', 'Peter', 'Susan', 'Paul', 'Emma', 'George', 'Lucy', 'David', 'Sarah', 'Tom', 'Kate'];
const WORDS = ['dog', 'house', 'tree', 'river', 'table', 'green', 'stone', 'music', 'bread', 'paper', 'cold', 'road', 'boat', 'light'];

const WORD = /\p{L}[\p{L}\p{M}'’-]*/gu;
// Words that repeat in most prompts without being what the prediction rests on.
const FUNCTION_WORDS = new Set(['the', 'and', 'was', 'for', 'his', 'her', 'she', 'you', 'are', 'but', 'not', 'with', 'that', 'this', 'from', 'they', 'them']);

/**
 * `text` with one word swapped, as { text, from, to } (the words swapped), or null when no
 * replacement keeps the token count: `predicted` is the model's top token at the position
 * explained (" William"), and `sameLength(candidate)` says whether a candidate text has as many
 * tokens as `text`.
 */
export function suggestCorruption(text, predicted, sameLength) {
  const words = [...text.matchAll(WORD)].map((m) => ({ word: m[0], index: m.index }));
  if (words.length === 0) return null;
  const lower = (w) => w.toLowerCase();
  const target = lower(predicted.trim());
  const counts = new Map();
  for (const { word } of words) counts.set(lower(word), (counts.get(lower(word)) ?? 0) + 1);
  const chosen = [...words].reverse().find(({ word }) => lower(word) === target) ??
    [...words].reverse().find(({ word }) => word.length > 2 && !FUNCTION_WORDS.has(lower(word)) && counts.get(lower(word)) > 1) ??
    words.reduce((a, b) => (b.word.length > a.word.length ? b : a));
  const capital = chosen.word[0] !== chosen.word[0].toLowerCase();
  const pool = capital ? [...NAMES, ...WORDS.map(capitalised)] : WORDS;
  for (const to of pool) {
    if (lower(to) === lower(chosen.word) || counts.has(lower(to))) continue; // a word the prompt has would be no corruption
    const candidate = text.slice(0, chosen.index) + to + text.slice(chosen.index + chosen.word.length);
    if (sameLength(candidate)) return { text: candidate, from: chosen.word, to };
  }
  return null;
}

const capitalised = (word) => word[0].toUpperCase() + word.slice(1);

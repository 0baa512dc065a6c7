// A text's print, for the keys that say whether a run's inputs changed: the page's inputsKey
// (state/needed.js) and the worker's key of its last run. A pasted sentence can be 10 MB, and
// inputsKey is asked for many times a render: with the text itself in the key, JSON.stringify took
// 0.1 s a time, 3.5 s of what the page did after a 10 MB paste. The print is the text's length and
// two 32-bit hashes of its units (FNV-1a, and a multiply-xorshift), worked out once per text: the
// state hands back the same string until the sentence changes. Two texts share a print only if
// they agree in length and in both hashes.
let printed = { text: '', print: hashText('') };

export function textPrint(text) {
  if (text !== printed.text) printed = { text, print: hashText(text) };
  return printed.print;
}

function hashText(text) {
  let a = 0x811c9dc5, b = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    a = Math.imul(a ^ unit, 0x01000193);
    b = Math.imul(b ^ unit, 0x5bd1e995);
    b ^= b >>> 15;
  }
  return `${text.length}:${(a >>> 0).toString(36)}:${(b >>> 0).toString(36)}`;
}

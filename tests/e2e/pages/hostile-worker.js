// A module worker with the page's protocol ({ type: 'ready' }, then { type: 'result', id, tokens })
// whose tokenizer is hostile: the default tokenizer.json with a Split pre-tokenizer of pattern
// (a+)+$ in front, which backtracks for hours on 'a' × 40 + '!' and is quick on ordinary text. It
// uses @huggingface/tokenizers directly, not the package's loader, so that it stays a hang that
// slipped through whatever the loader learns to reject: the time limit must hold on its own.
import { Tokenizer } from '/node_modules/@huggingface/tokenizers/dist/tokenizers.mjs';

const ready = (async () => {
  const json = await (await fetch('/web/models/default/tokenizer.json')).json();
  json.pre_tokenizer.pretokenizers.unshift({ type: 'Split', pattern: { Regex: '(a+)+$' }, behavior: 'Isolated', invert: false });
  return new Tokenizer(json, {});
})();

ready.then(() => self.postMessage({ type: 'ready', info: {} }),
  (error) => self.postMessage({ type: 'error', message: `the hostile tokenizer did not load: ${error.message}` }));

self.onmessage = async ({ data }) => {
  const tokenizer = await ready;
  self.postMessage({ type: 'result', id: data.id, tokens: tokenizer.encode(data.text).tokens });
};

// The package in Node: run the default model on a sentence and print, for every head of layer 2,
// the word each word looks at most. `node examples/node.mjs "Your sentence."` in a clone (after
// `npm run build`), or with `import ... from 'multihead'` in a project that installed it.
import { loadEngine } from 'multihead';

const sentence = process.argv[2] ?? 'The cat sat on the mat because it was tired.';
const engine = await loadEngine();
const model = await engine.loadModel();
const r = model.run(sentence);
const n = r.tokens.length;
console.log(`${n} tokens: ${r.tokens.join(' ')}`);
for (let head = 0; head < r.heads; head++) {
  const weights = r.attention(1, head); // (n × n), query rows
  const strongest = r.tokens.map((token, q) => {
    const row = Array.from(weights.subarray(q * n, (q + 1) * n));
    return `${token}→${r.tokens[row.indexOf(Math.max(...row))]}`;
  });
  console.log(`layer 2, head ${head + 1}: ${strongest.join(' ')}`);
}
engine.dispose();

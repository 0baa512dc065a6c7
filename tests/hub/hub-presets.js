// Test helper: the page's four Hub presets as fake-Hub repositories (see fake-hub.js), under their
// real ids: each with its tokenizer.json as the Hub has it, in the older layout (hub-tokenizers.js),
// and a small random checkpoint of its architecture from tests/fixtures/checkpoints whose
// vocabulary is grown to the preset's (the tokenizer's ids must fit config.json's vocab_size).
// The weights mean nothing; the tokenizer, the file layout and the loading path are the real ones.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { HUB_TOKENIZERS } from './hub-tokenizers.js';

const CHECKPOINTS = fileURLToPath(new URL('../fixtures/checkpoints/', import.meta.url));

/** Hub id → the checkpoint fixture with the same architecture and tensor layout. */
export const PRESET_CHECKPOINTS = {
  'bert-base-uncased': 'bert-legacy',
  'distilbert-base-uncased': 'distilbert',
  'roberta-base': 'roberta',
  gpt2: 'gpt2-legacy',
};

/**
 * safetensors bytes with every tensor of `from` rows (the vocabulary's: word embeddings, the LM
 * head's bias) grown to `to` rows, each new row a copy of row (i mod from); dtype-blind.
 */
export function growVocabulary(bytes, from, to) {
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const data = bytes.subarray(8 + headerLength);
  const names = Object.keys(header).filter((n) => n !== '__metadata__')
    .sort((a, b) => header[a].data_offsets[0] - header[b].data_offsets[0]);
  const out = { __metadata__: header.__metadata__ };
  const blobs = [];
  let offset = 0;
  for (const name of names) {
    const { dtype, shape, data_offsets: [start, end] } = header[name];
    let blob = data.subarray(start, end);
    let grown = shape;
    if (shape[0] === from) {
      const row = blob.length / from;
      grown = [to, ...shape.slice(1)];
      blob = Buffer.concat(Array.from({ length: to }, (_, i) => blob.subarray((i % from) * row, (i % from + 1) * row)));
    }
    out[name] = { dtype, shape: grown, data_offsets: [offset, offset + blob.length] };
    blobs.push(blob);
    offset += blob.length;
  }
  let json = JSON.stringify(out);
  json += ' '.repeat((8 - (json.length % 8)) % 8);
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  return Buffer.concat([length, Buffer.from(json), ...blobs]);
}

/** The files of one preset: { 'config.json', 'tokenizer.json', 'model.safetensors' } as Buffers. */
export function presetFiles(id) {
  const folder = `${CHECKPOINTS}${PRESET_CHECKPOINTS[id]}/`;
  const config = JSON.parse(readFileSync(`${folder}config.json`, 'utf8'));
  const tokenizer = HUB_TOKENIZERS[id]();
  const vocabSize = Math.max(...Object.values(tokenizer.model.vocab), ...tokenizer.added_tokens.map((t) => t.id)) + 1;
  const grown = { ...config, vocab_size: vocabSize };
  if (id === 'gpt2') Object.assign(grown, { bos_token_id: vocabSize - 1, eos_token_id: vocabSize - 1 });
  return {
    'config.json': Buffer.from(JSON.stringify(grown, null, 2)),
    'tokenizer.json': Buffer.from(JSON.stringify(tokenizer)),
    'model.safetensors': growVocabulary(readFileSync(`${folder}model.safetensors`), config.vocab_size, vocabSize),
  };
}

/** The four presets, and gpt2 again under its newer id, as fake-Hub repositories. */
export function presetRepos() {
  const repos = Object.fromEntries(Object.keys(PRESET_CHECKPOINTS).map((id) => [id, { files: presetFiles(id) }]));
  repos['openai-community/gpt2'] = repos.gpt2;
  return repos;
}

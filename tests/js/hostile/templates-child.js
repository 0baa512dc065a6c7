// Run by chat-templates.test.js as `node --max-old-space-size=1024 templates-child.js`: writes with
// every hostile template (templates.js), printing one JSON line per template as it ends, then
// checks that the model still writes after a genuine template and still runs text. A template
// that exhausts the heap aborts this process, and the lines printed so far say which one it was.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { writeWithEach } from './templates.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/qwen2/', import.meta.url));
const config = { ...JSON.parse(readFileSync(`${DIR}config.json`, 'utf8')), max_position_embeddings: 1024 };
const tokenizerConfig = JSON.parse(readFileSync(`${DIR}tokenizer_config.json`, 'utf8'));

const engine = await loadEngine();
await writeWithEach((template) => engine.loadModel({
  config, tokenizer: new URL(`file://${DIR}tokenizer.json`), weights: new URL(`file://${DIR}model.safetensors`),
  tokenizerConfig: template === undefined ? tokenizerConfig : { ...tokenizerConfig, chat_template: template },
}), (line) => console.log(JSON.stringify(line)));
engine.dispose();

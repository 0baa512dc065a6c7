// Run by chat-templates.test.js as `node --max-old-space-size=1024 templates-child.js`: renders
// every hostile template (templates.js) through generate({ messages }), printing one JSON line per
// template as it ends ({ name, message, ms }), then checks that the model still writes after a
// genuine template and still runs text. A template that exhausts the heap aborts this process,
// and the lines printed so far say which one it was.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadEngine } from '../../../web/src/index.js';
import { HOSTILE_TEMPLATES } from './templates.js';

const DIR = fileURLToPath(new URL('../../fixtures/checkpoints/qwen2/', import.meta.url));
const config = { ...JSON.parse(readFileSync(`${DIR}config.json`, 'utf8')), max_position_embeddings: 1024 };
const files = (chatTemplate) => ({
  config, tokenizer: new URL(`file://${DIR}tokenizer.json`), weights: new URL(`file://${DIR}model.safetensors`),
  tokenizerConfig: { ...JSON.parse(readFileSync(`${DIR}tokenizer_config.json`, 'utf8')), ...(chatTemplate === undefined ? {} : { chat_template: chatTemplate }) },
});
const HI = [{ role: 'user', content: 'hi' }];

const engine = await loadEngine();
for (const [name, template] of HOSTILE_TEMPLATES) {
  const model = await engine.loadModel(files(template));
  const start = performance.now();
  let message = null;
  try {
    for await (const step of model.generate({ messages: HI }, { maxNewTokens: 2 })) void step;
  } catch (error) {
    message = error.message;
  }
  console.log(JSON.stringify({ name, message, ms: Math.round(performance.now() - start) }));
  model.dispose();
}
const model = await engine.loadModel(files());
const ids = [];
for await (const step of model.generate({ messages: HI }, { maxNewTokens: 2 })) ids.push(step.id);
console.log(JSON.stringify({ name: 'afterwards', written: ids.length, tokens: model.run('Once upon a time').tokens.length }));
engine.dispose();

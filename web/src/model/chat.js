// A model's chat settings, from its optional files, and its chat template rendered with
// @huggingface/jinja (the library Transformers.js renders them with). tokenizer_config.json gives
// chat_template (one template, or a list of { name, template }, of which "default" is used),
// bos_token and eos_token (a string, or an added token's { content }); generation_config.json's
// eos_token_id (one id or a list) says where writing stops, else config.json's does. The library
// is imported with the first model that has a template, so pages without one never load it.
// A template is untrusted: it renders within the bounds below (bounded-render.js).
import { describe } from '../check.js';
import { TemplateBoundError, renderWithin } from './bounded-render.js';

const MAX_MESSAGES = 1000;

// The bounds of one render. Its text, and any value it makes, may be as long as the model's
// tokens at charsPerToken characters each: more than any prompt the model can take (English runs
// about 4 characters a token), so a prompt too long for the model stops here, before tokenizing.
// Real templates render a few blocks per message (1000 messages at most), and Jinja's own sandbox
// refuses a range() past 100,000 items. The work bound keeps a render's memory near 128 MiB.
// A template longer than maxTemplateChars is not parsed at all: real ones are 1 to 10 thousand
// characters, and parsing takes about 0.2 s per million.
export const TEMPLATE_BOUNDS = Object.freeze({ charsPerToken: 32, maxBlocks: 100000, maxWork: 2 ** 26, maxMs: 500, maxTemplateChars: 2 ** 18 });

/** { template, jinja (the library, when there is a template), bosToken, eosToken, eosIds } from { config (text), generationConfig, tokenizerConfig }. */
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
  const jinja = template === null ? null : await import('@huggingface/jinja');
  return { template, jinja, bosToken: text(tokenizerConfig?.bos_token), eosToken: text(tokenizerConfig?.eos_token), eosIds };
}

/**
 * The text the model's template makes of `messages`, ending with the prompt for its answer, for a
 * model of `maxTokens` tokens (which bounds its length).
 */
export function renderChat({ template, jinja, bosToken, eosToken }, messages, maxTokens) {
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
  if (template.length > TEMPLATE_BOUNDS.maxTemplateChars) {
    throw new Error(`the model's chat template is ${template.length} characters long, more than the ${TEMPLATE_BOUNDS.maxTemplateChars} ` +
      'multihead reads (real ones are a few thousand): give the prompt as text');
  }
  let compiled;
  try {
    compiled = new jinja.Template(template);
  } catch (error) {
    throw new Error(`the model's chat template cannot be read: ${error.message}`);
  }
  const { charsPerToken, maxBlocks, maxWork, maxMs } = TEMPLATE_BOUNDS;
  const limits = {
    maxChars: maxTokens * charsPerToken, maxBlocks, maxWork, maxMs,
    charsNote: ` (${charsPerToken} for each of the model's ${maxTokens} tokens)`,
  };
  const context = { messages: copies, add_generation_prompt: true, bos_token: bosToken ?? '', eos_token: eosToken ?? '' };
  try {
    return renderWithin(jinja, compiled, context, limits);
  } catch (error) {
    if (error instanceof TemplateBoundError) throw error;
    throw new Error(`the model's chat template failed to render these messages: ${error.message}`);
  }
}

// Checks a tokenizer.json before @huggingface/tokenizers reads it. A tokenizer comes from a URL or
// the Hub, so it is untrusted, and the library trusts it: it returns vocabulary ids exactly as
// written (the engine's Int32Array then turns 2³²+6 into 6, 1.5 into 1 and "7" into 7), gives an
// unknown id to a token its post-processor or merges name but its vocabulary lacks, and fails on a
// missing field with a message about `undefined`. Here every field the library reads to produce
// ids is checked, and an error names the field and its value as given.
//
// It is given the file in the current layout (layout.js rewrites the older ones), and it
// checks structure and ids, not behaviour: whether a regex is safe to run is regex.js's
// question (patterns are collected here and checked once the library has compiled them), and
// whether ids fit the model is known only once config.json is read (checkVocabularySize: the
// model's vocabulary must fit; an added token past vocab_size is an error only in a text that
// produces it, as Gemma 3's text models share a tokenizer.json whose image tokens sit at and past
// their vocab_size, and transformers loads them). It is
// given JSON.parse output or loading/sources.js's plain, depth-limited copy of an object (which refuses
// one that contains itself), so nothing it walks can hold itself.

import { describe } from '../check.js';
import { MODEL_KINDS } from './layout.js';
import { regexHazard } from './regex.js';

const MODEL_TYPES = ['BPE', 'Unigram', 'WordLevel', 'WordPiece'];
const PARTS = ['normalizer', 'pre_tokenizer', 'model', 'post_processor', 'decoder'];

/**
 * Checks `json` (a parsed tokenizer.json); throws an Error naming the first bad field. Returns
 * { largest, patterns }: the largest id and where it is written, and every regex to check.
 */
export function checkTokenizerJson(json) {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) fail(`tokenizer.json must be a JSON object, got ${shown(json)}`);
  for (const part of PARTS) {
    const value = json[part];
    if (part === 'model' ? !isObject(value) : value !== null && !isObject(value)) {
      fail(`tokenizer.json ${part} must be an object${part === 'model' ? '' : ' or null'}, got ${shown(value)}`);
    }
  }
  const largest = { id: -1, where: '' };
  const note = (id, where) => {
    if (id > largest.id) Object.assign(largest, { id, where });
  };
  const vocab = checkModel(json.model, note);
  const byContent = checkAddedTokens(json.added_tokens, vocab);
  // The id the library gives a token's text: an added token's first, then the model's.
  const idOf = (token) => byContent.get(token) ?? vocab.get(token);
  checkPostProcessor(json.post_processor, idOf);
  const patterns = [];
  walkSteps(json.normalizer, 'normalizer', 'normalizers', patterns);
  walkSteps(json.pre_tokenizer, 'pre_tokenizer', 'pretokenizers', patterns);
  walkSteps(json.decoder, 'decoder', 'decoders', patterns);
  return { largest, patterns };
}

/** Refuses any collected regex whose backtracking can freeze the page; run after the library compiled them. */
export function checkPatterns(patterns) {
  for (const { field, source } of patterns) {
    let hazard;
    try {
      hazard = regexHazard(source);
    } catch (error) {
      fail(`tokenizer.json ${field} ${quote(source, 100)} is refused: it could not be checked for patterns that can take too long to match (${error.message})`);
    }
    if (!hazard) continue;
    const fragment = clip(hazard.fragment, 60);
    const why = {
      nested: `${fragment} repeats a group that holds a quantifier, which can take exponential time to match some text`,
      overlap: `${fragment} repeats alternatives that may start with the same character, which can take exponential time to match some text`, // or that cannot be told apart here
      backreference: `${fragment} is a backreference, which can take exponential time to match some text`,
      power: `it repeats overlapping characters in ${fragment} before something that can fail, which can take time growing as a power of the text's length`,
      product: `it repeats overlapping characters in ${fragment} before something that can fail, which can take time growing with the product of their repeat counts`,
    }[hazard.kind];
    fail(`tokenizer.json ${field} ${quote(source, 100)} is refused: ${why}`);
  }
}

/** Throws if the largest id of checkTokenizerJson's answer does not fit config.json's vocab_size. */
export function checkVocabularySize(largest, vocabSize) {
  if (largest.id >= vocabSize) {
    fail(`tokenizer.json ${largest.where}, outside config.json's vocab_size of ${vocabSize} (ids 0 to ${vocabSize - 1})`);
  }
}

/** The model's vocabulary as a Map from token to id, after checking every field the library reads. */
function checkModel(model, note) {
  if (model.type === undefined) {
    fail(`tokenizer.json model has no "type", and its fields are those of no kind of model: a model without one is read as ${MODEL_KINDS}`);
  }
  if (!MODEL_TYPES.includes(model.type)) {
    fail(`tokenizer.json model.type must be one of ${MODEL_TYPES.map((t) => `"${t}"`).join(', ')}, got ${shown(model.type)}`);
  }
  const vocab = model.type === 'Unigram' ? checkUnigramVocab(model, note) : checkVocabObject(model.vocab, note);
  const has = (token) => vocab.has(token);
  if (model.type === 'WordPiece' || model.type === 'WordLevel') {
    checkToken('model.unk_token', model.unk_token, has);
  } else if (model.type === 'BPE' && model.unk_token !== null && model.unk_token !== undefined) {
    checkToken('model.unk_token', model.unk_token, has);
  }
  if (model.type === 'WordPiece') {
    if (typeof model.continuing_subword_prefix !== 'string') {
      fail(`tokenizer.json model.continuing_subword_prefix must be a string (BERT's is "##"), got ${shown(model.continuing_subword_prefix)}`);
    }
    const max = model.max_input_chars_per_word;
    if (max !== undefined && max !== null && !(Number.isInteger(max) && max >= 0)) {
      fail(`tokenizer.json model.max_input_chars_per_word must be a whole number, got ${shown(max)}`);
    }
  }
  if (model.type === 'BPE') {
    for (const key of ['end_of_word_suffix', 'continuing_subword_suffix', 'continuing_subword_prefix']) {
      const value = model[key];
      if (value !== undefined && value !== null && typeof value !== 'string') fail(`tokenizer.json model.${key} must be a string or null, got ${shown(value)}`);
    }
    for (const key of ['byte_fallback', 'ignore_merges', 'fuse_unk']) {
      const value = model[key];
      if (value !== undefined && value !== null && typeof value !== 'boolean') fail(`tokenizer.json model.${key} must be true or false, got ${shown(value)}`);
    }
    checkMerges(model, vocab);
  }
  return vocab;
}

function checkVocabObject(vocab, note) {
  if (!isObject(vocab)) fail(`tokenizer.json model.vocab must be an object mapping each token to its id, got ${shown(vocab)}`);
  const map = new Map();
  let largest = null; // the token with the largest id, named only if it is too large for the model
  for (const [token, id] of Object.entries(vocab)) {
    if (!isId(id)) checkId(`model.vocab[${quote(token, 40)}]`, id);
    if (largest === null || id > map.get(largest)) largest = token;
    map.set(token, id);
  }
  if (largest !== null) note(map.get(largest), `model.vocab[${quote(largest, 40)}] is ${map.get(largest)}`);
  return map;
}

/** Unigram's vocabulary is an array of [token, score]; a token's id is its index. */
function checkUnigramVocab(model, note) {
  const vocab = model.vocab;
  if (!Array.isArray(vocab) || vocab.length === 0) {
    fail(`tokenizer.json model.vocab must be a non-empty array of [token, score] pairs for a Unigram model, got ${shown(vocab)}`);
  }
  const map = new Map();
  vocab.forEach((entry, i) => {
    if (!Array.isArray(entry) || entry.length !== 2 || typeof entry[0] !== 'string') {
      fail(`tokenizer.json model.vocab[${i}] must be a [token, score] pair, got ${shown(entry)}`);
    }
    if (typeof entry[1] !== 'number' || !Number.isFinite(entry[1])) {
      fail(`tokenizer.json model.vocab[${i}][1] must be a finite number (the token's score), got ${shown(entry[1])}`);
    }
    map.set(entry[0], i);
  });
  if (!Number.isInteger(model.unk_id) || model.unk_id < 0 || model.unk_id >= vocab.length) {
    fail(`tokenizer.json model.unk_id must be an index into model.vocab (0 to ${vocab.length - 1}), got ${shown(model.unk_id)}`);
  }
  note(vocab.length - 1, `model.vocab has ${vocab.length} tokens, so its ids go up to ${vocab.length - 1}`);
  return map;
}

/**
 * BPE merges come in two formats: "left right" strings (tokenizers before 0.20) or ["left", "right"]
 * pairs. The library picks the format from the first merge, so they must not be mixed; a merge of
 * tokens, or into a token, that the vocabulary lacks would make the library give the unknown token.
 */
function checkMerges(model, vocab) {
  const merges = model.merges;
  if (!Array.isArray(merges)) fail(`tokenizer.json model.merges must be an array of merges, got ${shown(merges)}`);
  const strings = typeof merges[0] === 'string';
  merges.forEach((merge, i) => {
    let pair;
    if (strings) {
      pair = typeof merge === 'string' ? merge.split(' ') : [];
      if (pair.length !== 2 || pair[0] === '' || pair[1] === '') {
        fail(`tokenizer.json model.merges[${i}] must be two tokens separated by one space, as model.merges[0] is, got ${shown(merge)}`);
      }
    } else {
      pair = merge;
      if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string' || !pair[0] || !pair[1]) {
        fail(`tokenizer.json model.merges[${i}] must be a pair of tokens ["left", "right"]${i > 0 ? ', as model.merges[0] is' : ''}, got ${shown(merge)}`);
      }
    }
    for (const token of pair) {
      if (!vocab.has(token)) fail(`tokenizer.json model.merges[${i}] merges ${quote(token, 40)}, which is not in model.vocab`);
    }
    // The library's merge makes left + right (it has no continuing_subword_prefix), as a file
    // saved by the Rust tokenizers without one does; the Rust library refuses a merge whose result it lacks.
    if (!vocab.has(pair[0] + pair[1])) {
      fail(`tokenizer.json model.merges[${i}] makes ${quote(pair[0] + pair[1], 40)}, which is not in model.vocab`);
    }
  });
}

/**
 * Added tokens ([CLS], <s>, <|endoftext|>…) are matched in the text before the model runs, and
 * their ids replace the vocabulary's. Returns a Map from each one's text to its id.
 */
function checkAddedTokens(added, vocab) {
  if (!Array.isArray(added)) fail(`tokenizer.json added_tokens must be an array of tokens, got ${shown(added)}`);
  const byContent = new Map();
  const byId = new Map(); // id → index in added_tokens
  let vocabTokenOf = null; // id → the vocabulary's token, built when a token outside it needs it
  added.forEach((token, i) => {
    const field = `added_tokens[${i}]`;
    if (!isObject(token)) fail(`tokenizer.json ${field} must be an object with content and id, got ${shown(token)}`);
    if (typeof token.content !== 'string' || token.content === '') {
      fail(`tokenizer.json ${field}.content must be a non-empty string, got ${shown(token.content)}`);
    }
    checkId(`${field}.id`, token.id);
    for (const key of ['special', 'single_word', 'lstrip', 'rstrip', 'normalized']) {
      const value = token[key];
      if (value !== undefined && typeof value !== 'boolean') fail(`tokenizer.json ${field}.${key} must be true or false, got ${shown(value)}`);
    }
    const name = quote(token.content, 40);
    const inVocab = vocab.get(token.content);
    if (inVocab !== undefined && inVocab !== token.id) {
      fail(`tokenizer.json ${field} ${name} has id ${token.id}, but model.vocab gives ${name} the id ${inVocab}`);
    }
    if (inVocab === undefined && !vocabTokenOf) {
      vocabTokenOf = new Map();
      for (const [text, id] of vocab) if (!vocabTokenOf.has(id)) vocabTokenOf.set(id, text);
    }
    if (inVocab === undefined && vocabTokenOf.has(token.id)) {
      fail(`tokenizer.json ${field} ${name} has id ${token.id}, which model.vocab gives to ${quote(vocabTokenOf.get(token.id), 40)}`);
    }
    const earlier = byContent.has(token.content) ? added.findIndex((t) => t.content === token.content) : -1;
    if (earlier >= 0 && byContent.get(token.content) !== token.id) {
      fail(`tokenizer.json ${field} repeats the token ${name} of added_tokens[${earlier}] with another id (${token.id}, not ${byContent.get(token.content)})`);
    }
    const sameId = byId.get(token.id);
    if (sameId !== undefined && added[sameId].content !== token.content) {
      fail(`tokenizer.json ${field} ${name} has id ${token.id}, as added_tokens[${sameId}] ${quote(added[sameId].content, 40)} does`);
    }
    byContent.set(token.content, token.id);
    if (sameId === undefined) byId.set(token.id, i);
  });
  return byContent;
}

/**
 * The post-processor adds [CLS], [SEP], <s>… around the text. Their ids are written in it, but the
 * library looks each token's text up instead: the two must agree, or the ids would differ from the
 * reference tokenizer's without a word. Walks a Sequence's processors as walkSteps walks its steps.
 */
function checkPostProcessor(root, idOf) {
  const checkSpecial = (where, token, ids) => {
    const id = idOf(token);
    if (id === undefined) fail(`tokenizer.json ${where} adds the token ${quote(token, 40)}, which is neither in model.vocab nor in added_tokens`);
    if (ids.length !== 1 || ids[0] !== id) {
      fail(`tokenizer.json ${where} gives ${quote(token, 40)} the ids [${ids.join(', ')}], but its id in the vocabulary is ${id}`);
    }
  };
  if (root === null) return;
  const pending = [[root, 'post_processor']];
  while (pending.length) {
    const [processor, field] = pending.pop();
    if (!isObject(processor)) fail(`tokenizer.json ${field} must be an object, got ${shown(processor)}`);
    if (processor.type === 'TemplateProcessing') {
      const special = processor.special_tokens;
      if (!isObject(special)) fail(`tokenizer.json ${field}.special_tokens must be an object, got ${shown(special)}`);
      for (const [name, entry] of Object.entries(special)) {
        const where = `${field}.special_tokens[${quote(name, 40)}]`;
        if (!isObject(entry)) fail(`tokenizer.json ${where} must be an object with id, ids and tokens, got ${shown(entry)}`);
        if (!Array.isArray(entry.ids) || entry.ids.length === 0) fail(`tokenizer.json ${where}.ids must be a non-empty array of ids, got ${shown(entry.ids)}`);
        entry.ids.forEach((id, i) => checkId(`${where}.ids[${i}]`, id));
      }
      const single = processor.single;
      if (!Array.isArray(single)) fail(`tokenizer.json ${field}.single must be an array, got ${shown(single)}`);
      single.forEach((item, i) => {
        const where = `${field}.single[${i}]`;
        if (isObject(item) && isObject(item.SpecialToken) && typeof item.SpecialToken.id === 'string') {
          const name = item.SpecialToken.id;
          if (!Object.hasOwn(special, name)) fail(`tokenizer.json ${where} adds ${quote(name, 40)}, which ${field}.special_tokens does not define`);
          checkSpecial(`${field}.special_tokens[${quote(name, 40)}]`, name, special[name].ids);
        } else if (isObject(item) && isObject(item.Sequence)) {
          if (item.Sequence.id !== 'A') fail(`tokenizer.json ${where}.Sequence.id must be "A" (the text), got ${shown(item.Sequence.id)}`);
        } else {
          fail(`tokenizer.json ${where} must be { "SpecialToken": { "id": … } } or { "Sequence": { "id": "A" } }, got ${shown(item)}`);
        }
      });
    } else if (processor.type === 'BertProcessing' || processor.type === 'RobertaProcessing') {
      for (const key of ['cls', 'sep']) {
        const pair = processor[key];
        const where = `${field}.${key}`;
        if (!Array.isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string') {
          fail(`tokenizer.json ${where} must be a [token, id] pair, got ${shown(pair)}`);
        }
        checkId(`${where}[1]`, pair[1]);
        checkSpecial(where, pair[0], [pair[1]]);
      }
    } else if (processor.type === 'Sequence') {
      const list = processor.processors;
      if (!Array.isArray(list)) fail(`tokenizer.json ${field}.processors must be an array, got ${shown(list)}`);
      for (let i = list.length - 1; i >= 0; i--) pending.push([list[i], `${field}.processors[${i}]`]);
    }
  }
}

/**
 * Normalizers, pre-tokenizers and decoders: checks the Sequence lists the library maps over and
 * the patterns it compiles, and collects every regex. An explicit stack, so no nesting recurses.
 */
function walkSteps(root, rootField, listKey, patterns) {
  const pending = [[root, rootField]];
  while (pending.length) {
    const [step, field] = pending.pop();
    if (step === null) continue;
    if (!isObject(step)) fail(`tokenizer.json ${field} must be an object or null, got ${shown(step)}`);
    if (step.type === 'Sequence') {
      const list = step[listKey];
      if (list === undefined || list === null) continue;
      if (!Array.isArray(list)) fail(`tokenizer.json ${field}.${listKey} must be an array, got ${shown(list)}`);
      for (let i = list.length - 1; i >= 0; i--) pending.push([list[i], `${field}.${listKey}[${i}]`]);
    } else if (step.type === 'Metaspace') {
      // An older Metaspace said add_prefix_space where it now says prepend_scheme. The Rust
      // library reads true as the default "always", and refuses false unless prepend_scheme is
      // "never"; this library would read it as "always" without a word.
      if (step.add_prefix_space === false && step.prepend_scheme !== 'never') {
        fail(`tokenizer.json ${field}.add_prefix_space is false but its prepend_scheme is ${shown(step.prepend_scheme)}, not "never": the tokenizers library refuses that mismatch`);
      }
    } else if (step.type === 'Split' || step.type === 'Replace') {
      const pattern = step.pattern;
      const regex = isObject(pattern) && typeof pattern.Regex === 'string';
      if (!regex && !(isObject(pattern) && typeof pattern.String === 'string')) {
        fail(`tokenizer.json ${field}.pattern must be { "Regex": "…" } or { "String": "…" }, got ${shown(pattern)}`);
      }
      if (regex) patterns.push({ field: `${field}.pattern.Regex`, source: pattern.Regex });
      if (step.type === 'Replace' && step.content !== undefined && typeof step.content !== 'string') {
        fail(`tokenizer.json ${field}.content must be a string, got ${shown(step.content)}`);
      }
    }
  }
}

/** A string token that the vocabulary (tested by `has`) must hold. */
function checkToken(field, token, has) {
  if (typeof token !== 'string') fail(`tokenizer.json ${field} must be a string, got ${shown(token)}`);
  if (!has(token)) fail(`tokenizer.json ${field} ${quote(token, 40)} is not in model.vocab`);
}

// The Rust library reads ids as u32 and refuses a file with a larger one.
const MAX_ID = 2 ** 32 - 1;

function isId(id) {
  return typeof id === 'number' && Number.isInteger(id) && id >= 0 && id <= MAX_ID;
}

function checkId(field, id) {
  if (!isId(id)) {
    fail(`tokenizer.json ${field} must be an id (a whole number from 0 to ${MAX_ID}), got ${shown(id)}`);
  }
}

function isObject(value) {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A JSON value for a message, as given; `nothing` when the field is missing. */
function shown(value) {
  return value === undefined ? 'nothing' : describe(value);
}

function quote(text, max) {
  return JSON.stringify(clip(text, max));
}

function clip(text, max) {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function fail(message) {
  throw new Error(message);
}

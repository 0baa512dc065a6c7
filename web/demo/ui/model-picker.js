// The page's model controls: the two built-in models, the Hub presets with their download sizes, a Hub
// id typed in, a Hub model's revision (a branch, tag or commit), a local folder (the directory picker, or drag-and-drop of the three files), the
// progress of a load with its Cancel button, and the models downloaded into the browser's cache
// with a Delete button each. It loads nothing itself: it hands a choice to onLoad and shows what
// main.js tells it. Every text it shows goes in as textContent: ids, file names and messages may
// come from a URL or from a server.
import { DEFAULT_HUB_URL, hubBase, parseHubId } from '../../src/loading/hub.js';
import { deleteCachedModel, listCachedModels } from '../../src/loading/cache.js';
import { filesOfDirectoryHandle, filesOfDrop, modelFilesFrom } from './model-files.js';
import { builtinModel, hubModel } from '../state/model-choice.js';
import { REVISION } from '../url-state.js';

/**
 * The Hub models the page offers by name, with the size of their model.safetensors (BF16 files stay
 * that size in memory; F16 ones double). Pythia's training checkpoints are revisions step0 … step143000.
 */
export const PRESETS = [
  { id: 'bert-base-uncased', megabytes: 440, note: 'masked LM' },
  { id: 'distilbert-base-uncased', megabytes: 268, note: 'masked LM' },
  { id: 'roberta-base', megabytes: 499, note: 'masked LM' },
  { id: 'gpt2', megabytes: 548, note: 'next token' },
  { id: 'distilgpt2', megabytes: 353, note: 'next token' },
  { id: 'HuggingFaceTB/SmolLM2-135M', megabytes: 269, note: 'Llama, 9 query heads on 3 KV heads' },
  { id: 'HuggingFaceTB/SmolLM2-135M-Instruct', megabytes: 269, note: 'Llama, chat' },
  { id: 'HuggingFaceTB/SmolLM2-360M-Instruct', megabytes: 724, note: 'Llama, chat' },
  { id: 'Qwen/Qwen2.5-0.5B-Instruct', megabytes: 988, note: 'Qwen2.5, 14 query heads on 2 KV heads' },
  { id: 'Qwen/Qwen3-0.6B', megabytes: 1503, note: 'Qwen3, QK-norm' },
  { id: 'TinyLlama/TinyLlama-1.1B-Chat-v1.0', megabytes: 2200, note: 'Llama, chat' },
  { id: 'EleutherAI/pythia-70m', megabytes: 166, note: 'GPT-NeoX; revisions step0 to step143000' },
  { id: 'EleutherAI/pythia-160m', megabytes: 375, note: 'GPT-NeoX; revisions step0 to step143000' },
  { id: 'unsloth/gemma-3-270m', megabytes: 536, note: 'Gemma 3, sliding windows of 512' },
  { id: 'google-t5/t5-small', megabytes: 242, note: 'T5 encoder–decoder: translates, summarises' },
  { id: 'google/flan-t5-small', megabytes: 308, note: 'Flan-T5 encoder–decoder, instructions' },
  { id: 'facebook/bart-base', megabytes: 558, note: 'BART encoder–decoder, rewrites its input' },
  { id: 'Helsinki-NLP/opus-mt-en-de', megabytes: 298, note: 'Marian: translates English to German' },
  { id: 'Helsinki-NLP/opus-mt-de-en', megabytes: 298, note: 'Marian: translates German to English' },
];
const OTHER = 'other';
const BUILTIN = 'builtin:'; // the select's value for a built-in model is 'builtin:' + its name

const mb = (bytes) => (bytes / 1e6).toFixed(bytes < 1e7 ? 2 : 1);
/** A preset's download size: "269 MB", "1.50 GB". */
export const sizeText = (megabytes) => (megabytes < 1000 ? `${megabytes} MB` : `${(megabytes / 1000).toFixed(2)} GB`);

export function createModelPicker({ onLoad, onCancel }) {
  const $ = (id) => document.getElementById(id);
  const dom = {
    choice: $('model-choice'), id: $('model-id'), idError: $('model-id-error'), load: $('model-load'), revision: $('model-revision'),
    folder: $('model-folder'), folderInput: $('model-folder-input'), progress: $('model-progress'),
    bar: $('model-bar'), bytes: $('model-bytes'), cancel: $('model-cancel'), message: $('model-message'),
    cache: $('model-cache'), cacheList: $('model-cache-list'), cacheSummary: $('model-cache-summary'), drop: $('drop-target'),
  };
  const hub = $('model-hub-presets');
  for (const { id, megabytes, note } of PRESETS) hub.append(new Option(`${id} (${note}, ${sizeText(megabytes)})`, id));
  hub.append(new Option('Another Hub model…', OTHER));

  dom.choice.addEventListener('change', () => {
    dom.id.hidden = dom.choice.value !== OTHER;
    dom.revision.hidden = dom.choice.value.startsWith(BUILTIN);
    clearIdError();
    if (!dom.id.hidden) dom.id.focus();
  });
  for (const field of [dom.id, dom.revision]) {
    field.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') chooseSelected();
    });
    field.addEventListener('input', clearIdError);
  }
  dom.load.addEventListener('click', chooseSelected);
  dom.cancel.addEventListener('click', () => onCancel());
  dom.folder.addEventListener('click', openFolder);
  dom.folderInput.addEventListener('change', () => {
    const files = [...dom.folderInput.files];
    dom.folderInput.value = '';
    if (files.length === 0) return;
    const folder = files[0].webkitRelativePath.split('/')[0];
    localChoice(files, folder ? `the folder "${folder}"` : 'the folder', folder);
  });
  wireDrop();

  function chooseSelected() {
    const value = dom.choice.value;
    if (value.startsWith(BUILTIN)) return onLoad(builtinModel(value.slice(BUILTIN.length)));
    const revision = dom.revision.value.trim() || 'main';
    if (!REVISION.test(revision)) {
      return fieldError(dom.revision, 'A revision is a branch, tag or commit of the model, such as main or step1000: letters, digits, ".", "_" and "-".');
    }
    if (value !== OTHER) return onLoad(hubModel(value, revision));
    const text = dom.id.value.trim();
    try {
      parseHubId(text);
    } catch (error) {
      return fieldError(dom.id, text === '' ? 'Type a Hub model id, such as bert-base-cased or owner/name.' : error.message);
    }
    onLoad(hubModel(text, revision));
  }

  function fieldError(field, text) {
    field.setAttribute('aria-invalid', 'true');
    field.setAttribute('aria-describedby', 'model-id-error');
    dom.idError.hidden = false;
    dom.idError.textContent = text;
    field.focus();
  }

  function clearIdError() {
    dom.id.removeAttribute('aria-invalid');
    dom.revision.removeAttribute('aria-invalid');
    dom.idError.hidden = true;
  }

  async function openFolder() {
    // The directory picker asks no upload question and reads only the files needed; browsers
    // without it (Firefox, Safari) get the input, which reads the folder's file list.
    if (typeof window.showDirectoryPicker !== 'function') return dom.folderInput.click();
    let directory;
    try {
      directory = await window.showDirectoryPicker({ id: 'multihead-model', mode: 'read' });
    } catch (error) {
      if (error.name === 'AbortError') return; // the user closed the picker
      return dom.folderInput.click(); // refused here (an iframe without permission): try the input
    }
    try {
      localChoice(await filesOfDirectoryHandle(directory), `the folder "${directory.name}"`, directory.name);
    } catch (error) {
      showMessage(`That folder could not be read: ${error.message}`);
    }
  }

  function localChoice(files, where, name) {
    let picked;
    try {
      picked = modelFilesFrom(files, where);
    } catch (error) {
      return showMessage(error.message);
    }
    onLoad({ kind: 'local', files: picked, name });
  }

  // Drops anywhere on the page; the target outline shows only while files are dragged over it.
  function wireDrop() {
    let depth = 0;
    const hasFiles = (event) => [...(event.dataTransfer?.types ?? [])].includes('Files');
    document.addEventListener('dragenter', (event) => {
      if (!hasFiles(event)) return;
      depth++;
      dom.drop.hidden = false;
    });
    document.addEventListener('dragleave', () => {
      if (depth > 0 && --depth === 0) dom.drop.hidden = true;
    });
    document.addEventListener('dragover', (event) => {
      if (hasFiles(event)) event.preventDefault(); // allows the drop
    });
    document.addEventListener('drop', async (event) => {
      if (!hasFiles(event)) return;
      event.preventDefault(); // or the browser opens the file
      depth = 0;
      dom.drop.hidden = true;
      try {
        const { files, where, name } = await filesOfDrop(event.dataTransfer);
        localChoice(files, where, name);
      } catch (error) {
        showMessage(`The dropped files could not be read: ${error.message}`);
      }
    });
  }

  /** Lists the downloaded models with their sizes and a Delete button each. */
  async function refreshCache() {
    let models;
    try {
      models = await listCachedModels();
    } catch {
      models = []; // no Cache API here (an insecure origin): nothing to list
    }
    dom.cache.hidden = models.length === 0;
    const total = models.reduce((sum, m) => sum + m.bytes, 0);
    dom.cacheSummary.textContent = `Downloaded models: ${models.length}, ${mb(total)} MB`;
    dom.cacheList.replaceChildren(...models.map((model) => {
      const item = document.createElement('li');
      const name = document.createElement('span');
      name.className = 'mh-token';
      // A model from another server than the Hub (the page's ?hub=) says where it is from, so a
      // file served under a well-known id elsewhere cannot pass for the real one.
      const from = model.hubUrl === hubBase(DEFAULT_HUB_URL) ? '' : ` from ${new URL(model.hubUrl).host}`;
      name.textContent = `${model.revision === 'main' ? model.id : `${model.id} @ ${model.revision}`}${from}`;
      name.title = `${model.hubUrl}: ${model.files.map((f) => f.file).join(', ')}`;
      const size = document.createElement('span');
      size.textContent = `${mb(model.bytes)} MB`;
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Delete';
      remove.setAttribute('aria-label', `Delete the downloaded ${name.textContent} (${size.textContent})`);
      remove.addEventListener('click', async () => {
        remove.disabled = true;
        await deleteCachedModel(model).catch((error) => showMessage(`${name.textContent} could not be deleted: ${error.message}`));
        refreshCache();
        dom.cacheSummary.focus();
      });
      item.append(name, size, remove);
      return item;
    }));
  }

  function showMessage(text) {
    dom.message.textContent = text;
    dom.message.hidden = text === '';
  }

  return {
    /** Shows `choice` in the controls, as if the user had picked it. */
    select(choice) {
      const preset = choice.kind === 'hub' && PRESETS.some((p) => p.id === choice.id);
      dom.choice.value = choice.kind === 'builtin' ? BUILTIN + choice.id : preset ? choice.id : choice.kind === 'hub' ? OTHER : dom.choice.value;
      dom.id.hidden = dom.choice.value !== OTHER;
      dom.revision.hidden = dom.choice.value.startsWith(BUILTIN);
      if (choice.kind === 'hub' && !preset) dom.id.value = choice.id;
      if (choice.kind === 'hub') dom.revision.value = choice.revision ?? '';
    },

    /** Shows a load in flight ({ file, loaded, total } once bytes arrive), or hides it (null). */
    progress(what, event) {
      dom.progress.hidden = what === null;
      dom.load.disabled = what !== null;
      if (what === null) {
        // The button disappears under the keyboard's focus: give it to the control next to it.
        if (document.activeElement === dom.cancel) dom.choice.focus();
        return;
      }
      if (!event) {
        dom.bar.removeAttribute('value');
        dom.bytes.textContent = `Loading ${what}…`;
        return;
      }
      const { file, loaded, total } = event;
      if (total) {
        dom.bar.max = total;
        dom.bar.value = loaded;
      } else dom.bar.removeAttribute('value');
      dom.bytes.textContent = `${what}: ${file} ${mb(loaded)}${total ? ` / ${mb(total)}` : ''} MB`;
    },

    showMessage,

    refreshCache,
  };
}

// The three files of a model folder the user gives the page: from the directory picker, from an
// <input webkitdirectory>, or dropped (files, or a folder). It finds config.json, tokenizer.json
// and model.safetensors by name and says plainly what is missing; it reads no bytes (the worker
// reads the File objects, which cross to it without a copy).

const NEEDED = { config: 'config.json', tokenizer: 'tokenizer.json', weights: 'model.safetensors' };

/**
 * { config, tokenizer, weights } from a list of File objects (the top-level copy of each name
 * wins over one in a subfolder); throws an Error naming what is missing and what is there.
 * `where` names the folder in messages ('the folder "bert"').
 */
export function modelFilesFrom(files, where = 'the folder') {
  const byName = new Map();
  const depth = (file) => (file.webkitRelativePath || file.name).split('/').length;
  for (const file of files) {
    const known = byName.get(file.name);
    if (!known || depth(file) < depth(known)) byName.set(file.name, file);
  }
  const missing = Object.values(NEEDED).filter((name) => !byName.has(name));
  if (missing.length > 0) {
    const has = [...byName.keys()].sort();
    const instead = !byName.has('model.safetensors') && has.some((n) => /^pytorch_model.*\.bin$|\.(pt|pth|ckpt|h5|msgpack)$/.test(n))
      ? ' Only model.safetensors weights can be read (not PyTorch .bin files).'
      : '';
    const found = has.length ? `found only ${list(has.slice(0, 12))}${has.length > 12 ? ', …' : ''}` : 'found no files';
    throw new Error(`${list(missing)} ${missing.length > 1 ? 'are' : 'is'} missing from ${where} (${found}): ` +
      `a model needs config.json, tokenizer.json and model.safetensors.${instead}`);
  }
  return Object.fromEntries(Object.entries(NEEDED).map(([key, name]) => [key, byName.get(name)]));
}

/** The files of a folder chosen with showDirectoryPicker (its top level only). */
export async function filesOfDirectoryHandle(directory) {
  const files = [];
  for await (const handle of directory.values()) {
    if (handle.kind === 'file' && Object.values(NEEDED).includes(handle.name)) files.push(await handle.getFile());
    else if (handle.kind === 'file') files.push({ name: handle.name }); // named in messages, never read
  }
  return files;
}

/**
 * The files of a drop: the dropped files themselves, or the top level of one dropped folder.
 * Resolves to { files, where, name } (where for messages, name the folder's or '').
 */
export async function filesOfDrop(dataTransfer) {
  const entries = [...dataTransfer.items].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (entries.length === 1 && entries[0].isDirectory) {
    const children = await readAll(entries[0].createReader());
    const files = await Promise.all(children.filter((e) => e.isFile).map((e) => new Promise((resolve, reject) => e.file(resolve, reject))));
    return { files, where: `the folder "${entries[0].name}"`, name: entries[0].name };
  }
  return { files: [...dataTransfer.files], where: 'the dropped files', name: '' };
}

// readEntries answers in batches (100 in Chromium) until an empty one.
async function readAll(reader) {
  const all = [];
  for (;;) {
    const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
    if (batch.length === 0) return all;
    all.push(...batch);
  }
}

function list(names) {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

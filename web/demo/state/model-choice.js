// A choice of model, as the picker, the URL and the session pass it around:
// { kind: 'builtin', id: 'default' | 'causal' | 'reverse' } | { kind: 'hub', id, revision? } | { kind: 'local', files, name }.
// A Hub choice's revision (a branch, tag or commit: Pythia's training checkpoints are step0 …
// step143000) is left out for 'main'.
// Plain data and the words for it; loading is the session's.

/** The models inside the package, by the name loadModel's { builtin } takes, as sentences name them. */
export const BUILTIN_NAMES = { default: 'the built-in BERT', causal: 'the built-in GPT', reverse: 'the built-in reverser' };

export const builtinModel = (id) => Object.freeze({ kind: 'builtin', id });
export const BUILTIN_MODEL = builtinModel('default');

/** A Hub choice: the revision kept only when it is not 'main'. */
export function hubModel(id, revision = 'main') {
  return Object.freeze(revision && revision !== 'main' ? { kind: 'hub', id, revision } : { kind: 'hub', id });
}

/** How a choice is named in sentences. */
export function modelName(choice) {
  if (choice.kind === 'hub') return choice.revision ? `${choice.id} at revision ${choice.revision}` : choice.id;
  if (choice.kind === 'local') return choice.name ? `the model folder "${choice.name}"` : 'the model files you dropped';
  return BUILTIN_NAMES[choice.id];
}

/** A choice's name at the start of a sentence (a Hub id keeps its case). */
export function ModelName(choice) {
  const name = modelName(choice);
  return choice.kind === 'hub' ? name : name[0].toUpperCase() + name.slice(1);
}

/** Whether two choices name the same model: local files only when they are the same pick. */
export function sameChoice(a, b) {
  return a === b || (a.kind === b.kind && a.id === b.id && a.kind !== 'local' && a.revision === b.revision);
}

/** What the worker's engine.loadModel takes for a choice (Files cross to the worker uncopied). */
export function modelSource(choice) {
  return choice.kind === 'hub' ? choice.id : choice.kind === 'local' ? choice.files : { builtin: choice.id };
}

/** The revision of a Hub choice, as loadModel's option takes it: undefined for 'main' and for other models. */
export function modelRevision(choice) {
  return choice.kind === 'hub' ? choice.revision : undefined;
}

/** A choice as the URL's model= and the element's model attribute name it: undefined for the default model. */
export function linkedModel(choice) {
  if (choice.kind === 'hub') return choice.id;
  return choice.kind === 'builtin' && choice.id !== 'default' ? choice.id : undefined;
}

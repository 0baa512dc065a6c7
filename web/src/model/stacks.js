// An encoder–decoder's three attentions, in the order C++'s ablation codes list them: the names the
// API, the page (its URL and state) and <multihead-view>'s stack attribute all use. A module of its
// own, so the page's main thread can read them without the engine's code.
export const STACKS = Object.freeze(['encoder', 'decoder', 'cross']);

// Which neighbouring characters the matches of a regular expression can join, for the cut of a
// long text (cut.js). At a place in a text with some character `a` just before it and `b` just
// after it, the questions are:
// - can one match take `a` and then `b` (so a piece would hold text from both sides)?
// - can a lookahead, $ or \b there answer differently when `b` follows than at the end of the
//   text (so the matches before the place could change when the text is cut there)?
// - can a match start with `b`, or end with `a`, and does one surely start at `b`?
//
// It reads the JavaScript source of a compiled RegExp in Unicode mode: @huggingface/tokenizers'
// rewriting of a tokenizer.json pattern (Split, Replace), or ByteLevel's built-in GPT-2 pattern.
// Each character class or escape is tested on the characters themselves, with the pattern's flags.
//
// It answers conservatively: every path through the pattern counts, whether the engine's order
// of alternatives and greediness would take it or not. A backreference, a lookahead inside a
// lookbehind or groups nested deeper than MAX_DEPTH make the answer "unsafe" everywhere. It does
// not judge how long a pattern takes to match: regex.js refuses the dangerous ones first.

const MAX_DEPTH = 64;

/** A pattern parsed once; its questions are asked about single characters (code points as strings). */
export class PatternJoins {
  #root; // null when the pattern holds something this does not follow
  #flags;
  #word; // JavaScript's \w under the pattern's flags, for \b and \B

  /** `pattern`: a RegExp, as the library compiled it. */
  constructor(pattern) {
    this.#flags = pattern.flags.replace(/[gyd]/g, '');
    this.#word = new RegExp('^\\w$', this.#flags);
    try {
      this.#root = parse(pattern.source, this.#flags);
    } catch (error) {
      if (!(error instanceof Unfollowed)) throw error;
      this.#root = null;
    }
  }

  /**
   * Whether a place with one of `lefts` before it and one of `rights` after it is unsafe to cut
   * at: a match can take a left character then a right one, or an assertion at the place can
   * answer differently there than at the end of the text.
   */
  crosses(lefts, rights) {
    if (this.#root === null) return true;
    const walk = new Walk(lefts, rights, this.#word);
    walk.node(this.#root, false);
    return walk.unsafe;
  }

  /** Whether a match can take no character at all (a Replace would then write at every place). */
  matchesEmpty() {
    return this.#root === null || empty(this.#root);
  }

  /** Whether a match can start by taking one of `chars`. */
  canStart(chars) {
    return this.#root === null || takesAtEdge(this.#root, chars, true);
  }

  /** Whether a match can end by taking one of `chars`. */
  canEnd(chars) {
    return this.#root === null || takesAtEdge(this.#root, chars, false);
  }

  /**
   * Whether, at a place where `char` comes next, a match surely starts there whatever follows:
   * some alternative, without assertions, matches `char` alone. The engine then finds a match at
   * the place (that one or an earlier alternative's), so pieces before it end there.
   */
  surelyStarts(char) {
    return this.#root !== null && matchesAlone(this.#root, char);
  }
}

class Unfollowed extends Error {}

/**
 * The pattern as a tree: atom (one character of a class: { test }), seq { items }, alt { options },
 * repeat { body, min, max }, look { behind, body } and edge { which: '^' | '$' | 'b' | 'B' }.
 * Groups of every kind are their alt; a backreference is Unfollowed.
 */
function parse(source, flags) {
  const stack = [];
  let options = [[]]; // the open group's alternatives so far, each a list of items
  let i = 0;
  const items = () => options[options.length - 1];
  const push = (node) => items().push(node);
  while (i < source.length) {
    const char = source[i];
    if (char === '\\') {
      const end = escapeEnd(source, i);
      const body = source.slice(i + 1, end);
      if (/^[1-9]/.test(body) || body.startsWith('k<')) throw new Unfollowed('a backreference');
      if (body === 'b' || body === 'B') push({ kind: 'edge', which: body });
      else push(atom(source.slice(i, end), flags));
      i = end;
    } else if (char === '[') {
      const end = classEnd(source, i);
      push(atom(source.slice(i, end), flags));
      i = end;
    } else if (char === '(') {
      if (stack.length >= MAX_DEPTH) throw new Unfollowed('groups nested too deep');
      const prefix = /^\(\?(?:<[=!]|[=!:]|<[^>]*>)?/.exec(source.slice(i, i + 300))?.[0] ?? '(';
      const look = { '(?=': 'ahead', '(?!': 'ahead', '(?<=': 'behind', '(?<!': 'behind' }[prefix] ?? null;
      stack.push({ options, look });
      options = [[]];
      i += prefix.length;
    } else if (char === ')') {
      const group = { kind: 'alt', options: options.map((list) => ({ kind: 'seq', items: list })) };
      const open = stack.pop();
      if (!open) throw new Unfollowed('an unmatched )');
      options = open.options;
      push(open.look ? { kind: 'look', behind: open.look === 'behind', body: group } : group);
      i += 1;
    } else if (char === '|') {
      options.push([]);
      i += 1;
    } else if (char === '^' || char === '$') {
      push({ kind: 'edge', which: char });
      i += 1;
    } else if (char === '*' || char === '+' || char === '?' || char === '{') {
      const quantifier = /^(?:[*+?]|\{(\d+)(,(\d*))?\})\??/.exec(source.slice(i, i + 40));
      const list = items();
      if (!quantifier || list.length === 0) throw new Unfollowed('a quantifier that repeats nothing');
      const [text, low, comma, high] = quantifier;
      const [min, max] = text[0] === '*' ? [0, Infinity] : text[0] === '+' ? [1, Infinity] : text[0] === '?' ? [0, 1]
        : [Number(low), comma === undefined ? Number(low) : high === '' ? Infinity : Number(high)];
      list.push({ kind: 'repeat', body: list.pop(), min, max });
      i += text.length;
    } else {
      const size = source.codePointAt(i) > 0xffff ? 2 : 1;
      push(atom(source.slice(i, i + size), flags));
      i += size;
    }
  }
  if (stack.length) throw new Unfollowed('an unclosed group');
  return { kind: 'alt', options: options.map((list) => ({ kind: 'seq', items: list })) };
}

/** The end of the escape at `i`: \p{…}, \u{…}, \uXXXX (with its low surrogate), \xHH, \cX, \k<…> or one character. */
function escapeEnd(source, i) {
  const next = source[i + 1];
  if ((next === 'p' || next === 'P' || next === 'u') && source[i + 2] === '{') return source.indexOf('}', i) + 1;
  if (next === 'k' && source[i + 2] === '<') return source.indexOf('>', i) + 1;
  if (next === 'u') {
    const unit = parseInt(source.slice(i + 2, i + 6), 16);
    const pairs = unit >= 0xd800 && unit <= 0xdbff && /^\\u[dD][c-fC-F][0-9a-fA-F]{2}/.test(source.slice(i + 6, i + 12));
    return i + (pairs ? 12 : 6);
  }
  if (next === 'x') return i + 4;
  if (next === 'c') return i + 3;
  return i + 1 + (source.codePointAt(i + 1) > 0xffff ? 2 : 1);
}

/** The end of the class at `i`: in Unicode mode classes do not nest, and \ escapes one character. */
function classEnd(source, i) {
  for (let j = i + 1; j < source.length; j++) {
    if (source[j] === '\\') j++;
    else if (source[j] === ']') return j + 1;
  }
  throw new Unfollowed('an unclosed class');
}

/** One character out of a set, tested by the engine itself (results kept per character). */
function atom(text, flags) {
  const regex = new RegExp(`^(?:${text})$`, flags);
  const seen = new Map();
  return {
    kind: 'atom',
    test(char) {
      let takes = seen.get(char);
      if (takes === undefined) seen.set(char, (takes = regex.test(char)));
      return takes;
    },
  };
}

const takesAny = (node, chars) => chars.some((c) => node.test(c));

/**
 * One walk over every path, carrying whether the character just taken may be a left one (so
 * the place reached is the cut): a right one taken there joins them, and an assertion there must
 * answer as it would at the end of the text.
 */
class Walk {
  unsafe = false;

  constructor(lefts, rights, word) {
    this.lefts = lefts;
    this.rights = rights;
    this.word = word;
  }

  /** Walks `node` with `before` (a left character may have just been taken); returns the same after it. */
  node(node, before) {
    switch (node.kind) {
      case 'atom':
        if (before && takesAny(node, this.rights)) this.unsafe = true;
        return takesAny(node, this.lefts);
      case 'seq':
        return node.items.reduce((at, item) => this.node(item, at), before);
      case 'alt':
        return node.options.reduce((any, option) => this.node(option, before) || any, false);
      case 'repeat':
        return this.repeat(node, before);
      case 'look':
        if (node.behind) {
          if (readsAhead(node.body)) this.unsafe = true; // it reads before the place it stands at, unless it looks ahead again
        } else {
          if (before && !sameAtEnd(node.body, this.rights)) this.unsafe = true;
          this.node(node.body, false); // from a place before the cut, across it
        }
        return before;
      default: // edge
        if (before && (node.which === '$' || ((node.which === 'b' || node.which === 'B') && this.rights.some((c) => this.word.test(c))))) {
          this.unsafe = true;
        }
        return before;
    }
  }

  /**
   * A repeat, as the body walked once per count: after k bodies the flag is a function of the flag
   * after k − 1, and a monotone function on booleans is constant from its second application, so
   * three walks see every flag a body starts with.
   */
  repeat({ body, min, max }, before) {
    const after = [before];
    for (let k = 1; k <= Math.min(max, 3); k++) after.push(this.node(body, after[k - 1]));
    let any = false;
    for (let k = min; k <= Math.min(max, min + 3); k++) any = any || after[Math.min(k, 3)];
    return any;
  }
}

/**
 * A lookahead at the cut answers as it would at the end of the text: its body matches nothing
 * there without an assertion (so it matches in both), or it must take a character and cannot
 * take a right one (so it fails in both).
 */
function sameAtEnd(body, rights) {
  return emptyFree(body) || (!empty(body) && !takesAtEdge(body, rights, true));
}

/** Can match without taking a character (assertions let it through). */
function empty(node) {
  switch (node.kind) {
    case 'atom': return false;
    case 'seq': return node.items.every(empty);
    case 'alt': return node.options.some(empty);
    case 'repeat': return node.min === 0 || empty(node.body);
    default: return true;
  }
}

/** Can match without taking a character along a path without assertions. */
function emptyFree(node) {
  switch (node.kind) {
    case 'atom': return false;
    case 'seq': return node.items.every(emptyFree);
    case 'alt': return node.options.some(emptyFree);
    case 'repeat': return node.min === 0 || emptyFree(node.body);
    default: return false;
  }
}

function readsAhead(node) {
  switch (node.kind) {
    case 'seq': return node.items.some(readsAhead);
    case 'alt': return node.options.some(readsAhead);
    case 'repeat': return readsAhead(node.body);
    case 'look': return !node.behind || readsAhead(node.body);
    case 'edge': return node.which !== '^';
    default: return false;
  }
}

/** Whether a match can take one of `chars` first (`atStart`) or last. */
function takesAtEdge(node, chars, atStart) {
  switch (node.kind) {
    case 'atom': return takesAny(node, chars);
    case 'seq': {
      const items = atStart ? node.items : [...node.items].reverse();
      for (const item of items) {
        if (takesAtEdge(item, chars, atStart)) return true;
        if (!empty(item)) return false;
      }
      return false;
    }
    case 'alt': return node.options.some((option) => takesAtEdge(option, chars, atStart));
    case 'repeat': return node.max > 0 && takesAtEdge(node.body, chars, atStart);
    default: return false;
  }
}

/** Can match exactly `char`, along a path without assertions. */
function matchesAlone(node, char) {
  switch (node.kind) {
    case 'atom': return node.test(char);
    case 'seq':
      return node.items.some((item, k) => matchesAlone(item, char) && node.items.every((other, j) => j === k || emptyFree(other)));
    case 'alt': return node.options.some((option) => matchesAlone(option, char));
    case 'repeat': return node.max >= 1 && matchesAlone(node.body, char) && (node.min <= 1 || emptyFree(node.body));
    default: return false;
  }
}

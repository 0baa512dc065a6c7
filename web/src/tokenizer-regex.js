// Finds the shapes of regular expression that can take exponential time to match (catastrophic
// backtracking), in a pattern written the way tokenizer.json writes it (Oniguruma syntax, read the
// way @huggingface/tokenizers reads it before turning it into a JavaScript RegExp). JavaScript's
// regex engine backtracks, so `(a+)+$` on 'a'.repeat(30) + '!' never returns, and nothing can
// interrupt a match on the thread that runs it.
//
// Three shapes are refused, each conservatively:
// - a repeated group (max > 1: *, +, {n,}, {n,m}) whose body holds any quantifier: (a+)+, (a?){20},
//   and \p{N}{1,3}+, which the library rewrites as (?:\p{N}{1,3})+;
// - a repeated group holding an alternation whose branches can start with the same character, or
//   whose first characters cannot be told apart here (classes with \p{…}, \w, '.', negation…):
//   (a|ab)+, (\s|\p{L})+;
// - backreferences (\1 … \9, \k<name>), whose matching no pattern analysis can bound.
// It does not catch polynomial blow-ups such as \s*\s*$, which GPT-2's own pattern has a mild form
// of (\s+(?!\S)); those are bounded by the text's length and left to the page worker's time limit.

/**
 * Why `source` is dangerous, as { kind: 'nested' | 'overlap' | 'backreference', fragment }, or
 * null when it is safe. Throws a SyntaxError when the pattern cannot be parsed.
 */
export function regexHazard(source) {
  return new Parser(source).parse();
}

// The library's own lexical rules, as sticky expressions read at a position of the whole pattern.
const BRACED_ESCAPE = /\\([pPxu])\{([^}]*)\}/y;
const FIXED_ESCAPE = /\\(?:x([0-9A-Fa-f]{2})|u([0-9A-Fa-f]{4})|c([A-Za-z]))/y;
const BRACE_QUANTIFIER = /\{(\d+(?:,\d*)?|,\d+)\}/y; // {n}, {n,}, {n,m}, {,m}; anything else is literal
const GROUP_PREFIX = /\(\?(?:<[=!]|<[A-Za-z_][A-Za-z0-9_]*>|[:=!>])/y;
const POSIX_BRACKET = /\[:\^?\p{Alphabetic}+:\]/uy;
const GROUP_NAME = /<[^>]*>/y;

/** `pattern` (a sticky RegExp) matched at `index` of `text`, or null. */
function at(pattern, text, index) {
  pattern.lastIndex = index;
  return pattern.exec(text);
}
const RAW_WHITESPACE = { n: 10, r: 13, t: 9, f: 12, v: 11, a: 7, e: 27 };
const ZERO_WIDTH_ESCAPES = 'AzZbBG';
const MAX_CLASS_DEPTH = 256; // the library refuses deeper classes

class Hazard {
  constructor(kind, fragment) {
    this.kind = kind;
    this.fragment = fragment;
  }
}

/**
 * One pass over the pattern with an explicit stack of open groups (no recursion, so a pattern of
 * 100,000 parentheses cannot overflow the stack). Each parsed item records what the checks need:
 * - first: the characters it can start with, as [lo, hi] code point ranges, or null if unknown;
 * - empty: it can match without consuming a character (optional, or zero-width);
 * - quantified / inner: it carries a quantifier / holds one somewhere inside;
 * - overlap: it holds an alternation whose branches' first characters may coincide.
 */
class Parser {
  constructor(source) {
    this.source = source;
    this.i = 0;
  }

  parse() {
    try {
      this.run();
      return null;
    } catch (error) {
      if (error instanceof Hazard) return { kind: error.kind, fragment: error.fragment };
      throw error;
    }
  }

  run() {
    const src = this.source;
    const stack = [];
    let frame = newFrame(0, false, false);
    let afterQuantifier = false; // the previous token was a quantifier (for lazy / possessive suffixes)
    while (this.i < src.length) {
      const start = this.i;
      const char = String.fromCodePoint(src.codePointAt(start));
      if ((char === '+' || char === '?') && afterQuantifier) {
        this.i += 1; // a+? is lazy, a++ possessive (the library drops the second +): one quantifier
        afterQuantifier = char === '+' ? false : afterQuantifier;
        continue;
      }
      afterQuantifier = false;
      if (char === '\\') {
        const item = this.escape(frame.fold);
        if (item) frame.items.push(item);
      } else if (char === '[') {
        const { end, ranges } = this.characterClass(start, frame.fold, 1);
        this.i = end;
        frame.items.push(atom(start, end, ranges));
      } else if (char === '.') {
        this.i += 1;
        frame.items.push(atom(start, this.i, null));
      } else if (char === '^' || char === '$') {
        this.i += 1;
        frame.items.push(zeroWidth(start, this.i));
      } else if (char === '(') {
        const fold = src.startsWith('(?i:', start);
        const prefix = fold ? '(?i:' : at(GROUP_PREFIX, src, start)?.[0] ?? '(';
        this.i += prefix.length;
        stack.push(frame);
        frame = newFrame(start, /^\(\?<?[=!]/.test(prefix), frame.fold || fold);
      } else if (char === ')') {
        if (stack.length === 0) throw new SyntaxError(`unmatched ) at index ${start}`);
        this.i += 1;
        const group = closeGroup(frame, this.i);
        frame = stack.pop();
        frame.items.push(group);
      } else if (char === '|') {
        this.i += 1;
        frame.branches.push(frame.items);
        frame.items = [];
      } else if (char === '*' || char === '+' || char === '?' || (char === '{' && at(BRACE_QUANTIFIER, src, start) && frame.items.length > 0)) {
        const last = frame.items.at(-1);
        if (!last) throw new SyntaxError(`nothing to repeat at index ${start}`);
        let [min, max] = [0, Infinity];
        if (char === '{') {
          const [text, body] = at(BRACE_QUANTIFIER, src, start);
          const [low, high] = body.split(',');
          min = Number(low || 0);
          max = high === undefined ? min : high === '' ? Infinity : Number(high);
          this.i += text.length;
          this.quantify(last, min, max);
          // The library reads X{n,m}+ and X{n,m}* as (?:X{n,m})+ and (?:X{n,m})*: a nested repeat.
          if (src[this.i] === '+' || src[this.i] === '*') {
            this.i += 1;
            this.quantify(last, src[this.i - 1] === '+' ? 1 : 0, Infinity);
          }
        } else {
          this.i += 1;
          if (char === '+') min = 1;
          if (char === '?') max = 1;
          this.quantify(last, min, max);
        }
        afterQuantifier = true;
      } else {
        this.i += char.length;
        frame.items.push(atom(start, this.i, literal(char.codePointAt(0), frame.fold)));
      }
    }
    if (stack.length > 0) throw new SyntaxError(`unterminated group at index ${frame.start}`);
  }

  quantify(item, min, max) {
    item.end = this.i;
    if (max > 1) {
      const fragment = this.source.slice(item.start, item.end);
      if (item.quantified || item.inner) throw new Hazard('nested', fragment);
      if (item.overlap) throw new Hazard('overlap', fragment);
    }
    if (item.quantified) item.inner = true;
    item.quantified = true;
    if (min === 0) item.empty = true;
  }

  /** An escape outside a class: returns its item, or null for \G (which the library drops). */
  escape(fold) {
    const src = this.source;
    const start = this.i;
    const braced = at(BRACED_ESCAPE, src, start);
    if (braced) {
      this.i += braced[0].length;
      const code = braced[1] === 'x' || braced[1] === 'u' ? hexCodePoint(braced[2]) : null;
      return atom(start, this.i, code === null ? null : literal(code, fold));
    }
    const fixed = at(FIXED_ESCAPE, src, start);
    if (fixed) {
      this.i += fixed[0].length;
      const code = fixed[3] ? fixed[3].charCodeAt(0) % 32 : parseInt(fixed[1] ?? fixed[2], 16);
      return atom(start, this.i, literal(code, fold));
    }
    if (start + 1 >= src.length) throw new SyntaxError('the pattern ends with a lone backslash');
    const next = String.fromCodePoint(src.codePointAt(start + 1));
    this.i += 1 + next.length;
    if (/[1-9]/.test(next) || next === 'k') {
      const name = next === 'k' ? at(GROUP_NAME, src, this.i)?.[0] ?? '' : '';
      throw new Hazard('backreference', src.slice(start, this.i) + name);
    }
    if (next === 'G') return null;
    if (ZERO_WIDTH_ESCAPES.includes(next)) return zeroWidth(start, this.i);
    if (next in RAW_WHITESPACE) return atom(start, this.i, literal(RAW_WHITESPACE[next], fold));
    if (next === '0') return atom(start, this.i, literal(0, fold));
    if (/[A-Za-z]/.test(next)) return atom(start, this.i, null); // \d \w \s \h …: sets of unknown extent here
    return atom(start, this.i, literal(next.codePointAt(0), fold));
  }

  /**
   * A character class starting at `start`: its end, and its characters as ranges when it is a plain
   * list of characters and ranges (null when it negates, nests, intersects or uses a named set).
   */
  characterClass(start, fold, depth) {
    if (depth > MAX_CLASS_DEPTH) throw new SyntaxError('character classes nest too deep');
    const src = this.source;
    let j = start + 1;
    let ranges = [];
    if (src[j] === '^') {
      ranges = null;
      j += 1;
    }
    const firstContent = j;
    let previous = null; // the last plain character, which a '-' may turn into a range
    const add = (code) => {
      if (ranges) ranges.push(...literal(code, fold));
      previous = code;
    };
    while (j < src.length) {
      const char = String.fromCodePoint(src.codePointAt(j));
      if (char === ']' && j !== firstContent) return { end: j + 1, ranges };
      if (char === '\\') {
        const braced = at(BRACED_ESCAPE, src, j);
        const fixed = !braced && at(FIXED_ESCAPE, src, j);
        if (braced) {
          const code = braced[1] === 'x' || braced[1] === 'u' ? hexCodePoint(braced[2]) : null;
          if (code === null) ranges = null;
          else add(code);
          j += braced[0].length;
        } else if (fixed) {
          add(fixed[3] ? fixed[3].charCodeAt(0) % 32 : parseInt(fixed[1] ?? fixed[2], 16));
          j += fixed[0].length;
        } else {
          if (j + 1 >= src.length) throw new SyntaxError('unterminated escape in a character class');
          const next = String.fromCodePoint(src.codePointAt(j + 1));
          j += 1 + next.length;
          if (next in RAW_WHITESPACE) add(RAW_WHITESPACE[next]);
          else if (/[A-Za-z0-9]/.test(next)) ranges = null;
          else add(next.codePointAt(0));
        }
        continue;
      }
      if (src.startsWith('&&', j)) {
        ranges = null;
        j += 2;
        continue;
      }
      if (char === '[') {
        const posix = at(POSIX_BRACKET, src, j);
        if (posix) {
          j += posix[0].length;
        } else {
          j = this.characterClass(j, fold, depth + 1).end;
        }
        ranges = null;
        continue;
      }
      if (char === '-' && previous !== null && j + 1 < src.length && src[j + 1] !== ']') {
        if (src[j + 1] === '\\' || src[j + 1] === '[') {
          ranges = null; // a range to an escape: its extent is not worked out here
          previous = null;
          j += 1;
          continue;
        }
        const high = src.codePointAt(j + 1);
        if (ranges) {
          ranges.splice(ranges.length - literal(previous, fold).length); // the single character becomes a range
          ranges.push(...foldRange(previous, high, fold));
        }
        j += 1 + String.fromCodePoint(high).length;
        previous = null;
        continue;
      }
      add(char.codePointAt(0));
      j += char.length;
    }
    throw new SyntaxError(`unterminated character class at index ${start}`);
  }
}

function newFrame(start, look, fold) {
  return { start, look, fold, branches: [], items: [] };
}

function atom(start, end, first) {
  return { start, end, first, empty: false, quantified: false, inner: false, overlap: false };
}

function zeroWidth(start, end) {
  return { start, end, first: null, empty: true, quantified: false, inner: false, overlap: false };
}

/** The item for a group closing at `end`, summarising its branches. */
function closeGroup(frame, end) {
  const branches = [...frame.branches, frame.items];
  const items = branches.flat();
  const firsts = branches.map(branchFirst);
  const group = {
    start: frame.start,
    end,
    first: firsts.includes(null) ? null : firsts.flat(),
    empty: branches.some((b) => b.every((item) => item.empty)),
    quantified: false,
    inner: items.some((item) => item.quantified || item.inner),
    overlap: items.some((item) => item.overlap) || (branches.length > 1 && !disjoint(firsts)),
  };
  if (frame.look) {
    group.first = null;
    group.empty = true;
  }
  return group;
}

/** The characters a branch can start with, or null if unknown (or if it can match nothing at all). */
function branchFirst(items) {
  if (items.length === 0 || items[0].empty) return null;
  return items[0].first;
}

function disjoint(firsts) {
  if (firsts.includes(null)) return false;
  for (let a = 0; a < firsts.length; a++) {
    for (let b = a + 1; b < firsts.length; b++) {
      for (const [lo1, hi1] of firsts[a]) {
        for (const [lo2, hi2] of firsts[b]) if (lo1 <= hi2 && lo2 <= hi1) return false;
      }
    }
  }
  return true;
}

/** One character as ranges; inside (?i:…) an ASCII letter matches both cases, as the library folds. */
function literal(code, fold) {
  return foldRange(code, code, fold);
}

function foldRange(lo, hi, fold) {
  const ranges = [[lo, hi]];
  if (!fold) return ranges;
  for (const [from, to, shift] of [[65, 90, 32], [97, 122, -32]]) {
    const a = Math.max(lo, from), b = Math.min(hi, to);
    if (a <= b) ranges.push([a + shift, b + shift]);
  }
  return ranges;
}

function hexCodePoint(text) {
  if (!/^[0-9A-Fa-f]{1,8}$/.test(text)) return null;
  const code = parseInt(text, 16);
  return code <= 0x10ffff ? code : null;
}

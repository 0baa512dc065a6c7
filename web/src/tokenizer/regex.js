// Finds the shapes of regular expression whose backtracking can take exponential time, or time
// growing as a power of the text's length, in a pattern written the way tokenizer.json writes it
// (Oniguruma syntax, read the way @huggingface/tokenizers reads it before turning it into a
// JavaScript RegExp). JavaScript's regex engine backtracks, so `(a+)+$` on 'a'.repeat(30) + '!'
// never returns, `[a-z]+[a-z]+[a-z]+[a-z]+!` on 400 a's runs for minutes, and nothing can
// interrupt a match on the thread that runs it.
//
// Four shapes are refused, each conservatively:
// - a repeated group (max > 1: *, +, {n,}, {n,m}) whose body holds any quantifier: (a+)+, (a?){20},
//   and \p{N}{1,3}+, which the library rewrites as (?:\p{N}{1,3})+;
// - a repeated group holding an alternation whose branches can start with the same character, or
//   whose first characters cannot be told apart here (classes with \p{…}, \w, '.', negation…):
//   (a|ab)+, (\s|\p{L})+;
// - backreferences (\1 … \9, \k<name>), whose matching no pattern analysis can bound;
// - a run of repeats that can share characters, before something that can fail: [a-z]+[a-z]+!,
//   \s*\s*$, \s*\s*[\r\n]+ (the rule is set out above REPEAT_BASE).
// It does not bound the work of one repeat before something that can fail, which grows as the
// square of the length of a stretch of text the repeat takes (each start position tries every
// length): GPT-2's own \s+(?!\S) has that shape. It weighs each branch on its own, so the work of
// many alternatives adds up unchecked. Nor does it reason about which characters \p{…}, \s, \w or
// a negated class hold: two such classes are taken to overlap, so a few safe patterns
// (\p{L}+\p{N}+!) are refused too.
//
// Why ours and not a library: recheck, measured against this by tools/bench/redos-checkers.js,
// lets two hostile backreferences through, takes about a second a pattern, and weighs 2.8 MiB
// (the README, where it lists what loadModel checks).

/**
 * Why `source` is dangerous, as { kind, fragment }, or null when it is safe. kind is 'nested',
 * 'overlap' or 'backreference' (exponential time), 'power' (a run of two or more unbounded repeats
 * before something that can fail) or 'product' (such a run counting bounded repeats). Throws a
 * SyntaxError when the pattern cannot be parsed.
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

// Runs of repeats (polynomial backtracking). When a match fails after several repeats that can take
// the same characters, the engine tries every way of sharing the text among them before giving up:
// [a-z]+[a-z]+! on n a's tries about n² ways at each of n start positions. So, along a branch:
// - a repeat weighs 1 if unbounded (*, +, {n,}), and log₈ of its number of lengths if bounded
//   (x? 0.33, x{1,3} 0.53, x{0,7} and longer 1): the work of a failing match grows as n to the
//   power of the weights of the repeats it backtracks into;
// - repeats form a run while their characters overlap (or cannot be told apart); a required
//   character that none of a run's repeats takes ends it ([a-z]+,[a-z]+ is two runs), and a repeat
//   that can match nothing does not ([a-z]+[0-9]*[a-z]+ is one run of weight 2, and one of 1);
// - something that can fail: a required character, an anchor, a lookaround, and anything inside a
//   group that must match (a group's failure reaches the runs before it unless the group is
//   optional or has a branch that cannot fail). A required character that takes every character a
//   run takes cannot fail after it, so a run at the very end of a pattern is safe once its
//   minimum lengths are met ([a-z]+[a-z]+[a-z]+, \s*\s*), but \s*\s*[\r\n]+ is not;
// - the weights of the repeats a failure backtracks into must stay below 2: one unbounded repeat
//   before a failure is accepted (GPT-2's \s+(?!\S)), two are refused (\s*\s*$);
// - the work inside a lookaround or a group, done again for each way of sharing the text before
//   it, counts as a repeat of that weight ([a-z]+(?=[a-z]*!) weighs 2);
// - a lookbehind is matched right to left, so the end of its branch counts as something that can fail.
// A run is { members, set, text }: its repeats, in pattern order, as { start, end, weight, unbounded };
// the characters they take (ranges, or null if unknown); and the atom they all repeat, if one is.
const REPEAT_BASE = 8; // a bounded repeat of 8 lengths weighs as much as an unbounded one
const LIMIT = 2; // the weight of repeats before a failure at which a pattern is refused
const EPSILON = 1e-9;
const MAX_RUNS = 16; // more runs at one point are merged into one that weighs as much as the heaviest
const MAX_MEMBERS = 16; // a run keeps its last 16 repeats: they weigh over 5, so older ones decide nothing

/**
 * One pass over the pattern with an explicit stack of open groups (no recursion, so a pattern of
 * 100,000 parentheses cannot overflow the stack). Each parsed item records what the checks need:
 * - first: the characters it can start with, as [lo, hi] code point ranges, or null if unknown;
 * - chars: every character it can take (the same for a single character; a group's union);
 * - empty: it can match without consuming a character (optional, or zero-width);
 * - quantified / inner: it carries a quantifier / holds one somewhere inside; min and max: its count;
 * - overlap: it holds an alternation whose branches' first characters may coincide.
 * An item's effect on the runs is applied (settled) once its quantifier is known.
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
    let frame = newFrame(-1, null, false, [], 0);
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
        if (item) this.push(frame, item);
      } else if (char === '[') {
        const { end, ranges } = this.characterClass(start, frame.fold, 1);
        this.i = end;
        this.push(frame, atom(start, end, ranges));
      } else if (char === '.') {
        this.i += 1;
        this.push(frame, atom(start, this.i, null));
      } else if (char === '^' || char === '$') {
        this.i += 1;
        this.push(frame, zeroWidth(start, this.i));
      } else if (char === '(') {
        const fold = src.startsWith('(?i:', start);
        const prefix = fold ? '(?i:' : at(GROUP_PREFIX, src, start)?.[0] ?? '(';
        const look = /^\(\?<[=!]/.test(prefix) ? 'behind' : /^\(\?[=!]/.test(prefix) ? 'ahead' : null;
        this.i += prefix.length;
        this.settle(frame);
        stack.push(frame);
        // A lookaround matches on its own from where it stands: no run before it reaches inside.
        frame = look ? newFrame(start, look, frame.fold, [], 0)
          : newFrame(start, null, frame.fold || fold, frame.runs, Math.max(0, ...frame.runs.map((run) => weightAfter(run, frame.start))));
      } else if (char === ')') {
        if (stack.length === 0) throw new SyntaxError(`unmatched ) at index ${start}`);
        this.i += 1;
        this.settle(frame);
        this.endBranch(frame);
        const group = closeGroup(frame, this.i);
        frame = stack.pop();
        this.push(frame, group);
      } else if (char === '|') {
        this.i += 1;
        this.settle(frame);
        this.endBranch(frame);
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
        this.push(frame, atom(start, this.i, literal(char.codePointAt(0), frame.fold)));
      }
    }
    if (stack.length > 0) throw new SyntaxError(`unterminated group at index ${frame.start}`);
    this.settle(frame);
    this.endBranch(frame);
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
    // X{2}{0,1} repeats X 0 to 2 times (the library would refuse X+{0}, but ∞ × 0 must not be NaN).
    [item.min, item.max] = [item.min * min, item.max === 0 || max === 0 ? 0 : item.max * max];
    if (min === 0) item.empty = true;
  }

  /** Adds `item` to the branch being read, once the item before it is settled. */
  push(frame, item) {
    this.settle(frame);
    frame.items.push(item);
    frame.unsettled = item;
  }

  /** Applies the last item of `frame` to its runs, now that its quantifier is known. */
  settle(frame) {
    const item = frame.unsettled;
    if (!item) return;
    frame.unsettled = null;
    if (item.kind === 'atom') {
      const required = item.min >= 1;
      const text = `${frame.fold ? '(?i)' : ''}${this.source.slice(item.start, item.atomEnd)}`;
      if (required) this.fail(frame, item, { set: item.chars, text }, 0);
      const member = memberOf(item);
      if (member) frame.runs = join(frame.runs, member, item.chars, text, required);
      else if (required) frame.runs = frame.runs.filter((run) => overlaps(run.set, item.chars));
    } else if (item.kind === 'assert') {
      this.fail(frame, item, null, 0);
    } else if (item.kind === 'look') {
      this.fail(frame, item, null, item.work);
      if (item.work > 0) frame.runs = addWork(frame.runs, work(item));
    } else {
      this.settleGroup(frame, item);
    }
  }

  /**
   * A group's failures reach the runs before it unless it catches them: it is optional, or one of
   * its branches cannot fail. Its runs come out of it, and past it when it can be skipped.
   */
  settleGroup(frame, group) {
    const catches = group.min === 0 || !group.allFail;
    if (!catches) {
      if (group.pending && group.pending.start > frame.start) throw this.runHazard(group.pending, frame.start);
      frame.pending = later(frame.pending, group.pending);
      frame.branchFails = true;
    }
    // Its work, as seen from this frame: a failure it passes on backtracks the repeats before it here.
    frame.work = Math.max(frame.work, Math.min(group.work + (catches ? 0 : group.before), LIMIT - EPSILON));
    let runs = group.runs;
    if (group.min === 0) runs = uniteRuns(runs, frame.runs); // frame.runs are still those at the group's start
    if (group.work > 0) runs = addWork(runs, work(group));
    const member = memberOf(group);
    if (member) runs = join(runs, member, group.chars, null, group.min >= 1 && !group.empty);
    frame.runs = runs;
  }

  /**
   * Something that can fail, `item`, after the runs of `frame` (with `extra`, the weight of the work
   * inside it): refuses the pattern if the repeats it backtracks into weigh 2 or more. Those inside
   * this frame always count; those before it only if no group between catches the failure, which
   * is known when the groups close, so that case waits in `frame.pending`. A run every character of
   * which `exempt` (a required character: its set and text) takes is skipped: it cannot fail there.
   */
  fail(frame, item, exempt, extra) {
    frame.branchFails = true;
    frame.work = Math.max(frame.work, extra);
    for (const run of frame.runs) {
      if (exempt && (run.text === exempt.text || covers(exempt.set, run.set))) continue;
      let weight = extra, inside = extra;
      for (let k = run.members.length - 1; k >= 0; k--) {
        const member = run.members[k];
        weight += member.weight;
        if (member.start > frame.start) inside = weight;
        if (weight >= LIMIT - EPSILON) {
          const pending = { start: member.start, members: run.members, item, extra };
          if (member.start > frame.start) throw this.runHazard(pending, frame.start);
          frame.pending = later(frame.pending, pending);
          break;
        }
      }
      frame.work = Math.max(frame.work, inside);
    }
  }

  /** The end of a branch: its runs go to the group's result; the next branch starts afresh. */
  endBranch(frame) {
    if (frame.look === 'behind') this.fail(frame, { start: this.i, end: this.i }, null, 0);
    frame.ends = uniteRuns(frame.ends, frame.runs);
    frame.allFail = frame.allFail && frame.branchFails;
    frame.runs = frame.incoming;
    frame.branchFails = false;
  }

  /**
   * The Hazard for a failure after a run's `members` (and `extra` work inside the failing `item`),
   * naming the repeats it backtracks into: those after index `from` of the pattern.
   */
  runHazard({ members, item, extra }, from) {
    members = members.filter((member) => member.start > from);
    const parts = extra > 0 ? [...members, item] : members;
    let fragment = '', end = -1;
    for (const part of parts) {
      if (part.end <= end) continue; // a repeat inside a group already shown
      if (end >= 0 && part.start !== end) fragment += '…';
      fragment += this.source.slice(part.start, part.end);
      end = part.end;
    }
    const unbounded = members.filter((member) => member.unbounded).length + (extra >= 1 ? 1 : 0);
    return new Hazard(unbounded >= 2 ? 'power' : 'product', fragment);
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

function newFrame(start, look, fold, incoming, before) {
  return {
    start, look, fold, branches: [], items: [], unsettled: null,
    incoming, // the runs at the group's start, where each branch starts
    before, // the weight of those runs' repeats inside the enclosing frame
    runs: incoming, ends: [], branchFails: false, allFail: true, pending: null, work: 0,
  };
}

function atom(start, end, first) {
  return { kind: 'atom', start, end, atomEnd: end, first, chars: first, empty: false, min: 1, max: 1, quantified: false, inner: false, overlap: false };
}

function zeroWidth(start, end) {
  return { kind: 'assert', start, end, first: null, chars: [], empty: true, min: 1, max: 1, quantified: false, inner: false, overlap: false };
}

/** The item for a group closing at `end`, summarising its branches. */
function closeGroup(frame, end) {
  const branches = [...frame.branches, frame.items];
  const items = branches.flat();
  const firsts = branches.map(branchFirst);
  const group = {
    kind: frame.look ? 'look' : 'group',
    start: frame.start,
    end,
    first: unionSets(firsts), // merged, so nested alternatives of one character stay one range
    chars: frame.look ? [] : unionSets(items.map((item) => item.chars)),
    empty: branches.some((b) => b.every((item) => item.empty)),
    min: 1,
    max: 1,
    quantified: false,
    inner: items.some((item) => item.quantified || item.inner),
    overlap: items.some((item) => item.overlap) || (branches.length > 1 && !disjoint(firsts)),
    runs: frame.ends,
    allFail: frame.allFail,
    pending: frame.pending,
    work: Math.min(frame.work, LIMIT - EPSILON),
    before: frame.before,
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

/**
 * No two of `firsts` share a character. One sweep over all their ranges in order, not a comparison
 * of every pair: a group of 20,000 alternatives must not make the check the slow part. Each set's
 * own ranges are merged first, so two ranges that touch come from different sets.
 */
function disjoint(firsts) {
  if (firsts.includes(null)) return false;
  const ranges = firsts.flatMap((set) => unionSets([set])).sort((x, y) => x[0] - y[0]);
  let reach = -1;
  for (const [lo, hi] of ranges) {
    if (lo <= reach) return false;
    reach = Math.max(reach, hi);
  }
  return true;
}

/** Two sets of ranges share a character; null (unknown) shares with anything. */
function overlaps(a, b) {
  if (a === null || b === null) return true;
  for (const [lo1, hi1] of a) {
    for (const [lo2, hi2] of b) if (lo1 <= hi2 && lo2 <= hi1) return true;
  }
  return false;
}

/** Every character of `small` is in `big` (both known). */
function covers(big, small) {
  if (big === null || small === null) return false;
  const merged = unionSets([big]);
  return small.every(([lo, hi]) => merged.some(([a, b]) => a <= lo && hi <= b));
}

/** The union of sets of ranges, sorted and merged; null if any is unknown. */
function unionSets(sets) {
  if (sets.includes(null)) return null;
  const ranges = sets.flat().sort((x, y) => x[0] - y[0]);
  const out = [];
  for (const [lo, hi] of ranges) {
    const last = out.at(-1);
    if (last && lo <= last[1] + 1) last[1] = Math.max(last[1], hi);
    else out.push([lo, hi]);
  }
  return out;
}

/** The repeat an item is, if it can take more than one number of times: { start, end, weight, unbounded }. */
function memberOf(item) {
  if (item.max <= item.min) return null;
  const unbounded = item.max === Infinity;
  // A bounded repeat never weighs more than an unbounded one: [a-z]{0,1000}! is no worse than [a-z]+!.
  const weight = unbounded ? 1 : Math.min(1, Math.log(item.max - item.min + 1) / Math.log(REPEAT_BASE));
  return { start: item.start, end: item.end, weight, unbounded };
}

/** The work inside a group or lookaround, as a repeat of that weight at its place. */
function work(item) {
  return { start: item.start, end: item.end, weight: item.work, unbounded: item.work >= 1 };
}

/** The total weight of a run's repeats after index `from` of the pattern. */
function weightAfter(run, from) {
  let weight = 0;
  for (const member of run.members) if (member.start > from) weight += member.weight;
  return weight;
}

/**
 * `member` (taking `set`; repeating the atom `text`) added to `runs`: the runs it overlaps join it
 * into one; the others stay, unless it is required, which ends them.
 */
function join(runs, member, set, text, required) {
  const joined = runs.filter((run) => overlaps(run.set, set));
  const others = required ? [] : runs.filter((run) => !overlaps(run.set, set));
  const run = {
    members: mergeMembers([...joined.map((r) => r.members), [member]]),
    set: unionSets([...joined.map((r) => r.set), set]),
    text: joined.every((r) => r.text === text) ? text : null,
  };
  return capRuns([...others, run]);
}

/** Work added to every run (it is done again for each way of sharing before it). */
function addWork(runs, member) {
  if (runs.length === 0) return [{ members: [member], set: [], text: null }];
  return runs.map((run) => ({ members: mergeMembers([run.members, [member]]), set: run.set, text: null }));
}

function uniteRuns(a, b) {
  return capRuns([...a, ...b]);
}

/** Runs without repeats of the same object; past MAX_RUNS, one run as heavy as the heaviest. */
function capRuns(runs) {
  const unique = [...new Set(runs)];
  if (unique.length <= MAX_RUNS) return unique;
  // For each start, the largest weight any run has after it; as repeats, the steps of that envelope.
  const starts = [...new Set(unique.flatMap((run) => run.members.map((m) => m.start)))].sort((a, b) => b - a);
  const members = [];
  let level = 0;
  for (const start of starts) {
    const heaviest = Math.max(...unique.map((run) => weightAfter(run, start - 1)));
    const shown = unique.flatMap((run) => run.members).find((m) => m.start === start);
    if (heaviest > level) members.unshift({ ...shown, weight: heaviest - level });
    level = Math.max(level, heaviest);
  }
  const texts = new Set(unique.map((run) => run.text));
  return [{ members: members.slice(-MAX_MEMBERS), set: unionSets(unique.map((run) => run.set)), text: texts.size === 1 ? [...texts][0] : null }];
}

/** The repeats of several runs as one, in pattern order, each once, keeping the last MAX_MEMBERS. */
function mergeMembers(lists) {
  const members = [...new Set(lists.flat())].sort((a, b) => a.start - b.start);
  return members.slice(-MAX_MEMBERS);
}

/** Of two waiting failures, the one that reaches further out (its repeats start later). */
function later(a, b) {
  if (!a) return b;
  if (!b) return a;
  return b.start > a.start ? b : a;
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

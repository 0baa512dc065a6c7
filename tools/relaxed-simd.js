// Rewrites a linked WebAssembly module's prototype relaxed-SIMD opcode into the final one, in
// place: clang 14 (Emscripten 3.1.6) compiles __builtin_wasm_fma_f32x4 to `f32x4.fma`, 0xfd 0xaf
// 0x01, which no engine runs any more; `f32x4.relaxed_madd`, 0xfd 0x85 0x02, is the same length
// and the same operation (a·b + c, fused or not). The bytes are found by walking every function
// body's instructions with their immediates, never by searching: three such bytes may sit inside
// a constant. An opcode this walker does not know stops it with its offset, rather than guessing.
// The module written is then validated by the engine running this script (Node with
// --experimental-wasm-relaxed-simd), which refuses any other prototype opcode.
// Usage: node --experimental-wasm-relaxed-simd tools/relaxed-simd.js <module.wasm>
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PROTOTYPE_FMA = 0xaf; // SIMD opcode 0xaf (LEB 0xaf 0x01): the prototype f32x4.fma
export const RELAXED_MADD = 0x105; // SIMD opcode 0x105 (LEB 0x85 0x02): f32x4.relaxed_madd
const FINAL_MADD = [0x85, 0x02];

/** A reader of `bytes` from `at`: LEB128 numbers, single bytes, and skips. */
class Reader {
  constructor(bytes, at = 0) {
    this.bytes = bytes;
    this.at = at;
  }
  byte() {
    if (this.at >= this.bytes.length) throw new RangeError(`the module ends inside an instruction at byte ${this.at}`);
    return this.bytes[this.at++];
  }
  u32() {
    let value = 0, shift = 0, b;
    do {
      b = this.byte();
      value += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    return value;
  }
  // A signed LEB of any width: only skipped (constants, block types).
  sleb() {
    while (this.byte() & 0x80);
  }
  skip(n) {
    this.at += n;
  }
  memarg() {
    this.u32(); // alignment
    this.u32(); // offset
  }
}

/** Skips the immediates of MVP opcode `op` (and the sign-extension, reference and 0xfc/0xfe prefixed ones). */
function skipImmediates(r, op, where) {
  if (op === 0x02 || op === 0x03 || op === 0x04) return r.sleb(); // block, loop, if: a block type (0x40, a value type, or a type index)
  if (op === 0x0c || op === 0x0d) return r.u32(); // br, br_if
  if (op === 0x0e) { // br_table
    const n = r.u32();
    for (let i = 0; i <= n; i++) r.u32();
    return undefined;
  }
  if (op === 0x10) return r.u32(); // call
  if (op === 0x11) { r.u32(); return r.u32(); } // call_indirect: type, table
  if (op >= 0x20 && op <= 0x24) return r.u32(); // local.get/set/tee, global.get/set
  if (op === 0x25 || op === 0x26) return r.u32(); // table.get/set
  if (op >= 0x28 && op <= 0x3e) return r.memarg(); // loads and stores
  if (op === 0x3f || op === 0x40) return r.byte(); // memory.size, memory.grow
  if (op === 0x41 || op === 0x42) return r.sleb(); // i32.const, i64.const
  if (op === 0x43) return r.skip(4); // f32.const
  if (op === 0x44) return r.skip(8); // f64.const
  if (op === 0x1c) { const n = r.u32(); return r.skip(n); } // select with value types (one byte each)
  if (op === 0xd0) return r.byte(); // ref.null
  if (op === 0xd2) return r.u32(); // ref.func
  if (op === 0xfc) return skipMisc(r, r.u32(), where);
  if (op === 0xfe) return skipAtomic(r, r.u32(), where);
  const plain = (op >= 0x00 && op <= 0x01) || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b ||
    (op >= 0x45 && op <= 0xc4) || op === 0xd1;
  if (!plain) throw new Error(`unknown opcode 0x${op.toString(16)} at byte ${where}`);
  return undefined;
}

function skipMisc(r, sub, where) {
  if (sub <= 7) return undefined; // saturating truncations
  if (sub === 8) { r.u32(); return r.byte(); } // memory.init
  if (sub === 9 || sub === 13 || (sub >= 15 && sub <= 17)) return r.u32(); // data.drop, elem.drop, table.grow/size/fill
  if (sub === 10) return r.skip(2); // memory.copy
  if (sub === 11) return r.byte(); // memory.fill
  if (sub === 12 || sub === 14) { r.u32(); return r.u32(); } // table.init, table.copy
  throw new Error(`unknown opcode 0xfc ${sub} at byte ${where}`);
}

function skipAtomic(r, sub, where) {
  if (sub === 0x03) return r.byte(); // atomic.fence
  if (sub <= 0x02 || (sub >= 0x10 && sub <= 0x4e)) return r.memarg(); // notify, waits, atomic loads, stores and read-modify-writes
  throw new Error(`unknown opcode 0xfe ${sub} at byte ${where}`);
}

/** Skips SIMD opcode `sub`'s immediates; returns nothing. */
function skipSimd(r, sub) {
  if (sub <= 0x0b || sub === 0x5c || sub === 0x5d) return r.memarg(); // loads, store, load32/64_zero
  if (sub === 0x0c || sub === 0x0d) return r.skip(16); // v128.const, i8x16.shuffle
  if (sub >= 0x15 && sub <= 0x22) return r.byte(); // extract and replace lane
  if (sub >= 0x54 && sub <= 0x5b) { r.memarg(); return r.byte(); } // load and store lane
  return undefined; // the rest take none
}

/** The offsets of every prototype f32x4.fma in `bytes` (a whole module): see simdOpcodeOffsets. */
export function findPrototypeFma(bytes) {
  return simdOpcodeOffsets(bytes, PROTOTYPE_FMA);
}

/**
 * The offsets of every SIMD instruction `opcode` (after its 0xfd prefix, as two LEB bytes) in
 * `bytes`, a whole module, found by walking each function body. Throws for a malformed module or
 * an opcode it does not know.
 */
export function simdOpcodeOffsets(bytes, opcode) {
  const r = new Reader(bytes, 8);
  if (bytes[0] !== 0 || bytes[1] !== 0x61 || bytes[2] !== 0x73 || bytes[3] !== 0x6d) throw new Error('not a WebAssembly module');
  const found = [];
  while (r.at < bytes.length) {
    const id = r.byte();
    const size = r.u32();
    const end = r.at + size;
    if (id !== 10) {
      r.at = end;
      continue;
    }
    const count = r.u32();
    for (let f = 0; f < count; f++) {
      const bodySize = r.u32();
      const bodyEnd = r.at + bodySize;
      const groups = r.u32();
      for (let g = 0; g < groups; g++) {
        r.u32(); // how many locals
        r.byte(); // of which type
      }
      while (r.at < bodyEnd) {
        const where = r.at;
        const op = r.byte();
        if (op !== 0xfd) {
          skipImmediates(r, op, where);
          continue;
        }
        const subAt = r.at;
        const sub = r.u32();
        if (sub === opcode && r.at - subAt === 2) found.push(subAt);
        skipSimd(r, sub);
      }
      if (r.at !== bodyEnd) throw new Error(`function ${f}'s instructions overran its body (at byte ${r.at}, body ends at ${bodyEnd})`);
    }
    if (r.at !== end) throw new Error(`the code section's functions end at byte ${r.at}, the section at ${end}`);
  }
  return found;
}

/** `bytes` with every prototype f32x4.fma made f32x4.relaxed_madd, in place; returns how many. */
export function rewriteRelaxedSimd(bytes) {
  const found = findPrototypeFma(bytes);
  for (const at of found) bytes.set(FINAL_MADD, at);
  return found.length;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const file = process.argv[2];
  const bytes = new Uint8Array(readFileSync(file));
  const count = rewriteRelaxedSimd(bytes);
  if (count === 0) throw new Error(`${file} has no f32x4.fma to rewrite: was it compiled with -mrelaxed-simd?`);
  if (!WebAssembly.validate(bytes)) {
    throw new Error(`${file} does not validate once rewritten: run this with node --experimental-wasm-relaxed-simd, or it holds another prototype opcode`);
  }
  writeFileSync(file, bytes);
  console.log(`relaxed-simd: ${count} f32x4.fma → f32x4.relaxed_madd in ${file}`);
}

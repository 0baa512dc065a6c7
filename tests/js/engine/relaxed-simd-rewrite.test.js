// tools/relaxed-simd.js, the rewrite of clang 14's prototype f32x4.fma (0xfd 0xaf 0x01) into the
// final f32x4.relaxed_madd (0xfd 0x85 0x02): it walks instructions, so the same three bytes inside
// a v128.const, an i32.const or a memory offset are left alone and only the opcode is rewritten;
// an opcode it does not know stops it; and it reads every instruction of the engine's five
// shipped modules (MVP, SIMD, relaxed SIMD, atomics and bulk memory): the relaxed ones hold
// relaxed_madd and nothing left to rewrite, the others neither.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { findPrototypeFma, RELAXED_MADD, rewriteRelaxedSimd, simdOpcodeOffsets } from '../../../tools/relaxed-simd.js';

const DIST = fileURLToPath(new URL('../../../dist/', import.meta.url));
const FMA = [0xfd, 0xaf, 0x01];

/** A module of one function whose body is `code` (after its locals), ended. */
function moduleWith(code) {
  const body = [0x00, ...code, 0x0b]; // no locals
  const section = (id, bytes) => [id, bytes.length, ...bytes];
  const bytes = [
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [0x01, 0x60, 0x00, 0x00]), // one type: () → ()
    ...section(3, [0x01, 0x00]),
    ...section(10, [0x01, body.length, ...body]),
  ];
  return Uint8Array.from(bytes);
}

const v128 = (first) => [0xfd, 0x0c, ...first, ...new Array(16 - first.length).fill(0)];

test('only the opcode is rewritten, not the same bytes inside immediates', () => {
  const code = [
    ...v128(FMA), 0x1a, // v128.const whose bytes begin like the opcode; drop
    0x41, 0xfd, 0xaf, 0x01, 0x1a, // i32.const 22525 (LEB 0xfd 0xaf 0x01); drop
    0x41, 0x00, 0xfd, 0x00, 0x04, 0xfd, 0xaf, 0x01, 0x1a, // v128.load align 4 offset 22525; drop
    ...v128([1]), ...v128([2]), ...v128([3]), ...FMA, 0x1a, // the one f32x4.fma
  ];
  const bytes = moduleWith(code);
  const at = findPrototypeFma(bytes);
  expect(at).toHaveLength(1);
  expect(Array.from(bytes.subarray(at[0] - 1, at[0] + 2))).toEqual(FMA);
  const before = bytes.slice();
  expect(rewriteRelaxedSimd(bytes)).toBe(1);
  const changed = [...bytes.keys()].filter((i) => bytes[i] !== before[i]);
  expect(changed).toEqual([at[0], at[0] + 1]);
  expect(Array.from(bytes.subarray(at[0] - 1, at[0] + 2))).toEqual([0xfd, 0x85, 0x02]);
  expect(findPrototypeFma(bytes)).toEqual([]);
});

test('an opcode the walker does not know stops it, naming where', () => {
  expect(() => findPrototypeFma(moduleWith([0x06]))).toThrow(/unknown opcode 0x6 at byte/);
  expect(() => findPrototypeFma(moduleWith([0xfc, 0x20]))).toThrow(/unknown opcode 0xfc 32/);
  expect(() => findPrototypeFma(Uint8Array.from([1, 2, 3, 4]))).toThrow(/not a WebAssembly module/);
});

test.each(['multihead-simd', 'multihead-simd-threads', 'multihead-scalar'])('every instruction of %s.wasm is read, and none is a prototype fma or a relaxed_madd', (name) => {
  const bytes = new Uint8Array(readFileSync(`${DIST}${name}.wasm`));
  expect(findPrototypeFma(bytes)).toEqual([]);
  expect(simdOpcodeOffsets(bytes, RELAXED_MADD)).toEqual([]);
});

// Every kernel with a multiply-add has a relaxed twin: far more than the GEMM's 8 per tile.
test.each(['multihead-relaxed', 'multihead-relaxed-threads'])('%s.wasm multiplies and adds with relaxed_madd, and holds no prototype fma', (name) => {
  const bytes = new Uint8Array(readFileSync(`${DIST}${name}.wasm`));
  expect(findPrototypeFma(bytes)).toEqual([]);
  expect(simdOpcodeOffsets(bytes, RELAXED_MADD).length).toBeGreaterThan(100);
});

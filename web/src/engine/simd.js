// WebAssembly SIMD feature detection, without compiling the engine.

// The smallest module that needs SIMD: one function returning v128.const 0.
// Sections: type () -> v128, function 0 of that type, code `v128.const 0 (16 bytes); end`.
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00,
  0x0a, 0x16, 0x01, 0x14, 0x00, 0xfd, 0x0c,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  0x0b,
]);

// The smallest module that needs relaxed SIMD's multiply-add: the same function, returning
// f32x4.relaxed_madd (0xfd 0x85 0x02) of three v128.const 0. Its body is 59 bytes: no locals,
// 3 × 18 bytes of constants, the 3-byte opcode and end.
const ZERO = [0xfd, 0x0c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
const RELAXED_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00,
  0x0a, 0x3d, 0x01, 0x3b, 0x00, ...ZERO, ...ZERO, ...ZERO, 0xfd, 0x85, 0x02,
  0x0b,
]);

function validates(bytes) {
  try {
    return WebAssembly.validate(bytes);
  } catch {
    return false;
  }
}

/** Whether this JavaScript engine can run the WASM SIMD build. */
export function simdSupported() {
  return validates(SIMD_PROBE);
}

/**
 * Whether it can run the relaxed-SIMD build: Chromium-based browsers can; Node 20 only when
 * started with --experimental-wasm-relaxed-simd.
 */
export function relaxedSimdSupported() {
  return validates(RELAXED_PROBE);
}

// The WASM SIMD peaks of this machine, measured the way the bench reports "% of peak": a
// hand-built module whose loop does nothing but multiply-adds on 12 independent accumulators held
// in locals (so in registers: 12 is below the 16 vector registers V8 has on x64, and independent
// chains hide the instructions' latency). No memory is touched. Each iteration is 12 × 8 FLOPs.
// Two ceilings: f32x4.mul then f32x4.add (WASM SIMD128), and one f32x4.relaxed_madd (relaxed
// SIMD, where the engine runs it).
//
// Not a kernel: nothing here runs in the engine.

const ACCUMULATORS = 12;

function uleb(value) {
  const out = [];
  do {
    let byte = value & 0x7f;
    value >>>= 7;
    if (value) byte |= 0x80;
    out.push(byte);
  } while (value);
  return out;
}

const section = (id, bytes) => [id, ...uleb(bytes.length), ...bytes];
const f32 = (value) => [...new Uint8Array(new Float32Array([value]).buffer)];
const simd = (op) => [0xfd, ...uleb(op)];
const F32X4_SPLAT = 0x13, F32X4_EXTRACT_LANE = 0x1f, F32X4_ADD = 0xe4, F32X4_MUL = 0xe6, F32X4_RELAXED_MADD = 0x105;
const LOCAL_GET = 0x20, LOCAL_SET = 0x21, F32_CONST = 0x43, I32_CONST = 0x41, I32_SUB = 0x6b;

// (func (param $n i32) (result f32)): local 0 is n, locals 1…12 the accumulators, local 13 the factor.
function peakModule(relaxed) {
  const factor = ACCUMULATORS + 1;
  const body = [
    0x01, ACCUMULATORS + 1, 0x7b, // one run of 13 v128 locals
    F32_CONST, ...f32(0.5), ...simd(F32X4_SPLAT), LOCAL_SET, factor,
  ];
  for (let a = 1; a <= ACCUMULATORS; a++) body.push(F32_CONST, ...f32(a / 16), ...simd(F32X4_SPLAT), LOCAL_SET, a);
  body.push(0x03, 0x40); // loop
  // acc = acc·0.5 + 0.5 converges to 1: no overflow, no subnormals to slow anything down.
  for (let a = 1; a <= ACCUMULATORS; a++) {
    const madd = relaxed ? [LOCAL_GET, factor, ...simd(F32X4_RELAXED_MADD)] : [...simd(F32X4_MUL), LOCAL_GET, factor, ...simd(F32X4_ADD)];
    body.push(LOCAL_GET, a, LOCAL_GET, factor, ...madd, LOCAL_SET, a);
  }
  body.push(LOCAL_GET, 0, I32_CONST, 1, I32_SUB, 0x22, 0, 0x0d, 0); // n -= 1 (local.tee); br_if 0
  body.push(0x0b); // end loop
  // Sum the accumulators' first lanes so none of them is dead code.
  body.push(LOCAL_GET, 1, ...simd(F32X4_EXTRACT_LANE), 0);
  for (let a = 2; a <= ACCUMULATORS; a++) body.push(LOCAL_GET, a, ...simd(F32X4_EXTRACT_LANE), 0, 0x92); // f32.add
  body.push(0x0b);
  const code = [...uleb(body.length), ...body];
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 1, 0x7f, 1, 0x7d]), // type: (i32) -> f32
    ...section(3, [1, 0]),
    ...section(7, [1, 4, ...new TextEncoder().encode('peak'), 0x00, 0]),
    ...section(10, [1, ...code]),
  ]);
}

/**
 * GFLOP/s of the loop above, with mul+add or (`relaxed`) relaxed_madd: the best of `rounds` runs
 * of `iterations` each.
 */
export async function measureSimdPeak({ relaxed = false, iterations = 20_000_000, rounds = 5 } = {}) {
  const { instance } = await WebAssembly.instantiate(peakModule(relaxed));
  const { peak } = instance.exports;
  peak(iterations); // untimed: V8 tiers a hot function up to its optimising compiler while it runs
  let best = Infinity;
  for (let r = 0; r < rounds; r++) {
    const start = performance.now();
    peak(iterations);
    best = Math.min(best, performance.now() - start);
  }
  return (iterations * ACCUMULATORS * 8) / best / 1e6;
}

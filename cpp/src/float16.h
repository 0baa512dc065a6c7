// Half-precision (IEEE F16) and bfloat16 to float, for reading F16/BF16 checkpoints. Both are
// exact: every F16 and BF16 value is a float. No rounding the other way is needed by the engine.
#pragma once

#include <cstdint>
#include <cstring>

namespace multihead {

inline float half_to_float(uint16_t h) {
  const uint32_t sign = uint32_t(h & 0x8000) << 16;
  uint32_t exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff, bits;
  if (exponent == 0x1f) {
    bits = sign | 0x7f800000 | (mantissa << 13);  // infinity or NaN
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112) << 23) | (mantissa << 13);  // rebias 15 → 127
  } else if (mantissa == 0) {
    bits = sign;  // ±0
  } else {  // subnormal half: normalise into a float
    exponent = 113;
    while (!(mantissa & 0x400)) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ff) << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline float bfloat_to_float(uint16_t b) {
  const uint32_t bits = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

// One little-endian value of `width` bytes (4: F32, 2: F16 or BF16) at p, as float.
inline float decode_value(const uint8_t* p, size_t width, bool bfloat) {
  if (width == 4) {
    float f;
    std::memcpy(&f, p, 4);  // the file is little-endian, as are x86 and WASM
    return f;
  }
  const uint16_t bits = uint16_t(p[0] | (p[1] << 8));
  return bfloat ? bfloat_to_float(bits) : half_to_float(bits);
}

}  // namespace multihead

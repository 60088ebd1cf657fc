/* The Cortex-M DSP-extension operations the __dsp kernels are written in:
 * two 16-bit lanes per 32-bit word, from Arm's ACLE (arm_acle.h) when the
 * target has the extension (__ARM_FEATURE_DSP: Cortex-M4, M7, M33 ...), and
 * portable C with the same results bit for bit everywhere else (the host, a
 * Cortex-M0), so the plan executor runs exactly the arithmetic the board runs.
 *
 * A word's bytes b0..b3 are little-endian; lanes are (low 16 bits, high 16
 * bits). Sums wrap in 32 bits (uint32_t arithmetic), as the instructions do.
 * Static inline: no code unless a kernel uses it. */
#ifndef TINYFIT_DSP_H_
#define TINYFIT_DSP_H_

#include <stddef.h>
#include <stdint.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define TF_DSP_INTRINSICS 1
#else
#define TF_DSP_INTRINSICS 0
#endif

/* An inner loop in a function of its own: kept out of its caller, so that the
 * caller's loop variables do not take its registers (GCC and Clang), and, on
 * GCC, without the scheduling pass before register allocation, which hoists
 * every load of an unrolled block to the top and so spills accumulators
 * (measured: 31 instead of 40 instructions for 24 MACs of the im2col GEMM on
 * a Cortex-M4). */
#if defined(__GNUC__) && !defined(__clang__)
#define TF_INNER_LOOP __attribute__((noinline, optimize("no-schedule-insns")))
#elif defined(__GNUC__)
#define TF_INNER_LOOP __attribute__((noinline))
#else
#define TF_INNER_LOOP
#endif

/* A 32-bit load or store at any alignment (Cortex-M3 and later do unaligned
 * LDR/STR; the compiler makes a single instruction of it). */
static inline uint32_t tf_load_u32(const void* p) {
  uint32_t v;
#if defined(__GNUC__)
  __builtin_memcpy(&v, p, sizeof v);
#else
  const uint8_t* b = (const uint8_t*)p;
  v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
#endif
  return v;
}

/* A little-endian int16 at any alignment. */
static inline int32_t tf_load_s16(const void* p) {
  const uint8_t* b = (const uint8_t*)p;
  return (int32_t)(int16_t)(uint16_t)((uint32_t)b[0] | (uint32_t)b[1] << 8);
}

static inline void tf_store_u32(void* p, uint32_t v) {
#if defined(__GNUC__)
  __builtin_memcpy(p, &v, sizeof v);
#else
  uint8_t* b = (uint8_t*)p;
  b[0] = (uint8_t)v, b[1] = (uint8_t)(v >> 8), b[2] = (uint8_t)(v >> 16), b[3] = (uint8_t)(v >> 24);
#endif
}

static inline uint32_t tf_ror8(uint32_t x) { return x >> 8 | x << 24; }

/* Two 16-bit lanes (lo, hi) as one word. */
static inline uint32_t tf_pack_lanes(int32_t lo, int32_t hi) { return ((uint32_t)lo & 0xffffu) | (uint32_t)hi << 16; }

#if TF_DSP_INTRINSICS

/* (sign-extended b0, sign-extended b2). */
static inline uint32_t tf_sxtb16(uint32_t b) { return (uint32_t)__sxtb16((int8x4_t)b); }
/* (a.lo + sign-extended b0, a.hi + sign-extended b2), each lane mod 2^16. */
static inline uint32_t tf_sxtab16(uint32_t a, uint32_t b) { return (uint32_t)__sxtab16((int16x2_t)a, (int8x4_t)b); }
/* (a.lo + b0, a.hi + b2) with b's bytes zero-extended. */
static inline uint32_t tf_uxtab16(uint32_t a, uint32_t b) { return (uint32_t)__uxtab16((uint16x2_t)a, (uint8x4_t)b); }
/* The same of bytes 1 and 3 (b rotated right by 8): one instruction, as the
 * ACLE offers no rotation operand (GCC does not fold a separate rotation). */
static inline uint32_t tf_sxtab16_ror8(uint32_t a, uint32_t b) {
#if defined(__GNUC__)
  uint32_t r;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return tf_sxtab16(a, tf_ror8(b));
#endif
}
static inline uint32_t tf_uxtab16_ror8(uint32_t a, uint32_t b) {
#if defined(__GNUC__)
  uint32_t r;
  __asm__("uxtab16 %0, %1, %2, ror #8" : "=r"(r) : "r"(a), "r"(b));
  return r;
#else
  return tf_uxtab16(a, tf_ror8(b));
#endif
}
static inline uint32_t tf_sxtb16_ror8(uint32_t b) {
#if defined(__GNUC__)
  uint32_t r;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(r) : "r"(b));
  return r;
#else
  return tf_sxtb16(tf_ror8(b));
#endif
}
/* (zero-extended b0, zero-extended b2), and of bytes 1 and 3. */
static inline uint32_t tf_uxtb16(uint32_t b) { return (uint32_t)__uxtb16((uint8x4_t)b); }
static inline uint32_t tf_uxtb16_ror8(uint32_t b) {
#if defined(__GNUC__)
  uint32_t r;
  __asm__("uxtb16 %0, %1, ror #8" : "=r"(r) : "r"(b));
  return r;
#else
  return tf_uxtb16(tf_ror8(b));
#endif
}
/* acc + a.lo * b.lo + a.hi * b.hi, lanes signed. */
static inline int32_t tf_smlad(uint32_t a, uint32_t b, int32_t acc) { return __smlad((int16x2_t)a, (int16x2_t)b, acc); }
/* acc + (one signed lane of a) * (one of b): bottom/top as named. */
static inline int32_t tf_smlabb(uint32_t a, uint32_t b, int32_t acc) { return __smlabb((int32_t)a, (int32_t)b, acc); }
static inline int32_t tf_smlabt(uint32_t a, uint32_t b, int32_t acc) { return __smlabt((int32_t)a, (int32_t)b, acc); }
static inline int32_t tf_smlatb(uint32_t a, uint32_t b, int32_t acc) { return __smlatb((int32_t)a, (int32_t)b, acc); }
static inline int32_t tf_smlatt(uint32_t a, uint32_t b, int32_t acc) { return __smlatt((int32_t)a, (int32_t)b, acc); }

#else

static inline int32_t tf_lane_lo(uint32_t x) { return (int32_t)(int16_t)(uint16_t)(x & 0xffffu); }
static inline int32_t tf_lane_hi(uint32_t x) { return (int32_t)(int16_t)(uint16_t)(x >> 16); }

static inline uint32_t tf_sxtab16(uint32_t a, uint32_t b) {
  return tf_pack_lanes((int32_t)(a & 0xffffu) + (int8_t)(uint8_t)b, (int32_t)(a >> 16) + (int8_t)(uint8_t)(b >> 16));
}
static inline uint32_t tf_sxtb16(uint32_t b) { return tf_sxtab16(0, b); }
static inline uint32_t tf_uxtab16(uint32_t a, uint32_t b) {
  return tf_pack_lanes((int32_t)(a & 0xffffu) + (int32_t)(b & 0xffu),
                       (int32_t)(a >> 16) + (int32_t)((b >> 16) & 0xffu));
}
static inline int32_t tf_smlad(uint32_t a, uint32_t b, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(tf_lane_lo(a) * tf_lane_lo(b)) +
                   (uint32_t)(tf_lane_hi(a) * tf_lane_hi(b)));
}
static inline int32_t tf_smlabb(uint32_t a, uint32_t b, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(tf_lane_lo(a) * tf_lane_lo(b)));
}
static inline int32_t tf_smlabt(uint32_t a, uint32_t b, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(tf_lane_lo(a) * tf_lane_hi(b)));
}
static inline int32_t tf_smlatb(uint32_t a, uint32_t b, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(tf_lane_hi(a) * tf_lane_lo(b)));
}
static inline int32_t tf_smlatt(uint32_t a, uint32_t b, int32_t acc) {
  return (int32_t)((uint32_t)acc + (uint32_t)(tf_lane_hi(a) * tf_lane_hi(b)));
}

static inline uint32_t tf_sxtab16_ror8(uint32_t a, uint32_t b) { return tf_sxtab16(a, tf_ror8(b)); }
static inline uint32_t tf_uxtab16_ror8(uint32_t a, uint32_t b) { return tf_uxtab16(a, tf_ror8(b)); }
static inline uint32_t tf_sxtb16_ror8(uint32_t b) { return tf_sxtb16(tf_ror8(b)); }
static inline uint32_t tf_uxtb16(uint32_t b) { return tf_uxtab16(0, b); }
static inline uint32_t tf_uxtb16_ror8(uint32_t b) { return tf_uxtab16(0, tf_ror8(b)); }

#endif /* TF_DSP_INTRINSICS */

/* The high word of a * b + (acc << 32), rounded: (acc * 2^32 + a * b + 2^31) >> 32
 * (SMMLAR; not in the ACLE, so inline assembly on GCC and Clang). */
static inline int32_t tf_smmlar(int32_t a, int32_t b, int32_t acc) {
#if TF_DSP_INTRINSICS && defined(__GNUC__)
  int32_t r;
  __asm__("smmlar %0, %1, %2, %3" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
#else
  const uint64_t sum = ((uint64_t)(uint32_t)acc << 32) + (uint64_t)((int64_t)a * b) + 0x80000000u;
  return (int32_t)(uint32_t)(sum >> 32);
#endif
}

/* Four values already within a byte's range (saturated) packed, value i in
 * byte i: three bit-field inserts on the DSP extension (GCC makes six to
 * eight masks and shifts of the C). */
static inline uint32_t tf_pack_bytes(int32_t b0, int32_t b1, int32_t b2, int32_t b3) {
#if TF_DSP_INTRINSICS && defined(__GNUC__)
  uint32_t word = (uint32_t)b0;
  __asm__("bfi %0, %1, #8, #8" : "+r"(word) : "r"(b1));
  __asm__("bfi %0, %1, #16, #8" : "+r"(word) : "r"(b2));
  __asm__("bfi %0, %1, #24, #8" : "+r"(word) : "r"(b3));
  return word;
#else
  return ((uint32_t)b0 & 0xffu) | ((uint32_t)b1 & 0xffu) << 8 | ((uint32_t)b2 & 0xffu) << 16 | (uint32_t)b3 << 24;
#endif
}

/* Both lanes set to v (v in int16 range): the offset operand of tf_sxtab16 /
 * tf_uxtab16. */
static inline uint32_t tf_splat_lanes(int32_t v) { return tf_pack_lanes(v, v); }

#endif /* TINYFIT_DSP_H_ */

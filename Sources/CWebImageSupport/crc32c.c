#include "crc32c.h"

#include <stdint.h>
#include <string.h>

/* CRC-32C (Castagnoli), reflected polynomial 0x82F63B78.
 *
 * The hardware paths run three independent CRC streams over three adjacent blocks and
 * combine them, because the CRC instruction has a latency of about three cycles but
 * accepts a new operand every cycle: one stream alone runs at a third of the speed the
 * instruction allows. Combining uses "shift by N zero bytes" tables built with GF(2)
 * matrix arithmetic (the method of Mark Adler's crc32c.c).
 *
 * Every table is built once, before main, by a constructor, so that no thread ever sees
 * one half-built and the thread sanitizer has nothing to report. */

#define POLY 0x82F63B78u
#define LONG_BLOCK 8192
#define SHORT_BLOCK 256

static uint32_t table[8][256];
static uint32_t zeros_long[4][256];
static uint32_t zeros_short[4][256];

static uint32_t gf2_matrix_times(const uint32_t *matrix, uint32_t vector) {
    uint32_t sum = 0;
    while (vector) {
        if (vector & 1) sum ^= *matrix;
        vector >>= 1;
        matrix++;
    }
    return sum;
}

static void gf2_matrix_square(uint32_t *square, const uint32_t *matrix) {
    for (int n = 0; n < 32; n++) square[n] = gf2_matrix_times(matrix, matrix[n]);
}

/* The operator that appends `length` zero bytes (a power of two) to a CRC. */
static void zeros_operator(uint32_t *even, size_t length) {
    uint32_t odd[32];
    odd[0] = POLY;
    uint32_t row = 1;
    for (int n = 1; n < 32; n++) {
        odd[n] = row;
        row <<= 1;
    }
    gf2_matrix_square(even, odd); /* two zero bits */
    gf2_matrix_square(odd, even); /* four zero bits */
    do {
        gf2_matrix_square(even, odd);
        length >>= 1;
        if (length == 0) return;
        gf2_matrix_square(odd, even);
        length >>= 1;
    } while (length);
    for (int n = 0; n < 32; n++) even[n] = odd[n];
}

static void build_zeros(uint32_t zeros[4][256], size_t length) {
    uint32_t op[32];
    zeros_operator(op, length);
    for (uint32_t n = 0; n < 256; n++) {
        zeros[0][n] = gf2_matrix_times(op, n);
        zeros[1][n] = gf2_matrix_times(op, n << 8);
        zeros[2][n] = gf2_matrix_times(op, n << 16);
        zeros[3][n] = gf2_matrix_times(op, n << 24);
    }
}

static inline uint32_t shift(const uint32_t zeros[4][256], uint32_t crc) {
    return zeros[0][crc & 0xff] ^ zeros[1][(crc >> 8) & 0xff] ^ zeros[2][(crc >> 16) & 0xff] ^ zeros[3][crc >> 24];
}

static uint32_t crc32c_table(uint32_t crc, const unsigned char *p, size_t length) {
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        word ^= crc;
        crc = table[7][word & 0xff] ^ table[6][(word >> 8) & 0xff] ^ table[5][(word >> 16) & 0xff] ^
              table[4][(word >> 24) & 0xff] ^ table[3][(word >> 32) & 0xff] ^ table[2][(word >> 40) & 0xff] ^
              table[1][(word >> 48) & 0xff] ^ table[0][word >> 56];
        p += 8;
        length -= 8;
    }
    while (length--) crc = table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
    return crc;
}

/* The three-stream loop around an 8-byte and a 1-byte CRC instruction. `crc` is the
 * internal (inverted) value. */
#define CRC32C_THREE_WAY(STEP64, STEP8)                                                   \
    do {                                                                                  \
        uint64_t crc0 = crc;                                                              \
        while (length && ((uintptr_t)p & 7)) {                                            \
            crc0 = STEP8((uint32_t)crc0, *p++);                                           \
            length--;                                                                     \
        }                                                                                 \
        static const size_t blocks[2] = {LONG_BLOCK, SHORT_BLOCK};                        \
        for (int b = 0; b < 2; b++) {                                                     \
            const size_t block = blocks[b];                                               \
            while (length >= block * 3) {                                                 \
                uint64_t crc1 = 0, crc2 = 0;                                              \
                const unsigned char *end = p + block;                                     \
                do {                                                                      \
                    uint64_t w0, w1, w2;                                                  \
                    memcpy(&w0, p, 8);                                                    \
                    memcpy(&w1, p + block, 8);                                            \
                    memcpy(&w2, p + 2 * block, 8);                                        \
                    crc0 = STEP64(crc0, w0);                                              \
                    crc1 = STEP64(crc1, w1);                                              \
                    crc2 = STEP64(crc2, w2);                                              \
                    p += 8;                                                               \
                } while (p < end);                                                        \
                const uint32_t(*zeros)[256] = b == 0 ? zeros_long : zeros_short;          \
                crc0 = shift(zeros, (uint32_t)crc0) ^ crc1;                               \
                crc0 = shift(zeros, (uint32_t)crc0) ^ crc2;                               \
                p += 2 * block;                                                           \
                length -= 3 * block;                                                      \
            }                                                                             \
        }                                                                                 \
        while (length >= 8) {                                                             \
            uint64_t word;                                                                \
            memcpy(&word, p, 8);                                                          \
            crc0 = STEP64(crc0, word);                                                    \
            p += 8;                                                                       \
            length -= 8;                                                                  \
        }                                                                                 \
        while (length--) crc0 = STEP8((uint32_t)crc0, *p++);                              \
        crc = (uint32_t)crc0;                                                             \
    } while (0)

#if defined(__x86_64__)
#include <nmmintrin.h>

static int has_sse42;

__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware(uint32_t crc, const unsigned char *p, size_t length) {
    CRC32C_THREE_WAY(_mm_crc32_u64, _mm_crc32_u8);
    return crc;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

#define HAS_ARM_CRC 1

static uint32_t crc32c_hardware(uint32_t crc, const unsigned char *p, size_t length) {
    CRC32C_THREE_WAY(__crc32cd, __crc32cb);
    return crc;
}

#endif

__attribute__((constructor))
static void crc32c_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ POLY : crc >> 1;
        table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = table[0][crc & 0xff] ^ (crc >> 8);
            table[k][n] = crc;
        }
    }
    build_zeros(zeros_long, LONG_BLOCK);
    build_zeros(zeros_short, SHORT_BLOCK);
#if defined(__x86_64__)
    __builtin_cpu_init();
    has_sse42 = __builtin_cpu_supports("sse4.2") ? 1 : 0;
#endif
}

uint32_t webimage_crc32c(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = bytes;
    crc = ~crc;
#if defined(__x86_64__)
    crc = has_sse42 ? crc32c_hardware(crc, p, length) : crc32c_table(crc, p, length);
#elif defined(HAS_ARM_CRC)
    crc = crc32c_hardware(crc, p, length);
#else
    crc = crc32c_table(crc, p, length);
#endif
    return ~crc;
}

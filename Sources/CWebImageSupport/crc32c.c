#include "crc32c.h"

#include <string.h>

static uint32_t table[8][256];
static int table_ready = 0;

static void build_table(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = n;
        for (int k = 0; k < 8; k++) crc = (crc & 1) ? (crc >> 1) ^ 0x82F63B78u : crc >> 1;
        table[0][n] = crc;
    }
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t crc = table[0][n];
        for (int k = 1; k < 8; k++) {
            crc = table[0][crc & 0xff] ^ (crc >> 8);
            table[k][n] = crc;
        }
    }
    __atomic_store_n(&table_ready, 1, __ATOMIC_RELEASE);
}

static uint32_t crc32c_table(uint32_t crc, const unsigned char *p, size_t length) {
    if (!__atomic_load_n(&table_ready, __ATOMIC_ACQUIRE)) build_table();
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

#if defined(__x86_64__)
#include <nmmintrin.h>

__attribute__((target("sse4.2")))
static uint32_t crc32c_hardware(uint32_t crc, const unsigned char *p, size_t length) {
    uint64_t c = crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        c = _mm_crc32_u64(c, word);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length--) c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}

uint32_t webimage_crc32c(uint32_t crc, const void *bytes, size_t length) {
    static int has_sse42 = -1;
    if (has_sse42 < 0) has_sse42 = __builtin_cpu_supports("sse4.2") ? 1 : 0;
    crc = ~crc;
    crc = has_sse42 ? crc32c_hardware(crc, bytes, length) : crc32c_table(crc, bytes, length);
    return ~crc;
}

#elif defined(__aarch64__) && defined(__ARM_FEATURE_CRC32)
#include <arm_acle.h>

uint32_t webimage_crc32c(uint32_t crc, const void *bytes, size_t length) {
    const unsigned char *p = bytes;
    crc = ~crc;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __crc32cd(crc, word);
        p += 8;
        length -= 8;
    }
    while (length--) crc = __crc32cb(crc, *p++);
    return ~crc;
}

#else

uint32_t webimage_crc32c(uint32_t crc, const void *bytes, size_t length) {
    return ~crc32c_table(~crc, bytes, length);
}

#endif

#ifndef WEBIMAGE_CRC32C_H
#define WEBIMAGE_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C (Castagnoli) of `length` bytes, continuing from `crc` (start with 0).
/// Uses the SSE4.2 / ARMv8 CRC instructions when the CPU has them (several GB/s),
/// a table otherwise. The disk cache checksums every entry with it.
uint32_t webimage_crc32c(uint32_t crc, const void *bytes, size_t length);

#endif

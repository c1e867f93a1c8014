// The proxy's libvips calls and the file work of a cold variant (../../../proxy_sequence.h),
// for the cold route of the floor. Only floor_* functions cross into Swift.
#ifndef HUMMINGBIRD_FLOOR_VIPS_H
#define HUMMINGBIRD_FLOOR_VIPS_H

#include "../../../proxy_sequence.h"

/// libvips set up as `webimage` sets it up (proxy_sequence.h).
static inline void floor_setup(void) { setup_libvips_as_webimage("hummingbird-floor"); }

/// variant_with_files (proxy_sequence.h), the JPEG handed back: free it with floor_free.
static inline int floor_variant(
    const char *source_path, const char *output_path, int width, int height, int quality,
    void **jpeg, size_t *length
) {
    return variant_with_files(source_path, output_path, width, height, quality, jpeg, length);
}

/// Frees a JPEG floor_variant handed back.
static inline void floor_free(void *jpeg) { g_free(jpeg); }

/// libvips' error buffer as text (owned by libvips).
static inline const char *floor_error(void) { return vips_error_buffer(); }

#endif

// The baseline for WebImage's coding benchmarks: the same work done by calling libvips
// directly, with no wrapper. Swift cannot call C variadic functions, so each call is
// pinned here to the arguments the benchmark uses.
//
// Only bl_* functions and opaque pointers cross into Swift, so nothing here clashes
// with the libvips declarations WebImage's own CVips module brings in.
// SwiftPM does not notice edits to this header: after changing it, delete
// .build/*/ModuleCache (or run `swift package clean`).
#ifndef WEBIMAGE_CVIPS_BASELINE_SHIM_H
#define WEBIMAGE_CVIPS_BASELINE_SHIM_H

#include <vips/vips.h>

/// Starts libvips with the process settings WebImage uses (no operation cache, one
/// worker thread per image, untrusted loaders blocked). Safe to call more than once,
/// and alongside WebImage's own start-up. Returns 0 on success.
static inline int bl_init(void) {
    static int started = 0;
    if (started) return 0;
    g_setenv("VIPS_WARNING", "0", FALSE);
    if (VIPS_INIT("webimage-benchmarks")) return -1;
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
    started = 1;
    return 0;
}

/// Finishes `image` in memory, keeps its size, and drops both references.
static inline int bl_finish(VipsImage *image, int *width, int *height) {
    VipsImage *memory = vips_image_copy_memory(image);
    g_object_unref(image);
    if (!memory) return -1;
    *width = vips_image_get_width(memory);
    *height = vips_image_get_height(memory);
    g_object_unref(memory);
    return 0;
}

/// `vips_thumbnail_buffer(buf, len, &out, width, "height", height, NULL)`, then
/// `vips_image_copy_memory(out)`. Returns 0 on success and the thumbnail's size.
static inline int bl_thumbnail_buffer(const void *buf, size_t len, int width, int height, int *out_width, int *out_height) {
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &out, width, "height", height, NULL)) return -1;
    return bl_finish(out, out_width, out_height);
}

/// `vips_thumbnail_buffer(buf, len, &out, width, "height", height, NULL)`, then
/// `vips_jpegsave_buffer(out, …, "Q", quality, "strip", TRUE, "optimize_coding", TRUE)`
/// (the proxy's JPEG answer), streamed; the JPEG's length in `out_length`. Returns 0 on success.
static inline int bl_thumbnail_jpeg(const void *buf, size_t len, int width, int height, int quality, size_t *out_length) {
    VipsImage *thumbnail = NULL;
    void *jpeg = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &thumbnail, width, "height", height, NULL)) return -1;
    int status = vips_jpegsave_buffer(thumbnail, &jpeg, out_length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
    g_object_unref(thumbnail);
    g_free(jpeg);
    return status;
}

/// `vips_image_new_from_buffer(buf, len, "", NULL)` (default, random access), then
/// `vips_image_copy_memory`. Returns 0 on success and the image's size.
static inline int bl_decode_buffer(const void *buf, size_t len, int *out_width, int *out_height) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", NULL);
    if (!image) return -1;
    return bl_finish(image, out_width, out_height);
}

/// The same full decode with `access=sequential`: the loader streams straight into the
/// memory image, with no intermediate copy of the whole image.
static inline int bl_decode_buffer_sequential(const void *buf, size_t len, int *out_width, int *out_height) {
    VipsImage *image = vips_image_new_from_buffer(buf, len, "", "access", VIPS_ACCESS_SEQUENTIAL, NULL);
    if (!image) return -1;
    return bl_finish(image, out_width, out_height);
}

/// `vips_thumbnail_buffer(buf, len, &out, width, "height", height, "crop",
/// VIPS_INTERESTING_CENTRE, NULL)` (shrink-on-load, resample, centre crop: a fill), then
/// `vips_image_copy_memory(out)`. Returns 0 on success and the result's size.
static inline int bl_thumbnail_fill_buffer(const void *buf, size_t len, int width, int height, int *out_width, int *out_height) {
    VipsImage *out = NULL;
    if (vips_thumbnail_buffer((void *)buf, len, &out, width, "height", height, "crop", VIPS_INTERESTING_CENTRE, NULL)) return -1;
    return bl_finish(out, out_width, out_height);
}

/// An 8-bit sRGB (3 or 4 bands) image in memory, copied from packed pixels; NULL on
/// failure. Release it with `bl_unref`.
static inline void *bl_image_from_pixels(const void *pixels, size_t size, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image) image->Type = VIPS_INTERPRETATION_sRGB;
    return image;
}

/// Drops a reference taken by `bl_image_from_pixels`.
static inline void bl_unref(void *image) { g_object_unref(image); }

/// `vips_gaussblur(in, &out, sigma, NULL)` of an image already in memory, then
/// `vips_image_copy_memory(out)`.
static inline int bl_gaussblur(void *image, double sigma, int *out_width, int *out_height) {
    VipsImage *out = NULL;
    if (vips_gaussblur((VipsImage *)image, &out, sigma, NULL)) return -1;
    return bl_finish(out, out_width, out_height);
}

/// The libvips error buffer as text (owned by libvips; copy it before the next call).
static inline const char *bl_error(void) { return vips_error_buffer(); }

#endif

// Non-variadic wrappers around the libvips calls WebImage uses.
// Note: SwiftPM does not notice edits to this header; after changing it, delete
// .build/*/ModuleCache (or run `swift package clean`) so the new code is compiled in.
// Swift cannot call C variadic functions, so each optional-argument form libvips
// offers is pinned here to exactly the arguments the Swift side passes.
#ifndef WEBIMAGE_CVIPS_SHIM_H
#define WEBIMAGE_CVIPS_SHIM_H

#include <vips/vips.h>
#include <vips/vector.h>

// MARK: Process set-up

/// Blocks (or allows) the operations libvips marks untrusted: loaders of formats whose
/// parsers are not hardened against hostile input (ImageMagick, PDF, JPEG XL). The JPEG XL
/// saver stays allowed either way: it writes pixels WebImage made, and reads no input. So
/// does the SVG loader (librsvg, written in Rust): WebImage gives it only documents its
/// own sanitiser wrote, with no script, external reference or entity left (VipsCoder).
static inline void wi_vips_block_untrusted(int blocked) {
    vips_block_untrusted_set(blocked ? TRUE : FALSE);
    vips_operation_block_set("VipsForeignSaveJxl", FALSE);
    vips_operation_block_set("VipsForeignLoadSvg", FALSE);
}

/// A GLib log handler that drops the message.
static inline void wi_vips_drop_warning(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

/// Initialises libvips once for a server: no operation cache, one worker thread per
/// image, untrusted loaders (magick, pdf, ...) blocked. Whether orc vector code runs is
/// set by the caller (Vips.swift). Returns 0 on success.
static inline int wi_vips_init(void) {
    if (VIPS_INIT("webimage")) return -1;
    // libvips reports recoverable oddities ("ignoring nclx profile") as GLib warnings on
    // stderr; failures reach callers through the error buffer, so its warnings are
    // dropped: what libvips' VIPS_WARNING switch does, without writing the environment
    // (setenv while other threads read the environment is unsafe in glibc).
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, wi_vips_drop_warning, NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    wi_vips_block_untrusted(1);
    return 0;
}

/// Whether libvips runs its orc vector code.
static inline int wi_vector_enabled(void) { return vips_vector_isenabled() ? 1 : 0; }

// MARK: Loading

/// Opens an image from memory. Only the header is read until pixels are asked for.
/// `options` is a libvips option string such as "[n=-1]" or "" for none.
static inline VipsImage *wi_load_buffer(const void *buf, size_t len, const char *options, int fail_on) {
    return vips_image_new_from_buffer(buf, len, options, "fail_on", (VipsFailOn)fail_on, NULL);
}

/// libvips' thumbnail of an image; `linear` resamples in linear light (through the profile's
/// connection space when the image carries a profile, else scRGB) instead of in sRGB.
static inline int wi_thumbnail_image(VipsImage *in, VipsImage **out, int width, int height, int size, int no_rotate, int linear) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", (VipsSize)size, "no_rotate", no_rotate ? TRUE : FALSE,
                                "linear", linear ? TRUE : FALSE, NULL);
}

/// libvips' own thumbnail of the image in memory, its loader as strict as `fail_on` (a
/// `VipsFailOn`, as `wi_load_buffer` takes it): the thumbnail passes load options on only
/// as text, so the value goes by the name libvips gives it.
static inline int wi_thumbnail_buffer(const void *buf, size_t len, VipsImage **out, int width, int height, int size, int fail_on) {
    char options[64];
    g_snprintf(options, sizeof options, "fail_on=%s", vips_enum_nick(VIPS_TYPE_FAIL_ON, fail_on));
    return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size", (VipsSize)size, "option_string", options, NULL);
}

static inline VipsImage *wi_image_from_pixels(const void *data, size_t size, int width, int height, int bands) {
    VipsImage *image = vips_image_new_from_memory_copy(data, size, width, height, bands, VIPS_FORMAT_UCHAR);
    if (image && bands >= 3) image->Type = VIPS_INTERPRETATION_sRGB;
    else if (image) image->Type = VIPS_INTERPRETATION_B_W;
    return image;
}

// MARK: Operations

static inline int wi_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }
static inline int wi_copy(VipsImage *in, VipsImage **out) { return vips_copy(in, out, NULL); }
static inline int wi_colourspace(VipsImage *in, VipsImage **out, int space) { return vips_colourspace(in, out, (VipsInterpretation)space, NULL); }
static inline int wi_cast_uchar(VipsImage *in, VipsImage **out) { return vips_cast(in, out, VIPS_FORMAT_UCHAR, NULL); }
static inline int wi_resize(VipsImage *in, VipsImage **out, double hscale, double vscale) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}
static inline int wi_extract_area(VipsImage *in, VipsImage **out, int left, int top, int width, int height) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}
static inline int wi_flatten(VipsImage *in, VipsImage **out, double r, double g, double b) {
    double values[3] = {r, g, b};
    VipsArrayDouble *background = vips_array_double_new(values, 3);
    int result = vips_flatten(in, out, "background", background, NULL);
    vips_area_unref(VIPS_AREA(background));
    return result;
}
static inline int wi_bandjoin_const1(VipsImage *in, VipsImage **out, double value) {
    return vips_bandjoin_const1(in, out, value, NULL);
}
static inline int wi_extract_band(VipsImage *in, VipsImage **out, int band, int n) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}

// MARK: Transforming

/// `vips_thumbnail_image` with a crop: `crop` is a `VipsInteresting` (NONE keeps the
/// whole image, CENTRE / ATTENTION fill the box and crop to it); `linear` resamples in
/// linear light.
static inline int wi_thumbnail_crop(VipsImage *in, VipsImage **out, int width, int height, int size, int crop, int linear) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", (VipsSize)size,
                                "crop", (VipsInteresting)crop, "no_rotate", TRUE, "linear", linear ? TRUE : FALSE, NULL);
}
static inline int wi_smartcrop(VipsImage *in, VipsImage **out, int width, int height, int interesting) {
    return vips_smartcrop(in, out, width, height, "interesting", (VipsInteresting)interesting, NULL);
}
/// Places `in` at (`x`, `y`) on a `width` × `height` canvas of the colour `background`
/// (one value a band).
static inline int wi_embed_background(VipsImage *in, VipsImage **out, int x, int y, int width, int height, const double *background, int n) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result = vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
/// A lossless turn by a multiple of 90° clockwise (`angle` is a `VipsAngle`).
static inline int wi_rot(VipsImage *in, VipsImage **out, int angle) { return vips_rot(in, out, (VipsAngle)angle, NULL); }
/// Rotates by any angle (degrees, clockwise) onto a canvas that holds the whole result,
/// with bicubic interpolation; new pixels take the colour `background`.
static inline int wi_rotate(VipsImage *in, VipsImage **out, double angle, const double *background, int n) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    VipsInterpolate *bicubic = vips_interpolate_new("bicubic");
    int result = vips_rotate(in, out, angle, "background", array, "interpolate", bicubic, NULL);
    g_object_unref(bicubic);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
static inline int wi_flip(VipsImage *in, VipsImage **out, int direction) { return vips_flip(in, out, (VipsDirection)direction, NULL); }
static inline int wi_gaussblur(VipsImage *in, VipsImage **out, double sigma) { return vips_gaussblur(in, out, sigma, NULL); }
static inline int wi_sharpen(VipsImage *in, VipsImage **out, double sigma) { return vips_sharpen(in, out, "sigma", sigma, NULL); }
/// `out = in × a + b` band by band, rounded and clipped to 8 bits.
static inline int wi_linear_uchar(VipsImage *in, VipsImage **out, const double *a, const double *b, int n) {
    return vips_linear(in, out, (double *)a, (double *)b, n, "uchar", TRUE, NULL);
}
/// `out = cond / 255 × in1 + (1 − cond / 255) × in2`, pixel by pixel.
static inline int wi_blend(VipsImage *cond, VipsImage *in1, VipsImage *in2, VipsImage **out) {
    return vips_ifthenelse(cond, in1, in2, out, "blend", TRUE, NULL);
}
static inline int wi_bandjoin2(VipsImage *first, VipsImage *second, VipsImage **out) { return vips_bandjoin2(first, second, out, NULL); }
static inline int wi_premultiply(VipsImage *in, VipsImage **out) { return vips_premultiply(in, out, NULL); }
static inline int wi_unpremultiply(VipsImage *in, VipsImage **out) { return vips_unpremultiply(in, out, NULL); }
/// Flattens alpha onto `background` (one value a colour band).
static inline int wi_flatten_background(VipsImage *in, VipsImage **out, const double *background, int n) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
/// `overlay` composited over `base` (Porter-Duff OVER), both the same size.
static inline int wi_composite_over(VipsImage *base, VipsImage *overlay, VipsImage **out) {
    return vips_composite2(base, overlay, out, VIPS_BLEND_MODE_OVER, NULL);
}
/// An image of `image`'s size, format and interpretation whose every pixel is `values`.
static inline VipsImage *wi_constant_like(VipsImage *image, const double *values, int n) {
    return vips_image_new_from_image(image, values, n);
}

// MARK: Trim, pixelate, watermark

/// The bounding box of everything that differs from `background` (one value a band) by
/// more than `threshold`.
static inline int wi_find_trim(VipsImage *in, int *left, int *top, int *width, int *height, const double *background, int n, double threshold) {
    VipsArrayDouble *array = vips_array_double_new(background, n);
    int result = vips_find_trim(in, left, top, width, height, "background", array, "threshold", threshold, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
/// Places `in` at (`x`, `y`) on a `width` × `height` canvas whose new pixels mirror the image.
static inline int wi_embed_mirror(VipsImage *in, VipsImage **out, int x, int y, int width, int height) {
    return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_MIRROR, NULL);
}
/// Shrinks by whole factors, each output pixel the mean of its block.
static inline int wi_shrink(VipsImage *in, VipsImage **out, double horizontal, double vertical) {
    return vips_shrink(in, out, horizontal, vertical, NULL);
}
/// Enlarges by whole factors, each pixel repeated into a block.
static inline int wi_zoom(VipsImage *in, VipsImage **out, int horizontal, int vertical) {
    return vips_zoom(in, out, horizontal, vertical, NULL);
}
/// `in` repeated `across` × `down` times.
static inline int wi_replicate(VipsImage *in, VipsImage **out, int across, int down) {
    return vips_replicate(in, out, across, down, NULL);
}
/// `overlay` composited over `base` (Porter-Duff OVER) with its top-left corner at (`x`, `y`).
static inline int wi_composite_over_at(VipsImage *base, VipsImage *overlay, VipsImage **out, int x, int y) {
    return vips_composite2(base, overlay, out, VIPS_BLEND_MODE_OVER, "x", x, "y", y, NULL);
}

// MARK: Colour profile and metadata for saving

/// Whether the image carries an ICC profile.
static inline int wi_has_icc(VipsImage *image) { return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0; }
// Colour management converts with the relative colorimetric intent, as browsers show an
// image with a matrix profile and as libvips' thumbnail converts: colours inside both
// gamuts keep their values, colours outside the target's are clipped to its edge.

/// Converts to `output_profile` (a file or a built-in name) from the embedded profile, or
/// from `input_profile` when there is none or it does not fit the pixels (libvips' CMYK
/// profile for CMYK pixels then), with `depth` bits a sample in the result (8 or 16); the
/// result carries the output profile.
static inline int wi_icc_transform_depth(VipsImage *in, VipsImage **out, const char *output_profile, const char *input_profile, int depth) {
    return vips_icc_transform(in, out, output_profile, "input_profile", input_profile, "embedded", TRUE,
                              "intent", VIPS_INTENT_RELATIVE, "depth", depth, NULL);
}
/// 8-bit sRGB from the embedded profile (libvips' sRGB or CMYK one when there is none or it
/// does not fit). A 16-bit alpha band, which the ICC transform would clip, is scaled to 8
/// bits beside the colours.
static inline int wi_icc_to_srgb(VipsImage *in, VipsImage **out) {
    if (vips_image_get_format(in) != VIPS_FORMAT_USHORT || !vips_image_hasalpha(in))
        return wi_icc_transform_depth(in, out, "srgb", "srgb", 8);
    VipsImage *colour = NULL, *alpha = NULL, *converted = NULL, *scaled = NULL;
    int bands = vips_image_get_bands(in) - 1;
    int status = vips_extract_band(in, &colour, 0, "n", bands, NULL)
        || vips_extract_band(in, &alpha, bands, NULL)
        || wi_icc_transform_depth(colour, &converted, "srgb", "srgb", 8)
        || vips_linear1(alpha, &scaled, 1.0 / 257.0, 0.0, "uchar", TRUE, NULL)
        || vips_bandjoin2(converted, scaled, out, NULL);
    if (colour) g_object_unref(colour);
    if (alpha) g_object_unref(alpha);
    if (converted) g_object_unref(converted);
    if (scaled) g_object_unref(scaled);
    return status;
}
/// Imports to the profile connection space (D65 Lab floats) from the embedded profile, or
/// from `input_profile` when there is none or it does not fit the pixels.
static inline int wi_icc_import(VipsImage *in, VipsImage **out, const char *input_profile) {
    return vips_icc_import(in, out, "input_profile", input_profile, "embedded", TRUE, "intent", VIPS_INTENT_RELATIVE, NULL);
}
/// Exports from the profile connection space to the profile the image carries, with
/// `depth` bits a sample (8 or 16).
static inline int wi_icc_export(VipsImage *in, VipsImage **out, int depth) {
    return vips_icc_export(in, out, "intent", VIPS_INTENT_RELATIVE, "depth", depth, NULL);
}
/// The pixels of an image in memory (as `vips_image_copy_memory` makes it), to change in
/// place by the image's only owner.
static inline unsigned char *wi_memory_pixels(VipsImage *image) { return (unsigned char *)vips_image_get_data(image); }
/// A blob field (such as the ICC profile) and its length, or NULL when absent; the bytes
/// belong to the image.
static inline const void *wi_get_blob(VipsImage *image, const char *name, size_t *length) {
    const void *data = NULL;
    *length = 0;
    if (vips_image_get_typeof(image, name) == 0) return NULL;
    if (vips_image_get_blob(image, name, &data, length)) return NULL;
    return data;
}
/// Sets the ICC profile to a copy of `length` bytes at `data`.
static inline void wi_set_icc(VipsImage *image, const void *data, size_t length) {
    void *copy = g_memdup2(data, length);
    vips_image_set_blob(image, VIPS_META_ICC_NAME, (VipsCallbackFn)g_free, copy, length);
}
/// One of libvips' built-in profiles ("srgb", "p3", "cmyk") as bytes, or NULL; free the
/// result with `wi_area_unref`.
static inline VipsBlob *wi_builtin_profile(const char *name) {
    VipsBlob *profile = NULL;
    if (vips_profile_load(name, &profile, NULL)) return NULL;
    return profile;
}
static inline const void *wi_blob_data(VipsBlob *blob, size_t *length) { return vips_blob_get(blob, length); }
static inline void wi_area_unref(VipsBlob *blob) { vips_area_unref((VipsArea *)blob); }
typedef struct { int keep_icc; int keep_copyright; } wi_strip_options;

static inline void *wi_strip_field(VipsImage *image, const char *name, GValue *value, void *user) {
    const wi_strip_options *options = (const wi_strip_options *)user;
    (void)value;
    // What encoders need to write the pixels: animation and palette layout.
    if (strcmp(name, "page-height") == 0 || strcmp(name, "delay") == 0 || strcmp(name, "loop") == 0 ||
        strcmp(name, "n-pages") == 0 || strcmp(name, "gif-delay") == 0 || strcmp(name, "gif-loop") == 0 ||
        vips_isprefix("palette", name) || vips_isprefix("vips-", name))
        return NULL;
    if (options->keep_icc && strcmp(name, VIPS_META_ICC_NAME) == 0) return NULL;
    // libvips rebuilds the EXIF block from the exif-* fields left, so the block stays and
    // every tag but these goes.
    if (options->keep_copyright &&
        (strcmp(name, VIPS_META_EXIF_NAME) == 0 || strcmp(name, "exif-ifd0-Copyright") == 0 || strcmp(name, "exif-ifd0-Artist") == 0))
        return NULL;
    vips_image_remove(image, name);
    return NULL;
}
/// A copy of `in` without metadata, except the ICC profile when `keep_icc` is set and the
/// EXIF Copyright and Artist when `keep_copyright` is set: save it with `strip` off.
static inline int wi_strip_metadata(VipsImage *in, VipsImage **out, int keep_icc, int keep_copyright) {
    if (vips_copy(in, out, NULL)) return 1;
    wi_strip_options options = { keep_icc, keep_copyright };
    vips_image_map(*out, wi_strip_field, &options);
    return 0;
}
/// Sets a string field (an EXIF tag such as `exif-ifd0-Copyright`, for example).
static inline void wi_set_string(VipsImage *image, const char *name, const char *value) { vips_image_set_string(image, name, value); }
/// A field as text, or NULL when absent (EXIF fields read as "value (description, …)");
/// free it with `wi_g_free`.
static inline char *wi_get_string(VipsImage *image, const char *name) {
    char *value = NULL;
    if (vips_image_get_typeof(image, name) == 0) return NULL;
    if (vips_image_get_as_string(image, name, &value)) return NULL;
    return value;
}

// MARK: Saving

static inline int wi_jpegsave(VipsImage *in, void **buf, size_t *len, int quality, int strip, int interlace) {
    return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", strip ? TRUE : FALSE,
                                "interlace", interlace ? TRUE : FALSE, "optimize_coding", TRUE, NULL);
}
static inline int wi_pngsave(VipsImage *in, void **buf, size_t *len, int compression, int strip, int interlace) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", strip ? TRUE : FALSE,
                               "interlace", interlace ? TRUE : FALSE, NULL);
}
/// A palette PNG: libimagequant picks at most 2^`bitdepth` colours (`bitdepth` 1, 2, 4 or 8).
static inline int wi_pngsave_palette(VipsImage *in, void **buf, size_t *len, int compression, int strip, int interlace, int bitdepth) {
    return vips_pngsave_buffer(in, buf, len, "compression", compression, "strip", strip ? TRUE : FALSE,
                               "interlace", interlace ? TRUE : FALSE, "palette", TRUE, "bitdepth", bitdepth, NULL);
}
/// WebP with libwebp's `effort` (0…6) and `preset` (a VipsForeignWebpPreset).
static inline int wi_webpsave(VipsImage *in, void **buf, size_t *len, int quality, int lossless, int strip, int effort, int preset) {
    return vips_webpsave_buffer(in, buf, len, "Q", quality, "lossless", lossless ? TRUE : FALSE,
                                "strip", strip ? TRUE : FALSE, "effort", effort, "preset", (VipsForeignWebpPreset)preset, NULL);
}
static inline int wi_avifsave(VipsImage *in, void **buf, size_t *len, int quality, int lossless, int strip, int effort) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "lossless", lossless ? TRUE : FALSE,
                                "compression", VIPS_FOREIGN_HEIF_COMPRESSION_AV1, "effort", effort,
                                "strip", strip ? TRUE : FALSE, NULL);
}
/// `value` within the range libvips declares for integer property `name` of the operation
/// class `type_name` (`value` itself when either is unknown): an out-of-range value would
/// be dropped with a GLib warning and the default used instead.
static inline int wi_clamp_to_property(const char *type_name, const char *name, int value) {
    GType type = g_type_from_name(type_name);
    if (!type) return value;
    GObjectClass *class = g_type_class_ref(type);
    GParamSpec *spec = g_object_class_find_property(class, name);
    if (spec && G_IS_PARAM_SPEC_INT(spec)) {
        GParamSpecInt *range = G_PARAM_SPEC_INT(spec);
        if (value < range->minimum) value = range->minimum;
        if (value > range->maximum) value = range->maximum;
    }
    g_type_class_unref(class);
    return value;
}
/// JPEG XL at libjxl's `effort`, raised to the least libvips takes (3 before libvips 8.15).
static inline int wi_jxlsave(VipsImage *in, void **buf, size_t *len, int quality, int lossless, int effort, int strip) {
    effort = wi_clamp_to_property("VipsForeignSaveJxlBuffer", "effort", effort);
    return vips_jxlsave_buffer(in, buf, len, "Q", quality, "lossless", lossless ? TRUE : FALSE, "effort", effort,
                               "strip", strip ? TRUE : FALSE, NULL);
}
static inline int wi_gifsave(VipsImage *in, void **buf, size_t *len, int effort, int bitdepth) {
    return vips_gifsave_buffer(in, buf, len, "effort", effort, "bitdepth", bitdepth, NULL);
}
static inline int wi_tiffsave(VipsImage *in, void **buf, size_t *len, int strip) {
    return vips_tiffsave_buffer(in, buf, len, "strip", strip ? TRUE : FALSE, NULL);
}

static inline int wi_arrayjoin_vertical(VipsImage **in, int n, VipsImage **out) {
    return vips_arrayjoin(in, out, n, "across", 1, NULL);
}
static inline int wi_heicsave(VipsImage *in, void **buf, size_t *len, int quality, int strip) {
    return vips_heifsave_buffer(in, buf, len, "Q", quality, "compression", VIPS_FOREIGN_HEIF_COMPRESSION_HEVC,
                                "strip", strip ? TRUE : FALSE, NULL);
}

// MARK: Metadata

static inline int wi_get_int(VipsImage *image, const char *name, int *out) {
    if (vips_image_get_typeof(image, name) == 0) return -1;
    return vips_image_get_int(image, name, out);
}
static inline int wi_get_int_array(VipsImage *image, const char *name, int **out, int *n) {
    if (vips_image_get_typeof(image, name) == 0) return -1;
    return vips_image_get_array_int(image, name, out, n);
}
static inline int wi_has_field(VipsImage *image, const char *name) { return vips_image_get_typeof(image, name) != 0; }
static inline int wi_width(VipsImage *image) { return vips_image_get_width(image); }
static inline int wi_height(VipsImage *image) { return vips_image_get_height(image); }
static inline int wi_bands(VipsImage *image) { return vips_image_get_bands(image); }
static inline int wi_band_format(VipsImage *image) { return (int)vips_image_get_format(image); }
static inline int wi_interpretation(VipsImage *image) { return (int)vips_image_get_interpretation(image); }
static inline const char *wi_loader(VipsImage *image) {
    const char *name = NULL;
    if (vips_image_get_typeof(image, VIPS_META_LOADER) == 0) return NULL;
    if (vips_image_get_string(image, VIPS_META_LOADER, &name)) return NULL;
    return name;
}


static inline int wi_getpoint(VipsImage *in, double **vector, int *n, int x, int y) {
    return vips_getpoint(in, vector, n, x, y, NULL);
}
static inline int wi_set_int(VipsImage *image, const char *name, int value) { vips_image_set_int(image, name, value); return 0; }
static inline void wi_set_int_array(VipsImage *image, const char *name, int *values, int n) { vips_image_set_array_int(image, name, values, n); }
static inline void wi_remove(VipsImage *image, const char *name) { vips_image_remove(image, name); }

/* The luma of `in` as a float image in memory: alpha flattened onto white, then
   Rec. 601 weights (0.299 R + 0.587 G + 0.114 B) on the 8-bit values, as SSIM is usually
   computed. In memory because SSIM reads it along five branches. */
static inline int wi_luma_float(VipsImage *in, VipsImage *parent, VipsImage **out) {
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(parent), 5);
    VipsImage *current = in;
    if (vips_image_hasalpha(current)) {
        double white[3] = {255, 255, 255};
        VipsArrayDouble *background = vips_array_double_new(white, vips_image_get_bands(current) >= 3 ? 3 : 1);
        int failed = vips_flatten(current, &t[0], "background", background, NULL);
        vips_area_unref(VIPS_AREA(background));
        if (failed) return -1;
        current = t[0];
    }
    if (vips_image_get_bands(current) >= 3) {
        double weights[3] = {0.299, 0.587, 0.114};
        t[1] = vips_image_new_matrix_from_array(3, 1, weights, 3);
        if (!t[1] || vips_extract_band(current, &t[2], 0, "n", 3, NULL) || vips_recomb(t[2], &t[3], t[1], NULL)) return -1;
    } else if (vips_extract_band(current, &t[2], 0, NULL) || vips_cast(t[2], &t[3], VIPS_FORMAT_FLOAT, NULL)) {
        return -1;
    }
    *out = vips_image_copy_memory(t[3]);
    return *out ? 0 : -1;
}

/* Mean SSIM (Wang et al. 2004) of the lumas of two images of one size: Gaussian window
   sigma 1.5, C1 = (0.01 × 255)², C2 = (0.03 × 255)². */
static inline int wi_ssim(VipsImage *a, VipsImage *b, double *out) {
    VipsImage *parent = vips_image_new();
    VipsImage **t = (VipsImage **)vips_object_local_array(VIPS_OBJECT(parent), 26);
    const double c1 = 6.5025, c2 = 58.5225;
    double two[1] = {2}, one[1] = {1}, k1[1] = {c1}, k2[1] = {c2};
    int failed =
        wi_luma_float(a, parent, &t[0]) || wi_luma_float(b, parent, &t[1]) ||
        vips_gaussblur(t[0], &t[2], 1.5, "min_ampl", 0.01, "precision", VIPS_PRECISION_FLOAT, NULL) ||
        vips_gaussblur(t[1], &t[3], 1.5, "min_ampl", 0.01, "precision", VIPS_PRECISION_FLOAT, NULL) ||
        vips_multiply(t[0], t[0], &t[4], NULL) ||
        vips_gaussblur(t[4], &t[5], 1.5, "min_ampl", 0.01, "precision", VIPS_PRECISION_FLOAT, NULL) ||
        vips_multiply(t[1], t[1], &t[6], NULL) ||
        vips_gaussblur(t[6], &t[7], 1.5, "min_ampl", 0.01, "precision", VIPS_PRECISION_FLOAT, NULL) ||
        vips_multiply(t[0], t[1], &t[8], NULL) ||
        vips_gaussblur(t[8], &t[9], 1.5, "min_ampl", 0.01, "precision", VIPS_PRECISION_FLOAT, NULL) ||
        vips_multiply(t[2], t[2], &t[10], NULL) ||   /* mu_a² */
        vips_multiply(t[3], t[3], &t[11], NULL) ||   /* mu_b² */
        vips_multiply(t[2], t[3], &t[12], NULL) ||   /* mu_a mu_b */
        vips_subtract(t[5], t[10], &t[13], NULL) ||  /* sigma_a² */
        vips_subtract(t[7], t[11], &t[14], NULL) ||  /* sigma_b² */
        vips_subtract(t[9], t[12], &t[15], NULL) ||  /* sigma_ab */
        vips_linear(t[12], &t[16], two, k1, 1, NULL) ||
        vips_linear(t[15], &t[17], two, k2, 1, NULL) ||
        vips_multiply(t[16], t[17], &t[18], NULL) ||
        vips_add(t[10], t[11], &t[19], NULL) ||
        vips_linear(t[19], &t[20], one, k1, 1, NULL) ||
        vips_add(t[13], t[14], &t[21], NULL) ||
        vips_linear(t[21], &t[22], one, k2, 1, NULL) ||
        vips_multiply(t[20], t[22], &t[23], NULL) ||
        vips_divide(t[18], t[23], &t[24], NULL) ||
        vips_avg(t[24], out, NULL);
    g_object_unref(parent);  /* and with it every image in its local arrays */
    return failed ? -1 : 0;
}

// MARK: Frames made on demand

/// Makes frame `index` of an animation (8-bit pixels, a reference for the caller), or
/// returns NULL with the libvips error set.
typedef VipsImage *(*wi_frame_provider)(void *context, int index);
/// Lets go of a provider's context.
typedef void (*wi_frame_release)(void *context);

/// The state behind an animation whose frames are made when a reader reaches them: the
/// provider, and the last two frames it made, so that a region across a frame boundary,
/// or a second reader close behind the first, does not make a frame again.
typedef struct {
    GMutex lock;
    int frame_height;
    wi_frame_provider provide;
    wi_frame_release release;
    void *context;
    VipsImage *held[2];
    int held_index[2];
    int next_slot;
} WiFrameStrip;

static inline void wi_frame_strip_close(VipsImage *image, WiFrameStrip *strip) {
    (void)image;
    for (int slot = 0; slot < 2; slot++) {
        if (strip->held[slot]) g_object_unref(strip->held[slot]);
    }
    strip->release(strip->context);
    g_mutex_clear(&strip->lock);
    g_free(strip);
}

/// Frame `index`, with a reference for the caller; NULL with the libvips error set.
static inline VipsImage *wi_frame_strip_frame(WiFrameStrip *strip, int index) {
    g_mutex_lock(&strip->lock);
    VipsImage *frame = NULL;
    for (int slot = 0; slot < 2; slot++) {
        if (strip->held[slot] && strip->held_index[slot] == index) frame = strip->held[slot];
    }
    if (!frame) {
        frame = strip->provide(strip->context, index);
        if (frame) {
            int slot = strip->next_slot;
            strip->next_slot = 1 - slot;
            if (strip->held[slot]) g_object_unref(strip->held[slot]);
            strip->held[slot] = frame;
            strip->held_index[slot] = index;
        }
    }
    if (frame) g_object_ref(frame);
    g_mutex_unlock(&strip->lock);
    return frame;
}

/// Fills a region of the strip from the frames it crosses, through a region of each frame
/// (a frame may be in memory or a view of pixels that are).
static inline int wi_frame_strip_generate(VipsRegion *out, void *sequence, void *a, void *b, gboolean *stop) {
    (void)sequence; (void)b; (void)stop;
    WiFrameStrip *strip = (WiFrameStrip *)a;
    VipsImage *image = out->im;
    VipsRect *area = &out->valid;
    size_t line = (size_t)VIPS_IMAGE_SIZEOF_PEL(image) * (size_t)area->width;
    int y = area->top;
    int bottom = VIPS_RECT_BOTTOM(area);
    while (y < bottom) {
        int index = y / strip->frame_height;
        int top = index * strip->frame_height;
        int end = VIPS_MIN(bottom, top + strip->frame_height);
        VipsImage *frame = wi_frame_strip_frame(strip, index);
        if (!frame) return -1;
        if (frame->Xsize != image->Xsize || frame->Ysize != strip->frame_height ||
            frame->Bands != image->Bands || frame->BandFmt != image->BandFmt) {
            vips_error("webimage", "frame %d came out %d × %d with %d bands; the animation's frames are %d × %d with %d bands",
                       index, frame->Xsize, frame->Ysize, frame->Bands, image->Xsize, strip->frame_height, image->Bands);
            g_object_unref(frame);
            return -1;
        }
        VipsRegion *source = vips_region_new(frame);
        VipsRect rows = { area->left, y - top, area->width, end - y };
        if (vips_region_prepare(source, &rows)) {
            g_object_unref(source);
            g_object_unref(frame);
            return -1;
        }
        for (; y < end; y++) {
            memcpy(VIPS_REGION_ADDR(out, area->left, y), VIPS_REGION_ADDR(source, area->left, y - top), line);
        }
        g_object_unref(source);
        g_object_unref(frame);
    }
    return 0;
}

/// An 8-bit image of `frames` frames of `width` × `frame_height` stacked top to bottom
/// (libvips' form of an animation), whose pixels are asked of `provide` a frame at a time
/// as a reader reaches them. `release` is called with `context` once, when the image
/// closes (also when this fails, which returns NULL).
static inline VipsImage *wi_frame_strip_new(int width, int frame_height, int frames, int bands, int interpretation,
                                            wi_frame_provider provide, wi_frame_release release, void *context) {
    WiFrameStrip *strip = g_new0(WiFrameStrip, 1);
    g_mutex_init(&strip->lock);
    strip->frame_height = frame_height;
    strip->provide = provide;
    strip->release = release;
    strip->context = context;
    strip->held_index[0] = strip->held_index[1] = -1;
    VipsImage *out = vips_image_new();
    g_signal_connect(out, "close", G_CALLBACK(wi_frame_strip_close), strip);
    vips_image_init_fields(out, width, frame_height * frames, bands, VIPS_FORMAT_UCHAR, VIPS_CODING_NONE,
                           (VipsInterpretation)interpretation, 1.0, 1.0);
    if (vips_image_pipelinev(out, VIPS_DEMAND_STYLE_THINSTRIP, NULL) ||
        vips_image_generate(out, NULL, wi_frame_strip_generate, NULL, strip, NULL)) {
        g_object_unref(out);
        return NULL;
    }
    return out;
}

/// Sets the libvips error a provider reports.
static inline void wi_set_error(const char *domain, const char *message) { vips_error(domain, "%s", message); }

static inline void wi_object_ref(void *object) { g_object_ref(object); }
static inline void wi_object_unref(void *object) { g_object_unref(object); }
static inline void wi_g_free(void *memory) { g_free(memory); }

#endif

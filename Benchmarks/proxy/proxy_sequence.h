/*
 * The proxy's libvips set-up and its sequence of libvips calls for `rs:fit:W:H` as a JPEG,
 * for the references the proxy and the manager are measured against: pipeline.sh's
 * vips_baseline.c, lean_server.c and hummingbird-floor, and VariantProfile's floor.
 *
 * The calls, in the order the proxy makes them (Sources/WebImage/Coding/VipsDecode.swift,
 * VipsEncode.swift):
 *
 *   vips_image_new_from_buffer(bytes, "", fail_on ERROR)      the header, for the plan
 *   vips_thumbnail_buffer(bytes, W, "height", H, "size", FORCE, "option_string", "fail_on=error")
 *                                                              W×H: the fitted size
 *   vips_image_copy_memory(thumbnail)                          the decode ends in memory
 *   vips_jpegsave_buffer(copy, "Q", quality, "strip", TRUE, "optimize_coding", TRUE)
 *
 * libvips' thumbnail reads the header again and loads the JPEG shrunk on load by 8, 4 or
 * 2 when the fit shrinks it by 16, 8 or 4 times or more, leaving at least a factor of two
 * for the resample. The encoder settings are those of the proxy's JPEG answer (wi_jpegsave
 * in Sources/CVips/shim.h: metadata stripped, Huffman tables optimised, not interlaced).
 */
#ifndef PROXY_SEQUENCE_H
#define PROXY_SEQUENCE_H

#include <vips/vips.h>
#include <vips/vector.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

/* libvips set up as WebImage sets it up (Sources/CVips/shim.h, wi_vips_init): operation
   cache off, one worker thread per image, untrusted loaders blocked, no warnings on
   stderr, orc vector code as libvips sets it (on; VIPS_NOVECTOR=1 turns it off). The
   programs are built with WebImage's orc code lock (Sources/COrcCodeLock/
   orc_code_lock.c), as `webimage` is. Exits on failure. */
static void setup_libvips_as_webimage(const char *argv0) {
    g_setenv("VIPS_WARNING", "0", FALSE);
    if (VIPS_INIT(argv0)) vips_error_exit(NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);
}

/* The `width`×`height` fit of the image in `data`, in memory, made by the proxy's calls
   up to its encode. Returns 0 and sets `*out`, or -1 (libvips' error buffer says why). */
static int thumbnail_as_proxy(const void *data, size_t size, int width, int height, VipsImage **out) {
    VipsImage *header = vips_image_new_from_buffer(data, size, "", "fail_on", VIPS_FAIL_ON_ERROR, NULL);
    if (!header) return -1;
    int source_width = header->Xsize, source_height = header->Ysize;
    g_object_unref(header);
    double horizontal = (double)source_width / width, vertical = (double)source_height / height;
    double factor = horizontal > vertical ? horizontal : vertical;
    int fitted_width = (int)(source_width / factor + 0.5), fitted_height = (int)(source_height / factor + 0.5);
    VipsImage *resized = NULL;
    if (vips_thumbnail_buffer((void *)data, size, &resized, fitted_width, "height", fitted_height, "size", VIPS_SIZE_FORCE,
            "option_string", "fail_on=error", NULL))
        return -1;
    *out = vips_image_copy_memory(resized);
    g_object_unref(resized);
    return *out ? 0 : -1;
}

/* `image` as the proxy's JPEG answer at `quality`; 0 and a g_malloc'd buffer, or -1. */
static int jpeg_as_proxy(VipsImage *image, int quality, void **buffer, size_t *length) {
    return vips_jpegsave_buffer(image, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

/* A cold variant of a cached original with nothing of the proxy around it: reads
   `source_path` into a new buffer (g_file_get_contents), makes the `width`×`height` fit
   with the calls above, and writes the JPEG to `output_path` through a temporary file
   renamed into place (no fsync), as the proxy's disk cache stores a variant. Returns 0,
   or -1 (libvips' error buffer, or errno, says why). With `jpeg_out` and `length_out`
   set, the JPEG is handed back (g_free it) rather than freed. */
static inline int variant_with_files(
    const char *source_path, const char *output_path, int width, int height, int quality,
    void **jpeg_out, size_t *length_out
) {
    gchar *bytes = NULL;
    gsize size = 0;
    if (!g_file_get_contents(source_path, &bytes, &size, NULL)) return -1;
    VipsImage *fitted = NULL;
    int status = thumbnail_as_proxy(bytes, size, width, height, &fitted);
    void *jpeg = NULL;
    size_t length = 0;
    if (status == 0) {
        status = jpeg_as_proxy(fitted, quality, &jpeg, &length);
        g_object_unref(fitted);
    }
    g_free(bytes);
    if (status != 0) return -1;
    char temporary[4096 + sizeof ".tmp"];
    snprintf(temporary, sizeof temporary, "%s.tmp", output_path);
    int fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    size_t done = 0;
    while (fd >= 0 && done < length) {
        ssize_t wrote = write(fd, (const char *)jpeg + done, length - done);
        if (wrote < 0 && errno == EINTR) continue;
        if (wrote <= 0) break;
        done += (size_t)wrote;
    }
    if (fd >= 0) close(fd);
    if (fd < 0 || done != length || rename(temporary, output_path) != 0) {
        unlink(temporary);
        g_free(jpeg);
        return -1;
    }
    if (jpeg_out) {
        *jpeg_out = jpeg;
        *length_out = length;
    } else {
        g_free(jpeg);
    }
    return 0;
}

#endif

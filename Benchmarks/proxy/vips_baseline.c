/*
 * The baseline of pipeline.sh's photo case: libvips called directly, no proxy.
 *
 *   vips_baseline THREADS SECONDS WIDTH HEIGHT QUALITY FILE...
 *
 * Reads every FILE into memory once, then runs THREADS threads for SECONDS seconds; each
 * loops over the files (thread t starts at file t) doing what the proxy does for
 * `rs:fit:WIDTH:HEIGHT` with no `Accept` (a JPEG answer), minus the HTTP, the caches and
 * the disk:
 *
 *   vips_thumbnail_buffer(bytes, WIDTH, "height", HEIGHT)     shrink-on-load, fit
 *   vips_jpegsave_buffer(thumbnail, "Q", QUALITY, "strip", TRUE, "optimize_coding", TRUE)
 *
 * (the encoder settings of the proxy's JPEG answer: wi_jpegsave in Sources/CVips/shim.h,
 * metadata stripped, Huffman tables optimised, not interlaced).
 *
 * libvips is set up as WebImage sets it up (wi_vips_init in Sources/CVips/shim.h):
 * operation cache off, one worker thread per image, untrusted loaders blocked, orc vector
 * code on (VIPS_NOVECTOR=1 turns it off); pipeline.sh builds it with WebImage's orc code
 * lock, as `webimage` is.
 *
 * Prints one line of `key=value` pairs: images, seconds, images_per_s, errors,
 * out_bytes (mean output size), cpu_ms_per_image (the process's user + system CPU time
 * while the threads ran, per image), vmhwm_kb (the process's peak resident memory),
 * vector (1 when libvips ran its orc vector code).
 */
#include <vips/vips.h>
#include <vips/vector.h>

#include <pthread.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    void *data;
    size_t size;
} Source;

static Source *sources;
static int source_count;
static int width, height, quality;
static double deadline;

typedef struct {
    int index;
    long images;
    long errors;
    long long out_bytes;
    pthread_t thread;
} Worker;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *work(void *argument) {
    Worker *worker = argument;
    int next = worker->index % source_count;
    while (now() < deadline) {
        const Source *source = &sources[next];
        next = (next + 1) % source_count;
        VipsImage *thumbnail = NULL;
        void *buffer = NULL;
        size_t length = 0;
        if (vips_thumbnail_buffer(source->data, source->size, &thumbnail, width, "height", height, NULL) ||
            vips_jpegsave_buffer(thumbnail, &buffer, &length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL)) {
            worker->errors++;
            fprintf(stderr, "vips_baseline: %s\n", vips_error_buffer());
            vips_error_clear();
        } else {
            worker->images++;
            worker->out_bytes += (long long)length;
        }
        if (thumbnail) g_object_unref(thumbnail);
        g_free(buffer);
    }
    /* Once, as the thread ends (libvips' per-thread buffers): as the proxy's threads, which
       live as long as the process, keep theirs between images. */
    vips_thread_shutdown();
    return NULL;
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)usage.ru_utime.tv_sec + (double)usage.ru_utime.tv_usec / 1e6 + (double)usage.ru_stime.tv_sec +
           (double)usage.ru_stime.tv_usec / 1e6;
}

static long vmhwm_kb(void) {
    FILE *status = fopen("/proc/self/status", "r");
    if (!status) return -1;
    char line[256];
    long kb = -1;
    while (fgets(line, sizeof line, status)) {
        if (strncmp(line, "VmHWM:", 6) == 0) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    }
    fclose(status);
    return kb;
}

int main(int argc, char **argv) {
    if (argc < 7) {
        fprintf(stderr, "usage: %s THREADS SECONDS WIDTH HEIGHT QUALITY FILE...\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]);
    double seconds = atof(argv[2]);
    width = atoi(argv[3]);
    height = atoi(argv[4]);
    quality = atoi(argv[5]);
    if (threads < 1 || threads > 256 || seconds <= 0 || seconds > 3600 || width < 1 || height < 1) {
        fprintf(stderr, "vips_baseline: bad arguments\n");
        return 2;
    }

    g_setenv("VIPS_WARNING", "0", FALSE);
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_block_untrusted_set(TRUE);

    source_count = argc - 6;
    sources = calloc((size_t)source_count, sizeof *sources);
    for (int i = 0; i < source_count; i++) {
        gchar *data = NULL;
        gsize size = 0;
        GError *error = NULL;
        if (!g_file_get_contents(argv[6 + i], &data, &size, &error)) {
            fprintf(stderr, "vips_baseline: %s\n", error->message);
            return 1;
        }
        sources[i].data = data;
        sources[i].size = size;
    }

    Worker *workers = calloc((size_t)threads, sizeof *workers);
    double cpu_start = cpu_seconds();
    double start = now();
    deadline = start + seconds;
    for (int i = 0; i < threads; i++) {
        workers[i].index = i;
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i])) {
            fprintf(stderr, "vips_baseline: cannot start a thread\n");
            return 1;
        }
    }
    long images = 0, errors = 0;
    long long out_bytes = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(workers[i].thread, NULL);
        images += workers[i].images;
        errors += workers[i].errors;
        out_bytes += workers[i].out_bytes;
    }
    double elapsed = now() - start;
    double cpu = cpu_seconds() - cpu_start;
    printf("images=%ld seconds=%.3f images_per_s=%.2f errors=%ld out_bytes=%lld cpu_ms_per_image=%.2f vmhwm_kb=%ld vector=%d\n", images,
           elapsed, images / elapsed, errors, images ? out_bytes / images : 0, images ? cpu * 1000 / images : 0.0,
           vmhwm_kb(), vips_vector_isenabled() ? 1 : 0);
    return errors ? 1 : 0;
}

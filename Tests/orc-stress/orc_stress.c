/*
 * Many threads building, computing and dropping small libvips pipelines whose operations
 * compile orc programs when they are built (resize → reducev; Gaussian blur and the
 * thumbnail's sharpen → convi) and free them when the pipeline's last reference goes, as
 * a proxy making cold variants does, only faster: small images make the building and the
 * dropping, not the pixels, most of the work. The threads go in lock-step rounds: right
 * after each barrier half of them drop their pipelines (freeing orc programs) while the
 * other half build new ones (compiling orc programs), so that frees meet frees and
 * compiles at once.
 *
 *   orc_stress MODE THREADS SECONDS [PIPELINES]
 *
 * MODE: `orc` (libvips' vector code on, its default) or `orc-off`
 * (vips_vector_set_enabled(FALSE), the control). PIPELINES: pipelines each thread holds a
 * round (default 4, at most 16).
 *
 * liborc 0.4.33 hands out and takes back the chunks of executable memory its programs
 * live in partly outside its own lock, and libvips frees programs under no lock of its
 * own, so with orc on, two threads can free neighbouring chunks, or free the neighbour of
 * the chunk another thread is taking, at once: a segfault in orc_code_free, or glibc
 * aborting ("malloc_consolidate(): unaligned fastbin chunk detected", "free(): invalid
 * next size (fast)", …); AddressSanitizer reports the bad free.
 *
 * Built with Sources/COrcCodeLock/orc_code_lock.c, libvips' compiles and frees of orc
 * programs go through WebImage's lock, one at a time (what `webimage` and the tests link).
 *
 * libvips is set up as WebImage sets it up (operation cache off, one worker thread per
 * image), orc aside. Prints one line: mode, threads, seconds, pipelines made and failed,
 * whether vector code was on, whether WebImage's lock was installed and how many compiles
 * and frees it took; exits 0 when every pipeline was made. A crash ends the process with
 * its signal.
 *
 * Build: cc -O1 -g -o orc_stress orc_stress.c $(pkg-config --cflags --libs vips) -pthread
 *        (and Sources/COrcCodeLock/orc_code_lock.c -I Sources/COrcCodeLock/include
 *        for WebImage's lock; -fsanitize=address for AddressSanitizer)
 */
#include <vips/vips.h>
#include <vips/vector.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_PIPELINES = 16, STEPS = 3 };

static int pipelines_per_round = 4;
static double deadline;
static int stop;
static int thread_count;
/* A spinning barrier: the threads on a core leave it at the same instant (a sleeping
   barrier wakes them one after another). */
static int barrier_waiting;
static int barrier_generation;

typedef struct {
    int index;
    VipsImage *source;
    long made;
    long failed;
    pthread_t thread;
} Worker;

/* The images of one pipeline, dropped together. */
typedef struct {
    VipsImage *image[STEPS];
} Pipeline;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Waits until every thread has arrived. The last one to arrive decides, for everyone,
   whether this round is the last; returns that. */
static int spin_barrier_wait(void) {
    int generation = __atomic_load_n(&barrier_generation, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&barrier_waiting, 1, __ATOMIC_ACQ_REL) == thread_count) {
        __atomic_store_n(&barrier_waiting, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&stop, now() >= deadline, __ATOMIC_RELAXED);
        __atomic_add_fetch(&barrier_generation, 1, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&barrier_generation, __ATOMIC_ACQUIRE) == generation) sched_yield();
    }
    return __atomic_load_n(&stop, __ATOMIC_RELAXED);
}

/* WebImage's orc code lock (orc_code_lock.h), when it is linked in. */
int webimage_orc_code_lock_installed(void) __attribute__((weak));
long webimage_orc_code_lock_calls(void) __attribute__((weak));

static void drop(Pipeline *pipeline) {
    for (int i = STEPS - 1; i >= 0; i--) {
        if (!pipeline->image[i]) continue;
        g_object_unref(pipeline->image[i]);
        pipeline->image[i] = NULL;
    }
}

/* A small pseudo-random generator per thread (rand() shares its state across threads). */
static unsigned next_random(unsigned *state) {
    *state = *state * 1103515245u + 12345u;
    return (*state >> 8) & 0xffffff;
}

/* A W×H sRGB image of noise in memory, `bands` 3 or 4 (opaque alpha); NULL on failure. */
static VipsImage *noise_image(int width, int height, int bands) {
    VipsImage *t[5] = {NULL};
    VipsImage *result = NULL;
    if (!vips_gaussnoise(&t[0], width, height, "mean", 128.0, "sigma", 40.0, NULL) &&
        !vips_cast(t[0], &t[1], VIPS_FORMAT_UCHAR, NULL)) {
        VipsImage *copies[3] = {t[1], t[1], t[1]};
        if (!vips_bandjoin(copies, &t[2], 3, NULL) && (bands == 3 || !vips_bandjoin_const1(t[2], &t[3], 255, NULL)) &&
            !vips_copy(bands == 3 ? t[2] : t[3], &t[4], "interpretation", VIPS_INTERPRETATION_sRGB, NULL))
            result = vips_image_copy_memory(t[4]);
    }
    for (int i = 0; i < 5; i++)
        if (t[i]) g_object_unref(t[i]);
    return result;
}

/* Builds one pipeline on a random part of `source` (at most 96 × 64 pixels): one or two
   operations that compile orc programs, then computes it. 0, or -1 on failure. */
static int build_and_compute(VipsImage *source, unsigned *seed, Pipeline *pipeline) {
    int width = 8 + (int)(next_random(seed) % 88);
    int height = 8 + (int)(next_random(seed) % 56);
    int left = (int)(next_random(seed) % (unsigned)(source->Xsize - width));
    int top = (int)(next_random(seed) % (unsigned)(source->Ysize - height));
    int kind = (int)(next_random(seed) % 4);
    double scale = 0.2 + (next_random(seed) % 700) / 1000.0;
    double sigma = 0.5 + (next_random(seed) % 30) / 10.0;
    VipsImage **t = pipeline->image;

    int failed = vips_extract_area(source, &t[0], left, top, width, height, NULL);
    if (!failed) {
        switch (kind) {
        case 0: failed = vips_resize(t[0], &t[2], scale, NULL); break;
        case 1: failed = vips_gaussblur(t[0], &t[2], sigma, NULL); break;
        case 2: failed = vips_resize(t[0], &t[1], scale, NULL) || vips_gaussblur(t[1], &t[2], sigma, NULL); break;
        default:
            failed = vips_thumbnail_image(t[0], &t[1], (int)(width * scale) + 1, "height", height, NULL) ||
                     vips_sharpen(t[1], &t[2], "sigma", sigma, NULL);
            break;
        }
    }
    if (!failed) {
        double mean = 0;
        failed = vips_avg(t[2], &mean, NULL);
    }
    if (failed) {
        fprintf(stderr, "orc_stress: %s\n", vips_error_buffer());
        vips_error_clear();
    }
    return failed ? -1 : 0;
}

/* Builds (and computes) a round of pipelines into `round`; counts them. */
static void build_round(Worker *worker, unsigned *seed, Pipeline *round) {
    for (int i = 0; i < pipelines_per_round; i++) {
        if (build_and_compute(worker->source, seed, &round[i])) worker->failed++;
        else worker->made++;
    }
}

static void drop_round(Pipeline *round) {
    for (int i = 0; i < pipelines_per_round; i++) drop(&round[i]);
}

/* Rounds in lock-step. Right after each barrier the even threads drop their pipelines
   (freeing orc programs) and then build the next ones, while the odd threads build their
   next ones (compiling orc programs) and then drop their previous ones: frees meet frees
   and compiles at once. */
static void *work(void *argument) {
    Worker *worker = argument;
    unsigned seed = 0x9e3779b9u * (unsigned)(worker->index + 1);
    Pipeline rounds[2][MAX_PIPELINES] = {{{{NULL}}}};
    int current = 0;
    build_round(worker, &seed, rounds[current]);
    for (;;) {
        int last_round = spin_barrier_wait();
        if (last_round) break;
        if (worker->index % 2 == 0) {
            drop_round(rounds[current]);
            build_round(worker, &seed, rounds[current]);
        } else {
            build_round(worker, &seed, rounds[1 - current]);
            drop_round(rounds[current]);
            current = 1 - current;
        }
    }
    drop_round(rounds[0]);
    drop_round(rounds[1]);
    vips_thread_shutdown();
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4 && argc != 5) {
        fprintf(stderr, "usage: %s orc|orc-off THREADS SECONDS [PIPELINES]\n", argv[0]);
        return 2;
    }
    const char *mode = argv[1];
    int threads = atoi(argv[2]);
    double seconds = atof(argv[3]);
    if (argc == 5) pipelines_per_round = atoi(argv[4]);
    if ((strcmp(mode, "orc") && strcmp(mode, "orc-off")) || threads < 1 || threads > 512 ||
        seconds <= 0 || pipelines_per_round < 1 || pipelines_per_round > MAX_PIPELINES) {
        fprintf(stderr, "orc_stress: bad arguments\n");
        return 2;
    }

    g_setenv("VIPS_WARNING", "0", FALSE);
    if (VIPS_INIT(argv[0])) vips_error_exit(NULL);
    vips_cache_set_max(0);
    vips_cache_set_max_mem(0);
    vips_cache_set_max_files(0);
    vips_concurrency_set(1);
    vips_vector_set_enabled(strcmp(mode, "orc-off") != 0);

    Worker *workers = calloc((size_t)threads, sizeof *workers);
    for (int i = 0; i < threads; i++) {
        workers[i].index = i;
        workers[i].source = noise_image(256, 192, i % 2 ? 4 : 3);
        if (!workers[i].source) vips_error_exit(NULL);
    }
    thread_count = threads;
    deadline = now() + seconds;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&workers[i].thread, NULL, work, &workers[i])) {
            fprintf(stderr, "orc_stress: cannot start a thread\n");
            return 1;
        }
    }
    long made = 0, failed = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(workers[i].thread, NULL);
        made += workers[i].made;
        failed += workers[i].failed;
        g_object_unref(workers[i].source);
    }
    free(workers);
    printf("mode=%s threads=%d seconds=%.0f pipelines=%d made=%ld failed=%ld vector=%d code_lock=%d locked_calls=%ld\n", mode,
           threads, seconds, pipelines_per_round, made, failed, vips_vector_isenabled() ? 1 : 0,
           webimage_orc_code_lock_installed ? webimage_orc_code_lock_installed() : 0,
           webimage_orc_code_lock_calls ? webimage_orc_code_lock_calls() : 0);
    return failed ? 1 : 0;
}

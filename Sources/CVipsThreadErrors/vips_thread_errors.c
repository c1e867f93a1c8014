/* RTLD_NEXT and RTLD_DEFAULT are GNU extensions. */
#define _GNU_SOURCE
#include "vips_thread_errors.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* libvips' errors, one buffer per thread.
 *
 * libvips appends every error message to one process-wide buffer, so when two threads fail
 * at once each can read the other's message, or both, or none. Every libvips call that
 * raises, clears, freezes or reads an error goes through the dynamic linker (libvips calls
 * its own vips_error, vips_verror, vips_error_clear... through its PLT), and a program's
 * own definitions come first when those calls are bound: the definitions below keep the
 * messages of each thread that calls into libvips in a buffer of that thread's own.
 *
 * libvips' worker threads (vips_thread_isvips) keep the process-wide buffer: what fails
 * while pixels are computed on them is raised there, and read from there by the thread
 * whose call failed when it has no message of its own (the attribution libvips itself
 * gives those). The declarations are libvips' own (vips/error.h), its headers not
 * included so that these definitions do not clash with its prototypes. */

typedef int gboolean;

void vips_verror(const char *domain, const char *fmt, va_list ap);
void vips_error_clear(void);
const char *vips_error_buffer(void);
void vips_error_freeze(void);
void vips_error_thaw(void);

enum { capacity = 4096 };

static _Thread_local char thread_text[capacity];
static _Thread_local size_t thread_length;
static _Thread_local int thread_frozen;
static _Thread_local long thread_raised;

static void (*libvips_verror)(const char *, const char *, va_list);
static void (*libvips_error_clear)(void);
static const char *(*libvips_error_buffer)(void);
static void (*libvips_error_freeze)(void);
static void (*libvips_error_thaw)(void);
static gboolean (*libvips_thread_isvips)(void);
static pthread_once_t resolved = PTHREAD_ONCE_INIT;

static void resolve(void) {
    libvips_verror = (void (*)(const char *, const char *, va_list))dlsym(RTLD_NEXT, "vips_verror");
    libvips_error_clear = (void (*)(void))dlsym(RTLD_NEXT, "vips_error_clear");
    libvips_error_buffer = (const char *(*)(void))dlsym(RTLD_NEXT, "vips_error_buffer");
    libvips_error_freeze = (void (*)(void))dlsym(RTLD_NEXT, "vips_error_freeze");
    libvips_error_thaw = (void (*)(void))dlsym(RTLD_NEXT, "vips_error_thaw");
    libvips_thread_isvips = (gboolean(*)(void))dlsym(RTLD_NEXT, "vips_thread_isvips");
    if (!libvips_verror || !libvips_error_clear || !libvips_error_buffer || !libvips_error_freeze || !libvips_error_thaw ||
        !libvips_thread_isvips) {
        /* Only libvips' own callers reach these, so libvips is loaded: this cannot happen. */
        fprintf(stderr, "webimage: libvips' error functions not found: %s\n", dlerror());
        abort();
    }
}

/* Whether the calling thread is one of libvips' workers, which keep the shared buffer. */
static int on_worker(void) {
    pthread_once(&resolved, resolve);
    return libvips_thread_isvips() != 0;
}

void vips_verror(const char *domain, const char *fmt, va_list ap) {
    if (on_worker()) {
        libvips_verror(domain, fmt, ap);
        return;
    }
    thread_raised += 1;
    if (thread_frozen > 0) return;
    /* As libvips writes it: "domain: message\n", cut when the buffer is full. */
    size_t room = capacity - thread_length;
    if (room > 1 && domain) {
        int written = snprintf(thread_text + thread_length, room, "%s: ", domain);
        if (written > 0) thread_length += (size_t)written < room ? (size_t)written : room - 1;
    }
    room = capacity - thread_length;
    if (room > 1) {
        int written = vsnprintf(thread_text + thread_length, room, fmt, ap);
        if (written > 0) thread_length += (size_t)written < room ? (size_t)written : room - 1;
    }
    if (capacity - thread_length > 1) {
        thread_text[thread_length++] = '\n';
        thread_text[thread_length] = 0;
    }
}

void vips_error_clear(void) {
    if (on_worker()) {
        libvips_error_clear();
        return;
    }
    thread_length = 0;
    thread_text[0] = 0;
}

const char *vips_error_buffer(void) {
    if (on_worker() || thread_length == 0) return libvips_error_buffer();
    return thread_text;
}

void vips_error_freeze(void) {
    if (on_worker()) {
        libvips_error_freeze();
        return;
    }
    thread_frozen += 1;
}

void vips_error_thaw(void) {
    if (on_worker()) {
        libvips_error_thaw();
        return;
    }
    if (thread_frozen > 0) thread_frozen -= 1;
}

int webimage_vips_thread_errors_installed(void) {
    return dlsym(RTLD_DEFAULT, "vips_verror") == (void *)vips_verror &&
           dlsym(RTLD_DEFAULT, "vips_error_clear") == (void *)vips_error_clear &&
           dlsym(RTLD_DEFAULT, "vips_error_buffer") == (void *)vips_error_buffer &&
           dlsym(RTLD_DEFAULT, "vips_error_freeze") == (void *)vips_error_freeze &&
           dlsym(RTLD_DEFAULT, "vips_error_thaw") == (void *)vips_error_thaw;
}

char *webimage_vips_thread_errors_take(void) {
    if (thread_length == 0) return NULL;
    char *copy = strndup(thread_text, thread_length);
    thread_length = 0;
    thread_text[0] = 0;
    return copy;
}

long webimage_vips_thread_errors_raised(void) { return thread_raised; }

/* RTLD_NEXT, RTLD_DEFAULT and the recursive mutex initialiser are GNU extensions. */
#define _GNU_SOURCE
#include "orc_code_lock.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

/* liborc's code memory, one thread at a time.
 *
 * libvips compiles an orc program when it builds an operation that has vector code
 * (reducev when resizing, convi for integer convolutions such as a blur, morph) and frees
 * it when that operation is finalised, on whichever thread drops the last reference.
 * liborc 0.4.33 keeps the executable memory of its programs in a list of chunks that it
 * updates partly outside its own lock: a free chunk is found under the lock but split and
 * marked used after it, and a freed chunk is merged with its free neighbours (and their
 * records freed) with no lock at all; liborc 0.4.34 takes the lock for both. libvips
 * compiles under a lock of its own but frees under none. So a program freed on one thread
 * while another thread frees or compiles one corrupts the list: a segfault in
 * orc_code_free, or glibc aborting on a corrupted heap.
 *
 * This file defines orc_program_compile and orc_program_free, the two calls through which
 * libvips reaches that memory. A program's own definitions come first when the dynamic
 * linker binds a shared library's calls, so libvips' calls land here: each takes one
 * process-wide lock and calls liborc's own function (found with dlsym(RTLD_NEXT)).
 * Running a compiled program (the pixel work) takes no lock.
 *
 * The declarations are liborc's (orc/orcprogram.h) with the program kept opaque and the
 * OrcCompileResult enum returned as the int it is passed as; liborc's headers are not
 * included, so that these definitions do not clash with its prototypes. */

typedef struct _OrcProgram OrcProgram;

int orc_program_compile(OrcProgram *program);
void orc_program_free(OrcProgram *program);

static int (*liborc_compile)(OrcProgram *);
static void (*liborc_free)(OrcProgram *);
static pthread_once_t resolved = PTHREAD_ONCE_INIT;
/* Recursive, in case a liborc ever reaches one of these through the other. */
static pthread_mutex_t code_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
static atomic_long serialised_calls;

static void resolve(void) {
    liborc_compile = (int (*)(OrcProgram *))dlsym(RTLD_NEXT, "orc_program_compile");
    liborc_free = (void (*)(OrcProgram *))dlsym(RTLD_NEXT, "orc_program_free");
    if (!liborc_compile || !liborc_free) {
        /* Only liborc's own callers reach these, so liborc is loaded: this cannot happen. */
        fprintf(stderr, "webimage: liborc's orc_program_compile or orc_program_free not found: %s\n", dlerror());
        abort();
    }
}

int orc_program_compile(OrcProgram *program) {
    pthread_once(&resolved, resolve);
    pthread_mutex_lock(&code_lock);
    int result = liborc_compile(program);
    pthread_mutex_unlock(&code_lock);
    atomic_fetch_add_explicit(&serialised_calls, 1, memory_order_relaxed);
    return result;
}

void orc_program_free(OrcProgram *program) {
    pthread_once(&resolved, resolve);
    pthread_mutex_lock(&code_lock);
    liborc_free(program);
    pthread_mutex_unlock(&code_lock);
    atomic_fetch_add_explicit(&serialised_calls, 1, memory_order_relaxed);
}

int webimage_orc_code_lock_installed(void) {
    /* What the dynamic linker binds libvips' calls to: these definitions, when this
       program exports them. */
    return dlsym(RTLD_DEFAULT, "orc_program_compile") == (void *)orc_program_compile &&
           dlsym(RTLD_DEFAULT, "orc_program_free") == (void *)orc_program_free;
}

long webimage_orc_code_lock_calls(void) { return atomic_load_explicit(&serialised_calls, memory_order_relaxed); }

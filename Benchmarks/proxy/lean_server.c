/*
 * A reference of pipeline.sh's photo case: the least an HTTP server can do around the
 * proxy's libvips calls, to show what serving costs beside calling libvips in a loop.
 *
 *   lean_server PORT THREADS WIDTH HEIGHT QUALITY PHOTO_DIR CACHE_DIR
 *
 * Listens on 127.0.0.1:PORT with THREADS threads. Each takes a connection and serves it
 * alone until the client closes it (HTTP/1.1 keep-alive), then takes the next: no event
 * loop, no hand-off between threads. For a GET whose path holds `/photos/NAME` (NAME ends
 * at `/`, `?`, `%` or the end; the proxy's URL works as it is) it does what the proxy does
 * for a cold variant of a cached original, minus its caches' bookkeeping:
 *
 *   reads PHOTO_DIR/NAME from its file into a new buffer (g_file_get_contents)
 *   makes the WIDTH×HEIGHT fit with the proxy's libvips calls (proxy_sequence.h)
 *   writes the JPEG to CACHE_DIR (a temporary file, then renamed into place; no fsync)
 *   answers it: 200, Content-Type image/jpeg, Content-Length
 *
 * A missing photo answers 404, a failed libvips call or file write 500 (both with an
 * empty body).
 * `GET /count` answers the number of variants made so far, as text.
 *
 * Build: cc -O2 -o lean_server lean_server.c ../../Sources/COrcCodeLock/orc_code_lock.c
 *          -I ../../Sources/COrcCodeLock/include $(pkg-config --cflags --libs vips) -pthread
 */
#define _GNU_SOURCE  /* accept4 */
#include "proxy_sequence.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static const char *photo_dir, *cache_dir;
static int width, height, quality;
static int listener;
static atomic_long made;

/* Sends all of `head` and `body`; -1 when the connection is gone. */
static int send_all(int fd, const char *head, size_t head_length, const void *body, size_t body_length) {
    struct iovec parts[2] = {{(void *)head, head_length}, {(void *)body, body_length}};
    int first = 0, count = body_length ? 2 : 1;
    while (first < count) {
        ssize_t sent = writev(fd, parts + first, count - first);
        if (sent < 0 && errno == EINTR) continue;
        if (sent <= 0) return -1;
        while (first < count && (size_t)sent >= parts[first].iov_len) sent -= (ssize_t)parts[first++].iov_len;
        if (first < count) {
            parts[first].iov_base = (char *)parts[first].iov_base + sent;
            parts[first].iov_len -= (size_t)sent;
        }
    }
    return 0;
}

static int answer_status(int fd, const char *status) {
    char head[128];
    int length = snprintf(head, sizeof head, "HTTP/1.1 %s\r\nContent-Length: 0\r\n\r\n", status);
    return send_all(fd, head, (size_t)length, NULL, 0);
}

/* Answers the request whose first line is `line`; -1 when the connection is gone. */
static int answer(int fd, const char *line) {
    char head[256];
    if (strncmp(line, "GET /count ", 11) == 0) {
        char body[32];
        int body_length = snprintf(body, sizeof body, "%ld\n", atomic_load(&made));
        int length = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", body_length);
        return send_all(fd, head, (size_t)length, body, (size_t)body_length);
    }
    const char *start = strstr(line, "/photos/");
    if (strncmp(line, "GET ", 4) != 0 || !start) return answer_status(fd, "404 Not Found");
    start += strlen("/photos/");
    size_t name_length = strcspn(start, "/?% \r\n");
    if (name_length == 0 || name_length > 255 || (name_length == 2 && strncmp(start, "..", 2) == 0))
        return answer_status(fd, "404 Not Found");
    char path[4096];
    snprintf(path, sizeof path, "%s/%.*s", photo_dir, (int)name_length, start);
    if (access(path, R_OK) != 0) return answer_status(fd, "404 Not Found");
    char output[4096];
    snprintf(output, sizeof output, "%s/v%ld", cache_dir, atomic_fetch_add(&made, 1) + 1);
    void *jpeg = NULL;
    size_t jpeg_length = 0;
    /* A variant not made or not written answers 500, so that wrk counts it among the
       failed requests rather than the lean server doing less work than the proxy unseen. */
    if (variant_with_files(path, output, width, height, quality, &jpeg, &jpeg_length)) {
        fprintf(stderr, "lean_server: %s: %s\n", output, vips_error_buffer());
        vips_error_clear();
        return answer_status(fd, "500 Internal Server Error");
    }
    int length = snprintf(head, sizeof head, "HTTP/1.1 200 OK\r\nContent-Type: image/jpeg\r\nContent-Length: %zu\r\n\r\n", jpeg_length);
    int result = send_all(fd, head, (size_t)length, jpeg, jpeg_length);
    g_free(jpeg);
    return result;
}

/* One thread: a connection at a time, its requests one after another. */
static void *serve(void *unused) {
    (void)unused;
    char buffer[16384];
    for (;;) {
        int fd = accept4(listener, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) continue;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        size_t have = 0;
        for (;;) {
            buffer[have] = 0;
            char *end = strstr(buffer, "\r\n\r\n");
            if (!end) {
                if (have == sizeof buffer - 1) break;  /* a head too large: drop the connection */
                ssize_t got = read(fd, buffer + have, sizeof buffer - 1 - have);
                if (got < 0 && errno == EINTR) continue;
                if (got <= 0) break;
                have += (size_t)got;
                continue;
            }
            size_t request_length = (size_t)(end - buffer) + 4;
            *end = 0;  /* the path is looked for in this request's head only */
            if (answer(fd, buffer) < 0) break;
            memmove(buffer, buffer + request_length, have - request_length);
            have -= request_length;
        }
        close(fd);
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 8) {
        fprintf(stderr, "usage: %s PORT THREADS WIDTH HEIGHT QUALITY PHOTO_DIR CACHE_DIR\n", argv[0]);
        return 2;
    }
    int port = atoi(argv[1]), threads = atoi(argv[2]);
    width = atoi(argv[3]);
    height = atoi(argv[4]);
    quality = atoi(argv[5]);
    photo_dir = argv[6];
    cache_dir = argv[7];
    if (port < 1 || port > 65535 || threads < 1 || threads > 256 || width < 1 || height < 1) {
        fprintf(stderr, "lean_server: bad arguments\n");
        return 2;
    }
    setup_libvips_as_webimage(argv[0]);
    listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &address.sin_addr);
    if (bind(listener, (struct sockaddr *)&address, sizeof address) || listen(listener, 128)) {
        perror("lean_server");
        return 1;
    }
    for (int i = 0; i < threads; i++) {
        pthread_t thread;
        if (pthread_create(&thread, NULL, serve, NULL)) {
            fprintf(stderr, "lean_server: cannot start a thread\n");
            return 1;
        }
    }
    pause();
    return 0;
}

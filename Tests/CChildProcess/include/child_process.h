#ifndef WEBIMAGE_CHILD_PROCESS_H
#define WEBIMAGE_CHILD_PROCESS_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (NULL: this process's environment) in `directory`
/// (NULL: this process's), its standard input, output and error on `input`, `output` and
/// `error` (-1: this process's), and no other file descriptor of this process open.
/// Returns 0 and sets `pid`, or an errno value.
int webimage_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
                   const char *directory, int input, int output, int error);

#endif

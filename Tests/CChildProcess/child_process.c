// Starting child processes for the tests with posix_spawn, closing every descriptor above
// the standard three in the child (glibc's closefrom action). Foundation's Process on
// Linux finds the highest open descriptor by copying whole `struct dirent` names out of
// readdir's buffer, which reads past its end and crashes now and then in a process with
// many descriptors open, as a test process is.
#define _GNU_SOURCE 1
#include "child_process.h"

#include <spawn.h>
#include <unistd.h>

extern char **environ;

int webimage_spawn(pid_t *pid, const char *path, char *const argv[], char *const envp[],
                   const char *directory, int input, int output, int error) {
    posix_spawn_file_actions_t actions;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    const int sources[3] = {input, output, error};
    for (int target = 0; target < 3 && result == 0; target++) {
        if (sources[target] >= 0) result = posix_spawn_file_actions_adddup2(&actions, sources[target], target);
    }
    if (result == 0 && directory != NULL) result = posix_spawn_file_actions_addchdir_np(&actions, directory);
    if (result == 0) result = posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    if (result == 0) result = posix_spawn(pid, path, &actions, NULL, argv, envp != NULL ? envp : environ);
    posix_spawn_file_actions_destroy(&actions);
    return result;
}

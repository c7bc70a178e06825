/* measure.c — runs a command and reports its CPU time and peak RSS.
 *
 *   measure COMMAND [ARG...]
 *
 * The command's stdout passes through; then one line {"cpu_seconds": C, "peak_rss_kib": R}
 * follows. Why not wait4() from the Python orchestrator directly: a process forked from
 * Python starts with Python's resident pages, and Linux carries that high-water mark across
 * exec into ru_maxrss, so every client would report at least the orchestrator's RSS. Forked
 * from this small program, a client's peak RSS is its own.
 */
#define _DEFAULT_SOURCE   /* wait4 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s COMMAND [ARG...]\n", argv[0]);
        return 2;
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        execvp(argv[1], argv + 1);
        perror(argv[1]);
        _exit(127);
    }
    int status;
    struct rusage usage;
    if (wait4(pid, &status, 0, &usage) != pid) return 1;
    double cpu = (double)usage.ru_utime.tv_sec + usage.ru_utime.tv_usec / 1e6 +
                 (double)usage.ru_stime.tv_sec + usage.ru_stime.tv_usec / 1e6;
    printf("{\"cpu_seconds\": %.6f, \"peak_rss_kib\": %ld}\n", cpu, usage.ru_maxrss);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

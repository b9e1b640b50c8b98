/*
 * measure USAGE CMD ARGS...: run CMD (its standard streams are this program's), wait for
 * it, and write "user_s sys_s maxrss_kb status" of that child alone to the file USAGE.
 *
 * benchmarks/bench_floor.py starts every child through this small process: the peak RSS
 * that wait4 reports for a child includes the memory of the process it was forked from
 * (Linux keeps the old image's high-water mark at exec), which for a Python harness is
 * tens of MB; forked from here, it is the child's own.  SIGTERM here kills the child
 * (SIGKILL) and still writes its usage: the harness stops a run that way when the run has
 * printed what it waited for.
 *
 * Build: cc -O2 -o measure measure.c
 */
#define _DEFAULT_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile pid_t child = 0;

static void forward(int sig) {
    (void)sig;
    if (child > 0) kill(child, SIGKILL);
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: measure USAGE CMD ARGS...\n");
        return 2;
    }
    struct sigaction sa = {0};
    sa.sa_handler = forward;
    sigaction(SIGTERM, &sa, NULL);
    child = fork();
    if (child < 0) {
        perror("measure: fork");
        return 2;
    }
    if (child == 0) {
        signal(SIGTERM, SIG_DFL);
        execvp(argv[2], argv + 2);
        perror("measure: exec");
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("measure: wait4");
            return 2;
        }
    }
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        perror("measure: usage file");
        return 2;
    }
    fprintf(f, "%ld.%06ld %ld.%06ld %ld %d\n", (long)usage.ru_utime.tv_sec,
            (long)usage.ru_utime.tv_usec, (long)usage.ru_stime.tv_sec,
            (long)usage.ru_stime.tv_usec, usage.ru_maxrss, status);
    fclose(f);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
}

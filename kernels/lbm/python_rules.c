/* host=python (seed 000's Table 16): when the Python host (host.py) can run
 * a config, and which Python runs it. The Python host drives one schedule,
 * `final`'s, so every knob the host decides must be final's; the knobs the
 * kernel alone reads travel as the same -D options either way. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "lbm.h"

/* The knobs host.py implements one value of: the schedule of `final`. */
static const struct {
    const char *knob, *value;
} python_schedule[] = {
    {"kernels", "fused-accel"}, {"reduction", "deferred"}, {"layout", "soa-3d"}, {"args", "packed"},
    {"sync", "in-order"},       {"bind", "each"},          {"launch", "stream"}, {"persistent", "off"},
    {"temporal", "1"},          {"overlap", "off"},        {"work", "full"},
};

/* Runs `python -c CODE`, its stdout and stderr into out (the last line it
 * printed: a traceback's says why), or why it could not start. Returns its
 * exit status, -1 when it did not run. Without a shell: the path is the
 * user's text. An exec that fails sends its errno back through a pipe that
 * a successful exec closes (the child of a threaded process may only make
 * async-signal-safe calls: no stdio, no strerror there). */
static int python_line(const char *python, const char *code, char *out, size_t n) {
    int fd[2], ex[2];
    out[0] = 0;
    if (pipe(fd)) return err_set(out, n, "pipe: %s", strerror(errno)), -1;
    if (pipe2(ex, O_CLOEXEC)) {
        close(fd[0]);
        close(fd[1]);
        return err_set(out, n, "pipe: %s", strerror(errno)), -1;
    }
    fflush(NULL);
    const pid_t pid = fork();
    if (pid == 0) {
        dup2(fd[1], 1);
        dup2(fd[1], 2);
        close(fd[0]);
        close(fd[1]);
        close(ex[0]);
        execlp(python, python, "-c", code, (char *)NULL);
        const int e = errno;
        if (write(ex[1], &e, sizeof e) != (ssize_t)sizeof e) _exit(126);
        _exit(127);
    }
    close(fd[1]);
    close(ex[1]);
    if (pid < 0) {
        close(fd[0]);
        close(ex[0]);
        return err_set(out, n, "fork: %s", strerror(errno)), -1;
    }
    FILE *f = fdopen(fd[0], "r");
    char line[512] = "", last[512] = "";
    while (f && fgets(line, sizeof line, f))
        if (line[0] != '\n') str_copy(last, sizeof last, line);
    if (f) fclose(f);
    else close(fd[0]);
    int exec_errno = 0;
    const ssize_t got = read(ex[0], &exec_errno, sizeof exec_errno);
    close(ex[0]);
    int st = 0;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
    }
    if (got == (ssize_t)sizeof exec_errno) return err_set(out, n, "cannot be run: %s", strerror(exec_errno)), -1;
    last[strcspn(last, "\n")] = 0;
    str_copy(out, n, last);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Which Python has pyopencl and numpy: HARNESS_PYTHON alone when set, else
 * python3 on the PATH, then Debian's (a pyenv or venv python3 on the PATH
 * often lacks the Debian package python3-pyopencl). Probed once a process:
 * the import takes a few hundred milliseconds. */
const char *lbm_python_find(char *why, size_t whyn) {
    static int probed;
    static char found[1024], reason[1024];
    if (!probed) {
        probed = 1;
        const char *env = getenv("HARNESS_PYTHON");
        const char *candidates[] = {env && env[0] ? env : "python3", env && env[0] ? NULL : "/usr/bin/python3"};
        struct strbuf tried = {0};
        for (int i = 0; i < 2 && candidates[i] && !found[0]; i++) {
            char line[512];
            const int rc = python_line(candidates[i], "import numpy, pyopencl; print('ok')", line, sizeof line);
            if (rc == 0 && !strcmp(line, "ok")) str_copy(found, sizeof found, candidates[i]);
            else sb_printf(&tried, "%s%s: %s", tried.s ? "; " : "", candidates[i], line[0] ? line : "failed");
        }
        if (!found[0])
            snprintf(reason, sizeof reason, "host=python needs a Python with pyopencl and numpy (%s)%s",
                     tried.s ? tried.s : "", env && env[0] ? "" : "; HARNESS_PYTHON names another");
        sb_free(&tried);
    }
    if (!found[0]) str_copy(why, whyn, reason);
    return found[0] ? found : NULL;
}

const char *lbm_python_invalid(const struct knob_set *k, const struct device_info *dev, char *why, size_t n) {
    if (!knob_is(k, "host", "python")) return NULL;
    for (size_t i = 0; i < sizeof python_schedule / sizeof python_schedule[0]; i++)
        if (!knob_is(k, python_schedule[i].knob, python_schedule[i].value)) {
            snprintf(why, n,
                     "host=python drives final's schedule only (kernels=fused-accel reduction=deferred "
                     "layout=soa-3d args=packed sync=in-order bind=each launch=stream persistent=off "
                     "temporal=1 overlap=off work=full); %s=%s is the C host's",
                     python_schedule[i].knob, knob_get(k, python_schedule[i].knob));
            return why;
        }
    if (!dev->caps.icd_device)
        return "host=python opens the device through pyopencl, an OpenCL ICD loader's platform and "
               "device: this device is not one";
    /* Last: the probe costs a process, and only a config valid otherwise needs it. */
    return lbm_python_find(why, n) ? NULL : why;
}

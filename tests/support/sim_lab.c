/*  sim_lab.c - several simulators, runtime directories, namespaces. */
#include "sim_lab.h"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *
sim_lab_exe (void)
{
    return SSL_SIM_BIN;
}

int
sim_lab_enter_netns (const char *name)
{
    char path[256];
    snprintf (path, sizeof path, "/run/netns/%s", name);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = setns (fd, CLONE_NEWNET);
    close (fd);
    return rc;
}

pid_t
sim_lab_spawn (const char *const *args, const char *runtime_dir, const char *log, const char *netns)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = SSL_SIM_BIN;
    for (int i = 0; args[i] && n < 63; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    pid_t pid = fork ();
    if (pid != 0)
        return pid;
    int out = open (log, O_WRONLY | O_CREAT | O_APPEND, 0600);
    if (out >= 0) {
        dup2 (out, STDOUT_FILENO);
        dup2 (out, STDERR_FILENO);
    }
    if (netns && sim_lab_enter_netns (netns)) {
        fprintf (stderr, "cannot enter network namespace %s\n", netns);
        _exit (126);
    }
    setenv ("XDG_RUNTIME_DIR", runtime_dir, 1);
    execv (SSL_SIM_BIN, (char **) argv);
    _exit (127);
}

int
sim_lab_stop (pid_t pid)
{
    if (pid <= 0)
        return -1;
    kill (pid, SIGTERM);
    int status = 0;
    for (int i = 0; i < 500; i++) {
        if (waitpid (pid, &status, WNOHANG) == pid)
            return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
        poll (NULL, 0, 10);
    }
    kill (pid, SIGKILL);
    waitpid (pid, &status, 0);
    return -1;
}

int
sim_lab_service_pid (const char *runtime_dir, int port_offset, const char *name)
{
    char path[512];
    if (port_offset)
        snprintf (path, sizeof path, "%s/ssl-sim/%d/%s.pid", runtime_dir, port_offset, name);
    else
        snprintf (path, sizeof path, "%s/ssl-sim/%s.pid", runtime_dir, name);
    FILE *f = fopen (path, "r");
    if (!f)
        return 0;
    int pid = 0;
    if (fscanf (f, "%d", &pid) != 1)
        pid = 0;
    fclose (f);
    return pid > 0 && kill (pid, 0) == 0 ? pid : 0;
}

int
sim_lab_wait_service (const char *runtime_dir, int port_offset, const char *name, int ms)
{
    for (int waited = 0; waited <= ms; waited += 20) {
        int pid = sim_lab_service_pid (runtime_dir, port_offset, name);
        if (pid)
            return pid;
        poll (NULL, 0, 20);
    }
    return 0;
}

int
sim_lab_sh (const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (cmd, sizeof cmd, fmt, ap);
    va_end (ap);
    int status = system (cmd);
    return status != -1 && WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

void
sim_lab_dump (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return;
    char line[1024];
    fprintf (stderr, "---- %s ----\n", path);
    while (fgets (line, sizeof line, f))
        fputs (line, stderr);
    fclose (f);
}

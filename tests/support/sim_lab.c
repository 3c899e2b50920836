/*  sim_lab.c - simulator processes, runtime directories, namespaces, and
    the bounded waits on them. */
#include "sim_lab.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "sim_test.h"

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
    /* a test that fails an assertion exits without sim_lab_stop: the
       simulator must not outlive it (fast mode would spin forever) */
    prctl (PR_SET_PDEATHSIG, SIGTERM);
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
sim_lab_wait_end (pid_t pid, int ms)
{
    int status = 0;
    if (sim_lab_wait_exit (pid, ms) == 0 && waitpid (pid, &status, 0) == pid)
        return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
    kill (pid, SIGKILL);
    waitpid (pid, &status, 0);
    return -1;
}

int
sim_lab_stop (pid_t pid)
{
    if (pid <= 0)
        return -1;
    kill (pid, SIGTERM);
    return sim_lab_wait_end (pid, 5000);
}

/* The deepest directory on the way from `dir` to `path`'s directory that
   exists (the launcher creates RUNTIME_DIR/ssl-sim[/OFFSET] when it starts),
   so a watch there sees the next step appear. */
static void
s_existing_dir (const char *path, char *out, size_t cap)
{
    snprintf (out, cap, "%s", path);
    char *slash;
    struct stat st;
    while ((slash = strrchr (out, '/')) && slash != out) {
        *slash = '\0';
        if (stat (out, &st) == 0 && S_ISDIR (st.st_mode))
            return;
    }
    snprintf (out, cap, "/");
}

/* Wait until ready (path, arg) holds, at most ms: checked at once and again
   each time something changes in the directory of `path` (or, while that
   does not exist yet, in its nearest existing parent). Returns 0 or -1. */
static int
s_wait_path (const char *path, bool (*ready) (const char *path, void *arg), void *arg, int ms)
{
    int in = inotify_init1 (IN_CLOEXEC | IN_NONBLOCK);
    if (in < 0)
        return ready (path, arg) ? 0 : -1;
    int64_t end = sim_test_now_ms () + ms;
    char watched[PATH_MAX] = "";
    int wd = -1;
    int rc = -1;
    while (true) {
        char dir[PATH_MAX];
        s_existing_dir (path, dir, sizeof dir);
        if (strcmp (dir, watched) != 0) {
            if (wd >= 0)
                inotify_rm_watch (in, wd);
            /* watch first, then look: a change in between still wakes us */
            /* IN_MODIFY: a log that grows (sim_lab_wait_text) */
            wd =
                inotify_add_watch (in, dir, IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MODIFY);
            snprintf (watched, sizeof watched, "%s", dir);
        }
        if (ready (path, arg)) {
            rc = 0;
            break;
        }
        int64_t left = end - sim_test_now_ms ();
        if (left <= 0)
            break;
        /* without a watch (a directory we may not read) look every 10 ms */
        struct pollfd p = { in, POLLIN, 0 };
        if (poll (&p, 1, wd < 0 && left > 10 ? 10 : (int) left) < 0 && errno != EINTR)
            break;
        char events[4096];
        while (read (in, events, sizeof events) > 0)
            ;
    }
    close (in);
    return rc;
}

typedef struct {
    int not_pid, pid;
} s_service_wait_t;

static bool
s_service_ready (const char *path, void *arg)
{
    s_service_wait_t *w = arg;
    FILE *f = fopen (path, "r");
    int pid = 0;
    if (f) {
        if (fscanf (f, "%d", &pid) != 1)
            pid = 0;
        fclose (f);
    }
    w->pid = pid > 0 && pid != w->not_pid && kill (pid, 0) == 0 ? pid : 0;
    return w->pid > 0;
}

static void
s_pid_path (const char *runtime_dir, int port_offset, const char *name, char *path, size_t cap)
{
    if (port_offset)
        snprintf (path, cap, "%s/ssl-sim/%d/%s.pid", runtime_dir, port_offset, name);
    else
        snprintf (path, cap, "%s/ssl-sim/%s.pid", runtime_dir, name);
}

int
sim_lab_service_pid (const char *runtime_dir, int port_offset, const char *name)
{
    char path[PATH_MAX];
    s_pid_path (runtime_dir, port_offset, name, path, sizeof path);
    s_service_wait_t w = { 0, 0 };
    s_service_ready (path, &w);
    return w.pid;
}

int
sim_lab_wait_service (const char *runtime_dir, int port_offset, const char *name, int not_pid, int ms)
{
    char path[PATH_MAX];
    s_pid_path (runtime_dir, port_offset, name, path, sizeof path);
    s_service_wait_t w = { not_pid, 0 };
    return s_wait_path (path, s_service_ready, &w, ms) == 0 ? w.pid : 0;
}

static bool
s_file_ready (const char *path, void *arg)
{
    (void) arg;
    return access (path, F_OK) == 0;
}

int
sim_lab_wait_file (const char *path, int ms)
{
    return s_wait_path (path, s_file_ready, NULL, ms);
}

static bool
s_text_ready (const char *path, void *arg)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return false;
    /* a log of a short test run: read whole, searched once per change */
    char *text = NULL;
    size_t cap = 0;
    ssize_t n = getdelim (&text, &cap, '\0', f);
    fclose (f);
    bool found = n > 0 && strstr (text, (const char *) arg);
    free (text);
    return found;
}

int
sim_lab_wait_text (const char *path, const char *text, int ms)
{
    return s_wait_path (path, s_text_ready, (void *) text, ms);
}

int
sim_lab_wait_exit (pid_t pid, int ms)
{
    int fd = (int) syscall (SYS_pidfd_open, pid, 0);
    if (fd < 0)
        return errno == ESRCH ? 0 : -1;
    /* a pidfd turns readable when the process has exited */
    struct pollfd p = { fd, POLLIN, 0 };
    int n;
    int64_t end = sim_test_now_ms () + ms;
    do
        n = poll (&p, 1, (int) (end - sim_test_now_ms () > 0 ? end - sim_test_now_ms () : 0));
    while (n < 0 && errno == EINTR);
    close (fd);
    return n > 0 ? 0 : -1;
}

/* Whether every thread of pid is in state T (stopped). */
static bool
s_all_stopped (pid_t pid)
{
    char path[64];
    snprintf (path, sizeof path, "/proc/%d/task", (int) pid);
    DIR *dir = opendir (path);
    if (!dir)
        return false;
    bool all = true;
    struct dirent *e;
    while (all && (e = readdir (dir))) {
        if (e->d_name[0] == '.')
            continue;
        char stat[384], text[256] = "";
        snprintf (stat, sizeof stat, "%s/%s/stat", path, e->d_name);
        FILE *f = fopen (stat, "r");
        if (f) {
            if (!fgets (text, sizeof text, f))
                text[0] = '\0';
            fclose (f);
        }
        /* the state follows the command name, which may hold spaces */
        const char *close_paren = strrchr (text, ')');
        all = close_paren && close_paren[1] == ' ' && close_paren[2] == 'T';
    }
    closedir (dir);
    return all;
}

int
sim_lab_wait_stopped (pid_t pid, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    while (!s_all_stopped (pid)) {
        if (sim_test_now_ms () >= end)
            return -1;
        poll (NULL, 0, 1);
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

int
sim_lab_capture (char *out, size_t cap, const char *fmt, ...)
{
    char cmd[2048];
    va_list ap;
    va_start (ap, fmt);
    vsnprintf (cmd, sizeof cmd, fmt, ap);
    va_end (ap);
    out[0] = '\0';
    FILE *p = popen (cmd, "r");
    if (!p)
        return -1;
    size_t n = fread (out, 1, cap - 1, p);
    out[n] = '\0';
    int status = pclose (p);
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

int
sim_lab_netns_add_first (const char *name, char *why, size_t len)
{
    if (geteuid () != 0) {
        snprintf (why, len, "needs root for ip netns");
        return -1;
    }
    if (sim_lab_sh ("command -v ip >/dev/null") != 0) {
        snprintf (why, len, "the ip command (iproute2) is not installed");
        return -1;
    }
    if (sim_lab_sh ("ip netns add %s", name) != 0) {
        snprintf (why, len, "network namespaces are not allowed here (ip netns add failed)");
        return -1;
    }
    /* ip -n enters the namespace with a mount namespace of its own, which
       fails where / is no mount point (a plain chroot) */
    if (sim_lab_sh ("ip -n %s link set lo up", name) != 0) {
        sim_lab_sh ("ip netns del %s", name);
        snprintf (why, len, "network namespaces cannot be entered here (ip -n %s failed)", name);
        return -1;
    }
    return 0;
}

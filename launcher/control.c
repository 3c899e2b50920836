/*  control.c - the pid files of service processes, the run lock, and
    finding the runtime directory a running simulator uses; `ssl-sim
    status` is in status.c and `ssl-sim restart` in restart.c. */
#include "control.h"
#include "control_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "services.h"
#include "common/bus/sim_bus.h"
#include "common/base/sim_log.h"

#define S_LOCK_SERVICES "services" /* run.lock's second line: the services the run starts */

/* Service `name`'s pid file in runtime directory `dir`; 0, or -1 when
   it does not fit. */
static int
s_pidfile_in (const char *dir, const char *name, char *path, size_t len)
{
    int n = snprintf (path, len, "%s/%s.pid", dir, name);
    return n > 0 && (size_t) n < len ? 0 : -1;
}

int
ctl_pidfile_path (const sim_config_t *cfg, const char *name, char *path, size_t len)
{
    char dir[SIM_STRING_MAX];
    if (sim_bus_runtime_dir_find (cfg, dir, sizeof dir) != 0)
        return -1;
    return s_pidfile_in (dir, name, path, len);
}

void
launch_pidfile_write (const sim_config_t *cfg, const char *name, const char *by, char *path, size_t len)
{
    /* the writer makes the directory (ctl_pidfile_path only finds it) */
    char dir[SIM_STRING_MAX];
    if (sim_bus_runtime_dir (cfg, dir, sizeof dir) || s_pidfile_in (dir, name, path, len)) {
        *path = '\0';
        return;
    }
    if (!by)
        by = getenv ("SSL_SIM_SUPERVISED") ? "launcher" : getenv ("INVOCATION_ID") ? "systemd" : "none";
    char tmp[SIM_STRING_MAX + 16];
    snprintf (tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen (tmp, "w");
    /* written whole, then renamed: a reader never sees half a file */
    if (!f || fprintf (f, "%d %s\n", (int) getpid (), by) < 0 || fclose (f) || rename (tmp, path)) {
        sim_warn ("cannot write %s: %s", path, strerror (errno));
        *path = '\0';
    }
}

static int
s_pidfile_read (const char *path, int *pid, char *by, size_t by_len)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    char word[32] = "";
    int n = fscanf (f, "%d %31s", pid, word);
    fclose (f);
    if (n < 1 || *pid <= 0)
        return -1;
    snprintf (by, by_len, "%s", n == 2 ? word : "none");
    return 0;
}

void
launch_pidfile_remove (const char *path)
{
    int pid = 0;
    char by[32];
    if (*path && s_pidfile_read (path, &pid, by, sizeof by) == 0 && pid == (int) getpid ())
        unlink (path);
}

/* Whether `pid` runs service NAME: an `ssl-sim service NAME` process, or
   an `ssl-sim run --single-process` one, which runs them all (a stale pid
   file may name a recycled pid). */
bool
ctl_is_service (int pid, const char *name)
{
    char path[64], buf[4096];
    snprintf (path, sizeof path, "/proc/%d/cmdline", pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return false;
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[n] = '\0';
    bool saw_service = false, saw_run = false;
    for (size_t i = 0; i < n; i += strlen (buf + i) + 1) {
        if (saw_service)
            return strcmp (buf + i, name) == 0;
        if (saw_run && strcmp (buf + i, "--single-process") == 0)
            return true;
        saw_service = !saw_run && strcmp (buf + i, "service") == 0;
        saw_run = saw_run || (i > 0 && strcmp (buf + i, "run") == 0);
    }
    return false;
}

void
ctl_proc_sample (ctl_proc_t *p)
{
    char path[64], buf[2048];
    snprintf (path, sizeof path, "/proc/%d/stat", p->pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return;
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[n] = '\0';
    char *rest = strrchr (buf, ')'); /* the command name may hold spaces */
    if (!rest)
        return;
    unsigned long long utime = 0, stime = 0, start = 0;
    /* fields 3.. after the name: state ppid ... utime(14) stime(15) ... starttime(22) */
    if (sscanf (rest + 2,
                "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu", &utime,
                &stime, &start)
        != 3)
        return;
    double hz = (double) sysconf (_SC_CLK_TCK);
    p->cpu_s = (double) (utime + stime) / hz;
    double up = 0;
    f = fopen ("/proc/uptime", "r");
    if (f) {
        if (fscanf (f, "%lf", &up) != 1)
            up = 0;
        fclose (f);
    }
    p->uptime_s = up - (double) start / hz;
    snprintf (path, sizeof path, "/proc/%d/status", p->pid);
    f = fopen (path, "r");
    if (f) {
        char line[256];
        while (fgets (line, sizeof line, f)) {
            unsigned long kb;
            if (sscanf (line, "VmRSS: %lu", &kb) == 1)
                p->rss_mib = (double) kb / 1024.0;
        }
        fclose (f);
    }
}

void
ctl_proc_find (const sim_config_t *cfg, const char *name, ctl_proc_t *p)
{
    memset (p, 0, sizeof *p);
    char path[SIM_STRING_MAX + 16];
    if (ctl_pidfile_path (cfg, name, path, sizeof path)
        || s_pidfile_read (path, &p->pid, p->supervisor, sizeof p->supervisor))
        return;
    p->alive = ctl_is_service (p->pid, name);
    if (p->alive)
        ctl_proc_sample (p);
}

/* Whether directory `dir` holds a pid file of a live service; *denied is
   set when a pid file exists but cannot be read (another user's). */
static bool
s_dir_has_service (const char *dir, bool *denied)
{
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++) {
        char path[SIM_STRING_MAX + 32], by[32];
        int pid = 0;
        snprintf (path, sizeof path, "%s/%s.pid", dir, launch_services[i].name);
        if (s_pidfile_read (path, &pid, by, sizeof by) == 0 && ctl_is_service (pid, launch_services[i].name))
            return true;
        if (errno == EACCES)
            *denied = true;
    }
    if (access (dir, X_OK) != 0 && errno == EACCES)
        *denied = true;
    return false;
}

void
launch_find_runtime (const sim_config_t *cfg)
{
    char mine[SIM_STRING_MAX], units[SIM_STRING_MAX + 32];
    bool denied = false;
    if (sim_bus_runtime_dir_find (cfg, mine, sizeof mine) == 0 && s_dir_has_service (mine, &denied))
        return;
    const char *base = getenv ("SSL_SIM_UNITS_RUNTIME");
    if (!base || !*base)
        base = LAUNCH_UNITS_RUNTIME;
    char base_copy[SIM_STRING_MAX];
    snprintf (base_copy, sizeof base_copy, "%s", base);
    if (cfg->network.port_offset)
        snprintf (units, sizeof units, "%s/ssl-sim/%d", base_copy, cfg->network.port_offset);
    else
        snprintf (units, sizeof units, "%s/ssl-sim", base_copy);
    denied = false;
    if (strcmp (units, mine) != 0 && s_dir_has_service (units, &denied)) {
        setenv ("XDG_RUNTIME_DIR", base_copy, 1);
        sim_debug ("no simulator in %s; the systemd units' one in %s", mine, units);
    } else if (denied)
        fprintf (stderr,
                 "ssl-sim: %s (the systemd units' runtime directory) is not readable by this user: "
                 "ask as its owner (sudo ssl-sim ...)\n",
                 units);
}

int
launch_lock_take (const sim_config_t *cfg)
{
    char dir[SIM_STRING_MAX], path[SIM_STRING_MAX + 16];
    if (sim_bus_runtime_dir (cfg, dir, sizeof dir))
        return -1;
    snprintf (path, sizeof path, "%s/run.lock", dir);
    /* close-on-exec: the services the launcher starts must not hold it
       after the launcher is gone */
    int fd = open (path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) {
        sim_error ("cannot open %s: %s", path, strerror (errno));
        return -1;
    }
    if (flock (fd, LOCK_EX | LOCK_NB) != 0) {
        close (fd);
        return -1;
    }
    /* the holder's pid, for the message of the next one that tries, and
       the services this run starts, for status and restart */
    char text[160];
    int n = snprintf (text, sizeof text, "%d\n%s", (int) getpid (), S_LOCK_SERVICES);
    for (int i = 0; i < LAUNCH_SERVICE_COUNT && n > 0 && (size_t) n < sizeof text; i++)
        if (launch_service_wanted (&launch_services[i], cfg))
            n += snprintf (text + n, sizeof text - (size_t) n, " %s", launch_services[i].name);
    if (n > 0 && (size_t) n < sizeof text - 1)
        text[n++] = '\n';
    if (n <= 0 || (size_t) n >= sizeof text || ftruncate (fd, 0) != 0
        || pwrite (fd, text, (size_t) n, 0) != n)
        sim_warn ("cannot write %s: %s", path, strerror (errno));
    return fd;
}

int
launch_lock_holder (const sim_config_t *cfg)
{
    char dir[SIM_STRING_MAX], path[SIM_STRING_MAX + 16];
    if (sim_bus_runtime_dir_find (cfg, dir, sizeof dir) != 0)
        return 0;
    snprintf (path, sizeof path, "%s/run.lock", dir);
    FILE *f = fopen (path, "r");
    int pid = 0;
    if (f) {
        if (fscanf (f, "%d", &pid) != 1)
            pid = 0;
        fclose (f);
    }
    return pid;
}

/* launch_services_started from the run.lock: 0, or -1 when no run
   holds it or it does not say. */
static int
s_lock_services (const sim_config_t *cfg, bool started[LAUNCH_SERVICE_COUNT])
{
    char dir[SIM_STRING_MAX], path[SIM_STRING_MAX + 16];
    if (sim_bus_runtime_dir_find (cfg, dir, sizeof dir) != 0)
        return -1;
    snprintf (path, sizeof path, "%s/run.lock", dir);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    /* a lock nobody holds is what a run that ended left behind */
    if (flock (fd, LOCK_SH | LOCK_NB) == 0 || errno != EWOULDBLOCK) {
        close (fd);
        return -1;
    }
    char text[256];
    ssize_t len = pread (fd, text, sizeof text - 1, 0);
    close (fd);
    if (len <= 0)
        return -1;
    text[len] = '\0';
    const char *line = strstr (text, "\n" S_LOCK_SERVICES);
    if (!line)
        return -1; /* a run of a build that did not say */
    line += strlen ("\n" S_LOCK_SERVICES);
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        started[i] = false;
    char word[32];
    int used;
    while (sscanf (line, " %31[^ \n]%n", word, &used) == 1) {
        const launch_service_t *service = launch_service_find (word);
        if (service)
            started[service - launch_services] = true;
        line += used;
    }
    return 0;
}

void
launch_services_started (const sim_config_t *cfg, bool started[LAUNCH_SERVICE_COUNT])
{
    if (s_lock_services (cfg, started) == 0)
        return;
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++)
        started[i] = launch_service_wanted (&launch_services[i], cfg);
}

int
launch_running_elsewhere (const sim_config_t *cfg, const char *only, const char **name)
{
    for (int i = 0; i < LAUNCH_SERVICE_COUNT; i++) {
        if (only && strcmp (only, launch_services[i].name) != 0)
            continue;
        char path[SIM_STRING_MAX + 16];
        int pid = 0;
        char by[32];
        if (ctl_pidfile_path (cfg, launch_services[i].name, path, sizeof path)
            || s_pidfile_read (path, &pid, by, sizeof by) || pid == (int) getpid ())
            continue;
        if (ctl_is_service (pid, launch_services[i].name)) {
            *name = launch_services[i].name;
            return pid;
        }
    }
    return 0;
}

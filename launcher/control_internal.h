/*  control_internal.h - what `ssl-sim status` (status.c) and `ssl-sim
    restart` (restart.c) share with the pid files (control.c): a service
    process as /proc and its pid file show it. */
#ifndef LAUNCH_CONTROL_INTERNAL_H_INCLUDED
#define LAUNCH_CONTROL_INTERNAL_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include "common/config/sim_config.h"

typedef struct {
    int pid;
    char supervisor[32];
    bool alive;
    double cpu_s; /* utime + stime */
    double uptime_s;
    double rss_mib;
} ctl_proc_t;

/* The path of service `name`'s pid file in cfg's runtime directory; 0, or
   -1 when it does not fit or the directory is not there (none is made:
   `status` and `restart` only read) or is refused. */
int ctl_pidfile_path (const sim_config_t *cfg, const char *name, char *path, size_t len);

/* Whether `pid` runs service `name` (a stale pid file may name a
   recycled pid). */
bool ctl_is_service (int pid, const char *name);

/* Fill p's CPU time, uptime and resident size from /proc. */
void ctl_proc_sample (ctl_proc_t *p);

/* Service `name` as its pid file and /proc show it (p->alive false when
   none runs). */
void ctl_proc_find (const sim_config_t *cfg, const char *name, ctl_proc_t *p);

#endif

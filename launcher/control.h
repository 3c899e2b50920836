/*  control.h - operating a running simulator from another shell:
    `ssl-sim status` and `ssl-sim restart NAME`, and the pid files they read.

    Every `ssl-sim service NAME` process writes NAME.pid into the runtime
    directory (the one its options select, so --port-offset N picks the
    right simulator) and removes it when it stops. The file says who
    restarts the process when it exits: the `ssl-sim run` launcher, systemd,
    or nobody. `restart` sends SIGTERM to the service and waits for its
    successor's pid file; `status` reads the pid files and /proc and samples
    the bus for one second to show the rates.
*/
#ifndef LAUNCH_CONTROL_H_INCLUDED
#define LAUNCH_CONTROL_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include "common/bus/sim_service.h"
#include "common/config/sim_config.h"

/* Write this process's pid file for service `name` into the runtime
   directory of `cfg`; its path goes to `path` (empty on failure, which is
   logged and otherwise ignored: a service runs without one). `by` says
   who restarts it ("single" for `run --single-process`); NULL: the
   launcher, systemd or nobody, from the environment. */
void launch_pidfile_write (const sim_config_t *cfg, const char *name, const char *by, char *path, size_t len);

/* Take the runtime directory's run.lock for an `ssl-sim run` (either
   mode): the file descriptor, held until this process ends, or -1 when
   another run holds it (or it cannot be opened, which is logged). */
int launch_lock_take (const sim_config_t *cfg);

/* The pid the run.lock of cfg's runtime directory names (its holder when
   launch_lock_take just failed), or 0. */
int launch_lock_holder (const sim_config_t *cfg);

/* Which services the simulator of cfg's runtime directory started
   (started[] indexed as launch_services): as the run.lock says while a
   run holds it, else as cfg's options want them (services of systemd
   units or started by hand, a run of an earlier build). The run knows,
   where the options of a later `status` may not: a run started with
   --no-viewer leaves the viewer out whatever `status` is told. */
void launch_services_started (const sim_config_t *cfg, bool started[SIM_SERVICE_COUNT]);

/* Remove the pid file at `path` if it still names this process. */
void launch_pidfile_remove (const char *path);

/* Where the systemd units keep their runtime directory
   (RuntimeDirectory=ssl-sim with XDG_RUNTIME_DIR=/run/ssl-sim). */
#define LAUNCH_UNITS_RUNTIME "/run/ssl-sim"

/* For `status` and `restart`: when no service runs in the runtime
   directory cfg selects (XDG_RUNTIME_DIR, or /tmp/ssl-sim-UID) but one
   runs in the systemd units' (SSL_SIM_UNITS_RUNTIME when set, for units
   whose XDG_RUNTIME_DIR was changed, else LAUNCH_UNITS_RUNTIME), point
   this process's
   XDG_RUNTIME_DIR there, so the bus endpoints resolved next are theirs.
   Says on stderr when the units' directory exists but is not readable. */
void launch_find_runtime (const sim_config_t *cfg);

/* `ssl-sim status`: print one line per service. Returns the exit code
   (0 when every wanted service is running, 3 when none is, 4 when
   this tool cannot join the bus: its CURVE certificate refused or not
   loaded; 1 otherwise). */
int launch_status (const sim_config_t *cfg);

/* The pid of another live service process in cfg's runtime directory,
   of service `only` (NULL: any service), its name in *name; or 0. A
   single-process simulator counts as every service it runs. Two
   simulators, or two copies of one service, sharing one directory would
   take each other's sockets and lanes. */
int launch_running_elsewhere (const sim_config_t *cfg, const char *only, const char **name);

/* `ssl-sim restart NAME`: stop the service and wait up to 20 s for its
   supervisor to start a new one. Returns the exit code. */
int launch_restart (const sim_config_t *cfg, const char *name);

#endif

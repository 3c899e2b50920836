/*  sim_lab.h - simulator processes for the system tests: start `ssl-sim`
    with any arguments in a chosen runtime directory and, optionally,
    inside a named network namespace; find a service's pid from its pid
    file; stop what was started; and wait, bounded, for what a test waits
    on (a service's pid file, a file, a process's exit or stop) without
    sleeping: the waits are woken by inotify and pidfds.

    sim_test.h and sim_fixture.h start one simulator with a private runtime
    directory on top of these; tests that need several simulators sharing
    one (port offsets) or services spread over namespaces (hosts) use them
    directly.
*/
#ifndef SIM_LAB_H_INCLUDED
#define SIM_LAB_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Path of the ssl-sim executable under test (static string). */
const char *sim_lab_exe (void);

/* Start `ssl-sim ARGS...` (`args` NULL-terminated) with XDG_RUNTIME_DIR =
   `runtime_dir`, stdout and stderr appended to `log`, inside the network
   namespace /run/netns/NETNS when `netns` is not NULL. The process gets
   SIGTERM when the test that started it ends, so a failed assertion leaves
   no simulator behind. Returns the pid or -1. */
pid_t sim_lab_spawn (const char *const *args, const char *runtime_dir, const char *log, const char *netns);

/* SIGTERM, wait up to 5 s, then SIGKILL. Returns the exit code
   (128 + signal when killed), -1 on error or after SIGKILL. */
int sim_lab_stop (pid_t pid);

/* The pid named in RUNTIME_DIR/ssl-sim[/OFFSET]/NAME.pid (offset 0: no
   subfolder) if that process is alive, else 0. */
int sim_lab_service_pid (const char *runtime_dir, int port_offset, const char *name);

/* Wait up to ms until the pid file of service `name` names a live process
   other than `not_pid` (0: any). Woken by changes in the pid files'
   directory, not by a timer. Returns the pid, or 0. */
int sim_lab_wait_service (const char *runtime_dir, int port_offset, const char *name, int not_pid, int ms);

/* Wait up to ms until a file exists at `path` (woken by changes in its
   directory). Returns 0, or -1 when it did not appear. */
int sim_lab_wait_file (const char *path, int ms);

/* Wait up to ms until the file at `path` (a log) holds `text`, woken by
   changes in its directory. Returns 0, or -1 when it did not. */
int sim_lab_wait_text (const char *path, const char *text, int ms);

/* Wait up to ms until process `pid` (any process, not only a child) has
   exited; a zombie has. Woken by the kernel (a pidfd). Returns 0, or -1. */
int sim_lab_wait_exit (pid_t pid, int ms);

/* Wait up to ms for child `pid` to end by itself (a run with --duration)
   and reap it. Returns its exit code (128 + the signal when one ended
   it), or -1 when it did not end in time: then it is killed and reaped. */
int sim_lab_wait_end (pid_t pid, int ms);

/* Wait up to ms until every thread of process `pid` is stopped (SIGSTOP
   acts asynchronously). The kernel signals no event for another process's
   stop, so this re-reads /proc every millisecond. Returns 0, or -1. */
int sim_lab_wait_stopped (pid_t pid, int ms);

/* Enter the network namespace /run/netns/NAME with the calling thread
   (Criterion runs each test in its own process, so a test may). 0 or -1. */
int sim_lab_enter_netns (const char *name);

/* Make network namespace `name`, the first of a test's lab, with its lo
   up: 0, or -1 with the reason in why[len] (not root, no iproute2,
   namespaces not allowed or not enterable here), for the test to skip
   with. */
int sim_lab_netns_add_first (const char *name, char *why, size_t len);

/* Run a shell command line; returns its exit status (-1 when it did not
   exit normally). Output goes to the test's stderr. */
int sim_lab_sh (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* Run a shell command line with its stdout (add 2>&1 for stderr) read
   into out[cap] (NUL-terminated, cut at cap - 1). Returns its exit status
   (-1 when it did not exit normally or could not run). */
int sim_lab_capture (char *out, size_t cap, const char *fmt, ...) __attribute__ ((format (printf, 3, 4)));

/* Print a file (a service log) to stderr. */
void sim_lab_dump (const char *path);

#endif

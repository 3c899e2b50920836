/*  viewer.c - what the browser viewer costs (issue 12 targets: with no
    page connected <= 0.002 cores in realtime; with one page asking at
    60 Hz <= 0.03 cores), and that a slow page is sent less, not queued.

    Starts a real `ssl-sim run` (four processes, realtime, the default 22
    robots and two cameras) on loopback with a private runtime directory
    and free ports, and reads the viewer process's CPU time (utime + stime
    from /proc/PID/stat) over each phase:
      idle   no page connected;
      60 Hz  one real WebSocket client (civetweb's, tests/support/sim_ws.h)
             that asks for the next "world" on a 60 Hz clock, as a page
             drawing at 60 frames a second does;
      slow   a client that asks twice a second: it must get two worlds a
             second, each the newest state, never a backlog;
      team   a team's program sending a RobotControl for 11 blue robots
             every 1/60 s to the blue port, first with no page (the
             viewer and physics must not pay for the inspector then),
             then with the 60 Hz client (the inspector's commands ride
             in its worlds); physics' CPU is read too.

    usage: viewer [RESULTS_FILE] [--seconds N]
    Writes bench/results/viewer.txt (or RESULTS_FILE) and prints it.
*/
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "bench_args.h"
#include "bench_results.h"
#include "tests/support/sim_lab.h"
#include "tests/support/sim_test.h"
#include "tests/support/sim_ws.h"
#include "ssl_simulation_robot_control.pb-c.h"

static double
s_cpu_s (int pid)
{
    char path[64], buf[2048];
    snprintf (path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[n] = '\0';
    char *rest = strrchr (buf, ')');
    unsigned long long ut = 0, st = 0;
    if (!rest || sscanf (rest + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (double) (ut + st) / (double) sysconf (_SC_CLK_TCK);
}

static double
s_now_s (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

/* A browser's WebSocket sends with TCP_NODELAY and writes a frame at
   once; civetweb's client (sim_ws) writes a frame's header and payload
   apart and leaves Nagle on, so its small "next" waits for the server's
   delayed ACK and the bench would measure civetweb's client, not the
   viewer. sim_ws does not hand out its socket: find the connection to
   the viewer's port among this process's descriptors. Returns how many
   sockets it set. */
static int
s_nodelay_to (int port)
{
    int set = 0;
    for (int fd = 3; fd < 1024; fd++) {
        int type = 0;
        socklen_t len = sizeof type;
        struct sockaddr_in peer;
        socklen_t plen = sizeof peer;
        if (getsockopt (fd, SOL_SOCKET, SO_TYPE, &type, &len) || type != SOCK_STREAM
            || getpeername (fd, (struct sockaddr *) &peer, &plen) || peer.sin_family != AF_INET
            || ntohs (peer.sin_port) != port)
            continue;
        int one = 1;
        set += setsockopt (fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one) == 0;
    }
    return set;
}

typedef struct {
    double cores, worlds_per_s, kib_per_s, wall_s;
    double physics_cores;
    long worlds, asked;
} vb_phase_t;

/* What the phase drives besides a page: a team sending to team_port (0:
   none), and physics' pid to read its CPU (0: not read). */
typedef struct {
    int team_port, team_fd, physics_pid;
} vb_team_t;

/* One RobotControl for blue robots 0..10, each driving slowly forward. */
static void
s_team_send (const vb_team_t *team)
{
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    local.forward = 0.1f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand cmds[11], *ptrs[11];
    for (int i = 0; i < 11; i++) {
        robot_command__init (&cmds[i]);
        cmds[i].id = (uint32_t) i;
        cmds[i].move_command = &move;
        cmds[i].has_dribbler_speed = true;
        cmds[i].dribbler_speed = 100;
        ptrs[i] = &cmds[i];
    }
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 11;
    rc.robot_commands = ptrs;
    sim_test_send (team->team_fd, team->team_port, &rc.base);
    sim_test_drain (team->team_fd); /* the gateway's answers */
}

/* A client that asks for a world every `period` s (0: none connected);
   with team->team_port, a team commanding every 1/60 s besides. */
static int
s_phase (int pid, int port, double period, double seconds, const vb_team_t *team, vb_phase_t *out)
{
    memset (out, 0, sizeof *out);
    sim_ws_t *ws = NULL;
    if (period > 0) {
        ws = sim_ws_connect (port, "/ws");
        if (!ws || s_nodelay_to (port) < 1) {
            sim_ws_destroy (&ws);
            return -1;
        }
        cJSON *hello = sim_ws_wait (ws, "geometry", 10000);
        if (!hello) {
            sim_ws_destroy (&ws);
            return -1;
        }
        cJSON_Delete (hello);
        /* the first world: the viewer is watching the bus from here on */
        sim_ws_send (ws, "{\"op\":\"next\"}");
        cJSON_Delete (sim_ws_wait (ws, "world", 10000));
    }
    double c0 = s_cpu_s (pid), t0 = s_now_s ();
    double p0 = team->physics_pid > 0 ? s_cpu_s (team->physics_pid) : 0;
    long w0 = ws ? sim_ws_count (ws, "world") : 0;
    long long b0 = ws ? sim_ws_bytes (ws) : 0;
    double next = t0;
    while (s_now_s () - t0 < seconds) {
        if (!ws && !team->team_port) {
            usleep (200000); /* a benchmark's pacing: nothing to wait for */
            continue;
        }
        if (!ws) {
            next += 1.0 / 60;
            double wait = next - s_now_s ();
            if (wait > 0)
                usleep ((useconds_t) (wait * 1e6));
            s_team_send (team);
            continue;
        }
        /* the page's clock: ask on every tick, like requestAnimationFrame
           (an ask while one is outstanding changes nothing: the server
           sends one world per ask at most) */
        next += period;
        double wait = next - s_now_s ();
        if (wait > 0)
            usleep ((useconds_t) (wait * 1e6));
        sim_ws_clear (ws);
        sim_ws_send (ws, "{\"op\":\"next\"}");
        out->asked++;
        if (team->team_port)
            s_team_send (team);
    }
    double wall = s_now_s () - t0;
    out->wall_s = wall;
    out->cores = (s_cpu_s (pid) - c0) / wall;
    if (team->physics_pid > 0)
        out->physics_cores = (s_cpu_s (team->physics_pid) - p0) / wall;
    if (ws) {
        out->worlds = sim_ws_count (ws, "world") - w0;
        out->worlds_per_s = (double) out->worlds / wall;
        out->kib_per_s = (double) (sim_ws_bytes (ws) - b0) / 1024.0 / wall;
        sim_ws_destroy (&ws);
    }
    return 0;
}

int
main (int argc, char **argv)
{
    const char *results = "bench/results/viewer.txt";
    double seconds = 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp (argv[i], "--seconds") == 0 && i + 1 < argc)
            seconds = atof (argv[++i]);
        else if (bench_is_option (argv[i]))
            return bench_usage (argv[i], "usage: viewer [RESULTS_FILE] [--seconds S]\n");
        else
            results = argv[i];
    }
    sim_proc_t sim;
    static const char *const args[] = { NULL };
    if (sim_proc_start (&sim, args, NULL)) {
        fprintf (stderr, "viewer bench: ssl-sim did not start\n");
        return 1;
    }
    int pid = sim_lab_wait_service (sim.dir, 0, "viewer", 0, 15000);
    int physics = sim_lab_wait_service (sim.dir, 0, "physics", 0, 15000);
    int rc = 1;
    vb_phase_t idle, fast, slow, team_alone, team_page;
    vb_team_t none = { 0, -1, 0 }, team = { sim.blue_port, sim_test_udp (0), physics };
    if (pid <= 0 || physics <= 0 || team.team_fd < 0)
        fprintf (stderr, "viewer bench: no viewer, no physics or no UDP socket\n");
    else if (s_phase (pid, sim.viewer_port, 0, 3, &none, &idle) == 0 /* warm-up: every service up */
             && s_phase (pid, sim.viewer_port, 0, seconds, &none, &idle) == 0
             && s_phase (pid, sim.viewer_port, 1.0 / 60, seconds, &none, &fast) == 0
             && s_phase (pid, sim.viewer_port, 0.5, seconds / 2, &none, &slow) == 0
             && s_phase (pid, sim.viewer_port, 0, seconds, &team, &team_alone) == 0
             && s_phase (pid, sim.viewer_port, 1.0 / 60, seconds, &team, &team_page) == 0)
        rc = 0;
    if (team.team_fd >= 0)
        close (team.team_fd);
    double load = -1;
    getloadavg (&load, 1);
    sim_proc_stop (&sim);
    if (rc) {
        fprintf (stderr, "viewer bench: a phase failed\n");
        sim_proc_dump_log (&sim);
        return 1;
    }
    char text[4096];
    snprintf (text, sizeof text,
              "viewer: CPU of the viewer process (utime+stime from /proc), ssl-sim run realtime, 22 robots, "
              "2 cameras; load average %.2f at the end\n"
              "idle (no page)          %.4f cores over %.0f s   (target <= 0.002)\n"
              "one page at 60 Hz       %.4f cores over %.0f s   (target <= 0.03); %.1f worlds/s, %.0f KiB/s\n"
              "slow page (2 Hz)        %.4f cores; %ld worlds for %ld asks in %.0f s (coalesced: never more "
              "than asked)\n"
              "team at 60 Hz, no page  %.4f cores (physics %.4f) over %.0f s: 11 blue robots commanded\n"
              "team at 60 Hz, 60 Hz page %.4f cores (physics %.4f); %.1f worlds/s, %.0f KiB/s with the "
              "inspector's commands\n"
              "command: build/bench/viewer [RESULTS_FILE] [--seconds N] (make bench)\n",
              load, idle.cores, idle.wall_s, fast.cores, fast.wall_s, fast.worlds_per_s, fast.kib_per_s,
              slow.cores, slow.worlds, slow.asked + 1, slow.wall_s, team_alone.cores,
              team_alone.physics_cores, team_alone.wall_s, team_page.cores, team_page.physics_cores,
              team_page.worlds_per_s, team_page.kib_per_s);
    fputs (text, stdout);
    if (bench_results_write (results, text))
        fprintf (stderr, "viewer bench: cannot write %s: %s\n", results, strerror (errno));
    bool ok = idle.cores <= 0.002 && fast.cores <= 0.03 && slow.worlds <= slow.asked + 1;
    if (!ok)
        fprintf (stderr, "viewer bench: a target was missed (see above)\n");
    return 0;
}

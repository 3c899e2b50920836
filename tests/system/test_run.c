/*  test_run.c - the walking skeleton end to end: real ssl-sim processes,
    real UDP on loopback. A client teleports a robot on the control port,
    drives it on its team port (or through the legacy grSim port) and sees
    it move in the vision packets, in the four-process and single-process
    layouts. A run that ends by itself leaves no socket file in its
    runtime directory, and one left by a crash does not stop the next.
*/
#include <criterion/criterion.h>
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/support/sim_fixture.h"
#include "tests/support/sim_lab.h"
#include "grSim_Packet.pb-c.h"
#include "grSim_Robotstatus.pb-c.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_simulation_robot_feedback.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

#define START_X -1.0
#define START_Y 0.5

typedef struct {
    bool seen;
    double x, y, orientation; /* m, rad */
    uint32_t camera_id;
} seen_robot_t;

/* Read one vision packet; if it shows blue robot `id`, fill *out. */
static bool
s_read_vision (int fd, uint32_t id, seen_robot_t *out, int timeout_ms)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, timeout_ms);
    if (n <= 0)
        return false;
    SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
    cr_assert_not_null (w, "a vision datagram that is not an SSL_WrapperPacket");
    if (w->detection) {
        for (size_t i = 0; i < w->detection->n_robots_blue; i++) {
            SSLDetectionRobot *r = w->detection->robots_blue[i];
            if (r->has_robot_id && r->robot_id == id) {
                *out = (seen_robot_t) { true, r->x / 1000.0, r->y / 1000.0,
                                        r->has_orientation ? r->orientation : 0, w->detection->camera_id };
            }
        }
    }
    ssl__wrapper_packet__free_unpacked (w, NULL);
    return true;
}

/* Wait until vision shows blue 0 at the teleport target; with `legacy`
   a grSim replacement there is re-sent to the legacy port every 200 ms
   meanwhile (legacy-grsim may not listen yet, and 20011 has no answer to
   wait for). */
static void
s_wait_at_start (int vision, int fd, const sim_proc_t *proc, bool legacy)
{
    int64_t end = sim_test_now_ms () + 10000;
    int64_t next_send = 0;
    seen_robot_t r = { 0 };
    while (sim_test_now_ms () < end) {
        if (legacy && sim_test_now_ms () >= next_send) {
            sim_test_grsim_place (fd, proc->legacy_port, false, 0, START_X, START_Y, 0, -1);
            next_send = sim_test_now_ms () + 200;
        }
        s_read_vision (vision, 0, &r, 20);
        if (r.seen && fabs (r.x - START_X) < 0.01 && fabs (r.y - START_Y) < 0.01)
            return;
    }
    cr_assert_fail ("vision never showed blue 0 at (%.2f, %.2f); last (%.3f, %.3f)", START_X, START_Y, r.x,
                    r.y);
}

typedef void (*drive_fn) (int fd, const sim_proc_t *proc);

static void
s_drive_protocol (int fd, const sim_proc_t *proc)
{
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    local.forward = 1.0f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand rc = ROBOT_COMMAND__INIT;
    rc.id = 0;
    rc.move_command = &move;
    RobotCommand *rcs[] = { &rc };
    RobotControl control = ROBOT_CONTROL__INIT;
    control.n_robot_commands = 1;
    control.robot_commands = rcs;
    sim_test_send (fd, proc->blue_port, &control.base);
}

static void
s_drive_legacy (int fd, const sim_proc_t *proc)
{
    GrSimRobotCommand rc = GR_SIM__ROBOT__COMMAND__INIT;
    rc.id = 0;
    rc.veltangent = 1.0f;
    GrSimRobotCommand *rcs[] = { &rc };
    GrSimCommands cmds = GR_SIM__COMMANDS__INIT;
    cmds.isteamyellow = false;
    cmds.n_robot_commands = 1;
    cmds.robot_commands = rcs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.commands = &cmds;
    sim_test_send (fd, proc->legacy_port, &packet.base);
}

/* Drive forward until vision shows blue 0 at least 0.3 m further along x,
   on its line. */
static void
s_drive_and_watch (int vision, int fd, const sim_proc_t *proc, drive_fn drive)
{
    int64_t end = sim_test_now_ms () + 15000;
    seen_robot_t r = { 0 };
    while (sim_test_now_ms () < end) {
        drive (fd, proc);
        s_read_vision (vision, 0, &r, 1);
        if (r.seen && r.x > START_X + 0.3) {
            cr_expect_lt (fabs (r.y - START_Y), 0.05, "drifted sideways: y = %.3f", r.y);
            cr_expect_lt (fabs (r.orientation), 0.1, "turned: orientation %.3f", r.orientation);
            return;
        }
    }
    cr_assert_fail ("blue 0 did not move forward in vision (last x = %.3f)", r.x);
}

static void
s_scenario (const char *const *args, bool legacy)
{
    sim_fixture_t f;
    cr_assert_eq (sim_fixture_start (&f, args, NULL, SIM_FIXTURE_VISION), 0, "ssl-sim did not come up");
    const sim_proc_t *proc = &f.proc;
    int vision = f.vision, fd = f.fd;
    int status = legacy ? sim_fixture_socket (&f, proc->status_blue_port) : -1;
    cr_assert (!legacy || status >= 0);

    if (!legacy)
        cr_assert_eq (sim_test_teleport_blue0 (fd, proc->control_port, START_X, START_Y, 10000), 1,
                      "no error-free answer to the teleport from the control port");
    s_wait_at_start (vision, fd, proc, legacy);
    s_drive_and_watch (vision, fd, proc, legacy ? s_drive_legacy : s_drive_protocol);

    if (legacy) {
        /* the grSim client gets Robots_Status on its status port; the
           first message lists every robot, later ones only changes */
        bool got = false;
        int64_t end = sim_test_now_ms () + 5000;
        while (!got && sim_test_now_ms () < end) {
            s_drive_legacy (fd, proc); /* keeps us the legacy peer */
            uint8_t buf[65536];
            ssize_t n = sim_test_recv (status, buf, sizeof buf, 20);
            if (n > 0) {
                RobotsStatus *st = robots__status__unpack (NULL, (size_t) n, buf);
                cr_assert_not_null (st);
                for (size_t i = 0; i < st->n_robots_status; i++)
                    got |= st->robots_status[i]->robot_id == 0;
                robots__status__free_unpacked (st, NULL);
            }
        }
        cr_expect (got, "no Robots_Status on the blue status port");
    } else {
        /* the team port answers each RobotControl to its source; the
           answers to the drive above (one a millisecond, unread, some of
           them BUSY on a loaded machine) are read away first, so what is
           judged is the answer to a fresh command */
        uint8_t buf[65536];
        while (sim_test_recv (fd, buf, sizeof buf, 50) > 0)
            ;
        bool answered = false;
        int64_t end = sim_test_now_ms () + 10000;
        while (!answered && sim_test_now_ms () < end) {
            s_drive_protocol (fd, proc);
            ssize_t n = sim_test_recv (fd, buf, sizeof buf, 200);
            if (n > 0) {
                RobotControlResponse *resp = robot_control_response__unpack (NULL, (size_t) n, buf);
                cr_assert_not_null (resp);
                answered = resp->n_feedback == 1 && resp->feedback[0]->id == 0 && resp->n_errors == 0;
                robot_control_response__free_unpacked (resp, NULL);
            }
        }
        cr_expect (answered, "no RobotControlResponse with feedback for robot 0");
    }
    cr_expect_eq (sim_fixture_stop (&f), 0, "ssl-sim did not stop cleanly on SIGTERM");
}

Test (run, four_processes_teleport_and_drive, .timeout = 60)
{
    const char *args[] = { "--mode", "fast", "--realism", "none", NULL };
    s_scenario (args, false);
}

Test (run, single_process_teleport_and_drive, .timeout = 60)
{
    const char *args[] = { "--single-process", "--mode", "fast", "--realism", "none", NULL };
    s_scenario (args, false);
}

Test (run, legacy_grsim_replace_and_drive, .timeout = 60)
{
    const char *args[] = { "--mode", "fast", "--realism", "none", NULL };
    s_scenario (args, true);
}

/* The socket files in the runtime directory `dir` (names into
   names[cap], space-separated); how many. */
static int
s_socket_files (const char *dir, char *names, size_t cap)
{
    DIR *d = opendir (dir);
    cr_assert_not_null (d, "no runtime directory %s", dir);
    int count = 0;
    size_t at = 0;
    names[0] = '\0';
    struct dirent *e;
    while ((e = readdir (d))) {
        char path[600];
        snprintf (path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat (path, &st) == 0 && S_ISSOCK (st.st_mode)) {
            count++;
            if (at < cap)
                at += (size_t) snprintf (names + at, cap - at, "%s ", e->d_name);
        }
    }
    closedir (d);
    return count;
}

/* What a crashed service leaves: a socket file nobody listens on. */
static void
s_stale_socket (const char *path)
{
    int fd = socket (AF_UNIX, SOCK_STREAM, 0);
    cr_assert_geq (fd, 0);
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    cr_assert_lt (strlen (path), sizeof a.sun_path, "%s", path);
    memcpy (a.sun_path, path, strlen (path) + 1);
    cr_assert_eq (bind (fd, (struct sockaddr *) &a, sizeof a), 0, "%s", path);
    close (fd);
}

/* Wait until ssl-sim `pid` (our child) ends by itself; its exit status. */
static int
s_wait_end (pid_t pid, const char *log)
{
    if (sim_lab_wait_exit (pid, 30000) != 0) {
        sim_lab_dump (log);
        sim_lab_stop (pid);
        cr_assert_fail ("ssl-sim run --duration 2 did not end by itself");
    }
    int status = -1;
    cr_assert_eq (waitpid (pid, &status, 0), pid);
    if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        sim_lab_dump (log);
    return WIFEXITED (status) ? WEXITSTATUS (status) : -1;
}

/* `ssl-sim run --duration 2` runs, ends by itself, and every service has
   removed the socket files it bound (ipc endpoints and lanes) from the
   runtime directory (docs/operations.md "The runtime directory"). Then
   the same run starts among the files a crash leaves (each of those
   socket files, nobody listening), which must not keep it from starting,
   and ends as clean. The fixture's free loopback ports keep these runs
   apart from parallel tests; they do not bear on the runtime directory,
   which is the default one under XDG_RUNTIME_DIR. */
Test (run, a_clean_stop_leaves_no_socket_files, .timeout = 90)
{
    sim_proc_t proc;
    const char *args[] = { "--duration", "2", NULL };
    cr_assert_eq (sim_proc_start (&proc, args, NULL), 0, "ssl-sim did not start");
    char rt[300], path[400], seen[512], names[512];
    snprintf (rt, sizeof rt, "%s/ssl-sim", proc.dir);
    snprintf (path, sizeof path, "%s/frames.sock", rt);
    /* while it runs, its endpoints are there (so the check below can fail) */
    cr_expect_gt (sim_lab_wait_service (proc.dir, 0, "vision", 0, 10000), 0, "vision did not start");
    cr_expect_eq (sim_lab_wait_file (path, 10000), 0, "vision never bound %s", path);
    int running = s_socket_files (rt, seen, sizeof seen);
    cr_expect_gt (running, 0);
    int code = s_wait_end (proc.pid, proc.log);
    proc.pid = 0;
    cr_expect_eq (code, 0);
    cr_expect_eq (s_socket_files (rt, names, sizeof names), 0,
                  "socket files left in %s after a clean stop: %s", rt, names);

    /* what a crash leaves: the same files, nobody listening */
    for (char *name = strtok (seen, " "); name; name = strtok (NULL, " ")) {
        snprintf (path, sizeof path, "%s/%s", rt, name);
        s_stale_socket (path);
    }
    cr_expect_eq (s_socket_files (rt, names, sizeof names), running);
    char ini[320], vision[64];
    snprintf (ini, sizeof ini, "%s/test.ini", proc.dir);
    snprintf (vision, sizeof vision, "224.5.23.2:%d", proc.vision_port);
    const char *again[] = { "run",         "--duration",    "2",    "--config", ini,
                            "--localhost", "--vision-addr", vision, NULL };
    pid_t pid = sim_lab_spawn (again, proc.dir, proc.log, NULL);
    cr_assert_gt (pid, 0);
    cr_expect_gt (sim_lab_wait_service (proc.dir, 0, "vision", 0, 10000), 0, "vision did not start again");
    cr_expect_eq (s_wait_end (pid, proc.log), 0, "a run among a crash's socket files");
    cr_expect_eq (s_socket_files (rt, names, sizeof names), 0,
                  "socket files left in %s after a clean stop: %s", rt, names);
    sim_proc_cleanup (&proc);
}

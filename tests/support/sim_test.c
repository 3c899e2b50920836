/*  sim_test.c - system test helpers: simulator processes and UDP clients. */
#include "sim_test.h"

#include <arpa/inet.h>
#include <assert.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/base/sim_field.h"
#include "common/config/config.h"
#include "grSim_Packet.pb-c.h"
#include "sim_lab.h"
#include "sim_msg.h"
#include "ssl_simulation_control.pb-c.h"
#include "ssl_vision_wrapper_tracked.pb-c.h"
#include "ssl_simulation_synchronous.pb-c.h"
#include "ssl_vision_detection.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

int64_t
sim_test_now_ms (void)
{
    struct timespec ts;
    clock_gettime (CLOCK_MONOTONIC, &ts);
    return (int64_t) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int
sim_test_udp (int port)
{
    int fd = socket (AF_INET, SOCK_DGRAM, 0);
    if (fd < 0)
        return -1;
    struct sockaddr_in addr = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    addr.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    int rcvbuf = 4 << 20;
    setsockopt (fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof rcvbuf);
    if (bind (fd, (struct sockaddr *) &addr, sizeof addr)) {
        close (fd);
        return -1;
    }
    return fd;
}

/* Ports handed out to tests come from one counter shared by every test
   process on the machine (a file under flock), below the kernel's
   ephemeral range: a port a test was given is then neither given to a
   test running in parallel nor taken by some client socket's automatic
   bind between the pick and the simulator's bind (which, since a service
   that cannot bind ends the run, failed whole tests). */
#define S_PORT_FIRST 20100 /* above the simulator's own defaults (10010-10302, 20011) */
#define S_PORT_LAST  29999
#define S_PORT_FILE  "/tmp/ssl-sim-test-ports"

static bool
s_port_is_free (int port)
{
    int fd = sim_test_udp (port);
    if (fd < 0)
        return false;
    close (fd);
    return true;
}

int
sim_test_free_port (void)
{
    return sim_test_free_ports (1);
}

int
sim_test_free_ports (int count)
{
    if (count < 1 || count > S_PORT_LAST - S_PORT_FIRST + 1)
        return -1;
    int fd = open (S_PORT_FILE, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0 || flock (fd, LOCK_EX) != 0) {
        if (fd >= 0)
            close (fd);
        return -1;
    }
    char text[16] = "";
    ssize_t n = pread (fd, text, sizeof text - 1, 0);
    int next = n > 0 ? atoi (text) : 0;
    if (next < S_PORT_FIRST || next > S_PORT_LAST)
        next = S_PORT_FIRST + (int) (getpid () % 997);
    /* the first run of `count` free ports from next on, wrapping to the
       start of the range where a run would pass its end */
    int port = -1;
    for (int tries = 0; tries <= S_PORT_LAST - S_PORT_FIRST && port < 0; tries++) {
        if (next + count - 1 > S_PORT_LAST)
            next = S_PORT_FIRST;
        int candidate = next, k = 0;
        while (k < count && s_port_is_free (candidate + k))
            k++;
        next = candidate + (k < count ? k + 1 : count);
        if (next > S_PORT_LAST)
            next = S_PORT_FIRST;
        if (k == count)
            port = candidate;
    }
    int len = snprintf (text, sizeof text, "%d\n", next);
    if (ftruncate (fd, 0) != 0 || pwrite (fd, text, (size_t) len, 0) != len)
        port = -1;
    flock (fd, LOCK_UN);
    close (fd);
    return port;
}

int
sim_test_send_raw (int fd, int port, const void *data, size_t len)
{
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    to.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
    return sendto (fd, data, len, 0, (struct sockaddr *) &to, sizeof to) == (ssize_t) len ? 0 : -1;
}

int
sim_test_send (int fd, int port, const ProtobufCMessage *msg)
{
    uint8_t buf[65536];
    size_t len = protobuf_c_message_get_packed_size (msg);
    if (len > sizeof buf)
        return -1;
    protobuf_c_message_pack (msg, buf);
    return sim_test_send_raw (fd, port, buf, len);
}

ssize_t
sim_test_recv (int fd, void *buf, size_t cap, int timeout_ms)
{
    struct pollfd p = { fd, POLLIN, 0 };
    if (poll (&p, 1, timeout_ms) <= 0)
        return -1;
    return recv (fd, buf, cap, 0);
}

#define S_PROC_PORTS 9

/* proc's port fields, the same order for every picker. */
static void
s_proc_ports (sim_proc_t *proc, int *ports[S_PROC_PORTS])
{
    int *all[S_PROC_PORTS] = { &proc->control_port, &proc->blue_port,        &proc->yellow_port,
                               &proc->legacy_port,  &proc->status_blue_port, &proc->status_yellow_port,
                               &proc->vision_port,  &proc->truth_port,       &proc->viewer_port };
    memcpy (ports, all, sizeof all);
}

int
sim_proc_pick_ports (sim_proc_t *proc)
{
    int *ports[S_PROC_PORTS];
    s_proc_ports (proc, ports);
    for (int i = 0; i < S_PROC_PORTS; i++)
        if ((*ports[i] = sim_test_free_port ()) <= 0)
            return -1;
    return 0;
}

int
sim_proc_pick_moved_ports (sim_proc_t *proc, int *extra, int n_extra)
{
    int span = S_PROC_PORTS + n_extra;
    int first = sim_test_free_ports (2 * span);
    if (first < 0)
        return -1;
    int *ports[S_PROC_PORTS];
    s_proc_ports (proc, ports);
    for (int i = 0; i < S_PROC_PORTS; i++)
        *ports[i] = first + i;
    for (int i = 0; i < n_extra; i++)
        extra[i] = first + S_PROC_PORTS + i;
    return span;
}

int
sim_proc_write_ini (const sim_proc_t *proc, const char *path, const char *extra_ini)
{
    FILE *f = fopen (path, "w");
    if (!f)
        return -1;
    /* Only what parallel tests and network hygiene need steps around a
       default: free ports (so tests on one machine do not meet) and
       127.0.0.1 binds (nothing listens beyond loopback). Everything else,
       timestamps included, is what a user gets; a test that needs another
       value sets it in its extra_ini and says why. The [viewer] section
       comes first, so an extra_ini that goes on with [network] keys can. */
    fprintf (f, "[viewer]\naddr = 127.0.0.1:%d\n", proc->viewer_port);
    fprintf (f,
             "[network]\nbind_address = 127.0.0.1\ncontrol_port = %d\nblue_port = %d\n"
             "yellow_port = %d\nlegacy_port = %d\nlegacy_status_port_blue = %d\n"
             "legacy_status_port_yellow = %d\ntruth_port = %d\n%s\n",
             proc->control_port, proc->blue_port, proc->yellow_port, proc->legacy_port,
             proc->status_blue_port, proc->status_yellow_port, proc->truth_port, extra_ini ? extra_ini : "");
    return fclose (f) ? -1 : 0;
}

int
sim_proc_start (sim_proc_t *proc, const char *const *args, const char *extra_ini)
{
    memset (proc, 0, sizeof *proc);
    snprintf (proc->dir, sizeof proc->dir, "/tmp/ssl-sim-test-XXXXXX");
    if (!mkdtemp (proc->dir) || sim_proc_pick_ports (proc))
        return -1;
    char path[320];
    snprintf (path, sizeof path, "%s/test.ini", proc->dir);
    if (sim_proc_write_ini (proc, path, extra_ini))
        return -1;
    snprintf (proc->log, sizeof proc->log, "%s/log.txt", proc->dir);
    char vision[64];
    snprintf (vision, sizeof vision, "224.5.23.2:%d", proc->vision_port);

    const char *argv[64];
    int n = 0;
    argv[n++] = "run";
    for (int i = 0; args && args[i] && n < 56; i++)
        argv[n++] = args[i];
    argv[n++] = "--config";
    argv[n++] = path;
    /* --localhost keeps every packet on loopback (network hygiene); the
       vision address is the default group with a free port (parallel
       tests), which --localhost's default unicast sends to 127.0.0.1 */
    argv[n++] = "--localhost";
    argv[n++] = "--vision-addr";
    argv[n++] = vision;
    argv[n] = NULL;
    /* a private runtime directory keeps parallel tests' ipc apart */
    proc->pid = sim_lab_spawn (argv, proc->dir, proc->log, NULL);
    return proc->pid > 0 ? 0 : -1;
}

int
sim_proc_stop (sim_proc_t *proc)
{
    if (proc->pid <= 0)
        return -1;
    int code = sim_lab_stop (proc->pid);
    proc->pid = 0;
    return code;
}

void
sim_proc_dump_log (const sim_proc_t *proc)
{
    sim_lab_dump (proc->log);
}

void
sim_proc_cleanup (sim_proc_t *proc)
{
    if (strncmp (proc->dir, "/tmp/ssl-sim-test-", 18) != 0)
        return;
    if (sim_lab_sh ("rm -rf '%s'", proc->dir) != 0)
        fprintf (stderr, "could not remove %s\n", proc->dir);
}

ssize_t
sim_test_call (int fd, int port, const ProtobufCMessage *msg, void *buf, size_t cap, int timeout_ms)
{
    if (sim_test_send (fd, port, msg))
        return -1;
    return sim_test_recv (fd, buf, cap, timeout_ms);
}

int
sim_test_speed (int fd, int port, double speed, int timeout_ms)
{
    SimulatorControl control = SIMULATOR_CONTROL__INIT;
    control.has_simulation_speed = true;
    control.simulation_speed = (float) speed;
    SimulatorCommand cmd = SIMULATOR_COMMAND__INIT;
    cmd.control = &control;
    uint8_t buf[65536];
    return sim_test_call (fd, port, &cmd.base, buf, sizeof buf, timeout_ms) >= 0 ? 0 : -1;
}

int
sim_test_wait_ready (int fd, int port, int timeout_ms)
{
    /* an empty SimulatorCommand is the empty datagram; every probe the
       gateway took is answered, some after this returns: on fd, which
       the caller reads no more (sim_test.h) */
    int64_t end = sim_test_now_ms () + timeout_ms;
    uint8_t buf[65536];
    while (sim_test_now_ms () < end)
        if (sim_test_send_raw (fd, port, "", 0) == 0 && sim_test_recv (fd, buf, sizeof buf, 100) >= 0)
            return 0;
    return -1;
}

int
sim_test_drain (int fd)
{
    uint8_t buf[65536];
    int n = 0;
    while (sim_test_recv (fd, buf, sizeof buf, 0) >= 0)
        n++;
    return n;
}

pid_t
sim_proc_child (const sim_proc_t *proc, const char *needle)
{
    char cmd[128];
    snprintf (cmd, sizeof cmd, "pgrep -P %d -f '%s'", (int) proc->pid, needle);
    FILE *p = popen (cmd, "r");
    if (!p)
        return -1;
    int pid = -1;
    if (fscanf (p, "%d", &pid) != 1)
        pid = -1;
    pclose (p);
    return (pid_t) pid;
}

SimulationSyncResponse *
sim_test_sync (int fd, int port, const SimulationSyncRequest *req, uint8_t *raw, size_t *raw_len,
               int timeout_ms)
{
    uint8_t buf[65536];
    if (sim_test_send (fd, port, &req->base))
        return NULL;
    int64_t end = sim_test_now_ms () + timeout_ms;
    while (sim_test_now_ms () < end) {
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, (int) (end - sim_test_now_ms ()));
        if (n < 0)
            return NULL;
        SimulationSyncResponse *resp = simulation_sync_response__unpack (NULL, (size_t) n, buf);
        if (!resp)
            continue;
        if (raw) {
            memcpy (raw, buf, (size_t) n);
            *raw_len = (size_t) n;
        }
        return resp;
    }
    return NULL;
}

double
sim_test_sync_warm_up (int fd, int port, int timeout_ms)
{
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = 0.05f;
    double stepped = 0;
    int64_t end = sim_test_now_ms () + timeout_ms, left;
    /* one request at a time, each waiting for its own answer: the gateway
       answers every datagram (after 2 s at most for a sync request,
       docs/protocol.md), so a request sent again after a shorter wait
       would leave its first answer to be read as the test's next one */
    while ((left = end - sim_test_now_ms ()) > 0) {
        SimulationSyncResponse *resp = sim_test_sync (fd, port, &req, NULL, NULL, (int) left);
        if (!resp)
            return -1;
        stepped += 0.05;
        size_t n = resp->n_detection;
        simulation_sync_response__free_unpacked (resp, NULL);
        if (n > 0)
            return stepped;
    }
    return -1;
}

ssize_t
sim_test_request (int fd, int port, const ProtobufCMessage *msg, void *buf, size_t cap, int timeout_ms)
{
    int64_t end = sim_test_now_ms () + timeout_ms;
    while (sim_test_now_ms () < end) {
        if (sim_test_send (fd, port, msg))
            return -1;
        /* only an answer from the port asked counts: a socket that asked
           another simulator first may still get that one's answers to
           copies sent while it started, and took one for this answer */
        int64_t resend = sim_test_now_ms () + 200;
        for (int64_t left = 200; left > 0; left = resend - sim_test_now_ms ()) {
            struct pollfd p = { fd, POLLIN, 0 };
            if (poll (&p, 1, (int) left) <= 0)
                break;
            struct sockaddr_in from;
            socklen_t from_len = sizeof from;
            ssize_t n = recvfrom (fd, buf, cap, 0, (struct sockaddr *) &from, &from_len);
            if (n >= 0 && ntohs (from.sin_port) == port)
                return n;
        }
    }
    return -1;
}

static void
s_view_add (sim_view_t *v, const SSLDetectionFrame *d)
{
    v->frames++;
    if (d->n_balls > 0) {
        v->ball = true;
        v->bx = d->balls[0]->x / 1000.0;
        v->by = d->balls[0]->y / 1000.0;
    }
    for (int t = 0; t < 2; t++) {
        size_t n = t == 0 ? d->n_robots_blue : d->n_robots_yellow;
        SSLDetectionRobot **rs = t == 0 ? d->robots_blue : d->robots_yellow;
        for (size_t i = 0; i < n; i++) {
            if (!rs[i]->has_robot_id || rs[i]->robot_id > 255)
                continue;
            unsigned id = rs[i]->robot_id;
            v->robot[t][id] = true;
            v->rx[t][id] = rs[i]->x / 1000.0;
            v->ry[t][id] = rs[i]->y / 1000.0;
            v->ro[t][id] = rs[i]->has_orientation ? rs[i]->orientation : 0;
        }
    }
}

int
sim_test_look (int fd, int port, double seconds, sim_view_t *v)
{
    memset (v, 0, sizeof *v);
    SimulationSyncRequest req = SIMULATION_SYNC_REQUEST__INIT;
    req.has_sim_step = true;
    req.sim_step = (float) seconds;
    SimulationSyncResponse *resp = sim_test_sync (fd, port, &req, NULL, NULL, 5000);
    if (!resp)
        return -1;
    for (size_t i = 0; i < resp->n_detection; i++) {
        bool newest = true;
        for (size_t k = i + 1; k < resp->n_detection; k++)
            newest &= resp->detection[k]->camera_id != resp->detection[i]->camera_id;
        if (newest)
            s_view_add (v, resp->detection[i]);
    }
    simulation_sync_response__free_unpacked (resp, NULL);
    return v->frames;
}

double
sim_test_newest_capture (int fd, int ms)
{
    uint8_t buf[65536];
    double newest = 0;
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, 10);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        if (w && w->detection && w->detection->t_capture > newest)
            newest = w->detection->t_capture;
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    return newest;
}

int
sim_test_teleport_blue0 (int fd, int port, double x, double y, int ms)
{
    return sim_test_teleport (fd, port, SIM_MSG_BLUE, 0, x, y, ms);
}

int
sim_test_teleport (int fd, int port, int team, unsigned id, double x, double y, int ms)
{
    sim_msg_robot_tp_t b;
    SimulatorCommand *cmd = sim_msg_robot_tp (&b, team, id);
    sim_msg_robot_xy (&b.tr, x, y);
    b.tr.has_orientation = b.tr.has_v_x = b.tr.has_v_y = b.tr.has_v_angular = true;
    uint8_t buf[65536];
    ssize_t n = sim_test_request (fd, port, &cmd->base, buf, sizeof buf, ms);
    if (n < 0)
        return -1;
    /* an answer without errors packs to zero bytes */
    SimulatorResponse *resp = simulator_response__unpack (NULL, (size_t) n, buf);
    int ok = resp && resp->n_errors == 0;
    if (resp)
        simulator_response__free_unpacked (resp, NULL);
    return ok;
}

int
sim_test_grsim_place (int fd, int port, bool yellow, unsigned id, double x, double y, double dir, int turnon)
{
    GrSimRobotReplacement rr = GR_SIM__ROBOT_REPLACEMENT__INIT;
    rr.x = x;
    rr.y = y;
    rr.dir = dir;
    rr.id = id;
    rr.yellowteam = yellow;
    rr.has_turnon = turnon >= 0;
    rr.turnon = turnon > 0;
    GrSimRobotReplacement *rrs[] = { &rr };
    GrSimReplacement rep = GR_SIM__REPLACEMENT__INIT;
    rep.n_robots = 1;
    rep.robots = rrs;
    GrSimPacket packet = GR_SIM__PACKET__INIT;
    packet.replacement = &rep;
    return sim_test_send (fd, port, &packet.base);
}

int
sim_test_truth (int fd, int ms, uint32_t *frame, double *timestamp)
{
    uint8_t buf[65536];
    ssize_t n = sim_test_recv (fd, buf, sizeof buf, ms);
    if (n <= 0)
        return 0;
    TrackerWrapperPacket *t = tracker_wrapper_packet__unpack (NULL, (size_t) n, buf);
    int rc = t && t->tracked_frame ? 1 : -1;
    if (rc > 0) {
        *frame = t->tracked_frame->frame_number;
        *timestamp = t->tracked_frame->timestamp;
    }
    if (t)
        tracker_wrapper_packet__free_unpacked (t, NULL);
    return rc;
}

bool
sim_test_blue0 (int fd, int ms, double *x, double *y, double *t_capture)
{
    int64_t end = sim_test_now_ms () + ms;
    while (sim_test_now_ms () < end) {
        uint8_t buf[65536];
        ssize_t n = sim_test_recv (fd, buf, sizeof buf, 50);
        if (n <= 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        bool hit = false;
        for (size_t i = 0; w && w->detection && i < w->detection->n_robots_blue && !hit; i++) {
            const SSLDetectionRobot *r = w->detection->robots_blue[i];
            if (r->robot_id != 0)
                continue;
            *x = r->x / 1000.0;
            *y = r->y / 1000.0;
            *t_capture = w->detection->t_capture;
            hit = true;
        }
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
        if (hit)
            return true;
    }
    return false;
}

double
sim_test_vision_tolerance_of (const char *preset)
{
    sim_config_t cfg;
    sim_config_defaults (&cfg);
    int known = preset ? sim_config_realism_preset (preset, &cfg.realism) : 0;
    assert (known == 0);
    (void) known;
    const sim_realism_t *r = &cfg.realism;
    const double gain_max = 1.5, robot_height = 0.15;
    double warp = 3 * sqrt (2.0 / 3.0) * gain_max * r->calibration_warp_stddev;
    double parallax = r->robot_marker_height_error * cfg.vision.fov_radius
                    / (cfg.vision.default_camera_height - robot_height);
    double noise = 5 * fmax (r->stddev_robot_p, r->stddev_ball_p);
    /* the wire's floats: half a float's spacing at the reach of the
       field (the field's half length plus its run-off), once for the
       detection (mm) and once for the ground truth (m) */
    sim_field_t field;
    sim_field_resolve (&cfg.field, cfg.run.division, &field);
    double reach = field.length / 2 + field.boundary_width;
    double wire = 2 * 0.5 * FLT_EPSILON * reach;
    return fabs (r->object_position_offset) + warp + fabs (parallax) + noise + wire;
}

double
sim_test_vision_tolerance (void)
{
    return sim_test_vision_tolerance_of (NULL);
}

bool
sim_test_sees_blue0 (int fd, double x, double y, int ms)
{
    int64_t end = sim_test_now_ms () + ms;
    double rx, ry, t, tol = sim_test_vision_tolerance ();
    for (int64_t left = ms; left > 0; left = end - sim_test_now_ms ())
        if (sim_test_blue0 (fd, (int) left, &rx, &ry, &t) && fabs (rx - x) < tol && fabs (ry - y) < tol)
            return true;
    return false;
}

int
sim_proc_service_pid (const sim_proc_t *proc, const char *name)
{
    return sim_lab_service_pid (proc->dir, 0, name);
}

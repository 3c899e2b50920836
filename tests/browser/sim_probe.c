/*  sim_probe.c - the browser test's window on the simulator's UDP side
    (tests/browser/viewer.test.js), so the test reads real vision with the
    real decoder instead of a hand-written one:

        sim_probe ports N      N free loopback ports from the counter the
                               system tests share (sim_test_free_port), one
                               line, separated by spaces
        sim_probe vision PORT  join 224.5.23.2:PORT on lo and print one JSON line
                               per SSL_WrapperPacket detection frame:
                               {"camera":C,"frame":F,"t_capture":T,
                                "balls":[[x,y,z],...]}  (metres, seconds)
                               until standard input closes
        sim_probe commands PORT
                               send a blue team's RobotControl (robot 0
                               turning on the spot) to 127.0.0.1:PORT every
                               20 ms, as a team's program does, until
                               standard input closes

    Exit status 0, 1 when a port could not be had, 2 for bad arguments.
*/
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/sim_test.h"
#include "common/bus/sim_udp.h"
#include "ssl_simulation_robot_control.pb-c.h"
#include "ssl_vision_detection.pb-c.h"
#include "ssl_vision_wrapper.pb-c.h"

static int
s_ports (int count)
{
    for (int i = 0; i < count; i++) {
        int port = sim_test_free_port ();
        if (port <= 0) {
            fprintf (stderr, "sim_probe: no free test port\n");
            return 1;
        }
        printf ("%s%d", i ? " " : "", port);
    }
    printf ("\n");
    return 0;
}

static void
s_print_frame (const SSLDetectionFrame *d)
{
    printf ("{\"camera\":%u,\"frame\":%u,\"t_capture\":%.6f,\"balls\":[", d->camera_id, d->frame_number,
            d->t_capture);
    for (size_t i = 0; i < d->n_balls; i++) {
        const SSLDetectionBall *b = d->balls[i];
        printf ("%s[%.5f,%.5f,%.5f]", i ? "," : "", b->x / 1000.0, b->y / 1000.0,
                b->has_z ? b->z / 1000.0 : 0.0);
    }
    printf ("]}\n");
    fflush (stdout);
}

static int
s_vision (int port)
{
    /* as a league tool listens: the vision group joined, here on the
       loopback interface, which --localhost sends through */
    struct sockaddr_in group = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port) };
    inet_pton (AF_INET, "224.5.23.2", &group.sin_addr);
    int fd = sim_udp_listen (&group, "127.0.0.1");
    if (fd < 0) {
        fprintf (stderr, "sim_probe: cannot join 224.5.23.2:%d on lo\n", port);
        return 1;
    }
    /* the test may die without closing our stdin cleanly */
    prctl (PR_SET_PDEATHSIG, SIGTERM);
    printf ("{\"listening\":%d}\n", port);
    fflush (stdout);
    uint8_t buf[65536];
    while (true) {
        struct pollfd p[2] = { { fd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
        if (poll (p, 2, -1) < 0)
            continue;
        if (p[1].revents) {
            /* anything on stdin is ignored; its end is the end */
            char junk[256];
            if (read (STDIN_FILENO, junk, sizeof junk) <= 0)
                break;
        }
        if (!(p[0].revents & POLLIN))
            continue;
        ssize_t n = recv (fd, buf, sizeof buf, 0);
        if (n < 0)
            continue;
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        if (w && w->detection)
            s_print_frame (w->detection);
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    close (fd);
    return 0;
}

static int
s_commands (int port)
{
    int fd = sim_test_udp (0);
    if (fd < 0) {
        fprintf (stderr, "sim_probe: no UDP socket\n");
        return 1;
    }
    prctl (PR_SET_PDEATHSIG, SIGTERM);
    MoveLocalVelocity local = MOVE_LOCAL_VELOCITY__INIT;
    local.angular = 1.0f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand cmd = ROBOT_COMMAND__INIT;
    cmd.move_command = &move;
    RobotCommand *ptr = &cmd;
    RobotControl rc = ROBOT_CONTROL__INIT;
    rc.n_robot_commands = 1;
    rc.robot_commands = &ptr;
    printf ("{\"sending\":%d}\n", port);
    fflush (stdout);
    uint8_t buf[4096];
    int64_t next = sim_test_now_ms ();
    while (true) {
        sim_test_send (fd, port, &rc.base);
        next += 20;
        /* the team's clock; the gateway's answers are read and dropped */
        for (int64_t now = sim_test_now_ms (); now < next; now = sim_test_now_ms ()) {
            struct pollfd p[2] = { { fd, POLLIN, 0 }, { STDIN_FILENO, POLLIN, 0 } };
            if (poll (p, 2, (int) (next - now)) < 0)
                continue;
            if (p[1].revents) {
                char junk[256];
                if (read (STDIN_FILENO, junk, sizeof junk) <= 0) {
                    close (fd);
                    return 0;
                }
            }
            if (p[0].revents & POLLIN)
                recv (fd, buf, sizeof buf, 0);
        }
    }
}

int
main (int argc, char **argv)
{
    if (argc == 3 && strcmp (argv[1], "ports") == 0) {
        int count = atoi (argv[2]);
        if (count > 0 && count <= 64)
            return s_ports (count);
    }
    if (argc == 3 && strcmp (argv[1], "vision") == 0) {
        int port = atoi (argv[2]);
        if (port > 0 && port < 65536)
            return s_vision (port);
    }
    if (argc == 3 && strcmp (argv[1], "commands") == 0) {
        int port = atoi (argv[2]);
        if (port > 0 && port < 65536)
            return s_commands (port);
    }
    fprintf (stderr, "usage: sim_probe ports N | sim_probe vision PORT | sim_probe commands PORT\n");
    return 2;
}

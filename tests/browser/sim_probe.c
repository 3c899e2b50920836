/*  sim_probe.c - the browser test's window on the simulator's UDP side
    (tests/browser/viewer.test.js), so the test reads real vision with the
    real decoder instead of a hand-written one:

        sim_probe ports N      N free loopback ports from the counter the
                               system tests share (sim_test_free_port), one
                               line, separated by spaces
        sim_probe tolerance    how far the default realism's vision may
                               put a detection from the truth, in metres
                               (sim_test_vision_tolerance: the system
                               tests' bound), one line
        sim_probe vision PORT  join 224.5.23.2:PORT on lo and print one JSON line
                               per SSL_WrapperPacket detection frame:
                               {"camera":C,"frame":F,"t_capture":T,
                                "balls":[[x,y,z],...]}  (metres, seconds)
                               until standard input closes
        sim_probe commands PORT
                               send a blue team's RobotControl (robot 0
                               driving a small circle: forward 0.2 m/s,
                               angular 1 rad/s, kick speed 3 m/s at 0°,
                               dribbler 150 rpm) to 127.0.0.1:PORT every
                               20 ms, as a team's program does, until
                               standard input closes
        sim_probe referee PORT a game controller on this machine: a
                               Referee message (first half, ball
                               placement by blue at (1.5, -1.0) m, blue 2
                               : yellow 1, a yellow card for yellow) to
                               224.5.23.1:PORT through the loopback
                               interface only (TTL 0) every 100 ms until
                               standard input closes; each line read
                               is a goal for blue (STOP, a new command
                               counter, blue's score up), sent at once
                               and said as {"goal":SCORE}

    Exit status 0, 1 when a port could not be had, 2 for bad arguments.
*/
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tests/support/sim_test.h"
#include "common/bus/sim_udp.h"
#include "ssl_gc_referee_message.pb-c.h"
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
    local.forward = 0.2f;
    local.angular = 1.0f;
    RobotMoveCommand move = ROBOT_MOVE_COMMAND__INIT;
    move.command_case = ROBOT_MOVE_COMMAND__COMMAND_LOCAL_VELOCITY;
    move.local_velocity = &local;
    RobotCommand cmd = ROBOT_COMMAND__INIT;
    cmd.move_command = &move;
    cmd.has_kick_speed = cmd.has_kick_angle = cmd.has_dribbler_speed = true;
    cmd.kick_speed = 3.0f;
    cmd.kick_angle = 0.0f;
    cmd.dribbler_speed = 150.0f;
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

/* Wait up to ms for standard input: -1 when it ended, else the lines that
   came (0: none within ms). */
static int
s_stdin_lines (int ms)
{
    struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
    if (poll (&p, 1, ms) <= 0)
        return 0;
    char buf[256];
    ssize_t n = read (STDIN_FILENO, buf, sizeof buf);
    if (n <= 0)
        return -1;
    int lines = 0;
    for (ssize_t i = 0; i < n; i++)
        lines += buf[i] == '\n';
    return lines;
}

static int
s_referee (int port)
{
    struct in_addr group;
    inet_pton (AF_INET, "224.5.23.1", &group);
    int fd = sim_udp_local_sender (group);
    if (fd < 0) {
        fprintf (stderr, "sim_probe: no loopback multicast sender\n");
        return 1;
    }
    prctl (PR_SET_PDEATHSIG, SIGTERM);
    struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons ((uint16_t) port), .sin_addr = group };
    Referee__TeamInfo blue = REFEREE__TEAM_INFO__INIT, yellow = REFEREE__TEAM_INFO__INIT;
    blue.name = "Blue Probes";
    blue.score = 2;
    blue.goalkeeper = 0;
    blue.timeouts = 4;
    blue.timeout_time = 300000000;
    yellow.name = "Yellow Probes";
    yellow.score = 1;
    yellow.yellow_cards = 1;
    uint32_t card = 90000000;
    yellow.n_yellow_card_times = 1;
    yellow.yellow_card_times = &card;
    yellow.goalkeeper = 1;
    yellow.timeouts = 4;
    yellow.timeout_time = 300000000;
    Referee__Point target = REFEREE__POINT__INIT;
    target.x = 1500.0f;
    target.y = -1000.0f;
    Referee ref = REFEREE__INIT;
    ref.stage = REFEREE__STAGE__NORMAL_FIRST_HALF;
    ref.has_stage_time_left = true;
    ref.stage_time_left = 240000000;
    ref.command = REFEREE__COMMAND__BALL_PLACEMENT_BLUE;
    ref.command_counter = 7;
    ref.blue = &blue;
    ref.yellow = &yellow;
    ref.designated_position = &target;
    ref.has_next_command = true;
    ref.next_command = REFEREE__COMMAND__DIRECT_FREE_BLUE;
    uint8_t buf[1024];
    printf ("{\"sending\":%d}\n", port);
    fflush (stdout);
    bool goal = false;
    int64_t next_ms = 0;
    for (;;) {
        struct timespec now;
        clock_gettime (CLOCK_REALTIME, &now);
        ref.packet_timestamp = (uint64_t) now.tv_sec * 1000000u + (uint64_t) now.tv_nsec / 1000u;
        ref.command_timestamp = ref.packet_timestamp;
        size_t n = referee__pack (&ref, buf);
        sim_udp_send (fd, buf, n, &to);
        if (goal) {
            printf ("{\"goal\":%u}\n", blue.score);
            fflush (stdout);
            goal = false;
        }
        clock_gettime (CLOCK_MONOTONIC, &now);
        int64_t now_ms = (int64_t) now.tv_sec * 1000 + now.tv_nsec / 1000000;
        next_ms = next_ms ? next_ms + 100 : now_ms + 100;
        int lines = s_stdin_lines (next_ms > now_ms ? (int) (next_ms - now_ms) : 0);
        if (lines < 0)
            break;
        if (lines > 0) {
            /* a goal for blue, as a game controller says it: STOP, a new
               command counter, the score up; sent at once */
            blue.score++;
            ref.command = REFEREE__COMMAND__STOP;
            ref.command_counter++;
            goal = true;
        }
    }
    close (fd);
    return 0;
}

int
main (int argc, char **argv)
{
    if (argc == 3 && strcmp (argv[1], "ports") == 0) {
        int count = atoi (argv[2]);
        if (count > 0 && count <= 64)
            return s_ports (count);
    }
    if (argc == 2 && strcmp (argv[1], "tolerance") == 0) {
        printf ("%.6f\n", sim_test_vision_tolerance ());
        return 0;
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
    if (argc == 3 && strcmp (argv[1], "referee") == 0) {
        int port = atoi (argv[2]);
        if (port > 0 && port < 65536)
            return s_referee (port);
    }
    fprintf (stderr, "usage: sim_probe ports N | tolerance | vision PORT | commands PORT | referee PORT\n");
    return 2;
}

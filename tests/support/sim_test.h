/*  sim_test.h - helpers for the system tests: a real ssl-sim process with
    its own runtime directory and free loopback ports, and UDP clients that
    talk to it the way a team's software does.
*/
#ifndef SIM_TEST_H_INCLUDED
#define SIM_TEST_H_INCLUDED

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <protobuf-c/protobuf-c.h>

typedef struct {
    pid_t pid;
    char dir[256]; /* runtime directory and config file live here */
    int control_port, blue_port, yellow_port, legacy_port;
    int status_blue_port, status_yellow_port, vision_port, truth_port;
    int viewer_port; /* TCP, from the same counter as the UDP ones */
    char log[300];   /* the process's stdout+stderr */
} sim_proc_t;

/* A free UDP port on 127.0.0.1, below the ephemeral range and never the
   same as one given to another test process until 9 900 others were
   (sim_test.c); -1 when none is free. */
int sim_test_free_port (void);

/* The first of `count` consecutive free UDP ports, handed out from the
   same counter (so no other test process is given any of them), or -1. A
   test that moves ports by an offset takes its ports and their moved
   copies as one run: ports it merely shifted would be unknown to the
   counter and could be given to a test running beside it. */
int sim_test_free_ports (int count);

/* Start `ssl-sim run ARGS... --config DIR/test.ini --localhost
   --vision-addr 224.5.23.2:VP` with every UDP port free and loopback-only
   (bind_address 127.0.0.1). `args` is NULL-terminated. `extra_ini` is
   appended to the config file (may be NULL). Returns 0 or -1. */
int sim_proc_start (sim_proc_t *proc, const char *const *args, const char *extra_ini);

/* Free loopback ports for every UDP port field of proc (the others are
   left alone). Returns 0 or -1. */
int sim_proc_pick_ports (sim_proc_t *proc);

/* As sim_proc_pick_ports, and n_extra more ports into extra[], for a
   simulator moved by --port-offset: the ports and their moved copies are
   one run from sim_test_free_ports, so no test beside it is given a moved
   one. Returns the offset that moves them, or -1. */
int sim_proc_pick_moved_ports (sim_proc_t *proc, int *extra, int n_extra);

/* Write a configuration file at `path`: a [viewer] section with proc's
   viewer port, a [network] section with its UDP ports on 127.0.0.1 (the
   tests' vision sockets are bound to 127.0.0.1, which --localhost's
   default unicast reaches), then `extra_ini` (may be NULL; it continues
   the [network] section, and a later value of a key wins). Nothing else:
   free ports keep parallel tests apart and loopback binds keep the
   network clean; every other key is the default a user gets, so a test
   that needs another value sets it in extra_ini and says why.
   test_league.c tests --local-multicast too. Returns 0 or -1. */
int sim_proc_write_ini (const sim_proc_t *proc, const char *path, const char *extra_ini);

/* SIGTERM, wait (5 s, then SIGKILL); returns the exit status or -1. */
int sim_proc_stop (sim_proc_t *proc);

/* Print the process log to stderr (for failing tests). */
void sim_proc_dump_log (const sim_proc_t *proc);

/* A UDP socket bound to 127.0.0.1:port (0 = ephemeral), with a receive
   timeout. Returns the fd or -1. */
int sim_test_udp (int port);

/* Pack and send `msg` to 127.0.0.1:port. */
int sim_test_send (int fd, int port, const ProtobufCMessage *msg);
int sim_test_send_raw (int fd, int port, const void *data, size_t len);

/* Receive one datagram within timeout_ms; returns its size or -1. */
ssize_t sim_test_recv (int fd, void *buf, size_t cap, int timeout_ms);

/* Milliseconds of a monotonic clock. */
int64_t sim_test_now_ms (void);

/* Send `msg` to 127.0.0.1:port and wait for one answer from that port
   (datagrams from other ports are dropped), re-sending every 200 ms (the
   services may still be starting) until timeout_ms. Returns the answer's
   size (0 is a valid, empty message) or -1. */
ssize_t sim_test_request (int fd, int port, const ProtobufCMessage *msg, void *buf, size_t cap,
                          int timeout_ms);

/* Teleport blue robot 0 to (x, y), orientation 0, at rest, through the
   control port `port`, re-sending every 200 ms until an answer comes
   (a client whose datagram got no answer sends it again). Returns 1 for
   an answer without errors, 0 for one with errors, -1 for none in ms. */
int sim_test_teleport_blue0 (int fd, int port, double x, double y, int ms);

/* The same for robot `id` of `team` (SIM_MSG_BLUE or SIM_MSG_YELLOW of
   sim_msg.h). */
int sim_test_teleport (int fd, int port, int team, unsigned id, double x, double y, int ms);

/* Send a grSim_Packet to the legacy port `port` that puts robot `id` of
   the blue (or yellow) team at (x, y) m facing dir degrees; turnon < 0
   leaves that field unset (grSim then creates a missing robot). No answer
   comes (grSim has none). Returns 0 or -1. */
int sim_test_grsim_place (int fd, int port, bool yellow, unsigned id, double x, double y, double dir,
                          int turnon);

/* Whether vision on `fd` shows blue robot 0 within 1 cm of (x, y) within
   ms (every other datagram read meanwhile is consumed). */
bool sim_test_sees_blue0 (int fd, double x, double y, int ms);

/* How far, per axis, a default simulator's vision may show an object from
   where it is (m): the realistic preset's calibration error bounded from
   its own numbers (docs/vision.md "Calibration error"), not a tolerance
   that happened to hold for one seed's cameras. The sum of
     - the constant offset, object_position_offset;
     - the warp: three plane waves of amplitude sqrt(2/3), so at most
       3 sqrt(2/3) = 2.45 times the normalised field, whose gain brings the
       field's spread to calibration_warp_stddev; the gain is taken as at
       most 1.5 (the spread over the field of three waves of random phase
       is near 1, so the gain near 1);
     - the parallax of robot_marker_height_error, at most
       error * reach / (camera height - marker height) within the field of
       view's reach of a nadir;
     - five standard deviations of the per-frame noise.
     - the wire's float rounding (a micrometre at most).
   With the realistic preset's numbers this is 0.054 m. */
double sim_test_vision_tolerance (void);

/* The same bound for the realism preset `preset` (a name `ssl-sim
   presets` knows); for `none` only the wire's rounding is left. */
double sim_test_vision_tolerance_of (const char *preset);

/* Blue robot 0 in the first vision packet on `fd` within ms that shows
   it: position (m) and the packet's t_capture (s). Returns false when
   none came (datagrams without it are consumed). */
bool sim_test_blue0 (int fd, int ms, double *x, double *y, double *t_capture);

/* The next datagram on `fd` within ms as a ground-truth packet: its
   frame number and timestamp (s). Returns 1, 0 when none came, -1 when
   one came that is not a TrackerWrapperPacket with a tracked frame. */
int sim_test_truth (int fd, int ms, uint32_t *frame, double *timestamp);

/* The pid in service `name`'s pid file in the runtime directory if that
   process is alive, else 0. */
int sim_proc_service_pid (const sim_proc_t *proc, const char *name);

/* Remove the process's runtime directory (log included). */
void sim_proc_cleanup (sim_proc_t *proc);

/* ---- protocol helpers (gateway, sync, legacy tests) ---------------------- */

/* Send `msg` to 127.0.0.1:port and wait up to timeout_ms for one datagram
   on fd; returns its size or -1. */
ssize_t sim_test_call (int fd, int port, const ProtobufCMessage *msg, void *buf, size_t cap, int timeout_ms);

/* Set the simulation speed with a SimulatorControl on the control port
   127.0.0.1:port (what the viewer's slider sends) and wait up to
   timeout_ms for the answer. Returns 0, or -1 when none came. */
int sim_test_speed (int fd, int port, double speed, int timeout_ms);

/* Wait until the gateway answers an empty SimulatorCommand on the control
   port 127.0.0.1:port (at most timeout_ms), sent from fd every 100 ms.
   Returns 0 or -1. The gateway answers every probe it received, and on a
   loaded machine an earlier probe's answer can come after this returns:
   fd must be a socket of its own that nothing reads afterwards, kept open
   while the simulator runs (a closed port could be handed to the next
   socket made). */
int sim_test_wait_ready (int fd, int port, int timeout_ms);

/* Receive and drop every datagram waiting on fd; returns how many. */
int sim_test_drain (int fd);

/* pid of the child of `proc` whose command line contains `needle` (e.g.
   "vision"), or -1. Used to pause one service (SIGSTOP) in tests. */
pid_t sim_proc_child (const sim_proc_t *proc, const char *needle);

/* Send a SimulationSyncRequest to 127.0.0.1:port and wait for the
   SimulationSyncResponse (other datagrams are skipped). The raw answer is
   copied to raw/raw_len when raw is not NULL (cap 65536). Returns the
   unpacked response (free with simulation_sync_response__free_unpacked)
   or NULL on timeout. */
struct SimulationSyncRequest;
struct SimulationSyncResponse;
struct SimulationSyncResponse *sim_test_sync (int fd, int port, const struct SimulationSyncRequest *req,
                                              uint8_t *raw, size_t *raw_len, int timeout_ms);

/* Sync-step 0.05 s at a time on `port` until an answer carries detection
   frames (vision has its configuration). Returns the sim seconds stepped,
   or -1 after timeout_ms. The gateway must already answer
   (sim_test_wait_ready): a request is never sent twice, so no answer is
   still to come on fd when this returns. */
double sim_test_sync_warm_up (int fd, int port, int timeout_ms);

/* What the newest frame of each camera showed (positions m, rad). */
typedef struct {
    int frames; /* frames used */
    bool ball;
    double bx, by;
    bool robot[2][256]; /* [0] blue, [1] yellow */
    double rx[2][256], ry[2][256], ro[2][256];
} sim_view_t;

/* Sync-step `seconds` on 127.0.0.1:port (no command) and fill *v from the
   newest frame of each camera released by the step (vision is delayed:
   older frames of one step may show the state before the last change).
   Returns the number of frames used, -1 when no answer came. */
int sim_test_look (int fd, int port, double seconds, sim_view_t *v);

/* Newest detection t_capture (s) among the vision packets arriving on fd
   within ms; 0 when none came. */
double sim_test_newest_capture (int fd, int ms);

#endif

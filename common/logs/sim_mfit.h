/*  sim_mfit.h - the motion fitter of `ssl-sim stats --fit` (docs/stats.md
    "Motion"): fed the ball and robot positions of a log's vision stream
    (and the ball heights of its tracker stream), it finds the [ball] model
    and each team's [TEAM.limits] and kick caps that reproduce them, each
    with a 95 % interval and the number of events it used. It never prints
    and reads no clock: the launcher wires it.

    Method, in short (docs/stats.md gives the numbers):
    - Flat kicks. Each camera's ball track is cut into straight runs that
      start where the ball leaves rest or jumps (a kick or a teleport) and
      end before a robot comes near, the track bends, stops or breaks off.
      Along a run's direction the position is fitted with the two-phase
      law: slide at A until the speed falls to k V0, then roll at a. For
      a given switch time the model is linear in (s0, V0, A, a), so a
      search over switch times with least squares at each gives all four.
      Only runs where both phases show count (one phase alone is the same
      parabola for a slide and a roll); runs during a flight are skipped.
      The rolling law's speed term (roll_speed_coefficient b) is too weak
      to see in a second of noisy positions: it is held at the value the
      caller gives, and acc_roll = a - b * (mean rolling speed).
    - Chip hops. Ball heights (the tracker stream's, or vision's z when a
      source sends it) give flights: each is a parabola of known gravity,
      fitted for its take-off speed; the next flight's starts at the
      landing, so the vertical damping is vz_out / vz_in and the
      horizontal one the ratio of the flights' ground speeds.
    - Chip hops from vision alone (sim_mfit_vchip.c). A camera sees a
      ball at height h above its rest along its ray, on the floor at
      p = g + (p - c) h / H (g the ground point under the ball, c the
      camera's nadir, H its height, from the log's geometry). Take-off
      and landing are kinks of a camera's track (a bounce breaks the
      image's path); between two, h is a known parabola under gravity,
      so the detections moved back along their own cameras' rays must
      lie on one ground line: least squares over the flight's
      detections tells a flight (and its ground speed) from a stretch
      that is none, and vz = G (landing - take-off) / 2. The flights
      feed the same bounce chain as the heights. When the log has
      heights, those set the keys and the vision-only result is
      reported beside them.
    - Robot limits. Each robot's position and orientation are fitted with
      a quadratic over +-0.1 s around every sample, giving speed,
      acceleration along the motion, turn rate and its change. A limit is
      a plateau: the runs of consecutive samples above a share of the
      99th percentile are events, each event's median one estimate.
    - Kick speeds: a run that starts where the ball rested within 0.25 m
      of a robot is that robot's team's kick; its V0 (or a chip's
      take-off speed) is one sample, and the cap is the fastest seen (a
      lower bound of the cap; a moving kicker adds its own speed).
    Every estimate is the median of its events, with the 95 % interval
    of the order statistics (a stray event moves neither); fewer than
    SIM_MFIT_MIN_EVENTS events leave it unfitted. The interval is the
    events' scatter only: a camera's calibration warp bends every run
    through the same place alike (docs/stats.md gives its size).
*/
#ifndef SIM_MFIT_H_INCLUDED
#define SIM_MFIT_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Events below this leave a parameter unfitted (an interval from two is
   twelve standard errors wide). */
#define SIM_MFIT_MIN_EVENTS 3

/* Samples kept (ball, heights and robot sightings; 24 to 40 bytes each,
   twice that while fitting): about 3.8 hours of a game with 22 robots
   (docs/stats.md). Later samples are dropped and the result says so. */
#define SIM_MFIT_MAX_SAMPLES ((size_t) 30000000)

typedef struct sim_mfit_t sim_mfit_t;

/* One fitted parameter: the estimate, its 95 % interval, and how many
   events it came from (fewer than SIM_MFIT_MIN_EVENTS: not fitted, the
   estimate is what the events gave or 0). */
typedef struct {
    double value, lo, hi;
    int events;
} sim_mfit_param_t;

typedef struct {
    sim_mfit_param_t acc, brake, vel;       /* m/s^2, m/s^2, m/s (magnitudes) */
    sim_mfit_param_t acc_w, brake_w, vel_w; /* rad/s^2, rad/s^2, rad/s */
    sim_mfit_param_t kick, chip;            /* fastest flat kick and chip seen, m/s */
    int robots;                             /* robots of the team with a track */
} sim_mfit_team_t;

typedef struct {
    /* flat kicks: slide and roll deceleration (magnitudes, m/s^2), the
       switch ratio k (speed at the switch / kick speed) */
    sim_mfit_param_t slide, roll, k_switch;
    double roll_speed_coefficient; /* the b that was held (1/s) */
    int runs;                      /* straight runs found (before the fit's checks) */
    /* chip hops: kept share of the vertical and horizontal speed at the
       first bounce after a kick and at later ones */
    sim_mfit_param_t z_first, z_other, xy_first, xy_other;
    int flights;      /* flights seen */
    bool has_heights; /* the log gave ball heights at all */
    /* the same from vision alone (sim_mfit_vchip.c), whether or not the
       log had heights; without heights the keys above are these */
    struct {
        sim_mfit_param_t z_first, z_other, xy_first, xy_other;
        sim_mfit_param_t chip[2]; /* fastest chip seen, [0] yellow, [1] blue */
        int flights;              /* flights fitted */
        int cameras;              /* cameras whose position the geometry gave */
    } vision;
    bool truncated;          /* SIM_MFIT_MAX_SAMPLES reached: the rest was not read */
    sim_mfit_team_t team[2]; /* [0] yellow, [1] blue */
} sim_mfit_result_t;

/* A new, empty fitter; NULL when out of memory. */
sim_mfit_t *sim_mfit_new (void);

/* Safe on NULL; nulls *self_p. */
void sim_mfit_destroy (sim_mfit_t **self_p);

/* One SSL_WrapperPacket. Returns 0, or -1 when it does not decode. */
int sim_mfit_add_vision (sim_mfit_t *self, const void *data, size_t len);

/* One TrackerWrapperPacket (its ball heights). Returns 0 or -1. */
int sim_mfit_add_tracker (sim_mfit_t *self, const void *data, size_t len);

/* The same, from decoded values (SI units; for tests and other sources).
   A ball sample's `z` is NAN when the source has no height; `camera` is
   the source camera (heights: any). Robot team 0 yellow, 1 blue. Samples
   of one camera must come in time order. */
void sim_mfit_add_ball (sim_mfit_t *self, int camera, double t, double x, double y, double z);
void sim_mfit_add_height (sim_mfit_t *self, double t, double x, double y, double z);
void sim_mfit_add_robot (sim_mfit_t *self, int camera, int team, int id, double t, double x, double y,
                         double phi);
/* A camera's position (m; z its height above the floor), as a geometry
   packet's derived_camera_world_t* gives it; the latest one counts. */
void sim_mfit_add_camera (sim_mfit_t *self, int camera, double x, double y, double z);

/* Fit everything so far into *out (self is not changed), holding the
   rolling speed term at `roll_speed_coefficient` (1/s) and taking the
   ball radius `ball_radius` (m) as its height at rest. */
void sim_mfit_fit (const sim_mfit_t *self, double roll_speed_coefficient, double ball_radius,
                   sim_mfit_result_t *out);

#endif

/*  sim_mfit_internal.h - what the motion fitter's files share (private
    to common/logs/sim_mfit.c: the samples, the numerics and the fit;
    sim_mfit_ball.c: flat kicks and chip flights from heights;
    sim_mfit_vchip.c: chip flights from vision alone; sim_mfit_robot.c:
    the robots' limits and the kick caps). See sim_mfit.h.
*/
#ifndef SIM_MFIT_INTERNAL_H_INCLUDED
#define SIM_MFIT_INTERNAL_H_INCLUDED

#include <stdbool.h>
#include <stddef.h>

#include "sim_mfit.h"

#define MFIT_CAMS 16
#define MFIT_IDS  16
#define MFIT_G    9.81
#define MFIT_GAP  0.05 /* s: a longer pause between samples breaks a track */
/* s: the ball's tracks also bridge a few lost frames (burst losses) */
#define MFIT_BALL_GAP 0.1
#define MFIT_NEAR     0.2  /* m: a ball this close to a robot's centre may touch it */
#define MFIT_KICKR    0.25 /* m: a robot this close to a run's start kicked it */
#define MFIT_WIN      0.1  /* s: half width of a robot sample's quadratic */
/* faster than any robot moves or turns between two frames: a teleport */
#define MFIT_JUMP_V  8.0  /* m/s */
#define MFIT_JUMP_W  40.0 /* rad/s */
#define MFIT_LSQ_MAX 6    /* columns mfit_lsq_wide solves for */

typedef struct {
    double t, x, y, z;
} mfit_pt_t;

/* 24 bytes a robot sighting (floats hold field positions to a micrometre) */
typedef struct {
    double t;
    float x, y, phi;
    int cam;
} mfit_rs_t;

typedef struct {
    void *v;
    size_t n, cap;
} mfit_arr_t;

struct sim_mfit_t {
    mfit_arr_t ball[MFIT_CAMS];    /* mfit_pt_t, one per detection frame */
    mfit_arr_t height;             /* mfit_pt_t with z */
    mfit_arr_t robot[2][MFIT_IDS]; /* mfit_rs_t */
    double last_x[MFIT_CAMS], last_y[MFIT_CAMS];
    bool has_last[MFIT_CAMS];
    /* each camera's position from the geometry (m; z its height) */
    double cam_x[MFIT_CAMS], cam_y[MFIT_CAMS], cam_z[MFIT_CAMS];
    bool has_cam[MFIT_CAMS];
    size_t samples; /* kept so far, at most SIM_MFIT_MAX_SAMPLES */
    bool truncated;
};

/* A growable list of event estimates. */
typedef struct {
    double *v;
    int n, cap;
} mfit_list_t;

/* Sorted copies of every robot's samples (all cameras). */
typedef struct {
    mfit_rs_t *r[2][MFIT_IDS];
    size_t n[2][MFIT_IDS];
} mfit_robots_t;

typedef struct {
    mfit_list_t slide, roll, k, kick[2];
    double period; /* median frame period seen, s */
    int runs;
    const double *air; /* [take-off, landing] of every flight the heights showed */
    int n_air;
} mfit_ball_acc_t;

typedef struct {
    mfit_list_t z_first, z_other, xy_first, xy_other, chip[2];
    mfit_list_t air; /* take-off and landing of each flight, in turn */
    int flights;
} mfit_chip_acc_t;

/* One flight between two ground contacts, however it was measured. */
typedef struct {
    double ta, tb, vz_up, vz_down, vxy, x, y; /* take-off, landing; ground speed; take-off point */
} mfit_flight_t;

/* Flights in time order make bounces: the state between two. */
typedef struct {
    mfit_flight_t prev;
    bool have_prev, prev_first;
} mfit_chain_t;

/* ---- sim_mfit.c: numerics and the robots near the ball ---- */
void mfit_list_push (mfit_list_t *l, double x);
int mfit_cmp_t (const void *a, const void *b); /* qsort by a leading double (time) */
mfit_pt_t *mfit_sorted (const mfit_arr_t *a);  /* a sorted copy to free; NULL when empty or no memory */
double mfit_lsq (const double *x, const double *y, size_t n, int k, double *beta);
double mfit_lsq_wide (const double *x, const double *y, size_t n, int k, int stride, double *beta);
double mfit_nearest_robot (const mfit_robots_t *rb, double t, double x, double y, int *team);
void mfit_param (const double *v, int n, sim_mfit_param_t *out);
double mfit_quantile (double *v, size_t n, double q);

/* ---- sim_mfit_ball.c ---- */
void mfit_ball_track (const mfit_pt_t *p, size_t n, const mfit_robots_t *rb, double b, mfit_ball_acc_t *acc);
void mfit_heights (const mfit_pt_t *p, size_t n, double r, const mfit_robots_t *rb, mfit_chip_acc_t *acc);
void mfit_chain_add (mfit_chain_t *ch, const mfit_flight_t *f, const mfit_robots_t *rb, mfit_chip_acc_t *acc);

/* ---- sim_mfit_vchip.c ---- */
void mfit_vision_chips (const sim_mfit_t *self, const mfit_robots_t *rb, mfit_chip_acc_t *acc);

/* ---- sim_mfit_robot.c ---- */
void mfit_cap (const mfit_list_t *l, double slide, double period, sim_mfit_param_t *out);
void mfit_team (const mfit_robots_t *rb, int team, sim_mfit_team_t *out);

#endif

/*  sim_frames.h - what a viewer can check of vision's detection frames
    over a whole run: per camera, whether frame numbers and capture times
    ever went back, repeated or skipped (a lost packet). Used by the fault
    and flood tests, which read the vision port while they disturb the
    simulator.
*/
#ifndef SIM_FRAMES_H_INCLUDED
#define SIM_FRAMES_H_INCLUDED

#include <stdbool.h>
#include <stdint.h>

#include "ssl_vision_detection.pb-c.h"

#define SIM_FRAMES_CAMERAS 8

typedef struct {
    int frames;    /* detection frames counted */
    int back;      /* frame numbers lower than one seen before on that camera */
    int repeats;   /* frame numbers equal to the highest seen before */
    int missing;   /* numbers skipped between consecutive frames (lost packets) */
    int time_back; /* capture times earlier than one seen before on that camera */
    bool seen[SIM_FRAMES_CAMERAS];
    uint32_t first[SIM_FRAMES_CAMERAS], last[SIM_FRAMES_CAMERAS]; /* per camera */
    double last_t[SIM_FRAMES_CAMERAS];                            /* newest t_capture, s */
    char first_problem[160]; /* the first back, repeat or skip, for the message */
} sim_frames_t;

/* Nothing seen yet. */
void sim_frames_init (sim_frames_t *self);

/* Count one detection frame. Frames of cameras SIM_FRAMES_CAMERAS and above
   are counted in `frames` only. */
void sim_frames_add (sim_frames_t *self, const SSLDetectionFrame *d);

/* Read every datagram waiting on vision socket fd into *self; returns how
   many detection frames came. With `fn`, it is called for each one. */
int sim_frames_read (sim_frames_t *self, int fd, void (*fn) (void *arg, const SSLDetectionFrame *d),
                     void *arg);

#endif

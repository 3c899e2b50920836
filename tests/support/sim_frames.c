/*  sim_frames.c - per-camera continuity of vision's detection frames. */
#include "sim_frames.h"

#include <stdio.h>
#include <string.h>

#include "sim_test.h"
#include "ssl_vision_wrapper.pb-c.h"

void
sim_frames_init (sim_frames_t *self)
{
    memset (self, 0, sizeof *self);
}

static void
s_problem (sim_frames_t *self, const char *what, unsigned camera, uint32_t before, uint32_t now)
{
    if (self->first_problem[0] == '\0')
        snprintf (self->first_problem, sizeof self->first_problem, "camera %u: frame %u after %u (%s)",
                  camera, now, before, what);
}

void
sim_frames_add (sim_frames_t *self, const SSLDetectionFrame *d)
{
    self->frames++;
    if (d->camera_id >= SIM_FRAMES_CAMERAS)
        return;
    unsigned c = d->camera_id;
    uint32_t n = d->frame_number;
    if (!self->seen[c]) {
        self->seen[c] = true;
        self->first[c] = self->last[c] = n;
        self->last_t[c] = d->t_capture;
        return;
    }
    if (n < self->last[c]) {
        self->back++;
        s_problem (self, "back", c, self->last[c], n);
    } else if (n == self->last[c]) {
        self->repeats++;
        s_problem (self, "repeated", c, self->last[c], n);
    } else {
        if (n > self->last[c] + 1) {
            self->missing += (int) (n - self->last[c] - 1);
            s_problem (self, "skipped", c, self->last[c], n);
        }
        self->last[c] = n;
    }
    if (d->t_capture < self->last_t[c])
        self->time_back++;
    else
        self->last_t[c] = d->t_capture;
}

int
sim_frames_read (sim_frames_t *self, int fd, void (*fn) (void *arg, const SSLDetectionFrame *d), void *arg)
{
    uint8_t buf[65536];
    int count = 0;
    ssize_t n;
    while ((n = sim_test_recv (fd, buf, sizeof buf, 0)) >= 0) {
        SSLWrapperPacket *w = ssl__wrapper_packet__unpack (NULL, (size_t) n, buf);
        if (w && w->detection) {
            sim_frames_add (self, w->detection);
            if (fn)
                fn (arg, w->detection);
            count++;
        }
        if (w)
            ssl__wrapper_packet__free_unpacked (w, NULL);
    }
    return count;
}

/*  phys_image.c - the world as one saved image (checkpoints, the journal's
    snapshots): save, and load, which treats the image as outside input:
    every count, index, number and flag the code relies on is checked
    before any of it is read, and derived values and caches are rebuilt
    rather than trusted.
*/
#include "phys_world.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "phys_check.h" /* phys_sane */
#include "phys_internal.h"

size_t
phys_world_image_size (void)
{
    return sizeof (phys_world_t);
}

void
phys_world_save (const phys_world_t *self, void *buf)
{
    memcpy (buf, self, sizeof *self);
    /* the lanes' constants are a copy the loader rebuilds: left out, so
       the image is the same whichever path stepped the world */
    char *image = buf; /* any alignment */
    memset (image + offsetof (phys_world_t, lane_consts_valid), 0, sizeof self->lane_consts_valid);
    memset (image + offsetof (phys_world_t, lane_consts), 0, sizeof self->lane_consts);
}

static bool
s_finite_all (const double *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite (v[i]))
            return false;
    return true;
}

/* Whether the byte of a loaded bool is 0 or 1: any other value makes
   reading it as a bool undefined (memcpy reads the byte as a byte). */
static bool
s_bool_ok (const bool *b)
{
    unsigned char v;
    memcpy (&v, b, 1);
    return v <= 1;
}

/* Whether a loaded enum holds one of its values 0..max. */
static bool
s_enum_ok (const void *e, size_t size, unsigned max)
{
    unsigned v = 0;
    memcpy (&v, e, size < sizeof v ? size : sizeof v);
    return v <= max;
}

/* The bools and enums of a robot's specs (in the world's team specs too). */
static bool
s_specs_flags_ok (const sim_robot_specs_t *s)
{
    return s_bool_ok (&s->dribbler.glue)
        && s_enum_ok (&s->drive.model, sizeof s->drive.model, SIM_DRIVE_IDEAL);
}

/* Every bool and enum a loaded image holds that the code reads, checked
   before any of them is read (fuzz_checkpoint found one read as a bool
   with the byte 110). A bool or enum added to phys_world_t, phys_robot_t
   or the parameter structs they hold belongs here. */
static bool
s_flags_ok (const phys_world_t *w)
{
    if (!s_bool_ok (&w->ball_force_active) || !s_bool_ok (&w->was_outside_field)
        || !s_bool_ok (&w->near_valid) || !s_bool_ok (&w->lane_consts_valid)
        || !s_bool_ok (&w->exhaustive_contacts) || !s_bool_ok (&w->scalar_robots)
        || !s_bool_ok (&w->contact.robot_hull_chord_contacts) || !s_bool_ok (&w->realism.simulate_dribbling)
        || !s_specs_flags_ok (&w->team_specs[0]) || !s_specs_flags_ok (&w->team_specs[1]))
        return false;
    for (int k = 0; k < w->robot_count; k++) {
        const phys_robot_t *r = &w->robots[k];
        if (!s_bool_ok (&r->force_active) || !s_bool_ok (&r->charged) || !s_bool_ok (&r->drib_active)
            || !s_bool_ok (&r->holding) || !s_bool_ok (&r->ball_contact) || !s_bool_ok (&r->ideal)
            || !s_specs_flags_ok (&r->specs)
            || !s_enum_ok (&r->cmd.move, sizeof r->cmd.move, PHYS_MOVE_WHEELS))
            return false;
    }
    return true;
}

/* A loaded image is outside input: check what the code relies on. */
static bool
s_image_ok (const phys_world_t *w)
{
    if (w->dt_ns == 0 || !(w->dt > 0) || !phys_sane (w->geom.wall_height) || w->geom.wall_height < 0
        || w->robot_count < 0 || w->robot_count > PHYS_MAX_ROBOTS || w->event_count < 0
        || w->event_count > PHYS_MAX_EVENTS || w->sap_count > PHYS_CONTACT_ROBOTS || w->in_goal < -1
        || w->in_goal > 1 || !s_flags_ok (w))
        return false;
    if (!phys_def_parts_ok (&w->ball_cfg, &w->contact, &w->realism, &w->geom.field)
        || phys_specs_validate (&w->team_specs[0]) != 0 || phys_specs_validate (&w->team_specs[1]) != 0)
        return false;
    const phys_ball_state_t *b = &w->ball;
    if (!s_finite_all ((const double[]) { b->x, b->y, b->z, b->vx, b->vy, b->vz, b->sx, b->sy }, 8))
        return false;
    for (int t = 0; t < 2; t++)
        for (int id = 0; id <= SIM_MAX_ROBOT_ID; id++) {
            int k = w->slot[t][id];
            if (k < -1 || k >= w->robot_count
                || (k >= 0 && (w->robots[k].team != t || w->robots[k].id != id)))
                return false;
        }
    int prev_key = -1;
    for (int k = 0; k < w->robot_count; k++) {
        const phys_robot_t *r = &w->robots[k];
        if (r->team < 0 || r->team > 1 || r->id < 0 || r->id > SIM_MAX_ROBOT_ID
            || w->slot[r->team][r->id] != k)
            return false;
        int key = r->team * (SIM_MAX_ROBOT_ID + 1) + r->id;
        if (key <= prev_key)
            return false;
        prev_key = key;
        if (phys_specs_validate (&r->specs) != 0
            || !s_finite_all ((const double[]) { r->x, r->y, r->theta, r->vx, r->vy, r->omega, r->sp[0],
                                                 r->sp[1], r->sp[2], r->hold_accel_actual },
                              10))
            return false;
    }
    for (int i = 0; i < w->sap_count; i++)
        if (w->sap_order[i] >= w->sap_count)
            return false;
    return true;
}

phys_world_t *
phys_world_load (const void *buf, size_t len)
{
    if (!buf || len != sizeof (phys_world_t))
        return NULL;
    phys_world_t *self = malloc (sizeof *self);
    if (!self)
        return NULL;
    memcpy (self, buf, sizeof *self);
    if (!s_image_ok (self)) {
        free (self);
        return NULL;
    }
    /* derived values and caches are rebuilt, not trusted */
    for (int k = 0; k < self->robot_count; k++) {
        phys_robot_t *r = &self->robots[k];
        phys_robot_refresh (r);
        phys_robot_set_theta (r, r->theta);
        phys_robot_solve_wheels (r);
    }
    self->sap_count = -1;
    self->lane_consts_valid = false;
    phys_geom_build (&self->geom, &self->geom.field, self->geom.wall_height);
    return self;
}

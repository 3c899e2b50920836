/*  vw_json.c - the viewer's JSON messages (vw_json.h); the page's ops are
    parsed in vw_json_op.c. */
#include "vw_json.h"
#include "vw_json_internal.h"
#include "vw_json_game.h"

#include <cjson/cJSON.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "common/base/sim_field.h"
#include "common/base/sim_team.h"
#include "common/config/sim_schedule_config.h"
#include "ssl_vision_wrapper.pb-c.h"

/* One colour per camera index, distinct on the green field. */
static const char *const s_camera_colors[] = { "#e6550d", "#3182bd", "#31a354", "#756bb1",
                                               "#de2d26", "#636363", "#fdae6b", "#9ecae1" };

/* Add `item` under `key`, a string literal: cJSON keeps the pointer
   instead of a copy (a "world" has a thousand keys, 60 times a second). */
static void
s_add (cJSON *obj, const char *key, cJSON *item)
{
    if (item && !cJSON_AddItemToObjectCS (obj, key, item))
        cJSON_Delete (item);
}

char *
vw_json_print (cJSON *root)
{
    /* a "world" is a few KiB: one buffer of that size, not a dozen reallocs */
    char *text = root ? cJSON_PrintBuffered (root, 8192, 0) : NULL;
    cJSON_Delete (root);
    return text;
}

cJSON *
vw_json_typed (const char *type)
{
    cJSON *root = cJSON_CreateObject ();
    if (root)
        cJSON_AddStringToObject (root, "type", type);
    return root;
}

/* Numbers the page draws: rounded to a micrometre (or a microsecond),
   which also keeps float noise out of the text. */
static double
s_round6 (double v)
{
    return isfinite (v) ? round (v * 1e6) / 1e6 : 0;
}

/* Format v to a micrometre into text (at least 24 bytes): the digits of
   whole micrometres, without trailing zeros; returns its length. Not
   printf("%.6f") and not cJSON's printer, because cJSON prints every
   number with up to 17 digits and reads each back to check, which was most
   of the cost of a "world" (bench/viewer.c). */
static int
s_format_micro (double v, char *text)
{
    double r = s_round6 (v);
    if (!(fabs (r) < 9e12)) {
        text[0] = '0';
        text[1] = '\0';
        return 1;
    }
    long long micro = llround (r * 1e6);
    bool negative = micro < 0;
    unsigned long long u = (unsigned long long) (negative ? -micro : micro);
    char digits[32];
    int n = 0;
    /* the fraction's digits, least significant first, without trailing zeros */
    unsigned long long frac = u % 1000000, whole = u / 1000000;
    int places = 6;
    while (places > 0 && frac % 10 == 0) {
        frac /= 10;
        places--;
    }
    for (int i = 0; i < places; i++) {
        digits[n++] = (char) ('0' + frac % 10);
        frac /= 10;
    }
    if (places > 0)
        digits[n++] = '.';
    do {
        digits[n++] = (char) ('0' + whole % 10);
        whole /= 10;
    } while (whole > 0);
    if (negative && u != 0)
        digits[n++] = '-';
    for (int i = 0; i < n; i++)
        text[i] = digits[n - 1 - i];
    text[n] = '\0';
    return n;
}

void
vw_json_num (cJSON *obj, const char *key, double v)
{
    char text[32];
    s_format_micro (v, text);
    s_add (obj, key, cJSON_CreateRaw (text));
}

char *
vw_json_hello (sim_mode_t mode, uint64_t seed)
{
    cJSON *root = vw_json_typed ("hello");
    if (!root)
        return NULL;
    cJSON_AddNumberToObject (root, "version", VW_PROTOCOL_VERSION);
    cJSON_AddStringToObject (root, "mode", sim_config_mode_name (mode));
    /* a seed above 2^53 would lose digits as a JSON number */
    cJSON_AddNumberToObject (root, "seed", (double) seed);
    return vw_json_print (root);
}

/* The half-open extent of camera i's region along one axis: halfway to
   the nearest camera on each side, the field's outer edge where there is
   none (the auto-placed rigs are grids, so this is their own split). */
static void
s_region_axis (const sim_rig_t *rig, int i, bool along_x, double edge, double *lo, double *hi)
{
    double c = along_x ? rig->cams[i].x : rig->cams[i].y;
    *lo = -edge;
    *hi = edge;
    for (int k = 0; k < rig->count; k++) {
        double o = along_x ? rig->cams[k].x : rig->cams[k].y;
        if (o < c - 1e-9 && (o + c) / 2 > *lo)
            *lo = (o + c) / 2;
        if (o > c + 1e-9 && (o + c) / 2 < *hi)
            *hi = (o + c) / 2;
    }
}

char *
vw_json_geometry (const sim_config_t *cfg)
{
    sim_field_t f;
    sim_field_resolve (&cfg->field, cfg->run.division, &f);
    cJSON *root = vw_json_typed ("geometry");
    cJSON *field = cJSON_AddObjectToObject (root, "field");
    cJSON *cams = cJSON_AddArrayToObject (root, "cameras");
    if (!field || !cams) {
        cJSON_Delete (root);
        return NULL;
    }
    vw_json_num (field, "length", f.length);
    vw_json_num (field, "width", f.width);
    vw_json_num (field, "goal_width", f.goal_width);
    vw_json_num (field, "goal_depth", f.goal_depth);
    vw_json_num (field, "boundary_width", f.boundary_width);
    vw_json_num (field, "boundary_width_goal_line", sim_field_goal_line_margin (&f));
    vw_json_num (field, "goal_substitution_area_width", f.goal_substitution_area_width);
    vw_json_num (field, "penalty_area_depth", f.penalty_area_depth);
    vw_json_num (field, "penalty_area_width", f.penalty_area_width);
    vw_json_num (field, "center_circle_radius", f.center_circle_radius);
    vw_json_num (field, "line_thickness", f.line_thickness);
    vw_json_num (field, "ball_radius", cfg->ball.radius);
    sim_rig_t rig;
    sim_rig_resolve (cfg, &rig);
    double ex = f.length / 2 + sim_field_goal_line_margin (&f), ey = f.width / 2 + f.boundary_width;
    for (int i = 0; i < rig.count; i++) {
        cJSON *c = cJSON_CreateObject ();
        if (!c || !cJSON_AddItemToArray (cams, c)) {
            cJSON_Delete (c);
            break;
        }
        const sim_camera_cfg_t *cam = &rig.cams[i];
        cJSON_AddNumberToObject (c, "id", cam->id);
        vw_json_num (c, "x", cam->x);
        vw_json_num (c, "y", cam->y);
        vw_json_num (c, "z", cam->z);
        vw_json_num (c, "fov_radius", cfg->vision.fov_radius);
        cJSON *region = cJSON_AddObjectToObject (c, "region");
        double lo, hi;
        s_region_axis (&rig, i, true, ex, &lo, &hi);
        vw_json_num (region, "x_min", lo);
        vw_json_num (region, "x_max", hi);
        s_region_axis (&rig, i, false, ey, &lo, &hi);
        vw_json_num (region, "y_min", lo);
        vw_json_num (region, "y_max", hi);
        cJSON_AddStringToObject (c, "color", s_camera_colors[(unsigned) cam->id % 8]);
    }
    return vw_json_print (root);
}

static const char *
s_team (int team)
{
    return sim_team_name (team);
}

/* ---- the "world" -----------------------------------------------------

   A page at 60 Hz gets sixty of these a second, each some 4 KiB with a
   thousand numbers: built as a cJSON tree that is a thousand nodes and two
   thousand allocations per world, which was a fifth of the viewer's cost
   (bench/viewer.c). Its schema is fixed and every string in it is a
   literal of this file (keys, "blue"/"yellow"), so nothing needs escaping:
   it is written straight into a buffer that lives from one world to the
   next. Everything else the viewer says, and every parse of what a page
   says, stays cJSON's. */

void
vw_text_free (vw_text_t *text)
{
    free (text->buf);
    *text = (vw_text_t) { 0 };
}

/* A literal: keys, punctuation, team names. */
static void
s_put (vw_text_t *t, const char *s)
{
    sim_out_len (t, s, strlen (s));
}

/* `"key":` is in `key` (with its punctuation), then the number. */
static void
s_put_num (vw_text_t *t, const char *key, double v)
{
    char num[32];
    s_put (t, key);
    sim_out_len (t, num, (size_t) s_format_micro (v, num));
}

static void
s_put_int (vw_text_t *t, const char *key, long long v)
{
    char num[24];
    int n = snprintf (num, sizeof num, "%lld", v);
    s_put (t, key);
    sim_out_len (t, num, (size_t) n);
}

static void
s_put_vision (vw_text_t *t, const SSLWrapperPacket *w, bool first)
{
    const SSLDetectionFrame *d = w->detection;
    s_put_int (t, first ? "{\"camera\":" : ",{\"camera\":", d->camera_id);
    s_put_int (t, ",\"frame\":", d->frame_number);
    s_put_num (t, ",\"t_capture\":", d->t_capture);
    s_put (t, ",\"balls\":[");
    for (size_t i = 0; i < d->n_balls; i++) {
        const SSLDetectionBall *b = d->balls[i];
        /* vision speaks millimetres; the page metres */
        s_put_num (t, i ? ",{\"x\":" : "{\"x\":", b->x / 1000.0);
        s_put_num (t, ",\"y\":", b->y / 1000.0);
        s_put_num (t, ",\"z\":", b->has_z ? b->z / 1000.0 : 0);
        s_put_num (t, ",\"conf\":", b->confidence);
        s_put (t, "}");
    }
    s_put (t, "],\"robots\":[");
    bool any = false;
    for (int team = 0; team < 2; team++) {
        size_t n = team ? d->n_robots_yellow : d->n_robots_blue;
        SSLDetectionRobot **list = team ? d->robots_yellow : d->robots_blue;
        for (size_t i = 0; i < n; i++) {
            const SSLDetectionRobot *r = list[i];
            s_put (t, any ? ",{\"team\":\"" : "{\"team\":\"");
            s_put (t, s_team (team));
            s_put_int (t, "\",\"id\":", r->has_robot_id ? (long long) r->robot_id : -1);
            s_put_num (t, ",\"x\":", r->x / 1000.0);
            s_put_num (t, ",\"y\":", r->y / 1000.0);
            s_put_num (t, ",\"o\":", r->has_orientation ? r->orientation : 0);
            s_put_num (t, ",\"conf\":", r->confidence);
            s_put (t, "}");
            any = true;
        }
    }
    s_put (t, "]}");
}

static void
s_put_command (vw_text_t *t, const vw_command_t *c, bool first)
{
    static const char *const moves[] = { [PHYS_MOVE_NONE] = "none",
                                         [PHYS_MOVE_LOCAL] = "local",
                                         [PHYS_MOVE_GLOBAL] = "global",
                                         [PHYS_MOVE_WHEELS] = "wheels" };
    const phys_command_t *m = &c->cmd;
    s_put (t, first ? "{\"team\":\"" : ",{\"team\":\"");
    s_put (t, s_team (c->team));
    s_put_int (t, "\",\"id\":", c->id);
    s_put_num (t, ",\"t\":", c->t);
    s_put_int (t, ",\"count\":", (long long) c->count);
    s_put (t, ",\"move\":\"");
    s_put (t, moves[m->move]);
    s_put (t, "\"");
    if (m->move != PHYS_MOVE_NONE) {
        s_put_num (t, ",\"v\":[", m->v[0]);
        s_put_num (t, ",", m->v[1]);
        s_put_num (t, ",", m->v[2]);
        if (m->move == PHYS_MOVE_WHEELS)
            s_put_num (t, ",", m->v[3]);
        s_put (t, "]");
    }
    if (c->has_kick_speed)
        s_put_num (t, ",\"kick_speed\":", m->kick_speed);
    if (c->has_kick_angle)
        s_put_num (t, ",\"kick_angle\":", m->kick_angle_deg);
    if (c->has_dribbler)
        s_put_num (t, ",\"dribbler\":", m->dribbler_rpm);
    if (c->has_contact)
        s_put (t, c->contact ? ",\"contact\":true" : ",\"contact\":false");
    s_put (t, "}");
}

const char *
vw_json_world_into (const vw_world_t *world, vw_text_t *t)
{
    t->len = 0;
    t->oom = false;
    const sim_snapshot_t *s = world->truth;
    s_put_num (t, "{\"type\":\"world\",\"t\":", s ? (double) s->time_ns / 1e9 : world->t);
    s_put (t, world->paused ? ",\"paused\":true,\"ball\":{" : ",\"paused\":false,\"ball\":{");
    if (s) {
        s_put_num (t, "\"x\":", s->ball.x);
        s_put_num (t, ",\"y\":", s->ball.y);
        s_put_num (t, ",\"z\":", s->ball.z);
        s_put_num (t, ",\"vx\":", s->ball.vx);
        s_put_num (t, ",\"vy\":", s->ball.vy);
        s_put_num (t, ",\"vz\":", s->ball.vz);
    }
    s_put (t, "},\"robots\":[");
    for (int i = 0; s && i < s->robot_count && i < SIM_SNAPSHOT_MAX_ROBOTS; i++) {
        const sim_robot_state_t *r = &s->robots[i];
        s_put (t, i ? ",{\"team\":\"" : "{\"team\":\"");
        s_put (t, s_team (r->team));
        s_put_int (t, "\",\"id\":", r->id);
        s_put_num (t, ",\"x\":", r->x);
        s_put_num (t, ",\"y\":", r->y);
        s_put_num (t, ",\"o\":", r->orientation);
        s_put_num (t, ",\"vx\":", r->vx);
        s_put_num (t, ",\"vy\":", r->vy);
        s_put_num (t, ",\"w\":", r->omega);
        s_put (t, r->ball_contact ? ",\"contact\":true" : ",\"contact\":false");
        s_put_num (t, ",\"r\":", r->radius);
        s_put_num (t, ",\"h\":", r->height);
        s_put (t, "}");
    }
    s_put (t, "],\"kicks\":[");
    for (int i = 0; i < world->n_kicks; i++) {
        s_put (t, i ? ",{\"team\":\"" : "{\"team\":\"");
        s_put (t, s_team (world->kicks[i].team));
        s_put_int (t, "\",\"id\":", world->kicks[i].id);
        s_put_num (t, ",\"speed\":", world->kicks[i].speed);
        s_put_num (t, ",\"t\":", world->kicks[i].t);
        s_put (t, "}");
    }
    s_put (t, "],\"commands\":[");
    for (int i = 0; i < world->n_commands; i++)
        s_put_command (t, world->commands[i], i == 0);
    s_put (t, "],\"vision\":[");
    bool first = true;
    for (int i = 0; i < world->n_frames; i++) {
        const SSLWrapperPacket *w = world->frames[i];
        if (w && w->detection) {
            s_put_vision (t, w, first);
            first = false;
        }
    }
    s_put (t, "]}");
    return t->oom ? NULL : t->buf;
}

char *
vw_json_world (const vw_world_t *world)
{
    vw_text_t t = { 0 };
    const char *text = vw_json_world_into (world, &t);
    char *copy = text ? strdup (text) : NULL;
    vw_text_free (&t);
    return copy;
}

char *
vw_json_status (const vw_status_t *st)
{
    cJSON *root = vw_json_typed ("status");
    if (!root)
        return NULL;
    vw_json_num (root, "t", st->t);
    cJSON_AddStringToObject (root, "mode", sim_config_mode_name (st->mode));
    vw_json_num (root, "speed", st->speed);
    cJSON_AddBoolToObject (root, "paused", st->paused);
    vw_json_num (root, "rtf", st->rtf);
    vw_json_num (root, "substep_us", st->substep_us);
    cJSON *cams = cJSON_AddArrayToObject (root, "cameras");
    for (int i = 0; cams && i < st->n_cameras; i++) {
        cJSON *c = cJSON_CreateObject ();
        if (!c || !cJSON_AddItemToArray (cams, c)) {
            cJSON_Delete (c);
            break;
        }
        cJSON_AddNumberToObject (c, "id", st->cameras[i].id);
        vw_json_num (c, "pps", st->cameras[i].pps);
        cJSON_AddNumberToObject (c, "packets", (double) st->cameras[i].packets);
    }
    cJSON *ports = cJSON_AddArrayToObject (root, "ports");
    for (int i = 0; ports && i < st->n_ports; i++) {
        const vw_port_rate_t *p = &st->ports[i];
        cJSON *o = cJSON_CreateObject ();
        if (!o || !cJSON_AddItemToArray (ports, o)) {
            cJSON_Delete (o);
            break;
        }
        cJSON_AddStringToObject (o, "name", p->name);
        cJSON_AddNumberToObject (o, "port", p->port);
        vw_json_num (o, "rate", p->rate);
        cJSON_AddNumberToObject (o, "received", (double) p->received);
        cJSON_AddNumberToObject (o, "refused", (double) p->refused);
        cJSON_AddNumberToObject (o, "lost", (double) p->lost);
        cJSON *src = cJSON_AddArrayToObject (o, "sources");
        for (int k = 0; src && k < p->n_sources; k++)
            cJSON_AddItemToArray (src, cJSON_CreateString (p->sources[k]));
    }
    vw_json_num (root, "loss", st->loss);
    cJSON_AddStringToObject (root, "realism", st->realism);
    cJSON_AddNumberToObject (root, "camera_count", st->camera_count);
    cJSON *services = cJSON_AddObjectToObject (root, "services");
    cJSON *restarts = cJSON_AddObjectToObject (root, "restarts");
    for (int i = 0; services && restarts && i < VW_SERVICES; i++) {
        cJSON_AddBoolToObject (services, sim_service_names[i], st->alive[i]);
        cJSON_AddNumberToObject (restarts, sim_service_names[i], st->restarts[i]);
    }
    vw_json_num (root, "uptime_s", st->uptime_s[0]);
    if (st->has_latency) {
        /* absent when vision measured none in its last second: a gap on the plot */
        vw_json_num (root, "latency_ms", st->latency_p50_ms);
        vw_json_num (root, "latency_p90_ms", st->latency_p90_ms);
        vw_json_num (root, "latency_max_ms", st->latency_max_ms);
        cJSON_AddNumberToObject (root, "latency_count", st->latency_period_count);
    }
    if (st->viewer_port > 0)
        cJSON_AddNumberToObject (root, "viewer_port", st->viewer_port);
    if (st->has_referee)
        vw_json_referee (root, &st->referee, st->referee_age_s);
    cJSON *player = st->has_player ? cJSON_AddObjectToObject (root, "player") : NULL;
    if (player) {
        vw_json_num (player, "t", st->player_t);
        vw_json_num (player, "duration", st->player_duration);
        vw_json_num (player, "speed", st->player_speed);
        cJSON_AddBoolToObject (player, "paused", st->player_paused);
        cJSON_AddBoolToObject (player, "ended", st->player_ended);
        if (st->player_next_command >= 0)
            vw_json_num (player, "next_command", st->player_next_command);
        if (st->player_next_goal >= 0)
            vw_json_num (player, "next_goal", st->player_next_goal);
        if (st->player_journal) {
            cJSON_AddBoolToObject (player, "journal", true);
            vw_json_num (player, "built", st->player_built);
        }
    }
    return vw_json_print (root);
}

char *
vw_json_result (int64_t id, const char *code, const char *message)
{
    cJSON *root = vw_json_typed ("result");
    if (!root)
        return NULL;
    cJSON_AddNumberToObject (root, "id", (double) id);
    cJSON_AddBoolToObject (root, "ok", code == NULL);
    if (code) {
        cJSON_AddStringToObject (root, "code", code);
        cJSON_AddStringToObject (root, "message", message ? message : "");
    }
    return vw_json_print (root);
}

/*  vw_json_op.c - the page's ops parsed into one struct that trusts nothing
    (vw_json_parse_op, vw_json.h): a nesting bound before the parse, then
    the op's name, id and fields, each checked. */
#include "vw_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "common/base/sim_team.h"
#include "common/base/sim_utf8.h"

static const struct {
    const char *name;
    vw_op_kind_t kind;
} s_ops[] = {
    { "next", VW_OP_NEXT },
    { "teleport_ball", VW_OP_TELEPORT_BALL },
    { "teleport_robot", VW_OP_TELEPORT_ROBOT },
    { "reset", VW_OP_RESET },
    { "pause", VW_OP_PAUSE },
    { "resume", VW_OP_RESUME },
    { "step", VW_OP_STEP },
    { "speed", VW_OP_SPEED },
    { "realism", VW_OP_REALISM },
    { "cameras", VW_OP_CAMERAS },
    { "seek", VW_OP_SEEK },
    { "jump", VW_OP_JUMP },
};

/* A finite number field: 0 when absent (present = false), -1 when it is
   there but not a finite number. */
static int
s_number (const cJSON *root, const char *key, double *out, bool *present)
{
    const cJSON *item = cJSON_GetObjectItemCaseSensitive (root, key);
    *present = item != NULL;
    if (!item)
        return 0;
    if (!cJSON_IsNumber (item) || !isfinite (item->valuedouble))
        return -1;
    *out = item->valuedouble;
    return 0;
}

static int
s_fail (char *why, size_t len, const char *fmt, const char *arg)
{
    snprintf (why, len, fmt, arg);
    return -1;
}

/* The numbers of an op: `need` must be there, `opt` may be. */
static int
s_numbers (const cJSON *root, const char *const *need, double *const *need_out, const char *const *opt,
           double *const *opt_out, bool *opt_present, char *why, size_t len)
{
    for (int i = 0; need[i]; i++) {
        bool present;
        if (s_number (root, need[i], need_out[i], &present) || !present)
            return s_fail (why, len, "\"%s\" must be a finite number", need[i]);
    }
    for (int i = 0; opt && opt[i]; i++)
        if (s_number (root, opt[i], opt_out[i], &opt_present[i]))
            return s_fail (why, len, "\"%s\" must be a finite number", opt[i]);
    return 0;
}

static int
s_parse_fields (const cJSON *root, vw_op_t *op, char *why, size_t len)
{
    switch (op->kind) {
    case VW_OP_TELEPORT_BALL: {
        const char *need[] = { "x", "y", NULL };
        double *need_out[] = { &op->x, &op->y };
        const char *opt[] = { "z", "vx", "vy", "vz", NULL };
        double *opt_out[] = { &op->z, &op->vx, &op->vy, &op->vz };
        bool present[4] = { false };
        if (s_numbers (root, need, need_out, opt, opt_out, present, why, len))
            return -1;
        op->has_z = present[0];
        op->has_v = present[1] || present[2] || present[3];
        return 0;
    }
    case VW_OP_TELEPORT_ROBOT: {
        const cJSON *team = cJSON_GetObjectItemCaseSensitive (root, "team");
        int named = cJSON_IsString (team) ? sim_team_parse (team->valuestring) : -1;
        if (named < 0)
            return s_fail (why, len, "%s", "\"team\" must be \"blue\" or \"yellow\"");
        op->team = named;
        const cJSON *robot = cJSON_GetObjectItemCaseSensitive (root, "robot");
        if (!cJSON_IsNumber (robot) || robot->valuedouble < 0 || robot->valuedouble > SIM_MAX_ROBOT_ID
            || robot->valuedouble != floor (robot->valuedouble))
            return s_fail (why, len, "%s", "\"robot\" must be an integer id 0..255");
        op->robot = (int) robot->valuedouble;
        const cJSON *present = cJSON_GetObjectItemCaseSensitive (root, "present");
        if (present && !cJSON_IsBool (present))
            return s_fail (why, len, "%s", "\"present\" must be true or false");
        op->has_present = present != NULL;
        op->present = present == NULL || cJSON_IsTrue (present);
        const char *need[] = { NULL };
        const char *opt[] = { "x", "y", "o", NULL };
        double *opt_out[] = { &op->x, &op->y, &op->o };
        bool got[3] = { false };
        if (s_numbers (root, need, NULL, opt, opt_out, got, why, len))
            return -1;
        /* a missing coordinate goes to the gateway as missing: its answer
           (PARTIAL_COORD, CREATE_NOPOS_ROBOT) is the protocol's */
        op->has_x = got[0];
        op->has_y = got[1];
        op->has_o = got[2];
        return 0;
    }
    case VW_OP_SPEED: {
        const char *need[] = { "value", NULL };
        double *need_out[] = { &op->value };
        if (s_numbers (root, need, need_out, NULL, NULL, NULL, why, len))
            return -1;
        /* it goes out as the protocol's float: beyond FLT_MAX it would be inf */
        if (!(op->value >= 0 && op->value <= FLT_MAX))
            return s_fail (why, len, "%s", "\"value\" must be a speed >= 0");
        return 0;
    }
    case VW_OP_SEEK: {
        const char *need[] = { "t", NULL };
        double *need_out[] = { &op->value };
        if (s_numbers (root, need, need_out, NULL, NULL, NULL, why, len))
            return -1;
        return 0;
    }
    case VW_OP_JUMP: {
        const cJSON *to = cJSON_GetObjectItemCaseSensitive (root, "to");
        if (!cJSON_IsString (to) || (strcmp (to->valuestring, "command") && strcmp (to->valuestring, "goal")))
            return s_fail (why, len, "%s", "\"to\" must be \"command\" or \"goal\"");
        op->to_goal = strcmp (to->valuestring, "goal") == 0;
        return 0;
    }
    case VW_OP_REALISM: {
        const cJSON *preset = cJSON_GetObjectItemCaseSensitive (root, "preset");
        if (!cJSON_IsString (preset) || strlen (preset->valuestring) >= sizeof op->preset)
            return s_fail (why, len, "%s", "\"preset\" must be a preset name");
        snprintf (op->preset, sizeof op->preset, "%s", preset->valuestring);
        return 0;
    }
    case VW_OP_CAMERAS: {
        const cJSON *count = cJSON_GetObjectItemCaseSensitive (root, "count");
        if (!cJSON_IsNumber (count)
            || !(count->valuedouble == 1 || count->valuedouble == 2 || count->valuedouble == 4))
            return s_fail (why, len, "%s", "\"count\" must be 1, 2 or 4");
        op->count = (int) count->valuedouble;
        return 0;
    }
    default:
        return 0;
    }
}

/* Whether the JSON text nests arrays and objects at most `max` deep
   (brackets inside strings do not count). cJSON parses and frees by
   recursion, a level a call: a message of ~800 levels overflowed the
   small stack of the web server's thread and killed the viewer (the
   whole simulator with --single-process), before any token was looked
   at. An op is one flat object. */
static bool
s_nesting_within (const char *text, size_t len, int max)
{
    int depth = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (in_string) {
            if (c == '\\')
                i++; /* the escaped character, a quote too */
            else if (c == '"')
                in_string = false;
        } else if (c == '"')
            in_string = true;
        else if ((c == '[' || c == '{') && ++depth > max)
            return false;
        else if (c == ']' || c == '}')
            depth--;
    }
    return true;
}

int
vw_json_parse_op (const char *text, size_t len, vw_op_t *op, char *why, size_t whylen)
{
    memset (op, 0, sizeof *op);
    if (!s_nesting_within (text, len, VW_OP_NESTING_MAX))
        return s_fail (why, whylen, "%s", "nested too deep (an op is one flat object)");
    cJSON *root = cJSON_ParseWithLength (text, len);
    if (!cJSON_IsObject (root)) {
        cJSON_Delete (root);
        return s_fail (why, whylen, "%s", "not a JSON object");
    }
    const cJSON *id = cJSON_GetObjectItemCaseSensitive (root, "id");
    if (cJSON_IsNumber (id) && id->valuedouble == floor (id->valuedouble) && fabs (id->valuedouble) < 9e15) {
        op->id = (int64_t) id->valuedouble;
        op->has_id = true;
    }
    const cJSON *name = cJSON_GetObjectItemCaseSensitive (root, "op");
    int rc = -1;
    if (!cJSON_IsString (name))
        s_fail (why, whylen, "%s", "no \"op\"");
    else {
        size_t i = 0;
        for (; i < sizeof s_ops / sizeof s_ops[0]; i++)
            if (strcmp (s_ops[i].name, name->valuestring) == 0)
                break;
        if (i == sizeof s_ops / sizeof s_ops[0]) {
            char shown[41]; /* whole characters: the answer is a WebSocket text frame */
            sim_utf8_copy (shown, sizeof shown, name->valuestring);
            s_fail (why, whylen, "unknown op \"%s\"", shown);
        } else {
            op->kind = s_ops[i].kind;
            if (op->kind != VW_OP_NEXT && !op->has_id)
                s_fail (why, whylen, "\"%s\" needs an integer \"id\"", s_ops[i].name);
            else
                rc = s_parse_fields (root, op, why, whylen);
        }
    }
    cJSON_Delete (root);
    return rc;
}

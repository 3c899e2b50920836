/*  sim_referee.c - the referee message into plain data (sim_referee.h). */
#include "sim_referee.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ssl_gc_referee_message.pb-c.h"
#include "common/base/sim_utf8.h"

static void
s_team (const Referee__TeamInfo *in, sim_referee_team_t *out)
{
    memset (out, 0, sizeof *out);
    if (!in)
        return;
    sim_utf8_copy (out->name, sizeof out->name, in->name ? in->name : "");
    out->score = in->score;
    out->red_cards = in->red_cards;
    out->yellow_cards = in->yellow_cards;
    out->timeouts = in->timeouts;
    out->timeout_time_us = in->timeout_time;
    out->goalkeeper = in->goalkeeper;
    size_t n = in->n_yellow_card_times < SIM_REFEREE_CARDS ? in->n_yellow_card_times : SIM_REFEREE_CARDS;
    out->n_yellow_running = (int) n;
    for (size_t i = 0; i < n; i++)
        out->yellow_left_us[i] = in->yellow_card_times[i];
}

int
sim_referee_decode (const uint8_t *buf, size_t len, sim_referee_t *out)
{
    Referee *r = referee__unpack (NULL, len, buf);
    if (!r)
        return -1;
    memset (out, 0, sizeof *out);
    out->packet_us = r->packet_timestamp;
    out->stage = r->stage;
    out->command = r->command;
    out->command_counter = r->command_counter;
    out->command_us = r->command_timestamp;
    out->has_stage_time = r->has_stage_time_left;
    out->stage_time_left_us = r->stage_time_left;
    s_team (r->blue, &out->team[0]);
    s_team (r->yellow, &out->team[1]);
    const Referee__Point *p = r->designated_position;
    if (p && isfinite (p->x) && isfinite (p->y) && fabsf (p->x) < 1e6f && fabsf (p->y) < 1e6f) {
        out->has_placement = true;
        out->placement_x = p->x / 1000.0;
        out->placement_y = p->y / 1000.0;
    }
    out->has_next_command = r->has_next_command;
    out->next_command = r->next_command;
    out->has_action_time = r->has_current_action_time_remaining;
    out->action_time_left_us = r->current_action_time_remaining;
    out->has_blue_positive = r->has_blue_team_on_positive_half;
    out->blue_positive = r->blue_team_on_positive_half;
    sim_utf8_copy (out->status_message, sizeof out->status_message,
                   r->status_message ? r->status_message : "");
    referee__free_unpacked (r, NULL);
    return 0;
}

/* The generated descriptor holds the league's names: one list, not a copy. */
static const char *
s_enum_name (const ProtobufCEnumDescriptor *d, int value)
{
    const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value (d, value);
    return v ? v->name : "UNKNOWN";
}

const char *
sim_referee_stage_name (int stage)
{
    return s_enum_name (&referee__stage__descriptor, stage);
}

const char *
sim_referee_command_name (int command)
{
    return s_enum_name (&referee__command__descriptor, command);
}

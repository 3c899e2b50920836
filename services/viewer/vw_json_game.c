/*  vw_json_game.c - the game state in the viewer's JSON (vw_json_game.h). */
#include "vw_json_game.h"

#include "vw_json_internal.h"

static void
s_referee_team (cJSON *parent, const char *key, const sim_referee_team_t *t)
{
    cJSON *o = cJSON_AddObjectToObject (parent, key);
    if (!o)
        return;
    cJSON_AddStringToObject (o, "name", t->name);
    cJSON_AddNumberToObject (o, "score", t->score);
    cJSON_AddNumberToObject (o, "red_cards", t->red_cards);
    cJSON_AddNumberToObject (o, "yellow_cards", t->yellow_cards);
    cJSON *cards = cJSON_AddArrayToObject (o, "yellow_card_times");
    for (int i = 0; cards && i < t->n_yellow_running; i++)
        cJSON_AddItemToArray (cards, cJSON_CreateNumber ((double) t->yellow_left_us[i] / 1e6));
    cJSON_AddNumberToObject (o, "timeouts", t->timeouts);
    vw_json_num (o, "timeout_time", (double) t->timeout_time_us / 1e6);
    cJSON_AddNumberToObject (o, "goalkeeper", t->goalkeeper);
}

void
vw_json_referee (cJSON *root, const sim_referee_t *r, double age_s)
{
    cJSON *o = cJSON_AddObjectToObject (root, "referee");
    if (!o)
        return;
    cJSON_AddStringToObject (o, "stage", sim_referee_stage_name (r->stage));
    cJSON_AddStringToObject (o, "command", sim_referee_command_name (r->command));
    cJSON_AddNumberToObject (o, "command_counter", r->command_counter);
    if (r->has_stage_time)
        vw_json_num (o, "stage_time_left", (double) r->stage_time_left_us / 1e6);
    if (r->has_action_time)
        vw_json_num (o, "action_time_left", (double) r->action_time_left_us / 1e6);
    if (r->has_next_command)
        cJSON_AddStringToObject (o, "next_command", sim_referee_command_name (r->next_command));
    s_referee_team (o, "blue", &r->team[0]);
    s_referee_team (o, "yellow", &r->team[1]);
    if (r->has_placement) {
        cJSON *p = cJSON_AddObjectToObject (o, "placement");
        if (p) {
            vw_json_num (p, "x", r->placement_x);
            vw_json_num (p, "y", r->placement_y);
        }
    }
    if (r->has_blue_positive)
        cJSON_AddBoolToObject (o, "blue_on_positive_half", r->blue_positive);
    if (r->status_message[0])
        cJSON_AddStringToObject (o, "message", r->status_message);
    vw_json_num (o, "age_s", age_s);
}

char *
vw_json_marks (const sim_player_mark_t *marks, size_t count)
{
    cJSON *root = vw_json_typed ("marks");
    cJSON *list = root ? cJSON_AddArrayToObject (root, "marks") : NULL;
    if (!list) {
        cJSON_Delete (root);
        return NULL;
    }
    cJSON_AddNumberToObject (root, "total", (double) count);
    for (size_t i = 0; i < count && i < VW_MARKS_MAX; i++) {
        cJSON *m = cJSON_CreateObject ();
        if (!m)
            break;
        cJSON_AddItemToArray (list, m);
        vw_json_num (m, "t", marks[i].t);
        cJSON_AddStringToObject (m, "kind", marks[i].kind == SIM_PLAYER_MARK_GOAL ? "goal" : "command");
        cJSON_AddStringToObject (m, "command", sim_referee_command_name (marks[i].command));
        cJSON_AddNumberToObject (m, "blue", marks[i].blue);
        cJSON_AddNumberToObject (m, "yellow", marks[i].yellow);
    }
    return vw_json_print (root);
}

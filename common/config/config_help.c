/*  config_help.c - the `ssl-sim --help` text, from the sub-command and
    flag tables of config_flags.c. The defaults it shows are read from the
    key table, so they cannot drift from what the simulator does; the
    manual page and the completion (config_man.c) take each flag's text
    from here.
*/
#include "config_parts.h"

#include <assert.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the --help text ---------------------------------------------------- */

#define S_WIDTH          80 /* help text is wrapped before this column */
#define S_COMMAND_COLUMN 45 /* where a sub-command's help starts */
#define S_FLAG_COLUMN    25 /* where a flag's help starts */

/* Append `text` word-wrapped at S_WIDTH; the caller has written `column`
   characters of the first line, later lines are indented to `column`. */
static void
s_wrap (sim_out_t *out, const char *text, int column)
{
    int at = column;
    bool line_start = true;
    const char *p = text;
    while (*p) {
        while (*p == ' ')
            p++;
        int len = (int) strcspn (p, " ");
        if (len == 0)
            break;
        if (!line_start && at + 1 + len > S_WIDTH) {
            sim_out (out, "\n%*s", column, "");
            at = column;
            line_start = true;
        }
        sim_out (out, "%s%.*s", line_start ? "" : " ", len, p);
        at += len + (line_start ? 0 : 1);
        line_start = false;
        p += len;
    }
    sim_out (out, "\n");
}

/* "  LEFT   help": the help in its column, on the next line when LEFT
   reaches into it. */
static void
s_item (sim_out_t *out, const char *left, int column, const char *help)
{
    int len = 2 + (int) strlen (left);
    sim_out (out, "  %s", left);
    if (!help[0]) {
        sim_out (out, "\n");
        return;
    }
    if (len + 1 > column)
        sim_out (out, "\n%*s", column, "");
    else
        sim_out (out, "%*s", column - len, "");
    s_wrap (out, help, column);
}

/* The default of a key as help text: its INI text, a float scaled (the
   flag may count in other units than the key) in its shortest form.
   False when the key is unset by default, so there is none to show. */
static bool
s_default_text (const sim_cfg_key_t *key, const sim_config_t *defaults, double scale, char *buf, size_t size)
{
    if (!sim_cfg_key_format (key, defaults, buf, size))
        return false;
    if (key->type == SIM_CFG_FLOAT) {
        double value = *(const double *) ((const char *) defaults + key->offset);
        snprintf (buf, size, "%.15g", value * (scale != 0 ? scale : 1));
    }
    return buf[0] != '\0';
}

/* The global key a flag or a "{section.key}" names; the tables are
   checked against each other by test_config, so a miss is a bug. */
static const sim_cfg_key_t *
s_flag_key (const char *section, const char *key)
{
    const sim_cfg_key_t *row = sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, section, key, NULL);
    assert (row);
    return row;
}

void
sim_cfg_flag_help (const sim_cfg_flag_t *flag, const sim_config_t *defaults, char *buf, size_t size)
{
    sim_out_t out = { NULL, 0, 0, false };
    char value[SIM_STRING_MAX + 512];
    const char *p = flag->help;
    while (*p) {
        const char *open = strchr (p, '{');
        const char *close = open ? strchr (open, '}') : NULL;
        if (!close) {
            sim_out (&out, "%s", p);
            break;
        }
        sim_out (&out, "%.*s", (int) (open - p), p);
        char name[96];
        snprintf (name, sizeof name, "%.*s", (int) (close - open - 1), open + 1);
        if (strcmp (name, "names") == 0) {
            /* the canonical names; the aliases are for typing, not reading */
            assert (flag->choices);
            const char *names = flag->choices ();
            const char *alias = strstr (names, " (alias");
            sim_out (&out, "%.*s", alias ? (int) (alias - names) : (int) strlen (names), names);
        } else {
            char *dot = strrchr (name, '.');
            assert (dot);
            *dot = '\0';
            if (!s_default_text (s_flag_key (name, dot + 1), defaults, 1, value, sizeof value))
                value[0] = '\0';
            sim_out (&out, "%s", value);
        }
        p = close + 1;
    }
    const sim_cfg_key_t *key = flag->key ? s_flag_key (flag->section, flag->key) : NULL;
    char range[96] = "";
    if (key && (flag->flags & SIM_CFG_SHOW_RANGE))
        sim_cfg_range_text (key, range, sizeof range);
    bool has_default = key && (flag->flags & SIM_CFG_SHOW_DEFAULT)
                    && s_default_text (key, defaults, flag->scale, value, sizeof value);
    if (range[0] || has_default)
        sim_out (&out, " (%s%s%s%s)", range, range[0] && has_default ? ", " : "",
                 has_default ? "default " : "", has_default ? value : "");
    snprintf (buf, size, "%s", out.buf && !out.oom ? out.buf : "");
    free (out.buf);
}

void
sim_cfg_flag_left (const sim_cfg_flag_t *flag, char *buf, size_t size)
{
    snprintf (buf, size, "%s", flag->name);
    if (!flag->arg)
        return;
    if (flag->arg[0]) {
        snprintf (buf + strlen (buf), size - strlen (buf), " %s", flag->arg);
        return;
    }
    const sim_cfg_enum_name_t *names = s_flag_key (flag->section, flag->key)->names;
    assert (names);
    for (int i = 0; names[i].name; i++) {
        bool canonical = true;
        for (int j = 0; j < i; j++)
            if (names[j].value == names[i].value)
                canonical = false;
        if (canonical)
            snprintf (buf + strlen (buf), size - strlen (buf), "%s%s", i ? "|" : " ", names[i].name);
    }
}

char *
sim_config_usage (void)
{
    sim_config_t *defaults = sim_cfg_defaults_new ();
    if (!defaults)
        return NULL;
    sim_out_t out = { NULL, 0, 0, false };
    char left[128];
    char help[1024];
    sim_out (&out, "usage:\n");
    for (size_t i = 0; i < sim_cfg_commands_count; i++) {
        snprintf (left, sizeof left, "ssl-sim %s", sim_cfg_commands[i].synopsis);
        s_item (&out, left, S_COMMAND_COLUMN, sim_cfg_commands[i].help);
    }
    sim_out (&out, "\noptions:\n");
    for (size_t i = 0; i < sim_cfg_flags_count; i++) {
        sim_cfg_flag_left (&sim_cfg_flags[i], left, sizeof left);
        sim_cfg_flag_help (&sim_cfg_flags[i], defaults, help, sizeof help);
        s_item (&out, left, S_FLAG_COLUMN, help);
    }
    free (defaults);
    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}

/*  test_config_man.c - the ssl-sim(1) man page and the bash completion
    (common/config/config_man.c) against the flag and sub-command tables: every
    flag, with its value's name, in the man page and in the completion,
    roff text escaped so that no line of help turns into a request, and
    the values a flag's row names offered after it.
*/
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/config/config.h"
#include "common/config/config_table.h"

/* "--port-offset" as roff writes it: "\-\-port\-offset". */
static void
s_roff_name (const char *name, char *buf, size_t size)
{
    size_t at = 0;
    for (const char *p = name; *p && at + 3 < size; p++) {
        if (*p == '-')
            buf[at++] = '\\';
        buf[at++] = *p;
    }
    buf[at] = '\0';
}

Test (config_man, every_flag_is_an_option_paragraph)
{
    char *page = sim_config_manpage ("9.9.9 (git abc1234)");
    cr_assert_not_null (page);
    cr_expect_not_null (strstr (page, ".TH SSL\\-SIM 1 \"\" \"ssl\\-sim 9.9.9 (git abc1234)\""));
    const char *options = strstr (page, "\n.SH OPTIONS\n");
    cr_assert_not_null (options);
    char roff[128], want[160];
    for (size_t i = 0; i < sim_cfg_flags_count; i++) {
        s_roff_name (sim_cfg_flags[i].name, roff, sizeof roff);
        snprintf (want, sizeof want, "\n.TP\n\\fB%s\\fR%s", roff, sim_cfg_flags[i].arg ? " \\fI" : "\n");
        cr_expect_not_null (strstr (options, want), "no paragraph for %s:\n%s", sim_cfg_flags[i].name,
                            options);
    }
    for (size_t i = 0; i < sim_cfg_commands_count; i++) {
        char word[64];
        snprintf (word, sizeof word, "\\fB%.*s", (int) strcspn (sim_cfg_commands[i].synopsis, " "),
                  sim_cfg_commands[i].synopsis);
        if (word[3] != '-')
            cr_expect_not_null (strstr (page, word), "SYNOPSIS lacks %s", word);
    }
    /* every line is a known request, a comment or text that is not one */
    static const char *const requests[] = { ".\\\"", ".TH ", ".SH ", ".TP", ".PP", ".br", ".B ", ".nh" };
    for (const char *line = page; *line;) {
        const char *end = strchr (line, '\n');
        cr_assert_not_null (end, "the page ends with a newline");
        if (line[0] == '.' || line[0] == '\'') {
            bool known = false;
            for (size_t r = 0; r < sizeof requests / sizeof requests[0]; r++)
                known = known || strncmp (line, requests[r], strlen (requests[r])) == 0;
            cr_expect (known, "a line starts a request by accident: %.*s", (int) (end - line), line);
        }
        cr_expect_null (memchr (line, '{', (size_t) (end - line)), "a {placeholder} was left: %.*s",
                        (int) (end - line), line);
        line = end + 1;
    }
    free (page);
}

Test (config_man, completion_offers_every_flag_and_the_values_of_the_rows)
{
    const char *services[] = { "physics", "vision", NULL };
    char *script = sim_config_bash_completion (services);
    cr_assert_not_null (script);
    const char *flags = strstr (script, "local flags='");
    cr_assert_not_null (flags);
    char want[96];
    for (size_t i = 0; i < sim_cfg_flags_count; i++) {
        snprintf (want, sizeof want, " %s", sim_cfg_flags[i].name);
        cr_expect_not_null (strstr (flags, want), "completion lacks %s", sim_cfg_flags[i].name);
        if (sim_cfg_flags[i].arg) {
            snprintf (want, sizeof want, "\n    %s)\n", sim_cfg_flags[i].name);
            cr_expect_not_null (strstr (script, want), "no value branch for %s", sim_cfg_flags[i].name);
        }
    }
    cr_expect_not_null (strstr (script, "compgen -W 'physics vision'"));
    cr_expect_not_null (strstr (script, "    --cameras)\n        COMPREPLY=($(compgen -W '1 2 4' "));
    cr_expect_not_null (strstr (script, "    --seed)\n        COMPREPLY=($(compgen -W 'random' "));
    cr_expect_not_null (strstr (script, "    --robots)\n        return ;;\n"), "N is the user's own value");
    /* realism: the names, aliases too, and files */
    const char *realism = strstr (script, "    --realism)\n");
    cr_assert_not_null (realism);
    const char *end = strstr (realism, "return ;;");
    cr_assert_not_null (end);
    char branch[512];
    snprintf (branch, sizeof branch, "%.*s", (int) (end - realism), realism);
    cr_expect_not_null (strstr (branch, " erforce_rc2021 "), "%s", branch);
    cr_expect_not_null (strstr (branch, " friendly "), "%s", branch);
    cr_expect_null (strstr (branch, "alias"), "%s", branch);
    cr_expect_not_null (strstr (branch, "compgen -f"), "%s", branch);
    cr_expect_not_null (strstr (script, "\ncomplete -F _ssl_sim ssl-sim\n"));
    free (script);
}

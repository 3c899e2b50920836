/*  config_man.c - the ssl-sim(1) manual page and the bash completion
    script, both written from the sub-command and flag tables of
    config_flags.c with the help text --help shows (sim_cfg_flag_help). The
    Makefile makes both files by running the built program, so neither can
    list a flag the program does not take or miss one it does.
*/
#include "config_parts.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- roff ---------------------------------------------------------------- */

/* Append text as roff running text: backslashes and minus signs escaped,
   a control character at the start of a line neutralised, and `code`
   spans set in bold. */
static void
s_roff (sim_out_t *out, const char *text, bool line_start)
{
    bool bold = false;
    for (const char *p = text; *p; p++) {
        if (line_start && (*p == '.' || *p == '\''))
            sim_out (out, "\\&");
        line_start = false;
        if (*p == '\\')
            sim_out (out, "\\e");
        else if (*p == '-')
            sim_out (out, "\\-");
        else if (*p == '`') {
            sim_out (out, bold ? "\\fR" : "\\fB");
            bold = !bold;
        } else if (*p == '\n') {
            sim_out (out, "\n");
            line_start = true;
        } else
            sim_out (out, "%c", *p);
    }
    if (bold)
        sim_out (out, "\\fR");
}

/* A roff request line ".TP" etc. followed by text and a newline. */
static void
s_roff_line (sim_out_t *out, const char *text)
{
    s_roff (out, text, true);
    sim_out (out, "\n");
}

/* "run [--single-process] [OPTIONS]": the command word bold, the rest as
   it is, on a line of its own. */
static void
s_roff_synopsis (sim_out_t *out, const char *synopsis)
{
    size_t word = strcspn (synopsis, " ");
    sim_out (out, "\\fB");
    char first[64];
    snprintf (first, sizeof first, "%.*s", (int) word, synopsis);
    s_roff (out, first, false);
    sim_out (out, "\\fR");
    s_roff (out, synopsis + word, false);
    sim_out (out, "\n");
}

/* Prose of the page that is not in the tables: what the program is, the
   files the install puts in place and the environment it reads. (The
   parentheses tell clang that each paragraph is one string.) */
static const char *const s_description[] = {
    ("ssl-sim simulates a RoboCup Small Size League field for unchanged team software. It sends "
     "SSL-Vision packets (multicast 224.5.23.2:10020 by default), optionally the ground truth as "
     "tracker packets (port 10010), answers the SSL simulation protocol on UDP 10300 (control), "
     "10301 (blue) and 10302 (yellow), and the grSim packet on UDP 20011."),
    ("It is five services, physics, vision, gateway, legacy-grsim and viewer (the browser page "
     "and /metrics), that talk over an internal bus. `ssl-sim run` starts and supervises all "
     "five; `ssl-sim service NAME` runs one, for example under systemd. With the same seed and "
     "inputs it sends the same bytes."),
    ("Settings come from, in rising order: the built-in defaults (`ssl-sim presets` prints them, "
     "commented), the files given with `--config`, the options, and SSL_SIM_LOG."),
};

static const char *const s_environment[][2] = {
    { "SSL_SIM_LOG", "log level (error, warn, info, debug, trace); wins over file and option" },
    { "SSL_SIM_RUN_ID", "the run a physics checkpoint belongs to; set it to keep a world across runs" },
    { "XDG_RUNTIME_DIR",
      "the runtime directory (sockets, pid files, checkpoints) is $XDG_RUNTIME_DIR/ssl-sim, or "
      "/tmp/ssl-sim-UID without it; the systemd units use /run/ssl-sim" },
};

static const char *const s_files[][2] = {
    { "/etc/ssl-sim/ssl-sim.ini", "the whole default configuration, commented: copy it and edit" },
    { "/etc/ssl-sim/two-hosts.ini, /etc/ssl-sim/three-hosts.ini",
      "one simulator spread over several computers" },
    { "/etc/ssl-sim/realism/", "example realism files for --realism" },
    { "/etc/default/ssl-sim",
      "SSL_SIM_OPTS, the options every ssl-sim systemd unit on this computer passes" },
};

char *
sim_config_manpage (const char *version)
{
    sim_config_t *defaults = sim_cfg_defaults_new ();
    if (!defaults)
        return NULL;
    sim_out_t out = { NULL, 0, 0, false };
    char left[128];
    char help[1024];
    sim_out (&out, ".\\\" ssl-sim(1), written by `ssl-sim --man` from its flag table; do not edit\n");
    sim_out (&out, ".TH SSL\\-SIM 1 \"\" \"ssl\\-sim ");
    s_roff (&out, version ? version : "", false);
    /* no hyphenation: flag and preset names must stay whole */
    sim_out (&out,
             "\" \"User Commands\"\n.nh\n.SH NAME\nssl\\-sim \\- RoboCup Small Size League simulator\n");
    sim_out (&out, ".SH SYNOPSIS\n");
    for (size_t i = 0; i < sim_cfg_commands_count; i++) {
        sim_out (&out, "%s\\fBssl\\-sim\\fR ", i ? ".br\n" : "");
        s_roff_synopsis (&out, sim_cfg_commands[i].synopsis);
    }
    sim_out (&out, ".SH DESCRIPTION\n");
    for (size_t i = 0; i < sizeof s_description / sizeof s_description[0]; i++) {
        sim_out (&out, "%s", i ? ".PP\n" : "");
        s_roff_line (&out, s_description[i]);
    }
    sim_out (&out, ".SH COMMANDS\n");
    for (size_t i = 0; i < sim_cfg_commands_count; i++) {
        if (!sim_cfg_commands[i].help[0])
            continue;
        sim_out (&out, ".TP\n");
        s_roff_synopsis (&out, sim_cfg_commands[i].synopsis);
        s_roff_line (&out, sim_cfg_commands[i].help);
    }
    sim_out (&out, ".SH OPTIONS\n");
    for (size_t i = 0; i < sim_cfg_flags_count; i++) {
        const sim_cfg_flag_t *flag = &sim_cfg_flags[i];
        sim_cfg_flag_left (flag, left, sizeof left);
        sim_cfg_flag_help (flag, defaults, help, sizeof help);
        size_t name = strlen (flag->name);
        sim_out (&out, ".TP\n\\fB");
        s_roff (&out, flag->name, false);
        sim_out (&out, "\\fR");
        if (left[name]) {
            sim_out (&out, " \\fI");
            s_roff (&out, left + name + 1, false);
            sim_out (&out, "\\fR");
        }
        sim_out (&out, "\n");
        s_roff_line (&out, help);
    }
    sim_out (&out, ".SH ENVIRONMENT\n");
    for (size_t i = 0; i < sizeof s_environment / sizeof s_environment[0]; i++) {
        sim_out (&out, ".TP\n.B %s\n", s_environment[i][0]);
        s_roff_line (&out, s_environment[i][1]);
    }
    sim_out (&out, ".SH FILES\n");
    for (size_t i = 0; i < sizeof s_files / sizeof s_files[0]; i++) {
        sim_out (&out, ".TP\n.B ");
        s_roff_line (&out, s_files[i][0]);
        s_roff_line (&out, s_files[i][1]);
    }
    sim_out (&out, ".SH EXIT STATUS\n");
    s_roff_line (&out, "0 on success, 2 for bad options, 1 when a run failed; `ssl-sim service` exits "
                       "with 78 when its service cannot start (a port taken, a bad configuration), "
                       "and `ssl-sim status` with 0 when all services run, 1 when some do, 3 when "
                       "none does.");
    sim_out (&out, ".SH SEE ALSO\n");
    s_roff_line (&out, "systemctl(1), journalctl(1); the configuration keys are listed, with their "
                       "meaning, in the output of `ssl-sim presets`.");
    free (defaults);
    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}

/* ---- bash completion ------------------------------------------------------ */

/* Append the words of a list such as "none, realistic (aliases: a, b)"
   separated by blanks, aliases included: they are for typing. */
static void
s_choice_words (sim_out_t *out, const char *list)
{
    const char *p = list;
    while (*p) {
        while (*p && !isalnum ((unsigned char) *p) && *p != '_')
            p++;
        size_t len = 0;
        while (p[len] && (isalnum ((unsigned char) p[len]) || p[len] == '_' || p[len] == '-'))
            len++;
        if (len == 0)
            break;
        /* "aliases:" and "alias:" introduce the aliases, they are none */
        if (p[len] != ':')
            sim_out (out, " %.*s", (int) len, p);
        p += len;
    }
}

/* Whether one |-separated part of a flag's argument name is a word to
   type as it is ("random", "4") rather than a placeholder ("N", "FILE"). */
static bool
s_literal_part (const char *part, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (islower ((unsigned char) part[i]) || isdigit ((unsigned char) part[i]))
            continue;
        else
            return false;
    return len > 0;
}

/* The bash `case` branch that completes the value of one flag: the words
   its row names, files where it takes a FILE, nothing for a value of the
   user's own ("N", "H:P"). */
static void
s_complete_value (sim_out_t *out, const sim_cfg_flag_t *flag)
{
    sim_out_t words = { NULL, 0, 0, false };
    bool files = false;
    if (flag->choices)
        s_choice_words (&words, flag->choices ());
    if (flag->arg[0] == '\0') {
        const sim_cfg_key_t *key =
            sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, flag->section, flag->key, NULL);
        for (int i = 0; key && key->names && key->names[i].name; i++)
            sim_out (&words, " %s", key->names[i].name);
    }
    for (const char *p = flag->arg; *p;) {
        size_t len = strcspn (p, "|");
        if (s_literal_part (p, len))
            sim_out (&words, " %.*s", (int) len, p);
        if (len == 4 && strncmp (p, "FILE", 4) == 0)
            files = true;
        p += len + (p[len] == '|');
    }
    sim_out (out, "    %s)\n", flag->name);
    if (words.buf || files) {
        sim_out (out, "        COMPREPLY=(");
        if (words.buf)
            sim_out (out, "$(compgen -W '%s' -- \"$cur\")%s", words.buf + 1, files ? " " : "");
        sim_out (out, "%s)\n", files ? "$(compgen -f -- \"$cur\")" : "");
    }
    sim_out (out, "        return ;;\n");
    if (words.oom)
        out->oom = true;
    free (words.buf);
}

char *
sim_config_bash_completion (const char *const *services)
{
    sim_out_t out = { NULL, 0, 0, false };
    sim_out (&out, "# bash completion for ssl-sim, written by `ssl-sim --bash-completion` from its\n"
                   "# flag table; do not edit\n"
                   "_ssl_sim ()\n{\n"
                   "    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
                   "    COMPREPLY=()\n"
                   "    if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
                   "        COMPREPLY=($(compgen -W '");
    /* the first word of each synopsis; "--help | --version" gives both */
    const char *blank = "";
    for (size_t i = 0; i < sim_cfg_commands_count; i++) {
        const char *p = sim_cfg_commands[i].synopsis;
        while (*p) {
            size_t len = strcspn (p, " |");
            sim_out (&out, "%s%.*s", blank, (int) len, p);
            blank = " ";
            if (p[0] != '-')
                break;
            p += len;
            p += strspn (p, " |");
        }
    }
    sim_out (&out, "' -- \"$cur\"))\n        return\n    fi\n"
                   "    local command=${COMP_WORDS[1]}\n"
                   "    case $command in\n"
                   "    service | restart)\n"
                   "        if [ \"$COMP_CWORD\" -eq 2 ]; then\n"
                   "            COMPREPLY=($(compgen -W '");
    for (int i = 0; services && services[i]; i++)
        sim_out (&out, "%s%s", i ? " " : "", services[i]);
    sim_out (&out, "' -- \"$cur\"))\n            return\n        fi ;;\n"
                   "    keygen)\n        COMPREPLY=($(compgen -f -- \"$cur\"))\n        return ;;\n"
                   "    -*) return ;;\n"
                   "    esac\n"
                   "    case $prev in\n");
    for (size_t i = 0; i < sim_cfg_flags_count; i++)
        if (sim_cfg_flags[i].arg)
            s_complete_value (&out, &sim_cfg_flags[i]);
    sim_out (&out, "    esac\n    local flags='");
    for (size_t i = 0; i < sim_cfg_flags_count; i++)
        if (sim_cfg_flags[i].kind != SIM_CFG_FLAG_LAUNCHER)
            sim_out (&out, " %s", sim_cfg_flags[i].name);
    sim_out (&out, "'\n    [ \"$command\" = run ] && flags=\"$flags");
    for (size_t i = 0; i < sim_cfg_flags_count; i++)
        if (sim_cfg_flags[i].kind == SIM_CFG_FLAG_LAUNCHER)
            sim_out (&out, " %s", sim_cfg_flags[i].name);
    sim_out (&out, "\"\n    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n}\n"
                   "complete -F _ssl_sim ssl-sim\n");
    if (out.oom) {
        free (out.buf);
        return NULL;
    }
    return out.buf;
}

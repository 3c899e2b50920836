/*  config_ini.c - the INI loader: a file or a string on top of a
    configuration, with errors that name file, line, section and key
    (spec/config.md §1). inih splits the lines; every key goes through its
    table row (config_value.c), so the loader holds no rule of its own
    beyond sections: team sections share one table, and the numbered
    [camera N] / [outage N] sections are collected and checked after the
    whole input is read.
*/
#include "config_parts.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <strings.h>

#include <ini.h>

#include "common/base/sim_log.h"

typedef struct {
    long number;
    int line;      /* where the section first appeared */
    unsigned seen; /* bit per key of its table */
    union {
        sim_camera_cfg_t camera;
        sim_outage_cfg_t outage;
    } u;
} s_numbered_t;

typedef struct {
    sim_config_t *cfg;
    const char *origin;
    bool realism_only;          /* a realism file: [realism] or no section */
    sim_cfg_written_t *written; /* where each key was set; may be NULL */
    /* input */
    FILE *file;
    const char *text;
    int line;
    int section_line; /* line of the latest [section] header */
    /* first error */
    char *err;
    size_t errlen;
    bool failed;
    int fail_line;
    /* numbered sections, merged after the whole input is read */
    s_numbered_t cameras[SIM_MAX_CAMERAS];
    int camera_count;
    s_numbered_t outages[SIM_MAX_OUTAGES];
    int outage_count;
    /* warn about an unknown section once, not for each of its keys */
    char unknown_section[64];
} s_load_t;

static void s_fail (s_load_t *self, const char *section, const char *key, const char *fmt, ...)
    __attribute__ ((format (printf, 4, 5)));

static void
s_fail (s_load_t *self, const char *section, const char *key, const char *fmt, ...)
{
    if (self->failed)
        return;
    self->failed = true;
    self->fail_line = self->line;
    char what[512];
    va_list args;
    va_start (args, fmt);
    vsnprintf (what, sizeof what, fmt, args);
    va_end (args);
    if (!section)
        sim_cfg_err (self->err, self->errlen, "%s:%d: %s", self->origin, self->line, what);
    else if (key)
        sim_cfg_err (self->err, self->errlen, "%s:%d: [%s] %s: %s", self->origin, self->line, section, key,
                     what);
    else
        sim_cfg_err (self->err, self->errlen, "%s:%d: [%s]: %s", self->origin, self->line, section, what);
}

/* Reads one line for inih and counts it. Leading whitespace is dropped so
   inih never takes an indented line as a multi-line continuation (the
   spec has no multi-line values). */
static char *
s_reader (char *str, int num, void *stream)
{
    s_load_t *self = (s_load_t *) stream;
    int c;
    int len = 0;
    bool any = false;
    bool leading = true;
    bool too_long = false;
    bool nul = false;
    while (true) {
        if (self->file)
            c = fgetc (self->file);
        else
            c = *self->text ? (unsigned char) *self->text++ : EOF;
        if (c == EOF)
            break;
        any = true;
        if (c == '\n')
            break;
        if (c == '\0') {
            nul = true; /* inih would end the line there: "seed = 1<NUL> 2" read as 1 */
            continue;
        }
        if (leading && (c == ' ' || c == '\t'))
            continue;
        leading = false;
        if (len < num - 1)
            str[len++] = (char) c;
        else
            too_long = true;
    }
    if (!any)
        return NULL;
    self->line++;
    str[len] = '\0';
    if (str[0] == '[')
        self->section_line = self->line;
    if (nul || too_long) {
        if (nul)
            s_fail (self, NULL, NULL, "a NUL byte in the line (the file is not text)");
        else
            s_fail (self, NULL, NULL, "line longer than %d characters", num - 1);
        /* hand inih a comment so it does not act on the cut line */
        str[0] = ';';
        str[1] = '\0';
    }
    return str;
}

/* "camera 3" -> 3 when the section is WORD + one space + digits. */
static bool
s_numbered (const char *section, const char *word, long *number)
{
    size_t len = strlen (word);
    if (strncasecmp (section, word, len) != 0 || section[len] != ' ')
        return false;
    const char *digits = section + len + 1;
    if (!isdigit ((unsigned char) *digits))
        return false;
    for (const char *p = digits; *p; p++)
        if (!isdigit ((unsigned char) *p))
            return false;
    errno = 0;
    long value = strtol (digits, NULL, 10);
    if (errno == ERANGE || value > 1000000)
        return false;
    *number = value;
    return true;
}

static s_numbered_t *
s_numbered_slot (s_load_t *self, s_numbered_t *slots, int *count, int max, long number, const char *section)
{
    for (int i = 0; i < *count; i++)
        if (slots[i].number == number)
            return &slots[i];
    if (*count >= max) {
        self->line = self->section_line;
        s_fail (self, section, NULL, "more than %d such sections", max);
        return NULL;
    }
    s_numbered_t *slot = &slots[(*count)++];
    memset (slot, 0, sizeof *slot);
    slot->number = number;
    slot->line = self->section_line;
    return slot;
}

static void
s_warn_unknown (s_load_t *self, const char *section, const char *key, bool section_unknown)
{
    if (section_unknown) {
        if (strcasecmp (self->unknown_section, section) == 0)
            return;
        snprintf (self->unknown_section, sizeof self->unknown_section, "%s", section);
        sim_warn ("%s:%d: unknown section [%s] ignored (first key %s)", self->origin, self->line, section,
                  key);
    } else
        sim_warn ("%s:%d: [%s] %s: unknown key ignored", self->origin, self->line, section, key);
}

static int
s_apply (s_load_t *self, const sim_cfg_key_t *key, void *base, const char *section, const char *name,
         const char *value)
{
    char why[400];
    if (sim_cfg_key_parse (key, base, value, why, sizeof why) != 0) {
        s_fail (self, section, name, "%s", why);
        return 0;
    }
    return 1;
}

/* s_apply for a row of `table` (the main one or a team's), noting where
   it was written. */
static int
s_apply_noted (s_load_t *self, const sim_cfg_key_t *key, sim_cfg_where_t *table, void *base,
               const char *section, const char *name, const char *value, size_t index)
{
    if (!s_apply (self, key, base, section, name, value))
        return 0;
    if (table)
        table[index] = (sim_cfg_where_t) { self->origin, self->line };
    return 1;
}

/* The global section that has a key `name`, for the hint of a key that
   stands before any section; NULL when none has. */
static const char *
s_section_of (const char *name)
{
    for (size_t i = 0; i < sim_cfg_keys_count; i++)
        if (strcasecmp (sim_cfg_keys[i].key, name) == 0)
            return sim_cfg_keys[i].section;
    return NULL;
}

/* A key of a [camera N] / [outage N] section, kept in its slot until the
   whole input is read. */
static int
s_numbered_key (s_load_t *self, const sim_cfg_key_t *keys, size_t key_count, s_numbered_t *slots,
                int *slot_count, int max, long number, const char *section, const char *name,
                const char *value)
{
    size_t index;
    s_numbered_t *slot = s_numbered_slot (self, slots, slot_count, max, number, section);
    if (!slot)
        return 0;
    const sim_cfg_key_t *key = sim_cfg_find_key (keys, key_count, keys[0].section, name, &index);
    if (!key) {
        s_warn_unknown (self, section, name, false);
        return 1;
    }
    slot->seen |= 1u << index;
    return s_apply (self, key, &slot->u, section, name, value);
}

static int
s_handler (void *user, const char *section, const char *name, const char *value)
{
    s_load_t *self = (s_load_t *) user;
    if (self->failed)
        return 0;
    sim_config_t *cfg = self->cfg;
    long number;

    if (self->realism_only) {
        if (section[0] != '\0' && strcasecmp (section, "realism") != 0) {
            s_warn_unknown (self, section, name, true);
            return 1;
        }
        const sim_cfg_key_t *key = sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, "realism", name, NULL);
        if (!key) {
            s_warn_unknown (self, section[0] ? section : "realism", name, false);
            return 1;
        }
        return s_apply (self, key, cfg, section[0] ? section : "realism", name, value);
    }

    /* team sections: "blue", "blue.limits", ... share one key table */
    const char *sub;
    size_t index;
    int team = sim_cfg_team_section (section, &sub);
    if (team >= 0) {
        if (!sim_cfg_section_known (sim_cfg_team_keys, sim_cfg_team_keys_count, sub)) {
            s_warn_unknown (self, section, name, true);
            return 1;
        }
        const sim_cfg_key_t *key =
            sim_cfg_find_key (sim_cfg_team_keys, sim_cfg_team_keys_count, sub, name, &index);
        if (!key) {
            s_warn_unknown (self, section, name, false);
            return 1;
        }
        return s_apply_noted (self, key, self->written ? self->written->team[team] : NULL, &cfg->team[team],
                              section, name, value, index);
    }

    if (s_numbered (section, "camera", &number))
        return s_numbered_key (self, sim_cfg_camera_keys, sim_cfg_camera_keys_count, self->cameras,
                               &self->camera_count, SIM_MAX_CAMERAS, number, section, name, value);
    if (s_numbered (section, "outage", &number))
        return s_numbered_key (self, sim_cfg_outage_keys, sim_cfg_outage_keys_count, self->outages,
                               &self->outage_count, SIM_MAX_OUTAGES, number, section, name, value);

    if (section[0] == '\0') {
        /* a key above the first [section] header: say so, and where it lives */
        const char *home = s_section_of (name);
        if (home)
            sim_warn ("%s:%d: %s is outside any section and ignored (it belongs under [%s])", self->origin,
                      self->line, name, home);
        else
            sim_warn ("%s:%d: %s is outside any section and ignored (no section has such a key)",
                      self->origin, self->line, name);
        return 1;
    }
    if (!sim_cfg_section_known (sim_cfg_keys, sim_cfg_keys_count, section)) {
        s_warn_unknown (self, section, name, true);
        return 1;
    }
    const sim_cfg_key_t *key = sim_cfg_find_key (sim_cfg_keys, sim_cfg_keys_count, section, name, &index);
    if (!key) {
        s_warn_unknown (self, section, name, false);
        return 1;
    }
    return s_apply_noted (self, key, self->written ? self->written->main : NULL, cfg, section, name, value,
                          index);
}

static int
s_compare_numbered (const void *a, const void *b)
{
    long na = ((const s_numbered_t *) a)->number;
    long nb = ((const s_numbered_t *) b)->number;
    return (na > nb) - (na < nb);
}

/* Check the numbered sections and replace the lists they describe. */
static void
s_merge_numbered (s_load_t *self)
{
    sim_vision_cfg_t *vision = &self->cfg->vision;
    char section[48];
    if (self->camera_count > 0) {
        qsort (self->cameras, (size_t) self->camera_count, sizeof self->cameras[0], s_compare_numbered);
        for (int i = 0; i < self->camera_count && !self->failed; i++) {
            s_numbered_t *slot = &self->cameras[i];
            snprintf (section, sizeof section, "camera %ld", slot->number);
            /* bit 0 is id, which defaults to the section number */
            if (!(slot->seen & 1u))
                slot->u.camera.id = (int) slot->number;
            /* bits 1-3 are x, y and z; the sensor keys after them default */
            for (size_t k = 1; k <= 3 && k < sim_cfg_camera_keys_count; k++)
                if (!(slot->seen & (1u << k))) {
                    self->line = slot->line;
                    s_fail (self, section, sim_cfg_camera_keys[k].key, "missing (a camera needs x, y and z)");
                    return;
                }
        }
        memset (vision->cameras, 0, sizeof vision->cameras);
        for (int i = 0; i < self->camera_count; i++)
            vision->cameras[i] = self->cameras[i].u.camera;
        vision->camera_count = self->camera_count;
    }
    if (self->outage_count > 0) {
        qsort (self->outages, (size_t) self->outage_count, sizeof self->outages[0], s_compare_numbered);
        for (int i = 0; i < self->outage_count; i++) {
            s_numbered_t *slot = &self->outages[i];
            snprintf (section, sizeof section, "outage %ld", slot->number);
            for (size_t k = 0; k < sim_cfg_outage_keys_count; k++)
                if (!(slot->seen & (1u << k))) {
                    self->line = slot->line;
                    s_fail (self, section, sim_cfg_outage_keys[k].key,
                            "missing (an outage needs start and duration)");
                    return;
                }
        }
        memset (vision->outages, 0, sizeof vision->outages);
        for (int i = 0; i < self->outage_count; i++)
            vision->outages[i] = self->outages[i].u.outage;
        vision->outage_count = self->outage_count;
    }
}

static int
s_load (s_load_t *self)
{
    int rc = ini_parse_stream (s_reader, self, s_handler, self);
    /* inih returns the first line it or the handler refused; when that is
       before our own first error, it is a line that is neither a section,
       a key = value, nor a comment */
    if (rc > 0 && (!self->failed || rc < self->fail_line)) {
        self->failed = true;
        sim_cfg_err (self->err, self->errlen,
                     "%s:%d: syntax error (expected [section], "
                     "key = value or a ; comment)",
                     self->origin, rc);
    }
    if (!self->failed)
        s_merge_numbered (self);
    return self->failed ? -1 : 0;
}

int
sim_config_load_string (sim_config_t *cfg, const char *text, const char *origin, char *err, size_t errlen)
{
    s_load_t *self = (s_load_t *) calloc (1, sizeof (s_load_t));
    if (!self) {
        sim_cfg_err (err, errlen, "out of memory");
        return -1;
    }
    self->cfg = cfg;
    self->origin = origin ? origin : "(string)";
    self->text = text ? text : "";
    self->err = err;
    self->errlen = errlen;
    int rc = s_load (self);
    free (self);
    return rc;
}

sim_cfg_written_t *
sim_cfg_written_new (void)
{
    sim_cfg_written_t *self = (sim_cfg_written_t *) calloc (1, sizeof (sim_cfg_written_t));
    if (!self)
        return NULL;
    self->main = (sim_cfg_where_t *) calloc (sim_cfg_keys_count, sizeof (sim_cfg_where_t));
    for (int team = 0; team < 2; team++)
        self->team[team] = (sim_cfg_where_t *) calloc (sim_cfg_team_keys_count, sizeof (sim_cfg_where_t));
    if (!self->main || !self->team[0] || !self->team[1])
        sim_cfg_written_destroy (&self);
    return self;
}

void
sim_cfg_written_destroy (sim_cfg_written_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    sim_cfg_written_t *self = *self_p;
    free (self->main);
    free (self->team[0]);
    free (self->team[1]);
    free (self);
    *self_p = NULL;
}

void
sim_cfg_written_merge (sim_cfg_written_t *dst, const sim_cfg_written_t *src)
{
    for (size_t i = 0; i < sim_cfg_keys_count; i++)
        if (src->main[i].line)
            dst->main[i] = src->main[i];
    for (int team = 0; team < 2; team++)
        for (size_t i = 0; i < sim_cfg_team_keys_count; i++)
            if (src->team[team][i].line)
                dst->team[team][i] = src->team[team][i];
}

int
sim_cfg_load_file (sim_config_t *cfg, const char *path, bool realism_only, sim_cfg_written_t *written,
                   char *err, size_t errlen)
{
    FILE *file = fopen (path, "r");
    if (!file) {
        sim_cfg_err (err, errlen, "%s: cannot read: %s", path, strerror (errno));
        return -1;
    }
    struct stat st;
    if (fstat (fileno (file), &st) == 0 && S_ISDIR (st.st_mode)) {
        fclose (file);
        sim_cfg_err (err, errlen, "%s: cannot read: %s", path, strerror (EISDIR));
        return -1;
    }
    s_load_t *self = (s_load_t *) calloc (1, sizeof (s_load_t));
    if (!self) {
        fclose (file);
        sim_cfg_err (err, errlen, "out of memory");
        return -1;
    }
    self->cfg = cfg;
    self->origin = path;
    self->file = file;
    self->realism_only = realism_only;
    self->written = written;
    self->err = err;
    self->errlen = errlen;
    int rc = s_load (self);
    if (rc == 0 && ferror (file)) {
        sim_cfg_err (err, errlen, "%s: read error", path);
        rc = -1;
    }
    free (self);
    fclose (file);
    return rc;
}

int
sim_config_load_file (sim_config_t *cfg, const char *path, char *err, size_t errlen)
{
    if (!path) {
        sim_cfg_err (err, errlen, "no configuration file given");
        return -1;
    }
    return sim_cfg_load_file (cfg, path, false, NULL, err, errlen);
}

/*  config_realism_label.c - the name a run reports for its realism: the
    preset's while the [realism] table is that preset's, key for key;
    "NAME+custom" once single keys (a file's, or a client's ER-Force keys
    at runtime) changed a preset's table; "custom" for a realism file
    (docs/vision.md "Realism at runtime").
*/
#include "config_parts.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* Whether every [realism] key of a equals b's, bit for bit (the key table
   knows each field; padding between them is not compared). */
static bool
s_same_realism (const sim_realism_t *a, const sim_realism_t *b)
{
    const size_t base = offsetof (sim_config_t, realism);
    for (size_t i = 0; i < sim_cfg_keys_count; i++) {
        const sim_cfg_key_t *key = &sim_cfg_keys[i];
        if (strcmp (key->section, "realism") != 0)
            continue;
        size_t at = key->offset - base;
        if (memcmp ((const char *) a + at, (const char *) b + at, sim_cfg_key_size (key)) != 0)
            return false;
    }
    return true;
}

void
sim_config_realism_label (const sim_config_t *cfg, char *out, size_t outlen)
{
    if (!out || outlen == 0)
        return;
    /* an empty [run] realism is the default, the realistic preset */
    const char *name = cfg->run.realism[0] ? cfg->run.realism : "realistic";
    sim_realism_t preset;
    if (sim_config_realism_preset (name, &preset) != 0)
        snprintf (out, outlen, "custom");
    else if (s_same_realism (&cfg->realism, &preset))
        snprintf (out, outlen, "%s", name);
    else
        snprintf (out, outlen, "%s+custom", name);
}

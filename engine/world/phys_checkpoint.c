/*  phys_checkpoint.c - atomic world checkpoints for the physics service.

    File layout (host byte order; the image is only meaningful to the same
    build anyway):
        "SSLSIMCK"  u32 format  u32 image size  u64 config serial
        u32 rig generation  u32 key length  u32 ini length  u32 id count
        u64 journal sequence
        key bytes  ini bytes  world image  u64 ids[id count]
        u64 FNV-1a of all the above

    Format 2 added the journal sequence, format 3 the once-only request
    ids (older files are refused as from another build, which they are).

    The world image is the core's own (phys_world_save / phys_world_load,
    which also checks the image's consistency); this file adds the run key,
    the configuration, a checksum and the atomic write.
*/
#include "common/base/sim_hash.h"
#include "phys_checkpoint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/config/config.h"
#include "common/base/sim_log.h"

#define CK_MAGIC     "SSLSIMCK"
#define CK_FORMAT    3u
#define CK_MAX_BYTES (64u << 20)

typedef struct {
    char magic[8];
    uint32_t format, image_size;
    uint64_t serial;
    uint32_t rig_generation, key_len, ini_len, once_count;
    uint64_t journal_seq;
} ck_header_t;

void
phys_checkpoint_key (const sim_config_t *own, char *buf, size_t len)
{
    const char *env = getenv ("SSL_SIM_RUN_ID");
    if (env && *env) {
        snprintf (buf, len, "run-%s", env);
        return;
    }
    char *ini = sim_config_dump (own, false);
    uint64_t h = ini ? sim_fnv1a (SIM_FNV1A_BASIS, ini, strlen (ini)) : 0;
    free (ini);
    snprintf (buf, len, "cfg-%016llx", (unsigned long long) h);
}

static int
s_write_all (FILE *f, const void *data, size_t len, uint64_t *hash)
{
    *hash = sim_fnv1a (*hash, data, len);
    return fwrite (data, 1, len, f) == len ? 0 : -1;
}

int
phys_checkpoint_save (const char *path, const char *key, const phys_world_t *world, const sim_config_t *cfg,
                      uint64_t serial)
{
    phys_checkpoint_meta_t meta = { .serial = serial };
    return phys_checkpoint_write (path, key, world, cfg, &meta);
}

int
phys_checkpoint_write (const char *path, const char *key, const phys_world_t *world, const sim_config_t *cfg,
                       const phys_checkpoint_meta_t *meta)
{
    if (meta->once_count > PHYS_CHECKPOINT_ONCE_MAX || (meta->once_count && !meta->once_ids)) {
        sim_warn ("checkpoint: %zu once-only ids, more than %u", meta->once_count, PHYS_CHECKPOINT_ONCE_MAX);
        return -1;
    }
    char *ini = sim_config_dump (cfg, false);
    size_t image_size = phys_world_image_size ();
    void *image = malloc (image_size);
    if (!ini || !image) {
        free (ini);
        free (image);
        return -1;
    }
    phys_world_save (world, image);
    ck_header_t h = { .format = CK_FORMAT,
                      .image_size = (uint32_t) image_size,
                      .serial = meta->serial,
                      .rig_generation = cfg->rig_generation,
                      .key_len = (uint32_t) strlen (key),
                      .ini_len = (uint32_t) strlen (ini),
                      .once_count = (uint32_t) meta->once_count,
                      .journal_seq = meta->journal_seq };
    memcpy (h.magic, CK_MAGIC, sizeof h.magic);

    char tmp[SIM_STRING_MAX + 16];
    snprintf (tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen (tmp, "wb");
    if (!f) {
        sim_warn ("checkpoint: cannot write %s: %s", tmp, strerror (errno));
        free (ini);
        free (image);
        return -1;
    }
    uint64_t hash = SIM_FNV1A_BASIS;
    int rc = s_write_all (f, &h, sizeof h, &hash);
    rc |= s_write_all (f, key, h.key_len, &hash);
    rc |= s_write_all (f, ini, h.ini_len, &hash);
    rc |= s_write_all (f, image, image_size, &hash);
    if (h.once_count)
        rc |= s_write_all (f, meta->once_ids, h.once_count * sizeof *meta->once_ids, &hash);
    rc |= fwrite (&hash, sizeof hash, 1, f) == 1 ? 0 : -1;
    /* the data must be on disk before the rename makes it the checkpoint */
    rc |= fflush (f);
    rc |= fsync (fileno (f));
    rc |= fclose (f);
    free (ini);
    free (image);
    if (rc || rename (tmp, path)) {
        sim_warn ("checkpoint: cannot write %s: %s", path, strerror (errno));
        unlink (tmp);
        return -1;
    }
    return 0;
}

phys_world_t *
phys_checkpoint_load (const char *path, const char *key, sim_config_t *cfg, uint64_t *serial)
{
    phys_checkpoint_meta_t meta = { .once_ids = NULL };
    phys_world_t *world = phys_checkpoint_read (path, key, cfg, &meta);
    if (world)
        *serial = meta.serial;
    return world;
}

phys_world_t *
phys_checkpoint_read (const char *path, const char *key, sim_config_t *cfg, phys_checkpoint_meta_t *meta)
{
    FILE *f = fopen (path, "rb");
    if (!f) {
        if (meta->why)
            snprintf (meta->why, meta->why_len, "it cannot be opened: %s", strerror (errno));
        return NULL;
    }
    struct stat st;
    uint8_t *data = NULL;
    phys_world_t *world = NULL;
    const char *why = "corrupt";
    char reason[320] = "";
    if (fstat (fileno (f), &st) || st.st_size < (off_t) (sizeof (ck_header_t) + 8)
        || st.st_size > (off_t) CK_MAX_BYTES)
        goto done;
    size_t size = (size_t) st.st_size;
    data = malloc (size + 1);
    if (!data || fread (data, 1, size, f) != size)
        goto done;
    ck_header_t h;
    memcpy (&h, data, sizeof h);
    if (memcmp (h.magic, CK_MAGIC, sizeof h.magic) != 0)
        goto done;
    if (h.format != CK_FORMAT || h.image_size != phys_world_image_size ()) {
        why = "from another build";
        goto done;
    }
    size_t ids_len = (size_t) h.once_count * sizeof (uint64_t);
    size_t body = sizeof h + (size_t) h.key_len + (size_t) h.ini_len + h.image_size + ids_len;
    if (h.key_len > 4096 || h.ini_len > CK_MAX_BYTES || h.once_count > PHYS_CHECKPOINT_ONCE_MAX
        || body + 8 != size)
        goto done;
    uint64_t want;
    memcpy (&want, data + body, sizeof want);
    if (sim_fnv1a (SIM_FNV1A_BASIS, data, body) != want)
        goto done;
    const char *k = (const char *) data + sizeof h;
    if (h.key_len != strlen (key) || memcmp (k, key, h.key_len) != 0) {
        why = NULL;
        snprintf (reason, sizeof reason, "it belongs to another run (key \"%.*s\", not \"%s\")",
                  (int) (h.key_len < 64 ? h.key_len : 64), k, key);
        if (!meta->why)
            sim_info ("checkpoint %s belongs to another run; starting fresh", path);
        goto done;
    }
    char *ini = (char *) data + sizeof h + h.key_len;
    uint8_t *image = (uint8_t *) ini + h.ini_len;
    sim_config_t loaded;
    sim_config_defaults (&loaded);
    char err[256] = "";
    /* the INI is read in place: terminate it once the image is loaded */
    phys_world_t *copy = phys_world_load (image, h.image_size);
    if (!copy) {
        why = "inconsistent (the core refused its world image)";
        goto done;
    }
    ini[h.ini_len] = '\0';
    if (sim_config_load_string (&loaded, ini, "checkpoint", err, sizeof err)) {
        snprintf (reason, sizeof reason, "its configuration is rejected: %s", err);
        if (!meta->why)
            sim_warn ("checkpoint %s: configuration rejected: %s", path, err);
        phys_world_destroy (&copy);
        why = NULL;
        goto done;
    }
    loaded.rig_generation = h.rig_generation;
    *cfg = loaded;
    meta->serial = h.serial;
    meta->journal_seq = h.journal_seq;
    meta->once_count = meta->once_ids ? h.once_count : 0;
    if (meta->once_count)
        memcpy (meta->once_ids, image + h.image_size, ids_len);
    world = copy;
    why = NULL;
done:
    if (why)
        snprintf (reason, sizeof reason, "it is %s", why);
    if (why && !meta->why)
        sim_warn ("checkpoint %s is %s; starting fresh", path, why);
    if (!world && meta->why)
        snprintf (meta->why, meta->why_len, "%s", reason);
    free (data);
    fclose (f);
    return world;
}

/*  sim_logfile_part.c - a compressed log written plain first: the part's
    name, and compressing a finished part into the .gz log (see
    sim_logfile.h, sim_logfile_part_path and sim_logfile_compress).
*/
#include "sim_logfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_logfile_internal.h"

/* ---- a compressed log written plain first ----------------------------- */

int
sim_logfile_part_path (const char *path, char *buf, size_t size)
{
    if (!lf_is_gz_name (path))
        return 0;
    int n = snprintf (buf, size, "%s%s", path, SIM_LOGFILE_PART);
    return n >= 0 && (size_t) n < size ? 1 : -1;
}

/* fsync the directory `path` is in, so a rename into it lasts a crash.
   Returns 0 or -1 (errno). */
static int
s_sync_dir (const char *path)
{
    char *dir = strdup (path);
    if (!dir)
        return -1;
    char *slash = strrchr (dir, '/');
    const char *name = slash ? (slash == dir ? "/" : (*slash = '\0', dir)) : ".";
    int fd = open (name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int rc = fd >= 0 && (fsync (fd) == 0 || errno == EINVAL) ? 0 : -1;
    int saved = errno;
    if (fd >= 0)
        close (fd);
    free (dir);
    errno = saved;
    return rc;
}

int
sim_logfile_compress (const char *part, const char *path, const volatile sig_atomic_t *stop,
                      uint64_t *records, char *err, size_t errlen)
{
    *records = 0;
    char why[SIM_LOGFILE_ERROR_MAX];
    sim_logfile_reader_t *r = sim_logfile_reader_new (part, why, sizeof why);
    if (!r) {
        lf_err (err, errlen, "%s", why);
        return -1;
    }
    /* written under a temporary name beside `path` and renamed over it
       when whole: a kill at any moment leaves `path` absent or whole */
    size_t tmp_len = strlen (path) + 8;
    char *tmp = malloc (tmp_len);
    int fd = -1;
    if (tmp) {
        /* a name the part's 5 more bytes fit may not take 7 more: the
           name is cut to what a directory entry holds (255 bytes) */
        const char *slash = strrchr (path, '/');
        int dir_len = slash ? (int) (slash - path + 1) : 0;
        int base_len = (int) strlen (path + dir_len);
        snprintf (tmp, tmp_len, "%.*s%.*s.XXXXXX", dir_len, path, base_len < 248 ? base_len : 248,
                  path + dir_len);
        fd = mkstemp (tmp);
    }
    if (fd < 0) {
        lf_err (err, errlen, "cannot write beside %s: %s", path, tmp ? strerror (errno) : "out of memory");
        free (tmp);
        sim_logfile_reader_destroy (&r);
        return -1;
    }
    struct stat st;
    if (stat (part, &st) == 0)
        fchmod (fd, st.st_mode & 0777); /* mkstemp's 0600 is not what vision made */
    int keep = dup (fd);                /* for fsync once gzclose has closed fd */
    sim_logfile_writer_t *w = keep >= 0 ? lf_writer_gz_fd (fd, tmp, err, errlen) : NULL;
    if (keep < 0)
        close (fd);
    sim_logfile_msg_t m;
    int rc = 0;
    bool failed = !w, stopped = false;
    while (!failed && !(stopped = stop && *stop) && (rc = sim_logfile_next (r, &m)) == 1) {
        if (m.type == SIM_LOGFILE_INDEX)
            continue; /* offsets into the plain part: a gzip log has no index */
        failed = sim_logfile_write (w, m.time_ns, m.type, m.data, m.len) != 0;
        *records += !failed;
    }
    /* the part is the only whole copy until the rename: on any doubt it
       stays, and the temporary file goes */
    if (sim_logfile_writer_destroy (&w) || failed || (keep >= 0 && fsync (keep) != 0))
        lf_err (err, errlen, "cannot write %s; the records stay in %s", path, part);
    else if (stopped)
        lf_err (err, errlen, "interrupted: the records stay in %s", part);
    else if (rc < 0 && !sim_logfile_reader_torn (r)) {
        /* damage inside the part: what follows it is in no copy but the
           part, which a user may repair, so nothing replaces it */
        lf_err (err, errlen, "%s; %s is kept (not compressed: the records after the damage are only there)",
                sim_logfile_error (r), part);
    } else if (rename (tmp, path) != 0)
        lf_err (err, errlen, "cannot replace %s: %s; the records stay in %s", path, strerror (errno), part);
    else if (s_sync_dir (path) != 0)
        lf_err (err, errlen, "cannot sync the directory of %s: %s; the records stay in %s", path,
                strerror (errno), part);
    else {
        free (tmp);
        tmp = NULL;
    }
    if (keep >= 0)
        close (keep);
    if (tmp) {
        unlink (tmp); /* fails harmlessly when it was renamed */
        free (tmp);
        sim_logfile_reader_destroy (&r);
        return -1;
    }
    bool torn = rc < 0;
    if (torn)
        lf_err (err, errlen, "%s", sim_logfile_error (r));
    sim_logfile_reader_destroy (&r);
    if (unlink (part) != 0) {
        lf_err (err, errlen, "compressed into %s but cannot remove %s: %s", path, part, strerror (errno));
        return -1;
    }
    return torn ? 1 : 0;
}

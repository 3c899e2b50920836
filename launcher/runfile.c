/*  runfile.c - the lock on a file a run writes for its user (runfile.h). */
#include "runfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

int
launch_run_file_lock (const char *file, const char *named, const char *opt, const char *verb, off_t *size)
{
    for (int tries = 0; tries < 10; tries++) {
        int fd = open (file, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) {
            fprintf (stderr, "ssl-sim: %s: cannot write %s: %s\n", opt, file, strerror (errno));
            return -1;
        }
        if (flock (fd, LOCK_EX | LOCK_NB) != 0) {
            int e = errno;
            close (fd);
            if (e == EWOULDBLOCK && strcmp (file, named) == 0)
                fprintf (stderr, "ssl-sim: %s: another run %s %s now: give this one another %s FILE\n", opt,
                         verb, named, opt);
            else if (e == EWOULDBLOCK)
                fprintf (stderr,
                         "ssl-sim: %s: another run %s %s now (it writes %s): give this one another %s FILE\n",
                         opt, verb, named, file, opt);
            else
                fprintf (stderr, "ssl-sim: %s: cannot lock %s: %s\n", opt, file, strerror (e));
            return -1;
        }
        struct stat held, at;
        if (fstat (fd, &held) == 0 && stat (file, &at) == 0 && held.st_dev == at.st_dev
            && held.st_ino == at.st_ino) {
            if (size)
                *size = held.st_size;
            return fd;
        }
        close (fd);
    }
    fprintf (stderr, "ssl-sim: %s: %s keeps being replaced by another process\n", opt, file);
    return -1;
}

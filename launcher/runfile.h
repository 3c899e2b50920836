/*  runfile.h - the files a run writes for its user, `--record FILE` (the
    part vision writes) and `--journal FILE`, each locked by the launcher
    for the whole run, so that a second run given the same name is
    refused before it touches anything instead of the two replacing each
    other's file (docs/logs.md "One run per FILE", docs/journal.md "One
    run per journal"). One lock, one policy, for both.

    The lock is flock(2) on the file itself, taken by the launcher and
    held until the run ends: the services that write the file (vision,
    physics), restarted within the run, open it again without a lock of
    their own and write it in place, never replace it by a rename (which
    would leave the lock on a file that is no longer at the name).
*/
#ifndef LAUNCH_RUNFILE_H_INCLUDED
#define LAUNCH_RUNFILE_H_INCLUDED

#include <sys/types.h>

/* Open `file` for this run (created when missing, never emptied) and
   lock it, exclusively, while `file` still names the locked file (a run
   that ends may unlink its file while it holds the lock: a lock on that
   one would guard nothing, so it looks again). `opt` is the option the
   user gave ("--record"), `named` the name given with it (file itself,
   or the log whose part file is), `verb` what the other run does to it
   ("records to"), for the refusal:

       ssl-sim: --record: another run records to NAMED now: give this one another --record FILE

   *size: what the file held when locked (NULL: not wanted). Returns the
   fd (close it to let go of the lock), or -1 when another run holds it
   or it cannot be opened (said on stderr). */
int launch_run_file_lock (const char *file, const char *named, const char *opt, const char *verb,
                          off_t *size);

#endif

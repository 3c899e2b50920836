/*  sim_step.c - substeps in a step (see sim_step.h). */
#include "sim_step.h"

#include <math.h>
#include <stdio.h>

int64_t
sim_step_substeps (double seconds, double substep_s, char *why, size_t why_len)
{
    if (seconds == 0)
        return 0;
    if (!isfinite (seconds) || seconds < 0) {
        if (why && why_len)
            snprintf (why, why_len, "%g s: a step must be a finite number of seconds >= 0", seconds);
        return -1;
    }
    /* bounded, so one absurd request cannot stall physics for hours; said
       first, since a long step is refused whatever its size in substeps */
    if (seconds > SIM_STEP_MAX_S * (1 + 1e-6)) {
        if (why && why_len)
            snprintf (why, why_len, "%g s is longer than the %g s a sync step may be", seconds,
                      SIM_STEP_MAX_S);
        return -1;
    }
    double dt_ns = (double) llround (substep_s * 1e9);
    double requested = seconds * 1e9;
    double n = round (requested / dt_ns);
    if (n < 1 || fabs (n * dt_ns - requested) > fmax (requested * 1e-6, 1000.0)) {
        if (why && why_len)
            snprintf (why, why_len,
                      "%g s is not a whole number of the simulator's %g s substeps ([sim] substep)", seconds,
                      substep_s);
        return -1;
    }
    if (n * dt_ns > SIM_STEP_MAX_S * 1e9) {
        if (why && why_len)
            snprintf (why, why_len, "%g s is longer than the %g s a sync step may be", seconds,
                      SIM_STEP_MAX_S);
        return -1;
    }
    /* physics answers nobody else while it steps: the wait a step makes
       others bear is bounded in substeps (docs/protocol.md, "Fair sync") */
    if (n > SIM_STEP_MAX_SUBSTEPS) {
        if (why && why_len)
            snprintf (why, why_len, "%g s is more than the %d substeps of %g s a step may be", seconds,
                      SIM_STEP_MAX_SUBSTEPS, substep_s);
        return -1;
    }
    return (int64_t) n;
}

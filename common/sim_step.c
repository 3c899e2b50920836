/*  sim_step.c - substeps in a step (see sim_step.h). */
#include "sim_step.h"

#include <math.h>

int64_t
sim_step_substeps (double seconds, double substep_s)
{
    if (seconds == 0)
        return 0;
    if (!isfinite (seconds) || seconds < 0)
        return -1;
    double dt_ns = (double) llround (substep_s * 1e9);
    double requested = seconds * 1e9;
    double n = round (requested / dt_ns);
    if (fabs (n * dt_ns - requested) > fmax (requested * 1e-6, 1000.0))
        return -1;
    /* bounded, so one absurd request cannot stall physics for hours */
    if (n * dt_ns > SIM_STEP_MAX_S * 1e9)
        return -1;
    return (int64_t) n;
}

/*  phys_math.h - small math kernels of the physics core.

    phys_sincos is the robots' orientation sine/cosine, evaluated for every
    robot every substep. It is an own polynomial kernel (the classic
    minimax coefficients for |x| <= π/4 after a two-constant reduction by
    π/2) so that it is about four times cheaper than libm's sincos and
    gives the same bits on every platform and libm version, which keeps
    state hashes portable. Accurate to about 1 ulp for |x| <= 4π.
*/
#ifndef PHYS_MATH_H_INCLUDED
#define PHYS_MATH_H_INCLUDED

static inline double
phys_sin_kernel (double x)
{
    const double S1 = -1.66666666666666324348e-01, S2 = 8.33333333332248946124e-03,
                 S3 = -1.98412698298579493134e-04, S4 = 2.75573137070700676789e-06,
                 S5 = -2.50507602534068634195e-08, S6 = 1.58969099521155010221e-10;
    double z = x * x;
    double r = S2 + z * (S3 + z * (S4 + z * (S5 + z * S6)));
    return x + z * x * (S1 + z * r);
}

static inline double
phys_cos_kernel (double x)
{
    const double C1 = 4.16666666666666019037e-02, C2 = -1.38888888888741095749e-03,
                 C3 = 2.48015872894767294178e-05, C4 = -2.75573143513906633035e-07,
                 C5 = 2.08757232129817482790e-09, C6 = -1.13596475577881948265e-11;
    double z = x * x;
    double r = z * (C1 + z * (C2 + z * (C3 + z * (C4 + z * (C5 + z * C6)))));
    double hz = 0.5 * z, w = 1.0 - hz;
    return w + (((1.0 - w) - hz) + z * r);
}

/* sin and cos of x (|x| <= 4π for full accuracy). */
static inline void
phys_sincos (double x, double *s, double *c)
{
    const double invpio2 = 6.36619772367581382433e-01;
    const double pio2_1 = 1.57079632673412561417e+00;  /* first 33 bits of π/2 */
    const double pio2_1t = 6.07710050650619224932e-11; /* π/2 - pio2_1 */
    double t = x * invpio2;
    long n = (long) (t >= 0 ? t + 0.5 : t - 0.5);
    double fn = (double) n;
    double y = (x - fn * pio2_1) - fn * pio2_1t;
    double sy = phys_sin_kernel (y), cy = phys_cos_kernel (y);
    /* clang-format off */
    switch (n & 3) {
    case 0: *s = sy; *c = cy; break;
    case 1: *s = cy; *c = -sy; break;
    case 2: *s = -sy; *c = -cy; break;
    default: *s = -cy; *c = sy; break;
    }
    /* clang-format on */
}

#endif

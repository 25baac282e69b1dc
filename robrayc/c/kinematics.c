/* robrayc's compiled collision checker: what the robot's generated kinematics (fk and fk8,
 * written after all the kernel's files) call: a sine and cosine without a branch (sin_cos, that
 * vectorises in fk8's loop over lanes, and fk_sincos, libm's beyond SINCOS_MAX) and a turn
 * about an axis that is not a frame axis. Compiled right after checker_kernel.c; a generated
 * checker holds this file verbatim too. */

/* angles past this are not reduced exactly by sin_cos (fk_sincos takes libm's there) */
#define SINCOS_MAX 1e5

/* sin x and cos x for |x| <= SINCOS_MAX, each within 4e-15 (tests/test_c_lanes.py
 * measures it against libm): x less the nearest multiple n of pi/2 (Cody and Waite's two
 * parts of pi/2, the first of 33 bits, so that n times it is exact and the difference too),
 * then fdlibm's polynomials of sin and cos on [-pi/4, pi/4] (error below 2^-58), and the
 * quadrant n mod 4. No branch and no call: a loop over lanes of it vectorises (fk8), and
 * the scalar fk is some 4 % faster with it than with libm's two calls. */
static inline void sin_cos(double x, double *s, double *c)
{
    const double shift = 6755399441055744.0;  /* 1.5 * 2^52: adding it rounds to an integer */
    const double n = (x * 0.63661977236758134308 + shift) - shift;
    const double r = (x - n * 1.57079632673412561417) - n * 6.07710050650619224932e-11;
    const double z = r * r;
    const double sp = r + r * z * (-1.66666666666666324348e-01 + z * (8.33333333332248946124e-03
                      + z * (-1.98412698298579493134e-04 + z * (2.75573137070700676789e-06
                      + z * (-2.50507602534068634195e-08 + z * 1.58969099521155010221e-10)))));
    const double cp = 1.0 - 0.5 * z + z * z * (4.16666666666666019037e-02
                      + z * (-1.38888888888741095749e-03 + z * (2.48015872894767294178e-05
                      + z * (-2.75573143513906633035e-07 + z * (2.08757232129817482790e-09
                      + z * -1.13596475577881948265e-11)))));
    const double k = n - 4.0 * ((n * 0.25 + shift) - shift);  /* n mod 4 in -2 .. 2 */
    const int odd = k == 1.0 || k == -1.0;
    const double s0 = odd ? cp : sp, c0 = odd ? sp : cp;
    *s = (k == 2.0 || k == -2.0 || k == -1.0) ? -s0 : s0;
    *c = (k == 2.0 || k == -2.0 || k == 1.0) ? -c0 : c0;
}

/* sin_cos where it reduces exactly, libm beyond (fk and turn: any joint value) */
static inline void fk_sincos(double x, double *s, double *c)
{
    if (fabs(x) <= SINCOS_MAX) {
        sin_cos(x, s, c);
    } else {  /* NaN too */
        *s = sin(x);
        *c = cos(x);
    }
}

#if CHECKER_FK_TURNS
/* out = base turned by angle v about axis: amino's axis-angle quaternion, the axis used as
 * given */
static void turn(const double *base, const double *axis, double v, double *out)
{
    double s, w, x, y, z, rot[12];
    fk_sincos(0.5 * v, &s, &w);
    x = s * axis[0]; y = s * axis[1]; z = s * axis[2];
    rot[0] = 1 - 2 * (y * y + z * z); rot[1] = 2 * (x * y - z * w);
    rot[2] = 2 * (x * z + y * w); rot[3] = 2 * (x * y + z * w);
    rot[4] = 1 - 2 * (x * x + z * z); rot[5] = 2 * (y * z - x * w);
    rot[6] = 2 * (x * z - y * w); rot[7] = 2 * (y * z + x * w);
    rot[8] = 1 - 2 * (x * x + y * y); rot[9] = rot[10] = rot[11] = 0.0;
    mul(base, rot, out);
}

#endif

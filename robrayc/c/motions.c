/* robrayc's compiled collision checker: batches of configurations and straight-line motions,
 * eight configurations at a time in the vector lanes (lanes.c), each lane not proven FREE
 * there answered by the one-configuration check (checker_check). Compiled right after
 * passes.c; a generated checker holds this file verbatim too.
 *
 * A motion from a to b is checked at the samples (1 - t) a + t b, t = k / (8 n) for
 * k = 1 .. 8 n, with n = max(1, ceil(|b - a| resolution / 8)) (|.|: the Euclidean length over
 * the configuration's variables): VAMP's samples (KavrakiLab/vamp, validate_motion; b itself
 * is one of them); then the start a (t = 0), which VAMP leaves to its caller: a motion from a
 * colliding configuration is not free. The samples are taken in VAMP's raked order: eight
 * rakes spread evenly over the motion (the first ends at 1/8 of it, the last at b), each
 * stepping back by 1 / (8 n) at a time, so that a collision anywhere on the motion is met
 * after few samples. The eight rakes' samples of a step are one block of the lanes; the
 * first block with a sample that is not FREE ends the check, with that sample's answer (the
 * samples the lanes find colliding for certain first, then the others in raked order:
 * passes.c's check_first).
 *
 * A motion is INVALID (no answer, never FREE) when a sample is (a value that is not a finite
 * number: checker_check), and when its resolution is not a positive number or it would take
 * more than MOTION_MAX_SAMPLES samples.
 */

#define MOTION_MAX_SAMPLES (1L << 30)

/* n configurations (q: n x NQ doubles): out[k] as checker_check answers q[k] (each stops at
 * its first certain collision); returns how many are not FREE */
long checker_check_batch(const double *q, long n, int *out)
{
    long k, open = 0;
    for (k = 0; k + 8 <= n; k += 8) checker_check8(q + k * NQ, out + k);
    if (k < n) {  /* the last rows, padded to a block with the first of them */
        double pad[8][NQ_DECL];
        int i, l, last[8];
        for (l = 0; l < 8; l++)
            for (i = 0; i < NQ; i++) pad[l][i] = q[(k + (k + l < n ? l : 0)) * NQ + i];
        checker_check8(pad[0], last);
        for (l = 0; k + l < n; l++) out[k + l] = last[l];
    }
    for (k = 0; k < n; k++) open += out[k] != CHECKER_FREE;
    return open;
}

/* the steps n of each rake of the motion a -> b (8 n + 1 samples), or 0 when it cannot be
 * checked (see the top of this file) */
static long motion_steps(const double *a, const double *b, double resolution)
{
    double length = 0.0, steps;
    int i;
    if (!(resolution > 0.0) || !isfinite(resolution)) return 0;
    for (i = 0; i < NQ; i++) length += (b[i] - a[i]) * (b[i] - a[i]);
    steps = ceil(sqrt(length) * resolution / 8.0);
    if (!(steps <= (double)(MOTION_MAX_SAMPLES / 8))) return 0;  /* also NaN */
    return steps < 1.0 ? 1 : (long)steps;
}

/* how many samples the motion a -> b is checked at (8 n + 1), or 0 when it cannot be */
long checker_motion_samples(const double *a, const double *b, double resolution)
{
    long n = motion_steps(a, b, resolution);
    return n ? 8 * n + 1 : 0;
}

/* the motion's samples in the order they are checked (samples x NQ doubles); returns how many
 * (checker_motion_samples) */
long checker_motion_configs(const double *a, const double *b, double resolution,
                            double *out)
{
    long n = motion_steps(a, b, resolution), step, at = 0;
    int rake, i;
    if (!n) return 0;
    for (step = 0; step < n; step++)
        for (rake = 1; rake <= 8; rake++, at++) {
            double t = (double)(rake * n - step) / (double)(8 * n);
            for (i = 0; i < NQ; i++) out[at * NQ + i] = (1.0 - t) * a[i] + t * b[i];
        }
    for (i = 0; i < NQ; i++) out[at * NQ + i] = a[i];
    return at + 1;
}

/* The straight-line motion a -> b (NQ doubles each) at `resolution` samples per unit of
 * configuration-space length, in raked order: the answer of a sample that is not FREE, of
 * the first block of eight that holds one (COLLIDES; MAYBE, a sphere-only checker's
 * "colliding": a later sample may collide for certain; INVALID), else FREE. */
int checker_check_motion(const double *a, const double *b, double resolution)
{
    long n = motion_steps(a, b, resolution), step;
    int rake, i;
    double q[8][NQ_DECL];
    struct hull_guesses guesses;
    if (!n) return CHECKER_INVALID;
    hull_guesses_start(&guesses);
    for (step = 0; step < n; step++) {  /* the eight rakes' samples of a step: one block */
        int r;
        for (rake = 1; rake <= 8; rake++) {
            double t = (double)(rake * n - step) / (double)(8 * n);
            for (i = 0; i < NQ; i++) q[rake - 1][i] = (1.0 - t) * a[i] + t * b[i];
        }
        r = check_first(q[0], &guesses);
        if (r != CHECKER_FREE) return r;
    }
    return checker_check(a);
}

/* n motions, a[k] -> b[k] (n x NQ doubles each): out[k] as checker_check_motion answers;
 * returns how many are not FREE */
long checker_check_motions(const double *a, const double *b, long n, double resolution,
                           int *out)
{
    long k, open = 0;
    for (k = 0; k < n; k++) {
        out[k] = checker_check_motion(a + k * NQ, b + k * NQ, resolution);
        open += out[k] != CHECKER_FREE;
    }
    return open;
}

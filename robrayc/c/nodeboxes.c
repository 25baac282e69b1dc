/* robrayc's compiled collision checker: the boxes of the triangle trees' nodes (TBOX, meshes.c
 * says their layout), for meshes.c's searches: is a node's box apart from another's, or from
 * a sphere or a box solid, by more than DECIDE_GAP. Pasted right after convex.c; a generated
 * checker holds this file verbatim too.
 *
 * boxes_apart_at is the separating-axis test of two oriented boxes over its 15 axes (Gottschalk,
 * Lin and Manocha's OBB test): with AVX2, all of them at once, three to a vector (a 4-wide
 * vector holds three values and a fourth not looked at); without, one after another, each
 * tested as soon as made. Along b's own axes the centres' offset is taken straight (w's
 * column j . the offset, not R's column j . a's frame's offset: the same in exact arithmetic).
 * The two give the same answers: the same products and sums in the same order. Most node pairs of a search lie
 * within each other's boxes, so most tests make every axis anyway: with AVX2, UR5's NAME_check
 * over 4,000 rows takes 12 % less time (its searches' box tests were a third of it), Fetch's
 * 10 % (docs/performance.md). grown_box moves a box into another frame (mul) a rotation row to
 * a vector with AVX2 (UR5's NAME_check: 5.6 % fewer instructions, 4 % less time).
 */

#if CHECKER_TRIANGLES

/* node box o (frame a), grown by DECIDE_GAP + CONTACT_TOL so that sat_overlap (which
 * subtracts CONTACT_TOL along each axis, scaled by its length) finds it apart only where
 * the boxes lie farther apart than DECIDE_GAP: its pose in frame m maps frame a to, in w */
static void grown_box(const double *o, const double *m, double *w, double *h)
{
    int k;
#if defined(__AVX2__)  /* mul's rotation rows, a vector each (the same sums) */
    const __m256d r0 = _mm256_loadu_pd(o), r1 = _mm256_loadu_pd(o + 3);
    const __m256d r2 = _mm256_loadu_pd(o + 6);
    for (k = 0; k < 3; k++)  /* row k's store writes w[3 k + 3] too: the next one's, or w[9] */
        _mm256_storeu_pd(w + 3 * k, _mm256_add_pd(
            _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(m[3 * k]), r0),
                          _mm256_mul_pd(_mm256_set1_pd(m[3 * k + 1]), r1)),
            _mm256_mul_pd(_mm256_set1_pd(m[3 * k + 2]), r2)));
    for (k = 0; k < 3; k++)
        w[9 + k] = m[3 * k] * o[9] + m[3 * k + 1] * o[10] + m[3 * k + 2] * o[11] + m[9 + k];
#else
    mul(m, o, w);
#endif
    for (k = 0; k < 3; k++) h[k] = o[12 + k] + DECIDE_GAP + CONTACT_TOL;
}

/* are node box oa (frame a) and a box moved into frame a (pose w, half extents hb grown by
 * DECIDE_GAP + CONTACT_TOL: grown_box) farther apart than DECIDE_GAP: the 15 axes of the
 * separating-axis test (no axis scaled by its length: the growth projects to at least
 * DECIDE_GAP times its length on each), |R_ij| + EPS_SAT as sat_overlap */
#if defined(__AVX2__)
/* the entries x, y, z of v turned to y, z, x, and to z, x, y (the fourth kept) */
#define TURN1(v) _mm256_permute4x64_pd((v), 0xc9)
#define TURN2(v) _mm256_permute4x64_pd((v), 0xd2)

static int boxes_apart_at(const double *oa, const double *w, const double *hb)
{
    static const int j1[3] = { 1, 2, 0 }, j2[3] = { 2, 0, 1 };
    const __m256d sign = _mm256_set1_pd(-0.0), eps = _mm256_set1_pd(EPS_SAT);
    /* rows of a's rotation (its axes are the columns): entry i of a vector is axis i's */
    const __m256d row0 = _mm256_loadu_pd(oa), row1 = _mm256_loadu_pd(oa + 3);
    const __m256d row2 = _mm256_loadu_pd(oa + 6);
    /* a's half extents (oa[11..14] turned down one, the 4th entry 0) */
    const __m256d ha = _mm256_blend_pd(_mm256_permute4x64_pd(_mm256_loadu_pd(oa + 11), 0xf9),
                                       _mm256_setzero_pd(), 8);
    __m256d rc[3], ac[3], tl, apart;
    int j;
    /* tl: b's centre in a's box frame; rc[j]: b's axis j there (column j of R), ac[j] |R| */
    tl = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(row0, _mm256_set1_pd(w[9] - oa[9])),
                                     _mm256_mul_pd(row1, _mm256_set1_pd(w[10] - oa[10]))),
                       _mm256_mul_pd(row2, _mm256_set1_pd(w[11] - oa[11])));
    for (j = 0; j < 3; j++) {
        rc[j] = _mm256_add_pd(_mm256_add_pd(_mm256_mul_pd(row0, _mm256_set1_pd(w[j])),
                                            _mm256_mul_pd(row1, _mm256_set1_pd(w[3 + j]))),
                              _mm256_mul_pd(row2, _mm256_set1_pd(w[6 + j])));
        ac[j] = _mm256_add_pd(_mm256_andnot_pd(sign, rc[j]), eps);
    }
    /* a's three axes */
    apart = _mm256_cmp_pd(_mm256_andnot_pd(sign, tl), _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(
        ha, _mm256_mul_pd(ac[0], _mm256_set1_pd(hb[0]))), _mm256_mul_pd(ac[1], _mm256_set1_pd(
        hb[1]))), _mm256_mul_pd(ac[2], _mm256_set1_pd(hb[2]))), _CMP_GT_OQ);
    for (j = 0; j < 3; j++) {  /* a's axis i (entry i) across b's axis j */
        const __m256d lhs = _mm256_andnot_pd(sign, _mm256_sub_pd(
            _mm256_mul_pd(TURN2(tl), TURN1(rc[j])), _mm256_mul_pd(TURN1(tl), TURN2(rc[j]))));
        const __m256d ra = _mm256_add_pd(_mm256_mul_pd(TURN1(ha), TURN2(ac[j])),
                                         _mm256_mul_pd(TURN2(ha), TURN1(ac[j])));
        const __m256d rb = _mm256_add_pd(_mm256_mul_pd(_mm256_set1_pd(hb[j1[j]]), ac[j2[j]]),
                                         _mm256_mul_pd(_mm256_set1_pd(hb[j2[j]]), ac[j1[j]]));
        apart = _mm256_or_pd(apart, _mm256_cmp_pd(lhs, _mm256_add_pd(ra, rb), _CMP_GT_OQ));
    }
    {   /* b's three axes (entry j): the centres' offset along b's axis j (a column of w),
         * against a's reach there (|R|'s row i, a's half extent i) and hb[j] */
        const __m256d lo = _mm256_unpacklo_pd(ac[0], ac[1]), hi = _mm256_unpackhi_pd(ac[0], ac[1]);
        const __m256d lo2 = _mm256_unpacklo_pd(ac[2], ac[2]), hi2 = _mm256_unpackhi_pd(ac[2], ac[2]);
        const __m256d lhs = _mm256_andnot_pd(sign, _mm256_add_pd(_mm256_add_pd(
            _mm256_mul_pd(_mm256_loadu_pd(w), _mm256_set1_pd(w[9] - oa[9])),
            _mm256_mul_pd(_mm256_loadu_pd(w + 3), _mm256_set1_pd(w[10] - oa[10]))),
            _mm256_mul_pd(_mm256_loadu_pd(w + 6), _mm256_set1_pd(w[11] - oa[11]))));
        const __m256d rhs = _mm256_add_pd(_mm256_add_pd(_mm256_add_pd(
            _mm256_mul_pd(_mm256_set1_pd(oa[12]), _mm256_permute2f128_pd(lo, lo2, 0x20)),
            _mm256_mul_pd(_mm256_set1_pd(oa[13]), _mm256_permute2f128_pd(hi, hi2, 0x20))),
            _mm256_mul_pd(_mm256_set1_pd(oa[14]), _mm256_permute2f128_pd(lo, lo2, 0x31))),
            _mm256_maskload_pd(hb, _mm256_set_epi64x(0, -1, -1, -1)));
        apart = _mm256_or_pd(apart, _mm256_cmp_pd(lhs, rhs, _CMP_GT_OQ));
    }
    return _mm256_movemask_pd(apart) & 7 ? 1 : 0;
}
#else
static int boxes_apart_at(const double *oa, const double *w, const double *hb)
{
    static const int i1[3] = { 1, 2, 0 }, i2[3] = { 2, 0, 1 };
    double r[3][3], a[3][3], d[3], tl[3];
    const double *ha = oa + 12;
    int i, j;
    for (i = 0; i < 3; i++) d[i] = w[9 + i] - oa[9 + i];
    for (i = 0; i < 3; i++) {  /* in a's box frame: its axes are oa's columns */
        tl[i] = oa[i] * d[0] + oa[3 + i] * d[1] + oa[6 + i] * d[2];
        for (j = 0; j < 3; j++) {
            r[i][j] = oa[i] * w[j] + oa[3 + i] * w[3 + j] + oa[6 + i] * w[6 + j];
            a[i][j] = fabs(r[i][j]) + EPS_SAT;
        }
    }
    for (i = 0; i < 3; i++)
        if (fabs(tl[i]) > ha[i] + a[i][0] * hb[0] + a[i][1] * hb[1] + a[i][2] * hb[2])
            return 1;
    for (j = 0; j < 3; j++)  /* along b's axis j (a column of w) */
        if (fabs(w[j] * d[0] + w[3 + j] * d[1] + w[6 + j] * d[2])
            > ha[0] * a[0][j] + ha[1] * a[1][j] + ha[2] * a[2][j] + hb[j]) return 1;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            double ra = ha[i1[i]] * a[i2[i]][j] + ha[i2[i]] * a[i1[i]][j];
            double rb = hb[i1[j]] * a[i][i2[j]] + hb[i2[j]] * a[i][i1[j]];
            if (fabs(tl[i2[i]] * r[i1[i]][j] - tl[i1[i]] * r[i2[i]][j]) > ra + rb) return 1;
        }
    return 0;
}
#endif

/* boxes_apart_at of node boxes oa (frame a) and ob (frame b; t: b -> a) */
static int boxes_apart(const double *oa, const double *ob, const double *t)
{
    double w[12], hb[3];
    grown_box(ob, t, w, hb);
    return boxes_apart_at(oa, w, hb);
}

/* is node box o (frame a; m: frame a -> the solid's) farther than DECIDE_GAP from the box
 * of half extents h at the solid's origin, or (h null) from its sphere of radius r */
static int apart_box(const double *o, const double *m, const double *h, double r)
{
    static const double origin[3] = { 0.0, 0.0, 0.0 };
    double w[12], g[3], p[3];
    if (h) {
        double box[15] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0 };
        box[12] = h[0]; box[13] = h[1]; box[14] = h[2];
        return boxes_apart(box, o, m);
    }
    grown_box(o, m, w, g);
    to_local(w, origin, p);  /* the sphere's centre in the box */
    return box_distance(p, g) > r;
}
#endif

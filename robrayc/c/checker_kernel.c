/* robrayc's compiled collision checker: the kernel, the same for every robot.
 *
 * Compiled after checker_kernel.h and a robot's tables (see there; checker_example.c is a
 * small robot that compiles it on its own). A generated checker holds this file verbatim.
 * Here: the kinematics' helpers, the exact closed forms, the float tests of sphere trees and
 * bounding volumes, certified cells' look-up and the float32 precision frame; the one
 * configuration a call that runs them (check1 and the states API) is configuration.c, the
 * cells' prover cells.c, eight configurations a call lanes.c, motions motions.c.
 *
 * How a configuration is checked: forward kinematics in double (fixed chains pre-multiplied);
 * each moving solid's bounding sphere against its fixed partners' 8 at a time (AVX2, or
 * portable scalar), and the pairs of moving solids' 8 pairs at a time; for two meshes still
 * close, each one's bounding sphere against the other's box; then spheres and boxes by exact
 * closed forms in double (the exact checker's tests and contact tolerance); others through
 * their certified sphere trees, in their own group's frame (no placement): against a box or
 * sphere exactly, against the other solid's bounding box (every solid lies in its box), then
 * tree against tree. MAYBE when spheres still overlap at the leaves (a mesh with triangles
 * against a sphere, a box or another such mesh: its triangles first, the trees only where
 * they leave it MAYBE: pair1). A pair whose relative pose depends on one to three joint
 * variables skips all that in the cells of those variables proven apart when the robot's
 * tables were generated (CELLTAB).
 *
 * Tables besides checker_kernel.h's structs: BOX[s], each solid's bounding box in its group
 * frame (centre, rotation row-major with the box axes as columns, half extents; margin
 * included); NODE[k], sphere-tree nodes in their solid's group frame (x, y, z, radius; margin
 * included), each holding its children KID[k] = { first, count }, a leaf (count 0) with first
 * = its box in LEAF (or -1: none); LEAF[k], leaf boxes holding the same piece of the solid as
 * their sphere, as BOX; PAIR[p] = { solid a, solid b, frame pair }; MOVP, MOVA, MOVB, MOVR2:
 * the solid pairs of two moving solids, their solids and the squared reach of their bounding
 * spheres (padding lanes: reach -1, never near); CELLTAB[p]: -1 or the pair's table in CELLS,
 * whose bit k in CELLBITS is set when the pair's sphere trees were proven apart over the whole
 * of cell k (the pair is FREE there without a test).
 */

#if CHECKER_CERTIFY
/* the trees, bound at run time (checker_bind), laid out as the static tables */
static const float (*BOX)[15], (*NODE)[4], (*LEAF)[15];
static const int (*KID)[2];

void checker_bind(const float *box, const float *node, const int *kid, const float *leaf)
{
    BOX = (const float (*)[15])box;
    NODE = (const float (*)[4])node;
    KID = (const int (*)[2])kid;
    LEAF = (const float (*)[15])leaf;
}
#endif

/* --- kinematics ----------------------------------------------------------------------------- */

static void mul(const double *a, const double *b, double *out)
{
    int i;
    for (i = 0; i < 3; i++) {
        out[3 * i] = a[3 * i] * b[0] + a[3 * i + 1] * b[3] + a[3 * i + 2] * b[6];
        out[3 * i + 1] = a[3 * i] * b[1] + a[3 * i + 1] * b[4] + a[3 * i + 2] * b[7];
        out[3 * i + 2] = a[3 * i] * b[2] + a[3 * i + 1] * b[5] + a[3 * i + 2] * b[8];
        out[9 + i] = a[3 * i] * b[9] + a[3 * i + 1] * b[10] + a[3 * i + 2] * b[11] + a[9 + i];
    }
}

/* --- exact closed forms (double), as the exact checker's ------------------------------------ */

static double box_distance(const double *p, const double *h)
{
    double out = 0.0, top = -HUGE_VAL;
    int k;
    for (k = 0; k < 3; k++) {
        double e = fabs(p[k]) - h[k];
        if (e > 0.0) out += e * e;
        if (e > top) top = e;
    }
    return sqrt(out) + (top < 0.0 ? top : 0.0);
}

/* world point p in pose w (rotation, translation): w^T (p - t) */
static void to_local(const double *w, const double *p, double *out)
{
    double d0 = p[0] - w[9], d1 = p[1] - w[10], d2 = p[2] - w[11];
    int k;
    for (k = 0; k < 3; k++) out[k] = w[k] * d0 + w[3 + k] * d1 + w[6 + k] * d2;
}

static int sat_overlap(const double *wa, const double *ha, const double *wb, const double *hb)
{
    static const int i1[3] = { 1, 2, 0 }, i2[3] = { 2, 0, 1 };
    double r[3][3], a[3][3], t[3], tb[3];
    int i, j;
    to_local(wa, wb + 9, t);
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            r[i][j] = wa[i] * wb[j] + wa[3 + i] * wb[3 + j] + wa[6 + i] * wb[6 + j];
            a[i][j] = fabs(r[i][j]) + EPS_SAT;
        }
    for (i = 0; i < 3; i++)
        if (fabs(t[i]) >= ha[i] + a[i][0] * hb[0] + a[i][1] * hb[1] + a[i][2] * hb[2]
            - CONTACT_TOL) return 0;
    for (j = 0; j < 3; j++) {
        tb[j] = r[0][j] * t[0] + r[1][j] * t[1] + r[2][j] * t[2];
        if (fabs(tb[j]) >= ha[0] * a[0][j] + ha[1] * a[1][j] + ha[2] * a[2][j] + hb[j]
            - CONTACT_TOL) return 0;
    }
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            double ra = ha[i1[i]] * a[i2[i]][j] + ha[i2[i]] * a[i1[i]][j];
            double rb = hb[i1[j]] * a[i][i2[j]] + hb[i2[j]] * a[i][i1[j]];
            double lhs = fabs(t[i2[i]] * r[i1[i]][j] - t[i1[i]] * r[i2[i]][j]);
            double len = 1.0 - r[i][j] * r[i][j];
            len = len > 0.0 ? sqrt(len) : 0.0;
            if (len > 1e-9 && lhs >= ra + rb - CONTACT_TOL * len) return 0;
        }
    return 1;
}

/* sphere and box solids a, b (exact kinds) at group poses ga, gb */
static int exact_pair(const double *ga, const double *gb, const struct solid *a,
                      const struct solid *b)
{
    double wa[12], wb[12];
    int k;
    mul(ga, a->pose, wa);
    mul(gb, b->pose, wb);
    if (a->exact > b->exact) {
        const struct solid *s = a;
        a = b; b = s;
        for (k = 0; k < 12; k++) { double x = wa[k]; wa[k] = wb[k]; wb[k] = x; }
    }
    if (a->exact == 0 && b->exact == 0) {
        double reach = a->half[0] + b->half[0] - CONTACT_TOL, d2 = 0.0;
        for (k = 0; k < 3; k++) d2 += (wa[9 + k] - wb[9 + k]) * (wa[9 + k] - wb[9 + k]);
        return d2 < reach * reach;
    }
    if (a->exact == 0) {
        double p[3];
        to_local(wb, wa + 9, p);
        return box_distance(p, b->half) < a->half[0] - CONTACT_TOL;
    }
    return sat_overlap(wa, a->half, wb, b->half);
}

/* --- one configuration: no placement, spheres tested in their own group's frame ------------ */

/* float rigid transform b -> a of double group poses: out = ga^-1 gb (rotation row-major,
 * translation) */
static void relative(const double *ga, const double *gb, float *out)
{
    double d[3];
    int i, j;
    for (i = 0; i < 3; i++) d[i] = gb[9 + i] - ga[9 + i];
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 3; j++)
            out[3 * i + j] = (float)(ga[i] * gb[j] + ga[3 + i] * gb[3 + j]
                                     + ga[6 + i] * gb[6 + j]);
        out[9 + i] = (float)(ga[i] * d[0] + ga[3 + i] * d[1] + ga[6 + i] * d[2]);
    }
}

static void apply(const float *t, const float *p, float *out)
{
    int i;
    for (i = 0; i < 3; i++)
        out[i] = t[3 * i] * p[0] + t[3 * i + 1] * p[1] + t[3 * i + 2] * p[2] + t[9 + i];
}

/* does sphere (centre c in frame a, radius r) reach the box of half extents h, m: a -> box */
static int box1(const float *m, const float *c, float r, const float *h)
{
    float p[3], d2 = 0.0f;
    int k;
    apply(m, c, p);
    for (k = 0; k < 3; k++) {
        float e = fabsf(p[k]) - h[k];
        if (e > 0.0f) d2 += e * e;
    }
    return d2 <= r * r;
}

static int near1(const float *a, const float *b, float r)
{
    float dx = a[0] - b[0], dy = a[1] - b[1], dz = a[2] - b[2];
    return dx * dx + dy * dy + dz * dz <= r * r;
}

/* 1 unless one of the 15 axes separates box A (centre 0, axes the identity, half ha) from box
 * B (centre t, rotation r row-major: its axes are the columns, half hb), in A's frame. The
 * 1e-6 added to |r_ij| covers the float32 rounding of r (a product of two or three rotations
 * rounded to float: <= ~4 roundings, 2.4e-7 an entry) and keeps the cross axes of nearly
 * parallel edges from separating boxes that touch */
static int sat1(const float *ha, const float *t, const float *r, const float *hb)
{
    static const int i1[3] = { 1, 2, 0 }, i2[3] = { 2, 0, 1 };
    float a[9];
    int i, j;
    for (i = 0; i < 9; i++) a[i] = fabsf(r[i]) + 1e-6f;
    for (i = 0; i < 3; i++)
        if (fabsf(t[i]) > ha[i] + a[3 * i] * hb[0] + a[3 * i + 1] * hb[1] + a[3 * i + 2] * hb[2])
            return 0;
    for (j = 0; j < 3; j++)
        if (fabsf(r[j] * t[0] + r[3 + j] * t[1] + r[6 + j] * t[2])
            > ha[0] * a[j] + ha[1] * a[3 + j] + ha[2] * a[6 + j] + hb[j]) return 0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            float ra = ha[i1[i]] * a[3 * i2[i] + j] + ha[i2[i]] * a[3 * i1[i] + j];
            float rb = hb[i1[j]] * a[3 * i + i2[j]] + hb[i2[j]] * a[3 * i + i1[j]];
            if (fabsf(t[i2[i]] * r[3 * i1[i] + j] - t[i1[i]] * r[3 * i2[i] + j]) > ra + rb)
                return 0;
        }
    return 1;
}

/* out = rotation of m (row-major 3x3 part) times u (row-major 3x3); transposed: m^T u */
static void rot_mul(const float *m, const float *u, int transposed, float *out)
{
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            out[3 * i + j] = transposed
                ? m[i] * u[j] + m[3 + i] * u[3 + j] + m[6 + i] * u[6 + j]
                : m[3 * i] * u[j] + m[3 * i + 1] * u[3 + j] + m[3 * i + 2] * u[6 + j];
}

/* does node box o (frame a) reach the box h (r == 0) or the sphere of radius r at the origin
 * (h zero) of the frame m maps frame a to */
static int node_box(const float *o, const float *m, const float *h, float r)
{
    float t[3], u[9], d2 = 0.0f;
    int j;
    apply(m, o, t);
    rot_mul(m, o + 3, 0, u);
    if (r == 0.0f) return sat1(h, t, u, o + 12);
    for (j = 0; j < 3; j++) {
        float e = fabsf(u[j] * t[0] + u[3 + j] * t[1] + u[6 + j] * t[2]) - o[12 + j];
        if (e > 0.0f) d2 += e * e;
    }
    return d2 <= r * r;
}

/* do node boxes oa (frame a) and ob (frame b) overlap; t: frame b -> frame a */
static int node_node(const float *oa, const float *ob, const float *t)
{
    float cb[3], d[3], ub[9], tl[3], r[9];
    int i;
    apply(t, ob, cb);
    rot_mul(t, ob + 3, 0, ub);
    for (i = 0; i < 3; i++) d[i] = cb[i] - oa[i];
    for (i = 0; i < 3; i++) tl[i] = oa[3 + i] * d[0] + oa[6 + i] * d[1] + oa[9 + i] * d[2];
    rot_mul(oa + 3, ub, 1, r);
    return sat1(oa + 12, tl, r, ob + 12);
}

/* does a node of the tree under n (frame a) reach the box of half extents h dilated by r
 * (m: frame a -> the box's frame) */
static int tree_box(int n, const float *m, const float *h, float r)
{
    int k;
    if (!box1(m, NODE[n], NODE[n][3] + r, h)) return 0;
    if (!KID[n][1]) return KID[n][0] < 0 || node_box(LEAF[KID[n][0]], m, h, r);
    for (k = KID[n][0]; k < KID[n][0] + KID[n][1]; k++)
        if (tree_box(k, m, h, r)) return 1;
    return 0;
}

/* does solid a's tree (group pose ga) reach solid e (group pose ge): its box or sphere when
 * exact, else its bounding box */
static int tree_solid(int a, const double *ga, int e, const double *ge)
{
    const struct solid *se = &SOLID[e];
    float m[12], h[3], r = 0.0f;
    int k;
    if (se->group || ge[9] != 0.0 || ge[10] != 0.0 || ge[11] != 0.0) {
        double we[12];
        mul(ge, se->pose, we);
        relative(we, ga, m);  /* group a -> e's frame */
    } else {
        relative(se->pose, ga, m);  /* the world's pose is the identity (not moved) */
    }
    for (k = 0; k < 3; k++) h[k] = (float)(se->exact == 1 ? se->half[k] : se->box[k]);
    if (se->exact == 0) { r = (float)se->half[0]; h[0] = h[1] = h[2] = 0.0f; }
    /* a's bounding box first: one separating-axis test often spares the descent */
    return node_box(BOX[a], m, h, r) && tree_box(SOLID[a].root, m, h, r);
}

/* do nodes of the trees under na (frame a) and nb (frame b; pb: its centre in frame a)
 * overlap; t: frame b -> frame a. The larger node is opened first. */
static int tree_tree(int na, int nb, const float *pb, const float *t)
{
    int k;
    if (!near1(pb, NODE[na], NODE[na][3] + NODE[nb][3])) return 0;
    if (!KID[na][1] && !KID[nb][1])
        return KID[na][0] < 0 || KID[nb][0] < 0
               || node_node(LEAF[KID[na][0]], LEAF[KID[nb][0]], t);
    if (KID[nb][1] && (!KID[na][1] || NODE[nb][3] >= NODE[na][3])) {
        for (k = KID[nb][0]; k < KID[nb][0] + KID[nb][1]; k++) {
            float pk[3];
            apply(t, NODE[k], pk);
            if (tree_tree(na, k, pk, t)) return 1;
        }
        return 0;
    }
    for (k = KID[na][0]; k < KID[na][0] + KID[na][1]; k++)
        if (tree_tree(k, nb, pb, t)) return 1;
    return 0;
}

/* one solid pair whose bounding spheres overlap: FREE, COLLIDES or MAYBE (what the trees
 * leave open, convex.c's decide_pair settles when it can); with skip set, a pair that could
 * only be MAYBE is not tested (FREE).
 *
 * A mesh with triangles against a sphere, a box or another such mesh is decided on its
 * triangles (decide_pair) before the float trees (after each tree against the other's box,
 * for two meshes), and the trees are tested only where that leaves it MAYBE: the triangles'
 * search descends trees of its own, so the float trees' descent was paid twice wherever it
 * did not show the pair apart, which near contact is most often (NAME_check over all rows:
 * UR5 -12 %, Fetch -17 %, Panda -21 % of the instructions; docs/performance.md). The answer is
 * the same: where the trees show the pair apart, the triangles find no certain hit (the
 * trees hold the solids) and answer FREE, or MAYBE within DECIDE_GAP of contact, which the
 * trees then make FREE, as before. */
static int pair1(double g[][12], int a, int b, int skip)
{
    const struct solid *sa = &SOLID[a], *sb = &SOLID[b];
    float t[12], pb[3];
    int first, r = 2;
    if (sa->exact >= 0 && sb->exact >= 0)
        return exact_pair(g[sa->group], g[sb->group], sa, sb);
    if (skip && !decides(a, b)) return 0;
    if (sa->exact >= 0) { int s = a; a = b; b = s; sa = &SOLID[a]; sb = &SOLID[b]; }
    first = triangles_first(a, b);
    if (first && sb->exact >= 0) {
        r = decide_pair(g, a, b);
        return r != 2 ? r : tree_solid(a, g[sa->group], b, g[sb->group]) ? 2 : 0;
    }
    if (!tree_solid(a, g[sa->group], b, g[sb->group])) return 0;
    if (sb->exact >= 0) return decide_pair(g, a, b);
    if (!tree_solid(b, g[sb->group], a, g[sa->group])) return 0;  /* a lies in its box too */
    if (first && (r = decide_pair(g, a, b)) != 2) return r;
    relative(g[sa->group], g[sb->group], t);
    apply(t, NODE[sb->root], pb);
    if (!tree_tree(sa->root, sb->root, pb, t)) return 0;
    return first ? r : decide_pair(g, a, b);
}

/* lanes of a block of fixed partners whose bounding spheres reach the sphere (c, r) */
static unsigned near_block(const struct fixblock *f, const float *c, float r)
{
#if defined(__AVX2__)
    __m256 dx = _mm256_sub_ps(_mm256_loadu_ps(f->x), _mm256_set1_ps(c[0]));
    __m256 dy = _mm256_sub_ps(_mm256_loadu_ps(f->y), _mm256_set1_ps(c[1]));
    __m256 dz = _mm256_sub_ps(_mm256_loadu_ps(f->z), _mm256_set1_ps(c[2]));
    __m256 rs = _mm256_add_ps(_mm256_loadu_ps(f->r), _mm256_set1_ps(r));
    __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                              _mm256_mul_ps(dz, dz));
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(d2, _mm256_mul_ps(rs, rs), _CMP_LE_OQ));
#else
    unsigned m = 0u;
    int l;
    for (l = 0; l < 8; l++) {
        float dx = f->x[l] - c[0], dy = f->y[l] - c[1], dz = f->z[l] - c[2], rs = f->r[l] + r;
        if (dx * dx + dy * dy + dz * dz <= rs * rs) m |= 1u << l;
    }
    return m;
#endif
}

/* near_block in a frame at o (world_frame): the partners' centres moved by -o in double */
static unsigned near_block_at(const struct fixblock *f, const float *c, float r,
                              const double *o)
{
    unsigned m = 0u;
    int l;
    for (l = 0; l < 8; l++) {
        float dx = (float)(f->x[l] - o[0]) - c[0], dy = (float)(f->y[l] - o[1]) - c[1];
        float dz = (float)(f->z[l] - o[2]) - c[2], rs = f->r[l] + r;
        if (dx * dx + dy * dy + dz * dz <= rs * rs) m |= 1u << l;
    }
    return m;
}

/* is configuration q in a certified cell of table t */
static int certified(const double *q, int t)
{
    const struct celltable *c = &CELLS[t];
    long at = 0;
    int d;
    for (d = 0; d < 3; d++) {
        double x = (q[c->var[d]] - c->lo[d]) * c->inv[d];
        long i;
        if (c->n[d] == 1) continue;
        if (!(fabs(x) < 1e9)) return 0;  /* no cell (and no overflow of long); also NaN */
        i = (long)floor(x);
        if (c->wrap[d]) {
            i %= c->n[d];
            if (i < 0) i += c->n[d];
        } else if (i < 0 || i >= c->n[d]) {
            return 0;
        }
        at = at * c->n[d] + i;
    }
    at += c->first;
    return (CELLBITS[at >> 3] >> (at & 7)) & 1;
}

/* a configuration's group poses, solid centres (as solid_centres) and the world boxes of its
 * solids, made when first asked for */
struct boxcache { double (*g)[12]; float (*centre)[NS_DECL], slack;
                  float box[NS_DECL][12]; unsigned char have[NS_DECL]; };

/* a cache for group poses g and solid centres */
static void start_cache(struct boxcache *c, double g[][12],
                        float centre[3][NS_DECL], float slack)
{
    int s;
    c->g = g;
    c->centre = centre;
    c->slack = slack;
    for (s = 0; s < NS; s++) c->have[s] = 0;
}

/* solid s's bounding box (BOX) in the world: rotation (row-major, the box axes as columns),
 * centre */
static const float *world_box(struct boxcache *c, int s)
{
    const double *w = c->g[SOLID[s].group];
    const float *o = BOX[s];
    float *out = c->box[s];
    int i, j;
    if (c->have[s]) return out;
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 3; j++)
            out[3 * i + j] = (float)(w[3 * i] * o[3 + j] + w[3 * i + 1] * o[6 + j]
                                     + w[3 * i + 2] * o[9 + j]);
        out[9 + i] = (float)(w[3 * i] * o[0] + w[3 * i + 1] * o[1] + w[3 * i + 2] * o[2]
                             + w[9 + i]);
    }
    c->have[s] = 1;
    return out;
}

/* does solid b's bounding sphere (centres as solid_centres) miss solid a's bounding box: a
 * test of a few multiplications that spares many near pairs the trees' tests (the sphere and
 * the box each hold their solid, margin included; lanes.c's lane_sphere_box is this test of a
 * fixed solid's box) */
static int sphere_misses_box(struct boxcache *c, int a, int b)
{
    float (*centre)[NS_DECL] = c->centre;
    const float *w = world_box(c, a), *h = BOX[a] + 12;
    float d[3], d2 = 0.0f, r = SOLID[b].bound[3] + c->slack;
    int j;
    for (j = 0; j < 3; j++) d[j] = centre[j][b] - w[9 + j];
    for (j = 0; j < 3; j++) {
        float e = fabsf(w[j] * d[0] + w[3 + j] * d[1] + w[6 + j] * d[2]) - h[j];
        if (e > 0.0f) d2 += e * e;
    }
    return d2 > r * r;
}

/* one solid pair whose bounding spheres overlap: its state, written to states when given */
static int pair_state(const double *q, struct boxcache *c, int p, int a, int b, int maybe,
                      const unsigned char *active, unsigned char *states)
{
    int r;
    if (active && !active[p]) return 0;
    if (CELLTAB[p] >= 0 && certified(q, CELLTAB[p])) return 0;
    /* each bounding sphere against the other's box (for two spheres, pair1's own test) */
    if ((SOLID[a].exact != 0 || SOLID[b].exact != 0)
        && (sphere_misses_box(c, a, b) || sphere_misses_box(c, b, a))) return 0;
    r = pair1(c->g, a, b, maybe && !states);
    if (states) states[p] = (unsigned char)r;
    return r;
}

/* --- precision ------------------------------------------------------------------------------
 *
 * The kernel's float32 tests are sound for coordinates of magnitude at most X: the tables'
 * radii and boxes carry a margin of MARGIN_RATE * X (robrayc.analysis.collision.compiled
 * derives MARGIN_RATE = 4e-6, about 67 float32 roundings of X; the tests' rounding adds up to
 * about 40), X being GROUP_REACH + SOLID_REACH as generated: every group origin within GROUP_REACH
 * of the world origin (each coordinate), every solid within SOLID_REACH of its group origin.
 * Tests in a pair's relative frame (the trees, the exact closed forms in double) stay within
 * X wherever they could go wrong: a pair can only touch when its group origins lie within
 * 2 SOLID_REACH of each other, whatever the world coordinates. The world-frame tests (the
 * bounding spheres, the boxes of pairs of meshes) are not: far from the origin (a mobile base
 * in map coordinates, a long rail) their float32 centres lose what the margin holds. So a
 * configuration whose group origins reach past GROUP_REACH is tested in a frame at its
 * farthest group's origin (world_frame: the world's fixed solids moved in double), and if
 * its groups still spread past GROUP_REACH from there, those tests' radii grow by a slack of
 * MARGIN_RATE times the largest coordinate then possible: sound at any distance. A fixed
 * solid's coordinates in that frame may be large, but a pair can only touch where the moving
 * solid's are not. */

/* the largest coordinate of an origin of a group holding solids (GROUP_SOLIDS), and which
 * group has it (NaN counts as largest) */
static double group_reach(double g[][12], int *far)
{
    double m = 0.0;
    int k;
    for (k = 1; k < NG; k++) {
        double t = fabs(g[k][9]), u = fabs(g[k][10]), v = fabs(g[k][11]);
        if (!GROUP_SOLIDS[k]) continue;
        if (u > t) t = u;
        if (v > t) t = v;
        if (!(t <= m)) { m = t; *far = k; }
    }
    return m;
}

/* the frame of the world-frame tests at configuration q (group poses g), as above, and their
 * slack in it. While every group origin lies within GROUP_REACH of the world's: the world, no
 * slack. Else the frame moves to the farthest group's origin o (g's translations less o, o
 * written; the world's pose g[0] then holds -o): a robot far out in a map is tested as at
 * home, with a slack only if its groups still spread past GROUP_REACH from there. -1 (no
 * answer: INVALID) when a value of q is NaN or infinite, or the poses reach past 1e18 (float32
 * squares of such distances overflow). */
static float world_frame(const double *q, double g[][12], double *o)
{
    double m;
    int k, far = 0;
    o[0] = o[1] = o[2] = 0.0;
    m = 0.0;
    for (k = 0; k < NQ; k++) m += q[k] * 0.0;  /* 0, or NaN when a value is NaN or infinite */
    if (m != 0.0) return -1.0f;
    if (travel(q) <= 1.0) return 0.0f;  /* within GROUP_REACH without looking at g */
    m = group_reach(g, &far);
    if (m <= GROUP_REACH) return 0.0f;
    if (!(m <= 1e18)) return -1.0f;
    for (k = 0; k < 3; k++) o[k] = g[far][9 + k];
    for (k = 0; k < NG; k++) {
        g[k][9] -= o[0];
        g[k][10] -= o[1];
        g[k][11] -= o[2];
    }
    m = group_reach(g, &far);
    return m <= GROUP_REACH ? 0.0f : (float)(MARGIN_RATE * (m + SOLID_REACH));
}

/* every solid's bounding-sphere centre in the world at group poses g: its x, y and z in
 * centre[0], [1], [2] (one coordinate of all solids together, as near8 gathers them) */
/* cppcheck-suppress constParameter ; C99 converts double (*)[12] to const only with a cast */
static void solid_centres(double g[][12], float centre[3][NS_DECL])
{
    int s, k;
    for (s = 0; s < NS; s++) {
        const double *w = g[SOLID[s].group];
        const float *b = SOLID[s].bound;
        if (SOLID[s].group == 0) {  /* the world's pose is the identity */
            for (k = 0; k < 3; k++) centre[k][s] = b[k];
            continue;
        }
        for (k = 0; k < 3; k++)
            centre[k][s] = (float)(w[3 * k] * b[0] + w[3 * k + 1] * b[1] + w[3 * k + 2] * b[2]
                                   + w[9 + k]);
    }
    if (g[0][9] != 0.0 || g[0][10] != 0.0 || g[0][11] != 0.0)  /* moved (world_frame) */
        for (s = 0; s < NS; s++)
            if (SOLID[s].group == 0)
                for (k = 0; k < 3; k++)
                    centre[k][s] = (float)(SOLID[s].bound[k] + g[0][9 + k]);
}

/* lanes of 8 solid pairs (solids sa[l], sb[l], squared reach r2[l]) whose bounding spheres,
 * each reach grown by slack, overlap (centres as solid_centres; a lane of r2 -1 never does) */
static unsigned near8(float centre[3][NS_DECL], const int *sa, const int *sb,
                      const float *r2, float slack)
{
#if defined(__AVX2__)
    __m256i a = _mm256_loadu_si256((const __m256i *)sa);
    __m256i b = _mm256_loadu_si256((const __m256i *)sb);
    __m256 dx = _mm256_sub_ps(_mm256_i32gather_ps(centre[0], a, 4),
                              _mm256_i32gather_ps(centre[0], b, 4));
    __m256 dy = _mm256_sub_ps(_mm256_i32gather_ps(centre[1], a, 4),
                              _mm256_i32gather_ps(centre[1], b, 4));
    __m256 dz = _mm256_sub_ps(_mm256_i32gather_ps(centre[2], a, 4),
                              _mm256_i32gather_ps(centre[2], b, 4));
    __m256 d2 = _mm256_add_ps(_mm256_add_ps(_mm256_mul_ps(dx, dx), _mm256_mul_ps(dy, dy)),
                              _mm256_mul_ps(dz, dz));
    __m256 reach2 = _mm256_loadu_ps(r2);
    if (slack > 0.0f) {  /* sqrt(-1) is NaN: a padding lane stays apart */
        __m256 reach = _mm256_add_ps(_mm256_sqrt_ps(reach2), _mm256_set1_ps(slack));
        reach2 = _mm256_mul_ps(reach, reach);
    }
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(d2, reach2, _CMP_LE_OQ));
#else
    unsigned m = 0u;
    int l;
    for (l = 0; l < 8; l++) {
        float dx = centre[0][sa[l]] - centre[0][sb[l]], dy = centre[1][sa[l]] - centre[1][sb[l]],
              dz = centre[2][sa[l]] - centre[2][sb[l]], reach2 = r2[l];
        if (slack > 0.0f && reach2 >= 0.0f) {
            float reach = sqrtf(reach2) + slack;
            reach2 = reach * reach;
        }
        m |= (unsigned)(dx * dx + dy * dy + dz * dz <= reach2) << l;
    }
    return m;
#endif
}

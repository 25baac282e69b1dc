/* robrayc's compiled collision checker: eight configurations at a time, one in each vector
 * lane (checker_check8, and the batches and motions of motions.c). Compiled right after
 * checker_kernel.c; a generated checker holds this file verbatim too.
 *
 * What a block of eight does: the robot's kinematics in double for the eight configurations
 * at once (fk8: the generated fk with every value a lane's, sines and cosines by kinematics.c's
 * sin_cos, that vectorises), the poses rounded to float, every solid's bounding sphere
 * against its partners' (fixed and moving) eight lanes to a vector; for a pair whose spheres
 * meet in some lanes, each one's sphere against the other's bounding box (as check1's
 * pair_state), then one solid's sphere tree descended in those lanes against the other's
 * shape (its box or sphere, or a mesh's bounding box), as check1's tree_solid does; then the
 * pair's certified cells (CELLTAB) lane by lane; a pair with a mesh still near in a lane, by
 * the two solids' convex hulls in double (hulls.c, whose header says why its proof is check1's
 * FREE). A lane all of whose near pairs are proven apart so is FREE; every other lane (a
 * pair still near, a value that is not finite, far poses, a joint angle past LANE_ANGLE_MAX)
 * is checked by check1, whose answer it gets. So
 * every lane's answer is checker_check's, on the AVX2 path and the portable one alike.
 *
 * Why a lane proven apart is FREE for check1 too: the lane tests are check1's tests (the
 * same bounding spheres, trees, boxes and reach comparisons), each with its reach grown by
 * LANE_SLACK. A test's computed distance differs from the exact one by at most ~55 u X in
 * check1 (u = 2^-24, X = GROUP_REACH + SOLID_REACH; robrayc.analysis.collision.compiled's
 * margin derivation), and by at most ~60 u X here: the float poses are the double ones
 * rounded (u per rotation entry, u X per coordinate), a solid's frame in its partner's is a
 * float product of two of them (<= 6 u an entry, <= 12 u X a coordinate), a node moved by it
 * (<= 40 u X) and compared (a few u X). The double kinematics are fk's (the same sin_cos
 * below SINCOS_MAX), but for the order of roundings, ~1e-15 per rotation entry a joint:
 * nothing at float's scale. LANE_SLACK is 8 MARGIN_RATE X = 32e-6 X, about
 * 540 u X, over four times the ~115 u X of both together: whatever check1 computes for a pair
 * the lanes proved apart, it finds it apart too (or skips it earlier), and answers FREE.
 * One lane test is not check1's: a run-time obstacle's bounding sphere against a solid's box
 * (lane_obstacle; env_pair starts at the boxes). Where it proves them apart, the two lie
 * farther apart than LANE_SLACK less both tests' rounding (over 400 u X, far beyond
 * DECIDE_GAP's 1e-6 X), so each test check1 makes on them finds them apart, or its exact
 * decision (meshes.c, convex.c) answers FREE.
 */

#define LANE_SLACK ((float)(8.0 * MARGIN_RATE * (GROUP_REACH + SOLID_REACH)))
/* joint values past this go to check1: sin_cos reduces angles exactly only below it */
#define LANE_ANGLE_MAX SINCOS_MAX
#define NQ_DECL (NQ > 0 ? NQ : 1)

/* --- eight floats: AVX2, or a loop of the same operations --------------------------------- */

#if defined(__AVX2__)
typedef __m256 lanes;
static lanes lanes_set(float x) { return _mm256_set1_ps(x); }
static lanes lanes_load(const float *p) { return _mm256_loadu_ps(p); }
static lanes lanes_add(lanes a, lanes b) { return _mm256_add_ps(a, b); }
static lanes lanes_sub(lanes a, lanes b) { return _mm256_sub_ps(a, b); }
static lanes lanes_mul(lanes a, lanes b) { return _mm256_mul_ps(a, b); }
/* max(|a| - h, 0) */
static lanes lanes_out(lanes a, lanes h)
{
    lanes abs = _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a);
    return _mm256_max_ps(_mm256_sub_ps(abs, h), _mm256_setzero_ps());
}
/* the lanes where a <= b, as bits */
static unsigned lanes_le(lanes a, lanes b)
{
    return (unsigned)_mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_LE_OQ));
}
#else
typedef struct { float v[8]; } lanes;
static lanes lanes_set(float x)
{
    lanes r;
    int l;
    for (l = 0; l < 8; l++) r.v[l] = x;
    return r;
}
static lanes lanes_load(const float *p)
{
    lanes r;
    int l;
    for (l = 0; l < 8; l++) r.v[l] = p[l];
    return r;
}
static lanes lanes_add(lanes a, lanes b)
{
    int l;
    for (l = 0; l < 8; l++) a.v[l] += b.v[l];
    return a;
}
static lanes lanes_sub(lanes a, lanes b)
{
    int l;
    for (l = 0; l < 8; l++) a.v[l] -= b.v[l];
    return a;
}
static lanes lanes_mul(lanes a, lanes b)
{
    int l;
    for (l = 0; l < 8; l++) a.v[l] *= b.v[l];
    return a;
}
static lanes lanes_out(lanes a, lanes h)
{
    int l;
    for (l = 0; l < 8; l++) {
        float e = fabsf(a.v[l]) - h.v[l];
        a.v[l] = e > 0.0f ? e : 0.0f;
    }
    return a;
}
static unsigned lanes_le(lanes a, lanes b)
{
    unsigned m = 0u;
    int l;
    for (l = 0; l < 8; l++) m |= (unsigned)(a.v[l] <= b.v[l]) << l;
    return m;
}
#endif

/* --- kinematics in lanes --------------------------------------------------------------------- */

/* --- a block of eight configurations --------------------------------------------------------- */

/* a block's values, lane l of each: its configuration (variable major), group poses in double
 * and in float, and every solid's bounding-sphere centre (world) */
struct block {
    double q[NQ_DECL][8], g[NG][12][8];
    float gf[NG][12][8], centre[NS_DECL][3][8], gate[NGATE_DECL][3][8];
    const double *row[8];  /* the configurations as given */
    struct hull_guesses *guesses;  /* a motion's, for the hulls' proofs (hulls.c), or 0 */
};

/* the transform of a frame (pose in group b) from group a's frame, in lanes: out[0..8] the
 * rotation row-major, out[9..11] the translation; group 0 is the world (identity). Each
 * loop's innermost index is the lane: they vectorise. */
static void lane_frame(const struct block *k, int a, int b, const double *pose, lanes *out)
{
    float w[12][8], d[3][8], m[12][8], p[12];
    int i, j, l;
    const float (*ga)[8] = k->gf[a], (*gb)[8] = k->gf[b];
    for (i = 0; i < 12; i++) p[i] = (float)pose[i];
    if (b == 0) {  /* the frame in the world, its pose p: p^T ga, and p^T (ta - tp) */
        for (i = 0; i < 3; i++)
            for (l = 0; l < 8; l++) d[i][l] = ga[9 + i][l] - p[9 + i];
        for (i = 0; i < 3; i++) {
            for (j = 0; j < 3; j++)
                for (l = 0; l < 8; l++)
                    m[3 * i + j][l] = p[i] * ga[j][l] + p[3 + i] * ga[3 + j][l]
                                      + p[6 + i] * ga[6 + j][l];
            for (l = 0; l < 8; l++)
                m[9 + i][l] = p[i] * d[0][l] + p[3 + i] * d[1][l] + p[6 + i] * d[2][l];
        }
        for (i = 0; i < 12; i++) out[i] = lanes_load(m[i]);
        return;
    }
    for (i = 0; i < 3; i++) {  /* w: gb times the pose */
        for (j = 0; j < 3; j++)
            for (l = 0; l < 8; l++)
                w[3 * i + j][l] = gb[3 * i][l] * p[j] + gb[3 * i + 1][l] * p[3 + j]
                                  + gb[3 * i + 2][l] * p[6 + j];
        for (l = 0; l < 8; l++)
            w[9 + i][l] = gb[3 * i][l] * p[9] + gb[3 * i + 1][l] * p[10]
                          + gb[3 * i + 2][l] * p[11] + gb[9 + i][l];
    }
    for (i = 0; i < 3; i++)  /* w^T ga, and w^T (ta - tw) */
        for (l = 0; l < 8; l++) d[i][l] = ga[9 + i][l] - w[9 + i][l];
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 3; j++)
            for (l = 0; l < 8; l++)
                m[3 * i + j][l] = w[i][l] * ga[j][l] + w[3 + i][l] * ga[3 + j][l]
                                  + w[6 + i][l] * ga[6 + j][l];
        for (l = 0; l < 8; l++)
            m[9 + i][l] = w[i][l] * d[0][l] + w[3 + i][l] * d[1][l] + w[6 + i][l] * d[2][l];
    }
    for (i = 0; i < 12; i++) out[i] = lanes_load(m[i]);
}

#if defined(__AVX2__)
static lanes lanes_abs(lanes a) { return _mm256_andnot_ps(_mm256_set1_ps(-0.0f), a); }
#else
static lanes lanes_abs(lanes a)
{
    int l;
    for (l = 0; l < 8; l++) a.v[l] = fabsf(a.v[l]);
    return a;
}
#endif

/* the lanes of mask in which no axis separates the box o (as BOX and LEAF hold it: centre,
 * rotation, half extents; its solid's group frame), moved by m (lane_frame), from the box of
 * half extents h (r == 0) or the sphere of radius r at the origin, by more than grow:
 * check1's node_box (and sat1's 1e-6 on |R_ij|), each comparison's reach grown by grow
 * (LANE_SLACK, or more) */
static unsigned lane_box(const float *o, const lanes *m, const lanes *h, float r,
                         unsigned mask, float grow)
{
    static const int i1[3] = { 1, 2, 0 }, i2[3] = { 2, 0, 1 };
    const lanes slack = lanes_set(grow), eps = lanes_set(1e-6f);
    lanes t[3], u[9], hb[3];
    int i, j;
    for (i = 0; i < 3; i++) {
        t[i] = lanes_add(lanes_add(lanes_add(lanes_mul(m[3 * i], lanes_set(o[0])),
                                             lanes_mul(m[3 * i + 1], lanes_set(o[1]))),
                                   lanes_mul(m[3 * i + 2], lanes_set(o[2]))), m[9 + i]);
        for (j = 0; j < 3; j++)
            u[3 * i + j] = lanes_add(lanes_add(lanes_mul(m[3 * i], lanes_set(o[3 + j])),
                                               lanes_mul(m[3 * i + 1], lanes_set(o[6 + j]))),
                                     lanes_mul(m[3 * i + 2], lanes_set(o[9 + j])));
        hb[i] = lanes_set(o[12 + i]);
    }
    if (r != 0.0f) {  /* the sphere's centre (the origin) in the box's frame, against it */
        lanes d2 = lanes_set(0.0f), reach = lanes_set(r + grow);
        for (j = 0; j < 3; j++) {
            lanes e = lanes_out(lanes_add(lanes_add(lanes_mul(u[j], t[0]),
                                                    lanes_mul(u[3 + j], t[1])),
                                          lanes_mul(u[6 + j], t[2])), hb[j]);
            d2 = lanes_add(d2, lanes_mul(e, e));
        }
        return mask & lanes_le(d2, lanes_mul(reach, reach));
    }
    {
        lanes abs[9];
        for (i = 0; i < 9; i++) abs[i] = lanes_add(lanes_abs(u[i]), eps);
        for (i = 0; i < 3 && mask; i++)  /* the axes of the box h */
            mask &= lanes_le(lanes_abs(t[i]),
                             lanes_add(lanes_add(lanes_add(lanes_add(h[i], slack),
                                                           lanes_mul(abs[3 * i], hb[0])),
                                                 lanes_mul(abs[3 * i + 1], hb[1])),
                                       lanes_mul(abs[3 * i + 2], hb[2])));
        for (j = 0; j < 3 && mask; j++)  /* a's box's axes */
            mask &= lanes_le(
                lanes_abs(lanes_add(lanes_add(lanes_mul(u[j], t[0]), lanes_mul(u[3 + j], t[1])),
                                    lanes_mul(u[6 + j], t[2]))),
                lanes_add(lanes_add(lanes_add(lanes_add(hb[j], slack), lanes_mul(h[0], abs[j])),
                                    lanes_mul(h[1], abs[3 + j])), lanes_mul(h[2], abs[6 + j])));
        for (i = 0; i < 3 && mask; i++)  /* their edges' cross products */
            for (j = 0; j < 3 && mask; j++) {
                lanes ra = lanes_add(lanes_mul(h[i1[i]], abs[3 * i2[i] + j]),
                                     lanes_mul(h[i2[i]], abs[3 * i1[i] + j]));
                lanes rb = lanes_add(lanes_mul(hb[i1[j]], abs[3 * i + i2[j]]),
                                     lanes_mul(hb[i2[j]], abs[3 * i + i1[j]]));
                lanes lhs = lanes_abs(lanes_sub(lanes_mul(t[i2[i]], u[3 * i1[i] + j]),
                                                lanes_mul(t[i1[i]], u[3 * i2[i] + j])));
                mask &= lanes_le(lhs, lanes_add(lanes_add(ra, rb), slack));
            }
    }
    return mask;
}

/* nodes lane_tree keeps waiting at most (past it, their lanes stay open: never wrong) */
#define LANE_STACK 256

/* the lanes of mask in which a node of the tree under root (its solid's group frame), moved
 * by m (lane_frame), still reaches the box of half extents h or the sphere of radius r (h
 * zero), grown by grow: a leaf that does, and whose box (LEAF) does too (lane_box), leaves
 * its lane open, as check1's tree_box. Each lane stops at its first such leaf. Depth first,
 * without recursion (m stays in registers). */
static unsigned lane_tree(int root, const lanes *m, const lanes *h, float r, float grow,
                          unsigned mask)
{
    int node[LANE_STACK], top = 1;
    unsigned live[LANE_STACK], open = 0u;
    node[0] = root;
    live[0] = mask;
    while (top > 0) {
        const float *c;
        lanes x, y, z, e[3], d2, reach;
        unsigned near;
        int n, i, k;
        top--;
        n = node[top];
        near = live[top] & ~open;
        if (!near) continue;
        c = NODE[n];
        x = lanes_set(c[0]);
        y = lanes_set(c[1]);
        z = lanes_set(c[2]);
        reach = lanes_set(c[3] + r + grow);
        for (i = 0; i < 3; i++)
            e[i] = lanes_out(lanes_add(lanes_add(lanes_add(lanes_mul(m[3 * i], x),
                                                           lanes_mul(m[3 * i + 1], y)),
                                                 lanes_mul(m[3 * i + 2], z)), m[9 + i]), h[i]);
        d2 = lanes_add(lanes_add(lanes_mul(e[0], e[0]), lanes_mul(e[1], e[1])),
                       lanes_mul(e[2], e[2]));
        near &= lanes_le(d2, lanes_mul(reach, reach));
        if (!near) continue;
        if (!KID[n][1] && KID[n][0] >= 0) near = lane_box(LEAF[KID[n][0]], m, h, r, near, grow);
        if (!KID[n][1] || top + KID[n][1] > LANE_STACK) {
            open |= near;
            if (open == mask) break;
            continue;
        }
        for (k = KID[n][0] + KID[n][1] - 1; k >= KID[n][0]; k--) {
            node[top] = k;
            live[top++] = near;
        }
    }
    return open;
}

/* the lanes of mask in which solid a's tree still reaches solid b's shape (its box or sphere
 * when exact, else its bounding box), as check1's tree_solid(a, b) tests it */
static unsigned lane_tree_solid(const struct block *k, int a, int b, unsigned mask)
{
    const struct solid *sb = &SOLID[b];
    lanes m[12], h[3];
    float r = 0.0f;
    int i;
    lane_frame(k, SOLID[a].group, sb->group, sb->pose, m);
    for (i = 0; i < 3; i++) h[i] = lanes_set((float)(sb->exact == 1 ? sb->half[i] : sb->box[i]));
    if (sb->exact == 0) {
        r = (float)sb->half[0];
        h[0] = h[1] = h[2] = lanes_set(0.0f);
    }
    /* a's bounding box first, as check1: it spares most descents */
    mask = lane_box(BOX[a], m, h, r, mask, LANE_SLACK);
    return mask ? lane_tree(SOLID[a].root, m, h, r, LANE_SLACK, mask) : 0u;
}

/* the lanes of mask in which the point c (world) lies within `reach` of solid b's bounding
 * box (BOX[b]), tested in b's group frame (c moved into it) */
static unsigned lane_point_box(const struct block *k, lanes *c, int b, float reach,
                               unsigned mask)
{
    const float *o = BOX[b];
    const int g = SOLID[b].group;
    lanes d[3], d2 = lanes_set(0.0f), r = lanes_set(reach);
    int i;
    if (g) {  /* the group's rotation transposed, times the point less its origin */
        const float (*w)[8] = k->gf[g];
        lanes t[3];
        for (i = 0; i < 3; i++) t[i] = lanes_sub(c[i], lanes_load(w[9 + i]));
        for (i = 0; i < 3; i++)
            c[i] = lanes_add(lanes_add(lanes_mul(lanes_load(w[i]), t[0]),
                                       lanes_mul(lanes_load(w[3 + i]), t[1])),
                             lanes_mul(lanes_load(w[6 + i]), t[2]));
    }
    for (i = 0; i < 3; i++) d[i] = lanes_sub(c[i], lanes_set(o[i]));
    for (i = 0; i < 3; i++) {  /* along the box's axis i (column i of its rotation) */
        lanes e = lanes_out(lanes_add(lanes_add(lanes_mul(lanes_set(o[3 + i]), d[0]),
                                                lanes_mul(lanes_set(o[6 + i]), d[1])),
                                      lanes_mul(lanes_set(o[9 + i]), d[2])),
                            lanes_set(o[12 + i]));
        d2 = lanes_add(d2, lanes_mul(e, e));
    }
    return mask & lanes_le(d2, lanes_mul(r, r));
}

/* the lanes of mask in which solid a's bounding sphere reaches solid b's bounding box
 * (BOX[b]), grown by LANE_SLACK: check1's sphere_misses_box(b, a), here in b's group frame
 * (a fixed solid's centre is its bound, in the world) */
static unsigned lane_sphere_box(const struct block *k, int a, int b, unsigned mask)
{
    lanes c[3];
    int i;
    if (SOLID[a].group) {
        for (i = 0; i < 3; i++) c[i] = lanes_load(k->centre[a][i]);
    } else {
        for (i = 0; i < 3; i++) c[i] = lanes_set(SOLID[a].bound[i]);
    }
    return lane_point_box(k, c, b, SOLID[a].bound[3] + LANE_SLACK, mask);
}

/* the lanes of mask in which solid pair p (solids a, b; b may be fixed, a moves), its
 * bounding spheres near, is not proven apart: each bounding sphere against the other's box,
 * the pair's certified cells, then each tree against the other's shape, as check1's
 * pair_state and pair1 (a mesh against a mesh: either tree missing the other's bounding
 * box). The boxes come before the cells here, the other way round in pair_state: one vector
 * test of the eight lanes' boxes costs less than the look-ups it spares, eight one at a time
 * (Panda: NAME_check8 -7 %, motions -10 % of their instructions), where one configuration's
 * look-up costs less than the world box it spares. A fixed b's sphere against a's box, too:
 * it spares most of the frames and box tests of a's tree (Panda and Fetch among 20 boxes:
 * NAME_check8 -5 %, motions -3 to -6 % of their instructions) */
static unsigned lane_pair(const struct block *k, int p, int a, int b, unsigned mask)
{
    if (SOLID[a].exact != 0 || SOLID[b].exact != 0) {  /* as pair_state */
        mask = lane_sphere_box(k, a, b, mask);
        if (mask) mask = lane_sphere_box(k, b, a, mask);
        if (!mask) return 0u;
    }
    if (CELLTAB[p] >= 0) {  /* a look-up spares the trees' tests */
        int l;
        for (l = 0; l < 8; l++)
            if ((mask >> l & 1u) && certified(k->row[l], CELLTAB[p])) mask &= ~(1u << l);
        if (!mask) return 0u;
    }
    if (SOLID[b].exact >= 0) {
        mask = lane_tree_solid(k, a, b, mask);
    } else if (SOLID[a].exact >= 0) {
        mask = lane_tree_solid(k, b, a, mask);
    } else {
        mask = lane_tree_solid(k, a, b, mask);
        if (mask) mask = lane_tree_solid(k, b, a, mask);
    }
    return mask ? hull_lanes(k->g[0][0], a, b, mask, hull_guess_of(k->guesses, p)) : 0u;
}

/* the lanes whose point c (x, y, z) lies within reach of partner j of fixed block f (its
 * bounding sphere's centre): a pair's bounding-sphere test when one of them is fixed */
static unsigned lanes_near_fixed(const lanes *c, const struct fixblock *f, int j, float reach)
{
    const lanes dx = lanes_sub(c[0], lanes_set(f->x[j])), dy = lanes_sub(c[1], lanes_set(f->y[j]));
    const lanes dz = lanes_sub(c[2], lanes_set(f->z[j])), r = lanes_set(reach);
    return lanes_le(lanes_add(lanes_add(lanes_mul(dx, dx), lanes_mul(dy, dy)), lanes_mul(dz, dz)),
                    lanes_mul(r, r));
}

/* the lanes in which solids a and b's bounding spheres meet (reach grown by LANE_SLACK) */
static unsigned lane_near(const struct block *k, int a, int b)
{
    const float *ca[3] = { k->centre[a][0], k->centre[a][1], k->centre[a][2] };
    const float *cb[3] = { k->centre[b][0], k->centre[b][1], k->centre[b][2] };
    lanes d[3], d2, reach = lanes_set(SOLID[a].bound[3] + SOLID[b].bound[3] + LANE_SLACK);
    int i;
    for (i = 0; i < 3; i++) d[i] = lanes_sub(lanes_load(ca[i]), lanes_load(cb[i]));
    d2 = lanes_add(lanes_add(lanes_mul(d[0], d[0]), lanes_mul(d[1], d[1])),
                   lanes_mul(d[2], d[2]));
    return lanes_le(d2, lanes_mul(reach, reach));
}

/* the slack of a test against a run-time obstacle of bounding radius r (its frame's
 * coordinates reach that much further than the robot's) */
#define LANE_OBSTACLE_SLACK(r) (LANE_SLACK + (float)(8.0 * MARGIN_RATE) * (r))

/* the lanes of near in which moving solid a is not proven apart from run-time obstacle e
 * (its bounding sphere near a's): the obstacle's bounding sphere against a's box, then a's
 * bounding box and tree against the obstacle's box or sphere (a cylinder's or capsule's
 * bounding box), as env_pair */
static unsigned lane_obstacle(const struct block *k, int a, int e, unsigned near)
{
    const struct fixblock *f = &ENV.lane[e / 8];
    const struct envshape *o = &ENV.shape[e];
    const float slack = LANE_OBSTACLE_SLACK(f->r[e % 8]);
    lanes centre[3] = { lanes_set(f->x[e % 8]), lanes_set(f->y[e % 8]),
                        lanes_set(f->z[e % 8]) }, m[12], h[3];
    float r = 0.0f;
    int i;
    near = lane_point_box(k, centre, a, f->r[e % 8] + slack, near);  /* spares most frames */
    if (!near) return 0u;
    lane_frame(k, SOLID[a].group, 0, o->s.pose, m);
    for (i = 0; i < 3; i++)
        h[i] = lanes_set(o->kind == OBSTACLE_BOX ? o->dims[i]
                         : o->kind == OBSTACLE_SPHERE ? 0.0f : o->hbox[i]);
    if (o->kind == OBSTACLE_SPHERE) r = o->dims[0];
    near = lane_box(BOX[a], m, h, r, near, slack);
    return near ? lane_tree(SOLID[a].root, m, h, r, slack, near) : 0u;
}

/* the lanes of mask in which moving solid a is not proven apart from every obstacle set at
 * run time (obstacles.c): its bounding sphere against theirs, a block of 8 obstacles at a
 * time (the block's 8 tests first, with no branch among them: most miss), then
 * lane_obstacle for each one near in a lane still live */
static unsigned lane_obstacles(const struct block *k, int a, unsigned mask)
{
    const lanes c[3] = { lanes_load(k->centre[a][0]), lanes_load(k->centre[a][1]),
                         lanes_load(k->centre[a][2]) };
    unsigned open = 0u;
    int b, j;
    for (b = 0; b < ENV.blocks && open != mask; b++) {
        const struct fixblock *f = &ENV.lane[b];
        unsigned long long near = 0u;
        for (j = 0; j < 8; j++)
            near |= (unsigned long long)lanes_near_fixed(
                        c, f, j, SOLID[a].bound[3] + f->r[j] + LANE_OBSTACLE_SLACK(f->r[j]))
                    << (8 * j);
        for (j = 0; j < 8 && near >> (8 * j); j++) {
            unsigned live = (unsigned)(near >> (8 * j)) & mask & ~open & 0xffu;
            if (live) open |= lane_obstacle(k, a, 8 * b + j, live);
        }
    }
    return open;
}

/* the lanes the kernel can check in lanes: every value finite and of magnitude at most
 * LANE_ANGLE_MAX, the prismatic joints within check1's home frame (travel at most 1:
 * world_frame moves nothing and adds no slack) */
static unsigned lane_valid(const double *q)
{
    unsigned ok = 0u;
    int l, i;
    for (l = 0; l < 8; l++) {
        const double *r = q + (long)l * NQ;
        int fine = travel(r) <= 1.0;
        for (i = 0; i < NQ; i++) fine &= fabs(r[i]) <= LANE_ANGLE_MAX;  /* NaN: false */
        ok |= (unsigned)fine << l;
    }
    return ok;
}

/* the groups' poses in float (those holding solids) */
static void lane_floats(double (*restrict g)[12][8], float (*restrict gf)[12][8])
{
    int s, i, l;
    for (s = 0; s < NG; s++)
        if (GROUP_SOLIDS[s])
            for (i = 0; i < 12; i++)
                for (l = 0; l < 8; l++) gf[s][i][l] = (float)g[s][i][l];
}

/* every moving solid's bounding-sphere centre in the world (the lanes test the fixed ones'
 * through FIXB's copies) */
static void lane_centres(float (*restrict gf)[12][8], float (*restrict centre)[3][8])
{
    int s, i, j, l;
    for (s = 0; s < NS; s++) {
        float (*w)[8] = gf[SOLID[s].group];
        const float *b = SOLID[s].bound;
        if (!SOLID[s].group) continue;
        for (i = 0; i < 3; i++)
            for (l = 0; l < 8; l++) {
                float c = w[9 + i][l];
                for (j = 0; j < 3; j++) c += w[3 * i + j][l] * b[j];
                centre[s][i][l] = c;
            }
    }
}

/* every gate's centre in the world (GATE: a sphere around the bounding spheres of the solids
 * of a group, robrayc.analysis.collision.c_pairs) */
static void lane_gates(float (*restrict gf)[12][8], float (*restrict gate)[3][8])
{
    int k, i, j, l;
    for (k = 0; k < NGATE; k++) {
        float (*w)[8] = gf[GATE_GROUP[k]];
        for (i = 0; i < 3; i++)
            for (l = 0; l < 8; l++) {
                float c = w[9 + i][l];
                for (j = 0; j < 3; j++) c += w[3 * i + j][l] * GATE[k][j];
                gate[k][i][l] = c;
            }
    }
}

/* the block's poses, bounding-sphere and gate centres (the arrays are distinct: restrict
 * lets the loops vectorise) */
static void lane_poses(struct block *k)
{
    fk8(k->q, k->g);
    lane_floats(k->g, k->gf);
    lane_centres(k->gf, k->centre);
    lane_gates(k->gf, k->gate);
}

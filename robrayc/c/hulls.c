/* robrayc's compiled collision checker: a quick proof that a mesh lies apart from another
 * mesh, a sphere or a box, for the lanes (lanes.c's lane_pair) to use before they leave a
 * lane to check1: a plane between the two solids' convex hulls. Pasted right after meshes.c;
 * a generated checker holds this file verbatim too.
 *
 * Near contact the lanes' sphere trees leave a pair with a mesh open at distances of up to a
 * few centimetres, and check1 then runs again for that lane: its trees, and the triangles,
 * which test every two leaves that lie within each other's boxes (tens of thousands of
 * cycles for Fetch's head against its upper arm). Most such pairs have convex hulls that lie
 * apart, and a plane between them shows it at once: GJK (Gilbert, Johnson and Keerthi) looks
 * for the direction v of the hulls' nearest points, each support (the largest u . x over a
 * mesh) taken over its hull points (THULL: the corners of its triangles on their convex hull,
 * robrayc.analysis.collision.triangles.hull_points). The answer is a proof only through its
 * last step: along v, the two supports say that every point of one lies farther than
 * HULL_GAP from every point of the other, whatever the search did before.
 *
 * Why that proof is check1's FREE for the pair: HULL_GAP is 2 DECIDE_GAP. The supports are
 * dot products of a few roundings each, about 1e-15 |v| times the coordinates' size (X =
 * GROUP_REACH + SOLID_REACH for a pair that could be near: both solids within SOLID_REACH of
 * group origins within GROUP_REACH; the relative pose ga^-1 gb, a product of double
 * rotations, adds as little); hull_points keeps every corner that is not inside each facet's
 * plane by 1e-9 of the mesh's size, far more than qhull's rounding; the lanes' double
 * kinematics (fk8) differ from fk's by ~1e-14 a joint (lanes.c). So two solids shown apart
 * here lie farther apart than 2 DECIDE_GAP - 1e-12 X. check1 finds them apart by its float
 * trees, or decides them on their triangles (meshes.c): each two of those (or a triangle and
 * the sphere) farther apart than DECIDE_GAP by far more than the tests' double rounding,
 * which then find no crossing and no point within DECIDE_GAP: FREE, the exact checker's
 * answer too (outside the band DECIDE_GAP about contact they agree). One answer could
 * differ, for the better: a triangle and a box more than 2 DECIDE_GAP apart that no axis of
 * tri_box_apart shows more than DECIDE_GAP apart (their nearest points at corners) leave
 * check1 MAYBE, and the lane FREE. Cylinders are left to check1.
 */

/* how far apart the proof shows two solids */
#define HULL_GAP (2.0 * DECIDE_GAP)
/* GJK's steps at most before it gives up (no proof) */
#define HULL_STEPS 24
/* 0: no proof here (the lanes leave those pairs to check1, as before: for comparisons) */
#ifndef CHECKER_HULLS
#define CHECKER_HULLS 1
#endif

/* What a motion's samples tell the hulls' proofs at its next samples, per solid pair and
 * lane (the same lane's samples of a motion's blocks are one step apart: motions.c): the
 * direction that last proved the pair apart there, GJK's first guess at the next sample,
 * and whether their hulls met (`overlap`: the pair is left to check1 without a try for the
 * rest of the motion). Pairs are kept by slot p % HULL_GUESS_SLOTS; one that finds another
 * in its slot starts afresh. Neither changes an answer: a proof rests on GJK's last step
 * alone, whatever its first guess, and a pair not tried is check1's, as one not proven is.
 * UR5's forearm and wrists are not convex: their hulls meet through whole motions
 * (docs/performance.md) */
#define HULL_GUESS_SLOTS 64
/* 0: none kept (each proof starts from the solids' centres: for comparisons) */
#ifndef CHECKER_HULL_GUESSES
#define CHECKER_HULL_GUESSES 1
#endif
struct hull_guess { int pair; unsigned overlap; double v[8][3]; };
struct hull_guesses { struct hull_guess slot[HULL_GUESS_SLOTS]; };

/* no pair has a guess yet */
static void hull_guesses_start(struct hull_guesses *m)
{
    int s;
    for (s = 0; s < HULL_GUESS_SLOTS; s++) m->slot[s].pair = -1;
}

/* solid pair p's guesses in m (made empty if another pair's were in its slot), or 0 without m */
static struct hull_guess *hull_guess_of(struct hull_guesses *m, int p)
{
    struct hull_guess *g = m && CHECKER_HULL_GUESSES ? &m->slot[p % HULL_GUESS_SLOTS] : 0;
    if (g && g->pair != p) {
        int l, k;
        g->pair = p;
        g->overlap = 0u;
        for (l = 0; l < 8; l++)
            for (k = 0; k < 3; k++) g->v[l][k] = 0.0;
    }
    return g;
}

#if CHECKER_TRIANGLES == 2
/* each mesh's hull points (THULLS[s] = { first double in THULL, count }; in clusters, as
 * hull_max reads them) and each triangle-tree node's (TNHULLS[n], likewise), bound at run
 * time (as the triangle trees, meshes.c): until they are, nothing is proven here */
static const double *THULL;
static const int (*THULLS)[2];
static const int (*TNHULLS)[2];

void checker_hbind(const double *hull, const int *spans, const int *node_spans)
{
    THULL = hull;
    THULLS = (const int (*)[2])spans;
    TNHULLS = (const int (*)[2])node_spans;
}
#define HULLS_BOUND (THULL != 0)
#else
#define HULLS_BOUND 1
#endif

#if CHECKER_TRIANGLES && CHECKER_HULLS

/* a solid as GJK sees it, in the frame of the mesh's group: a mesh's hull points (kind -1:
 * its first double in THULL, their count), a sphere (kind 0: radius half[0]) or a box (kind 1:
 * half extents), at pose m in that frame; centre, a point near its middle (GJK's first guess) */
struct hullshape { int kind, first, count; double m[12], half[3], centre[3]; };

/* the points in a cluster (robrayc.analysis.collision.triangles.HULL_CLUSTER): the last of
 * a mesh's may hold fewer */
#define HULL_CLUSTER 64
/* the clusters of n hull points */
#define HULL_CLUSTERS(n) (((n) + HULL_CLUSTER - 1) / HULL_CLUSTER)

#if defined(__AVX512F__) || defined(__AVX2__)
/* the vector lanes' best (tops[j], reached at point lo + wheres[j]) into *best and *at where
 * one is more */
static void best_lane(const double *tops, const double *wheres, int lanes, int lo,
                      double *best, int *at)
{
    int j;
    for (j = 0; j < lanes; j++)
        if (tops[j] > *best) {
            *best = tops[j];
            *at = lo + (int)wheres[j];
        }
}
#endif

/* the largest w . p over points lo .. hi - 1 of p (their x, then their y, then their z: n
 * each) if more than *best, then in *best and a point reaching it in *at; eight points at a
 * time with AVX-512, four with AVX2 (the same sums in the same order: the same values, bit
 * for bit; UR5's NAME_check8 and motions, where the supports are a fifth of the time, 4-5 %
 * faster with AVX-512 than with AVX2 on an AMD EPYC; Fetch's and Panda's within 1 %) */
static void hull_run(const double *p, int n, int lo, int hi, const double *w, double *best,
                     int *at)
{
    double top_best = *best;
    int k = lo, top_at = *at;
#if defined(__AVX512F__)
    if (hi - lo >= 8) {
        const __m512d wx = _mm512_set1_pd(w[0]), wy = _mm512_set1_pd(w[1]);
        const __m512d wz = _mm512_set1_pd(w[2]);
        __m512d top = _mm512_set1_pd(-HUGE_VAL), where = _mm512_setzero_pd();
        __m512d index = _mm512_set_pd(7.0, 6.0, 5.0, 4.0, 3.0, 2.0, 1.0, 0.0);
        double tops[8], wheres[8];
        for (; k + 8 <= hi; k += 8) {
            const __m512d d = _mm512_add_pd(_mm512_add_pd(
                _mm512_mul_pd(wx, _mm512_loadu_pd(p + k)),
                _mm512_mul_pd(wy, _mm512_loadu_pd(p + n + k))),
                _mm512_mul_pd(wz, _mm512_loadu_pd(p + 2 * n + k)));
            const __mmask8 more = _mm512_cmp_pd_mask(d, top, _CMP_GT_OQ);
            top = _mm512_mask_blend_pd(more, top, d);
            where = _mm512_mask_blend_pd(more, where, index);
            index = _mm512_add_pd(index, _mm512_set1_pd(8.0));
        }
        _mm512_storeu_pd(tops, top);
        _mm512_storeu_pd(wheres, where);
        best_lane(tops, wheres, 8, lo, &top_best, &top_at);
    }
#elif defined(__AVX2__)
    if (hi - lo >= 4) {
        const __m256d wx = _mm256_set1_pd(w[0]), wy = _mm256_set1_pd(w[1]);
        const __m256d wz = _mm256_set1_pd(w[2]);
        __m256d top = _mm256_set1_pd(-HUGE_VAL), where = _mm256_setzero_pd();
        __m256d index = _mm256_set_pd(3.0, 2.0, 1.0, 0.0);
        double tops[4], wheres[4];
        for (; k + 4 <= hi; k += 4) {
            __m256d d = _mm256_add_pd(_mm256_add_pd(
                _mm256_mul_pd(wx, _mm256_loadu_pd(p + k)),
                _mm256_mul_pd(wy, _mm256_loadu_pd(p + n + k))),
                _mm256_mul_pd(wz, _mm256_loadu_pd(p + 2 * n + k)));
            __m256d more = _mm256_cmp_pd(d, top, _CMP_GT_OQ);
            top = _mm256_blendv_pd(top, d, more);
            where = _mm256_blendv_pd(where, index, more);
            index = _mm256_add_pd(index, _mm256_set1_pd(4.0));
        }
        _mm256_storeu_pd(tops, top);
        _mm256_storeu_pd(wheres, where);
        best_lane(tops, wheres, 4, lo, &top_best, &top_at);
    }
#endif
    for (; k < hi; k++) {
        const double d = w[0] * p[k] + w[1] * p[n + k] + w[2] * p[2 * n + k];
        if (d > top_best) {
            top_best = d;
            top_at = k;
        }
    }
    *best = top_best;
    *at = top_at;
}

/* hull_run over cluster k of the n points p (its HULL_CLUSTER points; the last, the rest) */
static void hull_cluster(const double *p, int n, int k, const double *w, double *best, int *at)
{
    const int lo = k * HULL_CLUSTER;
    hull_run(p, n, lo, lo + HULL_CLUSTER < n ? lo + HULL_CLUSTER : n, w, best, at);
}

/* the clusters hull_max weighs, at least and at most: a mesh with fewer or more has its every
 * point tested */
#define HULL_CLUSTERS_MIN 4
#define HULL_CLUSTERS_MAX 128

/* the largest w . p over the n > 0 points p, laid out in clusters (their x, then y, then z;
 * then the clusters' spheres: centres' x, y, z, radii: triangles.hull_clusters), and a point
 * reaching it (in at). The cluster whose sphere reaches farthest along w is taken first, then
 * every other whose sphere reaches the best found: a sphere holds its points by far more
 * than the dot products' rounding, so the largest is the one over every point (a Fetch mesh
 * has hundreds to thousands of points: 3.6 of its 11.5 clusters a support, on average) */
static double hull_max(const double *p, int n, const double *w, int *at)
{
    const int clusters = HULL_CLUSTERS(n);
    const double *c = p + 3 * n;
    double best = -HUGE_VAL, reach[HULL_CLUSTERS_MAX], len;
    int k, first = 0;
    *at = 0;
    if (clusters <= HULL_CLUSTERS_MIN || clusters > HULL_CLUSTERS_MAX) {
        hull_run(p, n, 0, n, w, &best, at);
        return best;
    }
    len = sqrt(dot3(w, w));
    for (k = 0; k < clusters; k++)  /* (vectorises) */
        reach[k] = w[0] * c[k] + w[1] * c[clusters + k] + w[2] * c[2 * clusters + k]
                   + len * c[3 * clusters + k];
    for (k = 1; k < clusters; k++)
        if (reach[k] > reach[first]) first = k;
    hull_cluster(p, n, first, w, &best, at);
    for (k = 0; k < clusters; k++)
        if (k != first && reach[k] >= best) hull_cluster(p, n, k, w, &best, at);
    return best;
}

/* the largest u . x over shape s (the mesh's frame), and a point of s reaching it in p */
static double shape_support(const struct hullshape *s, const double *u, double *p)
{
    double w[3];
    int k;
    for (k = 0; k < 3; k++) w[k] = s->m[k] * u[0] + s->m[3 + k] * u[1] + s->m[6 + k] * u[2];
    if (s->kind < 0) {  /* hull points: w is u in their frame */
        const double *h = THULL + s->first;
        double x[3], top;
        int at;
        top = hull_max(h, s->count, w, &at);
        x[0] = h[at]; x[1] = h[s->count + at]; x[2] = h[2 * s->count + at];
        apply_d(s->m, x, p);
        return top + dot3(u, s->m + 9);
    }
    for (k = 0; k < 3; k++) p[k] = s->m[9 + k];
    if (s->kind == 0) {
        const double len = sqrt(dot3(u, u));
        for (k = 0; k < 3; k++) p[k] += len > 0.0 ? s->half[0] * u[k] / len : 0.0;
        return dot3(u, s->m + 9) + s->half[0] * len;
    }
    for (k = 0; k < 3; k++) {  /* a box: the corner along u (its axes are m's columns) */
        const double h = w[k] < 0.0 ? -s->half[k] : s->half[k];
        p[0] += s->m[k] * h; p[1] += s->m[3 + k] * h; p[2] += s->m[6 + k] * h;
    }
    return dot3(u, s->m + 9) + s->half[0] * fabs(w[0]) + s->half[1] * fabs(w[1])
           + s->half[2] * fabs(w[2]);
}

/* the affine combination of the n <= 4 points w[at[0]] .. w[at[n - 1]] nearest the origin,
 * if it lies in their convex hull (weights >= 0) and they span an (n - 1)-simplex: its
 * squared length, the point in v; else -1 (the edges' Gram matrix solved by Cramer's rule) */
static double simplex_nearest(double w[4][3], const int *at, int n, double *v)
{
    const double *w0 = w[at[0]];
    double e[3][3], g[3][3], b[3], lam[3] = { 0.0, 0.0, 0.0 }, det, sum = 0.0, scale = 0.0;
    int i, j, k;
    for (i = 0; i < n - 1; i++) {
        sub3(w[at[i + 1]], w0, e[i]);
        b[i] = -dot3(e[i], w0);
        for (j = 0; j <= i; j++) g[i][j] = g[j][i] = dot3(e[i], e[j]);
        scale += g[i][i];
    }
    if (n == 2) {
        if (!(g[0][0] > 0.0)) return -1.0;
        lam[0] = b[0] / g[0][0];
    } else if (n == 3) {
        det = g[0][0] * g[1][1] - g[0][1] * g[1][0];
        if (!(det > 1e-12 * scale * scale)) return -1.0;
        lam[0] = (b[0] * g[1][1] - g[0][1] * b[1]) / det;
        lam[1] = (g[0][0] * b[1] - b[0] * g[1][0]) / det;
    } else if (n == 4) {
        double c[3][3];
        for (i = 0; i < 3; i++) cross3(g[(i + 1) % 3], g[(i + 2) % 3], c[i]);
        det = dot3(g[0], c[0]);
        if (!(det > 1e-12 * scale * scale * scale)) return -1.0;
        for (k = 0; k < 3; k++)  /* g's inverse: the columns c[i] / det */
            lam[k] = (c[0][k] * b[0] + c[1][k] * b[1] + c[2][k] * b[2]) / det;
    }
    for (k = 0; k < 3; k++) v[k] = w0[k];
    for (i = 0; i < n - 1; i++) {
        if (lam[i] < 0.0) return -1.0;
        sum += lam[i];
        for (k = 0; k < 3; k++) v[k] += lam[i] * e[i][k];
    }
    return sum > 1.0 ? -1.0 : dot3(v, v);
}

/* the point of the convex hull of the n <= 4 points w nearest the origin, in v, and the
 * points of w spanning the face holding it kept first (their count returned); 0 when the
 * origin lies inside their tetrahedron, or nothing was found. Every face with the last point
 * is tried (at most 8, each a little linear algebra on the points' indices: a support costs
 * more): GJK's new point lies nearer the origin along v than the old nearest point, which the
 * face holding the new nearest point therefore holds */
static int hull_nearest(double w[4][3], int n, double *v)
{
    double best = HUGE_VAL, p[3];
    int mask, keep = 0, i, k, m, at[4];
    for (mask = 1 << (n - 1); mask < 1 << n; mask++) {
        double d;
        for (m = 0, i = 0; i < n; i++)
            if (mask >> i & 1) at[m++] = i;
        d = simplex_nearest(w, at, m, p);
        if (d >= 0.0 && d < best) {
            best = d;
            keep = mask;
            for (k = 0; k < 3; k++) v[k] = p[k];
        }
    }
    if (!keep || keep == 15) return 0;
    for (m = 0, i = 0; i < n; i++)  /* (m <= i: a point is moved only down, over a dropped one) */
        if (keep >> i & 1) {
            for (k = 0; k < 3; k++) w[m][k] = w[i][k];
            m++;
        }
    return m;
}

/* do shapes a and b lie farther apart than HULL_GAP: 1 on the proof (a direction v along
 * which their supports say so), else 0 (their hulls nearer, or GJK gave up). guess (or 0): a
 * first guess at v (zeros: none), which a proof replaces with its own (struct hull_guess) */
static int hull_gjk(const struct hullshape *a, const struct hullshape *b, double *guess)
{
    double w[4][3], v[3], pa[3], pb[3], u[3];
    int n = 0, step, k;
    if (guess && dot3(guess, guess) > 0.0) {
        for (k = 0; k < 3; k++) v[k] = guess[k];
    } else {
        sub3(a->centre, b->centre, v);  /* a first guess: from b's centre to a's */
        if (!(dot3(v, v) > 0.0)) v[0] = 1.0;
    }
    for (step = 0; step < HULL_STEPS; step++) {
        double len2 = dot3(v, v), sa, sb;
        for (k = 0; k < 3; k++) u[k] = -v[k];
        sa = shape_support(a, u, pa);  /* a's points reach sa along -v at most */
        sb = shape_support(b, v, pb);  /* and b's sb along v */
        if (-(sa + sb) > HULL_GAP * sqrt(len2)) {  /* v . (x_a - x_b) > that */
            if (guess) for (k = 0; k < 3; k++) guess[k] = v[k];
            return 1;
        }
        sub3(pa, pb, w[n]);  /* the point of a - b furthest along -v */
        if (n > 0 && len2 - dot3(v, w[n]) <= 1e-9 * len2) return 0;  /* none nearer */
        n = hull_nearest(w, n + 1, v);
        if (!n || dot3(v, v) <= HULL_GAP * HULL_GAP) return 0;
    }
    return 0;
}

/* solid s as a hull shape: a mesh with hull points (mesh: its index), a sphere or a box;
 * 0 for any other */
static int hull_shape(const struct solid *s, int mesh, struct hullshape *out)
{
    int k;
    out->kind = mesh >= 0 ? -1 : s->exact;
    if (mesh >= 0 ? TROOT[mesh] < 0 || THULLS[mesh][1] <= 0 : s->exact != 0 && s->exact != 1)
        return 0;
    out->first = mesh >= 0 ? THULLS[mesh][0] : 0;
    out->count = mesh >= 0 ? THULLS[mesh][1] : 0;
    for (k = 0; k < 3; k++) out->half[k] = s->half[k];
    return 1;
}

/* a frame's own pose in it (the first shape's of a pair hull_gjk compares) */
static const double HULL_IDENTITY[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };

/* is mesh solid a (group pose ga) farther than HULL_GAP from solid b: another mesh at group
 * pose `pose` (b >= 0), or sphere or box s at world pose `pose` (b < 0); guess as hull_gjk's,
 * in a's group frame */
static int hull_apart(const double *ga, int a, const double *pose, int b,
                      const struct solid *s, double *guess)
{
    struct hullshape sa, sb;
    int k;
    if (!HULLS_BOUND || !hull_shape(&SOLID[a], a, &sa)
        || !hull_shape(b >= 0 ? &SOLID[b] : s, b, &sb)) return 0;
    for (k = 0; k < 12; k++) sa.m[k] = HULL_IDENTITY[k];
    relative_d(ga, pose, sb.m);
    for (k = 0; k < 3; k++) {  /* their bounding spheres' centres (a mesh's: its group frame) */
        sa.centre[k] = SOLID[a].bound[k];
        sb.centre[k] = sb.m[9 + k];
    }
    if (b >= 0) {
        const double c[3] = { SOLID[b].bound[0], SOLID[b].bound[1], SOLID[b].bound[2] };
        apply_d(sb.m, c, sb.centre);
    }
    return hull_gjk(&sa, &sb, guess);
}

/* are triangle-tree nodes na (frame a) and nb (frame b; t: b -> a) farther apart than
 * HULL_GAP, by their own hull points (TNHULLS; 0 where either has none): meshes.c's mesh_mesh
 * asks before it opens a node pair. A node's hull points hold its triangles as a mesh's hold
 * the mesh, so the proof is hull_apart's: every two of their triangles lie farther apart than
 * DECIDE_GAP by far more than the triangle tests' rounding, and the search below the pair
 * would find no crossing and leave nothing open: the answer it skips is the one it gives. */
/* tree node n's hull points (TNHULLS) as a hull shape at pose m, its sphere's centre there */
static void node_shape(int n, const double *m, struct hullshape *out)
{
    int k;
    out->kind = -1;
    out->first = TNHULLS[n][0];
    out->count = TNHULLS[n][1];
    for (k = 0; k < 12; k++) out->m[k] = m[k];
    apply_d(m, TNODE[n], out->centre);
}

static int nodes_hulls_apart(int na, int nb, const double *t)
{
    struct hullshape sa, sb;
    if (!HULLS_BOUND || TNHULLS[na][1] <= 0 || TNHULLS[nb][1] <= 0) return 0;
    node_shape(na, HULL_IDENTITY, &sa);
    node_shape(nb, t, &sb);
    return hull_gjk(&sa, &sb, 0);
}

/* the lanes of mask in which solids a and b (a mesh with another mesh, a sphere or a box; any
 * other pair keeps its lanes) are not shown apart by hull_apart at group poses g (lanes.c's
 * block's g[group][entry][lane], flat); guess: a motion's for the pair (struct hull_guess),
 * or 0 */
static unsigned hull_lanes(const double *g, int a, int b, unsigned mask,
                           struct hull_guess *guess)
{
    int l;
    if (SOLID[a].exact >= 0) { int s = a; a = b; b = s; }
    if (SOLID[a].exact != -1 || TROOT[a] < 0) return mask;
    for (l = 0; l < 8; l++) {
        double ga[12], gb[12], *v = guess ? guess->v[l] : 0;
        int apart;
        if (!(mask >> l & 1u) || (guess && (guess->overlap >> l & 1u))) continue;
        lane_pose(g, SOLID[a].group, l, ga);
        lane_pose(g, SOLID[b].group, l, gb);
        if (SOLID[b].exact < 0) {
            apart = hull_apart(ga, a, gb, b, &SOLID[b], v);
        } else {
            double pose[12];
            mul(gb, SOLID[b].pose, pose);
            apart = hull_apart(ga, a, pose, -1, &SOLID[b], v);
        }
        if (apart) mask &= ~(1u << l);
        else if (guess) guess->overlap |= 1u << l;
    }
    return mask;
}

/* is point y strictly inside solid s (a box or a sphere at the origin) shrunk by HULL_GAP
 * (shrunk_gap below 0, without its square root: a test a hull point) */
static int inside_shrunk(const struct solid *s, const double *y)
{
    const double r = s->half[0] - HULL_GAP;
    if (s->exact == 0) return r > 0.0 && dot3(y, y) < r * r;
    return fabs(y[0]) < r && fabs(y[1]) < s->half[1] - HULL_GAP
           && fabs(y[2]) < s->half[2] - HULL_GAP;
}

/* how far point y lies outside solid s (a box or a sphere at the origin) shrunk by HULL_GAP */
static double shrunk_gap(const struct solid *s, const double *y)
{
    double h[3];
    int i;
    if (s->exact == 0) return sqrt(dot3(y, y)) - (s->half[0] - HULL_GAP);
    for (i = 0; i < 3; i++) h[i] = s->half[i] - HULL_GAP;
    return box_distance(y, h);
}

/* does a hull point of mesh solid a lie inside solid s (a box or a sphere) by more than
 * HULL_GAP in lane l of group poses g (as hull_lanes): the two collide there for certain,
 * which passes.c's check_first answers first. A hull point is a corner of the mesh's
 * triangles: check1's tri_box and tri_sphere find it inside by more than their DECIDE_GAP at
 * fk's poses (~1e-14 a joint from these), a certain hit. Each cluster of hull points whose
 * sphere lies wholly outside is passed over (a Fetch mesh has up to 2,132 hull points) */
static int lane_hull_point_inside(const double *g, int a, const struct solid *s, int l)
{
    const double *h, *c;  /* the hull points; c: their clusters' spheres */
    double ga[12], gb[12], wb[12], m[12], y[3];
    int j, k, n, clusters;
    if (!HULLS_BOUND || SOLID[a].exact != -1 || (s->exact != 0 && s->exact != 1)
        || TROOT[a] < 0 || (n = THULLS[a][1]) <= 0) return 0;
    h = THULL + THULLS[a][0];
    c = h + 3 * n;
    clusters = HULL_CLUSTERS(n);
    lane_pose(g, SOLID[a].group, l, ga);
    lane_pose(g, s->group, l, gb);
    mul(gb, s->pose, wb);
    relative_d(wb, ga, m);  /* a's group frame in s's */
    for (j = 0; j < clusters; j++) {
        const double x[3] = { c[j], c[clusters + j], c[2 * clusters + j] };
        apply_d(m, x, y);
        if (shrunk_gap(s, y) > c[3 * clusters + j]) continue;  /* none of its points */
        for (k = j * HULL_CLUSTER; k < n && k < (j + 1) * HULL_CLUSTER; k++) {
            const double p[3] = { h[k], h[n + k], h[2 * n + k] };
            apply_d(m, p, y);
            if (inside_shrunk(s, y)) return 1;
        }
    }
    return 0;
}

#else
#if CHECKER_TRIANGLES
static int nodes_hulls_apart(int na, int nb, const double *t)
{
    (void)na;
    (void)nb;
    (void)t;
    return 0;
}
#endif

static unsigned hull_lanes(const double *g, int a, int b, unsigned mask,
                           struct hull_guess *guess)
{
    (void)g;
    (void)guess;
    (void)a;
    (void)b;
    return mask;
}

static int lane_hull_point_inside(const double *g, int a, const struct solid *s, int l)
{
    (void)g;
    (void)a;
    (void)s;
    (void)l;
    return 0;
}
#endif

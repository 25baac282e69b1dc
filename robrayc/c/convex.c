/* robrayc's compiled collision checker: exact tests in double for the solid pairs the sphere
 * trees leave open (pair1's MAYBE), so that the C decides them: cylinders here, meshes on
 * their triangles in meshes.c (pasted right after this file). Compiled after points.c; a
 * generated checker holds this file verbatim too.
 *
 * decide_pair settles a pair with a cylinder or a mesh: COLLIDES on a certificate that holds
 * whatever the rounding (a point of both deeper than DECIDE_GAP in each), FREE when the two
 * lie farther apart than DECIDE_GAP (a separating axis with that gap), else MAYBE (contact
 * within DECIDE_GAP: the exact checker answers).
 *
 * DECIDE_GAP is the band about contact where the C leaves the answer to the exact checker,
 * which is the judge: outside it the two must agree. The exact checker's GJK calls two
 * solids "touching" when their difference A - B reaches past the origin by at most
 * CONTACT_TOL + 1e-7 times the size of the points of A - B it met (gjk._touching), and a mesh
 * that touches counts as colliding (narrow._convex_mesh): so a mesh 1.0009e-9 from a box (by
 * python-fcl) may be colliding for it, and a FREE from a gap of CONTACT_TOL + 1e-13 X was
 * wrong there (Fetch among boxes, found by tests/test_c_lanes.py's search near contact). Near
 * contact those points lie within the two solids' extents plus their separation, at most
 * 4 X (X = GROUP_REACH + SOLID_REACH: every solid within SOLID_REACH of a group origin, two
 * touching solids' origins within 2 SOLID_REACH); 1e-6 X covers 1e-7 of that with room
 * for run-time obstacles a few times the robot's size. It stays far above double rounding at
 * the checker's coordinates and, at a few micrometres, leaves MAYBE rare.
 */

/* DECIDE_GAP itself is defined in checker_kernel.h (obstacles.c uses it too) */

/* meshes.c (after this file): two meshes' answer */
static int decide_meshes(double g[][12], int a, int b);

static double dot3(const double *a, const double *b)
{
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void sub3(const double *a, const double *b, double *out)
{
    out[0] = a[0] - b[0]; out[1] = a[1] - b[1]; out[2] = a[2] - b[2];
}

static void cross3(const double *a, const double *b, double *out)
{
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double clamp01(double x)
{
    return x < 0.0 ? 0.0 : x > 1.0 ? 1.0 : x;
}

/* squared distance of segments p1 q1 and p2 q2, and in x the first's closest point less the
 * second's (closest points by alternating clamps, as in Ericson's Real-Time Collision
 * Detection, 5.1.9) */
static double seg_gap(const double *p1, const double *q1, const double *p2, const double *q2,
                      double *x)
{
    double d1[3], d2[3], r[3], a, e, f, s = 0.0, t = 0.0;
    int k;
    sub3(q1, p1, d1); sub3(q2, p2, d2); sub3(p1, p2, r);
    a = dot3(d1, d1); e = dot3(d2, d2); f = dot3(d2, r);
    if (a > 0.0 || e > 0.0) {
        if (a <= 0.0) {
            t = clamp01(f / e);
        } else {
            double c = dot3(d1, r);
            if (e <= 0.0) {
                s = clamp01(-c / a);
            } else {
                double b = dot3(d1, d2), denom = a * e - b * b;
                s = denom > 0.0 ? clamp01((b * f - c * e) / denom) : 0.0;
                t = (b * s + f) / e;
                if (t < 0.0) { t = 0.0; s = clamp01(-c / a); }
                else if (t > 1.0) { t = 1.0; s = clamp01((b - c) / a); }
            }
        }
    }
    for (k = 0; k < 3; k++) x[k] = p1[k] + d1[k] * s - p2[k] - d2[k] * t;
    return dot3(x, x);
}

/* out = the rigid transform b -> a of double poses: ga^-1 gb */
static void relative_d(const double *ga, const double *gb, double *out)
{
    double d[3];
    int i, j;
    for (i = 0; i < 3; i++) d[i] = gb[9 + i] - ga[9 + i];
    for (i = 0; i < 3; i++) {
        for (j = 0; j < 3; j++)
            out[3 * i + j] = ga[i] * gb[j] + ga[3 + i] * gb[3 + j] + ga[6 + i] * gb[6 + j];
        out[9 + i] = ga[i] * d[0] + ga[3 + i] * d[1] + ga[6 + i] * d[2];
    }
}

static void apply_d(const double *t, const double *p, double *out)
{
    int i;
    for (i = 0; i < 3; i++)
        out[i] = t[3 * i] * p[0] + t[3 * i + 1] * p[1] + t[3 * i + 2] * p[2] + t[9 + i];
}

/* signed distance of point p (the cylinder's frame) to the cylinder of radius r and half
 * length hh (negative inside): exact */
static double cyl_distance(const double *p, double r, double hh)
{
    double dr = sqrt(p[0] * p[0] + p[1] * p[1]) - r, dz = fabs(p[2]) - hh;
    double or_ = dr > 0.0 ? dr : 0.0, oz = dz > 0.0 ? dz : 0.0;
    if (dr > 0.0 || dz > 0.0) return sqrt(or_ * or_ + oz * oz);
    return dr > dz ? dr : dz;
}


/* --- cylinders (exact kind -2: half = radius, radius, half length; axis z) ---------------- */

/* the other solid o (sphere, box or cylinder) at pose m in the cylinder's frame: signed
 * distance of point p to it, and its support along d (max of d . x over it, less d . its
 * centre) */
static double other_distance(const struct solid *o, const double *m, const double *p)
{
    double l[3];
    to_local(m, p, l);
    if (o->exact == 0) return sqrt(dot3(l, l)) - o->half[0];
    if (o->exact == 1) return box_distance(l, o->half);
    return cyl_distance(l, o->half[0], o->half[2]);
}

static double support(const struct solid *o, const double *m, const double *d)
{
    double w[3];
    int k;
    for (k = 0; k < 3; k++) w[k] = m[k] * d[0] + m[3 + k] * d[1] + m[6 + k] * d[2];
    if (o->exact == 0) return o->half[0] * sqrt(dot3(w, w));
    if (o->exact == 1)
        return o->half[0] * fabs(w[0]) + o->half[1] * fabs(w[1]) + o->half[2] * fabs(w[2]);
    return o->half[0] * sqrt(w[0] * w[0] + w[1] * w[1]) + o->half[2] * fabs(w[2]);
}

/* the inscribed capsule of cylinder c (its frame): radius, and its axis' ends in e[0..5] */
static double inner_capsule(const struct solid *c, const double *m, double *e)
{
    double ri = c->half[0] < c->half[2] ? c->half[0] : c->half[2], s = c->half[2] - ri;
    double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 0.0, 0.0, 0.0 };
    lo[2] = -s;
    hi[2] = s;
    apply_d(m, lo, e);
    apply_d(m, hi, e + 3);
    return ri;
}

/* a point of both: balls along the inscribed capsule of cylinder c (at pose mc) deeper than
 * DECIDE_GAP in solid o (at pose mo) */
static int capsule_in(const struct solid *c, const double *mc, const struct solid *o,
                      const double *mo)
{
    double e[6], ri = inner_capsule(c, mc, e), d[3], len2, t0;
    int k, j;
    sub3(e + 3, e, d);
    len2 = dot3(d, d);
    t0 = 0.5;  /* the point nearest o's centre */
    if (len2 > 0.0) {
        double w[3];
        sub3(mo + 9, e, w);
        t0 = clamp01(dot3(w, d) / len2);
    }
    for (k = 0; k < 6; k++) {
        double t = k < 5 ? 0.25 * k : t0, p[3];
        for (j = 0; j < 3; j++) p[j] = e[j] + t * d[j];
        if (other_distance(o, mo, p) < ri - DECIDE_GAP) return 1;
    }
    return 0;
}

/* how deep a box's or cylinder's centre lies in it */
static double centre_depth(const struct solid *o)
{
    double d = o->half[0] < o->half[2] ? o->half[0] : o->half[2];
    return o->exact == 1 && o->half[1] < d ? o->half[1] : d;
}

/* cylinder c (at the origin of its frame) against sphere, box or cylinder o at pose m in
 * that frame: the sphere exactly (the exact checker's closed form); the others COLLIDES on a
 * point of both deeper than DECIDE_GAP in each, FREE on an axis along which they lie more
 * than DECIDE_GAP apart, else MAYBE. (FREE on an overlap of up to CONTACT_TOL, the contact
 * rule itself, was wrong for the judge: the exact checker's GJK calls such a pair colliding
 * when none of the few directions it tries shows the touch, as a box and a cylinder in
 * tests/test_decided.py, bisected on this function's own answer, showed.) */
static int cylinder_other(const struct solid *c, const struct solid *o, const double *m)
{
    static const double identity[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
    double axes[12][3], t[3] = { m[9], m[10], m[11] };
    int n = 0, k;
    if (o->exact == 0)
        return cyl_distance(t, c->half[0], c->half[2]) < o->half[0] - CONTACT_TOL;
    if (capsule_in(c, identity, o, m)) return 1;
    if (o->exact == -2) {
        double ea[6], eb[6], x[3], reach;
        double ra = inner_capsule(c, identity, ea), rb = inner_capsule(o, m, eb);
        if (capsule_in(o, m, c, identity)) return 1;
        reach = ra + rb - DECIDE_GAP;
        if (reach > 0.0 && seg_gap(ea, ea + 3, eb, eb + 3, x) < reach * reach) return 1;
        /* the axes' closest points: their line */
        (void)seg_gap(eb, eb + 3, ea, ea + 3, axes[n++]);
    }
    if (-cyl_distance(t, c->half[0], c->half[2]) > DECIDE_GAP && centre_depth(o) > DECIDE_GAP)
        return 1;  /* o's centre, deep in o, deep in the cylinder too */
    for (k = 0; k < 3; k++) axes[n][k] = t[k];  /* the centres' line */
    n++;
    axes[n][0] = t[0]; axes[n][1] = t[1]; axes[n][2] = 0.0;  /* radial */
    n++;
    axes[n][0] = 0.0; axes[n][1] = 0.0; axes[n][2] = 1.0;  /* the cylinder's axis */
    n++;
    for (k = 0; k < 3; k++) {  /* o's axes, and their crosses with the cylinder's */
        double u[3] = { m[k], m[3 + k], m[6 + k] }, z[3] = { 0.0, 0.0, 1.0 };
        axes[n][0] = u[0]; axes[n][1] = u[1]; axes[n][2] = u[2];
        n++;
        cross3(z, u, axes[n++]);
    }
    for (k = 0; k < n; k++) {
        double len = sqrt(dot3(axes[k], axes[k])), lead;
        if (!(len > 0.0)) continue;
        lead = fabs(dot3(axes[k], t)) - support(c, identity, axes[k]) - support(o, m, axes[k]);
        if (lead > DECIDE_GAP * len) return 0;
    }
    return 2;
}

/* a pair with a cylinder: the other's pose in the cylinder's frame; a mesh on its triangles */
static int decide_cylinder(double g[][12], int a, int b)
{
    const struct solid *sa = &SOLID[a], *sb = &SOLID[b];
    double wa[12], wb[12], m[12];
    if (sa->exact != -2) { int s = a; a = b; b = s; sa = &SOLID[a]; sb = &SOLID[b]; }
    mul(g[sa->group], sa->pose, wa);
    if (sb->exact == -1) return decide_solid(g[sb->group], b, wa, sa);  /* a mesh */
    mul(g[sb->group], sb->pose, wb);
    relative_d(wa, wb, m);
    return cylinder_other(sa, sb, m);
}

static int decides(int a, int b)
{
    const struct solid *sa = &SOLID[a], *sb = &SOLID[b];
    if (sa->exact == -2 || sb->exact == -2)
        return (sa->exact != -1 || has_triangles(a)) && (sb->exact != -1 || has_triangles(b));
    return (sa->exact >= 0 || has_triangles(a)) && (sb->exact >= 0 || has_triangles(b));
}

/* 0: pair1 (checker_kernel.c) descends the float trees before the triangles, as it did (for
 * comparisons: the answers are the same) */
#ifndef CHECKER_TRIANGLES_FIRST
#define CHECKER_TRIANGLES_FIRST 1
#endif

/* is solid a a mesh with triangles, and b a sphere, a box or another such mesh: a pair whose
 * triangles pair1 tests before its float trees */
static int triangles_first(int a, int b)
{
    const int kb = SOLID[b].exact;
    return CHECKER_TRIANGLES_FIRST && SOLID[a].exact == -1 && has_triangles(a)
           && (kb == 0 || kb == 1 || (kb == -1 && has_triangles(b)));
}

static int decide_pair(double g[][12], int a, int b)
{
    const struct solid *sb = &SOLID[b];
    if (!decides(a, b)) return 2;
    if (SOLID[a].exact == -2 || sb->exact == -2) return decide_cylinder(g, a, b);
    if (sb->exact >= 0) {  /* a is the mesh */
        double wb[12];
        mul(g[sb->group], sb->pose, wb);
        return decide_solid(g[SOLID[a].group], a, wb, sb);
    }
    return decide_meshes(g, a, b);
}

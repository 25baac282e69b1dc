/* --- build time: exact proofs on triangle trees (robrayc.analysis.collision.triangles) ----- */

/* each mesh solid's triangles under a tree of spheres (double, group frame): TNODE x, y, z,
 * radius; TKID internal { first child, 2 }, leaf { first triangle, -count }; TROOT per solid
 * (-1: no triangles); TLEV per node, how fast its points move per unit of each variable */
static const double (*TNODE)[4], (*TRI)[9];
static const int (*TKID)[2], *TROOT;
static const float *TLEV;

void checker_tbind(const double *node, const int *kid, const double *tri, const int *root,
                      const float *lev)
{
    TNODE = (const double (*)[4])node;
    TKID = (const int (*)[2])kid;
    TRI = (const double (*)[9])tri;
    TROOT = root;
    TLEV = lev;
}

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

/* squared distance of segments p1 q1 and p2 q2 (closest points by alternating clamps, as in
 * Ericson's Real-Time Collision Detection, 5.1.9) */
static double seg_seg2(const double *p1, const double *q1, const double *p2, const double *q2)
{
    double d1[3], d2[3], r[3], x[3], a, e, f, s = 0.0, t = 0.0;
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

/* does point p lie over triangle v (normal n, not zero): inside its three edge planes */
static int over(const double *v, const double *n, const double *p)
{
    int k;
    for (k = 0; k < 3; k++) {
        const double *a = v + 3 * k, *b = v + 3 * ((k + 1) % 3);
        double e[3], w[3], c[3];
        sub3(b, a, e); sub3(p, a, w); cross3(e, w, c);
        if (dot3(c, n) < 0.0) return 0;
    }
    return 1;
}

/* is there an axis across an edge of triangle u and an edge of v along which they lie
 * farther apart than g (g2 = g * g): then so do the triangles. Each triangle's projection is
 * spanned by its edge's (both ends project alike) and its third corner's. */
static int edge_axes_apart(const double *u, const double *v, double g2)
{
    int i, j;
    for (i = 0; i < 3; i++) {
        const double *u0 = u + 3 * i, *u1 = u + 3 * ((i + 1) % 3), *u2 = u + 3 * ((i + 2) % 3);
        double eu[3];
        sub3(u1, u0, eu);
        for (j = 0; j < 3; j++) {
            const double *v0 = v + 3 * j, *v1 = v + 3 * ((j + 1) % 3);
            const double *v2 = v + 3 * ((j + 2) % 3);
            double ev[3], a[3], p0, p2, r0, r2, gap;
            sub3(v1, v0, ev);
            cross3(eu, ev, a);
            p0 = dot3(a, u0); p2 = dot3(a, u2); r0 = dot3(a, v0); r2 = dot3(a, v2);
            gap = (r0 < r2 ? r0 : r2) - (p0 > p2 ? p0 : p2);
            if (gap < (p0 < p2 ? p0 : p2) - (r0 > r2 ? r0 : r2))
                gap = (p0 < p2 ? p0 : p2) - (r0 > r2 ? r0 : r2);
            if (gap > 0.0 && gap * gap > g2 * dot3(a, a)) return 1;
        }
    }
    return 0;
}

/* are triangles u and v (9 coordinates each, one frame) within distance g of each other.
 * Apart triangles are closest at an edge pair or at a vertex over the other's face; crossing
 * ones have an edge through the other's face. Most pairs are settled first by their boxes or
 * by a plane: the other triangle's corners all farther than g on one side of it. */
static int tri_near(const double *u, const double *v, double g)
{
    const double *t[2] = { u, v };
    double n[2][3], nn[2], side[2][3], g2 = g * g;
    int i, j, k;
    for (k = 0; k < 3; k++) {  /* their boxes farther apart than g along an axis */
        double ulo = u[k], uhi = u[k], vlo = v[k], vhi = v[k];
        for (i = 3; i < 9; i += 3) {
            if (u[i + k] < ulo) ulo = u[i + k];
            if (u[i + k] > uhi) uhi = u[i + k];
            if (v[i + k] < vlo) vlo = v[i + k];
            if (v[i + k] > vhi) vhi = v[i + k];
        }
        if (vlo - uhi > g || ulo - vhi > g) return 0;
    }
    for (i = 0; i < 9; i += 3)  /* two corners within g: near, without the edges' work */
        for (j = 0; j < 9; j += 3) {
            double dx = u[i] - v[j], dy = u[i + 1] - v[j + 1], dz = u[i + 2] - v[j + 2];
            if (dx * dx + dy * dy + dz * dz <= g2) return 1;
        }
    for (k = 0; k < 2; k++) {
        double e1[3], e2[3], lim;
        int above = 0, below = 0;
        sub3(t[k] + 3, t[k], e1); sub3(t[k] + 6, t[k], e2);
        cross3(e1, e2, n[k]);
        nn[k] = dot3(n[k], n[k]);
        lim = g2 * nn[k];
        for (i = 0; i < 3; i++) {
            double w[3];
            sub3(t[1 - k] + 3 * i, t[k], w);
            side[k][i] = dot3(w, n[k]);
            if (side[k][i] * side[k][i] > lim) {
                above += side[k][i] > 0.0;
                below += side[k][i] < 0.0;
            }
        }
        if (nn[k] > 0.0 && (above == 3 || below == 3)) return 0;
    }
    if (edge_axes_apart(u, v, g2)) return 0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            if (seg_seg2(u + 3 * i, u + 3 * ((i + 1) % 3), v + 3 * j, v + 3 * ((j + 1) % 3))
                <= g2) return 1;
    for (k = 0; k < 2; k++) {
        const double *face = t[k], *other = t[1 - k], *sd = side[k];
        if (!(nn[k] > 0.0)) continue;  /* a degenerate face: its edges did */
        for (i = 0; i < 3; i++)
            if (sd[i] * sd[i] <= g2 * nn[k] && over(face, n[k], other + 3 * i)) return 1;
        for (i = 0; i < 3; i++) {  /* an edge of the other through this face */
            const double *p = other + 3 * i, *q = other + 3 * ((i + 1) % 3);
            double sp = sd[i], sq = sd[(i + 1) % 3], x[3];
            if (!((sp < 0.0 && sq > 0.0) || (sp > 0.0 && sq < 0.0))) continue;
            for (j = 0; j < 3; j++) x[j] = p[j] + (q[j] - p[j]) * (sp / (sp - sq));
            if (over(face, n[k], x)) return 1;
        }
    }
    return 0;
}

/* out = the rigid transform b -> a of double group poses: ga^-1 gb */
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

/* a proof over a box of the variables var[0..dims): half widths h, the transform b -> a at
 * its centre, node pairs it may still visit, whether triangles met at the centre (no proof:
 * the pair touches or collides), and the work space of the leaf pairs left open per box */
struct tproof { int a, b, dims, var[3]; double h[3], t[12], margin, range[3], done;
                long budget, given; int touching; int *work; long room, used; };

/* how far the points of triangle-tree node n can move within the box */
static double tmove(const struct tproof *c, int n)
{
    double m = 0.0;
    int d;
    for (d = 0; d < c->dims; d++) m += c->h[d] * TLEV[(long)n * NQ + c->var[d]];
    return m;
}

/* may nodes na (solid a's tree) and nb (b's) come within the margin of each other anywhere
 * in the box: their spheres, each grown by how far it can move, meet; for two leaves, down to
 * their triangles (at the box's centre, grown the same) */
static int tnear(struct tproof *c, int na, int nb)
{
    double grow = tmove(c, na) + tmove(c, nb), pb[3], d[3], reach;
    int i, j, k;
    --c->budget;
    apply_d(c->t, TNODE[nb], pb);
    sub3(pb, TNODE[na], d);
    reach = TNODE[na][3] + TNODE[nb][3] + grow + c->margin;
    if (dot3(d, d) > reach * reach) return 0;
    if (TKID[na][1] > 0 || TKID[nb][1] > 0) return 1;
    for (j = TKID[nb][0]; j < TKID[nb][0] - TKID[nb][1]; j++) {
        double v[9];
        for (k = 0; k < 3; k++) apply_d(c->t, TRI[j] + 3 * k, v + 3 * k);
        for (i = TKID[na][0]; i < TKID[na][0] - TKID[na][1]; i++)
            if (tri_near(TRI[i], v, grow + c->margin)) {
                c->touching |= tri_near(TRI[i], v, c->margin);
                return 1;
            }
    }
    return 0;
}

/* the leaf pairs under na and nb that may meet in the box, appended to out (n of them, at
 * most max); 1 when they do not fit (or triangles touch, or the budget is spent): the box is
 * then not proven, and its halves start again from the roots. The larger node is opened
 * first. */
static int tcollect(struct tproof *c, int na, int nb, int *out, long *n, long max)
{
    int k;
    if (c->touching || c->budget < 0) return 1;
    if (!tnear(c, na, nb)) return 0;
    if (TKID[na][1] < 0 && TKID[nb][1] < 0) {
        if (c->touching || *n >= max) return 1;
        out[2 * *n] = na;
        out[2 * *n + 1] = nb;
        ++*n;
        return 0;
    }
    if (TKID[nb][1] > 0 && (TKID[na][1] < 0 || TNODE[nb][3] >= TNODE[na][3])) {
        for (k = TKID[nb][0]; k < TKID[nb][0] + TKID[nb][1]; k++)
            if (tcollect(c, na, k, out, n, max)) return 1;
        return 0;
    }
    for (k = TKID[na][0]; k < TKID[na][0] + TKID[na][1]; k++)
        if (tcollect(c, k, nb, out, n, max)) return 1;
    return 0;
}

/* is the pair apart over the box lo..hi (q: the other variables; the pair's are overwritten):
 * its leaf pairs that may meet are collected (from the roots, or from `open`, the n_open its
 * enclosing box left: a pair apart over a box is apart over its halves); none, and it is
 * proven; else it is split in halves along the variable that moves those leaves (or the
 * roots) the most, depth first. 0 at triangles meeting at a centre, past `depth` splits, past
 * the budget, or once the share proven so far says the budget will not do. */
static int tprove(struct tproof *c, double *q, double *lo, double *hi, int depth,
                  const int *open, long n_open)
{
    double g[NG][12], best = -1.0, mid, keep;
    int *mine = c->work + c->used, d, k = 0, ok, full = 0;
    long n = 0, m, max = (c->room - c->used) / 2;
    for (d = 0; d < c->dims; d++) {
        q[c->var[d]] = 0.5 * (lo[d] + hi[d]);
        /* the half width, and 1e-9 (1 + |q|) more: the midpoint and the halves' ends are
         * rounded to double (relative 1.1e-16), so the box covers lo..hi with room to spare */
        c->h[d] = 0.5 * (hi[d] - lo[d]) + 1e-9 * (1.0 + fabs(q[c->var[d]]));
    }
    fk(q, g);
    relative_d(g[SOLID[c->a].group], g[SOLID[c->b].group], c->t);
    if (open) {
        for (m = 0; m < n_open && !full; m++) {
            if (!tnear(c, open[2 * m], open[2 * m + 1])) continue;
            full = c->touching || n >= max;
            if (!full) { mine[2 * n] = open[2 * m]; mine[2 * n + 1] = open[2 * m + 1]; n++; }
        }
    } else {
        full = tcollect(c, TROOT[c->a], TROOT[c->b], mine, &n, max);
    }
    if (!full && n == 0) {
        double part = 1.0;
        for (d = 0; d < c->dims; d++)
            if (c->range[d] > 0.0) part *= (hi[d] - lo[d]) / c->range[d];
        c->done += part;
        return 1;
    }
    /* past a quarter of the budget, give up when the share of the box proven so far says the
     * whole would need twice the budget */
    if (c->given - c->budget > c->given / 4 && c->given - c->budget > 2.0 * c->done * c->given)
        c->budget = -1;
    if (c->touching || depth == 0 || c->budget < 0) return 0;
    for (d = 0; d < c->dims; d++) {  /* the variable the open leaves (or the roots) move most */
        double w = 0.0;
        if (full) {
            w = TLEV[(long)TROOT[c->a] * NQ + c->var[d]] + TLEV[(long)TROOT[c->b] * NQ + c->var[d]];
        } else {
            for (m = 0; m < 2 * n; m++)
                if (TLEV[(long)mine[m] * NQ + c->var[d]] > w) w = TLEV[(long)mine[m] * NQ + c->var[d]];
        }
        if (c->h[d] * w > best) { best = c->h[d] * w; k = d; }
    }
    if (full) n = 0;
    c->used += 2 * n;
    mid = 0.5 * (lo[k] + hi[k]);
    keep = hi[k]; hi[k] = mid;
    ok = tprove(c, q, lo, hi, depth - 1, full ? 0 : mine, n);
    hi[k] = keep;
    if (ok) {
        keep = lo[k]; lo[k] = mid;
        ok = tprove(c, q, lo, hi, depth - 1, full ? 0 : mine, n);
        lo[k] = keep;
    }
    c->used -= 2 * n;
    return ok;
}

/* 1 when mesh solids a and b (both with triangle trees) are farther apart than margin at every
 * configuration with the variables var[0..dims) in lo..hi and the others as in q, proven
 * within `depth` splits and `*budget` node pairs (what is left is written back); else 0. work:
 * room for `room` ints, the leaf pairs left open by the boxes being split. */
int checker_tprove(int a, int b, int dims, const int *var, const double *lo,
                      const double *hi, double margin, int depth, double *q, long *budget,
                      int *work, long room)
{
    struct tproof c;
    double l[3], h[3];
    int d, ok;
    if (dims < 1 || dims > 3 || TROOT[a] < 0 || TROOT[b] < 0) return 0;
    c.a = a; c.b = b; c.dims = dims; c.margin = margin; c.budget = c.given = *budget;
    c.touching = 0; c.done = 0.0; c.work = work; c.room = room; c.used = 0;
    for (d = 0; d < dims; d++) {
        c.var[d] = var[d]; l[d] = lo[d]; h[d] = hi[d]; c.range[d] = hi[d] - lo[d];
    }
    ok = tprove(&c, q, l, h, depth, 0, 0);
    *budget = c.budget;
    return ok;
}

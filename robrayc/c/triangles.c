/* --- build time: exact proofs on triangle trees (robrayc.analysis.collision.triangles) ----- */

/* the trees (TNODE, TKID, TRI, TROOT, TLEV, bound by checker_tbind) and the triangle tests
 * (tri_near, relative_d, apply_d) are convex.c's, which a build with this file holds with
 * CHECKER_TRIANGLES 2 */

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

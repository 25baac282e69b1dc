/* --- build time: exact proofs on triangle trees (robrayc.analysis.collision.triangles) ----- */

/* the trees (TNODE, TKID, TRI, TROOT, TLEV, bound by checker_tbind) and the triangle tests
 * (tri_near; relative_d, apply_d) are meshes.c's and convex.c's, which a build with this
 * file holds with CHECKER_TRIANGLES 2 */

/* a proof over a box of the variables var[0..dims): half widths h, the transform b -> a at
 * its centre, node pairs it may still visit, whether triangles met at the centre (no proof:
 * the pair touches or collides; watched only while `watch`: a block of cells that holds such
 * a centre is split, not given up), the work space of the leaf pairs left open per box, and
 * what a test of two triangles costs of the budget besides its node pair's one */
struct tproof { int a, b, dims, var[3]; double h[3], t[12], margin, range[3], done;
                long budget, given; int touching, watch, gave_up; int *work; long room, used,
                tri_cost; };

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
        for (i = TKID[na][0]; i < TKID[na][0] - TKID[na][1]; i++) {
            c->budget -= c->tri_cost;
            if (tri_near(TRI[i], v, grow + c->margin)) {
                c->touching |= c->watch && tri_near(TRI[i], v, c->margin);
                return 1;
            }
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
    if (c->touching || c->budget < 0 || c->gave_up) return 1;
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

/* the box lo..hi set up (q's variables at its centre, the half widths, the transform at
 * the centre) and the leaf pairs that may come within the margin in it gathered into mine
 * (from the roots, or from `open`, the n_open its enclosing box left: a pair apart over a
 * box is apart over its parts); how many; *full when they do not fit (or triangles touch,
 * or the budget is spent) */
static long tgather(struct tproof *c, double *q, const double *lo, const double *hi,
                    const int *open, long n_open, int *mine, int *full)
{
    double g[NG][12];
    long n = 0, m, max = (c->room - c->used) / 2;
    int d;
    for (d = 0; d < c->dims; d++) {
        q[c->var[d]] = 0.5 * (lo[d] + hi[d]);
        /* the half width, and 1e-9 (1 + |q|) more: the midpoint and the halves' ends are
         * rounded to double (relative 1.1e-16), so the box covers lo..hi with room to spare */
        c->h[d] = 0.5 * (hi[d] - lo[d]) + 1e-9 * (1.0 + fabs(q[c->var[d]]));
    }
    fk(q, g);
    relative_d(g[SOLID[c->a].group], g[SOLID[c->b].group], c->t);
    *full = 0;
    if (!open) {
        *full = tcollect(c, TROOT[c->a], TROOT[c->b], mine, &n, max);
        return n;
    }
    for (m = 0; m < n_open && !*full; m++) {
        if (!tnear(c, open[2 * m], open[2 * m + 1])) continue;
        *full = c->touching || n >= max || c->budget < 0;
        if (!*full) { mine[2 * n] = open[2 * m]; mine[2 * n + 1] = open[2 * m + 1]; n++; }
    }
    return n;
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
    double best = -1.0, mid, keep;
    int *mine = c->work + c->used, d, k = 0, ok, full;
    long n = tgather(c, q, lo, hi, open, n_open, mine, &full), m;
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
        c->gave_up = 1;
    if (c->touching || depth == 0 || c->budget < 0 || c->gave_up) return 0;
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
    c.touching = c.gave_up = 0; c.watch = 1; c.done = 0.0; c.tri_cost = 0;
    c.work = work; c.room = room; c.used = 0;
    for (d = 0; d < dims; d++) {
        c.var[d] = var[d]; l[d] = lo[d]; h[d] = hi[d]; c.range[d] = hi[d] - lo[d];
    }
    ok = tprove(&c, q, l, h, depth, 0, 0);
    *budget = c.budget;
    return ok;
}

/* the largest block of cells (a side) proven at once: a larger one's nodes grow so much that
 * hardly a leaf pair is ruled out, at the cost of their triangle tests */
#define TBLOCK 8

/* what a test of two triangles costs of a table's budget (about as much time as this many
 * node pairs' sphere tests), so that the budget bounds the time */
#define TRI_COST 4

/* a table gives up once it has visited TSTART node pairs and more than TYIELD a cell it
 * proved (UR5's base and upper arm: ~3,000 a cell; its shoulder and forearm, close where
 * the spheres leave them: ~400,000) */
#define TSTART 10000000L
#define TYIELD 20000L

/* a table of cells (as checker_cells lays them out) and the node pairs a cell may visit */
struct tgrid { int n[3]; double lo[3], step[3], pad; unsigned char *bits; long cell, gained;
               int depth; };

/* are the bits of the block of cells from i[], s[d] cells along each variable all set */
static int tproven(const struct tgrid *g, const int *i, const int *s)
{
    int j[3];
    for (j[0] = i[0]; j[0] < i[0] + s[0]; j[0]++)
        for (j[1] = i[1]; j[1] < i[1] + s[1]; j[1]++)
            for (j[2] = i[2]; j[2] < i[2] + s[2]; j[2]++) {
                long at = ((long)j[0] * g->n[1] + j[1]) * g->n[2] + j[2];
                if (!(g->bits[at >> 3] >> (at & 7) & 1)) return 0;
            }
    return 1;
}

/* and set them, counting those that were not */
static void tset(struct tgrid *g, const int *i, const int *s)
{
    int j[3];
    for (j[0] = i[0]; j[0] < i[0] + s[0]; j[0]++)
        for (j[1] = i[1]; j[1] < i[1] + s[1]; j[1]++)
            for (j[2] = i[2]; j[2] < i[2] + s[2]; j[2]++) {
                long at = ((long)j[0] * g->n[1] + j[1]) * g->n[2] + j[2];
                g->gained += !(g->bits[at >> 3] >> (at & 7) & 1);
                g->bits[at >> 3] |= (unsigned char)(1u << (at & 7));
            }
}

/* one cell, lo..hi, proven by tprove's splits within it (from the open leaf pairs its
 * block left), within the grid's node pairs a cell (and what is left of the budget) */
static int tcell(struct tproof *c, const struct tgrid *g, double *q, double *lo, double *hi,
                 const int *open, long n_open)
{
    long total = c->budget;
    int d, ok;
    c->budget = c->given = total < g->cell ? total : g->cell;
    c->touching = c->gave_up = 0;
    c->watch = 1;
    c->done = 0.0;
    for (d = 0; d < c->dims; d++) c->range[d] = hi[d] - lo[d];
    ok = tprove(c, q, lo, hi, g->depth, open, n_open);
    c->budget = total - (c->given - (c->budget > 0 ? c->budget : 0));
    c->touching = c->gave_up = c->watch = 0;  /* (the blocks do not stop at them) */
    return ok;
}

/* the block of cells from cell i[], s[d] cells along each variable: its bits set when no
 * leaf pair may come within the margin over the whole block (grown by pad), else a single
 * cell by tcell, a larger block split in halves along every variable of more than one cell
 * (open, n_open: the leaf pairs its enclosing block left) */
static void tblock(struct tproof *c, struct tgrid *g, double *q, const int *i,
                   const int *s, const int *open, long n_open)
{
    double lo[3], hi[3];
    int *mine = c->work + c->used, d, j[3], half[3], k, full, incomplete = 0;
    long n;
    if (c->budget < 0 || tproven(g, i, s)) return;
    for (d = 0; d < 3; d++) {
        lo[d] = g->lo[d] + (double)i[d] * g->step[d] - g->pad;
        hi[d] = g->lo[d] + (double)(i[d] + s[d]) * g->step[d] + g->pad;
    }
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) {
        n = 0;
        full = !tcell(c, g, q, lo, hi, open, n_open);
    } else {
        n = tgather(c, q, lo, hi, open, n_open, mine, &incomplete);
        full = incomplete || n > 0;
    }
    if (!full) {
        tset(g, i, s);
        return;
    }
    if (s[0] == 1 && s[1] == 1 && s[2] == 1) return;
    if (incomplete) n = -1;  /* did not fit: the halves start from the roots */
    if (n > 0) c->used += 2 * n;
    for (d = 0; d < 3; d++) half[d] = s[d] > 1 ? s[d] / 2 : s[d];
    for (k = 0; k < 8; k++) {  /* the sub-blocks: bit d of k, the upper half along d */
        for (d = 0; d < 3; d++) {
            if ((k >> d & 1) && s[d] == 1) break;
            j[d] = i[d] + ((k >> d & 1) ? half[d] : 0);
        }
        if (d == 3) tblock(c, g, q, j, half, n >= 0 ? mine : 0, n >= 0 ? n : 0);
    }
    if (n > 0) c->used -= 2 * n;
}

/* the cells of mesh solids a and b's table (as checker_cells lays them out: n[d] cells of
 * step[d] from lo[d], n[d] a power of 2, the first variable's index major) proven on their
 * triangle trees: a cell's bit is set when the pair is farther apart than margin over the
 * whole cell, grown by pad (blocks of cells at once, a cell within `depth` splits and `cell`
 * node pairs). q: the other variables (the pair's are overwritten). Returns what is left of
 * `budget`, the node pairs all the cells may visit. work: room for `room` ints. */
long checker_tcells(int a, int b, int dims, const int *var, const double *lo,
                    const double *step, const int *n, double pad, double margin, int depth,
                    double *q, unsigned char *bits, long budget, long cell, int *work,
                    long room)
{
    struct tproof c;
    struct tgrid g;
    int d, i[3], s[3];
    if (dims < 1 || dims > 3 || TROOT[a] < 0 || TROOT[b] < 0) return budget;
    c.a = a; c.b = b; c.dims = dims; c.margin = margin; c.budget = c.given = budget;
    c.touching = c.gave_up = c.watch = 0; c.done = 0.0; c.work = work; c.room = room;
    c.used = 0; c.tri_cost = TRI_COST;
    g.pad = pad; g.bits = bits; g.cell = cell; g.depth = depth; g.gained = 0;
    for (d = 0; d < 3; d++) {
        c.var[d] = d < dims ? var[d] : 0;
        c.range[d] = 0.0;
        g.n[d] = d < dims ? n[d] : 1;
        g.lo[d] = d < dims ? lo[d] : 0.0;
        g.step[d] = d < dims ? step[d] : 0.0;
        s[d] = g.n[d] < TBLOCK ? g.n[d] : TBLOCK;
    }
    /* from blocks of up to TBLOCK cells a side; a table whose cells cost more than TYIELD
     * node pairs each, past its first TSTART, is left */
    for (i[0] = 0; i[0] < g.n[0]; i[0] += s[0])
        for (i[1] = 0; i[1] < g.n[1]; i[1] += s[1])
            for (i[2] = 0; i[2] < g.n[2]; i[2] += s[2]) {
                long used = budget - c.budget;
                if (used > TSTART && used > TYIELD * g.gained) return c.budget;
                tblock(&c, &g, q, i, s, 0, 0);
            }
    return c.budget;
}

/* --- build time: the crossing witnesses' candidates (robrayc.analysis.collision.witnesses) - */

/* every crossing pair of triangles of each solid pair of two meshes (PAIR) at each of the n
 * configurations q (n x NQ), as meshes.c's search finds them (mesh_mesh with a log): rows of
 * 4 ints in out (the configuration's index, the pair's, a's triangle, b's: a and b as PAIR
 * holds them), at most max; returns their count */
long checker_crossings(const double *q, long n, int *out, long max)
{
    struct crossing_log log;
    long k;
    int p;
    log.out = out; log.n = 0; log.max = max;
    for (k = 0; k < n && log.n < max; k++) {
        double g[NG][12], m[12], back[12];
        fk(q + k * NQ, g);
        for (p = 0; p < NP; p++) {
            const int a = PAIR[p][0], b = PAIR[p][1];
            int open = 0;
            if (TROOT[a] < 0 || TROOT[b] < 0) continue;
            relative_d(g[SOLID[a].group], g[SOLID[b].group], m);
            relative_d(g[SOLID[b].group], g[SOLID[a].group], back);
            log.tag[0] = (int)k;
            log.tag[1] = p;
            (void)mesh_mesh(TROOT[a], TROOT[b], m, back, &open, &log);
        }
    }
    return log.n;
}

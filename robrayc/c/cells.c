/* robrayc's compiled collision checker: the certified cells' prover, built only with
 * CHECKER_CERTIFY (robrayc's build-time library; robrayc.analysis.collision.cells calls
 * checker_cells and writes the cells proven into the robot's tables, CELLTAB, CELLS and
 * CELLBITS, which checker_kernel.c's `certified` reads).
 *
 * Compiled after checker_kernel.c: a cell is proven when the sphere trees of the pair, every
 * node grown by how far it can move within the cell (lev: its speed per variable), stay
 * apart, as tree_tree tests them at one configuration.
 */

#if CHECKER_CERTIFY

struct cellgrid { int p, dims, var[3], n[3]; double lo[3], step[3], pad, h[3];
                  const float *lev; unsigned char *bits; long budget; };

/* how far the points of node n can move when the grid's variables move by at most h[d]: lev
 * holds each node's speed per variable (NQ floats a node) */
static float move(const struct cellgrid *c, int n)
{
    double m = 0.0;
    int d;
    for (d = 0; d < c->dims; d++) m += c->h[d] * c->lev[(long)n * NQ + c->var[d]];
    return (float)m;
}

/* tree_tree with every node grown by how far it can move: do solids a, b (their trees under
 * na, nb) possibly meet anywhere within the grid's h of the configuration t was computed
 * at; 1 (unproven) once the budget of node pairs is spent */
static int swept(struct cellgrid *c, int a, int b, int na, int nb, const float *pb,
                 const float *t)
{
    /* a cell's relative translation reaches past the margin's X by at most the growth, whose
     * float32 rounding a relative MARGIN_RATE more covers as the margin covers X's */
    float grow = (move(c, na) + move(c, nb)) * (float)(1.0 + MARGIN_RATE);
    int k;
    if (--c->budget < 0) return 1;
    if (!near1(pb, NODE[na], NODE[na][3] + NODE[nb][3] + grow)) return 0;
    if (!KID[na][1] && !KID[nb][1]) {
        const float *oa = KID[na][0] < 0 ? BOX[a] : LEAF[KID[na][0]];
        const float *ob = KID[nb][0] < 0 ? BOX[b] : LEAF[KID[nb][0]];
        float grown[15];
        for (k = 0; k < 15; k++) grown[k] = ob[k] + (k >= 12 ? grow : 0.0f);
        return node_node(oa, grown, t);
    }
    if (KID[nb][1] && (!KID[na][1] || NODE[nb][3] >= NODE[na][3])) {
        for (k = KID[nb][0]; k < KID[nb][0] + KID[nb][1]; k++) {
            float pk[3];
            apply(t, NODE[k], pk);
            if (swept(c, a, b, na, k, pk, t)) return 1;
        }
        return 0;
    }
    for (k = KID[na][0]; k < KID[na][0] + KID[na][1]; k++)
        if (swept(c, a, b, k, nb, pb, t)) return 1;
    return 0;
}

/* certify the block of cells from cell i[], s[d] cells along each variable: set its bits when
 * the pair is apart over the whole block, else split it in halves along every variable of
 * more than one cell (q: the other variables, any value) */
static void fill(struct cellgrid *c, double *q, const int *i, const int *s)
{
    int a = PAIR[c->p][0], b = PAIR[c->p][1], d, j[3], half[3], k;
    double g[NG][12];
    float t[12], pb[3];
    for (d = 0; d < c->dims; d++) {
        q[c->var[d]] = c->lo[d] + (i[d] + 0.5 * s[d]) * c->step[d];
        c->h[d] = 0.5 * s[d] * c->step[d] + c->pad;
    }
    fk(q, g);
    relative(g[SOLID[a].group], g[SOLID[b].group], t);
    apply(t, NODE[SOLID[b].root], pb);
    if (!swept(c, a, b, SOLID[a].root, SOLID[b].root, pb, t)) {
        for (j[0] = i[0]; j[0] < i[0] + s[0]; j[0]++)
            for (j[1] = i[1]; j[1] < i[1] + s[1]; j[1]++)
                for (j[2] = i[2]; j[2] < i[2] + s[2]; j[2]++) {
                    long at = ((long)j[0] * c->n[1] + j[1]) * c->n[2] + j[2];
                    c->bits[at >> 3] |= (unsigned char)(1u << (at & 7));
                }
        return;
    }
    if ((s[0] == 1 && s[1] == 1 && s[2] == 1) || c->budget < 0) return;
    for (d = 0; d < 3; d++) half[d] = s[d] > 1 ? s[d] / 2 : s[d];
    for (k = 0; k < 8; k++) {  /* the sub-blocks: bit d of k, the upper half along d */
        for (d = 0; d < 3; d++) {
            if ((k >> d & 1) && s[d] == 1) break;
            j[d] = i[d] + ((k >> d & 1) ? half[d] : 0);
        }
        if (d == 3) fill(c, q, j, half);
    }
}

/* the certified cells of solid pair p over its variables var[0..dims) (n[d] cells of step[d]
 * from lo[d], n[d] a power of 2), each grown by pad; q: a configuration (the pair's variables
 * are overwritten); bits: the product of n[d] bits, zeroed, the first variable's index major;
 * budget: node pairs to visit at most (past it, the cells left stay unproven). Returns the
 * budget left. */
long checker_cells(int p, int dims, const int *var, const double *lo, const double *step,
                      const int *n, double pad, double *q, const float *lev,
                      unsigned char *bits, long budget)
{
    static const int origin[3] = { 0, 0, 0 };
    struct cellgrid c;
    int d;
    c.p = p; c.dims = dims; c.pad = pad; c.lev = lev; c.bits = bits; c.budget = budget;
    for (d = 0; d < 3; d++) {
        c.var[d] = d < dims ? var[d] : 0;
        c.n[d] = d < dims ? n[d] : 1;
        c.lo[d] = d < dims ? lo[d] : 0.0;
        c.step[d] = d < dims ? step[d] : 0.0;
        c.h[d] = 0.0;
    }
    fill(&c, q, origin, c.n);
    return c.budget;
}
#endif

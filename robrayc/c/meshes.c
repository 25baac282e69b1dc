/* robrayc's compiled collision checker: the pairs with a mesh, decided on its triangles in
 * double (convex.c's helpers; pasted right after it). A generated checker holds this file
 * verbatim too.
 *
 * A mesh is its triangles (a surface, as the exact checker's FCL triangle soups): each mesh
 * solid's triangles under a tree of spheres in its group's frame (robrayc.analysis.collision.
 * triangles; TNODE x, y, z, radius; TBOX its oriented box: rotation row-major with the box
 * axes as columns, centre, half extents; TKID internal { first child, 2 }, leaf { first
 * triangle, -count }; TRI 9 coordinates; TROOT per solid, -1: no triangles).
 * CHECKER_TRIANGLES says where they are: 0 nowhere (a pair with a mesh stays MAYBE), 1 static
 * tables of the generated checker, 2 bound at run time (checker_tbind; robrayc's own build,
 * whose triangles.c proves pairs apart over boxes of configurations on the same trees).
 *
 * decide_pair (convex.c) settles a pair with a mesh, triangle by triangle under the trees'
 * spheres: COLLIDES on a certificate that holds whatever the rounding (a point of a triangle
 * inside a box or sphere by more than DECIDE_GAP; an edge of one triangle through the inside
 * of another, its ends more than DECIDE_GAP off the other's plane, the crossing more than
 * DECIDE_GAP inside its edges), FREE when every triangle near the other solid is farther from
 * it than DECIDE_GAP (a separating axis with that gap; tri_near for two triangles), else
 * MAYBE (convex.c says why DECIDE_GAP).
 */

#if CHECKER_TRIANGLES == 2
/* the trees, bound at run time; TLEV per node, how fast its points move per unit of each
 * variable (triangles.c's proofs only; may be bound as zeros) */
static const double (*TNODE)[4], (*TRI)[9], (*TBOX)[15];
static const int (*TKID)[2], *TROOT;
static const float *TLEV;

void checker_tbind(const double *node, const int *kid, const double *tri, const int *root,
                   const float *lev, const double *box)
{
    TBOX = (const double (*)[15])box;
    TNODE = (const double (*)[4])node;
    TKID = (const int (*)[2])kid;
    TRI = (const double (*)[9])tri;
    TROOT = root;
    TLEV = lev;
}
#endif

#if CHECKER_TRIANGLES
/* squared distance of segments p1 q1 and p2 q2 */
static double seg_seg2(const double *p1, const double *q1, const double *p2, const double *q2)
{
    double x[3];
    return seg_gap(p1, q1, p2, q2, x);
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

/* are triangles u and v (9 coordinates each) farther than g apart along an axis of their frame */
static int tri_boxes_apart(const double *u, const double *v, double g)
{
    int i, k;
    for (k = 0; k < 3; k++) {
        double ulo = u[k], uhi = u[k], vlo = v[k], vhi = v[k];
        for (i = 3; i < 9; i += 3) {
            if (u[i + k] < ulo) ulo = u[i + k];
            if (u[i + k] > uhi) uhi = u[i + k];
            if (v[i + k] < vlo) vlo = v[i + k];
            if (v[i + k] > vhi) vhi = v[i + k];
        }
        if (vlo - uhi > g || ulo - vhi > g) return 1;
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
    if (tri_boxes_apart(u, v, g)) return 0;
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

/* --- certificates: COLLIDES (1), FREE (0) or neither (2) ----------------------------------- */

/* does an edge of triangle v pass through the inside of triangle u: its ends more than
 * DECIDE_GAP on either side of u's plane, the crossing more than DECIDE_GAP inside u's edges */
static int crosses(const double *u, const double *v)
{
    double e1[3], e2[3], n[3], len;
    int i, k;
    sub3(u + 3, u, e1); sub3(u + 6, u, e2);
    cross3(e1, e2, n);
    len = sqrt(dot3(n, n));
    if (!(len > 0.0)) return 0;
    for (k = 0; k < 3; k++) n[k] /= len;
    for (i = 0; i < 3; i++) {
        const double *p = v + 3 * i, *q = v + 3 * ((i + 1) % 3);
        double w[3], sp, sq, x[3];
        int inside = 1;
        sub3(p, u, w); sp = dot3(w, n);
        sub3(q, u, w); sq = dot3(w, n);
        if (!((sp > DECIDE_GAP && sq < -DECIDE_GAP) || (sp < -DECIDE_GAP && sq > DECIDE_GAP)))
            continue;
        for (k = 0; k < 3; k++) x[k] = p[k] + (q[k] - p[k]) * (sp / (sp - sq));
        for (k = 0; k < 3 && inside; k++) {  /* its distance inside each edge's line */
            const double *a = u + 3 * k, *b = u + 3 * ((k + 1) % 3);
            double e[3], c[3], el;
            sub3(b, a, e); sub3(x, a, w); cross3(e, w, c);
            el = sqrt(dot3(e, e));
            inside = dot3(c, n) > DECIDE_GAP * el;
        }
        if (inside) return 1;
    }
    return 0;
}

/* triangles u and v: crossing (certain) first, which is quicker than tri_near's proof */
static int tri_tri(const double *u, const double *v)
{
    if (tri_boxes_apart(u, v, DECIDE_GAP)) return 0;
    if (crosses(u, v) || crosses(v, u)) return 1;
    return tri_near(u, v, DECIDE_GAP) ? 2 : 0;
}

/* the point of triangle v nearest the origin (Ericson 5.1.5), in out */
static void nearest_on_triangle(const double *v, double *out)
{
    const double *a = v, *b = v + 3, *c = v + 6;
    double ab[3], ac[3], ap[3], bp[3], cp[3], d1, d2, d3, d4, d5, d6, va, vb, vc, s, t;
    int k;
    sub3(b, a, ab); sub3(c, a, ac);
    for (k = 0; k < 3; k++) { ap[k] = -a[k]; bp[k] = -b[k]; cp[k] = -c[k]; }
    d1 = dot3(ab, ap); d2 = dot3(ac, ap);
    if (d1 <= 0.0 && d2 <= 0.0) { for (k = 0; k < 3; k++) out[k] = a[k]; return; }
    d3 = dot3(ab, bp); d4 = dot3(ac, bp);
    if (d3 >= 0.0 && d4 <= d3) { for (k = 0; k < 3; k++) out[k] = b[k]; return; }
    vc = d1 * d4 - d3 * d2;
    if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) {
        s = d1 / (d1 - d3);
        for (k = 0; k < 3; k++) out[k] = a[k] + s * ab[k];
        return;
    }
    d5 = dot3(ab, cp); d6 = dot3(ac, cp);
    if (d6 >= 0.0 && d5 <= d6) { for (k = 0; k < 3; k++) out[k] = c[k]; return; }
    vb = d5 * d2 - d1 * d6;
    if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) {
        t = d2 / (d2 - d6);
        for (k = 0; k < 3; k++) out[k] = a[k] + t * ac[k];
        return;
    }
    va = d3 * d6 - d5 * d4;
    if (va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0) {
        s = (d4 - d3) / ((d4 - d3) + (d5 - d6));
        for (k = 0; k < 3; k++) out[k] = b[k] + s * (c[k] - b[k]);
        return;
    }
    s = 1.0 / (va + vb + vc);
    t = vc * s;
    s *= vb;
    for (k = 0; k < 3; k++) out[k] = a[k] + s * ab[k] + t * ac[k];
}

/* triangle v against the sphere of radius r at the origin */
static int tri_sphere(const double *v, double r)
{
    double p[3], d;
    nearest_on_triangle(v, p);
    d = sqrt(dot3(p, p));
    return d < r - DECIDE_GAP ? 1 : d > r + DECIDE_GAP ? 0 : 2;
}

/* is there an axis (the box's three, the triangle's normal, the nine crosses of their edges)
 * along which triangle v lies farther than DECIDE_GAP from the box of half extents h at the
 * origin */
static int tri_box_apart(const double *v, const double *h)
{
    double e[3][3], n[3];
    int i, j, k;
    for (k = 0; k < 3; k++) {
        double lo = v[k], hi = v[k];
        for (i = 3; i < 9; i += 3) {
            if (v[i + k] < lo) lo = v[i + k];
            if (v[i + k] > hi) hi = v[i + k];
        }
        if (lo > h[k] + DECIDE_GAP || hi < -h[k] - DECIDE_GAP) return 1;
    }
    for (i = 0; i < 3; i++) sub3(v + 3 * ((i + 1) % 3), v + 3 * i, e[i]);
    cross3(e[0], e[1], n);
    for (j = -1; j < 9; j++) {  /* -1: the normal; else box axis j / 3 across edge j % 3 */
        double a[3], p0, p1, p2, lo, hi, r, len;
        if (j < 0) {
            for (k = 0; k < 3; k++) a[k] = n[k];
        } else {
            double unit[3] = { 0.0, 0.0, 0.0 };
            unit[j / 3] = 1.0;
            cross3(unit, e[j % 3], a);
        }
        len = sqrt(dot3(a, a));
        if (!(len > 0.0)) continue;
        p0 = dot3(a, v); p1 = dot3(a, v + 3); p2 = dot3(a, v + 6);
        lo = p0 < p1 ? (p0 < p2 ? p0 : p2) : (p1 < p2 ? p1 : p2);
        hi = p0 > p1 ? (p0 > p2 ? p0 : p2) : (p1 > p2 ? p1 : p2);
        r = h[0] * fabs(a[0]) + h[1] * fabs(a[1]) + h[2] * fabs(a[2]);
        if (lo > r + DECIDE_GAP * len || hi < -r - DECIDE_GAP * len) return 1;
    }
    return 0;
}

/* the polygon poly (n corners) clipped to s x[k] <= h (s = 1 or -1); its corners left */
/* cppcheck-suppress constParameter ; C99 converts double (*)[3] to const only with a cast */
static int clip(double poly[][3], int n, int k, double s, double h, double out[][3])
{
    int i, m = 0;
    for (i = 0; i < n; i++) {
        const double *p = poly[i], *q = poly[(i + 1) % n];
        double dp = s * p[k] - h, dq = s * q[k] - h;
        int j;
        if (dp <= 0.0) { for (j = 0; j < 3; j++) out[m][j] = p[j]; m++; }
        if ((dp < 0.0 && dq > 0.0) || (dp > 0.0 && dq < 0.0)) {
            double t = dp / (dp - dq);
            for (j = 0; j < 3; j++) out[m][j] = p[j] + t * (q[j] - p[j]);
            m++;
        }
    }
    return m;
}

/* triangle v against the box of half extents h at the origin: COLLIDES when the mean corner
 * of the triangle clipped to the box (a point of both: they are convex) lies inside the box
 * by more than DECIDE_GAP */
static int tri_box(const double *v, const double *h)
{
    double a[12][3], b[12][3], c[3] = { 0.0, 0.0, 0.0 }, depth = HUGE_VAL;
    int i, k, n = 3;
    for (i = 0; i < 3; i++) {
        for (k = 0; k < 3; k++) a[i][k] = v[3 * i + k];
        if (fabs(a[i][0]) < h[0] - DECIDE_GAP && fabs(a[i][1]) < h[1] - DECIDE_GAP
            && fabs(a[i][2]) < h[2] - DECIDE_GAP) return 1;  /* a corner inside */
    }
    if (tri_box_apart(v, h)) return 0;
    for (k = 0; k < 3 && n > 0; k++) {  /* each clip adds at most one corner: <= 9 */
        n = clip(a, n, k, 1.0, h[k], b);
        n = clip(b, n, k, -1.0, h[k], a);
    }
    if (n == 0) return 2;
    for (i = 0; i < n; i++)
        for (k = 0; k < 3; k++) c[k] += a[i][k] / n;
    for (k = 0; k < 3; k++)
        if (h[k] - fabs(c[k]) < depth) depth = h[k] - fabs(c[k]);
    return depth > DECIDE_GAP ? 1 : 2;
}

/* triangle v against the cylinder of radius r and half length hh at the origin (axis z):
 * COLLIDES when a corner, or the point where the axis passes through the triangle, lies
 * inside it by more than DECIDE_GAP, or its point nearest one of 5 points of the axis; FREE
 * on an axis (those nearest points' lines, the triangle's normal, the cylinder's,
 * their crosses with the edges, the lines between the axis' and each edge's closest points,
 * the lines to the triangle's point nearest the centre) along
 * which they lie farther apart than DECIDE_GAP */
static int tri_cylinder(const double *v, double r, double hh)
{
    double axes[16][3], z[3] = { 0.0, 0.0, 1.0 }, e[3], seg[9], p[3];
    int i, k, n = 0;
    for (i = 0; i < 3; i++)
        if (cyl_distance(v + 3 * i, r, hh) < -DECIDE_GAP) return 1;
    for (i = 0; i < 5; i++) {  /* the triangle's points nearest 5 points of the axis */
        double w[9], zi = hh * (0.5 * i - 1.0);
        for (k = 0; k < 9; k++) w[k] = v[k] - (k % 3 == 2 ? zi : 0.0);
        nearest_on_triangle(w, axes[n]);
        p[0] = axes[n][0]; p[1] = axes[n][1]; p[2] = axes[n][2] + zi;
        if (cyl_distance(p, r, hh) < -DECIDE_GAP) return 1;
        n++;
    }
    for (k = 0; k < 9; k++) seg[k] = 0.0;
    seg[2] = -hh;
    seg[5] = seg[8] = hh;
    if (r > DECIDE_GAP && hh > 2.0 * DECIDE_GAP) {  /* the axis, its ends DECIDE_GAP inside */
        seg[2] += DECIDE_GAP;
        seg[5] = seg[8] = hh - DECIDE_GAP;
        if (crosses(v, seg)) return 1;
        seg[2] = -hh;
        seg[5] = seg[8] = hh;
    }
    for (i = 0; i < 3; i++)  /* the lines between the axis' and each edge's closest points */
        (void)seg_gap(v + 3 * i, v + 3 * ((i + 1) % 3), seg, seg + 3, axes[n++]);
    sub3(v + 3, v, e);
    sub3(v + 6, v, p);
    cross3(e, p, axes[n++]);
    for (k = 0; k < 3; k++) axes[n][k] = z[k];
    n++;
    for (i = 0; i < 3; i++) {
        sub3(v + 3 * ((i + 1) % 3), v + 3 * i, e);
        cross3(z, e, axes[n++]);
    }
    nearest_on_triangle(v, p);
    for (k = 0; k < 3; k++) axes[n][k] = p[k];
    n++;
    axes[n][0] = p[0]; axes[n][1] = p[1]; axes[n][2] = 0.0;
    n++;
    for (k = 0; k < n; k++) {
        const double *a = axes[k];
        double len = sqrt(dot3(a, a)), p0, p1, p2, lo, hi, s;
        if (!(len > 0.0)) continue;
        p0 = dot3(a, v); p1 = dot3(a, v + 3); p2 = dot3(a, v + 6);
        lo = p0 < p1 ? (p0 < p2 ? p0 : p2) : (p1 < p2 ? p1 : p2);
        hi = p0 > p1 ? (p0 > p2 ? p0 : p2) : (p1 > p2 ? p1 : p2);
        s = r * sqrt(a[0] * a[0] + a[1] * a[1]) + hh * fabs(a[2]);
        if (lo > s + DECIDE_GAP * len || hi < -s - DECIDE_GAP * len) return 0;
    }
    return 2;
}

/* --- the trees (their nodes' boxes: nodeboxes.c) ------------------------------------------ */

/* the triangles under node n of a mesh's tree against solid s (a sphere or box) of the frame
 * m maps the mesh's group frame to: 1 at a certain hit, else 0 (*open set when one could not
 * be decided) */
static int mesh_solid(int n, const double *m, const struct solid *s, int *open)
{
    double c[3], gap;
    int k;
    apply_d(m, TNODE[n], c);
    gap = s->exact == 0 ? sqrt(dot3(c, c)) - s->half[0] : box_distance(c, s->half);
    if (gap > TNODE[n][3] + DECIDE_GAP || apart_box(TBOX[n], m, s->exact == 0 ? 0 : s->half,
                                                    s->half[0])) return 0;
    if (TKID[n][1] > 0) {
        for (k = TKID[n][0]; k < TKID[n][0] + TKID[n][1]; k++)
            if (mesh_solid(k, m, s, open)) return 1;
        return 0;
    }
    for (k = TKID[n][0]; k < TKID[n][0] - TKID[n][1]; k++) {
        double v[9];
        int i, r;
        for (i = 0; i < 3; i++) apply_d(m, TRI[k] + 3 * i, v + 3 * i);
        r = s->exact == 0 ? tri_sphere(v, s->half[0])
            : s->exact == 1 ? tri_box(v, s->half) : tri_cylinder(v, s->half[0], s->half[2]);
        if (r == 1) return 1;
        *open |= r == 2;
    }
    return 0;
}

/* is node n apart from node `kept`, given as moved into n's frame: its box w (half extents h,
 * grown: grown_box) and d2, the squared distance of their centres */
static int nodes_apart(int n, int kept, double d2, const double *w, const double *h)
{
    const double reach = TNODE[n][3] + TNODE[kept][3] + DECIDE_GAP;
    return d2 > reach * reach || boxes_apart_at(TBOX[n], w, h);
}

static int nodes_hulls_apart(int na, int nb, const double *t);  /* (hulls.c) */

/* where mesh_mesh writes every crossing it finds, rather than stop at the first (at build
 * time: triangles.c's checker_crossings): rows of 4 ints, tag[0], tag[1] and the two
 * triangles, at most max of them */
struct crossing_log { int *out; long n, max; int tag[2]; };

/* the triangles under nodes na (frame a) and nb (frame b) of two meshes' trees, whose
 * spheres and boxes meet (t: b -> a, u: a -> b): 1 at a certain hit, else 0 (*open as
 * mesh_solid). The larger node is split (an internal node has two children): the other's box
 * is moved into its frame once for both children, and each child tested against it, the
 * nearer first; then, where both nodes of the pair have hull points (a root, or a node
 * HULL_DEPTH below one: robrayc.analysis.collision.triangles), a plane between their hulls
 * (hulls.c's nodes_hulls_apart; the roots' own pair is never tried here, the lanes' hull
 * proof tried it: only a pair a split makes is). UR5's third wrist link against the
 * sixteenths of its forearm: most of their search saved when they are near but apart. The
 * order changes no answer (every child is opened until a certain hit) but finds a hit
 * sooner: a pair that collides crosses where the two meshes meet, most often near their
 * nodes' nearest centres (UR5's colliding configurations, their time in decide_meshes
 * about halved; docs/performance.md). With a log, every crossing is written there and the
 * search goes on (0) */
static int mesh_mesh(int na, int nb, const double *t, const double *u, int *open,
                     struct crossing_log *log)
{
    const int split_b = TKID[nb][1] > 0 && (TKID[na][1] < 0 || TNODE[nb][3] >= TNODE[na][3]);
    const int kept = split_b ? na : nb, first = TKID[split_b ? nb : na][0];
    double w[12], h[3], o[3], d2[2];
    int k, near;
    if (TKID[na][1] < 0 && TKID[nb][1] < 0) {
        int i, j;
        for (j = TKID[nb][0]; j < TKID[nb][0] - TKID[nb][1]; j++) {
            double v[9];
            for (k = 0; k < 3; k++) apply_d(t, TRI[j] + 3 * k, v + 3 * k);
            for (i = TKID[na][0]; i < TKID[na][0] - TKID[na][1]; i++) {
                int r = tri_tri(TRI[i], v);
                if (r == 1 && !log) return 1;
                if (r == 1 && log->n < log->max) {
                    int *row = log->out + 4 * log->n++;
                    row[0] = log->tag[0]; row[1] = log->tag[1]; row[2] = i; row[3] = j;
                }
                *open |= r == 2;
            }
        }
        return 0;
    }
    apply_d(split_b ? u : t, TNODE[kept], o);  /* the node kept, in the split one's frame */
    grown_box(TBOX[kept], split_b ? u : t, w, h);
    for (k = 0; k < 2; k++) {
        double d[3];
        sub3(TNODE[first + k], o, d);
        d2[k] = dot3(d, d);
    }
    near = d2[1] < d2[0];
    for (k = 0; k < 2; k++) {
        const int c = k ? !near : near, ca = split_b ? na : first + c;
        const int cb = split_b ? first + c : nb;
        if (nodes_apart(first + c, kept, d2[c], w, h) || nodes_hulls_apart(ca, cb, t)) continue;
        if (mesh_mesh(ca, cb, t, u, open, log)) return 1;
    }
    return 0;
}

static int has_triangles(int s)
{
    return TROOT[s] >= 0;
}

static int decide_solid(const double *ga, int a, const double *ws, const struct solid *s)
{
    double m[12];
    int open = 0;
    if (TROOT[a] < 0 || s->exact == -1 || s->exact > 1) return 2;
    relative_d(ws, ga, m);
    return mesh_solid(TROOT[a], m, s, &open) ? 1 : open ? 2 : 0;
}

/* 0: no crossing witness is tried (for comparisons: the answers are the same) */
#ifndef CHECKER_WITNESSES
#define CHECKER_WITNESSES 1
#endif

/* does a crossing witness of meshes a and b cross at the pose m (b -> a): pairs of their
 * triangles that crossed at many random configurations when the checker was built
 * (robrayc.analysis.collision.witnesses; XWITS[a] = { first, count } of a's in XWIT, each
 * { partner, a's triangle, the partner's }). A colliding pair most often crosses at one of
 * them: UR5's colliding configurations end here, not after a search (docs/performance.md).
 * The answer is mesh_mesh's: a witness that crosses (by crosses, the certificate of its
 * leaves) lies in node pairs whose spheres and boxes all meet, which it opens until a hit.
 * One whose second triangle lies wholly on one side of the first's plane crosses neither way
 * (a crossing point lies in both planes) and is passed over without crosses (a witness
 * passed over leaves its hit to the search: no answer depends on this test) */
static int witness_crosses(const double *m, int a, int b)
{
    int k, i;
    if (!CHECKER_WITNESSES) return 0;
    for (k = XWITS[a][0]; k < XWITS[a][0] + XWITS[a][1]; k++) {
        const double *u = TRI[XWIT[k][1]];
        double v[9], e1[3], e2[3], n[3], w[3], s[3];
        if (XWIT[k][0] != b) continue;
        for (i = 0; i < 3; i++) apply_d(m, TRI[XWIT[k][2]] + 3 * i, v + 3 * i);
        sub3(u + 3, u, e1); sub3(u + 6, u, e2);
        cross3(e1, e2, n);
        for (i = 0; i < 3; i++) {
            sub3(v + 3 * i, u, w);
            s[i] = dot3(w, n);
        }
        if ((s[0] > 0.0 && s[1] > 0.0 && s[2] > 0.0) || (s[0] < 0.0 && s[1] < 0.0 && s[2] < 0.0))
            continue;
        if (crosses(u, v) || crosses(v, u)) return 1;
    }
    return 0;
}

/* lane l's pose of group s (out: 12 doubles) from the lanes' poses g[group][entry][lane]
 * (lanes.c's block's g, flat) */
static void lane_pose(const double *g, int s, int l, double *out)
{
    int i;
    for (i = 0; i < 12; i++) out[i] = g[(s * 12 + i) * 8 + l];
}

/* does a crossing witness of meshes a and b cross in lane l of group poses g (lanes.c's
 * block's double poses g[group][entry][lane], flat): the two collide there for certain, which
 * passes.c's check_first answers first. No answer depends on it: such a lane is still
 * answered by check1 (which tries the same witness at fk's poses) */
static int lane_witness_crosses(const double *g, int a, int b, int l)
{
    double ga[12], gb[12], m[12];
    if (!CHECKER_WITNESSES || !XWITS[a][1] || !has_triangles(a) || !has_triangles(b)) return 0;
    lane_pose(g, SOLID[a].group, l, ga);
    lane_pose(g, SOLID[b].group, l, gb);
    relative_d(ga, gb, m);
    return witness_crosses(m, a, b);
}

/* two meshes a and b (with triangles) at group poses g: their roots' spheres and boxes, their
 * crossing witnesses, then mesh_mesh */
static int decide_meshes(double g[][12], int a, int b)
{
    const double *ga = g[SOLID[a].group], *gb = g[SOLID[b].group];
    const int ra = TROOT[a], rb = TROOT[b];
    double m[12], back[12], w[12], h[3], pb[3], d[3];
    int open = 0;
    relative_d(ga, gb, m);
    apply_d(m, TNODE[rb], pb);
    sub3(TNODE[ra], pb, d);
    grown_box(TBOX[rb], m, w, h);
    if (nodes_apart(ra, rb, dot3(d, d), w, h)) return 0;
    if (witness_crosses(m, a, b)) return 1;
    relative_d(gb, ga, back);
    return mesh_mesh(ra, rb, m, back, &open, 0) ? 1 : open ? 2 : 0;
}
#else
static int has_triangles(int s)
{
    (void)s;
    return 0;
}

static int decide_solid(const double *ga, int a, const double *ws, const struct solid *s)
{
    (void)ga;
    (void)a;
    (void)ws;
    (void)s;
    return 2;
}

static int lane_witness_crosses(const double *g, int a, int b, int l)
{
    (void)g;
    (void)a;
    (void)b;
    (void)l;
    return 0;
}

static int decide_meshes(double g[][12], int a, int b)
{
    (void)g;
    (void)a;
    (void)b;
    return 2;
}
#endif

/* robrayc's compiled collision checker: points given at run time (checker_set_points: x, y, z
 * and a radius each, a point cloud or a sphere cover), each a sphere obstacle. Compiled after
 * obstacles.c (its ENV holds the points; its env_check and attached1 call env_points, declared
 * there); a generated checker holds this file verbatim too.
 *
 * The points are sorted into cubic cells (counting sort; at most 4 n + 4096 cells over the
 * cloud's box); a moving solid (or an attached shape) visits the cells its bounding sphere
 * reaches, skips those its bounding box misses, then tests each point within reach as a
 * sphere: a sphere or box solid exactly, else its sphere tree and a mesh's triangles
 * (meshes.c's decide_solid), as obstacles.c tests a sphere obstacle.
 */

/* --- the grid ------------------------------------------------------------------------------ */

/* the mean bounding radius of the robot's moving solids (the cells' width) */
static double moving_radius(void)
{
    double sum = 0.0;
    int s, m = 0;
    for (s = 0; s < NS; s++)
        if (SOLID[s].group) { sum += SOLID[s].bound[3]; m++; }
    return m ? sum / m : 0.0;
}

/* the cell of coordinate x along axis d, clamped to the grid */
static long cell_of(double x, int d)
{
    double i = floor((x - ENV.lo[d]) * ENV.inv);
    if (!(i >= 0.0)) return 0;
    return i >= (double)ENV.dims[d] ? ENV.dims[d] - 1 : (long)i;
}

static long cell_index(const double *p)
{
    return (cell_of(p[0], 0) * ENV.dims[1] + cell_of(p[1], 1)) * ENV.dims[2] + cell_of(p[2], 2);
}

/* the cells' grid over the points' box (lo, hi): at most 4 n + 4096 cells */
static long make_grid(const double *lo, const double *hi, long n)
{
    double width = 2.0 * ENV.rmax, mean = moving_radius(), cells;
    int d;
    if (width < mean) width = mean;
    if (!(width > 0.0)) width = 1.0;
    for (;;) {
        cells = 1.0;
        for (d = 0; d < 3; d++) cells *= floor((hi[d] - lo[d]) / width) + 1.0;
        if (cells <= 4.0 * (double)n + 4096.0) break;
        width *= 1.25;
    }
    for (d = 0; d < 3; d++) {
        ENV.lo[d] = lo[d];
        ENV.dims[d] = (long)floor((hi[d] - lo[d]) / width) + 1;
    }
    ENV.inv = 1.0 / width;
    return (long)cells;
}

int checker_set_points(const double *xyzr, long n)
{
    double lo[3] = { 0.0, 0.0, 0.0 }, hi[3] = { 0.0, 0.0, 0.0 }, *pt = 0, rmax = 0.0;
    long k, cells = 0, *start = 0, *at = 0, *given = 0;
    int d;
    if (n < 0 || (n > 0 && !xyzr)) return -1;
    for (k = 0; k < n; k++) {
        for (d = 0; d < 4; d++) if (!isfinite(xyzr[4 * k + d])) return -1;
        if (!(xyzr[4 * k + 3] >= 0.0)) return -1;
        for (d = 0; d < 3; d++) {
            double x = xyzr[4 * k + d];
            if (k == 0 || x < lo[d]) lo[d] = x;
            if (k == 0 || x > hi[d]) hi[d] = x;
        }
        if (xyzr[4 * k + 3] > rmax) rmax = xyzr[4 * k + 3];
    }
    if (n) {
        double keep[8];  /* the grid before, kept if memory runs out */
        for (d = 0; d < 3; d++) keep[d] = ENV.lo[d], keep[3 + d] = (double)ENV.dims[d];
        keep[6] = ENV.inv;
        keep[7] = ENV.rmax;
        ENV.rmax = rmax;
        cells = make_grid(lo, hi, n);
        pt = (double *)malloc((size_t)n * 4 * sizeof *pt);
        start = (long *)calloc((size_t)cells + 1, sizeof *start);
        at = (long *)malloc((size_t)cells * sizeof *at);
        given = (long *)malloc((size_t)n * sizeof *given);
        if (!pt || !start || !at || !given) {
            free(pt);
            free(start);
            free(at);
            free(given);
            for (d = 0; d < 3; d++) ENV.lo[d] = keep[d], ENV.dims[d] = (long)keep[3 + d];
            ENV.inv = keep[6];
            ENV.rmax = keep[7];
            return -2;
        }
    }
    free(ENV.pt);
    free(ENV.start);
    free(ENV.given);
    ENV.pt = 0;
    ENV.start = ENV.given = 0;
    ENV.np = 0;
    if (!n) return 0;
    for (k = 0; k < n; k++) start[cell_index(xyzr + 4 * k) + 1]++;
    for (k = 0; k < cells; k++) start[k + 1] += start[k];
    for (k = 0; k < cells; k++) at[k] = start[k];
    for (k = 0; k < n; k++) {
        long c = at[cell_index(xyzr + 4 * k)]++;
        for (d = 0; d < 4; d++) pt[4 * c + d] = xyzr[4 * k + d];
        given[c] = k;
    }
    free(at);
    ENV.pt = pt;
    ENV.start = start;
    ENV.given = given;
    ENV.np = n;
    return 0;
}

/* --- tests --------------------------------------------------------------------------------- */

/* does a node of the tree under n (frame a) reach the sphere (centre p, radius r, frame a) */
static int point_tree(int n, const float *p, float r)
{
    int k;
    if (!near1(p, NODE[n], NODE[n][3] + r)) return 0;
    if (!KID[n][1]) return KID[n][0] < 0 || box_point(LEAF[KID[n][0]], p, r);
    for (k = KID[n][0]; k < KID[n][0] + KID[n][1]; k++)
        if (point_tree(k, p, r)) return 1;
    return 0;
}

/* the point sphere x (x, y, z, r; world) as a world solid */
static struct solid point_solid(const double *x)
{
    struct solid s = { 0, 0, 0, 0, { 0.0f }, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 },
                       { 0.0 }, { 0.0 } };
    int k;
    for (k = 0; k < 3; k++) s.pose[9 + k] = x[k];
    s.half[0] = x[3];
    return s;
}

/* moving solid a against the point sphere x (x, y, z, r; world) at group poses g: a sphere
 * or box solid exactly, else its tree (the point moved into a's group frame in double, its
 * radius grown by MARGIN_RATE for the rounding of its coordinates there) */
static int point_pair(double g[][12], int a, const double *x, int skip)
{
    const struct solid *sa = &SOLID[a];
    const double *ga = g[sa->group];
    double d[3];
    float p[3], r;
    int k;
    if (sa->exact >= 0) {
        struct solid s = point_solid(x);
        return exact_pair(ga, g[0], sa, &s);
    }
    if (skip) return 0;
    for (k = 0; k < 3; k++) d[k] = x[k] + g[0][9 + k] - ga[9 + k];  /* g[0]: -o, moved */
    for (k = 0; k < 3; k++) p[k] = (float)(ga[k] * d[0] + ga[3 + k] * d[1] + ga[6 + k] * d[2]);
    r = up(x[3] * (1.0 + MARGIN_RATE));
    if (!box_point(BOX[a], p, r) || !point_tree(sa->root, p, r)) return 0;
    {
        struct solid s = point_solid(x);
        double ws[12];
        mul(g[0], s.pose, ws);
        return decide_solid(ga, a, ws, &s);  /* a mesh's triangles (meshes.c) */
    }
}

/* attached shape t (group poses g) against the point sphere x: exact, every kind */
static int shape_point(double g[][12], const struct envshape *t, const double *x)
{
    struct solid p = point_solid(x);
    double wt[12];
    if (t->s.exact >= 0) return exact_pair(g[0], g[t->s.group], &p, &t->s);
    mul(g[t->s.group], t->s.pose, wt);
    return sphere_round(g[0], &p, t, wt);
}

/* solid a's bounding box (BOX) in the world at group poses g (moved by world_frame: g[0]
 * holds -o): centre, then its axes (rows of axis) */
static void world_box_double(double g[][12], int a, double *centre, double *axis)
{
    const double *ga = g[SOLID[a].group];
    const float *b = BOX[a];
    int i, j;
    for (i = 0; i < 3; i++) {
        centre[i] = ga[3 * i] * b[0] + ga[3 * i + 1] * b[1] + ga[3 * i + 2] * b[2] + ga[9 + i]
                    - g[0][9 + i];
        for (j = 0; j < 3; j++)
            axis[3 * j + i] = ga[3 * i] * b[3 + j] + ga[3 * i + 1] * b[6 + j]
                              + ga[3 * i + 2] * b[9 + j];
    }
}

/* does the box (centre, axis rows, half extents h) reach the sphere (p, r), in double */
static int box_reaches(const double *centre, const double *axis, const float *h,
                       const double *p, double r)
{
    double d[3], e2 = 0.0;
    int j;
    for (j = 0; j < 3; j++) d[j] = p[j] - centre[j];
    for (j = 0; j < 3; j++) {
        double e = fabs(axis[3 * j] * d[0] + axis[3 * j + 1] * d[1] + axis[3 * j + 2] * d[2])
                   - h[j];
        if (e > 0.0) e2 += e * e;
    }
    return e2 <= r * r;
}

/* moving solid a, or attached shape t when not NULL (bounding sphere: world centre w, radius
 * r) against the points: FREE, COLLIDES or MAYBE (skip as env_pair); with a log, every pair
 * tested, noted there. A solid skips the cells its bounding box (BOX) misses. */
static int env_points(double g[][12], int a, const struct envshape *t, const double *w,
                      double r, int skip, struct envlog *log)
{
    long lo[3], hi[3], i, j, k, p;
    int d, maybe = 0;
    double box[3], axis[9], cell[3], half = 0.5 / ENV.inv;
    double cell_r = (sqrt(3.0) * half + ENV.rmax) * (1.0 + MARGIN_RATE);  /* a cell's points */
    if (!t) world_box_double(g, a, box, axis);
    for (d = 0; d < 3; d++) {
        double reach = r + ENV.rmax;
        if (w[d] + reach < ENV.lo[d] || (w[d] - reach - ENV.lo[d]) * ENV.inv
            >= (double)ENV.dims[d]) return 0;
        lo[d] = cell_of(w[d] - reach, d);
        hi[d] = cell_of(w[d] + reach, d);
    }
    for (i = lo[0]; i <= hi[0]; i++)
        for (j = lo[1]; j <= hi[1]; j++)
            for (k = lo[2]; k <= hi[2]; k++) {
                long c = (i * ENV.dims[1] + j) * ENV.dims[2] + k;
                if (ENV.start[c] == ENV.start[c + 1]) continue;
                cell[0] = ENV.lo[0] + (2 * i + 1) * half;
                cell[1] = ENV.lo[1] + (2 * j + 1) * half;
                cell[2] = ENV.lo[2] + (2 * k + 1) * half;
                if (!t && !box_reaches(box, axis, BOX[a] + 12, cell, cell_r)) continue;
                for (p = ENV.start[c]; p < ENV.start[c + 1]; p++) {
                    const double *x = ENV.pt + 4 * p;
                    double dx = x[0] - w[0], dy = x[1] - w[1], dz = x[2] - w[2];
                    double rs = r + x[3] * (1.0 + MARGIN_RATE);
                    int s;
                    if (dx * dx + dy * dy + dz * dz > rs * rs) continue;
                    s = t ? shape_point(g, t, x)
                          : point_pair(g, a, x, !log && (skip || maybe));
                    if (log && s) note(log, a, -1 - ENV.given[p], s);
                    else if (s == 1) return 1;
                    maybe |= s == 2;
                }
            }
    return maybe ? 2 : 0;
}

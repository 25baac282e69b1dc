/* robrayc's compiled collision checker: obstacles given at run time (boxes, spheres,
 * cylinders, capsules and points as spheres), tested against the robot's moving solids by
 * every check (check1 calls env_check; lanes.c tests them in its lanes too). Compiled after
 * checker_kernel.c, before points.c and cylinders.c; a generated checker holds this file
 * verbatim too.
 *
 * checker_set_obstacles and checker_set_points copy what they are given (the only allocation
 * of the checker: malloc, freed when replaced) and make their tables; they are not to be
 * called while a check runs in another thread.
 *
 * Tests, per moving solid: its bounding sphere against the obstacles' 8 at a time (the
 * kernel's near_block, AVX2 or scalar; the obstacles' radii grown for their rounding), then
 * per obstacle near it: a sphere or box solid against a sphere or box obstacle by the exact
 * closed forms (exact_pair, in double: COLLIDES or FREE); the others by the solid's certified
 * sphere tree against the obstacle (each node's sphere against the obstacle's exact shape, a
 * leaf's box against the obstacle's box, or its bounding box for a cylinder or capsule), MAYBE
 * when a leaf still reaches it, COLLIDES when one of the solid's witness points (a mesh's
 * vertices, bound at run time) lies inside it; a mesh against a sphere or box (or a point)
 * then by its triangles (meshes.c's decide_solid: COLLIDES, FREE, or MAYBE within its gap).
 * Points: points.c (compiled after this file), each point a sphere obstacle.
 *
 * Precision (checker_kernel.c, "precision"): the robot's margins cover coordinates up to its
 * GROUP_REACH + SOLID_REACH. An obstacle's float tests run in its own frame (the solid's
 * group moved into it in double, then rounded), where coordinates reach the obstacle's size
 * more: its float dimensions grow by MARGIN_RATE times its bounding radius, and its float
 * bounding sphere by MARGIN_RATE times its centre's largest coordinate and radius (the
 * rounding of a float centre), each rounded up; where world_frame moved the test frame, by
 * near_block_at (centres moved in double), with the kernel's slack.
 */

#include <stdlib.h>

#define OBSTACLE_SPHERE 0
#define OBSTACLE_BOX 1
#define OBSTACLE_CYLINDER 2
#define OBSTACLE_CAPSULE 3

/* an obstacle as the kernel holds it: as a world solid (group 0; exact 0 sphere, 1 box, -1
 * neither; pose; half: exact sizes, a cylinder's or capsule's radius and half length) for
 * exact_pair, its kind, and its float sizes for the
 * tree tests, grown (sphere: radius; box: half extents; cylinder: radius, half length;
 * capsule: radius, half length), its bounding box's half extents (grown) and bounding sphere
 * (world, double, exact) */
struct envshape { struct solid s; int kind; float dims[3], hbox[3]; double centre[3], radius; };

static struct {
    int n, blocks;
    struct envshape *shape;
    struct fixblock *lane;  /* bounding spheres, 8 a block (float, radii grown; padding far) */
    long np, *start;      /* points; the first point of each cell (cells + 1) */
    double *pt;           /* x, y, z, r per point, sorted by cell */
    long *given;          /* each sorted point's place in what checker_set_points was given */
    double lo[3], inv, rmax;
    long dims[3];
} ENV;

/* where env_check writes every pair it does not find FREE (checker_obstacle_pairs): the
 * configuration's row, the solid, the obstacle (k >= 0) or point (-1 - its place in
 * checker_set_points' input), the state; at most max, n counts them all */
struct envlog { long n, max; int *solid; long *item; unsigned char *state; };

static void note(struct envlog *log, int a, long item, int state)
{
    if (log->n < log->max) {
        log->solid[log->n] = a;
        log->item[log->n] = item;
        log->state[log->n] = (unsigned char)state;
    }
    log->n++;
}

/* moving solid a, or attached shape t, against the points (points.c) */
static int env_points(double g[][12], int a, const struct envshape *t, const double *w,
                      double r, int skip, struct envlog *log);

/* a float at or above x */
static float up(double x)
{
    float f = (float)x;
    return (double)f >= x ? f : nextafterf(f, HUGE_VALF);
}

static double largest(const double *v, int n)
{
    double m = 0.0;
    int k;
    for (k = 0; k < n; k++) if (fabs(v[k]) > m) m = fabs(v[k]);
    return m;
}

/* out = the point p moved by pose w (rotation row-major, translation), in double */
static void apply_double(const double *w, const double *p, double *out)
{
    int i;
    for (i = 0; i < 3; i++)
        out[i] = w[3 * i] * p[0] + w[3 * i + 1] * p[1] + w[3 * i + 2] * p[2] + w[9 + i];
}

/* is o a valid obstacle: a known kind, finite, sizes >= 0, an orthonormal rotation */
static int valid_obstacle(const struct checker_obstacle *o)
{
    int i, j, k;
    if (o->kind < OBSTACLE_SPHERE || o->kind > OBSTACLE_CAPSULE) return 0;
    for (k = 0; k < 12; k++) if (!isfinite(o->pose[k])) return 0;
    for (k = 0; k < 3; k++) if (!isfinite(o->size[k]) || !(o->size[k] >= 0.0)) return 0;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++) {
            double d = o->pose[i] * o->pose[j] + o->pose[3 + i] * o->pose[3 + j]
                       + o->pose[6 + i] * o->pose[6 + j];
            if (fabs(d - (i == j)) > 1e-6) return 0;
        }
    return 1;
}

/* the kernel's form of obstacle o (valid) */
static void make_shape(const struct checker_obstacle *o, struct envshape *e)
{
    double r = o->size[0], h = o->size[1], half[3], grow;
    int k;
    e->kind = o->kind;
    for (k = 0; k < 12; k++) e->s.pose[k] = o->pose[k];
    e->s.group = 0;
    e->s.fixed_box = 0;
    e->s.root = 0;
    switch (o->kind) {
    case OBSTACLE_SPHERE: half[0] = half[1] = half[2] = r; break;
    case OBSTACLE_BOX: for (k = 0; k < 3; k++) half[k] = o->size[k]; break;
    case OBSTACLE_CYLINDER: half[0] = half[1] = r; half[2] = h; break;
    default: half[0] = half[1] = r; half[2] = h + r; break;
    }
    e->s.exact = o->kind == OBSTACLE_SPHERE ? 0 : o->kind == OBSTACLE_BOX ? 1 : -1;
    for (k = 0; k < 3; k++) {
        e->s.half[k] = o->kind == OBSTACLE_BOX ? half[k] : k == 0 ? r : k == 1 ? h : 0.0;
        e->s.box[k] = half[k];
        e->centre[k] = o->pose[9 + k];
    }
    e->radius = o->kind == OBSTACLE_SPHERE ? r
                : o->kind == OBSTACLE_CAPSULE ? h + r
                : sqrt(half[0] * half[0] + half[1] * half[1] + half[2] * half[2]);
    grow = MARGIN_RATE * e->radius;
    for (k = 0; k < 3; k++) {
        e->hbox[k] = up(half[k] + grow);
        e->dims[k] = up(o->kind == OBSTACLE_BOX ? half[k] + grow
                        : k == 0 ? r + grow : k == 1 ? h + grow : 0.0);
    }
    for (k = 0; k < 4; k++) e->s.bound[k] = 0.0f;
}

int checker_set_obstacles(const struct checker_obstacle *obstacles, int n)
{
    struct envshape *shape = 0;
    struct fixblock *lane = 0;
    int k, blocks = (n + 7) / 8;
    if (n < 0 || (n > 0 && !obstacles)) return -1;
    for (k = 0; k < n; k++) if (!valid_obstacle(&obstacles[k])) return -1;
    if (n > 0) {
        shape = (struct envshape *)malloc((size_t)n * sizeof *shape);
        lane = (struct fixblock *)malloc((size_t)blocks * sizeof *lane);
        if (!shape || !lane) {
            free(shape);
            free(lane);
            return -2;
        }
    }
    for (k = 0; k < blocks * 8; k++) {
        struct fixblock *f = &lane[k / 8];
        float *l[4];
        int d;
        l[0] = &f->x[k % 8];
        l[1] = &f->y[k % 8];
        l[2] = &f->z[k % 8];
        l[3] = &f->r[k % 8];
        f->solid = 0;
        f->partner[k % 8] = f->pair[k % 8] = k < n ? k : -1;
        if (k >= n) {
            *l[0] = *l[1] = *l[2] = 1e18f;
            *l[3] = 0.0f;
            continue;
        }
        make_shape(&obstacles[k], &shape[k]);
        for (d = 0; d < 3; d++) *l[d] = (float)shape[k].centre[d];
        *l[3] = up(shape[k].radius + MARGIN_RATE * (largest(shape[k].centre, 3)
                                                     + shape[k].radius));
    }
    free(ENV.shape);
    free(ENV.lane);
    ENV.shape = shape;
    ENV.lane = lane;
    ENV.n = n;
    ENV.blocks = blocks;
    return 0;
}

/* --- tests --------------------------------------------------------------------------------- */

/* does box o (centre, axes as columns, half extents) reach the sphere (centre p, radius r),
 * both in one frame */
static int box_point(const float *o, const float *p, float r)
{
    float d[3], e2 = 0.0f;
    int j;
    for (j = 0; j < 3; j++) d[j] = p[j] - o[j];
    for (j = 0; j < 3; j++) {
        float e = fabsf(o[3 + j] * d[0] + o[6 + j] * d[1] + o[9 + j] * d[2]) - o[12 + j];
        if (e > 0.0f) e2 += e * e;
    }
    return e2 <= r * r;
}

/* does the sphere (centre p in the obstacle's frame, radius r) reach obstacle e */
static int env_node(const struct envshape *e, const float *p, float r)
{
    const float *d = e->dims;
    float x, z, e2 = 0.0f;
    int k;
    switch (e->kind) {
    case OBSTACLE_SPHERE:
        return p[0] * p[0] + p[1] * p[1] + p[2] * p[2] <= (r + d[0]) * (r + d[0]);
    case OBSTACLE_BOX:
        for (k = 0; k < 3; k++) {
            float o = fabsf(p[k]) - d[k];
            if (o > 0.0f) e2 += o * o;
        }
        return e2 <= r * r;
    case OBSTACLE_CYLINDER:
        x = sqrtf(p[0] * p[0] + p[1] * p[1]) - d[0];
        z = fabsf(p[2]) - d[1];
        if (x > 0.0f) e2 += x * x;
        if (z > 0.0f) e2 += z * z;
        return e2 <= r * r;
    default:
        z = fabsf(p[2]) - d[1];
        e2 = p[0] * p[0] + p[1] * p[1] + (z > 0.0f ? z * z : 0.0f);
        return e2 <= (r + d[0]) * (r + d[0]);
    }
}

/* does box o (frame a: centre, axes, half extents) reach obstacle e (m: frame a -> e's) */
static int env_box(const struct envshape *e, const float *o, const float *m)
{
    static const float zero[3] = { 0.0f, 0.0f, 0.0f };
    if (e->kind == OBSTACLE_SPHERE) return node_box(o, m, zero, e->dims[0]);
    return node_box(o, m, e->kind == OBSTACLE_BOX ? e->dims : e->hbox, 0.0f);
}

/* does a node of the tree under n (frame a) reach obstacle e (m: frame a -> e's) */
static int env_tree(int n, const float *m, const struct envshape *e)
{
    float p[3];
    int k;
    apply(m, NODE[n], p);
    if (!env_node(e, p, NODE[n][3])) return 0;
    if (!KID[n][1]) return KID[n][0] < 0 || env_box(e, LEAF[KID[n][0]], m);
    for (k = KID[n][0]; k < KID[n][0] + KID[n][1]; k++)
        if (env_tree(k, m, e)) return 1;
    return 0;
}

/* does sphere solid a (group pose ga) meet cylinder or capsule e (world pose we): the exact
 * checker's closed forms, in double (a capsule is its cylinder and its end spheres) */
static int sphere_round(const double *ga, const struct solid *a, const struct envshape *e,
                        const double *we)
{
    double w[12], p[3], r = e->s.half[0], h = e->s.half[1];
    double rho, dz, reach = a->half[0] - CONTACT_TOL, d;
    mul(ga, a->pose, w);
    to_local(we, w + 9, p);
    rho = sqrt(p[0] * p[0] + p[1] * p[1]);
    dz = fabs(p[2]) - h;
    if (e->kind == OBSTACLE_CAPSULE) {
        d = p[0] * p[0] + p[1] * p[1] + (dz > 0.0 ? dz * dz : 0.0);
        return d < (reach + r) * (reach + r);
    }
    if (rho <= r && dz <= 0.0) d = rho - r > dz ? rho - r : dz;  /* inside: <= 0 */
    else d = sqrt((rho > r ? (rho - r) * (rho - r) : 0.0) + (dz > 0.0 ? dz * dz : 0.0));
    return d < reach;
}

/* points of each solid (x, y, z in its group's frame, double; solid s's from WIT_FIRST[s] to
 * WIT_FIRST[s + 1]): a mesh's vertices, a round solid's rim points. One deeper than
 * WIT_DEPTH inside an obstacle proves the pair colliding (a mesh's surface, a solid's body
 * passes through it). Bound at run time (checker_bind_witnesses), else none. */
static const double *WIT;
static const int *WIT_FIRST;
#define WIT_DEPTH (CONTACT_TOL + 1e-6)

void checker_bind_witnesses(const double *points, const int *first)
{
    WIT = points;
    WIT_FIRST = first;
}

/* is a witness point of solid a (group pose ga) deeper than WIT_DEPTH inside e (pose we) */
static int witness_inside(int a, const double *ga, const struct envshape *e, const double *we)
{
    double r = e->s.half[0], h = e->s.half[1];
    int k;
    if (!WIT) return 0;
    for (k = WIT_FIRST[a]; k < WIT_FIRST[a + 1]; k++) {
        double w[3], p[3], rho2, z;
        apply_double(ga, WIT + 3 * k, w);
        to_local(we, w, p);
        rho2 = p[0] * p[0] + p[1] * p[1];
        z = fabs(p[2]);
        switch (e->kind) {
        case OBSTACLE_SPHERE:
            if (r > WIT_DEPTH && rho2 + z * z < (r - WIT_DEPTH) * (r - WIT_DEPTH)) return 1;
            break;
        case OBSTACLE_BOX:
            if (fabs(p[0]) < e->s.half[0] - WIT_DEPTH && fabs(p[1]) < e->s.half[1] - WIT_DEPTH
                && z < e->s.half[2] - WIT_DEPTH) return 1;
            break;
        case OBSTACLE_CYLINDER:
            if (r > WIT_DEPTH && rho2 < (r - WIT_DEPTH) * (r - WIT_DEPTH) && z < h - WIT_DEPTH)
                return 1;
            break;
        default:
            z = z > h ? z - h : 0.0;
            if (r > WIT_DEPTH && rho2 + z * z < (r - WIT_DEPTH) * (r - WIT_DEPTH)) return 1;
            break;
        }
    }
    return 0;
}

/* solid sa (its group's pose ga; a robot solid a, or an attached shape's with a = -1) against
 * cylinder or capsule e (world pose we), and attached shape t (its group's pose gt) against
 * one: decided with convex.c's cylinder tests (cylinders.c, compiled after this file) */
static int solid_round(const double *ga, const struct solid *sa, int a,
                       const struct envshape *e, const double *we);
static int shape_round(const double *gt, const struct envshape *t, const struct envshape *e,
                       const double *we);

/* moving solid a (group poses g) against obstacle (or attached shape) e: FREE, COLLIDES or
 * MAYBE; with skip, a test that could only answer MAYBE is not made (FREE) */
static int env_pair(double g[][12], int a, const struct envshape *e, int skip)
{
    const struct solid *sa = &SOLID[a];
    const double *ge = g[e->s.group];  /* the world's, or an attached shape's group */
    double we[12];
    float m[12];
    if (sa->exact >= 0 && e->s.exact >= 0) return exact_pair(g[sa->group], ge, sa, &e->s);
    if (sa->exact == 0) {
        mul(ge, e->s.pose, we);
        return sphere_round(g[sa->group], sa, e, we);
    }
    if (skip) return 0;
    mul(ge, e->s.pose, we);
    relative(we, g[sa->group], m);  /* group a -> the obstacle's frame */
    if (!env_box(e, BOX[a], m) || !env_tree(sa->root, m, e)) return 0;
    if (witness_inside(a, g[sa->group], e, we)) return 1;
    if (e->s.exact == -1)  /* a cylinder or capsule */
        return solid_round(g[sa->group], sa, a, e, we);
    if (sa->exact == -2) {  /* a robot cylinder against a sphere or box */
        double wa[12], me[12];
        mul(g[sa->group], sa->pose, wa);
        relative_d(wa, we, me);
        return cylinder_other(sa, &e->s, me);
    }
    return decide_solid(g[sa->group], a, we, &e->s);  /* a mesh's triangles (meshes.c) */
}

/* attached shape t against obstacle e (group poses g): a sphere or box pair exactly, a
 * sphere against a cylinder or capsule exactly, the others by shape_round (skip: FREE
 * without it) */
static int shape_shape(double g[][12], const struct envshape *t, const struct envshape *e,
                       int skip)
{
    double wt[12], we[12];
    if (t->s.exact >= 0 && e->s.exact >= 0)
        return exact_pair(g[t->s.group], g[e->s.group], &t->s, &e->s);
    mul(g[t->s.group], t->s.pose, wt);
    mul(g[e->s.group], e->s.pose, we);
    if (t->s.exact == 0) return sphere_round(g[t->s.group], &t->s, e, we);
    if (e->s.exact == 0) return sphere_round(g[e->s.group], &e->s, t, wt);
    if (skip) return 0;
    return e->s.exact == -1 ? shape_round(g[t->s.group], t, e, we)
                            : shape_round(g[e->s.group], e, t, wt);
}

/* the shapes attached to each frame (checker_attach: group poses in s, centre in the group's
 * frame) and the solids of the robot they are not tested against (skip[s]) */
static struct attached { int n; struct envshape *shape; unsigned char *skip; } ATT[NF_DECL];
static int N_ATTACHED;  /* frames with shapes */

int checker_attach(int frame, const struct checker_obstacle *shapes, int n, const int *touch,
                   int n_touch)
{
    struct envshape *shape = 0;
    unsigned char *skip = 0;
    int k;
    if (frame < 0 || frame >= NF || n < 0 || (n > 0 && !shapes) || n_touch < 0
        || (n_touch > 0 && !touch)) return -1;
    for (k = 0; k < n; k++) if (!valid_obstacle(&shapes[k])) return -1;
    for (k = 0; k < n_touch; k++) if (touch[k] < 0 || touch[k] >= NF) return -1;
    if (n > 0) {
        shape = (struct envshape *)malloc((size_t)n * sizeof *shape);
        skip = (unsigned char *)malloc(NS_DECL);
        if (!shape || !skip) {
            free(shape);
            free(skip);
            return -2;
        }
        for (k = 0; k < n; k++) {
            struct checker_obstacle o = shapes[k];
            mul(FRAME_POSE[frame], shapes[k].pose, o.pose);  /* in the frame's group */
            make_shape(&o, &shape[k]);
            shape[k].s.group = FRAME_GROUP[frame];
        }
        for (k = 0; k < NS_DECL; k++) {
            int t;
            skip[k] = k >= NS || SOLID[k].group == FRAME_GROUP[frame];
            for (t = 0; t < n_touch && k < NS; t++) skip[k] |= SOLID_FRAME[k] == touch[t];
        }
    }
    N_ATTACHED += (n > 0) - (ATT[frame].n > 0);
    free(ATT[frame].shape);
    free(ATT[frame].skip);
    ATT[frame].n = n;
    ATT[frame].shape = shape;
    ATT[frame].skip = skip;
    return 0;
}

/* does the sphere (c, r) reach the sphere (d, s), in double */
static int spheres_meet(const double *c, double r, const double *d, double s)
{
    double x = c[0] - d[0], y = c[1] - d[1], z = c[2] - d[2];
    return x * x + y * y + z * z <= (r + s) * (r + s);
}

/* attached shape t (world centre w in the frame moved by o, bounding radius r, grown)
 * against the obstacles, the points and the robot's solids but skip (as env_check) */
static int attached1(double g[][12], float centre[3][NS_DECL], const double *o, float slack,
                     const struct envshape *t, const unsigned char *skip, int maybe)
{
    double w[3], c[3], r = t->radius * (1.0 + MARGIN_RATE) + slack;
    int j, d, st, out = 0;
    apply_double(g[t->s.group], t->centre, w);
    for (j = 0; j < ENV.n; j++) {
        const struct envshape *e = &ENV.shape[j];
        for (d = 0; d < 3; d++) c[d] = e->centre[d] - o[d];
        if (!spheres_meet(w, r, c, e->radius * (1.0 + MARGIN_RATE))) continue;
        st = shape_shape(g, t, e, maybe || out);
        if (st == 1) return 1;
        if (st > out) out = st;
    }
    if (ENV.np) {
        for (d = 0; d < 3; d++) c[d] = w[d] + o[d];
        st = env_points(g, 0, t, c, r, 0, 0);
        if (st == 1) return 1;
        if (st > out) out = st;
    }
    for (j = 0; j < NS; j++) {
        for (d = 0; d < 3; d++) c[d] = centre[d][j];
        if (skip[j] || !spheres_meet(w, r, c, SOLID[j].bound[3] + slack)) continue;
        st = env_pair(g, j, t, maybe || out);
        if (st == 1) return 1;
        if (st > out) out = st;
    }
    return out;
}

/* every attached shape (as env_check) */
static int attached_check(double g[][12], float centre[3][NS_DECL], const double *o,
                          float slack, int skip)
{
    int f, k, st, out = 0;
    for (f = 0; f < NF && N_ATTACHED; f++)
        for (k = 0; k < ATT[f].n; k++) {
            st = attached1(g, centre, o, slack, &ATT[f].shape[k], ATT[f].skip, skip || out);
            if (st == 1) return 1;
            if (st > out) out = st;
        }
    return out;
}

/* every moving solid against the obstacles and points at group poses g (solid centres as
 * solid_centres, the frame moved by o, bounding spheres grown by slack): FREE, COLLIDES (the
 * first found) or MAYBE; with skip, no test that could only answer MAYBE; with a log, every
 * pair tested, each that is not FREE noted there */
static int env_check(double g[][12], float centre[3][NS_DECL], const double *o, float slack,
                     int skip, struct envlog *log)
{
    int s, k, far = slack > 0.0f || o[0] != 0.0 || o[1] != 0.0 || o[2] != 0.0, st, out = 0;
    if (N_ATTACHED && !log) {
        out = attached_check(g, centre, o, slack, skip);
        if (out == 1) return 1;
    }
    if (!ENV.blocks && !ENV.np) return out;
    for (s = 0; s < NS; s++) {
        const float c[3] = { centre[0][s], centre[1][s], centre[2][s] };
        float r = SOLID[s].bound[3] + slack;
        int l;
        if (!SOLID[s].group) continue;
        for (k = 0; k < ENV.blocks; k++) {
            unsigned m = far ? near_block_at(&ENV.lane[k], c, r, o)
                             : near_block(&ENV.lane[k], c, r);
            for (l = 0; m; l++, m >>= 1) {
                if (!(m & 1u)) continue;
                st = env_pair(g, s, &ENV.shape[8 * k + l], !log && (skip || out));
                if (log && st) note(log, s, 8 * k + l, st);
                else if (st == 1) return 1;
                if (st > out) out = st;
            }
        }
        if (ENV.np) {
            double w[3];
            for (k = 0; k < 3; k++) w[k] = (double)c[k] + o[k];
            st = env_points(g, s, 0, w, (double)r * (1.0 + MARGIN_RATE), skip || out, log);
            if (st == 1 && !log) return 1;
            if (st > out) out = st;
        }
    }
    return out;
}

/* the obstacles alone at configuration q: FREE, COLLIDES, MAYBE or INVALID (as check1) */
static int obstacles1(const double *q)
{
    double g[NG][12], o[3];
    float centre[3][NS_DECL], slack;
    fk(q, g);
    slack = world_frame(q, g, o);
    if (slack < 0.0f) return CHECKER_INVALID;
    solid_centres(g, centre);
    return env_check(g, centre, o, slack, 0, 0);
}

void checker_obstacle_states(const double *q, long n, int *out)
{
    long k;
    for (k = 0; k < n; k++) out[k] = obstacles1(q + k * NQ);
}

long checker_obstacle_pairs(const double *q, long n, long *row, int *solid, long *item,
                            unsigned char *state, long max)
{
    struct envlog log;
    long k;
    log.n = 0;
    log.max = max;
    log.solid = solid;
    log.item = item;
    log.state = state;
    for (k = 0; k < n; k++) {
        double g[NG][12], o[3];
        float centre[3][NS_DECL], slack;
        long first = log.n;
        fk(q + k * NQ, g);
        slack = world_frame(q + k * NQ, g, o);
        if (slack < 0.0f) return -1;
        solid_centres(g, centre);
        (void)env_check(g, centre, o, slack, 0, &log);
        for (; first < log.n && first < max; first++) row[first] = k;
    }
    return log.n;
}

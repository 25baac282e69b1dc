/* robrayc's compiled collision checker: run-time cylinders and capsules (obstacles or
 * attached shapes) against a robot's box, cylinder or mesh solid and against an attached box,
 * cylinder or capsule, decided in C: convex.c's cylinder tests (cylinder_other: COLLIDES on a
 * point deeper than DECIDE_GAP in both, FREE on an axis separating them by more than
 * DECIDE_GAP, else MAYBE), a mesh on its triangles (decide_solid), a capsule as its inner
 * cylinder and its end spheres. Compiled after obstacles.c (which calls solid_round and
 * shape_round); a generated checker holds this file verbatim too.
 */

/* cylinder or capsule e as an exact cylinder (kind -2: half = radius, radius, half length):
 * its own, or with grow = its radius the cylinder that holds a capsule */
static struct solid round_cylinder(const struct envshape *e, double grow)
{
    struct solid c = e->s;
    c.exact = -2;
    c.half[0] = c.half[1] = e->s.half[0];
    c.half[2] = e->s.half[1] + grow;
    return c;
}

/* solid sa (its group's pose ga; a box, cylinder or mesh: a robot solid a, or an attached
 * shape's, a = -1) against cylinder c at world pose wc: convex.c's cylinder tests, a mesh on
 * its triangles */
static int solid_cylinder(const double *ga, const struct solid *sa, int a,
                          const struct solid *c, const double *wc)
{
    double wa[12], m[12];
    if (sa->exact == -1) return decide_solid(ga, a, wc, c);
    if (sa->exact != 1 && sa->exact != -2) return 2;
    mul(ga, sa->pose, wa);
    relative_d(wc, wa, m);  /* a in the cylinder's frame */
    return cylinder_other(c, sa, m);
}

/* solid sa (as solid_cylinder) against the sphere of radius r at world pose ws */
static int solid_ball(const double *ga, const struct solid *sa, int a, const double *ws,
                      double r)
{
    static const double world[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
    struct solid b = *sa;
    double wa[12], m[12];
    int k;
    b.exact = 0;
    b.group = 0;
    b.fixed_box = 0;
    for (k = 0; k < 12; k++) b.pose[k] = ws[k];
    b.half[0] = b.half[1] = b.half[2] = r;
    if (sa->exact == 1) return exact_pair(ga, world, sa, &b);
    if (sa->exact == -1) return decide_solid(ga, a, ws, &b);
    if (sa->exact != -2) return 2;
    mul(ga, sa->pose, wa);
    relative_d(wa, ws, m);
    return cylinder_other(sa, &b, m);
}

/* solid sa (as solid_cylinder) against capsule e's end spheres (world pose we): COLLIDES
 * where one is deeper than DECIDE_GAP in it, FREE where both are farther than DECIDE_GAP */
static int solid_ends(const double *ga, const struct solid *sa, int a,
                      const struct envshape *e, const double *we)
{
    double r = e->s.half[0], ws[12];
    int k, j, free = 1;
    for (k = 0; k < 2; k++) {
        for (j = 0; j < 12; j++) ws[j] = we[j];
        for (j = 0; j < 3; j++) ws[9 + j] += (k ? -1.0 : 1.0) * e->s.half[1] * we[3 * j + 2];
        if (r > DECIDE_GAP && solid_ball(ga, sa, a, ws, r - DECIDE_GAP) == 1) return 1;
        free &= solid_ball(ga, sa, a, ws, r + DECIDE_GAP) == 0;
    }
    return free ? 0 : 2;
}

/* solid sa (as solid_cylinder) against cylinder or capsule e (world pose we): a capsule is
 * its inner cylinder (half length h) and its end spheres, and FREE where the cylinder
 * holding it (h + r) is */
static int solid_round(const double *ga, const struct solid *sa, int a,
                       const struct envshape *e, const double *we)
{
    struct solid c = round_cylinder(e, 0.0);
    int inner = solid_cylinder(ga, sa, a, &c, we), ends;
    if (e->kind == OBSTACLE_CYLINDER || inner == 1) return inner;
    ends = solid_ends(ga, sa, a, e, we);
    if (ends == 1 || (ends == 0 && inner == 0)) return ends;
    c = round_cylinder(e, e->s.half[0]);
    return solid_cylinder(ga, sa, a, &c, we) == 0 ? 0 : 2;
}

/* shape t (a box, cylinder or capsule; its group's pose gt) against cylinder or capsule e
 * (world pose we): a box or cylinder by solid_round; a capsule as the union of its inner
 * cylinder and its end spheres (sphere_round, exact): COLLIDES when a part does, FREE when
 * all are */
static int shape_round(const double *gt, const struct envshape *t, const struct envshape *e,
                       const double *we)
{
    static const double world[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
    struct solid c = round_cylinder(t, 0.0), end = t->s;
    double wt[12];
    int k, j, out;
    if (t->s.exact == 1) return solid_round(gt, &t->s, -1, e, we);
    out = solid_round(gt, &c, -1, e, we);
    if (t->kind == OBSTACLE_CYLINDER || out == 1) return out;
    mul(gt, t->s.pose, wt);
    end.exact = 0;
    end.half[0] = end.half[1] = end.half[2] = t->s.half[0];
    for (k = 0; k < 2; k++) {
        int st;
        for (j = 0; j < 12; j++) end.pose[j] = wt[j];
        for (j = 0; j < 3; j++) end.pose[9 + j] += (k ? -1.0 : 1.0) * t->s.half[1] * wt[3 * j + 2];
        st = sphere_round(world, &end, e, we);
        if (st == 1) return 1;
        if (st > out) out = st;
    }
    return out;
}

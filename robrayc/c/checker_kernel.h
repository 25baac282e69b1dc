/* robrayc's compiled collision checker: what its kernel (checker_kernel.c) needs from a robot.
 *
 * A generated checker (`robrayc --format c-checker`, or the `compiled` backend) is one C file
 * laid out as checker_example.c is: the robot's sizes (the macros below), this header, the
 * robot's tables, checker_kernel.c (the tests), configuration.c (one configuration a call),
 * cells.c (the certified cells' prover), obstacles.c, points.c, cylinders.c, convex.c,
 * meshes.c, hulls.c, lanes.c, motions.c, the robot's kinematics `fk` and `fk8`
 * (straight-line C from robrayc.analysis.collision.c_kinematics) and, for robrayc's own
 * builds, triangles.c. The
 * kernel and this header are pasted in verbatim; checker_example.c includes them instead, so
 * that they compile and lint on their own (tests/test_c_kernel.py).
 *
 * Sizes (each *_DECL is the size at least 1, for C arrays):
 *   NG       rigid groups, group 0 the world (identity pose)
 *   NS       solids (NS_DECL)
 *   NP       solid pairs tested per configuration (NP_DECL)
 *   NQ       configuration variables
 *   NPAIRS   checked frame pairs (NPAIRS_DECL)
 *   NFB      blocks of 8 fixed partners of a moving solid (NFB_DECL)
 *   NMP      solid pairs of two moving solids (NMP_DECL: padded to a multiple of 8, >= 8)
 *   NODES_DECL, LEAVES_DECL    sphere-tree nodes and leaf boxes (static trees only)
 *   NCELLTABLES_DECL, NCELLBYTES_DECL    certified-cell tables and their bytes
 *   ANY_CONST_HIT   1 when a frame pair collides at every configuration
 *   GROUP_REACH     how far every group's origin may be from the world origin (each coordinate)
 *   SOLID_REACH     and every solid from its group's origin, for the float32 tests' margin
 *                   MARGIN_RATE * (GROUP_REACH + SOLID_REACH) to hold; beyond, the kernel
 *                   moves or grows its world-frame tests (checker_kernel.c, "precision")
 *   MARGIN_RATE     that margin per unit of coordinate (robrayc.analysis.collision.compiled)
 *   CONTACT_TOL     the one contact tolerance (robrayc.analysis.collision.tolerance):
 *                   a sphere or box pair COLLIDES when its solids overlap by more than it
 *   EPS_SAT         added to |R_ij| in the double box-box separating-axis test, as the exact
 *                   checker's (closed_form._EPS_SAT): the cross axis of nearly parallel edges
 *                   is degenerate, and this keeps it from separating boxes that touch
 * Options (0 or 1):
 *   CHECKER_CERTIFY    the sphere trees are bound at run time (checker_bind) and the cells'
 *                      prover checker_cells is built: robrayc's build-time library
 *   CHECKER_FK_TURNS   the kinematics turns about an axis that is not a frame axis (turn())
 *   CHECKER_TRIANGLES  where the meshes' triangle trees are (meshes.c): 0 none, 1 static
 *                      tables TNODE, TKID, TRI, TROOT, TBOX and the hull points THULL,
 *                      THULLS, TNHULLS, 2 bound at run time (checker_tbind, checker_hbind)
 *   CHECKER_HULLS      (default 1) 0: nothing is proven by the meshes' hulls (hulls.c: the
 *                      lanes' proof, and the triangle search's on the tree nodes')
 *   CHECKER_HULL_GUESSES (default 1) 0: a motion keeps no first guesses for the hulls'
 *                      proofs (hulls.c's struct hull_guess)
 *   CHECKER_WITNESSES  (default 1) 0: no crossing witness is tried (meshes.c)
 *
 * Tables a robot defines (static const), as described at each struct below: SOLID[NS_DECL],
 * GROUP_SOLIDS[NG] (1: the group holds solids),
 * PAIR[NP_DECL][3], FIXB[NFB_DECL], MOVP/MOVA/MOVB[NMP_DECL], MOVR2[NMP_DECL],
 * CONST_HIT[NPAIRS_DECL], CELLTAB[NP_DECL], CELLS[NCELLTABLES_DECL], CELLBITS[NCELLBYTES_DECL],
 * checker_pair_names[NPAIRS_DECL][2]; without CHECKER_CERTIFY also BOX[NS_DECL][15],
 * NODE[NODES_DECL][4], KID[NODES_DECL][2], LEAF[LEAVES_DECL][15] (see checker_kernel.c).
 *
 * Run-time obstacles: struct checker_obstacle { int kind; double pose[12]; double size[3]; },
 * declared before this header (NAME.h declares it as struct NAME_obstacle), obstacles.c,
 * points.c and cylinders.c.
 *
 * Public functions are named checker_*; a generated file renames them to NAME_* with macros
 * (#define checker_check NAME_check) before this header.
 */
#ifndef ROBRAYC_CHECKER_KERNEL_H
#define ROBRAYC_CHECKER_KERNEL_H

#include <math.h>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

/* answers, as NAME.h's NAME_FREE, NAME_COLLIDES, NAME_MAYBE */
#define CHECKER_FREE 0
#define CHECKER_COLLIDES 1
#define CHECKER_MAYBE 2
/* no answer: a configuration value is NaN or infinite, or the poses are past 1e18 */
#define CHECKER_INVALID 3

/* a solid: its rigid group, its exact kind (0 sphere, 1 box, -1 none: tested through its
 * sphere tree; -2 a cylinder, tested through its sphere tree, then by convex.c), fixed_box (1: a box in the world), the root of its sphere tree, its bounding
 * sphere (group frame, float, margin included), its pose in the group (rotation row-major,
 * translation), its half extents (a sphere: radius first) and the half extents of its
 * bounding box (same pose) */
struct solid { int group, exact, fixed_box, root; float bound[4]; double pose[12], half[3],
               box[3]; };

/* per moving solid, its fixed partners in blocks of 8: partner solid (or -1), solid pair, and
 * their bounding spheres in the world frame as x[8], y[8], z[8], r[8] */
struct fixblock { int solid, partner[8], pair[8]; float x[8], y[8], z[8], r[8]; };

/* a table of certified cells (robrayc.analysis.collision.cells): the one to three variables
 * var[] its pair's relative pose depends on, cut into n[] cells from lo[] of width 1 / inv[]
 * (wrap[]: a revolute joint's full turn, cells counted modulo n), the cells' first bit in
 * CELLBITS (the first variable's index major) */
struct celltable { int var[3], n[3], wrap[3]; double lo[3], inv[3]; long first; };

/* every group's pose at configuration q (rotation row-major, translation), parents first: the
 * robot's kinematics, defined after the kernel */
static void fk(const double *q, double g[][12]);

/* solid pairs the sphere trees leave open (convex.c, meshes.c): whether decide_pair can settle solids
 * a and b, and its answer at group poses g (FREE, COLLIDES or MAYBE; a: a tree solid) */
static int decides(int a, int b);
static int decide_pair(double g[][12], int a, int b);
/* whether solid s is a mesh with triangles there (meshes.c); whether a pair of a and b is
 * decided on its triangles before its float trees (convex.c: pair1) */
static int has_triangles(int s);
static int triangles_first(int a, int b);
/* and a mesh solid a (its group's pose ga) against a sphere, box or cylinder (exact 0, 1,
 * -2) solid s at world pose ws (s's group pose times s->pose; s may be no solid of the
 * robot's: an obstacle); MAYBE for any other kind, or a solid a without triangles */
static int decide_solid(const double *ga, int a, const double *ws, const struct solid *s);
/* the band about contact where the C leaves the answer to the exact checker (convex.c) */
#define DECIDE_GAP (CONTACT_TOL + 1e-6 * (GROUP_REACH + SOLID_REACH))
/* cylinder c (at the origin of its frame) against sphere, box or cylinder o at pose m in
 * that frame (FREE, COLLIDES or MAYBE), and m = ga^-1 gb (double poses) */
static int cylinder_other(const struct solid *c, const struct solid *o, const double *m);
static void relative_d(const double *ga, const double *gb, double *out);

/* fk for eight configurations at once, q[variable][lane] -> g[group][entry][lane], sines and
 * cosines by sin_cos (kinematics.c): the robot's kinematics, defined after the kernel */
static void fk8(double q[restrict][8], double g[restrict][12][8]);

/* how far the robot's prismatic joints have slid at configuration q: the sum of |value +
 * offset| times each axis' length (GROUP_REACH counts one unit of it) */
static double travel(const double *q);

/* the moving solids against the obstacles set at run time (obstacles.c, after the kernel):
 * FREE, COLLIDES or MAYBE */
struct envlog;
static int env_check(double g[][12], float centre[3][NS_DECL], const double *o, float slack,
                     int skip, struct envlog *log);

#endif

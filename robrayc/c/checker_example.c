/* A small robot's collision checker, laid out as a generated one (robrayc --format
 * c-checker) with the kernel included instead of pasted: what compiles and lints the kernel on
 * its own (tests/test_c_kernel.py: gcc -Wall -Wextra -Werror -pedantic, with and without
 * -DCHECKER_CERTIFY=1, and cppcheck).
 *
 * The robot: a box fixed in the world; an arm turning about the axis (0.6, 0, 0.8) through
 * (1, 0, 0) with a sphere and a solid tested through its sphere tree (a root holding two
 * leaves, each with its box) whose triangles (two, under a root and two leaves) meshes.c
 * tests, from static tables (-DCHECKER_TRIANGLES=1) or bound at run time (2, the default: with
 * triangles.c's proofs).
 */
#ifndef CHECKER_CERTIFY
#define CHECKER_CERTIFY 0
#endif
#ifndef CHECKER_TRIANGLES
#define CHECKER_TRIANGLES 2
#endif
#define CHECKER_FK_TURNS 1

#define NG 2
#define NS 3
#define NS_DECL 3
#define NP 2
#define NP_DECL 2
#define NQ 1
#define NPAIRS 2
#define NPAIRS_DECL 2
#define NFB 2
#define NFB_DECL 2
#define NMP 0
#define NMP_DECL 8
#define NGATE 0
#define NGATE_DECL 1
#define NGATEB_DECL 1
#define NF 4
#define NF_DECL 4
#define NODES_DECL 3
#define LEAVES_DECL 2
#define NCELLTABLES_DECL 1
#define NCELLBYTES_DECL 1
#define ANY_CONST_HIT 0
#define GROUP_REACH 2.0
#define SOLID_REACH 1.52
#define MARGIN_RATE 4e-06
#define CONTACT_TOL 1e-09
#define EPS_SAT 1e-12

/* as NAME.h declares it */
struct checker_obstacle { int kind; double pose[12]; double size[3]; };
int checker_set_obstacles(const struct checker_obstacle *obstacles, int n);
int checker_set_points(const double *xyzr, long n);
void checker_obstacle_states(const double *q, long n, int *out);
void checker_bind_witnesses(const double *points, const int *first);
int checker_attach(int frame, const struct checker_obstacle *shapes, int n, const int *touch,
                   int n_touch);
long checker_obstacle_pairs(const double *q, long n, long *row, int *solid, long *item,
                            unsigned char *state, long max);

#include "checker_kernel.h"

const char *const checker_pair_names[NPAIRS_DECL][2] = {
    { "table", "ball" },
    { "table", "rod" },
};

static const unsigned char CONST_HIT[NPAIRS_DECL] = { 0, 0 };

const char *const checker_frame_names[NF_DECL] = { "table", "arm", "ball", "rod" };
static const int FRAME_GROUP[NF_DECL] = { 0, 1, 1, 1 };
static const double FRAME_POSE[NF_DECL][12] = {
    { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 }, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 },
    { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0, 0 }, { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0.5 },
};
static const int SOLID_FRAME[NS_DECL] = { 0, 2, 3 };

static const struct solid SOLID[NS_DECL] = {
    { 0, 1, 1, 0, { 0.0f, 0.0f, -0.5f, 0.8661f },
      { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, -0.5 }, { 0.5, 0.5, 0.5 }, { 0.5, 0.5, 0.5 } },
    { 1, 0, 0, 1, { 0.5f, 0.0f, 0.0f, 0.1f },
      { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5, 0, 0 }, { 0.1, 0.0, 0.0 }, { 0.1, 0.1, 0.1 } },
    { 1, -1, 0, 2, { 0.0f, 0.0f, 0.5f, 0.52f },
      { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0.5 }, { 0.05, 0.05, 0.5 }, { 0.05, 0.05, 0.5 } },
};

static const unsigned char GROUP_SOLIDS[NG] = { 1, 1 };

#if !CHECKER_CERTIFY
static const float BOX[NS_DECL][15] = {
    { 0.0f, 0.0f, -0.5f, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.5f, 0.5f, 0.5f },
    { 0.5f, 0.0f, 0.0f, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.1f, 0.1f, 0.1f },
    { 0.0f, 0.0f, 0.5f, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.05f, 0.05f, 0.5f },
};

static const float NODE[NODES_DECL][4] = {
    { 0.0f, 0.0f, 0.5f, 0.52f },
    { 0.0f, 0.0f, 0.25f, 0.26f },
    { 0.0f, 0.0f, 0.75f, 0.26f },
};

static const int KID[NODES_DECL][2] = { { 1, 2 }, { 0, 0 }, { 1, 0 } };

static const float LEAF[LEAVES_DECL][15] = {
    { 0.0f, 0.0f, 0.25f, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.05f, 0.05f, 0.25f },
    { 0.0f, 0.0f, 0.75f, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.05f, 0.05f, 0.25f },
};
#endif

static const int PAIR[NP_DECL][3] = { { 0, 1, 0 }, { 0, 2, 1 } };

static const struct fixblock FIXB[NFB_DECL] = {
    { 1, { 0, -1, -1, -1, -1, -1, -1, -1 }, { 0, -1, -1, -1, -1, -1, -1, -1 },
      { 0.0f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f },
      { 0.0f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f },
      { -0.5f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f },
      { 0.8661f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f } },
    { 2, { 0, -1, -1, -1, -1, -1, -1, -1 }, { 1, -1, -1, -1, -1, -1, -1, -1 },
      { 0.0f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f },
      { 0.0f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f },
      { -0.5f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f, 1e18f },
      { 0.8661f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.0f } },
};

static const int MOVP[NMP_DECL] = { 0 };
static const int MOVA[NMP_DECL] = { 0 };
static const int MOVB[NMP_DECL] = { 0 };
static const float MOVR2[NMP_DECL] = { -1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f, -1.0f };
static const int SOLID_GATE[NS_DECL] = { -1, -1, -1 };
static const int FIXB_GATE[NFB_DECL] = { -1, -1 };
static const int GATE_GROUP[NGATE_DECL] = { 0 };
static const float GATE[NGATE_DECL][4] = { { 0.0f } };

static const int CELLTAB[NP_DECL] = { -1, -1 };
static const struct celltable CELLS[NCELLTABLES_DECL] = {
    { { 0 }, { 0 }, { 0 }, { 0.0 }, { 0.0 }, 0 }
};
static const unsigned char CELLBITS[NCELLBYTES_DECL] = { 0 };
#if CHECKER_TRIANGLES
static const int XWITS[NS_DECL][2] = { { 0 } };  /* no crossing witnesses */
static const int XWIT[1][3] = { { 0, 0, 0 } };
#endif

#if CHECKER_TRIANGLES == 1
static const double TNODE[3][4] = {
    { 0.0, 0.0, 0.5, 0.51 }, { 0.0, 0.0, 0.5, 0.51 }, { 0.0, 0.0, 0.5, 0.51 },
};
static const int TKID[3][2] = { { 1, 2 }, { 0, -1 }, { 1, -1 } };
static const double TRI[2][9] = {
    { -0.05, 0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 0.0, 1.0 },
    { 0.0, -0.05, 0.0, 0.0, 0.05, 0.0, 0.0, 0.0, 1.0 },
};
static const int TROOT[NS_DECL] = { -1, -1, 0 };
static const double TBOX[3][15] = {
    { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.0, 0.0, 0.5, 0.05, 0.05, 0.5 },
    { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.0, 0.0, 0.5, 0.05, 0.0, 0.5 },
    { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0.0, 0.0, 0.5, 0.0, 0.05, 0.5 },
};
static const double THULL[19] = {  /* 5 points: their x, y, z; their cluster's sphere */
    -0.05, 0.05, 0.0, 0.0, 0.0,  0.0, 0.0, -0.05, 0.05, 0.0,  0.0, 0.0, 0.0, 0.0, 1.0,
    0.0, 0.0, 0.5, 0.503,
};
static const int THULLS[NS_DECL][2] = { { 0, 0 }, { 0, 0 }, { 0, 5 } };
static const int TNHULLS[3][2] = { { 0, 5 }, { 0, 0 }, { 0, 0 } };  /* the root's: the mesh's */
#endif

#include "checker_kernel.c"
#include "kinematics.c"
#include "configuration.c"
#include "cells.c"
#include "obstacles.c"
#include "points.c"
#include "cylinders.c"
#include "convex.c"
#include "nodeboxes.c"
#include "meshes.c"
#include "hulls.c"
#include "lanes.c"
#include "passes.c"
#include "motions.c"

static void fk(const double *q, double g[][12])
{
    static const double identity[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0 };
    static const double base[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0 };
    static const double axis[3] = { 0.6, 0.0, 0.8 };
    int i;
    for (i = 0; i < 12; i++) g[0][i] = identity[i];
    turn(base, axis, q[0], g[1]);
}

static void fk8(double q[restrict][8], double g[restrict][12][8])
{
    static const double base[12] = { 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0 };
    static const double axis[3] = { 0.6, 0.0, 0.8 };
    int i, l;
    for (l = 0; l < 8; l++) {
        double out[12];
        turn(base, axis, q[0][l], out);
        for (i = 0; i < 12; i++) {
            g[0][i][l] = i % 4 == 0 && i < 9 ? 1.0 : 0.0;
            g[1][i][l] = out[i];
        }
    }
}

static double travel(const double *q)
{
    (void)q;
    return 0.0;
}

#if CHECKER_TRIANGLES == 2
#include "triangles.c"
#endif

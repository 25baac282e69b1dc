/* A recording implementation of the amino scene-graph calls that generated scenes make.
 * Each call prints one line to stdout; names are printed as hex bytes so any name is
 * compared byte for byte; doubles with %.17g (exact round trip).
 * Build: cc -std=c99 -Wall -Wextra -Werror -Iinclude record.c scene.c -DSCENE_FN=aa_rx_dl_sg__x */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <amino.h>
#include <amino/rx.h>

struct aa_rx_sg { int frames; };
struct aa_rx_geom_opt { double color[3], alpha, specular[3], scale; int visual, collision, no_shadow; };
struct aa_rx_mesh { size_t n_vertices, n_normals, n_indices; double sum; const float *vertices; };
struct aa_rx_geom { char line[512]; struct aa_rx_geom_opt opt; const struct aa_rx_mesh *mesh; };

static void name(const char *s)
{
    if (s == NULL) { fputs(" -", stdout); return; }
    fputs(" x", stdout); /* 'x' so an empty name is still a token */
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) printf("%02x", *p);
}
static void num(double x) { printf(" %.17g", x); }
static void nums(const double *x, int n) { for (int i = 0; i < n; i++) num(x[i]); }

struct aa_rx_sg *aa_rx_sg_create(void) { static struct aa_rx_sg sg; return &sg; }

static void frame(const char *kind, const char *parent, const char *n, const double q[4],
                  const double v[3])
{
    printf("frame %s", kind); name(parent); name(n); nums(q, 4); nums(v, 3);
}
void aa_rx_sg_add_frame_fixed(struct aa_rx_sg *sg, const char *parent, const char *n,
                              const double q[4], const double v[3])
{
    sg->frames++; frame("fixed", parent, n, q, v); putchar('\n');
}
void aa_rx_sg_add_frame_prismatic(struct aa_rx_sg *sg, const char *parent, const char *n,
                                  const double q[4], const double v[3], const char *config,
                                  const double axis[3], double offset)
{
    sg->frames++; frame("prismatic", parent, n, q, v); name(config); nums(axis, 3); num(offset);
    putchar('\n');
}
void aa_rx_sg_add_frame_revolute(struct aa_rx_sg *sg, const char *parent, const char *n,
                                 const double q[4], const double v[3], const char *config,
                                 const double axis[3], double offset)
{
    sg->frames++; frame("revolute", parent, n, q, v); name(config); nums(axis, 3); num(offset);
    putchar('\n');
}
static void limit(const char *kind, const char *config, double min, double max)
{
    printf("limit %s", kind); name(config); num(min); num(max); putchar('\n');
}
void aa_rx_sg_set_limit_pos(struct aa_rx_sg *sg, const char *c, double a, double b) { (void)sg; limit("pos", c, a, b); }
void aa_rx_sg_set_limit_vel(struct aa_rx_sg *sg, const char *c, double a, double b) { (void)sg; limit("vel", c, a, b); }
void aa_rx_sg_set_limit_acc(struct aa_rx_sg *sg, const char *c, double a, double b) { (void)sg; limit("acc", c, a, b); }
void aa_rx_sg_set_limit_eff(struct aa_rx_sg *sg, const char *c, double a, double b) { (void)sg; limit("eff", c, a, b); }
void aa_rx_sg_frame_set_inertial(struct aa_rx_sg *sg, const char *f, double mass,
                                 const double inertia[9])
{
    (void)sg; printf("inertial"); name(f); num(mass); nums(inertia, 9); putchar('\n');
}
void aa_rx_sg_allow_collision_name(struct aa_rx_sg *sg, const char *a, const char *b, int allowed)
{
    (void)sg; printf("allow"); name(a); name(b); printf(" %d\n", allowed);
}

struct aa_rx_geom_opt *aa_rx_geom_opt_create(void)
{
    struct aa_rx_geom_opt *o = calloc(1, sizeof *o);
    o->scale = 1; o->alpha = 1; o->visual = 1; o->collision = 1;
    return o;
}
void aa_rx_geom_opt_destroy(struct aa_rx_geom_opt *o) { free(o); }
void aa_rx_geom_opt_set_no_shadow(struct aa_rx_geom_opt *o, int x) { o->no_shadow = x; }
void aa_rx_geom_opt_set_color3(struct aa_rx_geom_opt *o, double r, double g, double b)
{
    o->color[0] = r; o->color[1] = g; o->color[2] = b;
}
void aa_rx_geom_opt_set_alpha(struct aa_rx_geom_opt *o, double a) { o->alpha = a; }
void aa_rx_geom_opt_set_visual(struct aa_rx_geom_opt *o, int x) { o->visual = x; }
void aa_rx_geom_opt_set_collision(struct aa_rx_geom_opt *o, int x) { o->collision = x; }
void aa_rx_geom_opt_set_specular3(struct aa_rx_geom_opt *o, double r, double g, double b)
{
    o->specular[0] = r; o->specular[1] = g; o->specular[2] = b;
}
void aa_rx_geom_opt_set_scale(struct aa_rx_geom_opt *o, double s) { o->scale = s; }

static struct aa_rx_geom *geom(struct aa_rx_geom_opt *opt)
{
    struct aa_rx_geom *g = calloc(1, sizeof *g);
    g->opt = *opt;
    return g;
}
struct aa_rx_geom *aa_rx_geom_box(struct aa_rx_geom_opt *opt, const double d[3])
{
    struct aa_rx_geom *g = geom(opt);
    snprintf(g->line, sizeof g->line, "box %.17g %.17g %.17g", d[0], d[1], d[2]);
    return g;
}
struct aa_rx_geom *aa_rx_geom_sphere(struct aa_rx_geom_opt *opt, double r)
{
    struct aa_rx_geom *g = geom(opt);
    snprintf(g->line, sizeof g->line, "sphere %.17g", r);
    return g;
}
struct aa_rx_geom *aa_rx_geom_cylinder(struct aa_rx_geom_opt *opt, double h, double r)
{
    struct aa_rx_geom *g = geom(opt);
    snprintf(g->line, sizeof g->line, "cylinder %.17g %.17g", h, r);
    return g;
}
struct aa_rx_geom *aa_rx_geom_cone(struct aa_rx_geom_opt *opt, double h, double r0, double r1)
{
    struct aa_rx_geom *g = geom(opt);
    snprintf(g->line, sizeof g->line, "cone %.17g %.17g %.17g", h, r0, r1);
    return g;
}
struct aa_rx_geom *aa_rx_geom_grid(struct aa_rx_geom_opt *opt, const double d[2],
                                   const double delta[2], double w)
{
    struct aa_rx_geom *g = geom(opt);
    snprintf(g->line, sizeof g->line, "grid %.17g %.17g %.17g %.17g %.17g", d[0], d[1],
             delta[0], delta[1], w);
    return g;
}
struct aa_rx_geom *aa_rx_geom_mesh(struct aa_rx_geom_opt *opt, struct aa_rx_mesh *m)
{
    struct aa_rx_geom *g = geom(opt);
    snprintf(g->line, sizeof g->line, "mesh %zu %zu %zu %.17g", m->n_vertices, m->n_normals,
             m->n_indices, m->sum);
    g->mesh = m;
    return g;
}
void aa_rx_geom_attach(struct aa_rx_sg *sg, const char *f, struct aa_rx_geom *g)
{
    const struct aa_rx_geom_opt *o = &g->opt;
    (void)sg;
    printf("geom"); name(f);
    printf(" %s", g->line);
    nums(o->color, 3); num(o->alpha); nums(o->specular, 3); num(o->scale);
    printf(" %d %d %d\n", o->visual, o->collision, o->no_shadow);
    if (g->mesh != NULL && getenv("RECORD_VERTICES") != NULL) { /* a mesh's own vertices */
        printf("vertices"); name(f);
        for (size_t i = 0; i < 3 * g->mesh->n_vertices; i++) printf(" %.9g", g->mesh->vertices[i]);
        putchar('\n');
    }
    free(g);
}

struct aa_rx_mesh *aa_rx_mesh_create(void) { return calloc(1, sizeof(struct aa_rx_mesh)); }
void aa_rx_mesh_destroy(struct aa_rx_mesh *m) { free(m); }
void aa_rx_mesh_set_vertices(struct aa_rx_mesh *m, size_t n, const float *x, int copy)
{
    (void)copy; m->n_vertices = n; m->vertices = x; /* the generated arrays are static */
    for (size_t i = 0; i < 3 * n; i++) m->sum += x[i];
}
void aa_rx_mesh_set_normals(struct aa_rx_mesh *m, size_t n, const float *x, int copy)
{
    (void)x; (void)copy; m->n_normals = n;
}
void aa_rx_mesh_set_indices(struct aa_rx_mesh *m, size_t n, const unsigned *x, int copy)
{
    (void)copy; m->n_indices = n;
    for (size_t i = 0; i < 3 * n; i++) m->sum += x[i];
}
void aa_rx_mesh_set_rgba(struct aa_rx_mesh *m, size_t w, size_t h, const uint8_t *rgba, int copy)
{
    (void)m; (void)w; (void)h; (void)rgba; (void)copy;
}
void aa_rx_mesh_set_uv(struct aa_rx_mesh *m, size_t n, const float *uv, int copy)
{
    (void)m; (void)n; (void)uv; (void)copy;
}

struct aa_rx_sg *SCENE_FN(struct aa_rx_sg *sg, const char *root);

int main(int argc, char **argv)
{
    const char *root = argc > 1 ? argv[1] : NULL;
    struct aa_rx_sg *sg = SCENE_FN(NULL, root);
    printf("end %d\n", sg->frames);
    return 0;
}

/* Test stand-in for <amino/rx.h>: the real prototypes of the amino scene-graph API
 * (include/amino/rx/scenegraph.h, scene_geom.h, scene_dyn.h), implemented by record.c. */
#ifndef RECORD_AMINO_RX_H
#define RECORD_AMINO_RX_H
#include <stddef.h>
#include <stdint.h>

struct aa_rx_sg;
struct aa_rx_geom;
struct aa_rx_geom_opt;
struct aa_rx_mesh;

struct aa_rx_sg *aa_rx_sg_create(void);
void aa_rx_sg_add_frame_fixed(struct aa_rx_sg *scene_graph, const char *parent,
                              const char *name, const double q[4], const double v[3]);
void aa_rx_sg_add_frame_prismatic(struct aa_rx_sg *scene_graph, const char *parent,
                                  const char *name, const double q[4], const double v[3],
                                  const char *config_name, const double axis[3], double offset);
void aa_rx_sg_add_frame_revolute(struct aa_rx_sg *scene_graph, const char *parent,
                                 const char *name, const double q[4], const double v[3],
                                 const char *config_name, const double axis[3], double offset);
void aa_rx_sg_set_limit_pos(struct aa_rx_sg *sg, const char *config_name, double min, double max);
void aa_rx_sg_set_limit_vel(struct aa_rx_sg *sg, const char *config_name, double min, double max);
void aa_rx_sg_set_limit_acc(struct aa_rx_sg *sg, const char *config_name, double min, double max);
void aa_rx_sg_set_limit_eff(struct aa_rx_sg *sg, const char *config_name, double min, double max);
void aa_rx_sg_frame_set_inertial(struct aa_rx_sg *sg, const char *frame, double mass,
                                 const double inertia[9]);
void aa_rx_sg_allow_collision_name(struct aa_rx_sg *scene_graph, const char *frame0,
                                   const char *frame1, int allowed);

struct aa_rx_geom_opt *aa_rx_geom_opt_create(void);
void aa_rx_geom_opt_destroy(struct aa_rx_geom_opt *opt);
void aa_rx_geom_opt_set_no_shadow(struct aa_rx_geom_opt *opt, int no_shadow);
void aa_rx_geom_opt_set_color3(struct aa_rx_geom_opt *opt, double red, double blue, double green);
void aa_rx_geom_opt_set_alpha(struct aa_rx_geom_opt *opt, double alpha);
void aa_rx_geom_opt_set_visual(struct aa_rx_geom_opt *opt, int visual);
void aa_rx_geom_opt_set_collision(struct aa_rx_geom_opt *opt, int collision);
void aa_rx_geom_opt_set_specular3(struct aa_rx_geom_opt *opt, double red, double green,
                                  double blue);
void aa_rx_geom_opt_set_scale(struct aa_rx_geom_opt *opt, double scale);

struct aa_rx_geom *aa_rx_geom_box(struct aa_rx_geom_opt *opt, const double dimension[3]);
struct aa_rx_geom *aa_rx_geom_sphere(struct aa_rx_geom_opt *opt, double radius);
struct aa_rx_geom *aa_rx_geom_cylinder(struct aa_rx_geom_opt *opt, double height, double radius);
struct aa_rx_geom *aa_rx_geom_cone(struct aa_rx_geom_opt *opt, double height,
                                   double start_radius, double end_radius);
struct aa_rx_geom *aa_rx_geom_grid(struct aa_rx_geom_opt *opt, const double dimension[2],
                                   const double delta[2], double width);
struct aa_rx_geom *aa_rx_geom_mesh(struct aa_rx_geom_opt *opt, struct aa_rx_mesh *mesh);
void aa_rx_geom_attach(struct aa_rx_sg *sg, const char *frame, struct aa_rx_geom *geom);

struct aa_rx_mesh *aa_rx_mesh_create(void);
void aa_rx_mesh_destroy(struct aa_rx_mesh *mesh);
void aa_rx_mesh_set_vertices(struct aa_rx_mesh *mesh, size_t n, const float *vectors, int copy);
void aa_rx_mesh_set_normals(struct aa_rx_mesh *mesh, size_t n, const float *normals, int copy);
void aa_rx_mesh_set_indices(struct aa_rx_mesh *mesh, size_t n, const unsigned *indices, int copy);
void aa_rx_mesh_set_rgba(struct aa_rx_mesh *mesh, size_t width, size_t height,
                         const uint8_t *rgba, int copy);
void aa_rx_mesh_set_uv(struct aa_rx_mesh *mesh, size_t n, const float *uv, int copy);
#endif

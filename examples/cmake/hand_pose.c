/* Print the pose of the 7dof arm's hand and tool at a configuration given on the command line
 * (values in the order of arm_configs: s0 s1 s2 e w0 w1 w2 f0 f1 f2; missing ones are 0). */
#include <stdio.h>
#include <stdlib.h>

#include "arm.h"

static void print_pose(const char *frame, double tf[arm_N_FRAMES][7])
{
    int i = arm_frame_index(frame);
    if (i < 0) {
        fprintf(stderr, "no frame %s\n", frame);
        exit(1);
    }
    printf("%s: quaternion [%.9f, %.9f, %.9f, %.9f] translation [%.9f, %.9f, %.9f]\n", frame,
           tf[i][0], tf[i][1], tf[i][2], tf[i][3], tf[i][4], tf[i][5], tf[i][6]);
}

int main(int argc, char **argv)
{
    double q[arm_N_CONFIG] = { 0 };
    double tf[arm_N_FRAMES][7];
    int i;
    if (argc - 1 > arm_N_CONFIG) {
        fprintf(stderr, "usage: %s [value for each of the %d variables]\n", argv[0],
                arm_N_CONFIG);
        return 2;
    }
    for (i = 1; i < argc; i++) {
        char *end;
        q[i - 1] = strtod(argv[i], &end);
        if (end == argv[i] || *end != '\0') {
            fprintf(stderr, "%s: not a number: %s\n", arm_configs[i - 1].name, argv[i]);
            return 2;
        }
    }
    arm_fk(q, tf);
    print_pose("hand", tf);
    print_pose("tool", tf);
    return 0;
}

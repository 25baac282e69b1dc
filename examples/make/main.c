/* Print every frame's absolute pose at a configuration given on the command line. */
#include <stdio.h>
#include <stdlib.h>

#include "cell.h"

int main(int argc, char **argv)
{
    double q[cell_N_CONFIG] = { 0 };
    double tf[cell_N_FRAMES][7];
    int i;
    for (i = 1; i < argc && i <= cell_N_CONFIG; i++) q[i - 1] = strtod(argv[i], NULL);
    cell_fk(q, tf);
    for (i = 0; i < cell_N_FRAMES; i++) {
        printf("%-12s q = [%+.6f %+.6f %+.6f %+.6f]  v = [%+.6f %+.6f %+.6f]\n",
               cell_frames[i].name, tf[i][0], tf[i][1], tf[i][2], tf[i][3],
               tf[i][4], tf[i][5], tf[i][6]);
    }
    return 0;
}

/* robrayc's compiled collision checker: one configuration a call (check1) and what is built on
 * it, the same for every robot.
 *
 * Compiled after checker_kernel.c, whose tests it runs in the order told there: every solid
 * pair whose bounding spheres overlap, then the obstacles set at run time (obstacles.c).
 * Public here: checker_check (one configuration's answer), checker_solid_states (every solid
 * pair's state, for the samplers of robrayc.analysis.acm), checker_group_poses (the
 * kinematics) and checker_colliding_pairs (each checked frame pair's answer). lanes.c calls
 * check1 for the lanes its pass leaves open.
 */

/* no answer for configuration q: MAYBE for every (active) solid pair in states */
static int invalid(const unsigned char *active, unsigned char *states)
{
    if (states) {
        int p;
        for (p = 0; p < NP; p++) states[p] = (unsigned char)(active && !active[p] ? 0 : 2);
    }
    return CHECKER_INVALID;
}

/* the solid pair at position `at` of check1's order (FIXB block at / 8, its partner at % 8;
 * then MOVP at - 8 NFB) in *a and *b: 0 past them (the obstacles set at run time) */
static int pair_at(int at, int *a, int *b)
{
    if (at < NFB * 8) {
        *a = FIXB[at / 8].solid;
        *b = FIXB[at / 8].partner[at % 8];
    } else if (at < NFB * 8 + NMP) {
        *a = MOVA[at - NFB * 8];
        *b = MOVB[at - NFB * 8];
    } else {
        return 0;
    }
    return 1;
}

/* the pair at position `from` (below), where a lane of lanes.c's pass opened after its trees
 * and hulls left the pair near, when it is two meshes with triangles: decide_pair's answer at
 * once, not after the trees' tests the lane made already (UR5's NAME_check8 and motions -6 to
 * -7 % of the instructions: docs/performance.md). pair_state's answer for the pair is FREE
 * where a proof of its (the certified cells, the spheres against the boxes, the trees) shows
 * it apart, else decide_pair's; where those proofs show it apart, decide_pair finds no certain
 * hit, so its COLLIDES and its FREE are pair_state's answer too. -1: not two meshes, or
 * decide_pair answered MAYBE (pair_state then answers, its proofs first). */
static int opened_pair(double g[][12], int from)
{
    int a, b, r;
    if (from <= 0 || !pair_at(from, &a, &b)) return -1;
    if (SOLID[a].exact != -1 || SOLID[b].exact != -1 || !decides(a, b)) return -1;
    r = decide_pair(g, a, b);
    return r == 2 ? -1 : r;
}

/* One configuration: FREE, COLLIDES or MAYBE (INVALID: see world_frame). Without states,
 * stops at the first certain collision; with states (NP bytes, zeroed by the caller), writes
 * the state of every solid pair (pairs with active[p] == 0 skipped; active may be NULL).
 * The solid pairs before position `from` (FIXB block k, lane j: 8 k + j; then MOVP j: 8 NFB
 * + j) are skipped: known FREE (lanes.c proved them so); 0 tests them all. */
static int check1(const double *q, const unsigned char *active, unsigned char *states,
                  int from)
{
    double g[NG][12], o[3];
    float centre[3][NS_DECL], slack;
    struct boxcache cache;
    int k, l, hit = 0, maybe = 0, far, mfrom, ffrom;
    fk(q, g);
    slack = world_frame(q, g, o);
    if (slack < 0.0f) return invalid(active, states);
    if (!states && !active) {  /* the pair where a lane opened (opened_pair) */
        const int r = opened_pair(g, from);
        if (r == 1) return 1;
        from += r == 0;  /* FREE: the pass goes on from the next */
    }
    mfrom = from > NFB * 8 ? from - NFB * 8 : 0;
    ffrom = from > 0 && from < NFB * 8 ? from : from > 0 ? NFB * 8 : 0;
    far = slack > 0.0f || o[0] != 0.0 || o[1] != 0.0 || o[2] != 0.0;
    solid_centres(g, centre);
    start_cache(&cache, g, centre, slack);
    for (k = ffrom / 8; k < NFB && !(hit && !states); k++) {
        const struct fixblock *f = &FIXB[k];
        const float c[3] = { centre[0][f->solid], centre[1][f->solid], centre[2][f->solid] };
        unsigned m = far ? near_block_at(f, c, SOLID[f->solid].bound[3] + slack, o)
                         : near_block(f, c, SOLID[f->solid].bound[3]);
        if (k == ffrom / 8) m &= ~0u << (ffrom % 8);
        for (l = 0; m && l < 8; l++, m >>= 1) {
            int r;
            if (!(m & 1u)) continue;
            r = pair_state(q, &cache, f->pair[l], f->solid, f->partner[l], maybe, active,
                           states);
            hit |= r == 1;
            maybe |= r == 2;
            if (hit && !states) break;
        }
    }
    for (k = mfrom & ~7; k < NMP && !(hit && !states); k += 8) {
        unsigned m = near8(centre, MOVA + k, MOVB + k, MOVR2 + k, slack);
        if (k == (mfrom & ~7)) m &= ~0u << (mfrom & 7);
        for (l = 0; m && !(hit && !states); l++, m >>= 1) {
            int r;
            if (!(m & 1u)) continue;
            r = pair_state(q, &cache, MOVP[k + l], MOVA[k + l], MOVB[k + l], maybe, active,
                           states);
            hit |= r == 1;
            maybe |= r == 2;
        }
    }
    if (!(hit && !states)) {  /* the obstacles set at run time (obstacles.c) */
        int r = env_check(g, centre, o, slack, maybe && !states, 0);
        hit |= r == 1;
        maybe |= r == 2;
    }
    return hit ? 1 : maybe ? 2 : 0;
}

int checker_check(const double *q)
{
    if (ANY_CONST_HIT) return 1;
    return check1(q, 0, 0, 0);
}

/* the states of the active solid pairs only (a sampler that stopped asking about most pairs):
 * their bounding spheres 8 pairs at a time, then the pair's tests, as check1 */
static void active_states(const double *q, long n, const unsigned char *active,
                          unsigned char *states)
{
    int list[NP_DECL + 8], sa[NP_DECL + 8];
    int sb[NP_DECL + 8], m = 0, i;
    float reach2[NP_DECL + 8];
    long c;
    for (i = 0; i < NP; i++)
        if (active[i]) {
            float r = SOLID[PAIR[i][0]].bound[3] + SOLID[PAIR[i][1]].bound[3];
            sa[m] = PAIR[i][0];
            sb[m] = PAIR[i][1];
            reach2[m] = r * r;
            list[m++] = i;
        }
    for (i = m; i < m + 8; i++) {  /* padding lanes: never near */
        sa[i] = sb[i] = list[i] = 0;
        reach2[i] = -1.0f;
    }
    for (c = 0; c < n; c++) {
        const double *qc = q + c * NQ;
        unsigned char *out = states + c * NP;
        double g[NG][12], o[3];
        float centre[3][NS_DECL], slack;
        struct boxcache boxes;
        for (i = 0; i < NP; i++) out[i] = 0;
        fk(qc, g);
        slack = world_frame(qc, g, o);
        if (slack < 0.0f) {
            (void)invalid(active, out);
            continue;
        }
        solid_centres(g, centre);
        start_cache(&boxes, g, centre, slack);
        for (i = 0; i < m; i += 8) {
            unsigned near = near8(centre, sa + i, sb + i, reach2 + i, slack);
            int l;
            for (l = 0; near; l++, near >>= 1)
                if (near & 1u)
                    (void)pair_state(qc, &boxes, list[i + l], sa[i + l], sb[i + l], 0, 0, out);
        }
    }
}

void checker_solid_states(const double *q, long n, const unsigned char *active,
                          unsigned char *states)
{
    long k;
    int p;
    if (active) {
        active_states(q, n, active, states);
        return;
    }
    for (k = 0; k < n; k++) {
        for (p = 0; p < NP; p++) states[k * NP + p] = 0;
        (void)check1(q + k * NQ, active, states + k * NP, 0);
    }
}

void checker_group_poses(const double *q, long n, double *poses)
{
    long k;
    for (k = 0; k < n; k++) fk(q + k * NQ, (double (*)[12])(poses + k * NG * 12));
}

int checker_colliding_pairs(const double *q, int *out)
{
    unsigned char states[NP_DECL] = { 0 };
    int p, count = 0;
    for (p = 0; p < NPAIRS; p++) out[p] = CONST_HIT[p];
    if (check1(q, 0, states, 0) == CHECKER_INVALID) {
        for (p = 0; p < NPAIRS; p++) out[p] = CONST_HIT[p] ? 1 : 2;
        return NPAIRS;
    }
    for (p = 0; p < NP; p++)
        if (states[p] == 1 || (states[p] == 2 && out[PAIR[p][2]] == 0))
            out[PAIR[p][2]] = states[p];
    for (p = 0; p < NPAIRS; p++) count += out[p] != 0;
    return count;
}

/* robrayc's compiled collision checker: the pass of a block of eight configurations over the
 * solid pairs (checker_check8, and motions.c's batches and motions), the lanes' tests of
 * lanes.c in check1's order. Compiled right after lanes.c; a generated checker holds this
 * file verbatim too.
 *
 * The pass takes the moving solids' fixed partners block by block (FIXB; a gate's members
 * only where their gate meets the partner: gate_block), then the pairs of two moving solids
 * 8 at a time, then the obstacles set at run time; a lane opens at the first pair the lanes
 * cannot prove apart, and check1 answers it from that pair on (`from`: the pairs before it
 * are proven FREE in that lane, lanes.c's header says why check1 would find so too).
 */

/* a block's pass over the solid pairs in check1's order: the lanes open so far, where each
 * opened (check1's `from`: its pairs before that position were proven FREE here; 0: the
 * whole of checker_check; FIXB block f, partner j: 8 f + j; MOVP j: LANE_MOVING + j; the
 * run-time obstacles: LANE_ROBOT_END), and the next step of the pass (pass_step) */
#define LANE_MOVING (NFB * 8)
#define LANE_ROBOT_END (NFB * 8 + NMP)
struct pass {
    struct block k;
    unsigned open;
    int from[8], at;
    /* per gate block: the lanes of its partners near the gate (gate_block), once known */
    unsigned long long gate_mask[NGATEB_DECL];
    unsigned char gate_known[NGATEB_DECL];
};

/* records step position `at` of the pass as where each lane of `open` opened (from) */
static void mark_from(struct pass *p, unsigned open, int at)
{
    if (open) {
        int l;
        for (l = 0; l < 8; l++) if (open >> l & 1u) p->from[l] = at;
    }
}

/* starts the pass of the block of configurations q (8 x NQ) */
static void pass_start(struct pass *p, const double *q)
{
    int l, i;
    p->open = ~lane_valid(q) & 0xffu;
    p->at = 0;
    p->k.guesses = 0;
    for (i = 0; i < NGATEB_DECL; i++) p->gate_known[i] = 0;
    for (l = 0; l < 8; l++) {
        p->from[l] = 0;
        p->k.row[l] = q + (long)l * NQ;
    }
    if (ANY_CONST_HIT) p->open = 0xffu;
    if (p->open == 0xffu) return;
    for (l = 0; l < 8; l++)  /* an open lane's poses are not looked at: zeros will do */
        for (i = 0; i < NQ; i++) p->k.q[i][l] = (p->open >> l & 1u) ? 0.0 : p->k.row[l][i];
    lane_poses(&p->k);
}

/* the lanes in which the gate of FIXB block fb's solid meets each of the block's partners
 * (bits 8 j .. 8 j + 7: partner j's lanes; reach grown by LANE_SLACK): tested once a pass
 * for each gate block gb (the members' blocks with the same partners share one), then looked
 * up. A member's bounding sphere lies inside its gate's: where the gate misses a partner, so
 * would the member's own test, and check1's (whose reach has no slack) */
static unsigned long long gate_block(struct pass *p, const struct fixblock *fb, int gb)
{
    if (!p->gate_known[gb]) {
        const int g = SOLID_GATE[fb->solid];
        const lanes c[3] = { lanes_load(p->k.gate[g][0]), lanes_load(p->k.gate[g][1]),
                             lanes_load(p->k.gate[g][2]) };
        unsigned long long m = 0u;
        int j;
        for (j = 0; j < 8 && fb->partner[j] >= 0; j++)
            m |= (unsigned long long)lanes_near_fixed(c, fb, j, GATE[g][3] + fb->r[j] + LANE_SLACK)
                 << (8 * j);
        p->gate_mask[gb] = m;
        p->gate_known[gb] = 1;
    }
    return p->gate_mask[gb];
}

/* the lanes newly open (not open before, nor in fresh) by partner j of FIXB block `step`: its
 * bounding sphere against the moving solid's (its centre c), then the pair (lane_pair);
 * their position is written to the pass's from */
static inline unsigned fixed_partner(struct pass *p, int step, int j, unsigned fresh,
                                     const lanes *c)
{
    const struct block *k = &p->k;
    const struct fixblock *fb = &FIXB[step];
    const int a = fb->solid;
    unsigned near = lanes_near_fixed(c, fb, j, SOLID[a].bound[3] + fb->r[j] + LANE_SLACK)
                    & ~(p->open | fresh);
    unsigned open = near ? lane_pair(k, fb->pair[j], a, fb->partner[j], near) : 0u;
    mark_from(p, open, 8 * step + j);
    return open;
}

/* the lanes newly open at the pass's next step (FIXB block f: positions 8 f .. 8 f + 7;
 * then the moving pairs 8 at a time; then the run-time obstacles), each lane's position
 * written to from */
static unsigned pass_step(struct pass *p, int step)
{
    const struct block *k = &p->k;
    unsigned fresh = 0u;
    int j;
    if (step >= 0 && step < NFB) {  /* a moving solid against 8 fixed partners (FIXB) */
        const int a = FIXB[step].solid;
        const lanes c[3] = { lanes_load(k->centre[a][0]), lanes_load(k->centre[a][1]),
                             lanes_load(k->centre[a][2]) };
        if (FIXB_GATE[step] < 0) {
            for (j = 0; j < 8 && FIXB[step].partner[j] >= 0; j++)
                fresh |= fixed_partner(p, step, j, fresh, c);
        } else {  /* only the partners its gate meets */
            const unsigned long long gate = gate_block(p, &FIXB[step], FIXB_GATE[step])
                                            & (0x0101010101010101ull * (~p->open & 0xffu));
            for (j = 0; j < 8 && gate >> (8 * j); j++)
                if (gate >> (8 * j) & 0xffu) fresh |= fixed_partner(p, step, j, fresh, c);
        }
        return fresh;
    }
    step -= NFB;
    if (step >= 0 && 8 * step < NMP) {
        for (j = 8 * step; j < 8 * step + 8 && j < NMP; j++) {
            unsigned near = lane_near(k, MOVA[j], MOVB[j]) & ~(p->open | fresh);
            unsigned open = near ? lane_pair(k, MOVP[j], MOVA[j], MOVB[j], near) : 0u;
            mark_from(p, open, LANE_MOVING + j);
            fresh |= open;
        }
        return fresh;
    }
    if (ENV.np || N_ATTACHED) {
        fresh = ~p->open & 0xffu;  /* points, attached shapes: check1 (env_check) */
    } else {
        for (j = 0; j < NS && ENV.n && (fresh | p->open) != 0xffu; j++)
            if (SOLID[j].group) fresh |= lane_obstacles(k, j, ~(fresh | p->open) & 0xffu);
    }
    mark_from(p, fresh, LANE_ROBOT_END);
    return fresh;
}

/* do solids a and b collide for certain in lane l: two meshes whose crossing witness
 * crosses (meshes.c's lane_witness_crosses), a mesh with a hull point inside a box or a
 * sphere (hulls.c's lane_hull_point_inside) */
static int pair_hit(const double *g, int a, int b, int l)
{
    if (SOLID[a].exact != -1) {
        int t = a;
        a = b;
        b = t;
    }
    return lane_witness_crosses(g, a, b, l) || lane_hull_point_inside(g, a, &SOLID[b], l);
}

/* the lanes of fresh (just opened) in which the pair they opened at (from) collides for
 * certain (pair_hit). A lane opens at two meshes where their hulls overlap (lane_pair's last
 * test): near contact, where the witnesses cross most often. A lane opened at the obstacles
 * set at run time is not tried: it does not say which, and a moving mesh's hull points
 * against each one near cost more than they spared (Fetch's motions +27 % of their
 * instructions). A motion's pass only: NAME_check8's blocks, mostly of collision-free
 * configurations, would pay the tests for nothing */
static unsigned pass_hits(const struct pass *p, unsigned fresh)
{
    const double *g = p->k.g[0][0];
    unsigned hit = 0u;
    int l;
    for (l = 0; l < 8; l++) {
        int a, b;  /* the pair lane l opened at (configuration.c's pair_at) */
        if ((fresh >> l & 1u) && pair_at(p->from[l], &a, &b) && pair_hit(g, a, b, l))
            hit |= 1u << l;
    }
    return hit;
}

/* the pass's steps: FIXB's blocks, the moving pairs' blocks of 8, the run-time obstacles */
#define LANE_STEPS (NFB + (NMP + 7) / 8 + 1)

/* runs the pass on until every lane is open, it is over, or a lane of `stop` opens; returns
 * whether it is over (every lane open, or every step made) */
static int pass_run(struct pass *p, unsigned stop)
{
    while (p->open != 0xffu && p->at < LANE_STEPS) {
        unsigned fresh = pass_step(p, p->at++);
        p->open |= fresh;
        if (fresh & stop) return p->open == 0xffu || p->at >= LANE_STEPS;
    }
    return 1;
}

/* the answer of an open lane l of the pass */
static int lane_answer(const struct pass *p, int l)
{
    const double *q = p->k.row[l];
    return p->from[l] ? check1(q, 0, 0, p->from[l]) : checker_check(q);
}

void checker_check8(const double *q, int *out)
{
    struct pass p;
    int l;
    pass_start(&p, q);
    (void)pass_run(&p, 0u);
    for (l = 0; l < 8; l++) out[l] = (p.open >> l & 1u) ? lane_answer(&p, l) : CHECKER_FREE;
}

/* the answer of the first lane of hit (found colliding) not yet answered that is not FREE
 * (check1's, which it is but for measure-zero roundings), else FREE; answered: the lanes
 * answered so far */
static int answer_hits(const struct pass *p, unsigned hit, unsigned *answered)
{
    int l;
    for (l = 0; l < 8; l++)
        if ((hit >> l & 1u) && !(*answered >> l & 1u)) {
            int r = lane_answer(p, l);
            *answered |= 1u << l;
            if (r != CHECKER_FREE) return r;
        }
    return CHECKER_FREE;
}

/* the answer of a configuration of the block q (8 x NQ) that is not FREE, else FREE: the
 * pass runs on until the first lane not yet answered opens, which check1 answers then (a
 * motion that collides at its first sample costs one pass in part), but each step that opens
 * lanes has those it finds colliding for certain (pass_hits) answered at once. Where a
 * colliding lane is found, the near but collision-free lanes before it are spared their
 * check1 (UR5's motions: ~1,200 of 1,930 colliding motions end so) */
static int check_first(const double *q, struct hull_guesses *guesses)
{
    struct pass p;
    unsigned answered = 0u;
    int l, r, done = 0;
    pass_start(&p, q);
    p.k.guesses = guesses;
    for (l = 0; l < 8; l++) {
        while (!done && !(p.open >> l & 1u)) {  /* to the next step that opens lanes */
            const unsigned before = p.open;
            /* (~before rather than 0xffu, the same: a constant had gcc inline pass_run here
             * and in checker_check8, and NAME_check8 ran 5 % more instructions on Panda) */
            done = pass_run(&p, ~before & 0xffu);
            r = answer_hits(&p, pass_hits(&p, p.open & ~before), &answered);
            if (r != CHECKER_FREE) return r;
        }
        if ((p.open >> l & 1u) && !(answered >> l & 1u)) {  /* (else: FREE, or answered) */
            answered |= 1u << l;
            if ((r = lane_answer(&p, l)) != CHECKER_FREE) return r;
        }
    }
    return CHECKER_FREE;
}

/*
 * The C floor of the compiled Max-Grundy search (issue 36): the same loops as
 * sdg_automata's kernels, written in C, over the same step tables.
 *
 *   search bfs   TABLES   breadth-first walk from q0, as kernels.automaton.bfs with
 *                         the table store: records of part ids (uint16, or int32 when
 *                         compiled with -DWIDE), an open-addressing table of record
 *                         numbers + 1 with 8-bit tags (load <= 70%, doubled and
 *                         rehashed), the tree (parent int32, letter uint8), appends;
 *   search lasso TABLES   the one-letter walk by Brent's cycle detection, as
 *                         kernels.automaton.walk/meet driven by search.walks.lasso
 *                         (phase 2 starts from the last of 64 checkpoints), on states
 *                         packed in one 64-bit word.
 *
 * A step is kernels.step.step: one instruction per group of the plan, each a few
 * lookups in the int32 heap (9 on the hardness family); the hash of a record is
 * kernels.step._hash.  TABLES is written by benchmarks/bench_floor.py from the
 * StepTables of a finished search of ours (every entry the walk needs is learned);
 * an entry still unknown (-1) is an error here, never a guess.
 *
 * Prints one JSON line: the states, the largest value found, the length of its
 * first (shortest) witness, and the CPU seconds of the walk alone.
 *
 * Build: cc -O2 -o search search.c   (and -DWIDE for ids of 16 bits or more).
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WIDE
typedef int32_t rec_t;
#else
typedef uint16_t rec_t;
#endif

#define GOLDEN 0x9E3779B97F4A7C15ULL
#define MIX 0xFF51AFD7ED558CCDULL
#define CHECKPOINTS 64

typedef struct {
    int64_t groups, letters, head, settle, bound, letter;
    int64_t *starts, *plan;
    int32_t *heap, *values, *initial;
    int64_t nvalues, *counts;  /* counts: the part ids of each group */
} tables_t;

static void die(const char *why) {
    fprintf(stderr, "search: %s\n", why);
    exit(2);
}

static void *alloc(size_t bytes) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) die("out of memory");
    return p;
}

static void read_exact(FILE *f, void *to, size_t bytes) {
    if (bytes && fread(to, 1, bytes, f) != bytes) die("truncated tables file");
}

static void *read_array(FILE *f, size_t count, size_t size) {
    void *p = alloc(count * size);
    read_exact(f, p, count * size);
    return p;
}

/* The file of benchmarks/bench_floor.py: "SDGFLOOR", 12 int64 fields (groups, letters,
 * the head's group, settle, bound, the lasso's letter, the sizes of heap, plan and values,
 * a constraint flag, 0, 0), then starts, initial, heap, plan, values and the part counts. */
static tables_t load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open the tables file");
    char magic[8];
    read_exact(f, magic, 8);
    if (memcmp(magic, "SDGFLOOR", 8)) die("not a tables file");
    int64_t h[12];
    read_exact(f, h, sizeof h);
    tables_t t;
    t.groups = h[0]; t.letters = h[1]; t.head = h[2]; t.settle = h[3]; t.bound = h[4];
    t.letter = h[5];
    int64_t nheap = h[6], nplan = h[7];
    t.nvalues = h[8];
    if (h[9] != 0) die("a constraint: not supported by the floor");
    t.starts = read_array(f, t.letters, 8);
    t.initial = read_array(f, t.groups, 4);
    t.heap = read_array(f, nheap, 4);
    t.plan = read_array(f, nplan, 8);
    t.values = read_array(f, t.nvalues, 4);
    t.counts = read_array(f, t.groups, 8);
    fclose(f);
    return t;
}

/* Kinds 3 and 4 of kernels.step.step, from the instruction at `at` (advanced past it):
 * NEW, r projected new parts chained; ANY, any mix of old and new parts.  They set `c`, or
 * return 1 from the step on an unknown entry; NEW_ID(i) and OLD_ID(i) read the id of
 * group i in the state being made and in the state stepped from. */
#define CHAIN_NEW(NEW_ID)                                                  \
    do {                                                                   \
        int64_t r_ = plan[at + 2];                                         \
        at += 3;                                                           \
        int64_t lv_ = at + 2 * r_;                                         \
        c = heap[plan[at + 1] + NEW_ID(plan[at])];                         \
        if (c < 0) return 1;                                               \
        for (int64_t j_ = 1; j_ < r_; j_++) {                              \
            at += 2;                                                       \
            int64_t p_ = heap[plan[at + 1] + NEW_ID(plan[at])];            \
            if (p_ < 0) return 1;                                          \
            c = heap[plan[lv_] + c * plan[lv_ + 1] + p_];                  \
            if (c < 0) return 1;                                           \
            lv_ += 2;                                                      \
        }                                                                  \
        at = lv_;                                                          \
    } while (0)

#define CHAIN_ANY(NEW_ID, OLD_ID)                                          \
    do {                                                                   \
        int64_t r_ = plan[at + 2];                                         \
        at += 3;                                                           \
        int64_t lv_ = at + 3 * r_;                                         \
        c = 0;                                                             \
        for (int64_t j_ = 0; j_ < r_; j_++) {                              \
            int64_t p_ = plan[at + 1] ? NEW_ID(plan[at]) : OLD_ID(plan[at]); \
            if (plan[at + 2] >= 0) {                                       \
                p_ = heap[plan[at + 2] + p_];                              \
                if (p_ < 0) return 1;                                      \
            }                                                              \
            at += 3;                                                       \
            if (j_ == 0) {                                                 \
                c = p_;                                                    \
                if (r_ > 1) continue;                                      \
                p_ = 0;                                                    \
            }                                                              \
            c = heap[plan[lv_] + c * plan[lv_ + 1] + p_];                  \
            lv_ += 2;                                                      \
            if (c < 0) return 1;                                           \
        }                                                                  \
        at = lv_;                                                          \
    } while (0)

#define REC_NEW(i) ((int64_t)dst[i])
#define REC_OLD(i) ((int64_t)src[i])

/* kernels.step.step: dst <- delta(src, a), a's plan at plan[at]; 1 when an entry is
 * unknown */
static inline int step(const int32_t *heap, const int64_t *plan, int64_t at,
                       const rec_t *src, rec_t *dst) {
    int64_t entries = plan[at++];
    for (int64_t e = 0; e < entries; e++) {
        int64_t kind = plan[at], g = plan[at + 1], c;
        if (kind == 0) {
            dst[g] = 0;
            at += 2;
            continue;
        }
        if (kind == 1) {
            c = heap[plan[at + 3] + src[plan[at + 2]]];
            at += 4;
        } else if (kind == 2) {
            c = heap[plan[at + 4] + (int64_t)src[plan[at + 2]] * plan[at + 5]
                     + src[plan[at + 3]]];
            at += 6;
        } else if (kind == 3) {
            CHAIN_NEW(REC_NEW);
        } else {
            CHAIN_ANY(REC_NEW, REC_OLD);
        }
        if (c < 0) return 1;
        dst[g] = (rec_t)c;
    }
    return 0;
}

/* kernels.step._hash */
static inline uint64_t hash(const rec_t *r, int64_t width) {
    uint64_t h = GOLDEN;
    for (int64_t i = 0; i < width; i++) {
        h = (h ^ (uint64_t)(int64_t)r[i]) * GOLDEN;
        h ^= h >> 29;
    }
    h ^= h >> 32;
    h *= MIX;
    h ^= h >> 29;
    return h;
}

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int value_of(const tables_t *t, const rec_t *r) {
    int64_t id = r[t->head];
    return id < t->nvalues ? t->values[id] : -1;
}

/* -- breadth-first ------------------------------------------------------------------- */

typedef struct {
    rec_t *records;
    int32_t *parent;
    uint8_t *via;
    uint32_t *table;
    uint8_t *tags;
    int64_t capacity, slots, width;
} store_t;

static void place(store_t *s, int64_t row) {
    uint64_t h = hash(s->records + row * s->width, s->width);
    uint64_t mask = (uint64_t)s->slots - 1, slot = h & mask;
    while (s->table[slot]) slot = (slot + 1) & mask;
    s->table[slot] = (uint32_t)(row + 1);
    s->tags[slot] = (uint8_t)(h >> 56);
}

static void grow_table(store_t *s, int64_t n) {
    free(s->table);
    free(s->tags);
    s->slots *= 2;
    s->table = calloc(s->slots, 4);
    s->tags = calloc(s->slots, 1);
    if (!s->table || !s->tags) die("out of memory");
    for (int64_t r = 0; r < n; r++) place(s, r);
}

static void grow_rows(store_t *s) {
    s->capacity *= 2;
    s->records = realloc(s->records, s->capacity * s->width * sizeof(rec_t));
    s->parent = realloc(s->parent, s->capacity * 4);
    s->via = realloc(s->via, s->capacity);
    if (!s->records || !s->parent || !s->via) die("out of memory");
}

static inline int same(const rec_t *a, const rec_t *b, int64_t width) {
    for (int64_t i = 0; i < width; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* Successors a block at a time, as the kernel does: their steps and hashes first, with
 * the table slots they will probe prefetched, then their lookups in order (so that the
 * states are numbered as one at a time would number them). */
#define BATCH 64

static int bfs(const tables_t *t) {
    int64_t width = t->groups, letters = t->letters;
    store_t s = {0};
    s.width = width;
    s.capacity = 1 << 12;
    s.slots = 1 << 13;
    s.records = alloc(s.capacity * width * sizeof(rec_t));
    s.parent = alloc(s.capacity * 4);
    s.via = alloc(s.capacity);
    s.table = calloc(s.slots, 4);
    s.tags = calloc(s.slots, 1);
    if (!s.table || !s.tags) die("out of memory");
    int64_t *found = alloc((t->bound + 1) * 8);
    for (int64_t v = 0; v <= t->bound; v++) found[v] = -1;
    for (int64_t g = 0; g < width; g++) s.records[g] = (rec_t)t->initial[g];
    place(&s, 0);
    rec_t *block = alloc(BATCH * width * sizeof(rec_t));
    uint64_t hashes[BATCH];
    int64_t origin[BATCH];
    double started = cpu();
    int64_t n = 1, sid = 0, letter = 0;
    int settled = 0;
    while (sid < n && !settled) {
        if (n + BATCH >= s.capacity) grow_rows(&s);
        if ((n + BATCH) * 100 >= s.slots * 70) grow_table(&s, n);
        uint64_t mask = (uint64_t)s.slots - 1;
        int64_t m = 0;
        for (int64_t q = sid, c = letter; m < BATCH && q < n; m++) {
            rec_t *next = block + m * width;
            if (step(t->heap, t->plan, t->starts[c], s.records + q * width, next))
                die("a step table entry is unknown: the tables are not complete");
            uint64_t h = hash(next, width);
            hashes[m] = h;
            origin[m] = q * letters + c;
            __builtin_prefetch(s.table + (h & mask));
            __builtin_prefetch(s.tags + (h & mask));
            if (++c == letters) {
                c = 0;
                q++;
            }
        }
        for (int64_t j = 0; j < m; j++) {
            const rec_t *next = block + j * width;
            uint64_t h = hashes[j], slot = h & mask;
            uint8_t tag = (uint8_t)(h >> 56);
            int64_t r = -1;
            for (;;) {
                uint32_t e = s.table[slot];
                if (!e) break;
                if (s.tags[slot] == tag && same(s.records + (int64_t)(e - 1) * width, next,
                                                width)) {
                    r = e - 1;
                    break;
                }
                slot = (slot + 1) & mask;
            }
            int64_t q = origin[j] / letters, c = origin[j] % letters;
            sid = c + 1 == letters ? q + 1 : q;
            letter = c + 1 == letters ? 0 : c + 1;
            if (r >= 0) continue;
            memcpy(s.records + n * width, next, width * sizeof(rec_t));
            s.table[slot] = (uint32_t)(n + 1);
            s.tags[slot] = tag;
            s.parent[n] = (int32_t)q;
            s.via[n] = (uint8_t)c;
            int v = value_of(t, next);
            n++;
            if (v >= 0 && v <= t->bound && found[v] < 0) {
                found[v] = n - 1;
                if (v >= t->settle) {
                    settled = 1;
                    break;
                }
            }
        }
    }
    double seconds = cpu() - started;
    int64_t best = -1, length = 0;
    for (int64_t v = t->bound; v >= 0; v--)
        if (found[v] >= 0) { best = v; break; }
    if (best >= 0)
        for (int64_t u = found[best]; u > 0; u = s.parent[u]) length++;
    printf("{\"states\": %lld, \"max\": %lld, \"length\": %lld, \"seconds\": %.6f}\n",
           (long long)n, (long long)best, (long long)length, seconds);
    return 0;
}

/* -- the lasso ------------------------------------------------------------------------ */

/* The lasso on states packed in one 64-bit word (each group's id a bit field; the
 * program refuses tables whose ids need more): the state a compact store's key would be,
 * and the step the same table reads, with the fields read by shifts.  The letter's plan is decoded once; its instructions of
 * kinds 0-2 (the hardness family's, but for one) run from that decoding, the others as
 * kernels.step.step runs them, over the ids of the new state computed so far. */

typedef struct {
    int64_t kind, g, at;          /* at: the instruction in the plan (kinds 3, 4) */
    int64_t s0, m0, s1, m1, off, cols;
} op_t;

typedef struct {
    int64_t groups, shift[64], mask[64];
    op_t op[64];
    int64_t ops;
} packed_t;

static inline int64_t field(uint64_t w, int64_t s, int64_t m) {
    return (int64_t)((w >> s) & (uint64_t)m);
}

static int pack_plan(const tables_t *t, int64_t at, packed_t *p) {
    int64_t bits = 0;
    p->groups = t->groups;
    if (t->groups > 64) return 0;
    for (int64_t g = 0; g < t->groups; g++) {
        int64_t w = 1;
        while (((int64_t)1 << w) < t->counts[g]) w++;
        p->shift[g] = bits;
        p->mask[g] = ((int64_t)1 << w) - 1;
        bits += w;
    }
    if (bits > 64) return 0;
    const int64_t *plan = t->plan;
    p->ops = plan[at++];
    for (int64_t e = 0; e < p->ops; e++) {
        op_t *o = &p->op[e];
        o->kind = plan[at];
        o->g = plan[at + 1];
        o->at = at;
        if (o->kind == 0) {
            at += 2;
        } else if (o->kind == 1) {
            o->s0 = p->shift[plan[at + 2]]; o->m0 = p->mask[plan[at + 2]];
            o->off = plan[at + 3];
            at += 4;
        } else if (o->kind == 2) {
            o->s0 = p->shift[plan[at + 2]]; o->m0 = p->mask[plan[at + 2]];
            o->s1 = p->shift[plan[at + 3]]; o->m1 = p->mask[plan[at + 3]];
            o->off = plan[at + 4];
            o->cols = plan[at + 5];
            at += 6;
        } else if (o->kind == 3) {
            at += 3 + 4 * plan[at + 2] - 2;
        } else {
            int64_t r = plan[at + 2];
            at += 3 + 3 * r + 2 * (r > 1 ? r - 1 : 1);
        }
    }
    return 1;
}

#define PACKED_NEW(i) (dst[i])
#define PACKED_OLD(i) field(w, p->shift[i], p->mask[i])

/* the successor of w; 1 when an entry is unknown */
static inline int step_packed(const tables_t *t, const packed_t *p, uint64_t w,
                              uint64_t *out) {
    const int32_t *heap = t->heap;
    const int64_t *plan = t->plan;
    int64_t dst[64];
    uint64_t next = 0;
    for (int64_t e = 0; e < p->ops; e++) {
        const op_t *o = &p->op[e];
        int64_t c;
        if (o->kind == 0) {
            dst[o->g] = 0;
            continue;
        }
        if (o->kind == 1) {
            c = heap[o->off + field(w, o->s0, o->m0)];
        } else if (o->kind == 2) {
            c = heap[o->off + field(w, o->s0, o->m0) * o->cols + field(w, o->s1, o->m1)];
        } else {
            int64_t at = o->at;
            if (o->kind == 3)
                CHAIN_NEW(PACKED_NEW);
            else
                CHAIN_ANY(PACKED_NEW, PACKED_OLD);
        }
        if (c < 0 || c > p->mask[o->g]) return 1;
        dst[o->g] = c;
        next |= (uint64_t)c << p->shift[o->g];
    }
    *out = next;
    return 0;
}

static int lasso(const tables_t *t) {
    packed_t p;
    if (!pack_plan(t, t->starts[t->letter], &p))
        die("the lasso's states do not fit in one 64-bit word");
    uint64_t start = 0;
    for (int64_t g = 0; g < t->groups; g++) start |= (uint64_t)t->initial[g] << p.shift[g];
    int64_t head_shift = p.shift[t->head], head_mask = p.mask[t->head];
    int64_t *first = alloc((t->bound + 1) * 8);
    for (int64_t v = 0; v <= t->bound; v++) first[v] = -1;
    int64_t mpos[CHECKPOINTS + 1], count = 1, spacing = 1;
    uint64_t mstate[CHECKPOINTS + 1];
    mpos[0] = 0;
    mstate[0] = start;
    double started = cpu();
    uint64_t hare = start, tortoise;
    int64_t pos = 0, power = 1, cycle = -1, states = -1;
    while (cycle < 0 && states < 0) {  /* phase 1 */
        tortoise = hare;
        for (int64_t steps = 0; steps < power; steps++) {
            if (step_packed(t, &p, hare, &hare))
                die("a step table entry is unknown: the tables are not complete");
            pos++;
            if (pos == mpos[count - 1] + spacing) {
                mpos[count] = pos;
                mstate[count++] = hare;
                if (count > CHECKPOINTS) {
                    spacing *= 2;
                    int64_t kept = 0;
                    for (int64_t i = 0; i < count; i++)
                        if (mpos[i] % spacing == 0) {
                            mpos[kept] = mpos[i];
                            mstate[kept++] = mstate[i];
                        }
                    count = kept;
                }
            }
            int64_t id = field(hare, head_shift, head_mask);
            int v = id < t->nvalues ? t->values[id] : -1;
            if (v >= 0 && v <= t->bound && first[v] < 0) {
                first[v] = pos;
                if (v >= t->settle) { states = pos + 1; break; }
            }
            if (hare == tortoise) { cycle = steps + 1; break; }
        }
        power *= 2;
    }
    if (states < 0) {  /* phase 2 */
        int64_t k = 0;
        for (int64_t i = 0; i < count; i++)
            if (mpos[i] <= cycle && mpos[i] >= mpos[k]) k = i;
        hare = mstate[k];
        for (int64_t q = mpos[k]; q < cycle; q++)
            if (step_packed(t, &p, hare, &hare)) die("unknown step table entry");
        tortoise = start;
        int64_t tail = 0;
        while (hare != tortoise) {
            if (step_packed(t, &p, tortoise, &tortoise) || step_packed(t, &p, hare, &hare))
                die("unknown step table entry");
            tail++;
        }
        states = tail + cycle;
    }
    double seconds = cpu() - started;
    int64_t best = -1;
    for (int64_t v = t->bound; v >= 0; v--)
        if (first[v] >= 0) { best = v; break; }
    printf("{\"states\": %lld, \"max\": %lld, \"length\": %lld, \"seconds\": %.6f}\n",
           (long long)states, (long long)best, (long long)(best >= 0 ? first[best] : 0),
           seconds);
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) die("usage: search bfs|lasso TABLES");
    tables_t t = load(argv[2]);
    if (!strcmp(argv[1], "bfs")) return bfs(&t);
    if (!strcmp(argv[1], "lasso")) {
        if (t.letter < 0 || t.letter >= t.letters) die("the tables name no letter");
        return lasso(&t);
    }
    die("usage: search bfs|lasso TABLES");
    return 2;
}

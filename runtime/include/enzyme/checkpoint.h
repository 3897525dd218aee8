/*
 * <enzyme/checkpoint.h> -- enz-rs's checkpointed time loops, the C API (and
 * ABI) of Enzyme's header of the same name.
 *
 *   __enzyme_checkpoint_for(step, start, n, enzyme_scheme, &scheme, data,
 *                           [enzyme_checkpoint_region, ptr, bytes,]...
 *                           args...);
 *       runs  for (int64_t i = start; i < start + n; i++) step(i, args...);
 *   __enzyme_checkpoint_while(step, enzyme_scheme, &scheme, data,
 *                             [enzyme_checkpoint_region, ptr, bytes,]...
 *                             args...);
 *       runs  int64_t i = 0; while (step(i++, args...));
 *
 * with step a function defined in the same module. In reverse mode enz-rs
 * keeps the tape of one step at a time: the scheme says which states to
 * snapshot (STORE into a slot), which steps to rerun plainly (FORWARD),
 * when to turn (FIRSTUTURN ends the forward sweep, UTURN differentiates one
 * step: its augmented primal and its reverse together) and which snapshot
 * to load (RESTORE), until DONE. Steps are counted from 0; step j is called
 * with i = start + j. The flags and EnzymeCkptAction are those of
 * Revolve's protocol as Checkpointing.jl spells it:
 *
 *   STORE      iteration c, cpnum k: the state before step c into slot k
 *   FORWARD    startiteration a, iteration b: steps a .. b-1 plainly
 *   FIRSTUTURN iteration b: the state is before step b-1, the last one
 *   UTURN      iteration b: the state is before step b-1; differentiate it
 *   RESTORE    iteration c, cpnum k: load slot k (the state before step c)
 *   DONE       the end (the first action when there are no steps)
 *
 * The driver uses two slots of its own, which store and restore must
 * accept: -2, the state before the last step (stored at FIRSTUTURN, loaded
 * when the reverse sweep starts), and -1, the state the reverse sweep
 * starts from (loaded at DONE: afterwards the state is the one the forward
 * pass left).
 *
 * A snapshot holds the listed regions and every writable global the step
 * reaches (enz-rs takes them all, not only those written), passed to store
 * and restore as an EnzymeCkptRegion array. A while loop calls init with
 * nsteps = -1 and set_nsteps(n) when step n-1 returns zero, then goes on
 * with the schedule.
 *
 * Reference schemes (written for enz-rs), used as
 * `enzyme_scheme, &EnzymeCkptRevolve, &config`:
 *   EnzymeCkptRevolve   binomial checkpointing (Griewank & Walther, ACM TOMS
 *                       Alg. 799) with config.snapshots slots; for loops
 *   EnzymeCkptPeriodic  config.snapshots segments whose starts the forward
 *                       sweep stores; reversing a segment stores the state
 *                       before each of its steps
 *   EnzymeCkptStoreAll  a snapshot before every step; for while loops too
 *                       (Periodic drives a while loop the same way)
 * Snapshots live in memory, or in files under config.spill_dir for slots
 * past config.mem_budget bytes.
 *
 * Not supported by enz-rs: save_state, load_state and set_paths (a scheme
 * must set store and restore; set_paths is never called), device memory
 * regions, forward mode other than the plain loop's tangent, and
 * __enzyme_fwdsplit through a checkpointed loop. A scheme that lacks a
 * function an action needs, or an action out of place, traps.
 */
#ifndef ENZ_RS_CHECKPOINT_H
#define ENZ_RS_CHECKPOINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ENZYME_CKPT_ABI_VERSION 1

enum {
  ENZYME_CKPT_NONE = 0,
  ENZYME_CKPT_STORE = 1,
  ENZYME_CKPT_RESTORE = 2,
  ENZYME_CKPT_FORWARD = 3,
  ENZYME_CKPT_FIRSTUTURN = 4,
  ENZYME_CKPT_UTURN = 5,
  ENZYME_CKPT_ERROR = 6,
  ENZYME_CKPT_DONE = 7
};

typedef struct EnzymeCkptAction {
  int32_t flag;
  int64_t iteration;
  int64_t startiteration;
  int64_t cpnum;
} EnzymeCkptAction;

typedef struct EnzymeCkptRegion {
  void *ptr;
  uint64_t bytes;
  uint32_t addrspace;
  uint32_t flags;
} EnzymeCkptRegion;

typedef struct EnzymeCheckpointScheme {
  uint32_t version;
  void *(*init)(void *data, int64_t nsteps, uint64_t snapshot_bytes);
  void (*next_action)(void *state, EnzymeCkptAction *out);
  void (*store)(void *state, int64_t slot, int64_t step,
                const EnzymeCkptRegion *regions, uint64_t nregions);
  void (*restore)(void *state, int64_t slot, int64_t step,
                  const EnzymeCkptRegion *regions, uint64_t nregions);
  void (*set_nsteps)(void *state, int64_t nsteps);
  void (*finalize)(void *state);
  void (*save_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*load_state)(void *state, int64_t slot, int64_t step, void *env);
  void (*set_paths)(void *state, const int64_t *paths, uint64_t len);
} EnzymeCheckpointScheme;

extern int enzyme_scheme;
extern int enzyme_checkpoint_region;

void __enzyme_checkpoint_for(void *step, int64_t start, int64_t n, ...);
void __enzyme_checkpoint_while(void *step, ...);

typedef struct EnzymeCkptStats {
  int64_t forward_steps; /* steps run plainly by FORWARD actions */
  int64_t taped_steps;   /* FIRSTUTURN and UTURN actions */
  int64_t stores;        /* into slots >= 0 */
  int64_t restores;      /* from slots >= 0 */
  int64_t max_slots;     /* slots >= 0 that held a snapshot */
  uint64_t max_bytes;    /* max_slots times the snapshot's bytes */
} EnzymeCkptStats;

typedef struct EnzymeCkptConfig {
  int64_t snapshots; /* Revolve: slots; Periodic: segments */
  int verbose;       /* 1: a summary on stderr; 2: every action too */
  const char *spill_dir;
  uint64_t mem_budget;
  EnzymeCkptStats *stats; /* filled in by finalize if set */
} EnzymeCkptConfig;

/* ---- What the reference schemes share: slots and statistics. ---- */

typedef struct enz_ckpt_base {
  const EnzymeCkptConfig *config;
  uint64_t bytes;
  int64_t nbuf;     /* buffers for slots -2 .. nbuf-3 */
  void **buf;       /* NULL: never stored; on disk: (void *)1 */
  EnzymeCkptStats stats;
} enz_ckpt_base;

static inline void enz_ckpt_die(const char *why) {
  fprintf(stderr, "enz-rs checkpointing: %s\n", why);
  abort();
}

static inline void enz_ckpt_base_init(enz_ckpt_base *b, void *data,
                                      uint64_t bytes) {
  memset(b, 0, sizeof(*b));
  b->config = (const EnzymeCkptConfig *)data;
  if (!b->config)
    enz_ckpt_die("the scheme's data must point to an EnzymeCkptConfig");
  b->bytes = bytes;
}

static inline int enz_ckpt_spilled(const enz_ckpt_base *b, int64_t at) {
  return b->config->spill_dir && (uint64_t)at * b->bytes >= b->config->mem_budget;
}

static inline FILE *enz_ckpt_file(const enz_ckpt_base *b, int64_t at,
                                  const char *mode) {
  char name[4096];
  FILE *f;
  snprintf(name, sizeof(name), "%s/enz_ckpt_%p_%lld", b->config->spill_dir,
           (const void *)b, (long long)at);
  if (mode == NULL) {
    remove(name);
    return NULL;
  }
  f = fopen(name, mode);
  if (!f)
    enz_ckpt_die("cannot open a spill file");
  return f;
}

static inline void enz_ckpt_put(enz_ckpt_base *b, int64_t slot,
                                const EnzymeCkptRegion *r, uint64_t nr) {
  int64_t at = slot + 2;
  uint64_t k, off = 0;
  if (at < 0)
    enz_ckpt_die("store into a slot below -2");
  if (at >= b->nbuf) {
    int64_t n = b->nbuf ? b->nbuf : 8;
    while (n <= at)
      n *= 2;
    b->buf = (void **)realloc(b->buf, (size_t)n * sizeof(void *));
    memset(b->buf + b->nbuf, 0, (size_t)(n - b->nbuf) * sizeof(void *));
    b->nbuf = n;
  }
  if (slot >= 0) {
    b->stats.stores++;
    if (!b->buf[at]) {
      b->stats.max_slots++;
      b->stats.max_bytes = (uint64_t)b->stats.max_slots * b->bytes;
    }
  }
  for (k = 0; k < nr; k++)
    if (r[k].addrspace)
      enz_ckpt_die("snapshots of device memory are not supported");
  if (enz_ckpt_spilled(b, at)) {
    FILE *f = enz_ckpt_file(b, at, "wb");
    for (k = 0; k < nr; k++)
      if (fwrite(r[k].ptr, 1, r[k].bytes, f) != r[k].bytes)
        enz_ckpt_die("short write to a spill file");
    fclose(f);
    b->buf[at] = (void *)1;
    return;
  }
  if (!b->buf[at])
    b->buf[at] = malloc(b->bytes ? b->bytes : 1);
  for (k = 0; k < nr; off += r[k].bytes, k++)
    memcpy((char *)b->buf[at] + off, r[k].ptr, r[k].bytes);
}

static inline void enz_ckpt_get(enz_ckpt_base *b, int64_t slot,
                                const EnzymeCkptRegion *r, uint64_t nr) {
  int64_t at = slot + 2;
  uint64_t k, off = 0;
  if (at < 0 || at >= b->nbuf || !b->buf[at])
    enz_ckpt_die("restore from a slot never stored");
  if (slot >= 0)
    b->stats.restores++;
  if (enz_ckpt_spilled(b, at)) {
    FILE *f = enz_ckpt_file(b, at, "rb");
    for (k = 0; k < nr; k++)
      if (fread(r[k].ptr, 1, r[k].bytes, f) != r[k].bytes)
        enz_ckpt_die("short read from a spill file");
    fclose(f);
    return;
  }
  for (k = 0; k < nr; off += r[k].bytes, k++)
    memcpy(r[k].ptr, (char *)b->buf[at] + off, r[k].bytes);
}

/* Counts and (verbose 2) prints the action a scheme hands out. */
static inline void enz_ckpt_emit(enz_ckpt_base *b, EnzymeCkptAction *out,
                                 int32_t flag, int64_t start, int64_t it,
                                 int64_t slot) {
  static const char *const names[] = {"none",       "store", "restore",
                                      "forward",    "firstuturn", "uturn",
                                      "error",      "done"};
  out->flag = flag;
  out->startiteration = start;
  out->iteration = it;
  out->cpnum = slot;
  if (flag == ENZYME_CKPT_FORWARD)
    b->stats.forward_steps += it - start;
  else if (flag == ENZYME_CKPT_FIRSTUTURN || flag == ENZYME_CKPT_UTURN)
    b->stats.taped_steps++;
  if (b->config->verbose > 1)
    fprintf(stderr, "checkpoint action %s start %lld iteration %lld slot %lld\n",
            names[flag & 7], (long long)start, (long long)it, (long long)slot);
}

static inline void enz_ckpt_base_finish(enz_ckpt_base *b) {
  int64_t at;
  const EnzymeCkptStats *s = &b->stats;
  if (b->config->verbose > 0)
    fprintf(stderr,
            "checkpointing: %lld steps forward, %lld taped, %lld stores, "
            "%lld restores, %lld slots (%llu bytes)\n",
            (long long)s->forward_steps, (long long)s->taped_steps,
            (long long)s->stores, (long long)s->restores,
            (long long)s->max_slots, (unsigned long long)s->max_bytes);
  if (b->config->stats)
    *b->config->stats = *s;
  for (at = 0; at < b->nbuf; at++) {
    if (!b->buf[at])
      continue;
    if (enz_ckpt_spilled(b, at))
      enz_ckpt_file(b, at, NULL);
    else
      free(b->buf[at]);
  }
  free(b->buf);
}

static inline void enz_ckpt_store(void *s, int64_t slot, int64_t step,
                                  const EnzymeCkptRegion *r, uint64_t nr) {
  (void)step;
  enz_ckpt_put((enz_ckpt_base *)s, slot, r, nr);
}

static inline void enz_ckpt_restore(void *s, int64_t slot, int64_t step,
                                    const EnzymeCkptRegion *r, uint64_t nr) {
  (void)step;
  enz_ckpt_get((enz_ckpt_base *)s, slot, r, nr);
}

/* ---- Revolve: binomial checkpointing. ----
 *
 * With the state before step `cur` in memory (stored in the top slot) and
 * c slots free, the steps cur .. end-1 are reversed by advancing m steps,
 * storing, reversing end-m' steps from there with c-1 slots, then coming
 * back. beta(c, t) = C(c + t, c) steps can be reversed with c slots when
 * no step is run more than t times forward; m is chosen so that the far
 * part fits beta(c-1, t) and the near part beta(c, t-1), t the least with
 * beta(c, t) >= end - cur. The state of the last snapshot is the first
 * restored (a stack). */

typedef struct enz_ckpt_revolve {
  enz_ckpt_base base; /* first: store and restore take the state as one */
  int64_t slots;      /* min(config.snapshots, n), at least 1 */
  int64_t cur;        /* the state in memory is before step cur ... */
  int valid;          /* ... unless a turn has just run */
  int turned;         /* whether the first turn was handed out */
  int64_t end;        /* steps end .. n-1 are reversed */
  int64_t top;        /* the top slot, -1: none */
  int64_t *at;        /* at[k]: the step slot k is before */
} enz_ckpt_revolve;

static inline void *enz_ckpt_revolve_init(void *data, int64_t n,
                                          uint64_t bytes) {
  enz_ckpt_revolve *r = (enz_ckpt_revolve *)calloc(1, sizeof(*r));
  enz_ckpt_base_init(&r->base, data, bytes);
  if (n < 0)
    enz_ckpt_die("EnzymeCkptRevolve needs the number of steps (not a while "
                 "loop: use EnzymeCkptStoreAll)");
  r->slots = r->base.config->snapshots < n ? r->base.config->snapshots : n;
  if (r->slots < 1)
    r->slots = 1;
  r->at = (int64_t *)calloc((size_t)r->slots, sizeof(int64_t));
  r->end = n;
  r->valid = 1;
  r->top = -1;
  return r;
}

/* How far to advance from a stored state with `left` steps to reverse and
 * `free` slots. */
static inline int64_t enz_ckpt_revolve_advance(int64_t left, int64_t free) {
  double beta = 1.0, t = 0.0, far;
  if (free < 1)
    return left - 1;
  /* beta(free, t) for the least t with beta >= left. */
  while (beta < (double)left) {
    t += 1.0;
    beta = beta * ((double)free + t) / t;
  }
  far = beta * (double)free / ((double)free + t); /* beta(free - 1, t) */
  if ((double)left - far < 1.0)
    return 1;
  return left - (int64_t)far;
}

static inline void enz_ckpt_revolve_next(void *s, EnzymeCkptAction *out) {
  enz_ckpt_revolve *r = (enz_ckpt_revolve *)s;
  enz_ckpt_base *b = &r->base;
  if (r->end == 0) {
    enz_ckpt_emit(b, out, ENZYME_CKPT_DONE, 0, 0, -1);
  } else if (!r->valid) {
    r->cur = r->at[r->top];
    r->valid = 1;
    enz_ckpt_emit(b, out, ENZYME_CKPT_RESTORE, r->cur, r->cur, r->top);
  } else if (r->cur == r->end - 1) {
    int32_t flag = r->turned ? ENZYME_CKPT_UTURN : ENZYME_CKPT_FIRSTUTURN;
    r->turned = 1;
    enz_ckpt_emit(b, out, flag, r->end - 1, r->end, r->top);
    r->end--;
    r->valid = 0;
    if (r->top >= 0 && r->at[r->top] >= r->end)
      r->top--;
  } else if ((r->top < 0 || r->at[r->top] != r->cur) &&
             r->top + 1 < r->slots) {
    r->at[++r->top] = r->cur;
    enz_ckpt_emit(b, out, ENZYME_CKPT_STORE, r->cur, r->cur, r->top);
  } else {
    int64_t m = enz_ckpt_revolve_advance(r->end - r->cur,
                                         r->slots - (r->top + 1));
    enz_ckpt_emit(b, out, ENZYME_CKPT_FORWARD, r->cur, r->cur + m, r->top);
    r->cur += m;
  }
}

static inline void enz_ckpt_revolve_finalize(void *s) {
  enz_ckpt_revolve *r = (enz_ckpt_revolve *)s;
  enz_ckpt_base_finish(&r->base);
  free(r->at);
  free(r);
}

static const EnzymeCheckpointScheme EnzymeCkptRevolve = {
    ENZYME_CKPT_ABI_VERSION, enz_ckpt_revolve_init, enz_ckpt_revolve_next,
    enz_ckpt_store,          enz_ckpt_restore,      NULL,
    enz_ckpt_revolve_finalize, NULL,                NULL,
    NULL};

/* ---- Periodic (and StoreAll, one segment). ----
 *
 * Segment k holds steps [k n / K, (k+1) n / K). The forward sweep stores
 * the start of every segment but the last into slot k. A segment is
 * reversed by storing the state before each of its steps (its start in
 * slot k, step j in slot K + j - start - 1), turning at its last step,
 * then restoring and turning at each earlier one; then the previous
 * segment's start is restored. A while loop stores before every step
 * until set_nsteps, then is reversed as one segment. */

enum {
  ENZ_CKPT_SEGMENTS, /* the forward sweep's segment starts */
  ENZ_CKPT_SWEEP,    /* storing the steps of segment seg, up to its turn */
  ENZ_CKPT_BACK,     /* restore and turn at step j of segment seg */
  ENZ_CKPT_ONLINE,   /* a while loop still running */
  ENZ_CKPT_LAST,     /* a while loop ended: restore its last step */
  ENZ_CKPT_END
};

typedef struct enz_ckpt_periodic {
  enz_ckpt_base base;
  int64_t n, segments;
  int phase;
  int turned;
  int half;   /* the second action of a pair (store/forward, restore/turn) */
  int stored; /* whether the state before step p is stored */
  int64_t seg, p, j;
} enz_ckpt_periodic;

static inline int64_t enz_ckpt_seg(const enz_ckpt_periodic *q, int64_t k) {
  return k * q->n / q->segments;
}

static inline int64_t enz_ckpt_seg_slot(const enz_ckpt_periodic *q,
                                        int64_t step) {
  int64_t a = enz_ckpt_seg(q, q->seg);
  return step == a ? q->seg : q->segments + (step - a - 1);
}

static inline void enz_ckpt_periodic_start(enz_ckpt_periodic *q, int64_t n,
                                           int64_t segments) {
  q->n = n;
  q->segments = segments < n ? segments : n;
  if (q->segments < 1)
    q->segments = 1;
  q->half = 0;
  q->seg = 0;
  if (n == 0) {
    q->phase = ENZ_CKPT_END;
  } else if (q->segments == 1) {
    q->phase = ENZ_CKPT_SWEEP;
    q->p = 0;
    q->stored = 0;
  } else {
    q->phase = ENZ_CKPT_SEGMENTS;
  }
}

static inline void *enz_ckpt_segments_init(void *data, int64_t n,
                                           uint64_t bytes, int all) {
  enz_ckpt_periodic *q = (enz_ckpt_periodic *)calloc(1, sizeof(*q));
  enz_ckpt_base_init(&q->base, data, bytes);
  if (n < 0) {
    q->phase = ENZ_CKPT_ONLINE;
    q->segments = 1;
  } else {
    enz_ckpt_periodic_start(q, n, all ? 1 : q->base.config->snapshots);
  }
  return q;
}

static inline void *enz_ckpt_periodic_init(void *data, int64_t n,
                                           uint64_t bytes) {
  return enz_ckpt_segments_init(data, n, bytes, 0);
}

static inline void *enz_ckpt_store_all_init(void *data, int64_t n,
                                            uint64_t bytes) {
  return enz_ckpt_segments_init(data, n, bytes, 1);
}

static inline void enz_ckpt_periodic_set_nsteps(void *s, int64_t n) {
  enz_ckpt_periodic *q = (enz_ckpt_periodic *)s;
  if (q->phase != ENZ_CKPT_ONLINE || n < 1 || n > q->p + 1)
    enz_ckpt_die("set_nsteps out of place");
  q->n = n;
  q->segments = 1;
  q->seg = 0;
  q->phase = ENZ_CKPT_LAST;
}

static inline void enz_ckpt_periodic_next(void *s, EnzymeCkptAction *out) {
  enz_ckpt_periodic *q = (enz_ckpt_periodic *)s;
  enz_ckpt_base *b = &q->base;
  int64_t a, e;
  switch (q->phase) {
  case ENZ_CKPT_ONLINE:
    if (!q->half)
      enz_ckpt_emit(b, out, ENZYME_CKPT_STORE, q->p, q->p, q->p);
    else
      enz_ckpt_emit(b, out, ENZYME_CKPT_FORWARD, q->p, q->p + 1, q->p), q->p++;
    q->half = !q->half;
    return;
  case ENZ_CKPT_LAST:
    q->p = q->n - 1;
    q->stored = 1;
    q->phase = ENZ_CKPT_SWEEP;
    enz_ckpt_emit(b, out, ENZYME_CKPT_RESTORE, q->p, q->p, q->p);
    return;
  case ENZ_CKPT_SEGMENTS:
    a = enz_ckpt_seg(q, q->seg);
    e = enz_ckpt_seg(q, q->seg + 1);
    if (!q->half) {
      enz_ckpt_emit(b, out, ENZYME_CKPT_STORE, a, a, q->seg);
      q->half = 1;
      return;
    }
    enz_ckpt_emit(b, out, ENZYME_CKPT_FORWARD, a, e, q->seg);
    q->half = 0;
    if (++q->seg == q->segments - 1) {
      q->phase = ENZ_CKPT_SWEEP;
      q->p = e;
      q->stored = 0;
    }
    return;
  case ENZ_CKPT_SWEEP:
    e = enz_ckpt_seg(q, q->seg + 1);
    if (q->p == e - 1) {
      int32_t flag = q->turned ? ENZYME_CKPT_UTURN : ENZYME_CKPT_FIRSTUTURN;
      q->turned = 1;
      enz_ckpt_emit(b, out, flag, q->p, e, enz_ckpt_seg_slot(q, q->p));
      q->phase = ENZ_CKPT_BACK;
      q->j = e - 2;
      q->half = 0;
    } else if (!q->stored) {
      enz_ckpt_emit(b, out, ENZYME_CKPT_STORE, q->p, q->p,
                    enz_ckpt_seg_slot(q, q->p));
      q->stored = 1;
    } else {
      enz_ckpt_emit(b, out, ENZYME_CKPT_FORWARD, q->p, q->p + 1,
                    enz_ckpt_seg_slot(q, q->p));
      q->p++;
      q->stored = 0;
    }
    return;
  case ENZ_CKPT_BACK:
    a = enz_ckpt_seg(q, q->seg);
    if (q->j >= a) {
      if (!q->half)
        enz_ckpt_emit(b, out, ENZYME_CKPT_RESTORE, q->j, q->j,
                      enz_ckpt_seg_slot(q, q->j));
      else
        enz_ckpt_emit(b, out, ENZYME_CKPT_UTURN, q->j, q->j + 1,
                      enz_ckpt_seg_slot(q, q->j)),
            q->j--;
      q->half = !q->half;
      return;
    }
    if (q->seg == 0) {
      q->phase = ENZ_CKPT_END;
      break;
    }
    q->seg--;
    q->p = enz_ckpt_seg(q, q->seg);
    q->stored = 1;
    q->phase = ENZ_CKPT_SWEEP;
    enz_ckpt_emit(b, out, ENZYME_CKPT_RESTORE, q->p, q->p, q->seg);
    return;
  default:
    break;
  }
  enz_ckpt_emit(b, out, ENZYME_CKPT_DONE, 0, 0, -1);
}

static inline void enz_ckpt_periodic_finalize(void *s) {
  enz_ckpt_periodic *q = (enz_ckpt_periodic *)s;
  enz_ckpt_base_finish(&q->base);
  free(q);
}

static const EnzymeCheckpointScheme EnzymeCkptPeriodic = {
    ENZYME_CKPT_ABI_VERSION,      enz_ckpt_periodic_init,
    enz_ckpt_periodic_next,       enz_ckpt_store,
    enz_ckpt_restore,             enz_ckpt_periodic_set_nsteps,
    enz_ckpt_periodic_finalize,   NULL,
    NULL,                         NULL};

static const EnzymeCheckpointScheme EnzymeCkptStoreAll = {
    ENZYME_CKPT_ABI_VERSION,      enz_ckpt_store_all_init,
    enz_ckpt_periodic_next,       enz_ckpt_store,
    enz_ckpt_restore,             enz_ckpt_periodic_set_nsteps,
    enz_ckpt_periodic_finalize,   NULL,
    NULL,                         NULL};

#ifdef __cplusplus
}
#endif

#endif /* ENZ_RS_CHECKPOINT_H */

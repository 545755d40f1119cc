/* Native Unicorn hooks for mote's virtual platform: exact instruction counting at near-native speed.
 *
 * A Python callback per instruction (or per block) would cost microseconds each; these hooks run in
 * the emulator's own thread of control and cost a few nanoseconds per translation block.
 *
 * mote_block_hook (UC_HOOK_BLOCK) runs at the start of every executed translation block. It keeps,
 * per block start address, in an open-addressing hash table:
 *   - count: how many times the block was entered,
 *   - taken: how many times the block that ran next did not start at this block's end, i.e. the
 *     block ended with a taken control transfer,
 *   - ninsn: its number of instructions, decoded once when the block is first seen (RV32C: a 16-bit
 *     parcel whose two low bits are 11 starts a 32-bit instruction; Thumb: a halfword whose top five bits
 *     are 11101, 11110 or 11111 does),
 * and a running total of instructions of all blocks entered, checked against an instruction limit.
 * A block is counted whole when it is entered; the Python side corrects for the not yet executed
 * tail of the current block when it snapshots the counters in the middle of one.
 *
 * mote_mem_hook (UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, optional) counts the loads and stores that
 * hit each memory region the caller declared (flash, RAM: what an energy model needs; two compares
 * per region and access) and stops the run on the first misaligned load or store, which Unicorn's
 * RISC-V and M-profile cores otherwise perform silently (ALIGN_ARMV7M: only the accesses that must be
 * aligned on Armv7-M/Armv8-M with CCR.UNALIGN_TRP clear, see armv7m_must_align).
 *
 * On Armv7-M/Armv8-M (it_regid set) the memory hook also clears the IT bits of the xPSR. Unicorn 2.1
 * writes the translation-time IT state into the CPU state before every hooked load or store, so that the
 * hook sees it, and nothing clears it when the IT block ends inside the same translation block; the next
 * block is then translated as if it were inside an IT block (conditional instructions run wrongly, a
 * B<cond> is undefined: unicorn-engine/unicorn#2309). Within a block the IT conditions are compiled in,
 * and a block that ends inside an IT block stores its state at its end, so clearing the stale copy is
 * exact (tests/sim/test_thumb_it_hook.py reproduces the loss and checks the repair).
 *
 * Unicorn's entry points are passed in as function pointers (mote_counter_new), so this file needs
 * neither Unicorn's headers nor linking against it. Build: cc -O2 -shared -fPIC. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef int (*uc_mem_read_fn)(void *uc, uint64_t address, void *bytes, uint64_t size);
typedef int (*uc_emu_stop_fn)(void *uc);
typedef int (*uc_reg_read_fn)(void *uc, int regid, void *value);
typedef int (*uc_reg_write_fn)(void *uc, int regid, const void *value);

#define EMPTY_KEY 0xFFFFFFFFu /* odd, so never an instruction address */
#define MAX_REGIONS 4         /* memory regions whose loads and stores are counted (flash, RAM, ...) */
#define NO_BLOCK (-1)

/* One block. The layout is mirrored by mote/sim/counting.py. */
typedef struct {
  uint32_t addr;
  uint32_t ninsn;
  uint64_t count;
  uint64_t taken;
} mote_block;

/* Why the run was stopped by a hook (0: it was not). */
enum { STOP_NONE = 0, STOP_LIMIT = 1, STOP_MISALIGNED = 2 };

/* The counter state. The layout is mirrored by mote/sim/counting.py. */
typedef struct {
  mote_block *table;
  uint32_t capacity; /* a power of two */
  uint32_t used;
  uint64_t insns;    /* instructions of every block entered so far (whole blocks) */
  uint64_t limit;    /* stop once insns exceeds this */
  int32_t cur;       /* table index of the block executing now, or NO_BLOCK */
  uint32_t cur_end;  /* address just past it */
  int32_t stop_reason;
  uint32_t fault_addr;   /* misaligned access: data address, */
  uint32_t fault_pc;     /* the PC of the access, */
  int32_t fault_size;    /* its size in bytes */
  int32_t fault_write;   /* and whether it was a store */
  int32_t pc_regid;
  uc_mem_read_fn mem_read;
  uc_emu_stop_fn emu_stop;
  uc_reg_read_fn reg_read;
  uint32_t nregions;                /* memory regions counted by mote_mem_hook: [lo, hi) each */
  uint32_t region_lo[MAX_REGIONS];
  uint32_t region_hi[MAX_REGIONS];
  uint64_t reads[MAX_REGIONS];      /* loads that hit each region */
  uint64_t writes[MAX_REGIONS];     /* stores that hit each region */
  int32_t length_rule;              /* LENGTH_*: how instruction lengths are read */
  uc_reg_write_fn reg_write;
  int32_t it_regid;                 /* xPSR register id whose IT bits the memory hook clears, or -1 */
  int32_t align_rule;               /* ALIGN_*: which misaligned accesses stop the run */
} mote_counter;

/* Alignment rules (mirrored by mote/sim/isa.py). */
enum { ALIGN_ALL = 0, ALIGN_ARMV7M = 1 };
#define XPSR_IT_BITS 0x0600FC00u /* IT[1:0] at bits 26:25, IT[7:2] at bits 15:10 */

/* Instruction length rules (mirrored by mote/sim/isa.py). */
enum { LENGTH_RV32C = 0, LENGTH_THUMB = 1 };

static uint32_t slot_of(uint32_t addr, uint32_t mask) {
  /* Fibonacci hashing of the halfword index: neighbouring blocks spread over the table. */
  return ((addr >> 1) * 2654435761u) & mask;
}

static int32_t find_or_insert(mote_counter *c, uint32_t addr, int *inserted) {
  uint32_t mask = c->capacity - 1;
  uint32_t i = slot_of(addr, mask);
  while (c->table[i].addr != addr) {
    if (c->table[i].addr == EMPTY_KEY) {
      c->table[i].addr = addr;
      c->used++;
      *inserted = 1;
      return (int32_t)i;
    }
    i = (i + 1) & mask;
  }
  *inserted = 0;
  return (int32_t)i;
}

/* Doubles the table when it is half full, keeping probe sequences short. Returns 0 on failure. */
static int grow(mote_counter *c) {
  uint32_t old_cap = c->capacity;
  mote_block *old = c->table;
  mote_block *fresh = malloc(sizeof(mote_block) * old_cap * 2);
  if (!fresh) return 0;
  for (uint32_t i = 0; i < old_cap * 2; ++i) fresh[i] = (mote_block){EMPTY_KEY, 0, 0, 0};
  c->table = fresh;
  c->capacity = old_cap * 2;
  c->used = 0;
  int32_t cur = NO_BLOCK;
  for (uint32_t i = 0; i < old_cap; ++i) {
    if (old[i].addr == EMPTY_KEY) continue;
    int inserted;
    int32_t j = find_or_insert(c, old[i].addr, &inserted);
    c->table[j] = old[i];
    if (c->cur == (int32_t)i) cur = j;
  }
  c->cur = cur;
  free(old);
  return 1;
}

static uint32_t insn_size(const mote_counter *c, const uint8_t *p) {
  if (c->length_rule == LENGTH_THUMB) {
    uint32_t top = (uint32_t)p[1] >> 3;
    return top >= 0x1Du ? 4u : 2u;
  }
  return (p[0] & 3u) == 3u ? 4u : 2u;
}

/* Instructions in `size` bytes of code at `addr`. */
static uint32_t count_insns(mote_counter *c, void *uc, uint32_t addr, uint32_t size) {
  uint8_t buf[4096];
  if (size > sizeof buf || c->mem_read(uc, addr, buf, size) != 0) return 0;
  uint32_t n = 0;
  for (uint32_t off = 0; off + 2 <= size; ++n) off += insn_size(c, buf + off);
  return n;
}

mote_counter *mote_counter_new(uint32_t capacity, uc_mem_read_fn mem_read, uc_emu_stop_fn emu_stop,
                               uc_reg_read_fn reg_read, uc_reg_write_fn reg_write, int32_t pc_regid) {
  uint32_t cap = 1024;
  while (cap < capacity) cap *= 2;
  mote_counter *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->table = malloc(sizeof(mote_block) * cap);
  if (!c->table) {
    free(c);
    return NULL;
  }
  for (uint32_t i = 0; i < cap; ++i) c->table[i] = (mote_block){EMPTY_KEY, 0, 0, 0};
  c->capacity = cap;
  c->limit = UINT64_MAX;
  c->cur = NO_BLOCK;
  c->mem_read = mem_read;
  c->emu_stop = emu_stop;
  c->reg_read = reg_read;
  c->reg_write = reg_write;
  c->pc_regid = pc_regid;
  c->it_regid = -1;
  return c;
}

void mote_counter_free(mote_counter *c) {
  if (!c) return;
  free(c->table);
  free(c);
}

void mote_block_hook(void *uc, uint64_t address, uint32_t size, void *user_data) {
  mote_counter *c = user_data;
  uint32_t addr = (uint32_t)address;
  if (c->cur != NO_BLOCK && addr != c->cur_end) c->table[c->cur].taken++;
  if (2 * (c->used + 1) > c->capacity && !grow(c)) {
    c->emu_stop(uc); /* out of memory: stop rather than count wrongly; Python sees cur == NO_BLOCK */
    c->cur = NO_BLOCK;
    return;
  }
  int inserted;
  int32_t i = find_or_insert(c, addr, &inserted);
  mote_block *b = &c->table[i];
  if (inserted) b->ninsn = count_insns(c, uc, addr, size);
  b->count++;
  c->insns += b->ninsn;
  c->cur = i;
  c->cur_end = addr + size;
  if (c->insns > c->limit && c->stop_reason == STOP_NONE) {
    c->stop_reason = STOP_LIMIT;
    c->emu_stop(uc);
  }
}

/* Whether the Thumb instruction at `pc` must access aligned data on Armv7-M/Armv8-M (CCR.UNALIGN_TRP clear:
 * LDR, STR and their halfword forms may be unaligned): LDM/STM/PUSH/POP, LDRD/STRD, the exclusives, and the
 * FPU's loads and stores (VLDR/VSTR/VLDM/VSTM/VPUSH/VPOP). */
static int armv7m_must_align(mote_counter *c, void *uc, uint64_t pc) {
  uint8_t b[4] = {0, 0, 0, 0};
  if (c->mem_read(uc, pc & ~(uint64_t)1, b, 4) != 0 && c->mem_read(uc, pc & ~(uint64_t)1, b, 2) != 0) return 1;
  uint32_t hw1 = (uint32_t)b[0] | (uint32_t)b[1] << 8, hw2 = (uint32_t)b[2] | (uint32_t)b[3] << 8;
  if ((hw1 & 0xF000u) == 0xC000u || (hw1 & 0xF600u) == 0xB400u) return 1; /* LDM/STM, PUSH/POP (16-bit) */
  if ((hw1 & 0xFE00u) == 0xE800u) return 1; /* LDM/STM, LDRD/STRD, LDREX/STREX, TBB/TBH (32-bit) */
  if ((hw1 & 0xEE00u) == 0xEC00u && (hw2 & 0x0E00u) == 0x0A00u) return 1; /* VLDR/VSTR/VLDM/VSTM */
  return 0;
}

void mote_mem_hook(void *uc, int type, uint64_t address, int size, int64_t value, void *user_data) {
  mote_counter *c = user_data;
  (void)value;
  uint32_t a = (uint32_t)address;
  if (c->it_regid >= 0) {
    uint32_t xpsr = 0;
    c->reg_read(uc, c->it_regid, &xpsr);
    if (xpsr & XPSR_IT_BITS) {
      xpsr &= ~XPSR_IT_BITS;
      c->reg_write(uc, c->it_regid, &xpsr);
    }
  }
  for (uint32_t r = 0; r < c->nregions; ++r) {
    if (a >= c->region_lo[r] && a < c->region_hi[r]) {
      if (type == 17) /* UC_MEM_WRITE */
        c->writes[r]++;
      else
        c->reads[r]++;
      break;
    }
  }
  if ((address & (uint64_t)(size - 1)) == 0 || c->stop_reason != STOP_NONE) return;
  uint64_t pc = 0;
  c->reg_read(uc, c->pc_regid, &pc); /* exact here: Unicorn syncs the PC before memory hooks */
  if (c->align_rule == ALIGN_ARMV7M && !armv7m_must_align(c, uc, pc)) return;
  c->stop_reason = STOP_MISALIGNED;
  c->fault_addr = (uint32_t)address;
  c->fault_pc = (uint32_t)pc;
  c->fault_size = size;
  c->fault_write = type == 17; /* UC_MEM_WRITE */
  c->emu_stop(uc);
}

/* The same hooks through one more pointer: `user_data` points to a slot that holds the counter state of the
 * core running now. A cluster (mote/sim/cluster.py) runs all its cores on one Unicorn instance, so that
 * they share its translated code, and switches the slot when it switches cores. */
void mote_block_hook_indirect(void *uc, uint64_t address, uint32_t size, void *user_data) {
  mote_block_hook(uc, address, size, *(mote_counter **)user_data);
}

void mote_mem_hook_indirect(void *uc, int type, uint64_t address, int size, int64_t value, void *user_data) {
  mote_mem_hook(uc, type, address, size, value, *(mote_counter **)user_data);
}

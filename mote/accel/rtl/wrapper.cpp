// mote's bridge to a Verilated accelerator: a C ABI over the model (class Vmote_rtl, whatever the top
// module is called), loaded by mote/accel/rtl/bridge.py with ctypes. The top module's ports are the
// contract of docs/rtl.md. Memory requests are served by two callbacks with the signature of
// Unicorn's uc_mem_read / uc_mem_write, so the virtual platform can hand over its own functions and
// no Python runs per cycle.
#include <cstdint>
#include <cstring>

#include "Vmote_rtl.h"
#include "verilated.h"

extern "C" {
typedef int (*mote_rtl_read_fn)(void *ctx, uint64_t address, void *bytes, size_t size);
typedef int (*mote_rtl_write_fn)(void *ctx, uint64_t address, const void *bytes, size_t size);
}

namespace {

// Words read during one step call, so a design that rereads its operands (weights for every output,
// inputs for every tap) does not cross into the virtual platform's memory each time. The CPU does not
// run during a step, so only the design's own writes change memory meanwhile: they update the cache.
constexpr uint32_t CACHE_WORDS = 1u << 16;

struct Model {
  VerilatedContext context;
  Vmote_rtl *top;
  uint64_t cycles = 0;        // clock edges since reset
  uint32_t fault_address = 0; // the address of the access that failed, when a step returns -1
  uint32_t generation = 1;    // a cached word is valid when its generation is the current one
  uint32_t tag[CACHE_WORDS];
  uint32_t valid[CACHE_WORDS];
  uint32_t word[CACHE_WORDS];
  Model() : top(nullptr) { std::memset(valid, 0, sizeof valid); }
  void forget() {
    if (++generation == 0) {
      std::memset(valid, 0, sizeof valid);
      generation = 1;
    }
  }
};

int read_word(Model *m, mote_rtl_read_fn read, void *ctx, uint32_t address, uint32_t *out) {
  uint32_t slot = (address >> 2) & (CACHE_WORDS - 1);
  if (m->valid[slot] == m->generation && m->tag[slot] == address) {
    *out = m->word[slot];
    return 0;
  }
  if (read(ctx, address, out, 4) != 0) return -1;
  m->valid[slot] = m->generation;
  m->tag[slot] = address;
  m->word[slot] = *out;
  return 0;
}

int write_word(Model *m, mote_rtl_write_fn write, void *ctx, uint32_t address, uint32_t data, uint32_t strobe) {
  uint8_t bytes[4];
  std::memcpy(bytes, &data, 4);
  if (strobe == 0xF) {
    if (write(ctx, address, bytes, 4) != 0) return -1;
  } else {
    for (uint32_t lane = 0; lane < 4; ++lane) {
      if (((strobe >> lane) & 1u) && write(ctx, address + lane, bytes + lane, 1) != 0) return -1;
    }
  }
  uint32_t slot = (address >> 2) & (CACHE_WORDS - 1);
  if (m->valid[slot] == m->generation && m->tag[slot] == address) {
    uint32_t mask = 0;
    for (uint32_t lane = 0; lane < 4; ++lane) mask |= ((strobe >> lane) & 1u) ? 0xFFu << (8 * lane) : 0;
    m->word[slot] = (m->word[slot] & ~mask) | (data & mask);
  }
  return 0;
}

// One clock cycle: the request the RTL shows now is taken at the rising edge; a read's word is
// presented during the next cycle.
int clock(Model *m, mote_rtl_read_fn read, mote_rtl_write_fn write, void *ctx) {
  Vmote_rtl *t = m->top;
  t->clk = 0;
  t->eval();
  bool reading = false;
  uint32_t word = 0;
  if (t->mem_valid && t->mem_ready) {
    uint32_t address = t->mem_addr & ~3u;
    if (read == nullptr) {
      m->fault_address = t->mem_addr;
      return -1;
    }
    if (t->mem_write) {
      if (write_word(m, write, ctx, address, t->mem_wdata, t->mem_wstrb & 0xFu) != 0) {
        m->fault_address = t->mem_addr;
        return -1;
      }
    } else {
      if (read_word(m, read, ctx, address, &word) != 0) {
        m->fault_address = t->mem_addr;
        return -1;
      }
      reading = true;
    }
  }
  t->clk = 1;
  t->eval();
  t->reg_write = 0;
  t->mem_rvalid = reading;
  t->mem_rdata = word;
  ++m->cycles;
  return 0;
}

}  // namespace

extern "C" {

void *mote_rtl_new(void) {
  Model *m = new Model();
  m->top = new Vmote_rtl(&m->context);
  return m;
}

void mote_rtl_free(void *handle) {
  Model *m = static_cast<Model *>(handle);
  m->top->final();
  delete m->top;
  delete m;
}

void mote_rtl_reset(void *handle) {
  Model *m = static_cast<Model *>(handle);
  Vmote_rtl *t = m->top;
  t->reg_write = 0;
  t->mem_ready = 1;
  t->mem_rvalid = 0;
  t->mem_rdata = 0;
  t->rst = 1;
  for (int i = 0; i < 2; ++i) clock(m, nullptr, nullptr, nullptr);
  t->rst = 0;
  m->cycles = 0;
}

// Writes a register at the next clock edge (one cycle, counted).
int mote_rtl_write_reg(void *handle, uint32_t index, uint32_t value, mote_rtl_read_fn read,
                       mote_rtl_write_fn write, void *ctx) {
  Model *m = static_cast<Model *>(handle);
  m->forget();
  m->top->reg_index = index;
  m->top->reg_wdata = value;
  m->top->reg_write = 1;
  return clock(m, read, write, ctx);
}

uint32_t mote_rtl_read_reg(void *handle, uint32_t index) {
  Model *m = static_cast<Model *>(handle);
  m->top->reg_index = index;
  m->top->eval();
  return m->top->reg_rdata;
}

uint32_t mote_rtl_busy(void *handle) { return static_cast<Model *>(handle)->top->busy; }

// Steps `n` clock cycles, or until busy falls when `until_idle`; returns the cycles stepped, or -1
// when a memory access failed (mote_rtl_fault_address tells where).
int64_t mote_rtl_step(void *handle, uint64_t n, int until_idle, mote_rtl_read_fn read, mote_rtl_write_fn write,
                      void *ctx) {
  Model *m = static_cast<Model *>(handle);
  m->forget();  // memory may have changed since the last step
  uint64_t done = 0;
  while (done < n && !(until_idle && !m->top->busy)) {
    if (clock(m, read, write, ctx) != 0) return -1;
    ++done;
  }
  return static_cast<int64_t>(done);
}

uint64_t mote_rtl_cycles(void *handle) { return static_cast<Model *>(handle)->cycles; }

uint32_t mote_rtl_fault_address(void *handle) { return static_cast<Model *>(handle)->fault_address; }

}  // extern "C"

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

struct Model {
  VerilatedContext context;
  Vmote_rtl *top;
  uint64_t cycles = 0;        // clock edges since reset
  uint32_t fault_address = 0; // the address of the access that failed, when a step returns -1
  Model() : top(nullptr) {}
};

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
      uint32_t data = t->mem_wdata;
      uint8_t bytes[4];
      std::memcpy(bytes, &data, 4);
      for (int lane = 0; lane < 4; ++lane) {
        if (((t->mem_wstrb >> lane) & 1u) && write(ctx, address + lane, bytes + lane, 1) != 0) {
          m->fault_address = address + lane;
          return -1;
        }
      }
    } else {
      if (read(ctx, address, &word, 4) != 0) {
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

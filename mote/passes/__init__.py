"""Graph -> Graph passes.

In the order compile_graph (mote.codegen.compile) runs them: fuse_requant (the integer dialect's conv /
Gemm + RequantShift pairs onto the blocked kernels), fold_tables (an elementwise op of two functions of one
byte as one table), then offload (layers to an accelerator). kv_cache
runs before compiling, when a decoder step is compiled for generation; narrow_weights (weights re-quantized to
4 or 2 bits) before compiling, for sweeps over weight widths; accel_weights narrows only the layers an
accelerator offloads, when its `weight_bits` setting asks for it.
"""

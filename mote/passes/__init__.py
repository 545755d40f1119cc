"""Graph -> Graph passes.

In the order compile_graph (mote.codegen.compile) runs them: fuse_requant (the integer dialect's conv /
Gemm + RequantShift pairs onto the blocked kernels), then offload (layers to an accelerator). kv_cache
runs before compiling, when a decoder step is compiled for generation.
"""

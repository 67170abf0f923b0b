#!/usr/bin/env python3
"""Registers, spills and shared memory of every kernel of one module, as NVRTC 13 builds it
for sm_90 with the options of crates/mpblas/src/cuda/nvrtc.rs (no GPU needed): occupancy is
decided here, and NVRTC's register counts differ from nvcc's.

    LD_LIBRARY_PATH=/opt/nvrtc/nvidia/cu13/lib \
        scripts/kernel-regs.py crates/mpblas/src/cuda/kernels/ozaki.cu crates/mpblas/src/cuda/kernels
"""
import ctypes, os, sys
lib = ctypes.CDLL(os.environ.get('NVRTC_LIB', 'libnvrtc.so.13'))
src = open(sys.argv[1]).read().encode()
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"ozaki.cu", 0, None, None) == 0
opts = [b"--gpu-architecture=sm_90", b"--fmad=false", b"--ftz=false", b"--prec-div=true", b"--prec-sqrt=true",
        b"--device-int128", b"--std=c++17", b"-I" + sys.argv[2].encode(), b"--ptxas-options=-v"] + [o.encode() for o in sys.argv[3:]]
arr = (ctypes.c_char_p * len(opts))(*opts)
r = lib.nvrtcCompileProgram(prog, len(opts), arr)
n = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
buf = ctypes.create_string_buffer(n.value)
lib.nvrtcGetProgramLog(prog, buf)
print("rc", r)
log = buf.value.decode()
cur = None
for line in log.splitlines():
    if "Compiling entry function" in line: cur = line.split("'")[1]
    if cur and ("Used" in line or "spill" in line or "stack" in line): print(cur, line.strip())
    if "Used" in line: cur = None

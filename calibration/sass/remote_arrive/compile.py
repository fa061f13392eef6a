"""Compiles remote_arrive.cu for sm_90a with NVRTC (from PyPI, no GPU) and writes the CUBIN.

    python3 -m venv /tmp/cu && /tmp/cu/bin/pip install 'nvidia-cuda-nvrtc==13.0.*' 'nvidia-cuda-nvdisasm==13.2.*'
    export LD_LIBRARY_PATH=/tmp/cu/lib/python3.11/site-packages/nvidia/cu13/lib
    NVRTC=$LD_LIBRARY_PATH/libnvrtc.so.13 python3 compile.py
    /tmp/cu/lib/python3.11/site-packages/nvidia/cu13/bin/nvdisasm -c remote_arrive.cubin > remote_arrive.dis
"""
import ctypes
import os

lib = ctypes.CDLL(os.environ.get("NVRTC", "libnvrtc.so.13"))
src = open("remote_arrive.cu").read().encode()
prog = ctypes.c_void_p()
assert lib.nvrtcCreateProgram(ctypes.byref(prog), src, b"remote_arrive.cu", 0, None, None) == 0
opts = [b"--gpu-architecture=sm_90a"]
status = lib.nvrtcCompileProgram(prog, len(opts), (ctypes.c_char_p * len(opts))(*opts))
n = ctypes.c_size_t()
lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
log = ctypes.create_string_buffer(n.value)
lib.nvrtcGetProgramLog(prog, log)
print("nvrtcCompileProgram:", status, log.value.decode())
lib.nvrtcGetCUBINSize(prog, ctypes.byref(n))
cubin = ctypes.create_string_buffer(n.value)
lib.nvrtcGetCUBIN(prog, cubin)
open("remote_arrive.cubin", "wb").write(cubin.raw)

#!/usr/bin/env python3
"""How each kernel's compiled code addresses the mbarrier of each wait: the table
`validate run --wait-forms` reads (`kernel,line,form,trywaits`).

    target/release/validate cubins --out DIR          # NVRTC with -lineinfo, no GPU
    for f in DIR/*.cubin; do nvdisasm -c -gi $f > ${f%.cubin}.gi.dis; done
    python3 calibration/sass/wait_forms.py DIR > calibration/validate/wait_forms.csv

A wait on a pipeline stage compiles to a `SYNCS.PHASECHK.TRANS64.TRYWAIT P, [ADDR], R` and a
branch on its predicate. ptxas addresses the barrier through a uniform register
(`[UR8]`: the branch follows at once) or, where it cannot prove the address the same for the
whole warp, through a per-thread one (`[R123+URZ]`), and then wraps the wait in convergence
bookkeeping (`BSSY` / `BSYNC`, a `YIELD` in its retry loop): calibration items 20 and 33
measured what each form costs (`calibration/README.md`). ptxas does not choose by anything
the kernel's spec states (the FA3 producer's waits are uniform, its consumers' per-thread;
both `ws_gemm` roles uniform; every wait of the non-specialized kernels per-thread), so the
table reads it from the SASS.

Each `TRYWAIT` is traced to its wait through the line table (`-gi`: the annotations right
before it, `line A inlined at line B`): the first line of the generated CUDA among them that
calls `mbar_wait(`, whose nearest `// line N:` comment above gives the kernel's source line N
(the line the model's sites carry). Every wait's retry loop, which ptxas moves to the end of
the function, keeps the whole chain (`line 107 inlined at line 114`, `114 inlined at 1229`,
...); a fast path that ptxas scheduled among other lines' instructions may not, and is then
placed by its address register: the script checks that a resolved `TRYWAIT` of the same
function uses the same one, and stops otherwise. A line whose `TRYWAIT`s use both forms is
reported `mixed` (none so far); the model treats only `per_thread` lines as per-thread.
`trywaits` counts the instructions placed by the line table (a wait's fast path and its
retry loop each hold one; peeled and unrolled copies more)."""

import os
import re
import subprocess
import sys

ANNOTATION = re.compile(r'^\s*//## File "[^"]*", line (\d+)(.*)$')
INLINED = re.compile(r'inlined at "[^"]*", line (\d+)')
TRYWAIT = re.compile(r"\bTRYWAIT\s+P\d+,\s*\[([^\]]+)\]")
SOURCE_LINE = re.compile(r"//\s*line (\d+):")


def disassembly(cubin):
    """`nvdisasm -c -gi` of `cubin`, from a `.gi.dis` beside it when there is one."""
    cached = cubin[: -len(".cubin")] + ".gi.dis"
    if os.path.exists(cached):
        return open(cached).read().splitlines()
    tool = os.environ.get("NVDISASM", "nvdisasm")
    out = subprocess.run([tool, "-c", "-gi", cubin], check=True, capture_output=True, text=True)
    return out.stdout.splitlines()


def form_of(address):
    """`uniform` for a uniform-register address (`UR8`), else `per_thread` (`R123+URZ`)."""
    return "uniform" if address.strip().startswith("UR") else "per_thread"


def wait_call_line(cuda, lines):
    """The first of the CUDA `lines` (1-based) that calls `mbar_wait(`."""
    for n in lines:
        if 0 < n <= len(cuda) and "mbar_wait(" in cuda[n - 1] and "__device__" not in cuda[n - 1]:
            return n
    return None


def source_line(cuda, n):
    """The kernel source line of CUDA line `n`: the nearest `// line N:` comment above it."""
    for k in range(n - 1, -1, -1):
        m = SOURCE_LINE.search(cuda[k])
        if m:
            return int(m.group(1))
    return None


def waits(kernel_dir, kernel):
    """[(kernel source line, form)] for each `TRYWAIT` of `kernel` the line table places;
    exits on one it cannot place whose address no placed one shares."""
    cuda = open(os.path.join(kernel_dir, kernel + ".cu")).read().splitlines()
    block, after_instruction = [], False
    placed, unplaced = [], []
    for text in disassembly(os.path.join(kernel_dir, kernel + ".cubin")):
        m = ANNOTATION.match(text)
        if m:
            if after_instruction:
                block, after_instruction = [], False
            block += [int(m.group(1))] + [int(x) for x in INLINED.findall(m.group(2))]
            continue
        if "/*" in text:
            after_instruction = True
        m = TRYWAIT.search(text)
        if not m:
            continue
        address = m.group(1).strip()
        call = wait_call_line(cuda, block)
        line = source_line(cuda, call) if call else None
        if line is None:
            unplaced.append((address, text.strip()))
        else:
            placed.append((line, address))
    known = {address for _, address in placed}
    for address, text in unplaced:
        if address not in known:
            sys.exit(f"{kernel}: cannot place `{text}` (no mbar_wait call in its line table, no placed wait on [{address}])")
    return [(line, form_of(address)) for line, address in placed]


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: wait_forms.py DIR (validate cubins' output)")
    d = sys.argv[1]
    kernels = sorted(f[: -len(".cubin")] for f in os.listdir(d) if f.endswith(".cubin"))
    print("# how each wait addresses its mbarrier, from the SASS: calibration/sass/wait_forms.py")
    print("kernel,line,form,trywaits")
    for kernel in kernels:
        per_line = {}
        for line, form in waits(d, kernel):
            per_line.setdefault(line, []).append(form)
        for line in sorted(per_line):
            forms = set(per_line[line])
            form = forms.pop() if len(forms) == 1 else "mixed"
            print(f"{kernel},{line},{form},{len(per_line[line])}")


if __name__ == "__main__":
    main()

# SPDX-License-Identifier: GPL-2.0
"""Where a bench pass's bytes landed: the host half of pvmap-bench's checks.

Each measured pass of pvmap-bench writes, at every aperture page P it
touches, the bytes of include/uapi/pvmap_pattern.h for (seed, P mod 64 KiB). This
module recomputes which pages the pass wrote (the same offset sequences as
pvmap_bench.ko's bench run and pvmap-bench's measure()) and checks each
one in the ivshmem backing file. A page that does not hold its pattern was
misdirected: the engine wrote it somewhere else (a stale translation, say).
"""

import struct

MASK = (1 << 64) - 1
PAGE = 4096
PERIOD = 64 * 1024
MIB = 1 << 20


def mix(x):
    """pvmap_pattern_mix(): splitmix64's finaliser."""
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def pattern_bytes(seed, pos, length):
    """pvmap_pattern_fill(buf, length, seed, pos), for pos and length multiples of 8."""
    return b"".join(struct.pack("<Q", mix(seed ^ mix(w)))
                    for w in range(pos // 8, (pos + length) // 8))


_blocks = {}


def pattern_block(seed):
    """pvmap_pattern_fill(buf, PERIOD, seed, 0): one period of the pattern."""
    if seed not in _blocks:
        _blocks.clear()
        _blocks[seed] = pattern_bytes(seed, 0, PERIOD)
    return _blocks[seed]


def xorshift32(state):
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


def pages_written(workload, engine, iters, seed, aperture, window):
    """The aperture pages (indexes) one CPU's pass wrote; every CPU writes the same."""
    if workload.startswith("user_"):
        span = window if engine == "user_mmap" else aperture
        if workload == "user_seq1m":
            return {(i * MIB) % span // PAGE + n for i in range(iters) for n in range(256)}
        state, out = (seed | 1) & 0xFFFFFFFF, set()
        for _ in range(iters):
            state = xorshift32(state)
            out.add(state % (span // PAGE))
        return out
    span = min(window, aperture) if engine == "permanent" else aperture
    pages = span // PAGE
    wpages = min(pages, window // PAGE)
    if workload == "page":
        return {(i * 7919) % wpages for i in range(iters)}
    if workload == "range16":
        return {(i * 7919) % (wpages // 16) * 16 + n for i in range(iters) for n in range(16)}
    if workload == "seq1m":
        return {(i % (wpages >> 8)) * 256 + n for i in range(iters) for n in range(256)}
    if workload == "overhead":
        # pvmap_bench.ko's overhead workload: blocks of 32 pages, the
        # permanent window's in the lower half of the window, the engine's above
        half = wpages // 2 if engine != "permanent" else min(window, aperture) // PAGE // 2
        n = min(iters // 32, 128) * 32
        return {(i * 7919) % half + h for i in range(n) for h in (0, half)}
    if workload == "rand4k":
        state, out = (seed | 1) & 0xFFFFFFFF, set()
        for _ in range(iters):
            state = xorshift32(state)
            out.add(state % pages)
        return out
    raise ValueError(f"unknown workload {workload!r}")


def verify(shm, spec):
    """Check one pass (pvmap-bench's bench-verify line) in the backing file @shm.

    Returns a dict: pages checked, wrong (misdirected) pages, the first few
    wrong page offsets."""
    pages = sorted(pages_written(spec["workload"], spec["engine"], spec["iters"], spec["seed"],
                                 spec["aperture"], spec["window"]))
    block = pattern_block(spec["seed"])
    wrong = []
    with open(shm, "rb") as f:
        for p in pages:
            f.seek(p * PAGE)
            want = block[(p * PAGE) % PERIOD:(p * PAGE) % PERIOD + PAGE]
            if f.read(PAGE) != want:
                wrong.append(p * PAGE)
    return {"pages": len(pages), "wrong": len(wrong), "first_wrong": [hex(o) for o in wrong[:4]]}

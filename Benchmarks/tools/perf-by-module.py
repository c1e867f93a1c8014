#!/usr/bin/env python3
"""Charges each perf sample to the nearest frame of a known Swift module.

Time spent in the runtime, libc or the kernel (retain/release, malloc, futex wakes)
is charged to the WebImage, AsyncHTTPClient or NIO function that called it, so the
WebImage total is the CPU the downloader's own code costs, callees included.

    perf record -F 4999 -g -o /tmp/perf.data .build/release/LoadingProfile webimage 40
    tools/perf-by-module.py /tmp/perf.data            # samples per module
    tools/perf-by-module.py /tmp/perf.data WebImage   # ... and per WebImage function

Samples whose stack holds no known frame (an async function's caller cannot be
unwound, so a memmove in a body loop lands here) are listed by their leaf's library.
"""
import collections
import re
import subprocess
import sys

# Mangled-name prefixes of the modules, innermost match wins.
MODULES = [
    ("WebImage", "8WebImage"),
    ("BenchmarkSupport", "16BenchmarkSupport"),
    ("AsyncHTTPClient", "15AsyncHTTPClient"),
    ("NIOHTTP1", "8NIOHTTP1"),
    ("NIOPosix", "8NIOPosix"),
    ("NIOCore", "7NIOCore"),
    ("Foundation", "FoundationEssentials"),
]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    detail = sys.argv[2] if len(sys.argv) > 2 else None
    script = subprocess.run(
        ["perf", "script", "-i", sys.argv[1], "-F", "ip,sym,dso"], capture_output=True, text=True, check=True
    ).stdout
    modules = collections.Counter()
    functions = collections.Counter()
    for block in script.split("\n\n"):
        frames = [line.strip() for line in block.strip().split("\n") if line.strip()]
        if not frames:
            continue
        owner = None
        for frame in frames:
            owner = next((name for name, tag in MODULES if tag in frame), None)
            if owner:
                if owner == detail:
                    symbol = re.search(r"\$s\S*", frame)
                    functions[(symbol.group(0) if symbol else frame)[:110]] += 1
                break
        if owner is None:
            owner = "kernel" if "[kernel" in frames[0] else "other: " + frames[0].split()[-1]
        modules[owner] += 1
    for name, count in modules.most_common(20):
        print(f"{count:8d}  {name}")
    if detail:
        print()
        for name, count in functions.most_common(40):
            print(f"{count:8d}  {name}")


if __name__ == "__main__":
    main()

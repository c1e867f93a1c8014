"""libvips through pyvips with its defaults: the reference of formats.sh.

    python3 pyvips_baseline.py [--images N] THREADS SECONDS WIDTH HEIGHT QUALITY FILE...

What vips_baseline.c does, from Python: reads every FILE into memory once, then runs
THREADS threads for SECONDS seconds; each loops over the files (thread t starts at file t),
making `thumbnail_buffer(bytes, WIDTH, height=HEIGHT)` and saving it with
`jpegsave_buffer(Q=QUALITY, strip=True, optimize_coding=True)`, the settings of the
proxy's JPEG answer. With --images N the threads make N images in all (SECONDS still
bounds the run), image i being file i mod FILES, as vips_baseline's --images does.

libvips keeps its defaults (orc vector code on, as pyvips has it) except two settings a
benchmark of cold variants needs: the operation cache off (`cache_set_max(0)`: otherwise
a photo's second thumbnail is the first one from the cache) and, set by the caller in the
environment, `VIPS_CONCURRENCY=1`: one worker thread an image, as in the proxy, so that
THREADS is the parallelism of both.

Prints one line of `key=value` pairs, as vips_baseline does: images, seconds,
images_per_s, errors, out_bytes (mean output size), cpu_ms_per_image (the process's user
+ system CPU time while the threads ran, per image), vmhwm_kb (its peak resident
memory), vector (1 when libvips ran its orc vector code).
"""

import ctypes
import itertools
import resource
import sys
import threading
import time

import pyvips


def cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def vmhwm_kb():
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return -1


def main():
    arguments = sys.argv[1:]
    budget = 0  # --images: images to make in all; 0: as many as SECONDS allow
    if arguments[:1] == ["--images"] and len(arguments) > 1:
        budget = int(arguments[1])
        arguments = arguments[2:]
    if len(arguments) < 6:
        sys.exit("usage: pyvips_baseline.py [--images N] THREADS SECONDS WIDTH HEIGHT QUALITY FILE...")
    threads, seconds = int(arguments[0]), float(arguments[1])
    width, height, quality = int(arguments[2]), int(arguments[3]), int(arguments[4])
    sources = []
    for name in arguments[5:]:
        with open(name, "rb") as file:
            sources.append(file.read())
    pyvips.cache_set_max(0)

    counts = [[0, 0, 0] for _ in range(threads)]  # images, errors, output bytes
    deadline = [0.0]
    taken = itertools.count()  # the shared count of --images (next() is atomic under the GIL)

    def work(index):
        count = counts[index]
        source = index % len(sources)
        while time.monotonic() < deadline[0]:
            if budget:
                image = next(taken)
                if image >= budget:
                    break
                source = image % len(sources)
            data = sources[source]
            source = (source + 1) % len(sources)
            try:
                thumbnail = pyvips.Image.thumbnail_buffer(data, width, height=height)
                jpeg = thumbnail.jpegsave_buffer(Q=quality, strip=True, optimize_coding=True)
                count[0] += 1
                count[2] += len(jpeg)
            except pyvips.Error as error:
                count[1] += 1
                print("pyvips_baseline:", error, file=sys.stderr)

    workers = [threading.Thread(target=work, args=(index,)) for index in range(threads)]
    cpu_start = cpu_seconds()
    start = time.monotonic()
    deadline[0] = start + seconds
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    elapsed = time.monotonic() - start
    cpu = cpu_seconds() - cpu_start
    images = sum(count[0] for count in counts)
    errors = sum(count[1] for count in counts)
    out_bytes = sum(count[2] for count in counts)
    # pyvips does not wrap vips_vector_isenabled(); the libvips it loaded answers.
    vector = ctypes.CDLL("libvips.so.42").vips_vector_isenabled()
    print(
        f"images={images} seconds={elapsed:.3f} images_per_s={images / elapsed:.2f} errors={errors} "
        f"out_bytes={out_bytes // images if images else 0} cpu_ms_per_image={cpu * 1000 / images if images else 0:.2f} "
        f"vmhwm_kb={vmhwm_kb()} vector={vector}"
    )
    sys.exit(1 if errors else 0)


if __name__ == "__main__":
    main()

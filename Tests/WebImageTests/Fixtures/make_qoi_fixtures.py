#!/usr/bin/env python3
"""Writes the QOI fixtures of QOICoderTests. Run once; its output is committed.

    python3 make_qoi_fixtures.py path/to/qoi.h

qoi.h is the reference implementation (the phoboslab/qoi repository); the fixtures were
made from its commit 4ab68bbd20618a663255625160c40875713f5485. It is compiled with the
system C compiler and called through ctypes. The PyPI package `qoi` (pip install qoi,
needs numpy) encodes the second copy of the RGBA image: its encoder picks INDEX where
qoi.h picks a RUN of 1, a valid but different stream, which the Swift tests decode only.

The pixel formulas are repeated in QOICoderTests.swift (QOIFixturePixels); change both.
"""
import ctypes
import os
import subprocess
import sys
import tempfile

import numpy as np
import qoi  # PyPI package "qoi"

HERE = os.path.dirname(os.path.abspath(__file__))


def rgba_37x23(x, y):
    if y < 4:  # 148 equal pixels: runs of 62, 62 and 24
        return (200, 40, 90, 255)
    if y < 8:  # alpha changes from pixel to pixel: RGBA ops
        return ((x * 7) % 256, y * 9, 255 - x * 5, (x * 11) % 256)
    if y < 11:  # small steps: DIFF ops
        return (100 + x, 50 + x // 2, 20 + x % 2, 255)
    if y < 14:  # larger steps: LUMA ops
        return (x * 4 + y, y * 6 + x // 2, 128 + x - y, 255)
    if y < 18:  # noise: RGB ops
        return ((x * 73 + y * 151) % 256, (x * x * 3 + y * 7) % 256, (x * y * 29) % 256, 255)
    if y < 22:  # four colours in pairs: INDEX ops and runs of one
        palette = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 128), (250, 250, 250, 255)]
        return palette[(x // 2 + y) % 4]
    return (0, 0, 0, 0)  # transparent last row: INDEX 0, then a run up to the last pixel


def rgb_16x16(x, y):
    if y < 2:  # a run across a row boundary
        return (30, 60, 90)
    if (x + y) % 5 == 0:  # a recurring colour: INDEX ops
        return (10, 200, 30)
    if y < 9:  # a gradient: DIFF and LUMA ops
        return (x * (1 + y % 3) + y, y * 2 + x, 60 + x // 2)
    return ((x * 16 + y * 7) % 256, (y * 16 + x * x) % 256, (x * y * 7) % 256)  # RGB ops


def pixels(width, height, formula):
    return np.array([[formula(x, y) for x in range(width)] for y in range(height)], dtype=np.uint8)


class QOIDesc(ctypes.Structure):
    _fields_ = [("width", ctypes.c_uint), ("height", ctypes.c_uint),
                ("channels", ctypes.c_ubyte), ("colorspace", ctypes.c_ubyte)]


def reference_library(qoi_h):
    build = tempfile.mkdtemp()
    source = os.path.join(build, "qoi.c")
    with open(source, "w") as f:
        f.write('#define QOI_IMPLEMENTATION\n#define QOI_NO_STDIO\n#include "%s"\n' % os.path.abspath(qoi_h))
    library = os.path.join(build, "libqoi.so")
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", library, source], check=True)
    lib = ctypes.CDLL(library)
    lib.qoi_encode.restype = ctypes.c_void_p
    lib.qoi_encode.argtypes = [ctypes.c_void_p, ctypes.POINTER(QOIDesc), ctypes.POINTER(ctypes.c_int)]
    return lib


def reference_encode(lib, array):
    height, width, channels = array.shape
    desc = QOIDesc(width, height, channels, 0)
    length = ctypes.c_int(0)
    data = np.ascontiguousarray(array)
    pointer = lib.qoi_encode(data.ctypes.data, ctypes.byref(desc), ctypes.byref(length))
    encoded = ctypes.string_at(pointer, length.value)
    ctypes.CDLL(None).free(ctypes.c_void_p(pointer))
    return encoded


def op_counts(data, pixel_count):
    counts = {"RGB": 0, "RGBA": 0, "INDEX": 0, "DIFF": 0, "LUMA": 0, "RUN": 0}
    p, decoded = 14, 0
    while decoded < pixel_count:
        b = data[p]
        if b == 0xFE:
            counts["RGB"] += 1; p += 4; decoded += 1
        elif b == 0xFF:
            counts["RGBA"] += 1; p += 5; decoded += 1
        elif b >> 6 == 0:
            counts["INDEX"] += 1; p += 1; decoded += 1
        elif b >> 6 == 1:
            counts["DIFF"] += 1; p += 1; decoded += 1
        elif b >> 6 == 2:
            counts["LUMA"] += 1; p += 2; decoded += 1
        else:
            counts["RUN"] += 1; p += 1; decoded += (b & 0x3F) + 1
    return counts


def write(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)
    print("wrote %s (%d bytes)" % (name, len(data)))


def main():
    lib = reference_library(sys.argv[1])
    rgba = pixels(37, 23, rgba_37x23)
    rgb = pixels(16, 16, rgb_16x16)
    for name, array in [("qoi-rgba-37x23.qoi", rgba), ("qoi-rgb-16x16.qoi", rgb)]:
        encoded = reference_encode(lib, array)
        assert (qoi.decode(encoded) == array).all(), "the PyPI decoder disagrees with qoi.h on " + name
        print(op_counts(encoded, array.shape[0] * array.shape[1]))
        write(name, encoded)
    other = qoi.encode(rgba)
    assert other != reference_encode(lib, rgba), "the PyPI encoder now matches qoi.h: the -pip fixture adds nothing"
    assert (qoi.decode(other) == rgba).all()
    write("qoi-rgba-37x23-pip.qoi", other)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The codec floor of a precompressed build: scripts/codec-floor.py OUTPUT QUALITY WINDOW

Compresses every page (`.json` under OUTPUT/api) as folio's siblings are made, gzip at
level 6 (zlib) and brotli at QUALITY with the window fitted to the page and at most WINDOW
bits (the brotli C library's Python binding), by the reference C libraries, one process a core; nothing is
written. Prints the wall seconds, the pages, their bytes, and the .gz and .br bytes the
libraries made. scripts/bench.sh compares the precompressed build with the plain build plus
this floor.
"""
import multiprocessing
import os
import sys
import time
import zlib

import brotli


def pages(root):
    for folder, _, names in os.walk(os.path.join(root, "api")):
        for name in names:
            if name.endswith(".json"):
                yield os.path.join(folder, name)


def squeeze(job):
    paths, quality, most = job
    raw = gz = br = 0
    for path in paths:
        with open(path, "rb") as f:
            page = f.read()
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        gz += len(c.compress(page) + c.flush())
        window = min(most, max(10, len(page).bit_length()))
        br += len(brotli.compress(page, quality=quality, lgwin=window))
        raw += len(page)
    return len(paths), raw, gz, br


def main():
    root, quality, most = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    all_pages = sorted(pages(root))
    cores = os.cpu_count() or 1
    chunks = [(all_pages[i : i + 256], quality, most) for i in range(0, len(all_pages), 256)]
    start = time.perf_counter()
    with multiprocessing.Pool(cores) as pool:
        done = pool.map(squeeze, chunks)
    wall = time.perf_counter() - start
    n, raw, gz, br = (sum(column) for column in zip(*done))
    print(f"{wall:.2f} {n} {raw} {gz} {br}")


if __name__ == "__main__":
    main()

#!/usr/bin/python3
# CPU in known shares for test_python: parse ~30%, compute ~60% (through a
# recursive helper), encode ~10% (in zlib's C code), in slices of CPU time
# jittered by half either way (fixed ones beat with the sampling period: a
# function then gets the samples of the phase it falls in, not its share).
# The CPU time each took is measured and printed at the end: the truth; so is
# its work (its loop's rounds), tools/bench_python.sh's. Usage: SECONDS
import sys
import time
import zlib

SLICE = 0.010  # CPU seconds a round: 3 ms parse, 6 ms compute, 1 ms encode
DATA = bytes((i * 7919 + (i >> 5)) & 0xFF for i in range(1 << 16))


def parse(until):
    text = "12,345,6789,1011,-12,7,88888,3\n" * 20
    rounds = 0
    while time.process_time() < until:
        for line in text.splitlines():
            sum(int(x) for x in line.split(","))
        rounds += 1
    return rounds


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def compute(until):
    rounds = 0
    while time.process_time() < until:
        fib(14)
        rounds += 1
    return rounds


def encode(until):
    rounds = 0
    while time.process_time() < until:
        zlib.compress(DATA, 6)
        rounds += 1
    return rounds


def main(seconds):
    spent = {"parse": 0.0, "compute": 0.0, "encode": 0.0}
    work = {"parse": 0, "compute": 0, "encode": 0}
    funcs = {"parse": parse, "compute": compute, "encode": encode}
    shares = {"parse": 0.3, "compute": 0.6, "encode": 0.1}
    start = time.process_time()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        for name, f in funcs.items():
            t = time.process_time()
            work[name] += f(t + SLICE * shares[name] * (0.5 + time.perf_counter_ns() % 1009 / 1009))
            spent[name] += time.process_time() - t
    total = time.process_time() - start
    print("py_busy: parse %.3f compute %.3f encode %.3f total %.3f"
          % (spent["parse"], spent["compute"], spent["encode"], total), flush=True)
    print("py_busy work: parse %d compute %d encode %d"
          % (work["parse"], work["compute"], work["encode"]), flush=True)


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 5.0)

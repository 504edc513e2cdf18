# CPU-bound Python load for tools/bench_unwind.sh, run by Debian's
# /usr/bin/python3 (built without frame pointers). Each level of the
# recursion goes through C (sum, map), so that a sample holds four C frames
# of the interpreter per level under the dozen of its start-up: about 28 at
# the default depth. Prints the recursions per CPU-second of the process,
# whose CPU time includes the sampling interrupts it took.
#
#   python3 bench_unwind.py SECONDS [DEPTH]      (DEPTH defaults to 4)
import sys
import time


def leaf(k):
    s = 0
    for i in range(k):
        s += i * i
    return s


def rec(n):
    if n == 0:
        return leaf(300)
    return sum(map(rec, (n - 1,)))


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit("usage: bench_unwind.py SECONDS [DEPTH]")
    secs = float(sys.argv[1])
    depth = int(sys.argv[2]) if len(sys.argv) == 3 else 4
    end = time.monotonic() + secs
    cpu0 = time.process_time()
    n = 0
    while time.monotonic() < end:
        rec(depth)
        n += 1
    print("%.0f" % (n / (time.process_time() - cpu0)))


main()

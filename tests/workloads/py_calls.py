"""Python calls counted by the program itself, for `-f py:` (test_py_trace).

py_calls.py N [GATE]: waits until the file GATE exists (when given), then
runs N rounds and prints what it counted as JSON on stdout:
  parse             calls of parse (from Python, from C through map(), and
                    from compute)
  compute           calls of compute, which calls helper (not traced by the
                    tests) that calls parse on odd rounds
  parse_in_compute  parse's calls made under compute
  boom              calls of boom, which raises every time (its frame ends
                    without a return)
  gen_runs          times gen_values's frame ran: its start and each resume
                    after a yield (Python's profilers count each as a call)
"""
import json
import os
import sys
import time

counts = {"parse": 0, "compute": 0, "parse_in_compute": 0, "boom": 0, "gen_runs": 0}
in_compute = 0


def parse(x):
    counts["parse"] += 1
    if in_compute:
        counts["parse_in_compute"] += 1
    return sum(int(c) for c in str(x * 7919))


def helper(x):
    total = 0
    for i in range(50):
        total += i * x
    if x % 2:
        total += parse(x)
    return total


def compute(x):
    global in_compute
    counts["compute"] += 1
    in_compute += 1
    try:
        return helper(x)
    finally:
        in_compute -= 1


def boom(x):
    counts["boom"] += 1
    raise ValueError(x)


def gen_values(n):
    counts["gen_runs"] += 1
    for i in range(n):
        yield i
        counts["gen_runs"] += 1


# Each round first keeps 500 new lists made in one expression: the
# collection they make due starts only where the next call starts, at
# parse's, where 3.13 then leaves its quickened RESUME_CHECK for RESUME.
make_junk = eval("lambda: [" + "[], " * 500 + "]")


def main():
    n = int(sys.argv[1])
    keep = [None] * n
    if len(sys.argv) > 2:
        while not os.path.exists(sys.argv[2]):
            time.sleep(0.01)
    for i in range(n):
        keep[i] = make_junk()
        parse(i)
        compute(i)
        try:
            boom(i)
        except ValueError:
            pass
        if i % 10 == 0:
            list(map(parse, range(3)))
            for _ in gen_values(3):
                pass
    print(json.dumps(counts), flush=True)


main()

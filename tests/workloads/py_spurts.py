#!/usr/bin/python3
# Short spurts of CPU in a recursive function, with sleeps between, for
# test_python: a spurt's samples carry Python records that are new (fib
# calls itself from two places at each depth), which the kernel side keeps
# to send together, and after it no sample comes to send them: user space
# must ask for them. It first sleeps START_SECONDS (default 0): a process in
# its first second sends each record at once. Usage: py_spurts.py SPURTS
# SPURT_SECONDS SLEEP_SECONDS [START_SECONDS]
import sys
import time


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def spurt(seconds):
    until = time.process_time() + seconds
    while time.process_time() < until:
        fib(12)


def main(spurts, spurt_seconds, sleep_seconds, start_seconds):
    time.sleep(start_seconds)
    for _ in range(spurts):
        spurt(spurt_seconds)
        time.sleep(sleep_seconds)


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]),
         float(sys.argv[4]) if len(sys.argv) > 4 else 0.0)

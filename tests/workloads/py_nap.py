#!/usr/bin/python3
# Off the CPU in a known function for test_python: nap sleeps 10 ms, work
# burns 5 ms of CPU, in turns. Usage: py_nap.py SECONDS
import sys
import time


def nap():
    time.sleep(0.01)


def work():
    until = time.process_time() + 0.005
    while time.process_time() < until:
        pass


def main(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        nap()
        work()


if __name__ == "__main__":
    main(float(sys.argv[1]) if len(sys.argv) > 1 else 2.0)

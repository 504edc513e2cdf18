# A synthetic `perf script` text for the render benchmark: RECORDS records
# (cpu-clock samples) drawn, skewed toward the first, from STACKS distinct
# stacks 4 to 27 frames deep over 3000 function names; SEED picks the draw.
#   awk -v RECORDS=N -v STACKS=N [-v SEED=N] -f tools/gen_perf_script.awk
BEGIN {
	srand(SEED ? SEED : 1)
	nf = 3000
	for (i = 0; i < nf; i++)
		fn[i] = sprintf("func_%d_%s", i, substr("abcdefghijklmnopqrstuvwxyz", i % 26 + 1, 5))
	for (s = 0; s < STACKS; s++) {
		d = 4 + int(rand() * 24)
		st = ""
		for (k = 0; k < d; k++) {
			f = int(rand() * rand() * nf)
			st = st sprintf("\t    55d0%08x %s+0x%x (/usr/lib/x86_64-linux-gnu/libbench.so.1)\n", f * 4096 + k * 16, fn[f], k * 16 + 4)
		}
		stack[s] = st
	}
	t = 1000.0
	for (r = 0; r < RECORDS; r++) {
		s = int(rand() * rand() * STACKS)
		t += 0.000101
		printf "bench_prog %d/%d [%03d] %.6f: 10101010 cpu-clock:pppH: \n%s\n", 4000 + s % 7, 4000 + s % 13, s % 2, t, stack[s]
	}
}

// A JVM workload for test_runtimes: hot() takes nearly all the time and is
// compiled by the JIT within a second; the program runs for the seconds in
// args[0], then prints how many rounds it made, in how many seconds of CPU
// (its speed, which other processes on the machine change less than the
// rounds alone) and what it computed (so that none of it is dead code).
//   java -cp DIR Hot SECONDS
import java.lang.management.ManagementFactory;

public class Hot {
	static long hot(long n, long acc) {
		for (long i = 0; i < n; i++)
			acc = (acc * 31 + i) ^ (acc >>> 7);
		return acc;
	}

	public static void main(String[] args) {
		long end = System.nanoTime() + (long)(Double.parseDouble(args[0]) * 1e9), acc = 0;
		long rounds = 0;

		for (; System.nanoTime() < end; rounds++)
			acc = hot(1000000, acc);
		double cpu = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime() / 1e9;
		System.out.printf("%d rounds in %.2f s of CPU: %.0f/s %d%n", rounds, cpu, rounds / cpu,
				  acc);
	}
}

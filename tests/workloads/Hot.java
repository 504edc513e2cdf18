// A JVM workload for test_runtimes: hot() takes nearly all the time and is
// compiled by the JIT within a second; the program runs for the seconds in
// args[0], then prints how many rounds it made (its speed) and what it
// computed (so that none of it is dead code).
//   java -cp DIR Hot SECONDS
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
		System.out.println(rounds + " rounds " + acc);
	}
}

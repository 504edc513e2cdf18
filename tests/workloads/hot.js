// A node workload for test_runtimes: hotLoop() does 70% of the work and
// warmLoop() 30%, both called from main(); the program runs for the seconds
// in argv[2], then prints how many rounds it made, in how many seconds of
// the process's CPU (its speed, which other processes on the machine
// change less than the rounds alone) and what it computed (so that none of
// it is dead code). Which of them stays in V8's
// interpreter is up to node's flags: --turbo-filter=hotLoop
// --sparkplug-filter=hotLoop compiles hotLoop() only, --no-opt
// --no-sparkplug neither.
//   node [FLAGS] hot.js SECONDS
'use strict';

function hotLoop(n, acc) {
	for (let i = 0; i < n; i++)
		acc = ((acc * 31 + i) ^ (acc >>> 7)) | 0;
	return acc;
}

function warmLoop(n, acc) {
	for (let i = 0; i < n; i++)
		acc = ((acc * 17 + i) ^ (acc >>> 5)) | 0;
	return acc;
}

function main(seconds) {
	const end = Date.now() + seconds * 1000;
	let acc = 0, rounds = 0;

	for (; Date.now() < end; rounds++) {
		acc = hotLoop(70000, acc);
		acc = warmLoop(30000, acc);
	}
	const usage = process.cpuUsage(), cpu = (usage.user + usage.system) / 1e6;
	console.log(`${rounds} rounds in ${cpu.toFixed(2)} s of CPU: ${(rounds / cpu).toFixed(0)}/s ${acc}`);
}

main(Number(process.argv[2]));

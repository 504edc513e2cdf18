// SPDX-License-Identifier: GPL-2.0

// go_stacks N: goroutines that recurse deep enough for the runtime to grow
// (copy) their stacks many times, panics recovered through deferred calls,
// and garbage collections that scan every stack. The Go runtime walks each
// frame by its return address: a uretprobe's would be fatal. Prints what it
// computed: the same with and without tracing.
package main

import (
	"fmt"
	"os"
	"runtime"
	"strconv"
	"sync"
)

//go:noinline
func grow(n int, pad [64]byte) int {
	if n == 0 {
		return int(pad[0])
	}
	pad[n%64]++
	return grow(n-1, pad) + 1
}

//go:noinline
func mayPanic(i int) int {
	if i%3 == 0 {
		panic(fmt.Sprintf("three %d", i))
	}
	return i
}

//go:noinline
func recovering(i int) (v int) {
	defer func() {
		if r := recover(); r != nil {
			v = -1
		}
	}()
	return deepPanic(i%50, i)
}

//go:noinline
func deepPanic(n, i int) int {
	if n == 0 {
		return mayPanic(i)
	}
	return deepPanic(n-1, i) + 1
}

func worker(id, rounds int, out *int64, wg *sync.WaitGroup) {
	defer wg.Done()
	var sum int64
	for r := 0; r < rounds; r++ {
		var pad [64]byte
		sum += int64(grow(2000+id*100+r%7, pad))
		sum += int64(recovering(id*rounds + r))
		if r%10 == 0 {
			runtime.GC()
		}
	}
	*out = sum
}

func main() {
	rounds := 40
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil {
			rounds = v
		}
	}
	const workers = 8
	sums := make([]int64, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go worker(w, rounds, &sums[w], &wg)
	}
	wg.Wait()
	var total int64
	for _, s := range sums {
		total += s
	}
	fmt.Printf("workers %d rounds %d total %d\n", workers, rounds, total)
}

// SPDX-License-Identifier: GPL-2.0

// go_calls N: N calls of each of three functions whose frames are small,
// big (over 128 bytes) and huge (over 4 KiB), Go's three forms of the stack
// check a function begins with, each in a new goroutine, below a recursion
// of varied depth: the check often finds the stack short, and the runtime
// copies the stack and runs the function's first instruction again for the
// same call. Then overDeep, which calls a recursion deep enough for the
// stack to be copied (to grow it) while overDeep runs. Prints how many
// calls of the first three it made.
package main

import (
	"fmt"
	"os"
	"strconv"
)

var calls int64

//go:noinline
func bump() { calls++ }

// A call makes it no leaf: leaves with small frames have no check.
//
//go:noinline
func countedSmall(i int) int {
	bump()
	return i * 3
}

//go:noinline
func countedBig(i int) int {
	var buf [1024]byte
	calls++
	buf[i%len(buf)] = byte(i)
	return int(buf[(i*7)%len(buf)])
}

//go:noinline
func countedHuge(i int) int {
	var buf [8192]byte
	calls++
	buf[i%len(buf)] = byte(i)
	return int(buf[(i*7)%len(buf)])
}

//go:noinline
func deep(n int) int {
	var buf [64]byte
	buf[n%64] = byte(n)
	if n == 0 {
		return int(buf[0])
	}
	return deep(n-1) + int(buf[n%64])
}

//go:noinline
func overDeep(i int) int { return deep(3000 + i%7) }

// down recurses depth frames of about 100 bytes, then makes the calls.
//
//go:noinline
func down(depth, i int) int {
	var pad [64]byte
	if depth == 0 {
		return countedSmall(i) + countedBig(i) + countedHuge(i)
	}
	pad[depth%64] = byte(depth)
	return down(depth-1, i) + int(pad[(i*5)%64])
}

func main() {
	n := 1000
	if len(os.Args) > 1 {
		if v, err := strconv.Atoi(os.Args[1]); err == nil {
			n = v
		}
	}
	var sum int
	for i := 0; i < n; i++ {
		ch := make(chan int)
		go func(i int) { ch <- down(i%40, i) + overDeep(i) }(i)
		sum += <-ch
	}
	fmt.Printf("sum %d calls %d\n", sum, calls)
}

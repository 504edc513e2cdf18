// SPDX-License-Identifier: GPL-2.0

// go_clock SECONDS: reads the clock through time.Now for SECONDS in
// main.spin. Go's runtime calls the vDSO on the thread's system stack, its
// own frame (time.now) on the goroutine's, below it: a walk must follow
// that frame pointer down once to reach main.spin.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func spin(d time.Duration) int {
	n := 0
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		n++
	}
	return n
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[len(os.Args)-1], 64)
	if len(os.Args) != 2 || err != nil {
		fmt.Fprintln(os.Stderr, "usage: go_clock SECONDS")
		os.Exit(2)
	}
	fmt.Println("reads", spin(time.Duration(secs*float64(time.Second))))
}

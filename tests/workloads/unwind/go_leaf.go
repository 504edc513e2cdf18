// SPDX-License-Identifier: GPL-2.0

// go_leaf SECONDS: four goroutines call main.batch, which calls main.work,
// a leaf the compiler gives no frame (no frame pointer pushed), until
// SECONDS pass. A frame-pointer walk from main.work finds main.batch's
// caller first: main.batch is lost unless the leaf's return address is
// read where its call left it, at the stack pointer.
package main

import (
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

//go:noinline
func work(i int) int {
	s := 0
	for k := 0; k < 1000; k++ {
		s += k * i
	}
	return s
}

//go:noinline
func batch(end time.Time) int {
	s := 0
	for time.Now().Before(end) {
		for i := 0; i < 1000; i++ {
			s += work(i)
		}
	}
	return s
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[len(os.Args)-1], 64)
	if len(os.Args) != 2 || err != nil {
		fmt.Fprintln(os.Stderr, "usage: go_leaf SECONDS")
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := batch(end)
			mu.Lock()
			total += s
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println("sum", total)
}

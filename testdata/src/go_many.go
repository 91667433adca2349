// N goroutines blocked (default 1000: channel receives at recursion depths 0-3, selects, a
// WaitGroup), then the main goroutine panics with an index out of range; GOTRACEBACK=crash prints
// every goroutine and re-raises SIGABRT.
package main

import (
	"os"
	"runtime"
	"strconv"
	"sync"
)

//go:noinline
func wait(depth int, ch chan int) int {
	if depth > 0 {
		return wait(depth-1, ch) + 1
	}
	return <-ch
}

//go:noinline
func idle(a, b chan int) {
	select {
	case <-a:
	case <-b:
	}
}

//go:noinline
func pick(xs []int, i int) int {
	return xs[i]
}

func main() {
	n := 1000
	if len(os.Args) > 1 {
		n, _ = strconv.Atoi(os.Args[1])
	}
	block := make(chan int)
	var wg sync.WaitGroup
	wg.Add(1)
	for i := 0; i < n; i++ {
		switch i % 3 {
		case 0:
			go wait(i%4, block)
		case 1:
			go idle(block, block)
		default:
			go func() { wg.Wait() }()
		}
	}
	for runtime.NumGoroutine() < n+1 {
		runtime.Gosched()
	}
	// Let each goroutine reach its wait.
	for i := 0; i < 100; i++ {
		runtime.Gosched()
	}
	println(pick([]int{1, 2, 3}, n%7+3))
}

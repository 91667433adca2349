// A deadlock of goroutines on channels, run with GOTRACEBACK=crash: every goroutine waits (a
// channel receive, a send, a select, a sync.Mutex, a WaitGroup), so the runtime's checkdead says
// "all goroutines are asleep - deadlock!", prints every goroutine and re-raises SIGABRT.
package main

import (
	"sync"
)

var mu sync.Mutex

//go:noinline
func consumer(in <-chan int) {
	for v := range in {
		_ = v
	}
}

//go:noinline
func producer(out chan<- int) {
	out <- 1
	out <- 2
}

//go:noinline
func router(a, b chan int) {
	select {
	case <-a:
	case <-b:
	}
}

//go:noinline
func locker(started chan<- bool) {
	started <- true
	mu.Lock()
}

func main() {
	var wg sync.WaitGroup
	started := make(chan bool)
	mu.Lock()
	go consumer(make(chan int))
	go producer(make(chan int))
	go router(make(chan int), make(chan int))
	go locker(started)
	<-started
	wg.Add(1)
	go func() {
		wg.Wait()
	}()
	done := make(chan struct{})
	<-done
}

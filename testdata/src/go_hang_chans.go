// Many goroutines of a hung Go pipeline, killed by a watchdog's SIGQUIT with GOTRACEBACK=crash:
// 400 workers wait to receive from a channel nobody sends on, 50 wait to send, 20 in a select,
// 10 sleep, 8 wait for a sync.Mutex, 4 for a sync.RWMutex's read lock and main for its write
// lock (held by main itself), 2 on a sync.Cond and 2 in a WaitGroup. The watchdog is a child
// process (sh: sleep, kill -QUIT).
package main

import (
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var (
	jobs    = make(chan int)
	results = make(chan int)
	quit    = make(chan bool)
	tick    = make(chan bool)
	table   sync.Mutex
	index   sync.RWMutex
	cond    = sync.NewCond(&sync.Mutex{})
	batch   sync.WaitGroup
)

//go:noinline
func worker() {
	for j := range jobs {
		_ = j
	}
}

//go:noinline
func emitter(i int) { results <- i }

//go:noinline
func poller() {
	select {
	case <-quit:
	case <-tick:
	}
}

//go:noinline
func napper() { time.Sleep(time.Hour) }

//go:noinline
func locker() { table.Lock() }

//go:noinline
func reader() { index.RLock() }

//go:noinline
func writer() { index.Lock() }

//go:noinline
func waiter() {
	cond.L.Lock()
	cond.Wait()
}

//go:noinline
func joiner() { batch.Wait() }

func watchdog() {
	cmd := "sleep 1; kill -QUIT " + strconv.Itoa(os.Getpid())
	if _, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", cmd}, &syscall.ProcAttr{}); err != nil {
		panic(err)
	}
}

func main() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	table.Lock()
	index.Lock()
	batch.Add(1)
	for i := 0; i < 400; i++ {
		go worker()
	}
	for i := 0; i < 50; i++ {
		go emitter(i)
	}
	for i := 0; i < 20; i++ {
		go poller()
	}
	for i := 0; i < 10; i++ {
		go napper()
	}
	for i := 0; i < 8; i++ {
		go locker()
	}
	for i := 0; i < 4; i++ {
		go reader()
	}
	for i := 0; i < 2; i++ {
		go waiter()
	}
	for i := 0; i < 2; i++ {
		go joiner()
	}
	watchdog()
	index.Lock() // held by main itself: main waits for the RWMutex's writer Mutex

}

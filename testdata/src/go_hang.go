// Hung Go processes (docs/hangs.md "Go"), killed from outside by a watchdog's SIGQUIT with
// GOTRACEBACK=crash: the runtime prints every goroutine (the tests' oracle), relays the SIGQUIT
// from M to M and the last M aborts. The watchdog is a child process (sh: sleep, kill -QUIT), so
// the signal comes from another pid, as from a supervisor. signal.Notify's goroutine (in a system
// call) keeps the runtime's own deadlock check (checkdead) quiet, as in most real servers.
//
//	go_hang mutex   ten workers wait for ledger.mu, which main locked and never unlocks
//	go_hang busy    main.crunch spins holding stats.mu, five goroutines wait for it
//	go_hang chans   503 goroutines: channels, select, sleep, Mutex, RWMutex, Cond, WaitGroup
package main

import (
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"
)

var ledger struct {
	mu    sync.Mutex
	total int
}

var stats struct {
	mu  sync.Mutex
	sum uint64
}

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
func post(amount int, done chan<- bool) {
	ledger.mu.Lock()
	ledger.total += amount
	ledger.mu.Unlock()
	done <- true
}

//go:noinline
func crunch(started chan<- bool) {
	stats.mu.Lock()
	started <- true
	x := uint64(1)
	for {
		x = x*6364136223846793005 + 1442695040888963407
		stats.sum += x >> 33
	}
}

//go:noinline
func report(done chan<- bool) {
	stats.mu.Lock()
	_ = stats.sum
	stats.mu.Unlock()
	done <- true
}

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
func waiter() {
	cond.L.Lock()
	cond.Wait()
}

//go:noinline
func joiner() { batch.Wait() }

// watchdog sends SIGQUIT to this process after a second (every goroutine is parked by then).
func watchdog() {
	cmd := "sleep 1; kill -QUIT " + strconv.Itoa(os.Getpid())
	if _, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", cmd}, &syscall.ProcAttr{}); err != nil {
		panic(err)
	}
}

// spawn starts n goroutines running f.
func spawn(n int, f func()) {
	for i := 0; i < n; i++ {
		go f()
	}
}

// wait receives n values from done.
func wait(n int, done <-chan bool) {
	for i := 0; i < n; i++ {
		<-done
	}
}

func hangMutex() {
	ledger.mu.Lock() // the bug: never unlocked
	done := make(chan bool)
	for i := 0; i < 10; i++ {
		go post(i, done)
	}
	watchdog()
	wait(10, done)
}

func hangBusy() {
	started := make(chan bool)
	go crunch(started)
	<-started
	done := make(chan bool)
	spawn(5, func() { report(done) })
	watchdog()
	wait(5, done)
}

func hangChans() {
	table.Lock()
	index.Lock()
	batch.Add(1)
	spawn(400, worker)
	for i := 0; i < 50; i++ {
		go emitter(i)
	}
	spawn(20, poller)
	spawn(10, napper)
	spawn(8, locker)
	spawn(4, reader)
	spawn(2, waiter)
	spawn(2, joiner)
	watchdog()
	index.Lock() // held by main itself: main waits for the RWMutex's writer Mutex
}

func main() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	switch os.Args[1] {
	case "mutex":
		hangMutex()
	case "busy":
		hangBusy()
	case "chans":
		hangChans()
	}
}

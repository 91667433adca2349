// A Go server hung on a sync.Mutex that is never unlocked, killed from outside by a watchdog's
// SIGQUIT with GOTRACEBACK=crash (the runtime prints every goroutine, then aborts). Ten workers
// wait for ledger.mu, main waits for them; signal.Notify's goroutine keeps the runtime's own
// deadlock check (checkdead) quiet, as in most real servers. The watchdog is a child process
// (sh: sleep, kill -QUIT): the signal comes from another pid, as from a supervisor.
package main

import (
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

var ledger struct {
	mu    sync.Mutex
	total int
}

//go:noinline
func post(amount int, done chan<- bool) {
	ledger.mu.Lock()
	ledger.total += amount
	ledger.mu.Unlock()
	done <- true
}

// watchdog sends SIGQUIT to this process after a second (every goroutine is parked by then).
func watchdog() {
	cmd := "sleep 1; kill -QUIT " + strconv.Itoa(os.Getpid())
	if _, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", cmd}, &syscall.ProcAttr{}); err != nil {
		panic(err)
	}
}

func main() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	ledger.mu.Lock() // the bug: never unlocked
	done := make(chan bool)
	for i := 0; i < 10; i++ {
		go post(i, done)
	}
	watchdog()
	for i := 0; i < 10; i++ {
		<-done
	}
}

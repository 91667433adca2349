// A Go process that looks hung but is busy: one goroutine holds stats.mu while it spins in a long
// computation, five others wait for the mutex, main waits for them. A watchdog (a child process)
// sends SIGQUIT after a second; GOTRACEBACK=crash makes the runtime print every goroutine and abort.
package main

import (
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
)

var stats struct {
	mu  sync.Mutex
	sum uint64
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

func watchdog() {
	cmd := "sleep 1; kill -QUIT " + strconv.Itoa(os.Getpid())
	if _, err := syscall.ForkExec("/bin/sh", []string{"sh", "-c", cmd}, &syscall.ProcAttr{}); err != nil {
		panic(err)
	}
}

func main() {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	started := make(chan bool)
	go crunch(started)
	<-started
	done := make(chan bool)
	for i := 0; i < 5; i++ {
		go report(done)
	}
	watchdog()
	for i := 0; i < 5; i++ {
		<-done
	}
}

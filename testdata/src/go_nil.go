// Go nil pointer dereference, run with GOTRACEBACK=crash: the runtime turns the SIGSEGV into a
// panic (runtime.sigpanic), prints every goroutine and re-raises SIGABRT to dump core.
package main

import (
	"fmt"
	"os"
)

type Config struct {
	Name    string
	Retries int
}

//go:noinline
func retries(c *Config) int {
	return c.Retries
}

func lookup(name string) *Config {
	if name == "default" {
		return &Config{Name: name, Retries: 3}
	}
	return nil
}

func main() {
	fmt.Println(retries(lookup(os.Args[0])))
}

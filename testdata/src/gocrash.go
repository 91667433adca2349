// Go frames (issue 10): a nil pointer dereference in a method reached through a closure; run with
// GOTRACEBACK=crash so the runtime aborts with SIGABRT and the kernel writes a core.
package main

import (
	"fmt"
	"os"
)

type account struct {
	owner   *string
	balance int
}

//go:noinline
func (a *account) ownerName() string {
	return *a.owner // owner is nil for the second account: the crash
}

//go:noinline
func report(accounts []*account, each func(*account) string) int {
	n := 0
	for _, a := range accounts {
		n += len(each(a))
	}
	return n
}

func main() {
	name := "ada"
	accounts := []*account{{owner: &name, balance: 3}, {balance: len(os.Args)}}
	fmt.Println(report(accounts, func(a *account) string { return a.ownerName() }))
}

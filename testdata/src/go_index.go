// Go index out of range, run with GOTRACEBACK=crash: runtime.goPanicIndex -> runtime.gopanic ->
// fatalpanic, then the runtime raises SIGABRT to dump core.
package main

import (
	"fmt"
	"os"
)

//go:noinline
func pick(items []string, i int) string {
	return items[i]
}

func main() {
	items := []string{"a", "b", "c"}
	fmt.Println(pick(items, len(os.Args)+4))
}

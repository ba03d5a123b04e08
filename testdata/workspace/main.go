// Command workspace is the Go part of the private commands' fixture tree.
package main

import (
	"fmt"
	"os"

	"example.com/workspace/util"
)

// Version is printed by main.
const Version = "1.0"

var verbose = len(os.Args) > 1

func main() {
	c := util.NewCounter("hits")
	c.Add(2)
	c.Add(3)
	if verbose {
		fmt.Println(Version, c.Name, c.Total())
	}
	fmt.Println(util.Greeting("world"))
}

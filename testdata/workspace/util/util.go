// Package util holds declarations for inspect_file and hsymbol tests.
package util

import "strings"

// Limit caps a counter.
const (
	Limit   = 100
	Initial = 0
)

// Counter counts things.
type Counter struct {
	Name  string
	total int
}

// Shape is an interface.
type Shape interface {
	Area() float64
}

// NewCounter returns a counter named name.
func NewCounter(name string) *Counter {
	return &Counter{Name: name, total: Initial}
}

// Add adds n to the counter.
func (c *Counter) Add(n int) {
	c.total += n
	if c.total > Limit {
		c.total = Limit
	}
}

// Total reports the count.
func (c *Counter) Total() int { return c.total }

// Greeting greets who.
func Greeting(who string) string {
	return "hello, " + strings.TrimSpace(who)
}

// Package util: a file with CRLF line endings.
package util

// Twice doubles n.
func Twice(n int) int {
	return n * 2 // needle crlf
}

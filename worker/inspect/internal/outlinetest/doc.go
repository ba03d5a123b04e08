// Package outlinetest owns what the language packages' tests share: one
// text rendering of an outline (Summary) and the golden corpus check
// (Golden), which outlines every file of a testdata directory and holds
// the result against the file's .outline beside it.
package outlinetest

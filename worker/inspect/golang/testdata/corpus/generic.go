// Package cache is written for the corpus: the declarations a Go outline
// lists, grouped and single, generic receivers, and what it leaves out.
package cache

import (
	"context"
	_ "embed"
	. "strings"
	stdsync "sync"
)

import "time"

const Version = "1.0"

const (
	KindA Kind = iota
	KindB
	kindC, kindD = 10, 20
)

var (
	ErrMissing = errorString("missing")
	defaultTTL time.Duration
)

var _ = ToUpper

type (
	Kind int

	Cache[K comparable, V any] struct {
		mu    stdsync.Mutex
		items map[K]entry[V]
	}
)

type entry[V any] struct {
	value   V
	expires time.Time
}

type Getter[K comparable, V any] interface {
	Get(ctx context.Context, key K) (V, bool)
}

type errorString string

func (e errorString) Error() string { return string(e) }

func New[K comparable, V any]() *Cache[K, V] {
	return &Cache[K, V]{items: map[K]entry[V]{}}
}

func (c *Cache[K, V]) Get(_ context.Context, key K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[key]
	return e.value, ok
}

func (c *Cache[K, V]) Put(key K, v V) {
	c.mu.Lock()
	c.items[key] = entry[V]{value: v, expires: time.Now().Add(defaultTTL)}
	c.mu.Unlock()
}

func (Kind) String() string { return "kind" }

func init() {
	defaultTTL = time.Minute
}

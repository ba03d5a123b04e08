package router

import "context"

// Runtime prepares the per-thread runtime directory that the `shell` helper
// resolves (package worker implements it). The router calls PrepareThread
// before it emits the first worker carrier of a response for that thread.
type Runtime interface {
	PrepareThread(ctx context.Context, thread string) error
}

// Scripts is the retained-script store (package retain implements it).
type Scripts interface {
	// Retain stores content as artifact id of thread and returns its
	// reference "@shell/<id>". Any error means retained:false; execution of
	// the call is not changed by it.
	Retain(ctx context.Context, thread, id, content string) (ref string, err error)
	// Resolve returns the current content of a "@shell/<id>" reference.
	Resolve(ctx context.Context, thread, ref string) (content string, err error)
	// Apply runs one hpatch edit text against the thread's retained scripts
	// atomically and returns the report the model sees.
	Apply(ctx context.Context, thread, patch string) (report string, err error)
}

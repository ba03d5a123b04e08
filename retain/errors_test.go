package retain

import (
	"context"
	"errors"
	"io/fs"
	"strings"
	"testing"

	"hpatch-router/hpatch"
	"hpatch-router/ident"
	"hpatch-router/scriptref"
)

// Store errors are values: the cause is reachable with errors.Is/As
// through every wrapping, and no message carries a package or tool prefix
// (the router adds "shell: " or "hpatch: " where the model reads it).
func TestStoreErrorsAreValues(t *testing.T) {
	e := newEnv(t, "T1")
	ctx := context.Background()
	if _, err := e.retain("T1", "call_1", py); err != nil {
		t.Fatal(err)
	}
	var idErr *ident.Error
	var refErr *scriptref.RefError
	var patchErr *hpatch.Error
	_, retainAgain := e.store.Retain(ctx, "T1", "call_1", py)
	_, badThread := e.store.Retain(ctx, "snapshot-x", "call_2", py)
	_, badID := e.store.Retain(ctx, "T1", "call 2", py)
	_, badRef := e.store.Resolve(ctx, "T1", "@shell/a b")
	_, gone := e.store.Resolve(ctx, "T1", "@shell/call_9")
	_, patchGone := e.store.Apply(ctx, "T1", "in @shell/call_9\nadd EOF \"x\"\n")
	_, patchRef := e.store.Apply(ctx, "T1", "in @shell/.runtime\nadd EOF \"x\"\n")
	for _, c := range []struct {
		name string
		err  error
		is   func(error) bool
	}{
		{"an existing artifact is fs.ErrExist", retainAgain, func(err error) bool { return errors.Is(err, fs.ErrExist) }},
		{"a snapshot-named thread is an *ident.Error", badThread, func(err error) bool { return errors.As(err, &idErr) && idErr.Kind == ident.ThreadKind }},
		{"a call id with a space is an *ident.Error", badID, func(err error) bool { return errors.As(err, &idErr) && idErr.Kind == ident.ArtifactKind }},
		{"a bad reference is a *scriptref.RefError", badRef, func(err error) bool { return errors.As(err, &refErr) && errors.As(err, &idErr) }},
		{"a missing script is fs.ErrNotExist", gone, func(err error) bool { return errors.Is(err, fs.ErrNotExist) }},
		{"a missing script in an edit is a *hpatch.Error and fs.ErrNotExist", patchGone, func(err error) bool {
			return errors.As(err, &patchErr) && patchErr.Line == 1 && errors.Is(err, fs.ErrNotExist)
		}},
		{"the launcher in an edit is a *hpatch.Error wrapping a *scriptref.RefError", patchRef, func(err error) bool {
			return errors.As(err, &patchErr) && errors.As(err, &refErr)
		}},
	} {
		if c.err == nil || !c.is(c.err) {
			t.Errorf("%s: got %#v", c.name, c.err)
			continue
		}
		if msg := c.err.Error(); strings.HasPrefix(msg, "retain:") || strings.HasPrefix(msg, "hpatch:") || strings.HasPrefix(msg, "shell:") || strings.ContainsAny(msg, "\r\n") {
			t.Errorf("%s: message %q must be one line without a prefix", c.name, msg)
		}
	}
	e.store.Close()
	if _, err := e.store.Resolve(ctx, "T1", "@shell/call_1"); !errors.Is(err, ErrClosed) {
		t.Errorf("a closed store must answer ErrClosed, got %v", err)
	}
}

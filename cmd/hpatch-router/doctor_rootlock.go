//go:build linux

package main

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"hpatch-router/worker"
	"hpatch-router/worker/snapshot"
)

// checkOneRouterPerRoot: one router serves the runtime root. A second
// router of the user on the same root refuses to start (the root's lock,
// snapshot.LockRoot), but a router of a build before that lock does not,
// and one that shares the root takes the other's threads over and
// removes them when it stops. It counts the routers that hold the lock or
// registered a live snapshot there, and, when the router at routerURL
// answers (routerUp), that it is the one holding the lock.
func checkOneRouterPerRoot(env doctorEnv, routerURL string, routerUp bool) check {
	c := check{Name: "one-router-per-root", Title: "one router serves the runtime root", Required: true}
	root, err := snapshot.Root(env.getenv, env.uid)
	if err == nil {
		err = snapshot.CheckRoot(root, env.uid)
	}
	var r *snapshot.Refusal
	if errors.As(err, &r) && r.Code == snapshot.ExitNotFound {
		c.OK, c.Detail = true, "no router serves "+root+" (it does not exist)"
		return c
	}
	if err != nil {
		return c.skip("no usable runtime root (see runtime root)")
	}
	holder, held, err := snapshot.RootHolder(root, env.uid)
	if err != nil {
		c.Detail = "cannot read the lock of " + root + ": " + err.Error()
		c.Fix = "remove " + filepath.Join(root, snapshot.LockName) + " when no hpatch-router runs, then start the router"
		return c
	}
	routers := registeredRouters(root, holder, held)
	stopOthers := "stop every hpatch-router but the one Codex's base_url names (kill PID), then restart that one " +
		"(systemctl --user restart hpatch-router) so its threads get their directories back; a router of its own needs its own root: " +
		snapshot.RootEnv + "=DIR for it and for the Codex that uses it"
	switch {
	case len(routers) > 1:
		c.Detail = strconv.Itoa(len(routers)) + " routers serve " + root + ": " + strings.Join(routers, "; ")
		c.Fix = stopOthers
	case held && routerUp && !samePort(holder.Addr, hostPort(routerURL)):
		c.Detail = root + " is served by the router " + holder.String() + ", but a router answers at " + routerURL + " too: Codex's shell calls go to a runtime that router does not own"
		c.Fix = "point Codex's base_url at http://" + holder.Addr + "/v1 (hpatch-router codex-config --listen " + holder.Addr + "), or stop the router at " + routerURL +
			"; two routers of one user need a root each: " + snapshot.RootEnv + "=DIR for a router and for the Codex that uses it"
	case held:
		c.OK, c.Detail = true, root+" is served by the router "+holder.String()
	case len(routers) == 1:
		c.OK, c.Detail = true, root+" is served by one router ("+routers[0]+")"
	default:
		c.OK, c.Detail = true, "no router serves "+root
	}
	return c
}

// registeredRouters describes each router that holds root's lock or
// registered a snapshot there whose process still runs, one per pid.
func registeredRouters(root string, holder snapshot.Holder, held bool) []string {
	var pids []int
	var out []string
	if held {
		pids = append(pids, holder.PID)
		out = append(out, holder.String()+" (holds the root's lock)")
	}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if snapshot.DigestOf(e.Name()) == "" {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, e.Name(), snapshot.ManifestName))
		m, perr := snapshot.Parse(data)
		if err != nil || perr != nil || !worker.RouterRuns(m) || slices.Contains(pids, m.PID) {
			continue
		}
		pids = append(pids, m.PID)
		out = append(out, "pid "+strconv.Itoa(m.PID)+" ("+m.Exe+", without the root's lock: a build older than the lock)")
	}
	return out
}

// samePort reports whether the lock holder's address a and the router
// address b name the same port (a router listening on 0.0.0.0:8080
// answers at 127.0.0.1:8080); a b without a port is not contradicted.
func samePort(a, b string) bool {
	_, pb, err := net.SplitHostPort(b)
	if err != nil {
		return true
	}
	_, pa, err := net.SplitHostPort(a)
	return err == nil && pa == pb
}

package dashboard

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"
)

// subscriber is one live /events connection. Its queue is bounded; when a
// publish finds it full the subscriber is closed (dropped) rather than
// letting the router wait or memory grow.
type subscriber struct {
	ch      chan []byte
	dropped chan struct{}
}

// publish queues one SSE frame for every subscriber; d.mu is held.
func (d *Dashboard) publish(event string, data any) {
	if len(d.subs) == 0 {
		return
	}
	frame, err := sseFrame(event, d.seq, data)
	if err != nil {
		d.log.Error("dashboard: cannot encode event", "event", event, "err", err)
		return
	}
	for s := range d.subs {
		select {
		case s.ch <- frame:
		default:
			delete(d.subs, s)
			close(s.dropped)
			d.log.Info("dashboard: dropped a subscriber that fell behind")
		}
	}
}

// subscribe registers a subscriber and returns it with the summary frame
// it must send first (taken under the same lock, so no event is missed or
// sent twice). It returns nil when the subscriber cap is reached.
func (d *Dashboard) subscribe() (*subscriber, []byte, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed || len(d.subs) >= d.maxSubs {
		return nil, nil, nil
	}
	first, err := sseFrame("summary", d.seq, d.summaryLocked())
	if err != nil {
		return nil, nil, err
	}
	s := &subscriber{ch: make(chan []byte, d.queue), dropped: make(chan struct{})}
	d.subs[s] = struct{}{}
	return s, first, nil
}

func (d *Dashboard) unsubscribe(s *subscriber) {
	d.mu.Lock()
	delete(d.subs, s)
	d.mu.Unlock()
}

// Close ends every live /events stream and refuses new ones, so an
// http.Server can shut down without waiting for viewers (register it with
// Server.RegisterOnShutdown). Recording and the summary keep working.
func (d *Dashboard) Close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for s := range d.subs {
		delete(d.subs, s)
		close(s.dropped)
	}
}

// subscriberCount reports the live subscribers (tests, logs).
func (d *Dashboard) subscriberCount() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.subs)
}

func sseFrame(event string, id uint64, data any) ([]byte, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	// json.Marshal never emits a raw newline, so the data fits one line.
	out := make([]byte, 0, len(b)+64)
	out = append(out, "event: "...)
	out = append(out, event...)
	out = append(out, "\nid: "...)
	out = strconv.AppendUint(out, id, 10)
	out = append(out, "\ndata: "...)
	out = append(out, b...)
	return append(out, "\n\n"...), nil
}

// serveEvents streams the summary, then every event, until the client
// goes away, the subscriber is dropped, or the request context ends.
func (d *Dashboard) serveEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	s, first, err := d.subscribe()
	if err != nil {
		http.Error(w, "dashboard: cannot encode the summary", http.StatusInternalServerError)
		return
	}
	if s == nil {
		w.Header().Set("Retry-After", "5")
		http.Error(w, "dashboard: too many live viewers, or shutting down; retry later", http.StatusServiceUnavailable)
		return
	}
	defer d.unsubscribe(s)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// Tell EventSource to reconnect quickly after a drop.
	if _, err := w.Write(append([]byte("retry: 1000\n\n"), first...)); err != nil {
		return
	}
	if err := rc.Flush(); err != nil {
		return
	}
	tick := time.NewTicker(d.keepAlive)
	defer tick.Stop()
	for {
		var frame []byte
		select {
		case <-r.Context().Done():
			return
		case <-s.dropped:
			return
		case frame = <-s.ch:
		case <-tick.C:
			frame = []byte(": ping\n\n")
		}
		if _, err := w.Write(frame); err != nil {
			return
		}
		if err := rc.Flush(); err != nil {
			return
		}
	}
}

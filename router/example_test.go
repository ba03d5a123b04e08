package router_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"

	"github.com/tidwall/gjson"

	"hpatch-router/router"
)

// A passthrough router relays /v1/models with path, query, auth and ETag
// intact.
func ExampleNew() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("ETag", `"m1"`)
		fmt.Fprintf(w, `{"models":[],"path":%q,"auth":%q}`, r.URL.RequestURI(), r.Header.Get("Authorization"))
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL + "/backend-api/codex")
	rt, err := router.New(router.Upstream(u), router.WithMode(router.ModePassthrough),
		router.Logger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	defer rt.Close()
	front := httptest.NewServer(rt)
	defer front.Close()

	client := &http.Client{Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	req, _ := http.NewRequest("GET", front.URL+"/v1/models?client_version=0.169.0", nil)
	req.Header.Set("Authorization", "Bearer sk-test")
	resp, err := client.Do(req)
	if err != nil {
		panic(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	fmt.Println(resp.Header.Get("ETag"))
	fmt.Println(string(body))
	// Output:
	// "m1"
	// {"models":[],"path":"/backend-api/codex/models?client_version=0.169.0","auth":"Bearer sk-test"}
}

// In hpatch mode the model's `shell` call reaches Codex as a Code Mode
// `exec` carrier with the same call_id and namespace.
func ExampleRouter_shellCall() {
	const call = `{"type":"custom_tool_call","id":"ctc_1","call_id":"call_1","name":"shell","namespace":"functions","input":"#!python3\nprint(6*7)\n","status":"completed"}`
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "event: response.output_item.done\ndata: {\"type\":\"response.output_item.done\",\"output_index\":0,\"item\":%s,\"sequence_number\":0}\n\n", call)
		fmt.Fprintf(w, "event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_1\",\"output\":[%s]},\"sequence_number\":1}\n\n", call)
	}))
	defer upstream.Close()
	u, _ := url.Parse(upstream.URL)
	rt, _ := router.New(router.Upstream(u), router.Logger(slog.New(slog.DiscardHandler)))
	defer rt.Close()

	// A Code Mode request as Codex 0.169 sends it (abridged).
	request := `{"model":"m","stream":true,"input":[{"type":"additional_tools","id":"at_1","role":"developer","tools":[` +
		`{"type":"namespace","name":"functions","description":"","tools":[{"type":"custom","name":"exec",` +
		`"description":"Run JavaScript; nested tools include tools.exec_command.","format":{"type":"text"}}]}]}]}`
	rec := httptest.NewRecorder()
	req := httptest.NewRequest("POST", "/v1/responses", strings.NewReader(request))
	req.Header.Set("Thread-Id", "example-thread")
	rt.ServeHTTP(rec, req)

	for _, line := range strings.Split(rec.Body.String(), "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if ok && gjson.Get(data, "type").String() == "response.output_item.done" {
			item := gjson.Get(data, "item")
			fmt.Println(item.Get("name"), item.Get("call_id"), item.Get("namespace"),
				strings.Contains(item.Get("input").String(), "tools.exec_command("))
		}
	}
	// Output:
	// exec call_1 functions true
}

package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"hpatch-router/rows"
	"hpatch-router/shebang/oneline"
)

// Codex auth variants codex-config can print.
const (
	authChatGPT = "chatgpt"
	authAPIKey  = "apikey"
)

const codexConfigUsage = "Usage: hpatch-router codex-config [--listen ADDR] [--auth chatgpt|apikey] [--provider-name NAME]\n\n" +
	"Print the Codex config.toml snippet that sends Codex through this router.\n" +
	"Nothing is written: paste it into $CODEX_HOME/config.toml (default ~/.codex/config.toml).\n\nFlags:\n"

// codexSnippet is what the snippet depends on.
type codexSnippet struct {
	listen     string // the router's --listen address
	auth       string // authChatGPT or authAPIKey
	provider   string // the [model_providers.<provider>] name
	runtimeDir string // $HPATCH_RUNTIME_DIR when set, else ""
}

// runCodexConfig is `hpatch-router codex-config`.
func runCodexConfig(_ context.Context, args []string, s stdio) int {
	return codexConfigMain(args, os.Getenv, s)
}

func codexConfigMain(args []string, getenv func(string) string, s stdio) int {
	fs := pflag.NewFlagSet("codex-config", pflag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:8080", "the address hpatch-router serve --listen uses")
	auth := fs.String("auth", authChatGPT, "how Codex authenticates: chatgpt (ChatGPT login) or apikey (OPENAI_API_KEY)")
	provider := fs.String("provider-name", "hpatch", "name of the [model_providers.NAME] table")
	if code, done := parseFlags(fs, args, codexConfigUsage, s); done {
		return code
	}
	snip := codexSnippet{listen: *listen, auth: *auth, provider: *provider, runtimeDir: getenv("HPATCH_RUNTIME_DIR")}
	text, err := snip.render()
	if err != nil {
		fmt.Fprintf(s.err, "hpatch-router codex-config: %v\n", err)
		return 2
	}
	fmt.Fprint(s.out, text)
	return 0
}

// baseURLFor turns a listen address into the URL Codex must call: an
// unspecified host (0.0.0.0, ::, "") becomes the loopback address.
func baseURLFor(listen string) (string, error) {
	host, port, err := net.SplitHostPort(listen)
	if err != nil {
		return "", fmt.Errorf("--listen %q is not HOST:PORT: %w", listen, err)
	}
	if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
		return "", fmt.Errorf("--listen %q needs a numeric port (1-65535)", listen)
	}
	switch host {
	case "", "0.0.0.0":
		host = "127.0.0.1"
	case "::":
		host = "::1"
	}
	if strings.ContainsAny(host, "\"\\ \t\n/") {
		return "", fmt.Errorf("--listen host %q is not a host name or address", host)
	}
	return "http://" + net.JoinHostPort(host, port) + "/v1", nil
}

// validProviderName accepts a TOML bare key (A-Z a-z 0-9 _ -) of at most
// 64 bytes, so the snippet can write [model_providers.NAME] unquoted.
func validProviderName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for i := 0; i < len(n); i++ {
		c := n[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// render returns the config.toml snippet.
func (c codexSnippet) render() (string, error) {
	base, err := baseURLFor(c.listen)
	if err != nil {
		return "", err
	}
	if !validProviderName(c.provider) {
		return "", fmt.Errorf("--provider-name %q: use letters, digits, '_' and '-' only", c.provider)
	}
	var authLine, authNote, upstream string
	switch c.auth {
	case authChatGPT:
		authNote = "ChatGPT login (`codex login`)"
		authLine = "requires_openai_auth = true"
		upstream = "https://chatgpt.com/backend-api/codex (the default --upstream)"
	case authAPIKey:
		authNote = "API key from $OPENAI_API_KEY"
		authLine = `env_key = "OPENAI_API_KEY"`
		upstream = "https://api.openai.com/v1 (start it with --upstream https://api.openai.com/v1)"
	default:
		return "", fmt.Errorf("--auth %q: use %s or %s", c.auth, authChatGPT, authAPIKey)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# hpatch-router for Codex: %s.\n", authNote)
	b.WriteString("# Add to $CODEX_HOME/config.toml (default ~/.codex/config.toml); hpatch-router\n")
	b.WriteString("# never writes Codex files. Keep model_provider above the first [table].\n")
	fmt.Fprintf(&b, "# The router forwards to %s.\n", upstream)
	fmt.Fprintf(&b, "model_provider = %q\n\n", c.provider)
	fmt.Fprintf(&b, "[model_providers.%s]\n", c.provider)
	b.WriteString("name = \"hpatch-router\"\n")
	fmt.Fprintf(&b, "base_url = %q\n", base)
	b.WriteString("wire_api = \"responses\"\n")
	b.WriteString(authLine + "\n\n")
	b.WriteString("# The router and Codex's `shell` helper must use the same runtime root. If you\n")
	b.WriteString("# change it (HPATCH_RUNTIME_DIR or serve --runtime-dir), export the same\n")
	b.WriteString("# HPATCH_RUNTIME_DIR in the environment Codex runs in.\n")
	if c.runtimeDir != "" {
		fmt.Fprintf(&b, "# Here it is set: export HPATCH_RUNTIME_DIR=%s\n", shellQuoteForComment(c.runtimeDir))
	}
	b.WriteString("# Check the setup with: hpatch-router doctor\n")
	return b.String(), nil
}

// shellQuoteForComment writes s for a copy-paste shell line as the worker
// command line quotes (oneline.Quote), kept on one comment line.
func shellQuoteForComment(s string) string {
	return oneline.Quote(rows.OneLineEscaped(s))
}

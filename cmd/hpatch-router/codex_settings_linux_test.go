package main

import (
	"context"
	"hpatch-router/internal/testenv"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

const routerProvider = "[model_providers.hpatch]\nname = \"hpatch-router\"\nbase_url = \"http://127.0.0.1:8080/v1\"\nwire_api = \"responses\"\n"

// codexLoadVerdicts are config files and whether Codex 0.169.0 loads them,
// measured with `codex login status` in a fresh CODEX_HOME (an "Error
// loading configuration" line means it refuses). TestCodexLoadVerdicts
// measures them again whenever Codex is installed.
var codexLoadVerdicts = []struct {
	name  string
	src   string
	loads bool
}{
	{"the codex-config snippet", "model_provider = \"hpatch\"\n" + routerProvider + "requires_openai_auth = true\n", true},
	{"a misspelled boolean", "a = tru\n" + routerProvider, false},
	{"a leading zero", "a = 01\n" + routerProvider, false},
	{"a repeated key", "a = 1\na = 2\n" + routerProvider, false},
	{"a repeated table", routerProvider + "[t]\n[t]\n", false},
	{"a repeated provider table", routerProvider + routerProvider, false},
	{"a key redefined as a table", "a = 1\n[a]\n" + routerProvider, false},
	{"an inline table extended later", "t = {}\nt.a = 1\n" + routerProvider, false},
	{"an unterminated string", "model_provider = \"hpatch\n" + routerProvider, false},
	{"a double underscore", "a = 1__0\n" + routerProvider, false},
	{"a bare control character in a comment", "a = 1 # c \x01\n" + routerProvider, false},
	{"TOML 1.1: a trailing comma in an inline table", "t = { a = 1, }\n" + routerProvider, true},
	{"TOML 1.1: a newline in an inline table", "t = { a = 1,\n b = 2 }\n" + routerProvider, true},
	{"TOML 1.1: \\e and \\xHH escapes", "s = \"\\e\\xff\"\n" + routerProvider, true},
	{"TOML 1.1: a time without seconds", "d = 1979-05-27T07:32\n" + routerProvider, true},
	{"CRLF line ends", strings.ReplaceAll(routerProvider, "\n", "\r\n"), true},
	{"unknown keys", "unknown_top = 1\n" + routerProvider + "unknown_key = 1\n", true},
	{"base_url of the wrong type", "[model_providers.hpatch]\nname = \"x\"\nbase_url = 5\n", false},
	{"model_provider of the wrong type", "model_provider = 5\n" + routerProvider, false},
	{"model_providers of the wrong type", "model_providers = 3\n", false},
	{"an invalid value under a key the doctor does not read", "x = 0000-\n" + routerProvider, false},
	{"keys are case-sensitive: NAME is not name", "[model_providers.hpatch]\nNAME = \"x\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n", false},
	{"a provider without a name", "[model_providers.hpatch]\nbase_url = \"http://127.0.0.1:8080/v1\"\n", false},
	{"a provider with a blank name", "[model_providers.hpatch]\nname = \"  \"\nbase_url = \"http://127.0.0.1:8080/v1\"\n", false},
	{"the retired chat wire API", strings.Replace(routerProvider, "responses", "chat", 1), false},
	{"an unknown wire API", strings.Replace(routerProvider, "responses", "bogus", 1), false},
	{"a provider table named openai", strings.Replace(routerProvider, "hpatch]", "openai]", 1), false},
	{"a provider table named ollama", strings.Replace(routerProvider, "hpatch]", "ollama]", 1), false},
	{"a provider table named lmstudio", strings.Replace(routerProvider, "hpatch]", "lmstudio]", 1), false},
	{"a provider table named oss", strings.Replace(routerProvider, "hpatch]", "oss]", 1), true},
	{"model_provider naming no provider", "model_provider = \"nope\"\n", false},
	{"model_provider naming a built-in", "model_provider = \"ollama\"\n", true},
	{"a legacy profile line", "profile = \"p\"\n[profiles.p]\nmodel_provider = \"hpatch\"\n" + routerProvider, false},
	{"a profiles table alone", "[profiles.p]\nmodel_provider = \"hpatch\"\n" + routerProvider, true},
}

// codexLoads is the doctor's reading of whether Codex loads src.
func codexLoads(src string) bool {
	doc, err := parseCodexConfig([]byte(src))
	if err != nil {
		return false
	}
	why, _ := codexRefusal(doc)
	return why == ""
}

// The doctor refuses exactly the configs Codex refuses, and never shows ✓
// for one of them.
func TestDoctorReadsConfigsAsCodexDoes(t *testing.T) {
	for _, v := range codexLoadVerdicts {
		t.Run(v.name, func(t *testing.T) {
			if got := codexLoads(v.src); got != v.loads {
				t.Fatalf("doctor says Codex loads it: %v; Codex: %v", got, v.loads)
			}
			m := newFakeMachine(t)
			m.writeCodexConfig(v.src)
			prov := checkCodexConfig(doctorOptions{router: "http://127.0.0.1:8080"}, m.doctorEnv())[0]
			if !v.loads && (prov.OK || prov.Fix == "" || !strings.Contains(prov.Detail, "config.toml")) {
				t.Fatalf("a config Codex refuses must fail with the file and a fix: %+v", prov)
			}
		})
	}
}

func TestDoctorConfigErrorsNameThePosition(t *testing.T) {
	for src, want := range map[string]string{
		"a = \"x\"\nb = \"unterminated\n": "line 2, column",
		"a = 1\n\n[t\n":                   "line 3, column",
		"ok = true\nnokey\n":              "line 2, column",
		"x = 1\na = 01\n":                 "line 2, column 5",
	} {
		if _, err := parseCodexConfig([]byte(src)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: err %v, want %q", src, err, want)
		}
	}
}

// TestCodexLoadVerdicts measures the table against the real Codex CLI.
func TestCodexLoadVerdicts(t *testing.T) {
	codex := codexBin(t)
	for _, v := range codexLoadVerdicts {
		t.Run(v.name, func(t *testing.T) {
			home := testenv.FreshHome(t).Dir // CODEX_HOME too
			if err := os.WriteFile(filepath.Join(home, "config.toml"), []byte(v.src), 0o600); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, codex, "login", "status")
			cmd.Env = []string{"CODEX_HOME=" + home, "HOME=" + home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + t.TempDir()}
			out, _ := cmd.CombinedOutput()
			if ctx.Err() != nil {
				t.Fatalf("codex login status did not finish: %s", out)
			}
			if loads := !strings.Contains(string(out), "Error loading configuration"); loads != v.loads {
				t.Fatalf("Codex loads it: %v, the table says %v; Codex said: %s", loads, v.loads, out)
			}
		})
	}
}

// FuzzParseCodexConfig ties the doctor's verdict to the TOML library's own
// reading of the whole document: a document the library rejects is never
// read, and for one the doctor accepts, every provider it reads is the
// table the document holds (same name, base_url and wire_api in a generic
// decode), so a ✓ stands on what the file says.
func FuzzParseCodexConfig(f *testing.F) {
	for _, v := range codexLoadVerdicts {
		f.Add(v.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		var generic map[string]any
		genericErr := toml.Unmarshal([]byte(src), &generic)
		doc, err := parseCodexConfig([]byte(src))
		if genericErr != nil && err == nil {
			t.Fatalf("read a document TOML rejects (%v)", genericErr)
		}
		if err != nil || !codexLoads(src) {
			return
		}
		tables, _ := generic["model_providers"].(map[string]any)
		for id, p := range doc.ModelProviders {
			table, ok := tables[id].(map[string]any)
			if !ok {
				t.Fatalf("provider %q read but not in the document", id)
			}
			for key, got := range map[string]string{"name": p.Name, "base_url": p.BaseURL, "wire_api": p.WireAPI} {
				if want, _ := table[key].(string); want != got {
					t.Fatalf("provider %q %s = %q, the document says %q", id, key, got, want)
				}
			}
		}
	})
}

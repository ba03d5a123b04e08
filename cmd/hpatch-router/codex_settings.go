package main

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// maxConfigBytes bounds the config file the doctor reads.
const maxConfigBytes = 4 << 20

// codexSettings is the part of Codex's config.toml the doctor reads. The
// whole file is parsed by a TOML 1.1 parser (Codex 0.169 accepts TOML 1.1:
// trailing commas and newlines in inline tables, \e and \xHH escapes),
// so a file Codex refuses (a = tru, a = 01, a repeated key or table, an
// inline table extended later) is refused here too, and a setting of the
// wrong type fails as it does for Codex.
type codexSettings struct {
	ModelProvider  string
	Profile        string
	ModelProviders map[string]codexProvider
}

type codexProvider struct {
	Name, BaseURL, WireAPI string
}

func readCodexConfig(path string) (codexSettings, error) {
	f, err := os.Open(path)
	if err != nil {
		return codexSettings{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err != nil {
		return codexSettings{}, fmt.Errorf("cannot read %s: %w", path, err)
	}
	if len(b) > maxConfigBytes {
		return codexSettings{}, fmt.Errorf("%s is larger than %d bytes", path, maxConfigBytes)
	}
	doc, err := parseCodexConfig(b)
	if err != nil {
		return codexSettings{}, fmt.Errorf("cannot parse %s: %w", path, err)
	}
	return doc, nil
}

// parseCodexConfig decodes a config.toml. The whole document is decoded
// into generic values, so every value is validated as Codex validates it,
// and the settings are then taken by their exact, case-sensitive keys.
// Decoding into a struct does neither (FuzzParseCodexConfig found both: it
// skipped the invalid value of "0=0000-" and read "nAmE" as name). Syntax
// errors name the line and column.
func parseCodexConfig(data []byte) (codexSettings, error) {
	var whole map[string]any
	if err := toml.Unmarshal(data, &whole); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return codexSettings{}, fmt.Errorf("line %d, column %d: %w", row, col, err)
		}
		return codexSettings{}, err
	}
	var c codexSettings
	var err error
	if c.ModelProvider, err = stringField(whole, "", "model_provider"); err != nil {
		return codexSettings{}, err
	}
	if c.Profile, err = stringField(whole, "", "profile"); err != nil {
		return codexSettings{}, err
	}
	raw, ok := whole["model_providers"]
	if !ok {
		return c, nil
	}
	tables, ok := raw.(map[string]any)
	if !ok {
		return codexSettings{}, errors.New("model_providers must be a table")
	}
	c.ModelProviders = make(map[string]codexProvider, len(tables))
	for id, t := range tables {
		table, ok := t.(map[string]any)
		if !ok {
			return codexSettings{}, fmt.Errorf("model_providers.%s must be a table", id)
		}
		var p codexProvider
		for key, dst := range map[string]*string{"name": &p.Name, "base_url": &p.BaseURL, "wire_api": &p.WireAPI} {
			if *dst, err = stringField(table, "model_providers."+id+".", key); err != nil {
				return codexSettings{}, err
			}
		}
		c.ModelProviders[id] = p
	}
	return c, nil
}

// stringField is table[key] when it is a string, "" when it is absent, and
// an error (as Codex gives one) when it has another type.
func stringField(table map[string]any, prefix, key string) (string, error) {
	v, ok := table[key]
	if !ok {
		return "", nil
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("%s%s must be a string, not %T", prefix, key, v)
	}
	return s, nil
}

// builtinProviders are the provider ids Codex 0.169 defines itself: a
// [model_providers.<id>] table may not reuse them, and model_provider may
// name them without a table.
var builtinProviders = []string{"openai", "ollama", "lmstudio"}

// codexRefusal is why Codex 0.169 refuses to load a config that parses,
// with the fix, or "" (measured with `codex login status`, see
// codexLoadVerdicts): a legacy top-level profile, a provider table that
// reuses a built-in id, has no name or a wire_api other than "responses",
// and a model_provider that names no provider.
func codexRefusal(doc codexSettings) (why, fix string) {
	if doc.Profile != "" {
		return fmt.Sprintf("the legacy profile = %q line is no longer supported", doc.Profile),
			fmt.Sprintf("remove it and run codex --profile %s with %s.config.toml", doc.Profile, doc.Profile)
	}
	for _, id := range slices.Sorted(maps.Keys(doc.ModelProviders)) {
		p := doc.ModelProviders[id]
		switch {
		case slices.Contains(builtinProviders, id):
			return fmt.Sprintf("[model_providers.%s] overrides a built-in provider", id), "rename that table (e.g. hpatch)"
		case strings.TrimSpace(p.Name) == "":
			return fmt.Sprintf("[model_providers.%s] has no name", id), `add name = "hpatch-router" to that table`
		case p.WireAPI != "" && p.WireAPI != "responses":
			return fmt.Sprintf("[model_providers.%s] has wire_api %q", id, p.WireAPI), `set wire_api = "responses" in that table`
		}
	}
	if mp := doc.ModelProvider; mp != "" && !slices.Contains(builtinProviders, mp) {
		if _, ok := doc.ModelProviders[mp]; !ok {
			return fmt.Sprintf("model_provider %q names no provider", mp), fmt.Sprintf("add [model_providers.%s] or change model_provider", mp)
		}
	}
	return "", ""
}

// selectedProvider is the provider Codex uses without -c overrides:
// model_provider, else "openai".
func selectedProvider(doc codexSettings) (name, how string) {
	if mp := doc.ModelProvider; mp != "" {
		return mp, "model_provider"
	}
	return "openai", "the default (no model_provider)"
}

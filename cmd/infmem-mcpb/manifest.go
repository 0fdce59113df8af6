package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/infmem/infmem/internal/mcptools"
)

// templatePath is the manifest's hand-written part, relative to the module
// root: names, descriptions, author, keywords. The builder adds what it
// derives: version, server, tools, prompts and compatibility.platforms.
const templatePath = "packaging/mcpb/manifest.template.json"

// manifest is an MCP Bundle manifest (manifest_version 0.3; see
// https://github.com/anthropics/mcpb, MANIFEST.md), limited to the fields
// infmem uses. Field order is the order written.
type manifest struct {
	ManifestVersion string         `json:"manifest_version"`
	Name            string         `json:"name"`
	DisplayName     string         `json:"display_name,omitempty"`
	Version         string         `json:"version"`
	Description     string         `json:"description"`
	LongDescription string         `json:"long_description,omitempty"`
	Author          author         `json:"author"`
	Repository      *repository    `json:"repository,omitempty"`
	Homepage        string         `json:"homepage,omitempty"`
	Documentation   string         `json:"documentation,omitempty"`
	Support         string         `json:"support,omitempty"`
	Icon            string         `json:"icon,omitempty"`
	Server          *server        `json:"server,omitempty"`
	Tools           []tool         `json:"tools,omitempty"`
	Prompts         []prompt       `json:"prompts,omitempty"`
	Keywords        []string       `json:"keywords,omitempty"`
	License         string         `json:"license,omitempty"`
	Compatibility   *compatibility `json:"compatibility,omitempty"`
}

type author struct {
	Name  string `json:"name"`
	Email string `json:"email,omitempty"`
	URL   string `json:"url,omitempty"`
}

type repository struct {
	Type string `json:"type"`
	URL  string `json:"url"`
}

type server struct {
	Type       string    `json:"type"`
	EntryPoint string    `json:"entry_point"`
	MCPConfig  mcpConfig `json:"mcp_config"`
}

type mcpConfig struct {
	Command           string                     `json:"command"`
	Args              []string                   `json:"args,omitempty"`
	PlatformOverrides map[string]platformCommand `json:"platform_overrides,omitempty"`
}

type platformCommand struct {
	Command string `json:"command"`
}

type tool struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
}

type compatibility struct {
	ClaudeDesktop string   `json:"claude_desktop,omitempty"`
	Platforms     []string `json:"platforms,omitempty"`
}

// mcpArgs is what the bundle's server entry runs: the same command
// `infmem install` writes into claude_desktop_config.json.
var mcpArgs = []string{"mcp"}

// readTemplate reads the hand-written part of the manifest and refuses
// unknown keys and the keys the builder fills in.
func readTemplate(path string) (manifest, error) {
	var m manifest
	b, err := os.ReadFile(path)
	if err != nil {
		return m, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case m.Version != "":
		return m, fmt.Errorf("%s: version is set by the builder (-version), not in the template", path)
	case m.Server != nil:
		return m, fmt.Errorf("%s: server is written by the builder for the platforms it builds", path)
	case len(m.Tools) > 0 || len(m.Prompts) > 0:
		return m, fmt.Errorf("%s: tools and prompts are read from internal/mcptools by the builder", path)
	case m.Compatibility != nil && len(m.Compatibility.Platforms) > 0:
		return m, fmt.Errorf("%s: compatibility.platforms follows the platforms built", path)
	case m.Name == "" || m.Description == "" || m.Author.Name == "" || m.ManifestVersion == "":
		return m, fmt.Errorf("%s: manifest_version, name, description and author.name are required", path)
	}
	return m, nil
}

// serverTools lists every tool infmem's MCP server registers, with the
// first sentence of its description, from the same code the server runs.
// The optional hooks are set so that every tool is listed, as the daemon
// registers them.
func serverTools() []tool {
	errNone := errors.New("manifest only")
	deps := mcptools.Deps{
		Backup: func(context.Context) (mcptools.BackupResult, error) { return mcptools.BackupResult{}, errNone },
		Export: func(context.Context, mcptools.ExportRequest) (mcptools.ExportResult, error) {
			return mcptools.ExportResult{}, errNone
		},
		Optimize: func(context.Context, string, bool) (mcptools.OptimizeResult, error) {
			return mcptools.OptimizeResult{}, errNone
		},
	}
	var out []tool
	for _, st := range mcptools.Tools(deps) {
		out = append(out, tool{Name: st.Tool.Name, Description: firstSentence(st.Tool.Description)})
	}
	return out
}

// firstSentence returns s up to its first full stop that ends a sentence
// (followed by a space and an upper-case letter, or the end).
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	for i := 0; i < len(s); i++ {
		if s[i] != '.' {
			continue
		}
		if i+1 == len(s) {
			return s
		}
		if i+2 < len(s) && s[i+1] == ' ' && s[i+2] >= 'A' && s[i+2] <= 'Z' {
			return s[:i+1]
		}
	}
	return s
}

// buildManifest completes the template for a bundle holding the given
// platforms' binaries (see layout).
func buildManifest(tmpl manifest, version string, plats []platform) manifest {
	m := tmpl
	m.Version = version
	base := plats[0]
	m.Server = &server{
		Type:       "binary",
		EntryPoint: base.entry(),
		MCPConfig: mcpConfig{
			Command:           "${__dirname}/" + base.entry(),
			Args:              mcpArgs,
			PlatformOverrides: map[string]platformCommand{},
		},
	}
	var names []string
	for _, p := range plats {
		m.Server.MCPConfig.PlatformOverrides[p.name] = platformCommand{Command: "${__dirname}/" + p.entry()}
		names = append(names, p.name)
	}
	m.Tools = serverTools()
	m.Prompts = serverPrompts()
	c := compatibility{}
	if m.Compatibility != nil {
		c = *m.Compatibility
	}
	c.Platforms = names
	m.Compatibility = &c
	return m
}

func encodeManifest(m manifest) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

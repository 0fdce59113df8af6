package main

import (
	"github.com/infmem/infmem/internal/mcptools"
)

// prompt is a manifest's prompt entry (MCPB manifest 0.3): the server
// answers prompts/get itself with memories; text is what the prompt asks,
// for clients that show it.
type prompt struct {
	Name        string   `json:"name"`
	Description string   `json:"description,omitempty"`
	Arguments   []string `json:"arguments,omitempty"`
	Text        string   `json:"text"`
}

// serverPrompts lists every prompt infmem's MCP server registers, from
// the same code the server runs.
func serverPrompts() []prompt {
	var out []prompt
	for _, sp := range mcptools.Prompts(mcptools.Deps{}) {
		p := prompt{Name: sp.Prompt.Name, Description: sp.Prompt.Description, Text: mcptools.PromptText(sp.Prompt.Name)}
		for _, a := range sp.Prompt.Arguments {
			p.Arguments = append(p.Arguments, a.Name)
		}
		out = append(out, p)
	}
	return out
}

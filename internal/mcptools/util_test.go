package mcptools

import "github.com/mark3labs/mcp-go/mcp"

func mcpCallRequest(name string, args map[string]any) mcp.CallToolRequest {
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	return req
}

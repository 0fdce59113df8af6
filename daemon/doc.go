// Package daemon owns the long-running infmem service: it wires the database
// engine, the memory engine, the MCP endpoint on the local socket and the
// maintenance scheduler together, and runs their lifecycle.
package daemon

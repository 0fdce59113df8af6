// Package daemon owns the long-running infmem service: it wires the database
// engine, the memory engine, the MCP endpoint on the local socket and the
// maintenance scheduler together, and runs their lifecycle.
//
// A Runtime is the memory of one data root inside one process: it opens the
// database in the background (retrying with back-off), builds the scopes and
// the memory engine on it, serves the MCP tools, holds tool calls while the
// memory is starting or paused (answering with an isError "try again" result
// when that lasts), pauses for restores, and closes everything in order.
// `infmem mcp --in-process` runs a Runtime on stdio; the Daemon runs one
// behind its sockets.
//
// A Daemon is `infmem daemon`: it holds the data root's lock (one daemon per
// root), listens on run/daemon.sock, where every connection is an MCP session
// of its own, and on run/control.sock for terminal commands (see package
// control), writes run/daemon.json, and stops gracefully. It implements
// kardianos/service's Interface.
//
// A Daemon given a ConfigSource reads its configuration again when the file
// changes (polled, and checked whenever status is asked for), on SIGHUP and
// on a control client's reload. Runtime.Reconfigure applies the keys that
// may change while it runs (config.Live) and tells Options.Reconfigure; the
// daemon records the keys that wait for a restart and a file it refused,
// keeping its previous configuration, and reports both in its status.
//
// Everything that needs the open memory is wired in Runtime.open and
// Runtime.startEngine; components that run beside it (the maintenance
// scheduler) attach through Options.Attach, jobs started from a terminal
// through Options.Jobs, and extra status through Options.Reporters.
package daemon

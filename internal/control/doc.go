// Package control owns how other processes find and talk to the daemon of a
// data root: the files in run/ (the lock, daemon.json, the MCP socket and the
// control socket), probing whether a daemon answers, and the control
// protocol that terminal commands use to ask it for its status, to pause it
// around a restore, to run a job in it, to make it read its configuration
// again, or to stop it.
//
// The control protocol is newline-delimited JSON on run/control.sock (0600,
// in the 0700 run/ directory). A client sends one Request per line and reads
// one Response per line, in order, on one connection:
//
//	{"op":"ping"}                          → {"ok":true,"result":{"pid":…,"version":…}}
//	{"op":"status"}                        → {"ok":true,"result":Status}
//	{"op":"pause","release":true}          → {"ok":true}
//	{"op":"resume","reload":true}          → {"ok":true}
//	{"op":"run","job":"backup","args":{}}  → {"ok":true,"result":…}
//	{"op":"run","job":"backup","progress":true}
//	                                       → {"ok":true,"progress":…} lines, then the result
//	{"op":"reload"}                        → {"ok":true,"result":ConfigStatus}
//	{"op":"ui"}                            → {"ok":true,"result":UIInfo}
//	{"op":"shutdown"}                      → {"ok":true}
//	anything refused                       → {"ok":false,"error":"…"}
//
// A pause belongs to the connection that asked for it: when that connection
// ends without a resume, the daemon resumes (reloading) by itself, so a
// crashed restore never leaves the daemon paused. Likewise a job is
// cancelled when the connection that runs it ends (the user pressed Ctrl-C).
package control

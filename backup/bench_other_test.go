//go:build !unix

package backup

func cpuSeconds() float64 { return 0 }

package vecindex

// dotsFunc computes, for each j, out[j] = Σ_i q[i]·row_j[i] over the n =
// len(q) first codes of row_j = codes[ids[j]*stride:], in int32 arithmetic
// that wraps on overflow (the index chooses the query's code range so that
// it never does). len(out) must be at least len(ids).
type dotsFunc func(q []int16, codes []int8, stride int, ids []uint32, out []int32)

// dotsGo is the portable kernel and the reference the assembly is tested
// against. Four independent accumulators let the CPU overlap the
// multiply-adds instead of waiting on one dependency chain.
func dotsGo(q []int16, codes []int8, stride int, ids []uint32, out []int32) {
	n := len(q)
	out = out[:len(ids)]
	for j, id := range ids {
		off := int(id) * stride
		row := codes[off : off+n]
		var s0, s1, s2, s3 int32
		i := 0
		for ; i+4 <= n; i += 4 {
			r, qq := row[i:i+4:i+4], q[i:i+4:i+4]
			s0 += int32(r[0]) * int32(qq[0])
			s1 += int32(r[1]) * int32(qq[1])
			s2 += int32(r[2]) * int32(qq[2])
			s3 += int32(r[3]) * int32(qq[3])
		}
		for ; i < n; i++ {
			s0 += int32(row[i]) * int32(q[i])
		}
		out[j] = s0 + s1 + s2 + s3
	}
}

// checkDots panics unless every row the kernel will read lies inside codes:
// the assembly cannot check bounds itself.
func checkDots(q []int16, codes []int8, stride int, ids []uint32, out []int32) {
	_ = out[:len(ids)]
	var hi uint32
	for _, id := range ids {
		hi = max(hi, id)
	}
	if len(ids) > 0 && len(q) > 0 {
		_ = codes[int(hi)*stride+len(q)-1]
	}
}
